//===- gemmc-tune.cpp - the autotuner's compiler side ---------------------===//
//
// gemmc-tune candidates --type f32|f16|bf16 [--layout rrr] -o DIR
//                       [--jobs J] [--limit N] [--also FILE]...
//   Enumerates the schedules of the tuning space (gemmc/Tuning/Space.h)
//   for a problem whose sizes are given at launch, keeps those the
//   schedule model accepts without a warning, and compiles them in this
//   process, J at a time, each to DIR/NAME.gemm and DIR/NAME.ptx;
//   DIR/candidates.tsv lists them.
//
// gemm-bench --shapes TRAIN --results DIR/results.tsv --prune F DIR/*.ptx
//   (on the GPU machine: no LLVM there) verifies and times each candidate
//   on each training problem beside cuBLAS; a run cut short resumes.
//
// gemmc-tune select DIR --shapes TRAIN -o FAMILY.gemm
//   Fits each candidate's cost constants to its measurements
//   (gemmc/Tuning/Fit.h), chooses the family's variants greedily by the
//   rule of choice the runtime applies (gemmc/Tuning/Choose.h), and writes
//   the family with each variant's constants, and DIR/family.tsv.
//
// docs/tuning.md describes the whole loop and the held-out protocol: the
// shapes given to select are the training part only.
//
//===----------------------------------------------------------------------===//

#include "gemmc-contract/Results.h"
#include "gemmc-contract/Shapes.h"
#include "gemmc/Compiler/Compile.h"
#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "gemmc/Target/Ptxas.h"
#include "gemmc/Tuning/Choose.h"
#include "gemmc/Tuning/Family.h"
#include "gemmc/Tuning/Fit.h"
#include "gemmc/Tuning/Space.h"
#include "gemmc/Tuning/Training.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace gemmc;
namespace cl = llvm::cl;
namespace ct = gemmc::contract;

static cl::OptionCategory tuneCategory("gemmc-tune options");

static cl::opt<std::string> mode(cl::Positional, cl::Required,
                                 cl::desc("<candidates|select>"),
                                 cl::cat(tuneCategory));
