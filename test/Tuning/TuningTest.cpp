//===- TuningTest.cpp - the tuner's fit and family choice -----------------===//
//
// On synthetic measurements: the fit recovers the constants that made
// them, and the greedy choice takes the fallback first, then the variants
// that win problems, never one that failed, and stops when none helps.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Tuning/Choose.h"
#include "gemmc/Tuning/Family.h"
#include "gemmc/Tuning/Fit.h"
#include "gemmc/Tuning/Training.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace gemmc;
using namespace gemmc::tuning;
using namespace gemmc::contract;

/// A kernel's contract: sizes at launch, f16, the block tile and splits
/// given, the unit's cost line.
static Contract kernel(const std::string &entry, const std::string &tile,
                       const std::string &unit, int splits = 1,
                       int ldMultiple = 8) {
  std::string m = std::to_string(ldMultiple);
  std::string text =
      "// gemmc-contract-begin v" + std::string(splits > 1 ? "4" : "1") +
      "\n// entry: " + entry + "\n// block: 256 1 1\n// grid: N/64 M/64 " +
      std::to_string(splits) + "\n// dynamic-shared-bytes: 0\n" +
      (splits > 1 ? "// split-k: splits=" + std::to_string(splits) +
                        " workspace=4096\n"
                  : "") +
      "// params: A:memref2.i64 B:memref2.i64 C:memref2.i64" +
      (splits > 1 ? " workspace:memref1.i64 counters:memref1.i64" : "") +
      "\n// leading-dim-multiple: a=" + m + " b=" + m + " c=" + m +
      "\n// problem: m=? n=? k=? a=f16:row b=f16:row c=f16:row acc=f32\n"
      "// schedule: tile=" +
      tile + "\n// cost: unit=" + unit +
      " occupancy=1\n// gemmc-contract-end\n";
  Contract c;
  std::string error;
  EXPECT_TRUE(parseContract(text, c, error)) << error;
  return c;
}

static Problem problemOf(int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.a = p.b = p.c = DType::F16;
  return p;
}

static std::vector<Problem> spread() {
  std::vector<Problem> problems;
  for (int64_t m : {1, 16, 128, 512, 2048, 8192})
    for (int64_t n : {256, 4096, 14336})
      for (int64_t k : {512, 4096})
        problems.push_back(problemOf(m, n, k));
  return problems;
}

/// A 64 x 64 x 64 wgmma kernel whose splits of K the launch chooses.
static Contract splitsAtLaunch(const std::string &name) {
  Contract c = kernel(name, "64x64x64", "wgmma");
  c.splits = 0;
  c.partialFloats = 64 * 64;
  c.grid[2] = GridExpr{'Z', 1};
  return c;
}

/// Constants away from every default, for a fit to find.
static CostConstants madeUpConstants() {
  CostConstants c;
  c.fixed = 6;
  c.latency = 2.5;
  c.compute = 1.4;
  c.memory = 1.3;
  c.reduce = 1.5;
  return c;
}

TEST(Fit, RecoversTheConstantsThatMadeTheTimes) {
  DeviceModel device;
  Contract c = kernel("k", "128x128x64", "wgmma");
  CostConstants truth = madeUpConstants();
  std::vector<Measurement> ms;
  int i = 0;
  for (const Problem &p : spread()) {
    // Within 1% either way, deterministically.
    double noise = 1 + 0.01 * ((i++ % 3) - 1);
    ms.push_back({p, costFeatures(c, p, device).predict(truth) * noise});
  }
  FitResult fit = fitConstants(c, ms, device);
  EXPECT_EQ(fit.problems, ms.size());
  EXPECT_LT(fit.rmsAfter, 0.02);
  EXPECT_GT(fit.rmsBefore, 4 * fit.rmsAfter);
  EXPECT_NEAR(fit.constants.compute, truth.compute, 0.05 * truth.compute);
  EXPECT_NEAR(fit.constants.memory, truth.memory, 0.1 * truth.memory);
  EXPECT_NEAR(fit.constants.fixed, truth.fixed, 0.2 * truth.fixed);
}

