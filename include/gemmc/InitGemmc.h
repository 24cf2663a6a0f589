//===- InitGemmc.h - dialects and interfaces gemmc uses ---------*- C++ -*-===//

#ifndef GEMMC_INITGEMMC_H
#define GEMMC_INITGEMMC_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::gemm {

/// Registers every dialect gemmc's pipelines produce or consume, their
/// conversions to the llvm dialect (used by convert-gpu-to-nvvm) and their
/// translations to LLVM IR (used by PTX serialization).
void registerGemmcDialects(DialectRegistry &registry);

} // namespace mlir::gemm

#endif // GEMMC_INITGEMMC_H
