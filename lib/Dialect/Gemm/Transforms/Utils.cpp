//===- Utils.cpp - helpers shared by the gemm transformation passes -------===//

#include "Utils.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

const gemmc::Schedule &mlir::gemm::getKernelSchedule(MatmulOp matmul) {
  ScheduleAttr schedule = lookupSchedule(matmul);
  assert(schedule && "collectMatmuls checks that the kernel has a schedule");
  return schedule.getValue();
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

/// The view `view` is a subview or cast of, or null. A subview that picks
/// one matrix of a batch (rank 3 to 2) is where the matrix starts.
static Value viewedMemRef(Value view) {
  if (auto cast = view.getDefiningOp<memref::CastOp>())
    return cast.getSource();
  if (auto subView = view.getDefiningOp<memref::SubViewOp>())
    if (subView.getSourceType().getRank() == 2)
      return subView.getSource();
  return Value();
}

// The walks up a chain of views are while loops: GCC 12 has been seen to loop
// for ever on `for (; Value source = ...; view = source)`, whose iteration
// expression reads the condition's variable.
bool mlir::gemm::viewsMatrix(Value view) {
  while (Value source = viewedMemRef(view)) {
    if (auto subView = view.getDefiningOp<memref::SubViewOp>())
      if (!llvm::all_of(subView.getStaticStrides(),
                        [](int64_t stride) { return stride == 1; }))
        return false;
    view = source;
  }
  auto type = dyn_cast<MemRefType>(view.getType());
  return type && type.getRank() == 2;
}

MemRefType mlir::gemm::matrixTypeOf(Value view) {
  while (Value source = viewedMemRef(view))
    view = source;
  return cast<MemRefType>(view.getType());
}

bool mlir::gemm::startsInsideMatrix(Value view) {
  for (; view; view = viewedMemRef(view))
    if (auto subView = view.getDefiningOp<memref::SubViewOp>())
      if (subView->hasAttr(kWarpViewAttr))
        return false;
  return true;
}

MatrixPoint mlir::gemm::pointInMatrix(OpBuilder &b, Location loc, Value view,
                                      Value row, Value col) {
  assert(viewsMatrix(view) && "not a view of a matrix");
  while (Value source = viewedMemRef(view)) {
    if (auto subView = view.getDefiningOp<memref::SubViewOp>()) {
      SmallVector<OpFoldResult> offsets = subView.getMixedOffsets();
      row = arith::AddIOp::create(
          b, loc, row, getValueOrCreateConstantIndexOp(b, loc, offsets[0]));
      col = arith::AddIOp::create(
          b, loc, col, getValueOrCreateConstantIndexOp(b, loc, offsets[1]));
    }
    view = source;
  }
  return {row, col,
          getValueOrCreateConstantIndexOp(b, loc, extentOf(b, loc, view, 0)),
          getValueOrCreateConstantIndexOp(b, loc, extentOf(b, loc, view, 1))};
}

Value mlir::gemm::isInside(OpBuilder &b, Location loc, const MatrixPoint &p,
                           unsigned dim, int64_t width) {
  auto below = [&](Value v, Value bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v, bound);
  };
  Value lastRow = dim == 0 ? addOffset(b, loc, p.row, width - 1) : p.row;
  Value lastCol = dim == 1 ? addOffset(b, loc, p.col, width - 1) : p.col;
  // One comparison per statement: a call's arguments have no set order.
  Value rowInside = below(lastRow, p.rows);
  Value colInside = below(lastCol, p.cols);
  return arith::AndIOp::create(b, loc, rowInside, colInside);
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

Value EpilogueValues::apply(
    OpBuilder &b, Location loc, Value acc, Value old, Value c,
    function_ref<std::pair<Value, Value>()> position) const {
  auto vectorType = dyn_cast<VectorType>(acc.getType());
  auto splat = [&](Value scalar) -> Value {
    if (vectorType)
      return vector::BroadcastOp::create(b, loc, vectorType, scalar);
    return scalar;
  };
  Value value = acc;
  if (alpha) {
    value = arith::MulFOp::create(b, loc, splat(alpha), value);
    if (readsC)
      value = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, splat(beta), old), value);
  }
  if (bias) {
    // The bias at C's row (one value) or columns (along the row), read
    // like C (guarded past the matrix in kernels with tails).
    auto [row, col] = position();
    MatrixPoint p = pointInMatrix(b, loc, c, row, col);
    auto biasType = cast<MemRefType>(bias.getType());
    Type element = biasType.getElementType();
    Value zero = indexConstant(b, loc, 0);
    Value at[] = {biasPerRow ? p.row : zero, biasPerRow ? zero : p.col};
    int64_t width = vectorType && !biasPerRow ? vectorType.getNumElements() : 1;
    // Guarded reads (tails) keep or drop a whole vector: where N is not a
    // multiple of the width (a column-major C allows it) or is given at
    // launch, the bias is read an element at a time.
    int64_t piece =
        !biasType.isDynamicDim(1) && biasType.getDimSize(1) % width == 0 ? width
                                                                         : 1;
    auto pieceType = VectorType::get({piece}, element);
    auto readAt = [&](int64_t e) {
      return readAlongRow(b, loc, pieceType, bias, at[0],
                          addOffset(b, loc, at[1], e));
    };
    Value read;
    if (piece == width) {
      read = readAt(0);
    } else {
      SmallVector<Value> elements;
      for (int64_t e = 0; e < width; ++e)
        elements.push_back(vector::ExtractOp::create(b, loc, readAt(e), 0));
      read = vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, element), elements);
    }
    read = extendToF32(b, loc, read);
    Value add =
        width > 1 ? read : splat(vector::ExtractOp::create(b, loc, read, 0));
    value = arith::AddFOp::create(b, loc, value, add);
  }
  if (relu) {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    value = arith::MaximumFOp::create(b, loc, value, splat(zero));
  }
  return value;
}

LogicalResult mlir::gemm::buildEpilogue(
    OpBuilder &b, Location loc, Operation *at, Value c,
    function_ref<void(OpBuilder &, const EpilogueValues &)> stores) {
  auto func = at->getParentOfType<gpu::GPUFuncOp>();
  EpilogueValues plain;
  if (!func) {
    stores(b, plain);
    return success();
  }
  if (auto bias = func->getAttrOfType<StringAttr>(kBiasAttr)) {
    if (!viewsMatrix(c))
      return at->emitOpError("cannot place the bias: C is not a view of a "
                             "matrix");
    plain.bias = getKernelArgument(func, KernelArg::Bias);
    if (!plain.bias)
      return func.emitOpError("lacks the bias argument of the kernel ABI");
    plain.biasPerRow = bias.getValue() == "row";
  }
  plain.relu = func->hasAttr(kReluAttr);
  if (!func->hasAttr(kAlphaBetaAttr)) {
    stores(b, plain);
    return success();
  }
  plain.alpha = getKernelArgument(func, KernelArg::Alpha);
  plain.beta = getKernelArgument(func, KernelArg::Beta);
  if (!plain.alpha || !plain.beta)
    return func.emitOpError("lacks the alpha and beta arguments of the "
                            "kernel ABI");
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value readsC = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                       plain.beta, zero);
  scf::IfOp::create(
      b, loc, readsC,
      [&](OpBuilder &tb, Location) {
        EpilogueValues withC = plain;
        withC.readsC = true;
        stores(tb, withC);
        scf::YieldOp::create(tb, loc);
      },
      [&](OpBuilder &eb, Location) {
        stores(eb, plain);
        scf::YieldOp::create(eb, loc);
      });
  return success();
}