TEST(Fit, UsesTheSplitsEachMeasurementRanWith) {
  // A kernel whose splits the launch chooses, timed at several counts on
  // small tiles of C and a long K: the fit recovers `reduce` from the
  // counts each time ran with.
  DeviceModel device;
  Contract c = splitsAtLaunch("z");
  CostConstants truth = CostConstants::defaults(Unit::Wgmma);
  truth.fixed = 8;
  truth.reduce = 3;
  std::vector<Measurement> ms;
  for (int64_t mn : {64, 128, 256})
    for (int64_t k : {16384, 65536, 200000})
      for (int64_t splits : {1, 4, 16, 64})
        ms.push_back({problemOf(mn, mn, k),
                      costFeatures(c, problemOf(mn, mn, k), device, splits)
                          .predict(truth),
                      splits});
  FitResult fit = fitConstants(c, ms, device);
  EXPECT_LT(fit.rmsAfter, 0.01);
  EXPECT_NEAR(fit.constants.reduce, truth.reduce, 0.05 * truth.reduce);
  // Fitted as if every time ran with one split, it cannot.
  for (Measurement &m : ms)
    m.splits = 1;
  EXPECT_GT(fitConstants(c, ms, device).rmsAfter, 10 * fit.rmsAfter);
}

TEST(Fit, AsksOnlyThatAnUncompetitiveTimeNotBePredictedCompetitive) {
  // The times the constants make, but three times slower on the problems
  // of M = 1, where the fastest candidate ran at half the constants' time
  // (this one far behind it, whatever the model says): told the fastest
  // times, the fit recovers the constants from the rest; not told, it
  // bends to the slow ones.
  DeviceModel device;
  Contract c = kernel("k", "128x128x64", "wgmma");
  CostConstants truth = madeUpConstants();
  std::vector<Measurement> told, untold;
  for (const Problem &p : spread()) {
    double t = costFeatures(c, p, device).predict(truth);
    double slow = p.m == 1 ? 3 : 1;
    told.push_back({p, t * slow, 1, p.m == 1 ? t / 2 : t});
    untold.push_back({p, t * slow});
  }
  FitResult fit = fitConstants(c, told, device);
  EXPECT_LT(fit.rmsAfter, 0.01);
  EXPECT_NEAR(fit.constants.compute, truth.compute, 0.05 * truth.compute);
  EXPECT_GT(fitConstants(c, untold, device).rmsAfter, 10 * fit.rmsAfter);
  // And the slow problems are not predicted competitive.
  for (const Measurement &m : told)
    if (m.problem.m == 1)
      EXPECT_GE(costFeatures(c, m.problem, device).predict(fit.constants),
                0.99 * kCompetitiveFactor * m.fastest);
}

TEST(Fit, KeepsTheDefaultsWithoutMeasurements) {
  Contract c = kernel("k", "128x128x64", "mma");
  FitResult fit = fitConstants(c, {}, DeviceModel());
  EXPECT_EQ(fit.problems, 0u);
  EXPECT_DOUBLE_EQ(fit.constants.compute,
                   CostConstants::defaults(Unit::Mma).compute);
}

namespace {
/// Three candidates: `big` (wgmma, fast on large problems), `small` (a
/// split-K kernel, fast on small ones) and `any` (a slow fallback for any
/// leading dimension), measured on the spread by constants of their own.
struct Fixture {
  DeviceModel device;
  std::vector<Candidate> candidates;
  std::vector<ProblemRecord> problems;
  std::vector<CostConstants> truth;

