//===- gemmc-tune.cpp - the autotuner's compiler side ---------------------===//
//
// gemmc-tune candidates --precision f32|f16 -o DIR [--jobs J] [--limit N]
//   Enumerates schedules over a space of tiles, warp and register tiles,
//   vector widths, pipelines and split-K counts for a problem whose sizes
//   are given at launch, keeps those the schedule model accepts without a
//   warning (checkSchedule: legal, no likely spill), and compiles them in
//   this process, J at a time, each to DIR/NAME.gemm and DIR/NAME.ptx;
//   DIR/candidates.tsv lists them (name, threads, shared bytes, register
//   estimate, leading-dimension multiples).
//
// gemm-bench --shapes FILE --results DIR/results.tsv --budget S DIR/*.ptx
//   (on the GPU machine: no LLVM there) verifies and times each candidate
//   on each problem beside cuBLAS; a run cut short resumes.
//
// gemmc-tune select DIR --shapes FILE -o FAMILY.gemm
//   Reads DIR/results.tsv and picks, for each bucket of problems (M, N and
//   K in bands, and whether a leading dimension asks for scalar accesses),
//   the candidate with the best geometric mean of its speed against
//   cuBLAS over the bucket's problems (verified on every one); writes the
//   winners as schedule files (DIR/winners/), the table (DIR/family.tsv)
//   and a kernel family whose variants are the winners with their buckets'
//   sizes as `when`, ending with the best candidate that takes every
//   leading dimension.
//
// docs/tuning.md describes the whole loop.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Compiler/Compile.h"
#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "gemmc-contract/Contract.h"
#include "gemmc/Schedule/Schedule.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace mlir;
using namespace gemmc;
namespace cl = llvm::cl;

static cl::OptionCategory tuneCategory("gemmc-tune options");

static cl::opt<std::string> mode(cl::Positional, cl::Required,
                                 cl::desc("<candidates|select>"),
                                 cl::cat(tuneCategory));
