//===- SplitK.cpp - the reduction of split-K's partial tiles --------------===//
//
// The workspace holds, per tile of C (blockIdx.y * gridDim.x + blockIdx.x),
// S partial tiles of BM x BN f32, one per split; in a partial tile each
// accumulator of the threads lies contiguously, thread after thread, so
// that a warp's stores and loads are whole lines. The counters hold one i32
// per tile.
//
//===----------------------------------------------------------------------===//

#include "SplitK.h"
#include "Accesses.h"
#include "Bounds.h"
#include "Utils.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

/// The pieces an accumulator is stored in: the rows of a 2-D fragment, or
/// the accumulator itself (a 1-D vector or a scalar). (Rows, not one
/// flattened vector: the canonicalizer folds a flattening into a 2-D
/// vector.shape_cast, which does not lower to LLVM.)
static void appendPieces(OpBuilder &b, Location loc, Value acc,
                         SmallVectorImpl<Value> &pieces) {
  auto type = dyn_cast<VectorType>(acc.getType());
  if (!type || type.getRank() == 1) {
    pieces.push_back(acc);
    return;
  }
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    pieces.push_back(vector::ExtractOp::create(b, loc, acc, r));
}

/// The accumulator of `type` whose pieces start at `pieces[next]`.
static Value assemble(OpBuilder &b, Location loc, Type type,
                      ArrayRef<Value> pieces, size_t &next) {
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType || vectorType.getRank() == 1)
    return pieces[next++];
  Value result = arith::ConstantOp::create(
      b, loc, vectorType, cast<TypedAttr>(b.getZeroAttr(vectorType)));
  for (int64_t r = 0; r < vectorType.getDimSize(0); ++r)
    result = vector::InsertOp::create(b, loc, pieces[next++], result, r);
  return result;
}

static int64_t widthOf(Value piece) {
  auto type = dyn_cast<VectorType>(piece.getType());
  return type ? type.getNumElements() : 1;
}

static void storeAt(OpBuilder &b, Location loc, Value value, Value memref,
                    Value index) {
  if (auto type = dyn_cast<VectorType>(value.getType())) {
    vector::StoreOp::create(b, loc, value, memref, ValueRange{index},
                            /*nontemporal=*/false, alignmentOf(type));
    return;
  }
  memref::StoreOp::create(b, loc, value, memref, index);
}

static Value loadAt(OpBuilder &b, Location loc, Type type, Value memref,
                    Value index) {
  if (auto vectorType = dyn_cast<VectorType>(type))
    return vector::LoadOp::create(b, loc, vectorType, memref,
                                  ValueRange{index}, /*nontemporal=*/false,
                                  alignmentOf(vectorType));
  return memref::LoadOp::create(b, loc, memref, index);
}

SplitRange mlir::gemm::getSplitRange(OpBuilder &b, Location loc,
                                      OpFoldResult k, int64_t splits,
                                      int64_t bk) {
  Value z = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  if (std::optional<int64_t> known = getConstantIntValue(k)) {
    int64_t chunk = *known / splits;
    Value start =
        arith::MulIOp::create(b, loc, z, indexConstant(b, loc, chunk));
    return {start, b.getIndexAttr(chunk), Value()};
  }
  Value kValue = getValueOrCreateConstantIndexOp(b, loc, k);
  Value steps = arith::CeilDivUIOp::create(
      b, loc, kValue, indexConstant(b, loc, splits * bk));
  Value chunk = arith::MulIOp::create(b, loc, steps, indexConstant(b, loc, bk));
  Value start = arith::MulIOp::create(b, loc, z, chunk);
  Value empty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, start, kValue);
  Value zero = indexConstant(b, loc, 0);
  Value from = arith::SelectOp::create(b, loc, empty, zero, start);
  Value left = arith::SubIOp::create(b, loc, kValue, from);
  Value extent = arith::MinUIOp::create(b, loc, left, chunk);
  return {from, extent, empty};
}