  Fixture() {
    candidates.push_back({"any", kernel("any", "64x64x32", "simt", 1, 1), true,
                          CostConstants::defaults(Unit::Simt)});
    candidates.push_back({"big", kernel("big", "128x256x64", "wgmma"), false,
                          CostConstants::defaults(Unit::Wgmma)});
    candidates.push_back({"small", kernel("small", "64x64x64", "mma", 8), false,
                          CostConstants::defaults(Unit::Mma)});
    candidates.push_back({"broken", kernel("broken", "128x128x64", "wgmma"),
                          false, CostConstants::defaults(Unit::Wgmma)});
    truth = {CostConstants::defaults(Unit::Simt),
             CostConstants::defaults(Unit::Wgmma),
             CostConstants::defaults(Unit::Mma),
             CostConstants::defaults(Unit::Wgmma)};
    truth[0].compute = 8; // a scalar fallback, slow
    truth[1].fixed = 12;  // a persistent kernel's start
    truth[2].fixed = 3;
    truth[3].compute = 0.5; // it would win everything, but it fails
    for (const Problem &p : spread()) {
      ProblemRecord r;
      r.label = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                std::to_string(p.k);
      r.problem = p;
      for (size_t c = 0; c < candidates.size(); ++c) {
        double s =
            costFeatures(candidates[c].contract, p, device).predict(truth[c]);
        r.seconds.push_back(s);
        r.refused.push_back(false);
        r.failed.push_back(c == 3 && p.m == 512);
      }
      // cuBLAS: as fast as the best of big and small.
      r.cublasSeconds = std::min(r.seconds[1], r.seconds[2]);
      problems.push_back(r);
    }
  }

  void fitAll() { fitCandidates(candidates, problems, device); }
};
} // namespace

TEST(Choose, FallbackFirstThenTheVariantsThatWin) {
  Fixture f;
  f.fitAll();
  FamilyChoice choice = chooseFamily(f.candidates, f.problems, f.device, {});
  ASSERT_EQ(choice.variants.size(), 3u);
  EXPECT_EQ(choice.variants[0], 0u); // the fallback
  // big and small, in either order; never the broken one.
  EXPECT_EQ(choice.variants[1] + choice.variants[2], 3u);
  // Each join raised the geometric mean; with both the family matches
  // cuBLAS (whose times are the better of the two) within the fit.
  EXPECT_LT(choice.geomeans[0], choice.geomeans[1]);
  EXPECT_LT(choice.geomeans[1], choice.geomeans[2]);
  EXPECT_GT(choice.score.geomean, 0.97);
  EXPECT_EQ(choice.score.refused, 0u);
  EXPECT_EQ(choice.score.predictedOnly, 0u);
}

TEST(Choose, NoFallbackNoFamily) {
  Fixture f;
  f.candidates[0].takesAnyProblem = false;
  FamilyChoice choice = chooseFamily(f.candidates, f.problems, f.device, {});
  EXPECT_TRUE(choice.variants.empty());
}

TEST(Choose, ScoresARefusedProblemAsFarBelowTheFloor) {
  Fixture f;
  f.fitAll();
  f.problems.front().refused.assign(f.candidates.size(), true);
  FamilyScore s =
      scoreFamily(f.candidates, f.problems, {0, 1, 2}, f.device, {});
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(s.choice.front(), -1);
  FamilyScore without =
      scoreFamily(f.candidates, {f.problems.begin() + 1, f.problems.end()},
                  {0, 1, 2}, f.device, {});
  EXPECT_LT(s.score, without.score);
}

/// A probe the fixture's candidates were never measured on: 16384^3.
static ProblemRecord largeProbe(const Fixture &f) {
  ProblemRecord probe;
  probe.label = "16384x16384x16384";
  probe.problem = problemOf(16384, 16384, 16384);
  probe.seconds.assign(f.candidates.size(), NAN);
  probe.refused.assign(f.candidates.size(), false);
  probe.failed.assign(f.candidates.size(), false);
  return probe;
}

/// Options that choose one variant: the fallback.
static ChooseOptions fallbackOnly() {
  ChooseOptions options;
  options.maxVariants = 1;
  return options;
}

