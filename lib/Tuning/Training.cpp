//===- Training.cpp - the training problems and their measurements --------===//

#include "gemmc/Tuning/Training.h"

#include "llvm/Support/Path.h"

#include <cmath>
#include <map>

using namespace gemmc;
using namespace gemmc::tuning;
namespace ct = gemmc::contract;

ProblemRecord tuning::recordOf(const std::vector<Candidate> &candidates,
                               const ct::Problem &tuned,
                               const ct::Shape &shape) {
  ProblemRecord r;
  r.label = shape.label();
  r.problem = tuned;
  r.problem.tf32 = r.problem.tf32x3 = false;
  // One GEMM, or the shape's dense batch.
  r.problem.batch = shape.batch ? shape.batch : 1;
  r.problem.strideA = r.problem.strideB = r.problem.strideC = 0;
  r.problem.m = shape.size.m, r.problem.n = shape.size.n;
  r.problem.k = shape.size.k;
  r.problem.lda = shape.lda, r.problem.ldb = shape.ldb;
  r.problem.ldc = shape.ldc;
  r.cublasSeconds = NAN;
  r.seconds.assign(candidates.size(), NAN);
  r.splits.assign(candidates.size(), 1);
  r.refused.assign(candidates.size(), false);
  r.atSplits.assign(candidates.size(), {});
  r.failed.assign(candidates.size(), false);
  for (size_t c = 0; c < candidates.size(); ++c) {
    std::string why;
    r.refused[c] = !ct::accepts(candidates[c].contract, r.problem, why);
  }
  return r;
}

TrainingData tuning::readTraining(const std::vector<Candidate> &candidates,
                                  const ct::Problem &tuned,
                                  const std::vector<ct::Shape> &shapes,
                                  const std::vector<ct::ResultRow> &results) {
  std::map<std::string, size_t> byName;
  for (size_t c = 0; c < candidates.size(); ++c)
    byName[candidates[c].name] = c;
  std::map<std::string, size_t> problemIndex;
  std::vector<ProblemRecord> problems;
  for (const ct::Shape &shape : shapes) {
    if (problemIndex.count(shape.label()))
      continue;
    problemIndex[shape.label()] = problems.size();
    problems.push_back(recordOf(candidates, tuned, shape));
  }
  TrainingData data;
  for (const ct::ResultRow &row : results) {
    auto p = problemIndex.find(row.problem);
    std::string name = llvm::sys::path::stem(row.fileName()).str();
    auto c = byName.find(name);
    if (p == problemIndex.end() || c == byName.end())
      continue;
    ProblemRecord &r = problems[p->second];
    ++data.rows;
    // cuBLAS's own times moved by 0.54-1.39x between two runs of the f16
    // training problems (0.91x overall): each row keeps its run's ratio.
    if (row.cublasMs > 0 && !(r.cublasSeconds > 0))
      r.cublasSeconds = row.cublasMs * 1e-3;
    double scale = row.cublasMs > 0 ? r.cublasSeconds / (row.cublasMs * 1e-3)
                                    : 1.0;
    if (row.status == "FAIL")
      r.failed[c->second] = true;
    else if (row.status == "SKIP")
      r.refused[c->second] = true;
    else if (row.passed()) {
      double seconds = row.ms * 1e-3 * scale;
      int64_t splits = std::max<int64_t>(row.splits, 1);
      // A later row stands for an earlier one (a candidate measured again).
      r.seconds[c->second] = seconds;
      r.splits[c->second] = splits;
      r.atSplits[c->second].insert_or_assign(splits, seconds);
    }
  }
  // Problems cuBLAS did not time (not measured at all) are left out.
  for (ProblemRecord &r : problems) {
    if (r.cublasSeconds > 0)
      data.problems.push_back(std::move(r));
    else
      ++data.unmeasured;
  }
  return data;
}

std::vector<FitResult>
tuning::fitCandidates(std::vector<Candidate> &candidates,
                      const std::vector<ProblemRecord> &problems,
                      const ct::DeviceModel &device) {
  std::vector<FitResult> fits(candidates.size());
  for (size_t c = 0; c < candidates.size(); ++c) {
    fits[c] = fitConstants(candidates[c].contract, measurementsOf(problems, c),
                           device);
    candidates[c].constants = fits[c].constants;
    candidates[c].measurements = fits[c].problems;
  }
  return fits;
}