LogicalResult mlir::gemm::reduceSplits(OpBuilder &b, Location loc,
                                       MatmulOp matmul,
                                       SmallVectorImpl<Value> &accs) {
  const gemmc::Schedule &s = getKernelSchedule(matmul);
  int64_t splits = s.splits();
  if (splits == 1)
    return success();
  auto func = matmul->getParentOfType<gpu::GPUFuncOp>();
  Value workspace = getKernelArgument(func, KernelArg::Workspace);
  Value counters = getKernelArgument(func, KernelArg::Counters);
  if (!workspace || !counters)
    return func.emitOpError("lacks the split-k workspace and counters of the "
                            "kernel ABI");
  // The threads' accumulators fill a partial tile exactly, and in strips of
  // one width the vectors stay aligned.
  for (Value acc : accs) {
    auto vectorType = dyn_cast<VectorType>(acc.getType());
    if (!getElementTypeOrSelf(acc.getType()).isF32() ||
        (vectorType && vectorType.getRank() > 2))
      return matmul.emitOpError("split-k reduces f32 accumulators of rank 2 "
                                "at most");
  }
  SmallVector<Value> pieces;
  for (Value acc : accs)
    appendPieces(b, loc, acc, pieces);
  int64_t threads = s.threadsPerBlock();
  int64_t width = widthOf(pieces.front());
  if (llvm::any_of(pieces, [&](Value p) { return widthOf(p) != width; }))
    return matmul.emitOpError("split-k needs accumulators of one width");
  int64_t tileFloats = s.bm() * s.bn();
  int64_t perThread = width * int64_t(pieces.size());
  if (perThread * threads != tileFloats)
    return matmul.emitOpError("the threads' ")
           << perThread * threads << " accumulators do not fill the "
           << s.bm() << "x" << s.bn() << " tile that split-k reduces";

  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  Value gridX = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value rowStart = arith::MulIOp::create(b, loc, blockY, gridX);
  Value tile = arith::AddIOp::create(b, loc, rowStart, blockX);
  Value tileBase =
      arith::MulIOp::create(b, loc, tile, c(splits * tileFloats));
  Value threadOffset = arith::MulIOp::create(b, loc, tid, c(width));
  // Where accumulator `i` of this thread lies in the partial tile at `base`.
  auto slot = [&](OpBuilder &ib, Value base, int64_t i) {
    Value strip = addOffset(ib, loc, base, i * width * threads);
    return arith::AddIOp::create(ib, loc, strip, threadOffset).getResult();
  };

  // A split past K counts in with zeros (it computed split 0's range).
  if (!viewsMatrix(matmul.getA()))
    return matmul.emitOpError("split-k cannot find the extent of K");
  Value zeroIndex = c(0);
  MatrixPoint origin =
      pointInMatrix(b, loc, matmul.getA(), zeroIndex, zeroIndex);
  if (Value empty = getSplitRange(b, loc, origin.cols, splits, s.bk()).empty) {
    for (Value &piece : pieces) {
      Type type = piece.getType();
      Value zero = arith::ConstantOp::create(
          b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)));
      piece = arith::SelectOp::create(b, loc, empty, zero, piece);
    }
  }
  Value splitOffset = arith::MulIOp::create(b, loc, split, c(tileFloats));
  Value mine = arith::AddIOp::create(b, loc, tileBase, splitOffset);
  for (auto [i, piece] : llvm::enumerate(pieces))
    storeAt(b, loc, piece, workspace, slot(b, mine, int64_t(i)));
  // Release: the partials reach the GPU's scope before the block counts
  // itself in.
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  gpu::BarrierOp::create(b, loc);

  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      c(0));
  auto count = scf::IfOp::create(
      b, loc, TypeRange{b.getI32Type()}, first, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(count.thenBlock());
    Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
    Value before = memref::AtomicRMWOp::create(
        b, loc, arith::AtomicRMWKind::addi, one, counters, ValueRange{tile});
    Value lastCount = arith::ConstantIntOp::create(b, loc, splits - 1, 32);
    Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         before, lastCount);
    // Every split of the tile has counted in: ready for the next launch.
    auto reset = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/false);
    b.setInsertionPointToStart(reset.thenBlock());
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
    memref::StoreOp::create(b, loc, zero, counters, ValueRange{tile});
    b.setInsertionPointAfter(reset);
    Value flag = arith::ExtUIOp::create(b, loc, b.getI32Type(), isLast);
    scf::YieldOp::create(b, loc, flag);
    b.setInsertionPointToStart(count.elseBlock());
    Value notLast = arith::ConstantIntOp::create(b, loc, 0, 32);
    scf::YieldOp::create(b, loc, notLast);
  }
  // bar.red.or: the block learns whether thread 0 counted it in last.
  auto reduction =
      NVVM::BarrierReductionAttr::get(b.getContext(), NVVM::BarrierReduction::OR);
  Value anyLast = NVVM::BarrierOp::create(b, loc, b.getI32Type(), Value(),
                                          Value(), reduction,
                                          count.getResult(0))
                      .getResult(0);
  Value zero32 = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, anyLast,
                                     zero32);
  auto ifLast = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifLast.thenBlock());
  // Acquire: the other blocks' partials, fenced before their count.
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  // Split 0's partials, then the others' added in split order.
  SmallVector<Value> inits;
  for (auto [i, piece] : llvm::enumerate(pieces))
    inits.push_back(loadAt(b, loc, piece.getType(), workspace,
                           slot(b, tileBase, int64_t(i))));
  Value lower = c(1);
  Value upper = c(splits);
  Value step = c(1);
  auto sum = scf::ForOp::create(
      b, loc, lower, upper, step, inits,
      [&](OpBuilder &lb, Location l, Value index, ValueRange partial) {
        Value floats = indexConstant(lb, l, tileFloats);
        Value offset = arith::MulIOp::create(lb, l, index, floats);
        Value base = arith::AddIOp::create(lb, l, tileBase, offset);
        SmallVector<Value> next;
        for (auto [i, value] : llvm::enumerate(partial)) {
          Value loaded =
              loadAt(lb, l, value.getType(), workspace, slot(lb, base, i));
          next.push_back(arith::AddFOp::create(lb, l, value, loaded));
        }
        scf::YieldOp::create(lb, l, next);
      });
  SmallVector<Value> sums(sum.getResults());
  size_t next = 0;
  for (Value &acc : accs)
    acc = assemble(b, loc, acc.getType(), sums, next);
  return success();
}
