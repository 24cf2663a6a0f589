//===- gemmc-opt.cpp - gemmc's mlir-opt --------------------------------===//
//
// Runs gemmc's passes and pipelines, and the upstream passes they are built
// from, on MLIR files.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Conversion/Passes.h"
#include "gemmc/InitGemmc.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "gemmc/Pipelines/Pipelines.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::gemm::registerGemmcDialects(registry);

  mlir::gemm::registerGemmcConversionPasses();
  mlir::gemm::registerGemmTransformsPasses();
  mlir::gemm::registerGemmcPipelines();

  // The upstream passes gemmc's pipelines are built from.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerGpuNVVMAttachTarget();
  mlir::registerConvertGpuOpsToNVVMOps();
  mlir::registerConvertNVGPUToNVVMPass();
  mlir::registerLowerAffinePass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::memref::registerFoldMemRefAliasOpsPass();
  mlir::memref::registerExpandStridedMetadataPass();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gemmc optimizer driver\n", registry));
}
