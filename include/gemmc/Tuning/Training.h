//===- Training.h - the training problems and their measurements -*- C++ -*-===//
//
// gemmc-tune select reads the training problems (a shapes file) and every
// outcome the tuning results hold for them (gemm-bench --results): a
// problem record per shape, with cuBLAS's time and each candidate's time,
// splits, refusal and failure, which the fit (Fit.h) and the choice
// (Choose.h) take. docs/tuning.md.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TUNING_TRAINING_H
#define GEMMC_TUNING_TRAINING_H

#include "gemmc-contract/Results.h"
#include "gemmc-contract/Shapes.h"
#include "gemmc/Tuning/Choose.h"

#include <vector>

namespace gemmc::tuning {

/// A problem of the tuned problem's kind (`tuned`) with `shape`'s sizes,
/// leading dimensions and batch, nothing measured yet; each candidate's
/// contract asked whether it takes it.
ProblemRecord recordOf(const std::vector<Candidate> &candidates,
                       const contract::Problem &tuned,
                       const contract::Shape &shape);

struct TrainingData {
  /// The problems cuBLAS was timed on, in the shapes' order (each label
  /// once).
  std::vector<ProblemRecord> problems;
  /// Result rows of these problems and candidates; problems never timed.
  size_t rows = 0, unmeasured = 0;
};

/// The training problems of `shapes` and every outcome in `results` for
/// them (rows of other problems or candidates are not looked at). Rows
/// from several runs: cuBLAS's time in the first stands for the
/// problem's, and each row's time is scaled by it over the cuBLAS time of
/// its own run, so that a candidate keeps the ratio to cuBLAS it measured
/// in its process.
TrainingData readTraining(const std::vector<Candidate> &candidates,
                          const contract::Problem &tuned,
                          const std::vector<contract::Shape> &shapes,
                          const std::vector<contract::ResultRow> &results);

/// Each candidate's constants fitted to its own measurements (with the
/// fastest candidate's time on each problem; Fit.h), set on the candidate
/// with the count of measurements; the fits returned.
std::vector<FitResult> fitCandidates(std::vector<Candidate> &candidates,
                                     const std::vector<ProblemRecord> &problems,
                                     const contract::DeviceModel &device);

} // namespace gemmc::tuning

#endif // GEMMC_TUNING_TRAINING_H
