//===- Bounds.h - where a view lies in its matrix --------------------*- C++
//-*-===//
//
// The bounds analysis of the guards: a view of a global matrix (through
// subviews and casts) back to the matrix, its points in the matrix's
// coordinates, and whether they lie inside it.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_BOUNDS_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_BOUNDS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// A point of a view of a global matrix, in the matrix's coordinates, with
/// the matrix's extents.
struct MatrixPoint {
  Value row, col;
  Value rows, cols;
};

/// Whether `view` is a 2-D memref or a view of one through
/// memref.subview (unit strides) and memref.cast ops.
bool viewsMatrix(Value view);

/// The type of the 2-D matrix `view` views (`view` must satisfy
/// viewsMatrix).
MemRefType matrixTypeOf(Value view);

/// The view of `to` that `view` is of `from`: the subviews and casts from
/// `from` (a memref) to `view` cloned at `b`'s insertion point onto `to`,
/// a memref of `from`'s type (R is C's twin). Fails where `view` is not
/// reached from `from` through subviews and casts.
FailureOr<Value> replayView(OpBuilder &b, Value view, Value from, Value to);

/// Whether (0, 0) of `view` lies inside the matrix it views: a block's tile
/// starts inside (the grid covers the matrix from its start), a warp's tile
/// (gemm-warp-tile's views) may start past its edge.
bool startsInsideMatrix(Value view);

/// Where (row, col) of `view` lies in the matrix it views (`view` must
/// satisfy viewsMatrix).
MatrixPoint pointInMatrix(OpBuilder &b, Location loc, Value view, Value row,
                          Value col);

/// Whether the `width` elements from `p` along `dim` (0: down a column, 1:
/// along a row) lie inside the matrix.
Value isInside(OpBuilder &b, Location loc, const MatrixPoint &p, unsigned dim,
               int64_t width);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_BOUNDS_H
