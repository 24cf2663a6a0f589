//===- Transforms.h - entry points of the gemm transformations --*- C++ -*-===//
//
// The pieces of gemmc's passes that other code may call on their own, as
// upstream's NVGPU declares its transformations: each is one focused unit
// of lib/Dialect/Gemm/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_DIALECT_GEMM_TRANSFORMS_TRANSFORMS_H
#define GEMMC_DIALECT_GEMM_TRANSFORMS_TRANSFORMS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::gemm {

/// Records in `kernel`'s launch attribute the widest vector access (or
/// cp.async copy) to each of A, B and C, in elements: their leading
/// dimensions must be multiples of it. Run by gemm-vectorize after it has
/// made the accesses (LeadingDimensions.cpp).
void recordLeadingDimensionMultiples(gpu::GPUFuncOp kernel);

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_TRANSFORMS_TRANSFORMS_H
