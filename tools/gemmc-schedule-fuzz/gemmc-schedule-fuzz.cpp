//===- gemmc-schedule-fuzz.cpp - random schedules through the compiler ----===//
//
// gemmc-schedule-fuzz --seed S --count N [--arch sm_90,sm_80] [--out DIR]
//
// Draws random schedule files over the whole language (Generator.h) and puts
// each through the front end's checks and, where they accept it, through
// the whole compilation to PTX, in this process. A schedule the checks
// accept must compile: an error after them (a pass failing, the verifier) is
// a bug, and so is a crash (the schedule being compiled is printed). With
// --out, the accepted schedules, their PTX per architecture and a manifest
// (threads, shared bytes, register estimate and cap, warnings) are written for
// ptxas and the GPU (scripts/fuzz-schedules.sh, docs/fuzzing.md).
//
// Exit status: 0 no failure, 1 a failure, 2 bad usage.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"
#include "gemmc/Compiler/Compile.h"
#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "gemmc/InitGemmc.h"
#include "gemmc/Pipelines/Pipelines.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <regex>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory fuzzCategory("gemmc-schedule-fuzz options");

static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the schedules"),
                              cl::init(1), cl::cat(fuzzCategory));
static cl::opt<int64_t> count("count",
                              cl::desc("Schedules to accept (for the first "
                                       "--arch)"),
                              cl::init(100), cl::cat(fuzzCategory));
static cl::opt<std::string>
    archList("arch",
             cl::desc("Architectures, comma-separated; the first "
                      "decides acceptance"),
             cl::init("sm_90"), cl::cat(fuzzCategory));
static cl::opt<std::string>
    outDir("out",
           cl::desc("Write accepted schedules, their PTX and "
                    "manifest.tsv here"),
           cl::init(""), cl::cat(fuzzCategory));
static cl::opt<int64_t>
    maxSize("max-size", cl::desc("Largest static M, N or K"), cl::init(640),
            cl::cat(fuzzCategory));
static cl::opt<std::string>
    shard("shard",
          cl::desc("I/N: draw only schedules whose index is I "
                   "modulo N (to run N processes side by side)"),
          cl::init("0/1"), cl::cat(fuzzCategory));
static cl::opt<bool>
    hopperOnly("hopper-only",
               cl::desc("Draw only Hopper's warpgroup schedules (the first "
                        "--arch must be sm_90a)"),
               cl::cat(fuzzCategory));
static cl::opt<bool> verbose("verbose",
                             cl::desc("Print each schedule as it is drawn"),
                             cl::init(false), cl::cat(fuzzCategory));
static cl::opt<bool> stats("reasons",
                           cl::desc("Print why schedules were rejected"),
                           cl::init(false), cl::cat(fuzzCategory));

/// The schedule being compiled, printed if the process crashes.
static std::string current;
static void printCurrent(void *) {
  if (!current.empty())
    llvm::errs() << "gemmc-schedule-fuzz: crashed on this schedule:\n"
                 << current;
}

/// A diagnostic's message with numbers replaced by N: the reason a schedule
/// was rejected, for --reasons.
static std::string reasonOf(const std::string &message) {
  static const std::regex numbers("[0-9]+");
  std::string text = std::regex_replace(message, numbers, "N");
  return text.substr(0, std::min<size_t>(text.size(), 90));
}

namespace {
struct Checked {
  bool parsed = false, accepted = false;
  std::string firstError;
  /// The warnings the whole compilation gave (compile's count: a spill
  /// warning only where ptxas confirms it).
  int warnings = 0;
  gemmc::ScheduleFacts facts;
};
} // namespace

