//===- PTX.cpp - in-process PTX generation -------------------------------===//

#include "gemmc/Target/PTX.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gemm;

void mlir::gemm::registerPTXTranslation(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

FailureOr<DeviceCode> mlir::gemm::serializeToPTX(gpu::GPUModuleOp module,
                                                bool keepLLVMIR) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.size() != 1)
    return module.emitError("expected exactly one target on the gpu.module");
  auto target = dyn_cast<gpu::TargetAttrInterface>(targets[0]);
  if (!target)
    return module.emitError("target ")
           << targets[0] << " cannot serialize a gpu.module";

  DeviceCode code;
  auto printOptimizedIR = [&](llvm::Module &llvmModule) {
    llvm::raw_string_ostream os(code.llvmIR);
    llvmModule.print(os, /*AAW=*/nullptr);
  };
  function_ref<void(llvm::Module &)> keepOptimizedIR;
  if (keepLLVMIR)
    keepOptimizedIR = printOptimizedIR;
  gpu::TargetOptions options(
      /*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
      /*elfSection=*/{}, gpu::CompilationTarget::Assembly,
      /*getSymbolTableCallback=*/{}, /*initialLlvmIRCallback=*/{},
      /*linkedLlvmIRCallback=*/{}, keepOptimizedIR);
  std::optional<SmallVector<char, 0>> object =
      target.serializeToObject(module, options);
  if (!object)
    return module.emitError("NVPTX back-end failed to produce PTX");
  code.ptx.assign(object->begin(), object->end());
  // The serializer returns a C string; drop its terminator.
  while (!code.ptx.empty() && code.ptx.back() == '\0')
    code.ptx.pop_back();
  return code;
}