/// The family of the fallback alone, which a cover variant may join.
static FamilyChoice fallbackAlone(const Fixture &f,
                                  const ChooseOptions &options) {
  FamilyChoice choice =
      chooseFamily(f.candidates, f.problems, f.device, options);
  EXPECT_EQ(choice.variants.size(), 1u);
  return choice;
}

TEST(Choose, CoversProbesByTheModel) {
  Fixture f;
  f.fitAll();
  ChooseOptions options = fallbackOnly();
  FamilyChoice choice = fallbackAlone(f, options);
  // A large problem, not among the measured ones: the slow fallback is far
  // from the best prediction, and a faster candidate joins for it.
  ProblemRecord probe = largeProbe(f);
  coverProbes(f.candidates, f.problems, {probe}, f.device, options, choice);
  ASSERT_EQ(choice.coverVariants.size(), 1u);
  EXPECT_NE(choice.coverVariants[0], 0u);
  EXPECT_NE(choice.coverVariants[0], 3u); // never the one that failed
  EXPECT_EQ(choice.coverReasons[0], "16384x16384x16384");
  EXPECT_EQ(choice.variants.size(), 2u);
  // Covered: nothing more joins.
  coverProbes(f.candidates, f.problems, {probe}, f.device, options, choice);
  EXPECT_EQ(choice.variants.size(), 2u);

  // A candidate fitted to fewer measurements than the options ask cannot
  // join for coverage: its prediction is all the probe has of it.
  FamilyChoice alone =
      chooseFamily(f.candidates, f.problems, f.device, options);
  options.minCoverMeasurements = f.problems.size() + 1;
  coverProbes(f.candidates, f.problems, {probe}, f.device, options, alone);
  EXPECT_TRUE(alone.coverVariants.empty());
  EXPECT_EQ(alone.variants.size(), 1u);
}

TEST(Choose, CoverNeverTakesTrainingProblemsToSlowerKernels) {
  Fixture f;
  f.fitAll();
  ChooseOptions options = fallbackOnly();
  FamilyChoice choice = fallbackAlone(f, options);
  // The model still ranks big and small first wherever they take a
  // problem, but measured on the training problems they ran far slower
  // than the fallback: joining for the probe would cost those problems.
  for (ProblemRecord &r : f.problems)
    for (size_t c : {1u, 2u})
      r.seconds[c] = 100 * r.seconds[0];
  ProblemRecord probe = largeProbe(f);
  FamilyChoice guarded = choice;
  coverProbes(f.candidates, f.problems, {probe}, f.device, options, guarded);
  EXPECT_TRUE(guarded.coverVariants.empty());
  EXPECT_EQ(guarded.score.score, choice.score.score);
  // Without the guard the probe's prediction alone decides, and one joins.
  options.maxCoverLoss = INFINITY;
  coverProbes(f.candidates, f.problems, {probe}, f.device, options, choice);
  ASSERT_EQ(choice.coverVariants.size(), 1u);
  EXPECT_LT(choice.score.score, guarded.score.score);
}

TEST(Family, RetargetsACandidatesProblem) {
  const std::string text = "kernel f16_w5 {\n  problem {\n    m = ?\n    n = "
                           "?\n    k = ?\n    a = f16 row\n    b = f16 row\n"
                           "    c = f16 row\n  }\n  schedule {\n    tile "
                           "128x128x64\n  }\n}\n";
  std::string batched = retargetSchedule(text, "bf16", "rcr", /*batch=*/true);
  EXPECT_NE(batched.find("    k = ?\n    batch = ?\n"), std::string::npos);
  EXPECT_NE(batched.find("    a = bf16 row\n    b = bf16 col\n    c = bf16 "
                         "row\n"),
            std::string::npos);
  // Nothing asked, nothing changed.
  EXPECT_EQ(retargetSchedule(text, "", "", false), text);
  EXPECT_EQ(directivesOf(text), "    tile 128x128x64\n");
  EXPECT_EQ(variantName("f16_w5"), "w5");
}