/// The front end's verdict on `text` for `arch`: parse, Sema and the
/// not-yet-implemented checks, as compileSchedule makes them.
static Checked check(const std::string &text, const std::string &name,
                     llvm::StringRef arch) {
  Checked result;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, name + ".gemm"),
      llvm::SMLoc());
  auto handler = [](const llvm::SMDiagnostic &diag, void *context) {
    auto *r = static_cast<Checked *>(context);
    if (diag.getKind() == llvm::SourceMgr::DK_Error && r->firstError.empty())
      r->firstError = diag.getMessage().str();
  };
  sourceMgr.setDiagHandler(handler, &result);
  std::optional<gemmc::KernelDecl> kernel = gemmc::parseScheduleFile(sourceMgr);
  if (!kernel)
    return result;
  result.parsed = true;
  if (kernel->isFamily() && !gemmc::checkFamily(*kernel, sourceMgr))
    return result;
  // A family: each variant; its facts those of the one with the most
  // register pressure.
  for (const gemmc::KernelDecl &variant : gemmc::getKernels(*kernel)) {
    std::optional<gemmc::CheckedKernel> checked =
        gemmc::checkSchedule(variant, sourceMgr, arch);
    if (!checked || !gemmc::checkImplemented(variant, *checked, sourceMgr))
      return result;
    if (checked->facts.registerPressure >= result.facts.registerPressure)
      result.facts = checked->facts;
  }
  result.accepted = true;
  return result;
}

/// A line of manifest.tsv: name, arch, threads, shared bytes, register
/// estimate and cap, warnings.
static std::string manifestRow(const std::string &name, llvm::StringRef arch,
                               const Checked &checked) {
  return name + "\t" + arch.str() + "\t" +
         std::to_string(checked.facts.threadsPerBlock) + "\t" +
         std::to_string(checked.facts.sharedBytes) + "\t" +
         std::to_string(checked.facts.registerPressure) + "\t" +
         std::to_string(checked.facts.registerCap) + "\t" +
         std::to_string(checked.warnings) + "\n";
}

/// Compiles `text` to PTX for `arch`; on failure, `errors` holds every
/// diagnostic. `warnings` counts the warnings the compilation gave (a spill
/// warning only where ptxas, asked in process, spills).
static LogicalResult compile(MLIRContext &ctx, const std::string &text,
                             const std::string &name, llvm::StringRef arch,
                             std::string &ptx, std::string &errors,
                             int &warnings) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, name + ".gemm"),
      llvm::SMLoc());
  llvm::raw_string_ostream errorStream(errors);
  struct Sink {
    llvm::raw_string_ostream &os;
    int &warnings;
  } sink{errorStream, warnings};
  warnings = 0;
  auto handler = [](const llvm::SMDiagnostic &diag, void *context) {
    auto *sink = static_cast<Sink *>(context);
    sink->warnings += diag.getKind() == llvm::SourceMgr::DK_Warning;
    diag.print("gemmc", sink->os);
  };
  sourceMgr.setDiagHandler(handler, &sink);
  ScopedDiagnosticHandler mlirErrors(&ctx, [&](Diagnostic &diag) {
    errorStream << diag.getLocation() << ": " << diag.str() << "\n";
    return success();
  });
  gemmc::CompileOptions options;
  options.arch = arch.str();
  options.sourceName = name + ".gemm";
  llvm::raw_string_ostream os(ptx);
  return gemmc::compileSchedule(ctx, sourceMgr, options, os);
}

namespace {
/// What the schedules and families of a run add up to: the schedules
/// compiled per architecture, the manifest, the failures.
struct Tally {
  std::map<std::string, int64_t> acceptedPerArch;
  std::string manifest;
  int64_t failures = 0;
};
} // namespace

static bool writeFile(const std::string &path, llvm::StringRef contents);