static cl::opt<std::string> dirArg(cl::Positional,
                                   cl::desc("[DIR] (select: the candidates)"),
                                   cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> precision("precision",
                                      cl::desc("f32 (SIMT) or f16 (mma.sync)"),
                                      cl::init("f32"), cl::cat(tuneCategory));
static cl::opt<std::string> output("o", cl::desc("Output folder or file"),
                                   cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> arch("arch", cl::desc("GPU architecture"),
                                 cl::init("sm_90"), cl::cat(tuneCategory));
static cl::opt<unsigned> jobs("jobs", cl::desc("Compilations at once"),
                              cl::init(2), cl::cat(tuneCategory));
static cl::opt<unsigned>
    limit("limit",
          cl::desc("Keep at most N candidates, spread over the space "
                   "(0: all)"),
          cl::init(0), cl::cat(tuneCategory));
static cl::list<std::string>
    also("also",
         cl::desc("Schedule files to add to the candidates (their "
                  "directives; the same problem)"),
         cl::cat(tuneCategory));
static cl::opt<std::string> shapesFile("shapes",
                                       cl::desc("The problems (select)"),
                                       cl::init(""), cl::cat(tuneCategory));
static cl::opt<double>
    floorRatio("floor",
               cl::desc("select: prefer, per bucket, the candidates that "
                        "keep each problem at this ratio to cuBLAS or above"),
               cl::init(0.5), cl::cat(tuneCategory));
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

//===----------------------------------------------------------------------===//
// candidates
//===----------------------------------------------------------------------===//

namespace {
struct Candidate {
  std::string name;
  Schedule schedule;
  ScheduleFacts facts;
  std::string text, ptx, errors, ldMultiple;
};
} // namespace

/// The problem every candidate is for: sizes at launch, row-major, f32
/// (SIMT) or f16 with f32 accumulation.
static Problem tunedProblem(bool f16) {
  Problem p;
  ElementType type = f16 ? ElementType::F16 : ElementType::F32;
  p.a = p.b = p.c = type;
  return p;
}

/// The variants of one block and warp tile: mma.sync with a swizzle and
/// cp.async (f16) or register tiles of 32 threads a warp tile with 4-wide
/// accesses (f32), each beside its scalar twin, which takes every leading
/// dimension.
static void addWarpVariants(const Schedule &s, bool f16,
                            std::vector<Schedule> &space) {
  if (f16) {
    Schedule t = s;
    t.mma = std::array<int64_t, 3>{16, 8, 16};
    t.swizzle = true;
    t.vectorize = std::array<int64_t, 4>{8, 1, 1, 2};
    t.stages = 3;
    t.cpAsync = true;
    space.push_back(t);
    // Scalar copies through padded rows.
    t.swizzle = false;
    t.pad = 8;
    t.vectorize.reset();
    t.stages = 2;
    t.cpAsync = false;
    space.push_back(t);
    return;
  }
  int64_t wm = (*s.warpTile)[0], wn = (*s.warpTile)[1];
  for (int64_t tm : {2, 4, 8}) {
    int64_t tn = wm * wn / (32 * tm);
    if (tn < 1 || tn > 8 || wn % tn || wm % tm)
      continue;
    Schedule t = s;
    t.registerTile = std::array<int64_t, 2>{tm, tn};
    t.pad = 4;
    t.transposeA = true;
    int64_t lanes = std::min<int64_t>({4, tm, tn});
    t.vectorize = std::array<int64_t, 4>{4, lanes, 1, lanes};
    t.stages = 2;
    t.unroll = 0;
    space.push_back(t);
    t.vectorize.reset();
    space.push_back(t);
  }
}

/// A block tile of warps (`tile`, `warp-tile`), A and B staged in shared
/// memory, K split `split` ways: what each part's variants start from.
static Schedule warpTiled(std::array<int64_t, 3> tile,
                          std::array<int64_t, 2> warp,
                          std::optional<int64_t> split) {
  Schedule s;
  s.tile = tile;
  s.warpTile = warp;
  s.promoteA = s.promoteB = true;
  s.splitK = split;
  return s;
}

/// The space: block tiles, warp and register tiles (SIMT) or warp tiles of
/// mma.sync (f16), pipelines and split-K counts.
static std::vector<Schedule> enumerateSpace(bool f16) {
  std::vector<Schedule> space;
  const int64_t blocks[] = {32, 64, 128, 256};
  const std::optional<int64_t> splits[] = {std::nullopt, 4, 16, 64};
  for (int64_t bm : blocks)
    for (int64_t bn : blocks)
      for (int64_t bk : {16, 32, 64})
        for (int64_t wm : {16, 32, 64})
          for (int64_t wn : {16, 32, 64})
            for (std::optional<int64_t> split : splits)
              for (bool raster : {false, true}) {
                Schedule s = warpTiled({bm, bn, bk}, {wm, wn}, split);
                if (raster)
                  s.raster = 8;
                addWarpVariants(s, f16, space);
              }
  return space;
}

/// The skinny part of the space, for GEMV-like problems (M or N up to 64):
/// block tiles 8 or 16 wide on the short side and 64-256 long, warps along
/// the long side, K split 16 or 32 ways so that the blocks fill the GPU.
static std::vector<Schedule> enumerateSkinny(bool f16) {
  std::vector<Schedule> space;
  for (bool shortM : {true, false})
    for (int64_t narrow : {8, 16})
      for (int64_t wide : {64, 128, 256})
        for (int64_t bk : {32, 64})
          for (int64_t across : {16, 32, 64})
            for (int64_t split : {16, 32}) {
              if (across > wide)
                continue;
              Schedule s =
                  shortM
                      ? warpTiled({narrow, wide, bk}, {narrow, across}, split)
                      : warpTiled({wide, narrow, bk}, {across, narrow}, split);
              addWarpVariants(s, f16, space);
            }
  return space;
}

/// The part for a narrow B (N up to 64 with any leading dimension of B and
/// C, as a GEMV's B of one column has): block tiles 64-256 along M by 8-32,
/// A's copies 16 bytes wide, B's and C's element by element (`global-load
/// a W global-load b 1`), so that only A's leading dimension needs a
/// multiple; K split 4 to 32 ways.
static std::vector<Schedule> enumerateNarrowB(bool f16) {
  std::vector<Schedule> space;
  for (int64_t narrow : {8, 16, 32})
    for (int64_t wide : {64, 128, 256})
      for (int64_t bk : {32, 64})
        for (int64_t across : {16, 32, 64})
          for (int64_t split : {4, 8, 16, 32}) {
            if (across > wide)
              continue;
            Schedule s = warpTiled({wide, narrow, bk}, {across, narrow}, split);
            std::vector<Schedule> variants;
            addWarpVariants(s, f16, variants);
            for (Schedule &t : variants) {
              if (!t.vectorize || t.cpAsync)
                continue;
              // B's and C's accesses element by element; A's stored to
              // shared memory as wide as loaded (but for a transposed A).
              t.globalLoadB = 1;
              (*t.vectorize)[2] = t.transposeA ? 1 : (*t.vectorize)[0];
              (*t.vectorize)[3] = 1;
              space.push_back(t);
            }
            if (f16) {
              // mma.sync through registers: cp.async moves 4 bytes or more.
              Schedule t = s;
              t.mma = std::array<int64_t, 3>{16, 8, 16};
              t.pad = 8;
              t.vectorize = std::array<int64_t, 4>{8, 1, 8, 1};
              t.globalLoadB = 1;
              t.stages = 2;
              space.push_back(t);
            }
          }
  return space;
}

/// The part for long K beside small M and N (K over 65536 with M and N up
/// to 64): small block tiles with K split 128 to 512 ways, so that the
/// blocks fill the GPU and each sums a shorter run of K (the error grows
/// with the run).
static std::vector<Schedule> enumerateLongK(bool f16) {
  std::vector<Schedule> space;
  for (int64_t block : {16, 32, 64})
    for (int64_t bk : {32, 64})
      for (int64_t warp : {16, 32})
        for (int64_t split : {128, 256, 512}) {
          if (warp > block)
            continue;
          addWarpVariants(warpTiled({block, block, bk}, {warp, warp}, split),
                          f16, space);
        }
  return space;
}

/// The split-tf32 part (f32; every target has mma.sync): tensor cores at
/// about f32's accuracy (`math = tf32x3`: three tf32 products a pair of
/// fragments), for large problems: block tiles 64-256 of 4 or 8 warps,
/// warp tiles 32-64, a swizzle, 16-byte copies through a cp.async pipeline
/// of 3 or 4 stages, raster 8, the loop over BK left rolled (unrolled,
/// ptxas computes the steps' sums ahead and spills).
static std::vector<Schedule> enumerateSplitTf32(bool f16) {
  std::vector<Schedule> space;
  if (f16)
    return space;
  const std::array<int64_t, 3> tiles[] = {
      {128, 128, 16}, {128, 128, 32}, {128, 256, 16}, {256, 128, 16},
      {128, 64, 32},  {64, 128, 32},  {64, 64, 32}};
  for (std::array<int64_t, 3> tile : tiles)
    for (std::array<int64_t, 2> warp :
         {std::array<int64_t, 2>{64, 64}, {64, 32}, {32, 64}, {32, 32}})
      for (int64_t stages : {3, 4}) {
        int64_t warps = tile[0] / warp[0] * (tile[1] / warp[1]);
        if (warps < 4 || warps > 8)
          continue;
        Schedule s = warpTiled(tile, warp, std::nullopt);
        s.mma = std::array<int64_t, 3>{16, 8, 8};
        s.swizzle = true;
        s.vectorize = std::array<int64_t, 4>{4, 1, 1, 2};
        s.stages = stages;
        s.cpAsync = true;
        s.raster = 8;
        space.push_back(s);
      }
  return space;
}

/// Hopper's part of the space (f16 on an arch with wgmma): the
/// warp-specialised kernel (TMA for A, B and C, two consumer warpgroups)
/// with block tiles 128 x 64, 128 or 256, persistent without split-K, or
/// split 2 to 64 ways for long K.
static std::vector<Schedule> enumerateWarpgroup(bool f16) {
  std::vector<Schedule> space;
  if (!f16)
    return space;
  const std::optional<int64_t> splits[] = {std::nullopt, 2, 4, 8, 16, 32, 64};
  for (int64_t bn : {64, 128, 256})
    for (std::optional<int64_t> split : splits) {
      Schedule s;
      s.tile = {128, bn, 64};
      s.wgmma = std::array<int64_t, 3>{64, bn, 16};
      s.tmaA = s.tmaB = s.tmaC = true;
      s.stages = bn == 256 ? 4 : 6;
      s.consumers = 2;
      s.splitK = split;
      s.persistent = !split;
      if (!split)
        s.raster = 8;
      space.push_back(s);
    }
  return space;
}

/// Hopper's part for long K beside small M and N: the warp-specialised
/// kernel's 128 x 64 tile split 128 or 256 ways.
static std::vector<Schedule> enumerateWarpgroupLongK(bool f16) {
  std::vector<Schedule> space;
  for (Schedule s : enumerateWarpgroup(f16)) {
    if (s.bn() != 64 || !s.splitK)
      continue;
    for (int64_t split : {128, 256}) {
      s.splitK = split;
      space.push_back(s);
    }
    break;
  }
  return space;
}

/// The schedule file of a candidate.
static std::string scheduleFile(const std::string &name, bool f16,
                                const Schedule &s, bool tf32x3) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string type = f16 ? "f16" : "f32";
  os << "# gemmc-tune candidate\nkernel " << name
     << " {\n  problem {\n    m = ?\n    n = ?\n    k = ?\n    a = " << type
     << " row\n    b = " << type << " row\n    c = " << type << " row\n";
  if (tf32x3)
    os << "    math = tf32x3\n";
  os << "  }\n  schedule {\n";
  printDirectives(os, s, "    ");
  os << "  }\n}\n";
  return text;
}

/// Compiles `c.text` (compileBuffer: a context of its own); checks first
/// that the file reads back as the schedule it was written from.
static void compileCandidate(Candidate &c) {
  std::string name = c.name + ".gemm";
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(c.text, name), llvm::SMLoc());
  llvm::raw_string_ostream errors(c.errors);
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *os) {
        d.print("gemmc-tune", *static_cast<llvm::raw_string_ostream *>(os));
      },
      &errors);
  std::optional<KernelDecl> kernel = parseScheduleFile(sourceMgr);
  std::optional<CheckedKernel> checked;
  if (kernel)
    checked = checkSchedule(*kernel, sourceMgr, arch);
  if (!checked || checked->schedule != c.schedule) {
    errors << "the candidate's file does not read back as its schedule\n";
    return;
  }
  CompileOptions options;
  options.arch = arch;
  options.sourceName = name;
  CompileResult result =
      compileBuffer(llvm::MemoryBuffer::getMemBufferCopy(c.text, name),
                    options);
  errors << result.diagnostics;
  if (!result.succeeded)
    return;
  c.ptx = std::move(result.output);
  size_t at = c.ptx.find("// leading-dim-multiple: ");
  if (at != std::string::npos)
    c.ldMultiple = c.ptx.substr(at + 25, c.ptx.find('\n', at) - at - 25);
}

