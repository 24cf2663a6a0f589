//===- Pipelines.cpp - gemmc's pass pipelines -----------------------------===//

#include "gemmc/Pipelines/Pipelines.h"
#include "gemmc/Conversion/Passes.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::gemm;

void mlir::gemm::buildScheduleToGPUPipeline(OpPassManager &pm) {
  pm.addPass(createConvertGemmToGPU());
  OpPassManager &funcPm = pm.nest<gpu::GPUModuleOp>().nest<gpu::GPUFuncOp>();
  // A wgmma schedule becomes the whole Hopper kernel here; the passes after
  // it find no gemm.matmul in it.
  funcPm.addPass(createGemmWarpgroup());
  funcPm.addPass(createGemmTileBlocks());
  funcPm.addPass(createGemmRaster());
  funcPm.addPass(createGemmWarpTile());
  funcPm.addPass(createGemmMapThreads());
  funcPm.addPass(createGemmRegisterTile());
  funcPm.addPass(createGemmMma());
  funcPm.addPass(createGemmPromote());
  funcPm.addPass(createGemmPipeline());
  funcPm.addPass(createGemmUnroll());
  funcPm.addPass(createGemmVectorize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::gemm::buildGPUToNVVMPipeline(OpPassManager &pm,
                                        const LowerToNVVMOptions &options) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  // Memref descriptors carry dynamic strides: keep the vectors' alignment.
  if (!options.barePointers)
    gpuPm.addPass(createGemmFoldAlignedViews());
  // The epilogue's activations (erf, tanh, exp) as polynomials.
  gpuPm.addPass(createGemmApproximateMath());
  gpuPm.addPass(memref::createFoldMemRefAliasOpsPass());
  gpuPm.addPass(memref::createExpandStridedMetadataPass());
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  gpuPm.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = options.barePointers;
  // 32-bit index arithmetic: half the registers for addresses (the front-end
  // refuses matrices of 2^31 elements or more). nvgpu's lowering computes in
  // 64 bits, so kernels with mma use 64 throughout.
  nvvm.indexBitwidth = options.indexBitwidth;
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gpuPm.addNestedPass<LLVM::LLVMFuncOp>(createGemmGridConstant());
  // NVVM ops without an intrinsic (mbarrier waits, wgmma) become inline PTX.
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::gemm::registerGemmcPipelines() {
  PassPipelineRegistration<>(
      "gemmc-schedule-to-gpu",
      "Apply the schedule: gemm dialect to gpu.func with scf/arith/memref",
      buildScheduleToGPUPipeline);
  PassPipelineRegistration<LowerToNVVMOptions>(
      "gemmc-gpu-to-nvvm",
      "Lower gemmc's gpu.module to the llvm and nvvm dialects",
      buildGPUToNVVMPipeline);
  PassPipelineRegistration<LowerToNVVMOptions>(
      "gemmc-to-nvvm", "The whole gemmc pipeline, gemm dialect to nvvm",
      [](OpPassManager &pm, const LowerToNVVMOptions &options) {
        buildScheduleToGPUPipeline(pm);
        buildGPUToNVVMPipeline(pm, options);
      });
}
