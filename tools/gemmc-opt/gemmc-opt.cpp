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
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
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
  // The conversions by their own headers (mlir/Conversion/Passes.h, which
  // registers them, includes every conversion of MLIR: the slowest header
  // of the build).
  mlir::registerPass([] { return mlir::createConvertGpuOpsToNVVMOps(); });
  mlir::registerPass([] { return mlir::createConvertNVGPUToNVVMPass(); });
  mlir::registerPass([] { return mlir::createLowerAffinePass(); });
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  mlir::registerPass(
      [] { return mlir::createReconcileUnrealizedCastsPass(); });
  mlir::memref::registerFoldMemRefAliasOpsPass();
  mlir::memref::registerExpandStridedMetadataPass();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gemmc optimizer driver\n", registry));
}
