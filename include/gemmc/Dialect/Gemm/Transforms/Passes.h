//===- Passes.h - gemm dialect transformation passes ------------*- C++ -*-===//

#ifndef GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_H
#define GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gemm {

#define GEN_PASS_DECL
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_H
