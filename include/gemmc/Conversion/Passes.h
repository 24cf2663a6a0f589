//===- Passes.h - gemmc conversion passes -----------------------*- C++ -*-===//

#ifndef GEMMC_CONVERSION_PASSES_H
#define GEMMC_CONVERSION_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::gemm {

#define GEN_PASS_DECL
#include "gemmc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gemmc/Conversion/Passes.h.inc"

} // namespace mlir::gemm

#endif // GEMMC_CONVERSION_PASSES_H
