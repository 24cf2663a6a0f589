//===- GemmAttrs.h - gemm dialect attributes --------------------*- C++ -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMATTRS_H
#define GEMMC_DIALECT_GEMM_IR_GEMMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/Hashing.h"

#include "gemmc/Dialect/Gemm/IR/GemmEnums.h.inc"

namespace mlir::gemm {

/// One grid extent: ceildiv(dim, divisor), or 1 when `dim` is `Dim::One`.
struct GridDim {
  Dim dim = Dim::One;
  int64_t divisor = 1;

  bool operator==(const GridDim &other) const {
    return dim == other.dim && divisor == other.divisor;
  }
};

inline llvm::hash_code hash_value(const GridDim &g) {
  return llvm::hash_combine(static_cast<int>(g.dim), g.divisor);
}

} // namespace mlir::gemm

#define GET_ATTRDEF_CLASSES
#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h.inc"

#endif // GEMMC_DIALECT_GEMM_IR_GEMMATTRS_H
