//===- Utils.h - helpers shared by the gemm transformation passes -*- C++ -*-===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// The schedule of the kernel around `matmul`, which must have one (as the
/// ops collectMatmuls returns do).
const gemmc::Schedule &getKernelSchedule(MatmulOp matmul);

/// The gemm.matmul ops in `root` that `select` picks given their kernel's
/// schedule; fails, with an error, on one outside a kernel with a schedule.
FailureOr<SmallVector<MatmulOp>>
collectMatmuls(Operation *root,
               function_ref<bool(MatmulOp, const gemmc::Schedule &)> select);

/// A `rows x cols` subview of the 2-D `source` at (row, col).
inline memref::SubViewOp createTileView(OpBuilder &b, Location loc,
                                        Value source, OpFoldResult row,
                                        OpFoldResult col, OpFoldResult rows,
                                        OpFoldResult cols) {
  SmallVector<OpFoldResult> offsets = {row, col};
  SmallVector<OpFoldResult> sizes = {rows, cols};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, source, offsets, sizes, strides);
}

/// Extent `dim` of the memref `value`: static, or read with memref.dim.
inline OpFoldResult extentOf(OpBuilder &b, Location loc, Value value,
                             unsigned dim) {
  auto type = cast<MemRefType>(value.getType());
  if (!type.isDynamicDim(dim))
    return b.getIndexAttr(type.getDimSize(dim));
  return memref::DimOp::create(b, loc, value, dim).getResult();
}

inline Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `base + offset`, skipping the add for 0.
inline Value addOffset(OpBuilder &b, Location loc, Value base,
                       int64_t offset) {
  if (offset == 0)
    return base;
  return arith::AddIOp::create(b, loc, base, indexConstant(b, loc, offset));
}

/// Whether consecutive elements of a 2-D memref run along its last dimension.
inline bool isRowMajor(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  return strides[1] == 1;
}

/// The extent of the loop over K of `matmul` (whose A is `a`): K, or K
/// rounded up to BK when the tiles of A and B are staged in shared memory
/// and K is not a multiple of BK (the copies zero-fill the last tile past
/// K). Static where K is, else computed from the K given at launch.
OpFoldResult kLoopExtent(OpBuilder &b, Location loc, Operation *matmul, Value a,
                         int64_t bk, bool promoted);

/// An in-bounds `vector.transfer_read` of `type` along the row (dimension
/// 1) of the 2-D `memref` from (row, col), padded with zeros.
Value readAlongRow(OpBuilder &b, Location loc, VectorType type, Value memref,
                   Value row, Value col);

/// `vector` with f32 elements: itself, or extended from f16 or bf16.
Value extendToF32(OpBuilder &b, Location loc, Value vector);

/// How the stores of C apply the epilogue: `alpha * acc` (beta = 0: C is
/// not read) or `alpha * acc + beta * C` where there is an alpha, then plus
/// a bias (a 1 x N row or an M x 1 column of C's type), then ReLU.
struct EpilogueValues {
  Value alpha, beta;
  bool readsC = false;
  Value bias;
  bool biasPerRow = false, relu = false;

  /// The value to store for the f32 accumulators `acc` (a scalar, or a
  /// vector along a row of C), given C's old values `old` as f32 where
  /// `readsC`; `position` gives (row, col) of `acc` in the view `c` of C
  /// (asked for only with a bias).
  Value apply(OpBuilder &b, Location loc, Value acc, Value old, Value c,
              function_ref<std::pair<Value, Value>()> position) const;
};

/// Emits the stores of C (`stores`) once, or in a kernel with
/// `gemm.alpha_beta` (alpha and beta its arguments by the kernel ABI) twice,
/// under one branch on beta != 0: C is read only on that side.
/// Fails where a bias cannot be placed: C (`c`) is not a view of a matrix.
LogicalResult
buildEpilogue(OpBuilder &b, Location loc, Operation *at, Value c,
              function_ref<void(OpBuilder &, const EpilogueValues &)> stores);

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

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
