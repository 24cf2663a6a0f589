//===- MapThreads.cpp - map a block-level gemm.matmul onto threads --------===//
//
// One thread per element of the block tile: a dot product over K read straight
// from global memory. The `coalesce` directive decides which dimension of C
// consecutive threads walk.
//
//===----------------------------------------------------------------------===//

#include "Lowering/Bounds.h"
#include "Lowering/Epilogue.h"
#include "Lowering/SplitK.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMMAPTHREADS
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// Converts `value` to `type` by extending or truncating a float.
static Value castFloat(OpBuilder &builder, Location loc, Value value,
                       Type type) {
  unsigned from = value.getType().getIntOrFloatBitWidth();
  unsigned to = type.getIntOrFloatBitWidth();
  if (value.getType() == type)
    return value;
  if (from < to)
    return arith::ExtFOp::create(builder, loc, type, value);
  return arith::TruncFOp::create(builder, loc, type, value);
}

static LogicalResult mapThreads(MatmulOp matmul) {
  const gemmc::Schedule &schedule = getKernelSchedule(matmul);
  auto cType = cast<MemRefType>(matmul.getC().getType());
  int64_t bm = cType.getDimSize(0), bn = cType.getDimSize(1);
  if (bm * bn != schedule.threadsPerBlock())
    return matmul.emitOpError("block tile ")
           << bm << "x" << bn << " does not match the schedule's "
           << schedule.threadsPerBlock() << " threads per block";

  OpBuilder builder(matmul);
  Location loc = matmul.getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  Value k = getValueOrCreateConstantIndexOp(
      builder, loc,
      kLoopExtent(builder, loc, matmul, matmul.getA(), schedule.bk(),
                  schedule.hasPromotion()));
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);

  // Consecutive threads walk rows of C unless `coalesce` asks for C's
  // contiguous dimension and that is a row.
  bool threadsWalkColumns = schedule.coalesce && isRowMajor(cType);
  Value row, col;
  if (threadsWalkColumns) {
    row = arith::DivUIOp::create(builder, loc, tid, index(bn));
    col = arith::RemUIOp::create(builder, loc, tid, index(bn));
  } else {
    row = arith::RemUIOp::create(builder, loc, tid, index(bm));
    col = arith::DivUIOp::create(builder, loc, tid, index(bm));
  }

  // Tails: threads past the matrix read row or column 0 and store nothing.
  Value inside;
  auto func = matmul->getParentOfType<gpu::GPUFuncOp>();
  if (func->hasAttr(kTailsAttr)) {
    if (!viewsMatrix(matmul.getC()))
      return matmul.emitOpError("cannot find the bounds of C");
    MatrixPoint p = pointInMatrix(builder, loc, matmul.getC(), row, col);
    inside = isInside(builder, loc, p, /*dim=*/1, /*width=*/1);
    Value zero = index(0);
    row = arith::SelectOp::create(builder, loc, inside, row, zero);
    col = arith::SelectOp::create(builder, loc, inside, col, zero);
  }

  // Tails with one operand staged in shared memory: the loop over K runs to
  // K rounded up to BK (the staged tile is zero-filled past K), and the
  // other operand, read from global memory, must read 0 past K too: beyond
  // its end lies other memory, and 0 times what is there may be NaN. Its
  // reads are transfer reads, which gemm-vectorize guards by the matrix
  // bounds like every other global access.
  bool guardA = inside && schedule.hasPromotion() && !schedule.promoteA;
  bool guardB = inside && schedule.hasPromotion() && !schedule.promoteB;

  Type accType = matmul.getAccType();
  auto contract = arith::FastMathFlagsAttr::get(builder.getContext(),
                                                arith::FastMathFlags::contract);
  Value init = arith::ConstantOp::create(builder, loc, accType,
                                         builder.getFloatAttr(accType, 0.0));
  Value lower = index(0);
  Value step = index(1);
  auto loop = scf::ForOp::create(
      builder, loc, lower, k, step, ValueRange{init},
      [&](OpBuilder &b, Location l, Value kk, ValueRange iterArgs) {
        auto load = [&](Value memref, Value r, Value c, bool guard) -> Value {
          if (!guard)
            return memref::LoadOp::create(b, l, memref, ValueRange{r, c});
          Type element = cast<MemRefType>(memref.getType()).getElementType();
          Value one =
              readAlongRow(b, l, VectorType::get({1}, element), memref, r, c);
          return vector::ExtractOp::create(b, l, one, 0);
        };
        Value lhs = load(matmul.getA(), row, kk, guardA);
        Value rhs = load(matmul.getB(), kk, col, guardB);
        lhs = castFloat(b, l, lhs, accType);
        rhs = castFloat(b, l, rhs, accType);
        Value product = arith::MulFOp::create(b, l, lhs, rhs, contract);
        Value sum = arith::AddFOp::create(b, l, iterArgs[0], product, contract);
        scf::YieldOp::create(b, l, sum);
      });
  loop->setAttr(kKLoopAttr, builder.getUnitAttr());
  SmallVector<Value> accs(loop.getResults());
  if (failed(reduceSplits(builder, loc, matmul, accs)))
    return failure();
  LogicalResult built = buildEpilogue(
      builder, loc, matmul, matmul.getC(),
      [&](OpBuilder &b, const EpilogueValues &e) {
        // C's old value and R's, read where C is stored.
        auto readAt = [&](Value matrix) -> Value {
          Value read =
              memref::LoadOp::create(b, loc, matrix, ValueRange{row, col});
          return castFloat(b, loc, read, accType);
        };
        Value old = e.readsC ? readAt(matmul.getC()) : Value();
        Value added = e.residual ? readAt(e.residual) : Value();
        Value result =
            castFloat(b, loc,
                      e.apply(b, loc, accs[0], old, added, matmul.getC(),
                              [&] { return std::make_pair(row, col); }),
                      cType.getElementType());
        OpBuilder::InsertionGuard guard(b);
        if (inside) {
          auto ifInside =
              scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifInside.thenBlock());
        }
        memref::StoreOp::create(b, loc, result, matmul.getC(),
                                ValueRange{row, col});
      });
  if (failed(built))
    return failure();
  matmul.erase();
  return success();
}

namespace {
struct GemmMapThreadsPass
    : public mlir::gemm::impl::GemmMapThreadsBase<GemmMapThreadsPass> {
  void runOnOperation() override {
    FailureOr<SmallVector<MatmulOp>> matmuls = collectMatmuls(
        getOperation(), [](MatmulOp op, const gemmc::Schedule &s) {
          return op.getLevel() == Level::Block && !s.registerTile &&
                 !s.warpTile;
        });
    if (failed(matmuls))
      return signalPassFailure();
    for (MatmulOp matmul : *matmuls)
      if (failed(mapThreads(matmul)))
        return signalPassFailure();
  }
};
} // namespace