/// Puts `text` (a schedule file or a family, `what`) through the checks
/// and, where they accept it, the whole compilation, for each of `arches`;
/// the first decides acceptance. A failure after the checks counts in
/// `run` and is printed; a family no variant of which takes every leading
/// dimension (checked on the compiled kernels) is a rejection. Writes the
/// PTX with --out. Returns whether the first architecture accepted it, or
/// nullopt if the PTX could not be written.
static std::optional<bool>
checkAndCompile(MLIRContext &ctx, const std::string &text,
                const std::string &name, llvm::StringRef what,
                llvm::ArrayRef<llvm::StringRef> arches, Tally &run,
                std::map<std::string, int64_t> &rejected) {
  bool accepted = false;
  for (llvm::StringRef arch : arches) {
    bool first = arch == arches.front();
    current = name + " for " + arch.str() + ":\n" + text;
    Checked checked = check(text, name, arch);
    if (!checked.parsed) {
      llvm::errs() << "FAIL " << name << ": the generator wrote a " << what
                   << " the parser rejects (" << checked.firstError << "):\n"
                   << text;
      ++run.failures;
      break;
    }
    if (!checked.accepted) {
      if (first)
        ++rejected[reasonOf(checked.firstError)];
      continue;
    }
    std::string ptx, errors;
    if (failed(compile(ctx, text, name, arch, ptx, errors,
                       checked.warnings)) &&
        errors.find("refuses some problems") != std::string::npos) {
      if (first)
        ++rejected["no variant takes every leading dimension"];
      continue;
    }
    accepted |= first;
    if (what == "schedule")
      ++run.acceptedPerArch[arch.str()];
    if (ptx.empty()) {
      llvm::errs() << "FAIL " << name << " (" << arch
                   << "): the checks accepted it, the compilation failed:\n"
                   << errors << text;
      ++run.failures;
      continue;
    }
    run.manifest += manifestRow(name, arch, checked);
    if (!outDir.empty() &&
        !writeFile(outDir + "/" + name + "." + arch.str() + ".ptx", ptx))
      return std::nullopt;
  }
  current.clear();
  return accepted;
}

