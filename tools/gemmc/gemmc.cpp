//===- gemmc.cpp - the gemmc compiler driver ------------------------------===//
//
// gemmc schedule.gemm -o out.ptx
//
// Parses a schedule file into the gemm dialect, applies the schedule with
// gemmc's passes, lowers through the upstream gpu/nvvm/llvm dialects and emits
// PTX with LLVM's NVPTX back-end, all in this process.
//
//===----------------------------------------------------------------------===//

#include "Version.h"
#include "gemmc/Compiler/Compile.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/InitGemmc.h"
#include "gemmc/Pipelines/Pipelines.h"
#include "gemmc/Schedule/Schedule.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

using gemmc::EmitKind;

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
    arch("arch",
         cl::desc("GPU architecture: sm_80, sm_86, sm_89, sm_90, "
                  "sm_90a"),
         cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(gemmcCategory));

static cl::opt<bool> askPtxas(
    "ask-ptxas",
    cl::desc("Where the schedule model suspects a spill, assemble the PTX "
             "with ptxas (libnvJitLink, in process) and warn only if it "
             "spills (--ask-ptxas=false: the model's warning)"),
    cl::init(true), cl::cat(gemmcCategory));

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

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(printVersion);
  hideUnrelatedOptions();
  cl::ParseCommandLineOptions(argc, argv,
                              "gemmc: compiles a GEMM schedule file to PTX\n\n"
                              "  gemmc schedule.gemm -o out.ptx\n");

  if (!gemmc::lookupArch(arch)) {
    (void)fail("unsupported --arch '" + arch + "' (expected one of " +
               gemmc::getSupportedArchList() + ")");
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
  gemmc::CompileOptions options;
  options.arch = arch;
  options.emit = emitKind;
  options.askPtxas = askPtxas;
  options.sourceName = inputFilename;
  options.configurePassManager = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };
  if (failed(gemmc::compileSchedule(ctx, sourceMgr, options, os)))
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