TEST(Family, WritesTheVariantsInTheOrderTheyJoinedTheFallbackLast) {
  Fixture f;
  f.fitAll();
  FamilyChoice choice = chooseFamily(f.candidates, f.problems, f.device, {});
  ASSERT_EQ(choice.variants.size(), 3u);
  std::vector<std::string> texts;
  for (const Candidate &c : f.candidates)
    texts.push_back("kernel " + c.name + " {\n  problem {\n    m = ?\n  }\n"
                    "  schedule {\n    tile " + c.name + "\n  }\n}\n");
  std::vector<FitResult> fits(f.candidates.size());
  ChosenFamily family{f.candidates, texts, fits, f.problems, choice};
  std::vector<size_t> order = family.order();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.back(), choice.variants.front());
  std::string kernel = family.kernelText("fam");
  EXPECT_EQ(kernel.rfind("kernel fam {\n  problem {\n    m = ?\n  }\n", 0),
            0u);
  // Each variant's directives, the fallback's last.
  size_t fallback =
      kernel.find("    tile " + f.candidates[order.back()].name + "\n");
  size_t firstJoined =
      kernel.find("    tile " + f.candidates[order.front()].name + "\n");
  ASSERT_NE(fallback, std::string::npos);
  ASSERT_NE(firstJoined, std::string::npos);
  EXPECT_LT(firstJoined, fallback);
  // A row per variant, and per training problem.
  std::string table = family.variantTable();
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 4);
  std::string training = family.trainingTable();
  EXPECT_EQ(size_t(std::count(training.begin(), training.end(), '\n')),
            f.problems.size() + 1);
}

TEST(Training, ReadsEachProblemsOutcomesScaledToItsFirstCuBLASTime) {
  std::vector<Candidate> candidates;
  candidates.push_back({"a", kernel("a", "128x128x64", "wgmma"), false, {}});
  candidates.push_back({"b", kernel("b", "64x64x64", "mma", 1, 1), true, {}});
  std::vector<Shape> shapes(3);
  shapes[0].size = {1024, 1024, 1024};
  shapes[1].size = {1000, 1000, 1000}; // a's leading dimensions refuse it
  shapes[1].lda = shapes[1].ldb = shapes[1].ldc = 1001;
  shapes[2].size = {64, 64, 64}; // never timed
  auto row = [](std::string problem, std::string file, std::string status,
                double ms, double cublasMs, int64_t splits = 0) {
    ResultRow r;
    r.problem = problem, r.file = file, r.status = status;
    r.kernel = fileNameOf(file);
    r.ms = ms, r.cublasMs = cublasMs, r.splits = splits;
    return r;
  };
  std::string odd = shapes[1].label();
  std::vector<ResultRow> results = {
      row("1024x1024x1024", "dir/a.ptx", "PASS", 0.2, 0.1, 4),
      // A second run, whose cuBLAS took twice as long: b keeps its ratio.
      row("1024x1024x1024", "dir/b.ptx", "PASS", 0.8, 0.2),
      row(odd, "dir/a.ptx", "SKIP", NAN, 0.3),
      row(odd, "dir/b.ptx", "FAIL", NAN, 0.3),
      // Not a candidate, not a training problem: not looked at.
      row("1024x1024x1024", "dir/c.ptx", "PASS", 0.1, 0.1),
      row("7x7x7", "dir/a.ptx", "PASS", 0.1, 0.1)};
  Problem tuned = problemOf(0, 0, 0);
  TrainingData data = readTraining(candidates, tuned, shapes, results);
  EXPECT_EQ(data.rows, 4u);
  EXPECT_EQ(data.unmeasured, 1u);
  ASSERT_EQ(data.problems.size(), 2u);
  const ProblemRecord &square = data.problems[0];
  EXPECT_EQ(square.label, "1024x1024x1024");
  EXPECT_DOUBLE_EQ(square.cublasSeconds, 0.1e-3);
  EXPECT_DOUBLE_EQ(square.seconds[0], 0.2e-3);
  EXPECT_EQ(square.splits[0], 4);
  EXPECT_DOUBLE_EQ(square.seconds[1], 0.4e-3);
  EXPECT_EQ(square.splits[1], 1);
  const ProblemRecord &padded = data.problems[1];
  EXPECT_EQ(padded.problem.lda, 1001);
  EXPECT_TRUE(padded.refused[0]);
  EXPECT_TRUE(padded.failed[1]);
  EXPECT_TRUE(std::isnan(padded.seconds[1]));
}

