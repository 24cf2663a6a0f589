//===- Utils.h - helpers shared by the gemm transformation passes -*- C++ -*-===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// Attributes by which the passes find the loops the others made.
inline constexpr llvm::StringLiteral kKLoopAttr = "gemm.k_loop";
inline constexpr llvm::StringLiteral kKTilesAttr = "gemm.k_tiles";
inline constexpr llvm::StringLiteral kInnerKAttr = "gemm.inner_k";
inline constexpr llvm::StringLiteral kStageAttr = "gemm.stage";
inline constexpr llvm::StringLiteral kWarpViewAttr = "gemm.warp_view";

/// The attribute convert-gemm-to-gpu puts the schedule in on the kernel.
inline constexpr llvm::StringLiteral kScheduleAttr = "gemm.schedule";

/// A static `rows x cols` subview of the 2-D `source` at (row, col).
inline memref::SubViewOp createTileView(OpBuilder &b, Location loc,
                                        Value source, OpFoldResult row,
                                        OpFoldResult col, int64_t rows,
                                        int64_t cols) {
  SmallVector<OpFoldResult> offsets = {row, col};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                     b.getIndexAttr(cols)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, source, offsets, sizes, strides);
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

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
