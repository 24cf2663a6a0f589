//===- Choose.h - a family's variants from measured candidates -*- C++ -*-===//
//
// gemmc-tune select builds a kernel family from candidates measured on the
// training problems: each candidate's cost constants are fitted (Fit.h),
// and the variants are chosen greedily, each time the candidate that most
// improves the family, where a family runs each problem on the variant the
// cost model predicts fastest (the runtime's rule of choice) and is scored
// by the measured speed of that choice against cuBLAS: the mean logarithm
// of the ratios, with problems below a floor counted several times over.
// So a variant joins for the problems it wins, and the model that will
// choose at run time is the one that chose here. docs/tuning.md.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TUNING_CHOOSE_H
#define GEMMC_TUNING_CHOOSE_H

#include "gemmc-contract/Cost.h"
#include "gemmc/Tuning/Fit.h"

#include <map>
#include <string>
#include <vector>

namespace gemmc::tuning {

/// A candidate kernel: its contract and fitted constants.
struct Candidate {
  std::string name;
  contract::Contract contract;
  /// Takes every problem of the tuned problem's sizes: no leading-dimension
  /// or size multiple (a family needs one such variant).
  bool takesAnyProblem = false;
  contract::CostConstants constants;
  /// The measurements the constants were fitted to.
  size_t measurements = 0;
};

/// A training problem: cuBLAS's time and each candidate's outcome.
struct ProblemRecord {
  std::string label;
  contract::Problem problem;
  double cublasSeconds = 0;
  /// Per candidate: the measured time (NaN: not measured), the splits of K
  /// it ran with where it takes them at launch (1 otherwise), whether its
  /// contract refuses the problem, whether it failed verification.
  std::vector<double> seconds;
  std::vector<int64_t> splits;
  std::vector<bool> refused, failed;
  /// Per candidate: its time at each count of splits it ran at (several
  /// where it takes its splits at launch and was measured with gemm-bench
  /// --splits). `seconds` and `splits` hold the last measurement read.
  std::vector<std::map<int64_t, double>> atSplits;

  /// The time measured for candidate `c` at `count` splits: at that count,
  /// else the one measurement where there is one (a count the model moved
  /// since), else NaN.
  double measuredAt(size_t c, int64_t count) const;
};

struct ChooseOptions {
  size_t maxVariants = 24;
  /// Stop when a variant adds less than this to the mean log ratio.
  double minGain = 0.0003;
  /// Problems below `floor` x cuBLAS count `floorWeight` times more for
  /// the part they are below it.
  double floor = 0.7, floorWeight = 4;
  /// Coverage: a probe problem is covered when the family's predicted time
  /// on it is within this factor of the best candidate's.
  double coverFactor = 1.5;
  /// At most this many variants join for coverage.
  size_t maxCoverVariants = 6;
  /// A candidate joins for coverage only if its constants were fitted to
  /// at least this many measurements: the probes are judged by its
  /// prediction alone, and one fitted to two times predicts what it
  /// likes (split-K 256 ways on 32 x 32 tiles, fitted to 2, covered
  /// 8x8x8192 and ran it at 0.28x cuBLAS).
  size_t minCoverMeasurements = 10;
  /// A candidate joins for coverage only if the family's training score
  /// (the mean log ratio, floor-weighted) falls by at most this with it:
  /// the runtime runs it wherever it predicts it fastest, training
  /// problems included.
  double maxCoverLoss = 0;
};

/// How a family does on a set of problems.
struct FamilyScore {
  /// The variant (an index into the candidates) each problem runs on, or
  /// -1; the time it takes (measured, else predicted) and its ratio to
  /// cuBLAS.
  std::vector<int> choice;
  std::vector<double> seconds, ratio;
  double geomean = 0, lowest = 0;
  size_t lowestProblem = 0;
  /// Problems no variant takes, and problems whose choice was not measured
  /// there (their time is the prediction, a quarter slower).
  size_t refused = 0, predictedOnly = 0;
  double score = 0;
};

/// The candidate's measurements on `problems`, each with the fastest
/// candidate's time there, to fit its constants (Fit.h).
std::vector<Measurement>
measurementsOf(const std::vector<ProblemRecord> &problems, size_t candidate);

/// Scores the family `variants` on `problems` by the rule of choice.
FamilyScore scoreFamily(const std::vector<Candidate> &candidates,
                        const std::vector<ProblemRecord> &problems,
                        const std::vector<size_t> &variants,
                        const contract::DeviceModel &device,
                        const ChooseOptions &options);

struct FamilyChoice {
  /// The chosen candidates in the order they joined; the first takes every
  /// problem.
  std::vector<size_t> variants;
  FamilyScore score;
  /// The score after each variant joined.
  std::vector<double> geomeans;
  /// The variants that joined for coverage (after the greedy ones), and
  /// the probes each was added for.
  std::vector<size_t> coverVariants;
  std::vector<std::string> coverReasons;
};

/// Chooses a family's variants greedily (see the file comment). Only
/// candidates measured on some problem join, and never one that failed
/// verification on one. Returns no variant if no candidate takes every
/// problem.
FamilyChoice chooseFamily(const std::vector<Candidate> &candidates,
                          const std::vector<ProblemRecord> &problems,
                          const contract::DeviceModel &device,
                          const ChooseOptions &options);

/// Coverage (after chooseFamily): kinds of problems the training set may
/// lack (C's sizes no multiple of the TMA store's unit, a GEMV's B of one
/// column, K in the hundreds of thousands) are given as probes, judged by
/// the fitted model alone: while the family's prediction on some probe is
/// worse than `coverFactor` times the best eligible candidate's, the
/// candidate that covers the most probes joins (eligible: measured, never
/// failing, fitted to `minCoverMeasurements`). Adds to `choice`.
void coverProbes(const std::vector<Candidate> &candidates,
                 const std::vector<ProblemRecord> &problems,
                 const std::vector<ProblemRecord> &probes,
                 const contract::DeviceModel &device,
                 const ChooseOptions &options, FamilyChoice &choice);

} // namespace gemmc::tuning

#endif // GEMMC_TUNING_CHOOSE_H
