//===- Compile.cpp - a schedule file to PTX, in process -------------------===//
//
// The compilation policy lives here, not in the tool: the stages, where the
// contract is read off the kernels, and the lowering options their launch
// attributes call for (index width, calling convention).
//
//===----------------------------------------------------------------------===//

#include "gemmc/Compiler/Compile.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "gemmc/Pipelines/Pipelines.h"
#include "gemmc/Target/Contract.h"
#include "gemmc/Target/PTX.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace gemmc;

/// Parses and checks the schedule file, and builds the gemm dialect from it;
/// reports errors through `sourceMgr`. With EmitKind::AST, prints the
/// checked schedule instead and returns a null module with `done` set.
static OwningOpRef<ModuleOp> parseSchedule(MLIRContext &ctx,
                                           llvm::SourceMgr &sourceMgr,
                                           const CompileOptions &options,
                                           llvm::raw_ostream &os, bool &done) {
  std::optional<KernelDecl> kernel = parseScheduleFile(sourceMgr);
  if (!kernel)
    return nullptr;
  std::optional<CheckedKernel> checked =
      checkSchedule(*kernel, sourceMgr, options.arch);
  if (!checked)
    return nullptr;
  if (options.emit == EmitKind::AST) {
    dump(*kernel, checked->facts, os);
    done = true;
    return nullptr;
  }
  if (!checkImplemented(*kernel, *checked, sourceMgr))
    return nullptr;
  OwningOpRef<ModuleOp> module = mlirGen(ctx, *kernel, *checked, sourceMgr);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

static LogicalResult
runPipeline(ModuleOp module, const CompileOptions &options,
            llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module->getContext());
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

LogicalResult gemmc::compileSchedule(MLIRContext &ctx,
                                     llvm::SourceMgr &sourceMgr,
                                     const CompileOptions &options,
                                     llvm::raw_ostream &os) {
  bool done = false;
  OwningOpRef<ModuleOp> module =
      parseSchedule(ctx, sourceMgr, options, os, done);
  if (done)
    return success();
  if (!module)
    return failure();
  if (options.emit == EmitKind::MLIR) {
    module->print(os);
    return success();
  }

  if (failed(runPipeline(*module, options, gemm::buildScheduleToGPUPipeline)))
    return failure();
  if (options.emit == EmitKind::GPU) {
    module->print(os);
    return success();
  }

  // The contract is read off the kernels before they become llvm.func.
  SmallVector<gemm::KernelContract, 1> contracts;
  WalkResult walk = module->walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return WalkResult::advance();
    FailureOr<gemm::KernelContract> contract =
        gemm::getKernelContract(func, options.arch, options.sourceName);
    if (failed(contract))
      return WalkResult::interrupt();
    contracts.push_back(std::move(*contract));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // The kernels' launch attributes give the index width (the schedule
  // model's: 64 bits where nvgpu's ops are used) and their problems the
  // calling convention: memref descriptors for sizes given at launch.
  gemm::LowerToNVVMOptions lowering;
  lowering.chip = options.arch;
  bool dynamic = false;
  for (const gemm::KernelContract &contract : contracts) {
    lowering.indexBitwidth = std::max<unsigned>(
        lowering.indexBitwidth, contract.launch.getIndexBitwidth());
    dynamic |= contract.descriptors;
  }
  lowering.barePointers = !dynamic;
  if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
        gemm::buildGPUToNVVMPipeline(pm, lowering);
      })))
    return failure();

  std::string ptx;
  for (auto gpuModule : module->getOps<gpu::GPUModuleOp>()) {
    FailureOr<gemm::DeviceCode> code = gemm::serializeToPTX(gpuModule);
    if (failed(code))
      return failure();
    if (options.emit == EmitKind::LLVM) {
      os << code->llvmIR;
      continue;
    }
    ptx += code->ptx;
  }
  if (options.emit == EmitKind::LLVM)
    return success();

  std::string block;
  for (const gemm::KernelContract &contract : contracts)
    block += gemm::formatContract(contract);
  os << gemm::insertContract(ptx, block);
  return success();
}
