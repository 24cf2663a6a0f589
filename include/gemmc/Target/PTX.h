//===- PTX.h - in-process PTX generation ------------------------*- C++ -*-===//

#ifndef GEMMC_TARGET_PTX_H
#define GEMMC_TARGET_PTX_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::gemm {

/// Registers what PTX generation needs: the LLVM IR translations of the
/// builtin, llvm, nvvm and gpu dialects and the NVVM target interface.
void registerPTXTranslation(DialectRegistry &registry);

/// Output of serializing one gpu.module with its NVVM target.
struct DeviceCode {
  /// The LLVM IR module handed to the NVPTX back-end, after optimisation
  /// (where asked for: printing it costs time).
  std::string llvmIR;
  /// The PTX the NVPTX back-end produced.
  std::string ptx;
};

/// Serializes `module`, which must be fully lowered to the llvm and nvvm
/// dialects and carry exactly one `#nvvm.target`, with LLVM's NVPTX back-end,
/// in process; with `keepLLVMIR`, the optimised LLVM IR too.
FailureOr<DeviceCode> serializeToPTX(gpu::GPUModuleOp module,
                                     bool keepLLVMIR = false);

} // namespace mlir::gemm

#endif // GEMMC_TARGET_PTX_H