/// The schedules of `space` that the model accepts for `problem` without a
/// warning (a likely spill) and that are implemented, each once (`seen`).
/// With `withinCap`, an mma.sync schedule whose register estimate comes
/// within the warning's margin but not over the cap is kept too (tf32x3's
/// kernels need nearly all 255 registers: 128 accumulators and both parts
/// of each fragment).
static std::vector<Candidate>
legalCandidates(const std::vector<Schedule> &space, const Problem &problem,
                const Arch &target, std::set<std::string> &seen,
                bool withinCap = false) {
  std::vector<Candidate> legal;
  for (const Schedule &s : space) {
    int warnings = 0;
    std::optional<ScheduleFacts> facts =
        checkSchedule(problem, s, &target, [&](const gemmc::Diagnostic &d) {
          warnings += d.severity != gemmc::Diagnostic::Severity::Note;
        });
    // The only warning checkSchedule gives an mma.sync schedule is the
    // register estimate's.
    bool clean =
        warnings == 0 || (withinCap && warnings == 1 && facts && s.hasMma() &&
                          facts->registerPressure <= facts->registerCap);
    if (!facts || !clean ||
        !checkImplemented(problem, s, [](const gemmc::Diagnostic &) {}))
      continue;
    std::string key;
    llvm::raw_string_ostream os(key);
    printDirectives(os, s, "");
    if (!seen.insert(key).second)
      continue;
    Candidate c;
    c.schedule = s;
    c.facts = *facts;
    legal.push_back(std::move(c));
  }
  return legal;
}

