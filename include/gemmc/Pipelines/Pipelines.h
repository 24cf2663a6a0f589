//===- Pipelines.h - gemmc's pass pipelines ---------------------*- C++ -*-===//

#ifndef GEMMC_PIPELINES_PIPELINES_H
#define GEMMC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::gemm {

struct LowerToNVVMOptions : public PassPipelineOptions<LowerToNVVMOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("GPU architecture"),
                                        llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("The NVPTX target's features, as +ptx83 (empty: the "
                     "least PTX ISA version the chip takes)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level"),
      llvm::cl::init(3)};
  PassOptions::Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bits of index arithmetic in kernels: 32, or 64 for "
                     "kernels with nvgpu ops (whose lowering uses 64); 0: "
                     "each gpu.module's data layout (dlti.dl_spec)"),
      llvm::cl::init(32)};
  PassOptions::Option<bool> barePointers{
      *this, "bare-pointers",
      llvm::cl::desc("Pass memrefs of static shape as bare pointers; kernels "
                     "with sizes given at launch need false (memref "
                     "descriptors)"),
      llvm::cl::init(true)};
};

/// gemm dialect -> gpu.func with scf/arith/memref: applies the schedule.
void buildScheduleToGPUPipeline(OpPassManager &pm);

/// gpu.module with scf/arith/memref -> llvm and nvvm dialects, with the
/// `#nvvm.target` that serializes it to PTX attached.
void buildGPUToNVVMPipeline(OpPassManager &pm,
                            const LowerToNVVMOptions &options);

/// Registers `gemmc-schedule-to-gpu`, `gemmc-gpu-to-nvvm` and
/// `gemmc-to-nvvm` (both) for gemmc-opt.
void registerGemmcPipelines();

} // namespace mlir::gemm

#endif // GEMMC_PIPELINES_PIPELINES_H