static cl::opt<std::string> dirArg(cl::Positional,
                                   cl::desc("[DIR] (select: the candidates)"),
                                   cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> typeArg(
    "type",
    cl::desc("Element type of A, B and C: f32, f16 or bf16, or tf32 (f32 "
             "under math = tf32) (candidates: default f32; select: a family "
             "of another type than the candidates', chosen from their "
             "measurements)"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> layoutArg(
    "layout",
    cl::desc("Layouts of A, B and C: three of r and c (candidates: default "
             "rrr; select: likewise another than the candidates')"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<bool> batchArg(
    "batch",
    cl::desc("select: a family that takes a batch (`batch = ?`), of the "
             "candidates that take one; their measurements of single GEMMs "
             "stand in (a batch's GEMMs run as one grid of all their tiles)"),
    cl::init(false), cl::cat(tuneCategory));
static cl::opt<std::string> output("o", cl::desc("Output folder or file"),
                                   cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> arch("arch", cl::desc("GPU architecture"),
                                 cl::init("sm_90a"), cl::cat(tuneCategory));
static cl::opt<unsigned> jobs("jobs", cl::desc("Compilations at once"),
                              cl::init(2), cl::cat(tuneCategory));
static cl::opt<bool> schedulesOnly(
    "schedules-only",
    cl::desc("candidates: write the schedule files alone, uncompiled (to "
             "look at the space; select needs the compiled candidates)"),
    cl::init(false), cl::cat(tuneCategory));
static cl::opt<unsigned>
    limit("limit",
          cl::desc("Keep at most N candidates of the main space, spread over "
                   "it, and proportionally fewer of the others (0: all)"),
          cl::init(0), cl::cat(tuneCategory));
static cl::list<std::string>
    also("also",
         cl::desc("Schedule files to add to the candidates (their "
                  "directives; the same problem)"),
         cl::cat(tuneCategory));
static cl::opt<std::string>
    shapesFile("shapes", cl::desc("select: the training problems"),
               cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> coverFile(
    "cover",
    cl::desc("select: probe problems (a shapes file), judged by the fitted "
             "model alone, that the family must run within 1.5x of the best "
             "candidate's prediction; variants join to cover them"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<double>
    floorRatio("floor",
               cl::desc("select: problems below this ratio to cuBLAS weigh "
                        "more (default 0.7)"),
               cl::init(0.7), cl::cat(tuneCategory));
static cl::opt<unsigned>
    maxVariants("max-variants",
                cl::desc("select: at most this many variants (default 24)"),
                cl::init(24), cl::cat(tuneCategory));
static cl::opt<double>
    minGain("min-gain",
            cl::desc("select: stop when the best candidate left adds less "
                     "than this to the family's score (default 0.0003)"),
            cl::init(0.0003), cl::cat(tuneCategory));
static cl::opt<unsigned> minCoverMeasurements(
    "min-cover-measurements",
    cl::desc("select: a candidate covers probes only if fitted to at least "
             "this many measured problems (default 10)"),
    cl::init(10), cl::cat(tuneCategory));
static cl::opt<double> maxCoverLoss(
    "max-cover-loss",
    cl::desc("select: a candidate covers probes only if the family's "
             "training score falls by at most this with it (default 0)"),
    cl::init(0), cl::cat(tuneCategory));
static cl::opt<std::string>
    deviceModel("device-model",
                cl::desc("select: the device the measurements were made on: "
                         "h200 (default), h100, a100"),
                cl::init("h200"), cl::cat(tuneCategory));
static cl::opt<std::string> featuresFile(
    "features",
    cl::desc("select: also write the cost model's terms for every measured "
             "time (a TSV), to study the model"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> familyName("name",
                                       cl::desc("The family's kernel name"),
                                       cl::init(""), cl::cat(tuneCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "gemmc-tune: error: " << message << "\n";
  return 1;
}

static bool writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << text;
  return true;
}

/// The architecture a PTX module's `.target` directive names ("sm_90a"),
/// or "" without one.
static std::string ptxTarget(llvm::StringRef ptx) {
  constexpr llvm::StringLiteral directive("\n.target ");
  size_t at = ptx.find(directive);
  if (at == llvm::StringRef::npos)
    return "";
  llvm::StringRef rest = ptx.drop_front(at + directive.size());
  return rest.take_until([](char c) { return c == ',' || c == '\n' ||
                                             c == ' ' || c == '\r'; })
      .str();
}

static std::optional<std::string> readText(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

/// Parses and checks a candidate's schedule file `text` (named `name`) for
/// --arch, printing its diagnostics to `errors`.
static std::optional<CheckedKernel> checkText(const std::string &text,
                                              const std::string &name,
                                              llvm::raw_ostream &errors) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                               llvm::SMLoc());
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *os) {
        d.print("gemmc-tune", *static_cast<llvm::raw_ostream *>(os));
      },
      &errors);
  std::optional<KernelDecl> kernel = parseScheduleFile(sourceMgr);
  if (!kernel)
    return std::nullopt;
  return checkSchedule(*kernel, sourceMgr, arch);
}

/// Why a kernel whose register estimate comes near its cap is left out of
/// the candidates: ptxas (libnvJitLink, in process) spills it, or cannot
/// be asked; "" where it assembles `ptx` for --arch without a spill.
static std::string spillOf(llvm::StringRef ptx) {
  PtxasReport report = assembleWithPtxas(ptx, arch);
  if (report.status != PtxasReport::Status::Assembled)
    return "ptxas cannot judge it: " + llvm::StringRef(report.log).trim().str();
  if (report.kernels.empty())
    return "ptxas's report names no kernel";
  for (const auto &kernel : report.kernels)
    if (kernel.second.spillStoreBytes > 0)
      return "ptxas spills " + std::to_string(kernel.second.spillStoreBytes) +
             " bytes at " + std::to_string(kernel.second.registers) +
             " registers";
  return "";
}

//===----------------------------------------------------------------------===//
// candidates
//===----------------------------------------------------------------------===//

namespace {
struct Compiled {
  tuning::SpaceCandidate candidate;
  std::string text, ptx, errors;
  /// Why a candidate near the register cap is left out ("": it is not).
  std::string leftOut;
};
} // namespace

/// Compiles `c.text` (compileBuffer: a context of its own); checks first
/// that the file reads back as the schedule it was written from, and
/// after, where the register estimate comes near the cap, that ptxas
/// assembles it without a spill (`c.leftOut` says why not).
static void compileCandidate(Compiled &c) {
  std::string name = c.candidate.name + ".gemm";
  llvm::raw_string_ostream errors(c.errors);
  std::optional<CheckedKernel> checked = checkText(c.text, name, errors);
  if (!checked || checked->schedule != c.candidate.schedule) {
    errors << "the candidate's file does not read back as its schedule\n";
    return;
  }
  CompileOptions options;
  options.arch = arch;
  options.sourceName = name;
  CompileResult result = compileBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(c.text, name), options);
  errors << result.diagnostics;
  if (!result.succeeded)
    return;
  c.ptx = std::move(result.output);
  if (c.candidate.nearCap)
    c.leftOut = spillOf(c.ptx);
}

/// The tuned problem of the command line.
static std::optional<Problem> commandLineProblem() {
  std::string typeName = typeArg.empty() ? "f32" : typeArg.getValue();
  std::string layouts = layoutArg.empty() ? "rrr" : layoutArg.getValue();
  // tf32: f32 inputs under `math = tf32` (tensor cores may round them).
  bool tf32 = typeName == "tf32";
  std::optional<ElementType> type;
  for (ElementType t : {ElementType::F32, ElementType::F16, ElementType::BF16})
    if (stringify(t) == typeName || (tf32 && t == ElementType::F32))
      type = t;
  if (!type || layouts.size() != 3 ||
      layouts.find_first_not_of("rc") != std::string::npos)
    return std::nullopt;
  Problem problem = tuning::tunedProblem(*type, layouts);
  problem.tf32 = tf32;
  return problem;
}

static int runCandidates() {
  std::optional<Problem> problem = commandLineProblem();
  if (!problem)
    return fail("--type is f32, tf32, f16 or bf16 and --layout three of r "
                "and c");
  std::string typeName =
      problem->tf32 ? "tf32" : stringify(problem->a).str();
  std::optional<Arch> target = lookupArch(arch);
  if (!target)
    return fail("unsupported --arch '" + arch + "'");
  if (output.empty())
    return fail("candidates needs -o DIR");
  if (std::error_code ec = llvm::sys::fs::create_directories(output))
    return fail("cannot create " + output + ": " + ec.message());

  tuning::SpaceCounts counts;
  std::vector<Compiled> compiled;
  for (tuning::SpaceCandidate &c :
       tuning::enumerateCandidates(*problem, *target, limit, counts)) {
    Compiled entry;
    entry.text = tuning::scheduleFile(c.name, *problem, c.schedule, c.tf32x3);
    entry.candidate = std::move(c);
    compiled.push_back(std::move(entry));
  }
  // Known schedules (--also) join the search under names of their own.
  for (size_t i = 0; i < also.size(); ++i) {
    llvm::SourceMgr sourceMgr;
    auto buffer = llvm::MemoryBuffer::getFile(also[i]);
    if (!buffer)
      return fail("cannot read " + also[i]);
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    std::optional<KernelDecl> kernel = parseScheduleFile(sourceMgr);
    std::optional<CheckedKernel> checked;
    if (kernel && !kernel->isFamily())
      checked = checkSchedule(*kernel, sourceMgr, arch);
    if (!checked || !checked->problem.isDynamic() ||
        checked->problem.a != problem->a || checked->problem.c != problem->c)
      return fail(also[i] + " is not a schedule of the tuned problem (" +
                  typeName + ", sizes at launch)");
    Compiled entry;
    entry.candidate.schedule = checked->schedule;
    entry.candidate.facts = checked->facts;
    entry.candidate.tf32x3 = checked->problem.tf32x3;
    entry.candidate.name = typeName + "_s" + std::to_string(i);
    entry.text =
        tuning::scheduleFile(entry.candidate.name, *problem,
                             entry.candidate.schedule, entry.candidate.tf32x3);
    compiled.push_back(std::move(entry));
  }
  llvm::outs() << "gemmc-tune: " << counts.drawn << " schedules enumerated, "
               << counts.legal << " legal without a warning";
  if (counts.nearCap)
    llvm::outs() << " and " << counts.nearCap
                 << " near the register cap for ptxas to judge";
  llvm::outs() << ", ";
  if (schedulesOnly) {
    llvm::outs() << "writing " << compiled.size() << " schedule files"
                 << (counts.nearCap ? ", those near the cap unjudged" : "")
                 << "\n";
    for (const Compiled &c : compiled)
      if (!writeFile(output + "/" + c.candidate.name + ".gemm", c.text))
        return fail("cannot write into " + output);
    return 0;
  }
  llvm::outs() << "compiling " << compiled.size() << " with " << jobs
               << " jobs\n";

  std::atomic<size_t> next{0}, done{0};
  std::mutex print;
  auto worker = [&] {
    for (size_t i; (i = next++) < compiled.size();) {
      compileCandidate(compiled[i]);
      size_t n = ++done;
      std::lock_guard<std::mutex> lock(print);
      int filled = int(20 * n / compiled.size());
      llvm::errs() << "[" << std::string(size_t(filled), '#')
                   << std::string(size_t(20 - filled), '.') << "] " << n << "/"
                   << compiled.size() << " " << compiled[i].candidate.name
                   << "\n";
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, unsigned(jobs)); ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();

  std::string table = "name\tthreads\tshared_bytes\tregisters\tld_multiple\n";
  int failures = 0, leftOut = 0;
  for (const Compiled &c : compiled) {
    if (c.ptx.empty()) {
      llvm::errs() << "gemmc-tune: " << c.candidate.name
                   << " was legal but did not compile:\n"
                   << c.errors << c.text;
      ++failures;
      continue;
    }
    const std::string &name = c.candidate.name;
    if (!c.leftOut.empty()) {
      llvm::outs() << "gemmc-tune: " << name << " left out: " << c.leftOut
                   << "\n";
      ++leftOut;
      continue;
    }
    if (!writeFile(output + "/" + name + ".gemm", c.text) ||
        !writeFile(output + "/" + name + ".ptx", c.ptx))
      return fail("cannot write into " + output);
    ct::Contract contract;
    std::string error;
    if (!ct::parseContract(c.ptx, contract, error))
      return fail(name + ": " + error);
    const ScheduleFacts &f = c.candidate.facts;
    table += name + "\t" + std::to_string(f.threadsPerBlock) + "\t" +
             std::to_string(f.sharedBytes) + "\t" +
             std::to_string(f.registerPressure) +
             "\ta=" + std::to_string(contract.ldMultiple[0]) +
             " b=" + std::to_string(contract.ldMultiple[1]) +
             " c=" + std::to_string(contract.ldMultiple[2]) + "\n";
  }
  if (!writeFile(output + "/candidates.tsv", table))
    return fail("cannot write " + output + "/candidates.tsv");
  llvm::outs() << "gemmc-tune: " << compiled.size() - failures - leftOut
               << " candidates in " << output << "; " << failures
               << " failures\n";
  return failures ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

static int runSelect() {
  if (dirArg.empty() || shapesFile.empty() || output.empty())
    return fail("select needs DIR, --shapes FILE and -o FAMILY.gemm");
  const std::string dir = dirArg;
  ct::DeviceModel device;
  if (!ct::DeviceModel::named(deviceModel, device))
    return fail("unknown --device-model '" + deviceModel + "'");

  // The candidates: their schedule files and contracts.
  std::optional<std::string> table = readText(dir + "/candidates.tsv");
  if (!table)
    return fail("cannot read " + dir + "/candidates.tsv");
  std::vector<tuning::Candidate> candidates;
  std::vector<std::string> texts;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(*table).split(lines, '\n', -1, /*KeepEmpty=*/false);
  // With --type, --layout or an --arch other than the candidates', each
  // candidate is compiled again for the family's problem and arch; those
  // that do not compile there are left out, and the others' measurements
  // of the tuned problem stand in for theirs.
  bool retargeting = !typeArg.empty() || !layoutArg.empty() ||
                     arch.getNumOccurrences() || batchArg;
  size_t excluded = 0;
  for (llvm::StringRef line : llvm::drop_begin(lines)) {
    std::string name = line.split('\t').first.str();
    std::optional<std::string> text = readText(dir + "/" + name + ".gemm");
    std::optional<std::string> ptx = readText(dir + "/" + name + ".ptx");
    if (!text || !ptx)
      return fail("cannot read the files of candidate " + name);
    // A candidate retargeted to its own problem and arch (`--type f16
    // --layout rrr` of f16 rrr candidates) keeps the contract it was
    // compiled with.
    bool recompile = false;
    if (retargeting) {
      std::string retargeted =
          tuning::retargetSchedule(*text, typeArg, layoutArg, batchArg);
      recompile = retargeted != *text || ptxTarget(*ptx) != arch;
      *text = std::move(retargeted);
    }
    if (recompile) {
      CompileOptions options;
      options.arch = arch;
      options.sourceName = name + ".gemm";
      CompileResult result = compileBuffer(
          llvm::MemoryBuffer::getMemBufferCopy(*text, name + ".gemm"), options);
      if (!result.succeeded) {
        ++excluded;
        continue;
      }
      *ptx = result.output;
    }
    tuning::Candidate c;
    c.name = name;
    std::string error;
    if (!ct::parseContract(*ptx, c.contract, error))
      return fail(name + ".ptx: " + error);
    c.takesAnyProblem = ct::takesEveryProblem(c.contract);
    candidates.push_back(std::move(c));
    texts.push_back(*text);
  }
  if (candidates.empty())
    return fail("no candidate in " + dir + "/candidates.tsv");

  // The training problems and every outcome the results file holds for
  // them (problems it holds beyond the shapes file are not looked at).
  std::optional<std::string> shapesText = readText(shapesFile);
  std::vector<ct::Shape> shapes;
  std::string error;
  if (!shapesText || !ct::parseShapes(*shapesText, shapes, error))
    return fail("cannot read the shapes in " + shapesFile + ": " + error);
  std::optional<std::string> resultsText = readText(dir + "/results.tsv");
  if (!resultsText)
    return fail("cannot read " + dir + "/results.tsv");
  // The problem the candidates compute, their epilogue (FP8's scales)
  // included: each training problem asks for it.
  const ct::Problem tuned =
      candidates.front().contract.problemWithEpilogue();
  tuning::TrainingData training = tuning::readTraining(
      candidates, tuned, shapes, ct::parseResults(*resultsText));
  std::vector<tuning::ProblemRecord> &measured = training.problems;
  std::vector<tuning::ProblemRecord> probes;
  if (!coverFile.empty()) {
    std::optional<std::string> text = readText(coverFile);
    std::vector<ct::Shape> probeShapes;
    if (!text || !ct::parseShapes(*text, probeShapes, error))
      return fail("cannot read the probes in " + coverFile + ": " + error);
    for (const ct::Shape &shape : probeShapes)
      probes.push_back(tuning::recordOf(candidates, tuned, shape));
  }
  if (measured.empty())
    return fail("no problem of " + shapesFile + " in " + dir + "/results.tsv");
  std::vector<tuning::FitResult> fits =
      tuning::fitCandidates(candidates, measured, device);

  if (!featuresFile.empty() &&
      !writeFile(featuresFile,
                 tuning::featureTable(candidates, measured, device)))
    return fail("cannot write " + featuresFile);

  tuning::ChooseOptions options;
  options.floor = floorRatio;
  options.maxVariants = maxVariants;
  options.minGain = minGain;
  options.minCoverMeasurements = minCoverMeasurements;
  options.maxCoverLoss = maxCoverLoss;
  tuning::FamilyChoice choice =
      tuning::chooseFamily(candidates, measured, device, options);
  if (choice.variants.empty())
    return fail("no candidate takes every problem (the family's fallback)");
  tuning::coverProbes(candidates, measured, probes, device, options, choice);

  // The family: the tuned problem, the variants in the order they joined
  // with the fallback last, each with its constants.
  tuning::ChosenFamily chosen{candidates, texts, fits, measured, choice};
  std::vector<size_t> order = chosen.order();
  std::string layouts;
  for (ct::Layout l : {tuned.aLayout, tuned.bLayout, tuned.cLayout})
    layouts += l == ct::Layout::Row ? "r" : "c";
  // A family of f32 multiplied in tf32 (`--type tf32`'s candidates) is
  // named so: the runtime's GEMMC_TF32 loads it.
  bool tf32 = llvm::any_of(candidates, [](const tuning::Candidate &c) {
    return c.contract.problem.tf32 && !c.contract.problem.tf32x3;
  });
  std::string name =
      familyName.empty()
          ? (tf32 ? std::string("tf32") : std::string(ct::toString(tuned.a))) +
                "_" + layouts +
                (batchArg ? "_batched" : "")
          : std::string(familyName);
  const tuning::FamilyScore &s = choice.score;
  // Measurements of batches are of the batched kernels themselves.
  bool measuredBatches =
      llvm::any_of(measured, [](const tuning::ProblemRecord &r) {
        return r.problem.batch > 1;
      });
  std::string text =
      "# A kernel family written by gemmc-tune select from " + dir +
      "/results.tsv: " + std::to_string(order.size()) +
      " variants chosen greedily over " + std::to_string(measured.size()) +
      " training problems of " + shapesFile +
      " (each run on the variant the cost model predicts fastest, as the "
      "runtime does).\n"
      "# Training: " +
      llvm::formatv("{0:F3}x cuBLAS (geometric mean), lowest {1:F3}x ({2})",
                    s.geomean, s.lowest, measured[s.lowestProblem].label)
          .str() +
      ".\n" +
      (retargeting && !measuredBatches
           ? "# Retargeted (--type/--layout/--arch): the measurements of "
             "the tuned problem's candidates stand in for this "
             "family's own; these figures are theirs.\n"
           : "") +
      (batchArg ? std::string("# A batch (--batch, `batch = ?`): the "
                              "candidates that take one, ") +
                      (measuredBatches
                           ? "measured on the training batches with this "
                             "family's layouts (in the measured element "
                             "type, standing in for another).\n"
                           : "their single GEMMs' measurements standing "
                             "in.\n")
                : std::string()) +
      chosen.kernelText(name);
  if (!writeFile(output, text))
    return fail("cannot write " + output);
  if (!writeFile(dir + "/family.tsv", chosen.variantTable()))
    return fail("cannot write " + dir + "/family.tsv");
  // Each training problem: the variant the rule of choice runs it on, its
  // time (measured, or predicted where it was not measured) and cuBLAS's
  // (the shape-summary format of gemm-bench, for its plots).
  if (!writeFile(dir + "/training.csv", chosen.trainingTable()))
    return fail("cannot write " + dir + "/training.csv");
  if (excluded)
    llvm::outs() << "gemmc-tune: " << excluded
                 << " candidates do not compile for the family's problem and "
                    "arch; left out\n";
  llvm::outs() << llvm::formatv(
      "gemmc-tune: {0} training problems ({1} results; {2} not measured), {3} "
      "candidates, {4} variants; training {5:F3}x cuBLAS, lowest {6:F3}x "
      "({7}); {8} choices not measured (predicted); the family in {9}\n",
      measured.size(), training.rows, training.unmeasured, candidates.size(),
      order.size(),
      s.geomean, s.lowest, measured[s.lowestProblem].label, s.predictedOnly,
      output);
  for (size_t i = 0; i < choice.geomeans.size(); ++i)
    llvm::outs() << llvm::formatv("  + {0,-12} {1:F3}x\n",
                                  candidates[choice.variants[i]].name,
                                  choice.geomeans[i]);
  for (size_t i = 0; i < choice.coverVariants.size(); ++i)
    llvm::outs() << llvm::formatv("  + {0,-12} to cover {1}\n",
                                  candidates[choice.coverVariants[i]].name,
                                  choice.coverReasons[i]);
  // The problems furthest below cuBLAS, and what ran them.
  std::vector<size_t> byRatio;
  for (size_t p = 0; p < measured.size(); ++p)
    if (s.choice[p] >= 0)
      byRatio.push_back(p);
  std::sort(byRatio.begin(), byRatio.end(),
            [&](size_t x, size_t y) { return s.ratio[x] < s.ratio[y]; });
  llvm::outs() << "  lowest:\n";
  for (size_t i = 0; i < std::min<size_t>(8, byRatio.size()); ++i) {
    size_t p = byRatio[i];
    double best = INFINITY;
    for (double t : measured[p].seconds)
      if (t > 0)
        best = std::min(best, t);
    llvm::outs() << llvm::formatv(
        "    {0,-24} {1:F3}x on {2} (the fastest candidate: {3:F3}x)\n",
        measured[p].label, s.ratio[p], candidates[size_t(s.choice[p])].name,
        measured[p].cublasSeconds / best);
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(tuneCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "gemmc-tune: the autotuner's compiler side\n");
  if (mode == "candidates")
    return runCandidates();
  if (mode == "select")
    return runSelect();
  return fail("unknown mode '" + mode + "' (candidates or select)");
}