/// At most `count` of `candidates` (0: all), spread over the space, every
/// k-th in the enumeration's order: a sixth (at least one) of those with
/// scalar accesses, which take every leading dimension, and the rest of
/// those with vectors.
static std::vector<Candidate> spreadOver(std::vector<Candidate> candidates,
                                         size_t count) {
  if (!count || candidates.size() <= count)
    return candidates;
  std::vector<Candidate> vectors, scalars, kept;
  for (Candidate &c : candidates)
    (c.schedule.vectorize ? vectors : scalars).push_back(std::move(c));
  auto spread = [&](std::vector<Candidate> &from, size_t n) {
    n = std::min(n, from.size());
    for (size_t i = 0; i < n; ++i)
      kept.push_back(from[i * from.size() / n]);
  };
  size_t scalarCount = std::max<size_t>(1, count / 6);
  spread(vectors, count - std::min(scalarCount, scalars.size()));
  spread(scalars, scalarCount);
  return kept;
}

static int runCandidates() {
  bool f16 = precision == "f16";
  if (!f16 && precision != "f32")
    return fail("--precision is f32 or f16, not '" + precision + "'");
  std::optional<Arch> target = lookupArch(arch);
  if (!target)
    return fail("unsupported --arch '" + arch + "'");
  if (output.empty())
    return fail("candidates needs -o DIR");
  if (std::error_code ec = llvm::sys::fs::create_directories(output))
    return fail("cannot create " + output + ": " + ec.message());

  // The legal schedules, without the warnings of likely spills: a spread
  // of `--limit` over the main space, of a third as many (at least two)
  // over the skinny part, all of Hopper's part, half as many over the
  // narrow-B and long-K parts, and Hopper's long-K part, named apart.
  Problem problem = tunedProblem(f16);
  std::set<std::string> seen;
  size_t drawn = 0, legal = 0;
  std::vector<Candidate> candidates;
  struct Part {
    std::vector<Schedule> space;
    const char *prefix;
    size_t count;
    bool tf32x3 = false;
  };
  size_t third = limit ? std::max<size_t>(2, limit / 3) : 0;
  size_t half = limit ? std::max<size_t>(2, limit / 2) : 0;
  const Part parts[] = {{enumerateSpace(f16), "_c", limit},
                        {enumerateSkinny(f16), "_g", third},
                        {enumerateWarpgroup(f16), "_w", 0},
                        {enumerateNarrowB(f16), "_n", half},
                        {enumerateLongK(f16), "_k", half},
                        {enumerateWarpgroupLongK(f16), "_wk", 0},
                        {enumerateSplitTf32(f16), "_x", half, /*tf32x3=*/true}};
  for (const auto &[space, prefix, count, tf32x3] : parts) {
    Problem partProblem = problem;
    partProblem.tf32 = partProblem.tf32x3 = tf32x3;
    std::vector<Candidate> part = legalCandidates(space, partProblem, *target,
                                                  seen, /*withinCap=*/tf32x3);
    drawn += space.size();
    legal += part.size();
    part = spreadOver(std::move(part), count);
    for (size_t i = 0; i < part.size(); ++i) {
      Candidate &c = part[i];
      c.name = precision + prefix + std::to_string(i);
      c.text = scheduleFile(c.name, f16, c.schedule, tf32x3);
      candidates.push_back(std::move(c));
    }
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
        checked->problem.a != problem.a || checked->problem.c != problem.c)
      return fail(also[i] + " is not a schedule of the tuned problem (" +
                  precision + ", sizes at launch)");
    Candidate c;
    c.schedule = checked->schedule;
    c.facts = checked->facts;
    c.name = precision + "_s" + std::to_string(i);
    c.text = scheduleFile(c.name, f16, c.schedule, checked->problem.tf32x3);
    candidates.push_back(std::move(c));
  }
  llvm::outs() << "gemmc-tune: " << drawn << " schedules enumerated, " << legal
               << " legal without a warning, compiling " << candidates.size()
               << " with " << jobs << " jobs\n";

  std::atomic<size_t> next{0}, done{0};
  std::mutex print;
  auto worker = [&] {
    for (size_t i; (i = next++) < candidates.size();) {
      compileCandidate(candidates[i]);
      size_t n = ++done;
      std::lock_guard<std::mutex> lock(print);
      int filled = int(20 * n / candidates.size());
      llvm::errs() << "[" << std::string(size_t(filled), '#')
                   << std::string(size_t(20 - filled), '.') << "] " << n << "/"
                   << candidates.size() << " " << candidates[i].name << "\n";
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, unsigned(jobs)); ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();

  std::string table = "name\tthreads\tshared_bytes\tregisters\tld_multiple\n";
  int failures = 0;
  for (const Candidate &c : candidates) {
    if (c.ptx.empty()) {
      llvm::errs() << "gemmc-tune: " << c.name
                   << " was legal but did not compile:\n"
                   << c.errors << c.text;
      ++failures;
      continue;
    }
    if (!writeFile(output + "/" + c.name + ".gemm", c.text) ||
        !writeFile(output + "/" + c.name + ".ptx", c.ptx))
      return fail("cannot write into " + output);
    table += c.name + "\t" + std::to_string(c.facts.threadsPerBlock) + "\t" +
             std::to_string(c.facts.sharedBytes) + "\t" +
             std::to_string(c.facts.registerPressure) + "\t" + c.ldMultiple +
             "\n";
  }
  if (!writeFile(output + "/candidates.tsv", table))
    return fail("cannot write " + output + "/candidates.tsv");
  llvm::outs() << "gemmc-tune: " << candidates.size() - failures
               << " candidates in " << output << "; " << failures
               << " failures\n";
  return failures ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

namespace {
/// A problem of the shapes file, by its label (`MxNxK [lda=L ...]`).
struct Shape {
  std::string label;
  int64_t m = 0, n = 0, k = 0;
  /// A leading dimension given or dense that no 16-byte vector divides.
  bool oddLd = false;
};

struct Outcome {
  std::string status;
  double ratio = 0; ///< cuBLAS's time over the candidate's
};
} // namespace

/// Size bands of a bucket: [1, 16], [17, 64], ..., [4097, 65536],
/// [65537, inf): the last apart because a K that long wants its own
/// split-K winner (a bucket's winner runs all of its problems).
static const int64_t kBands[] = {16, 64, 256, 1024, 4096, 65536};
static constexpr int kLastBand = int(std::size(kBands));

static int bandOf(int64_t size) {
  int band = 0;
  while (band < kLastBand && size > kBands[band])
    ++band;
  return band;
}

static std::pair<int64_t, int64_t> bandRange(int band) {
  int64_t lo = band == 0 ? 1 : kBands[band - 1] + 1;
  int64_t hi = band == kLastBand ? contract::SizeRange::kUnbounded : kBands[band];
  return {lo, hi};
}

static bool readShapes(const std::string &path, int64_t vector,
                       std::vector<Shape> &shapes) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    Shape s;
    if (!(words >> word))
      continue;
    s.label = word;
    llvm::SmallVector<llvm::StringRef, 3> sizes;
    llvm::StringRef(word).split(sizes, 'x');
    if (sizes.size() == 1)
      sizes.assign(3, sizes[0]);
    if (sizes.size() != 3 || sizes[0].getAsInteger(10, s.m) ||
        sizes[1].getAsInteger(10, s.n) || sizes[2].getAsInteger(10, s.k))
      return false;
    // Dense leading dimensions of row-major A, B, C: K, N, N.
    int64_t lds[3] = {s.k, s.n, s.n};
    while (words >> word) {
      s.label += " " + word;
      int64_t value = 0;
      if (word.size() > 4 && word[0] == 'l' && word[1] == 'd' &&
          !llvm::StringRef(word).substr(4).getAsInteger(10, value))
        lds[word[2] - 'a'] = value;
    }
    for (int64_t ld : lds)
      s.oddLd |= ld % vector != 0;
    shapes.push_back(s);
  }
  return true;
}