static bool writeFile(const std::string &path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "gemmc-schedule-fuzz: cannot write " << path << ": "
                 << ec.message() << "\n";
    return false;
  }
  os << contents;
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(fuzzCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "gemmc-schedule-fuzz: random schedules "
                              "through the whole compiler\n");
  llvm::sys::AddSignalHandler(printCurrent, nullptr);

  llvm::SmallVector<llvm::StringRef> arches;
  llvm::StringRef(archList).split(arches, ',');
  for (llvm::StringRef arch : arches)
    if (!gemmc::lookupArch(arch)) {
      llvm::errs() << "gemmc-schedule-fuzz: unsupported --arch '" << arch
                   << "'\n";
      return 2;
    }
  unsigned shardIndex = 0, shardCount = 1;
  auto [first, second] = llvm::StringRef(shard).split('/');
  if (first.getAsInteger(10, shardIndex) ||
      second.getAsInteger(10, shardCount) || shardCount == 0 ||
      shardIndex >= shardCount) {
    llvm::errs() << "gemmc-schedule-fuzz: bad --shard '" << shard
                 << "' (I/N with I < N)\n";
    return 2;
  }
  if (!outDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
      llvm::errs() << "gemmc-schedule-fuzz: cannot create " << outDir << ": "
                   << ec.message() << "\n";
      return 2;
    }
  }

  DialectRegistry registry;
  gemm::registerGemmcDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  gemmc::fuzz::GeneratorOptions generatorOptions;
  generatorOptions.maxSize = maxSize;
  generatorOptions.hopper = arches.front() == "sm_90a";
  generatorOptions.hopperOnly = hopperOnly;
  if (hopperOnly && !generatorOptions.hopper) {
    llvm::errs() << "gemmc-schedule-fuzz: --hopper-only needs --arch "
                    "sm_90a first\n";
    return 2;
  }
  std::map<std::string, int64_t> rejected;
  Tally run;
  int64_t attempts = 0, accepted = 0;
  // Families of the accepted schedules whose sizes are all given at launch,
  // by problem: the schedules so far, and the families compiled.
  std::map<std::string, std::vector<std::string>> pool;
  int64_t families = 0;
  std::map<std::string, int64_t> familiesRejected;
  // Give up on a generator that stops producing schedules the checks take.
  int64_t limit = 200 * std::max<int64_t>(count, 1);
  for (uint64_t index = shardIndex; accepted < count && attempts < limit;
       index += shardCount) {
    ++attempts;
    std::string name = "s" + std::to_string(seed) + "_" + std::to_string(index);
    std::seed_seq seq{uint64_t(seed), index};
    std::mt19937_64 rng(seq);
    std::string text =
        gemmc::fuzz::generateSchedule(rng, name, generatorOptions);
    if (verbose)
      llvm::errs() << text;

    std::optional<bool> acceptedHere =
        checkAndCompile(ctx, text, name, "schedule", arches, run, rejected);
    if (!acceptedHere)
      return 1;
    if (!*acceptedHere)
      continue;
    ++accepted;
    if (!outDir.empty() && !writeFile(outDir + "/" + name + ".gemm", text))
      return 1;

    // Half of the schedules with every size at launch also make a family
    // with the previous one of their problem (if any) and a scalar
    // fallback, from a generator of their own (the schedules drawn stay
    // those of the seed).
    std::seed_seq familySeq{uint64_t(seed), index, uint64_t(7)};
    std::mt19937_64 familyRng(familySeq);
    bool dynamic = text.find("m = ?") != std::string::npos &&
                   text.find("n = ?") != std::string::npos &&
                   text.find("k = ?") != std::string::npos;
    if (!dynamic || !std::bernoulli_distribution(0.5)(familyRng))
      continue;
    std::string problem = text.substr(text.find("  problem {"));
    problem = problem.substr(0, problem.find("  schedule {"));
    std::vector<std::string> &same = pool[problem];
    std::vector<std::string> variants = {text};
    if (!same.empty())
      variants.push_back(same.back());
    same.push_back(text);
    std::string familyName = name + "_fam";
    std::string familyText =
        gemmc::fuzz::composeFamily(familyRng, familyName, variants);
    if (verbose)
      llvm::errs() << familyText;
    std::optional<bool> compiled = checkAndCompile(
        ctx, familyText, familyName, "family", arches, run, familiesRejected);
    if (!compiled)
      return 1;
    if (!*compiled)
      continue;
    ++families;
    if (!outDir.empty() &&
        !writeFile(outDir + "/" + familyName + ".gemm", familyText))
      return 1;
  }

  if (!outDir.empty()) {
    std::string path = outDir + "/manifest";
    if (shardCount > 1)
      path += "." + std::to_string(shardIndex);
    if (!writeFile(path + ".tsv", run.manifest))
      return 1;
  }
  if (stats) {
    std::vector<std::pair<int64_t, std::string>> reasons;
    for (auto &[reason, n] : rejected)
      reasons.push_back({n, reason});
    std::sort(reasons.rbegin(), reasons.rend());
    llvm::outs() << "rejected by the checks, by reason:\n";
    for (auto &[n, reason] : reasons)
      llvm::outs() << llvm::format("%6lld  ", (long long)n) << reason << "\n";
    llvm::outs() << "families rejected, by reason:\n";
    for (auto &[reason, n] : familiesRejected)
      llvm::outs() << llvm::format("%6lld  ", (long long)n) << reason << "\n";
  }
  llvm::outs() << "gemmc-schedule-fuzz: seed " << seed << ", shard " << shard
               << ": " << attempts << " schedules drawn, " << accepted
               << " accepted";
  for (auto &[arch, n] : run.acceptedPerArch)
    llvm::outs() << ", " << n << " compiled for " << arch;
  llvm::outs() << "; " << families << " families; " << run.failures
               << " failures\n";
  if (accepted < count)
    llvm::outs() << "gemmc-schedule-fuzz: only " << accepted << " of " << count
                 << " accepted in " << attempts << " draws\n";
  return run.failures || accepted < count ? 1 : 0;
}
