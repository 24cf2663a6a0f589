//===- gemmc.cpp - the gemmc compiler driver -----------------------------===//
//
// gemmc schedule.gemm -o out.ptx
//
// Parses a schedule file into the gemm dialect, applies the schedule with
// gemmc's passes, lowers through the upstream gpu/nvvm/llvm dialects and emits
// PTX with LLVM's NVPTX back-end, all in this process.
//
//===----------------------------------------------------------------------===//

#include "Version.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/InitGemmc.h"
#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "gemmc/Pipelines/Pipelines.h"
#include "gemmc/Target/Contract.h"
#include "gemmc/Target/PTX.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class EmitKind { AST, MLIR, GPU, LLVM, PTX };
} // namespace

static cl::OptionCategory gemmcCategory("gemmc options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<schedule.gemm>"),
                                          cl::Required, cl::cat(gemmcCategory));

static cl::opt<std::string> outputFilename("o",
                                           cl::desc("Output file ('-' for "
                                                    "stdout)"),
                                           cl::value_desc("file"),
                                           cl::init("-"),
                                           cl::cat(gemmcCategory));

static cl::opt<EmitKind> emitKind(
    "emit", cl::desc("Stage to stop at and print"), cl::init(EmitKind::PTX),
    cl::values(
        clEnumValN(EmitKind::AST, "ast",
                   "the checked schedule and what it implies (threads, "
                   "shared memory, registers)"),
        clEnumValN(EmitKind::MLIR, "mlir", "the gemm dialect, as parsed"),
        clEnumValN(EmitKind::GPU, "gpu",
                   "gpu.func kernels after the schedule passes"),
        clEnumValN(EmitKind::LLVM, "llvm",
                   "LLVM IR handed to the NVPTX back-end"),
        clEnumValN(EmitKind::PTX, "ptx", "PTX with the kernel contract")),
    cl::cat(gemmcCategory));

static cl::opt<std::string>
    arch("arch", cl::desc("GPU architecture: sm_80, sm_86, sm_89, sm_90, "
                          "sm_90a"),
         cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(gemmcCategory));

static void printVersion(llvm::raw_ostream &os) {
  os << "gemmc " << GEMMC_VERSION << " (LLVM/MLIR " << GEMMC_LLVM_VERSION
     << ")\n";
}

/// Keeps --help to gemmc's own options and MLIR's `--mlir-*` ones (IR
/// printing, timing, ...); LLVM's back-end options stay under --help-hidden.
static void hideUnrelatedOptions() {
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    bool ours = llvm::is_contained(option->Categories, &gemmcCategory);
    if (!ours && !name.starts_with("mlir-") && name != "help" &&
        name != "version" && name != "help-hidden")
      option->setHiddenFlag(cl::Hidden);
  }
}

static LogicalResult fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "gemmc") << message << "\n";
  return failure();
}

/// Parses and checks the schedule file, and builds the gemm dialect from it;
/// reports errors through `sourceMgr`. With --emit=ast, prints the checked
/// schedule instead and returns a null module with `done` set.
static OwningOpRef<ModuleOp> parseSchedule(MLIRContext &ctx,
                                           llvm::SourceMgr &sourceMgr,
                                           llvm::raw_ostream &os, bool &done) {
  std::optional<gemmc::KernelDecl> kernel =
      gemmc::parseScheduleFile(sourceMgr);
  if (!kernel)
    return nullptr;
  std::optional<gemmc::ScheduleFacts> facts =
      gemmc::checkSchedule(*kernel, sourceMgr, arch);
  if (!facts)
    return nullptr;
  if (emitKind == EmitKind::AST) {
    gemmc::dump(*kernel, *facts, os);
    done = true;
    return nullptr;
  }
  if (!gemmc::checkSupported(*kernel, *facts, sourceMgr))
    return nullptr;
  OwningOpRef<ModuleOp> module = gemmc::mlirGen(ctx, *kernel, sourceMgr);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

static LogicalResult runPipeline(ModuleOp module,
                                 llvm::function_ref<void(OpPassManager &)>
                                     build) {
  PassManager pm(module->getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

static LogicalResult compile(MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
                             llvm::raw_ostream &os) {
  bool done = false;
  OwningOpRef<ModuleOp> module = parseSchedule(ctx, sourceMgr, os, done);
  if (done)
    return success();
  if (!module)
    return failure();
  if (emitKind == EmitKind::MLIR) {
    module->print(os);
    return success();
  }

  if (failed(runPipeline(*module, gemm::buildScheduleToGPUPipeline)))
    return failure();
  if (emitKind == EmitKind::GPU) {
    module->print(os);
    return success();
  }

  // The contract is read off the kernels before they become llvm.func.
  SmallVector<gemm::KernelContract> contracts;
  WalkResult walk = module->walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return WalkResult::advance();
    FailureOr<gemm::KernelContract> contract =
        gemm::getKernelContract(func, arch, inputFilename);
    if (failed(contract))
      return WalkResult::interrupt();
    contracts.push_back(std::move(*contract));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  gemm::LowerToNVVMOptions options;
  options.chip = arch;
  // nvgpu ops (mma.sync, ldmatrix, cp.async) lower with 64-bit indices.
  // Sizes given at launch: the kernel takes memref descriptors.
  bool usesNVGPU = false, dynamic = false;
  module->walk([&](gpu::GPUFuncOp func) {
    auto schedule = func->getAttrOfType<gemm::ScheduleAttr>("gemm.schedule");
    usesNVGPU |= schedule &&
               (!schedule.getMma().empty() || schedule.getCpAsync());
    auto problem = func->getAttrOfType<gemm::ProblemAttr>("gemm.problem");
    dynamic |= problem && problem.isDynamic();
  });
  if (usesNVGPU)
    options.indexBitwidth = 64;
  options.barePointers = !dynamic;
  for (gemm::KernelContract &contract : contracts)
    contract.indexBitwidth = options.indexBitwidth;
  if (failed(runPipeline(*module, [&](OpPassManager &pm) {
        gemm::buildGPUToNVVMPipeline(pm, options);
      })))
    return failure();

  std::string ptx;
  for (auto gpuModule : module->getOps<gpu::GPUModuleOp>()) {
    FailureOr<gemm::DeviceCode> code = gemm::serializeToPTX(gpuModule);
    if (failed(code))
      return failure();
    if (emitKind == EmitKind::LLVM) {
      os << code->llvmIR;
      continue;
    }
    ptx += code->ptx;
  }
  if (emitKind == EmitKind::LLVM)
    return success();

  std::string block;
  for (const gemm::KernelContract &contract : contracts)
    block += gemm::formatContract(contract);
  os << gemm::insertContract(ptx, block);
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(printVersion);
  hideUnrelatedOptions();
  cl::ParseCommandLineOptions(
      argc, argv,
      "gemmc: compiles a GEMM schedule file to PTX\n\n"
      "  gemmc schedule.gemm -o out.ptx\n");

  if (!gemm::isSupportedArch(arch)) {
    (void)fail("unsupported --arch '" + arch + "' (expected one of " +
               gemm::getSupportedArchList() + ")");
    return 1;
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    (void)fail(errorMessage);
    return 1;
  }

  DialectRegistry registry;
  gemm::registerGemmcDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);

  // Compile into memory first so that a failure leaves no partial output.
  std::string result;
  llvm::raw_string_ostream os(result);
  if (failed(compile(ctx, sourceMgr, os)))
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    (void)fail(errorMessage);
    return 1;
  }
  output->os() << result;
  output->keep();
  return 0;
}