static int runSelect() {
  if (dirArg.empty() || shapesFile.empty() || output.empty())
    return fail("select needs DIR, --shapes FILE and -o FAMILY.gemm");
  const std::string dir = dirArg;
  // The candidates and whether each takes any leading dimension.
  std::ifstream table(dir + "/candidates.tsv");
  if (!table)
    return fail("cannot read " + dir + "/candidates.tsv");
  std::map<std::string, bool> anyLd;
  std::string line;
  std::getline(table, line);
  while (std::getline(table, line)) {
    llvm::SmallVector<llvm::StringRef, 5> fields;
    llvm::StringRef(line).split(fields, '\t');
    if (fields.size() == 5)
      anyLd[fields[0].str()] = fields[4] == "a=1 b=1 c=1";
  }
  std::string type = anyLd.empty() ? "f32" : anyLd.begin()->first.substr(0, 3);
  std::vector<Shape> shapes;
  if (!readShapes(shapesFile, type == "f16" ? 8 : 4, shapes))
    return fail("cannot read the shapes in " + shapesFile);

  // results.tsv: problem, file, kernel, status, ms, cuBLAS ms.
  std::ifstream results(dir + "/results.tsv");
  if (!results)
    return fail("cannot read " + dir + "/results.tsv");
  std::map<std::string, std::map<std::string, Outcome>> byShape;
  while (std::getline(results, line)) {
    llvm::SmallVector<llvm::StringRef, 6> f;
    llvm::StringRef(line).split(f, '\t');
    if (f.size() != 6)
      continue;
    std::string name = llvm::sys::path::stem(f[1]).str();
    Outcome o;
    o.status = f[3].str();
    double ms = 0, cublasMs = 0;
    if (!f[4].getAsDouble(ms) && !f[5].getAsDouble(cublasMs) && ms > 0)
      o.ratio = cublasMs / ms;
    byShape[f[0].str()][name] = o;
  }

  // Buckets: bands of M, N, K and the odd leading dimensions.
  std::map<std::tuple<int, int, int, bool>, std::vector<const Shape *>> buckets;
  for (const Shape &s : shapes)
    if (byShape.count(s.label))
      buckets[{bandOf(s.m), bandOf(s.n), bandOf(s.k), s.oddLd}].push_back(&s);
  // The best candidate for `group`: verified on each of its problems, and
  // of those, the fastest by the geometric mean of its ratios to cuBLAS
  // among the ones that keep every problem at `--floor` or above, if some
  // do (one slow problem weighs more than a mean).
  auto best = [&](const std::vector<const Shape *> &group, bool needsAnyLd,
                  double &geomean) {
    std::string winner;
    geomean = 0;
    bool winnerAboveFloor = false;
    for (const auto &[name, takesAny] : anyLd) {
      if (needsAnyLd && !takesAny)
        continue;
      double logSum = 0, lowest = 0;
      bool all = true;
      for (const Shape *s : group) {
        auto it = byShape[s->label].find(name);
        all &= it != byShape[s->label].end() && it->second.status == "PASS" &&
               it->second.ratio > 0;
        if (!all)
          break;
        logSum += std::log(it->second.ratio);
        lowest = lowest == 0 ? it->second.ratio
                             : std::min(lowest, it->second.ratio);
      }
      if (!all)
        continue;
      double g = std::exp(logSum / double(group.size()));
      bool aboveFloor = lowest >= floorRatio;
      if (std::make_pair(aboveFloor, g) >
          std::make_pair(winnerAboveFloor, geomean)) {
        geomean = g;
        winner = name;
        winnerAboveFloor = aboveFloor;
      }
    }
    return winner;
  };

  std::string name = familyName.empty() ? type + "_tuned" : familyName;
  std::string family, tableText = "variant\twhen\tcandidate\tgeomean\tproblems\n";
  std::set<std::string> winners;
  // The candidates share a problem but for tf32x3 (the split-tf32 part),
  // which the family asks where a winner does: the SIMT variants compute in
  // f32 under it all the same.
  std::string problem;
  bool tf32x3 = false;
  auto directivesOf = [&](const std::string &candidate) -> std::string {
    auto buffer = llvm::MemoryBuffer::getFile(dir + "/" + candidate + ".gemm");
    if (!buffer)
      return "";
    llvm::StringRef text = (*buffer)->getBuffer();
    size_t open = text.find("  problem {");
    if (problem.empty() && open != llvm::StringRef::npos)
      problem = text.substr(open, text.find("  schedule {") - open).str();
    tf32x3 |= text.contains("    math = tf32x3\n");
    size_t begin = text.find("  schedule {\n") + 13;
    return text.substr(begin, text.rfind("  }\n}") - begin).str();
  };
  int index = 0;
  for (const auto &[key, group] : buckets) {
    auto [bm, bn, bk, odd] = key;
    // A bucket's winner ran every one of its problems, leading dimensions
    // and all (gemm-bench skips a kernel whose contract refuses a problem):
    // for the odd ones, a candidate that asks multiples of the operands
    // whose leading dimensions have them (`global-load b 1` for a B of one
    // column) may win; the family's fallback takes the rest.
    double geomean = 0;
    std::string winner = best(group, /*needsAnyLd=*/false, geomean);
    if (winner.empty())
      continue;
    contract::SizeRange range;
    const int bands[3] = {bm, bn, bk};
    for (int d = 0; d < 3; ++d) {
      auto [lo, hi] = bandRange(bands[d]);
      range.lo[size_t(d)] = lo;
      range.hi[size_t(d)] = hi;
    }
    std::string when;
    for (int d = 0; d < 3; ++d) {
      std::string dim(1, "mnk"[d]);
      int64_t lo = range.lo[size_t(d)], hi = range.hi[size_t(d)];
      if (lo > 1)
        when += (when.empty() ? " when " : ", ") + dim + " >= " +
                std::to_string(lo);
      if (hi != contract::SizeRange::kUnbounded)
        when += (when.empty() ? " when " : ", ") + dim + " <= " +
                std::to_string(hi);
    }
    std::string variant =
        "b" + std::to_string(index++) + (odd ? "_odd_ld" : "");
    family += "  # " + std::to_string(group.size()) + " problems, " +
              llvm::formatv("{0:F2}", geomean).str() + "x cuBLAS: " + winner +
              "\n  variant " + variant + when + " {\n" +
              directivesOf(winner) + "  }\n";
    tableText += variant + "\t" + range.str() + "\t" + winner + "\t" +
                 llvm::formatv("{0:F3}", geomean).str() + "\t" +
                 std::to_string(group.size()) + "\n";
    winners.insert(winner);
  }
  // Problems outside every bucket: the best candidate over all the aligned
  // problems, then the fallback, the best candidate for any leading
  // dimension over the problems that need one (or all).
  std::vector<const Shape *> odd, aligned, all;
  for (const Shape &s : shapes)
    if (byShape.count(s.label)) {
      all.push_back(&s);
      (s.oddLd ? odd : aligned).push_back(&s);
    }
  double geomean = 0;
  std::string general = aligned.empty() ? "" : best(aligned, false, geomean);
  if (!general.empty() && !anyLd[general]) {
    family += "  # the rest, aligned: " + general + "\n  variant aligned {\n" +
              directivesOf(general) + "  }\n";
    tableText += "aligned\tany\t" + general + "\t" +
                 llvm::formatv("{0:F3}", geomean).str() + "\t" +
                 std::to_string(aligned.size()) + "\n";
    winners.insert(general);
  }
  std::string fallback = best(odd.empty() ? all : odd, true, geomean);
  if (fallback.empty())
    for (const auto &[candidate, takesAny] : anyLd)
      if (takesAny) {
        fallback = candidate;
        break;
      }
  if (fallback.empty())
    return fail("no candidate takes every leading dimension");
  family += "  # the fallback, for every leading dimension: " + fallback +
            "\n  variant any {\n" + directivesOf(fallback) + "  }\n";
  tableText += "any\tany\t" + fallback + "\t" +
               llvm::formatv("{0:F3}", geomean).str() + "\t" +
               std::to_string((odd.empty() ? all : odd).size()) + "\n";
  winners.insert(fallback);

  if (tf32x3 && !llvm::StringRef(problem).contains("math = tf32x3"))
    problem.insert(problem.rfind("  }\n"), "    math = tf32x3\n");
  std::string text = "# A kernel family written by gemmc-tune select from " +
                     dir + "/results.tsv and the problems of " + shapesFile +
                     ": per bucket of sizes the fastest verified candidate.\n"
                     "kernel " + name + " {\n" + problem + family + "}\n";
  if (!writeFile(output, text))
    return fail("cannot write " + output);
  llvm::sys::fs::create_directories(dir + "/winners");
  for (const std::string &winner : winners)
    llvm::sys::fs::copy_file(dir + "/" + winner + ".gemm",
                             dir + "/winners/" + winner + ".gemm");
  if (!writeFile(dir + "/family.tsv", tableText))
    return fail("cannot write " + dir + "/family.tsv");
  llvm::outs() << "gemmc-tune: " << buckets.size() << " buckets over "
               << all.size() << " problems, " << winners.size()
               << " winners; the family in " << output << ", the table in "
               << dir << "/family.tsv\n";
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
