//===- Utils.cpp - helpers shared by the gemm transformation passes -------===//

#include "Utils/Utils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

const gemmc::Schedule &mlir::gemm::getKernelSchedule(MatmulOp matmul) {
  ScheduleAttr schedule = lookupSchedule(matmul);
  assert(schedule && "collectMatmuls checks that the kernel has a schedule");
  return schedule.getValue();
}

bool mlir::gemm::isTf32x3Kernel(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto problem = op->getAttrOfType<ProblemAttr>(kProblemAttr))
      return problem.getMath() == gemmc::MathMode::TF32x3;
  return false;
}

std::pair<Value, Value> mlir::gemm::splitTf32(OpBuilder &b, Location loc,
                                              Value x) {
  Type i32 = b.getI32Type();
  Value half = arith::ConstantIntOp::create(b, loc, i32, 0x1000);
  Value mask = arith::ConstantIntOp::create(b, loc, i32, -0x2000); // 0xffffe000
  auto roundToTf32 = [&](Value value) -> Value {
    Value bits = arith::BitcastOp::create(b, loc, i32, value);
    Value up = arith::AddIOp::create(b, loc, bits, half);
    Value cleared = arith::AndIOp::create(b, loc, up, mask);
    return arith::BitcastOp::create(b, loc, b.getF32Type(), cleared);
  };
  Value big = roundToTf32(x);
  Value rest = arith::SubFOp::create(b, loc, x, big);
  return {big, roundToTf32(rest)};
}

FailureOr<SmallVector<MatmulOp>> mlir::gemm::collectMatmuls(
    Operation *root,
    function_ref<bool(MatmulOp, const gemmc::Schedule &)> select) {
  SmallVector<MatmulOp> matmuls;
  WalkResult walk = root->walk([&](MatmulOp op) {
    ScheduleAttr schedule = lookupSchedule(op);
    if (!schedule) {
      op.emitOpError("is not inside a kernel with a '")
          << kScheduleAttr << "' attribute";
      return WalkResult::interrupt();
    }
    if (select(op, schedule.getValue()))
      matmuls.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return matmuls;
}

OpFoldResult mlir::gemm::kLoopExtent(OpBuilder &b, Location loc,
                                     Operation *matmul, Value a, int64_t bk,
                                     bool promoted) {
  OpFoldResult k = extentOf(b, loc, a, 1);
  auto func = matmul->getParentOfType<gpu::GPUFuncOp>();
  if (!promoted || !func || !func->hasAttr(kTailsAttr))
    return k;
  if (std::optional<int64_t> known = getConstantIntValue(k))
    return b.getIndexAttr(llvm::divideCeil(*known, bk) * bk);
  // (K + BK - 1) / BK * BK.
  Value roundedUp = addOffset(b, loc, cast<Value>(k), bk - 1);
  Value tiles =
      arith::DivUIOp::create(b, loc, roundedUp, indexConstant(b, loc, bk));
  return arith::MulIOp::create(b, loc, tiles, indexConstant(b, loc, bk))
      .getResult();
}

Value mlir::gemm::readAlongRow(OpBuilder &b, Location loc, VectorType type,
                               Value memref, Value row, Value col) {
  Value pad = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), 0.0));
  AffineMap alongRow =
      AffineMap::get(2, 0, getAffineDimExpr(1, b.getContext()));
  bool inBounds[] = {true};
  return vector::TransferReadOp::create(
      b, loc, type, memref, ValueRange{row, col}, pad, alongRow, inBounds);
}

Value mlir::gemm::extendToF32(OpBuilder &b, Location loc, Value vector) {
  auto type = cast<VectorType>(vector.getType());
  if (type.getElementType().isF32())
    return vector;
  return arith::ExtFOp::create(b, loc, type.clone(b.getF32Type()), vector);
}

std::pair<Value, Value> mlir::gemm::rasterize(OpBuilder &b, Location loc,
                                              Value linear, Value rows,
                                              Value cols, int64_t group) {
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  std::optional<int64_t> knownCols = getConstantIntValue(cols);
  Value perGroup =
      knownCols ? c(group * *knownCols)
                : arith::MulIOp::create(b, loc, c(group), cols).getResult();
  Value groupId = arith::DivUIOp::create(b, loc, linear, perGroup);
  Value firstRow = arith::MulIOp::create(b, loc, groupId, c(group));
  Value rowsLeft = arith::SubIOp::create(b, loc, rows, firstRow);
  Value groupRows = arith::MinUIOp::create(b, loc, rowsLeft, c(group));
  Value inGroup = arith::RemUIOp::create(b, loc, linear, perGroup);
  Value rowInGroup = arith::RemUIOp::create(b, loc, inGroup, groupRows);
  Value row = arith::AddIOp::create(b, loc, firstRow, rowInGroup);
  Value col = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {row, col};
}

void mlir::gemm::keepRolled(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  auto yes = BoolAttr::get(ctx, true);
  auto unroll =
      LLVM::LoopUnrollAttr::get(ctx, /*disable=*/yes, {}, {}, {}, {}, {}, {});
  auto annotation = LLVM::LoopAnnotationAttr::get(
      ctx, {}, {}, {}, unroll, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  // scf-to-cf copies the loop's LLVM attributes to its latch branch, and
  // the branch's lowering to llvm.br keeps them: named `loop_annotation`,
  // the attribute is llvm.br's own, which becomes `!llvm.loop`.
  loop->setAttr("loop_annotation", annotation);
}
