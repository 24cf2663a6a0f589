//===- Utils.h - helpers shared by the gemm transformation passes -*- C++ -*-===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// Attributes by which the passes find the loops the others made.
inline constexpr llvm::StringLiteral kKLoopAttr = "gemm.k_loop";
inline constexpr llvm::StringLiteral kKTilesAttr = "gemm.k_tiles";
inline constexpr llvm::StringLiteral kInnerKAttr = "gemm.inner_k";
inline constexpr llvm::StringLiteral kStageAttr = "gemm.stage";
inline constexpr llvm::StringLiteral kWarpViewAttr = "gemm.warp_view";

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
