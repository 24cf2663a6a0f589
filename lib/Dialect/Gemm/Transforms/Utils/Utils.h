//===- Utils.h - helpers shared by the gemm transformation passes -*- C++
//-*-===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// The schedule of the kernel around `matmul`, which must have one (as the
/// ops collectMatmuls returns do).
const gemmc::Schedule &getKernelSchedule(MatmulOp matmul);

/// Whether the kernel around `op` computes its f32 inputs as tf32x3 (its
/// `gemm.problem` says `math = tf32x3`).
bool isTf32x3Kernel(Operation *op);

/// tf32x3: the f32 value `x` as its tf32 part and the remainder, each
/// rounded to nearest with ties away from zero (cvt.rna.tf32.f32: add half
/// of the 13 dropped mantissa bits' range, clear them). The remainder
/// `x - big` is exact in f32; the tensor cores read each part's upper 19
/// bits, so big + small carries 22 of x's 24 significant bits.
std::pair<Value, Value> splitTf32(OpBuilder &b, Location loc, Value x);

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
inline Value addOffset(OpBuilder &b, Location loc, Value base, int64_t offset) {
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

/// The grouped ("rasterised") order of a rows x cols grid of tiles: the
/// linear tile index `linear` walks `group` tile rows column by column, so
/// that consecutive tiles share tiles of A and B in L2. Returns the tile
/// row and column.
std::pair<Value, Value> rasterize(OpBuilder &b, Location loc, Value linear,
                                  Value rows, Value cols, int64_t group);

/// `vector` with f32 elements: itself, or extended from f16 or bf16.
Value extendToF32(OpBuilder &b, Location loc, Value vector);

/// Keeps `loop` a loop through LLVM: its latch branch carries
/// `llvm.loop.unroll.disable`.
void keepRolled(scf::ForOp loop);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
