//===- Bounds.cpp - where a view lies in its matrix
//-------------------------===//
//
// Views of a global matrix traced back to it through subviews and casts.
//
//===----------------------------------------------------------------------===//

#include "Lowering/Bounds.h"
#include "Utils/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::gemm;

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

FailureOr<Value> mlir::gemm::replayView(OpBuilder &b, Value view, Value from,
                                        Value to) {
  assert(from.getType() == to.getType() && "replayed onto another type");
  SmallVector<Operation *> chain;
  while (view != from) {
    Operation *op = view.getDefiningOp();
    if (!isa_and_nonnull<memref::CastOp, memref::SubViewOp>(op))
      return failure();
    chain.push_back(op);
    view = op->getOperand(0);
  }
  IRMapping mapping;
  mapping.map(from, to);
  Value replayed = to;
  for (Operation *op : llvm::reverse(chain))
    replayed = b.clone(*op, mapping)->getResult(0);
  return replayed;
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