TEST(Training, KeepsEachCountOfSplitsACandidateRanAt) {
  // A split-K-at-launch candidate timed at 1, 2 and 3 splits (gemm-bench
  // --splits), 2 twice: each count keeps its last time, and the fit sees
  // one measurement a count.
  std::vector<Candidate> candidates;
  candidates.push_back({"z", splitsAtLaunch("z"), false, {}});
  std::vector<Shape> shapes(1);
  shapes[0].size = {64, 64, 16384};
  auto row = [](double ms, int64_t splits) {
    ResultRow r;
    r.problem = "64x64x16384", r.file = "dir/z.ptx", r.status = "PASS";
    r.kernel = fileNameOf(r.file);
    r.ms = ms, r.cublasMs = 0.1, r.splits = splits;
    return r;
  };
  std::vector<ResultRow> results = {row(0.4, 1), row(0.3, 2), row(0.2, 3),
                                    row(0.25, 2)};
  TrainingData data =
      readTraining(candidates, problemOf(0, 0, 0), shapes, results);
  ASSERT_EQ(data.problems.size(), 1u);
  const ProblemRecord &r = data.problems[0];
  ASSERT_EQ(r.atSplits[0].size(), 3u);
  EXPECT_DOUBLE_EQ(r.measuredAt(0, 1), 0.4e-3);
  EXPECT_DOUBLE_EQ(r.measuredAt(0, 2), 0.25e-3);
  EXPECT_DOUBLE_EQ(r.measuredAt(0, 3), 0.2e-3);
  // A count it never ran at has no time: the family's score predicts it.
  EXPECT_TRUE(std::isnan(r.measuredAt(0, 4)));
  std::vector<Measurement> ms = measurementsOf(data.problems, 0);
  ASSERT_EQ(ms.size(), 3u);
  for (const Measurement &m : ms) {
    EXPECT_DOUBLE_EQ(m.fastest, 0.2e-3);
    EXPECT_DOUBLE_EQ(m.seconds, r.measuredAt(0, m.splits));
  }
}

TEST(Choose, ScoresTheTimeAtTheSplitsTheModelChooses) {
  // Timed at one split and at the count the model chooses: the family is
  // scored by the time at the model's count, not the first one read.
  DeviceModel device;
  Contract z = splitsAtLaunch("z");
  Candidate c{"z", z, true, CostConstants::defaults(Unit::Wgmma)};
  ProblemRecord r;
  r.label = "64x64x65536";
  r.problem = problemOf(64, 64, 65536);
  int64_t chosen = chooseSplits(z, r.problem, device, c.constants);
  ASSERT_GT(chosen, 1);
  r.cublasSeconds = 1e-4;
  r.seconds = {8e-4};
  r.splits = {1};
  r.refused = {false};
  r.failed = {false};
  r.atSplits = {{{1, 8e-4}, {chosen, 1e-4}}};
  FamilyScore s = scoreFamily({c}, {r}, {0}, device, {});
  EXPECT_DOUBLE_EQ(s.seconds[0], 1e-4);
  EXPECT_DOUBLE_EQ(s.ratio[0], 1.0);
  EXPECT_EQ(s.predictedOnly, 0u);
}
