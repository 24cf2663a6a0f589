//===- Choose.cpp - a family's variants from measured candidates ----------===//

#include "gemmc/Tuning/Choose.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace gemmc;
using namespace gemmc::tuning;

namespace {
/// What a time the model predicts but nobody measured counts for.
constexpr double kUnmeasuredPenalty = 1.25;

/// Each candidate's predicted time on each problem (infinity where its
/// contract refuses it), with the splits of K the runtime would choose
/// where it takes them at launch (`splits`).
struct Predictions {
  std::vector<std::vector<double>> seconds;
  std::vector<std::vector<int64_t>> splits;
  const std::vector<double> &operator[](size_t c) const { return seconds[c]; }
};

Predictions predictAll(const std::vector<Candidate> &candidates,
                       const std::vector<ProblemRecord> &problems,
                       const contract::DeviceModel &device) {
  Predictions out;
  out.seconds.assign(candidates.size(),
                     std::vector<double>(
                         problems.size(),
                         std::numeric_limits<double>::infinity()));
  out.splits.assign(candidates.size(),
                    std::vector<int64_t>(problems.size(), 1));
  for (size_t c = 0; c < candidates.size(); ++c)
    for (size_t p = 0; p < problems.size(); ++p) {
      if (problems[p].refused[c])
        continue;
      const Candidate &candidate = candidates[c];
      const contract::Problem &problem = problems[p].problem;
      int64_t splits = contract::chooseSplits(candidate.contract, problem,
                                              device, candidate.constants);
      contract::CostFeatures f =
          contract::costFeatures(candidate.contract, problem, device, splits);
      out.seconds[c][p] = f.predict(candidate.constants);
      out.splits[c][p] = splits;
    }
  return out;
}

FamilyScore score(const std::vector<ProblemRecord> &problems,
                  const Predictions &predicted,
                  const std::vector<size_t> &variants,
                  const ChooseOptions &options) {
  FamilyScore s;
  s.choice.assign(problems.size(), -1);
  s.seconds.assign(problems.size(), NAN);
  s.ratio.assign(problems.size(), NAN);
  double logSum = 0;
  size_t counted = 0;
  double logFloor = std::log(options.floor);
  for (size_t p = 0; p < problems.size(); ++p) {
    // The rule of choice: the lowest predicted time, ties to the earlier
    // variant.
    int best = -1;
    for (size_t v : variants)
      if (std::isfinite(predicted[v][p]) &&
          (best < 0 || predicted[v][p] < predicted[size_t(best)][p]))
        best = int(v);
    s.choice[p] = best;
    if (best < 0) {
      ++s.refused;
      continue;
    }
    double seconds = problems[p].measuredAt(size_t(best),
                                            predicted.splits[size_t(best)][p]);
    if (!(seconds > 0)) {
      // Not measured there (gemm-bench --prune left it out): the
      // prediction, a quarter slower for the doubt.
      seconds = predicted[size_t(best)][p] * kUnmeasuredPenalty;
      ++s.predictedOnly;
    }
    s.seconds[p] = seconds;
    double ratio = problems[p].cublasSeconds / seconds;
    s.ratio[p] = ratio;
    double logRatio = std::log(ratio);
    logSum += logRatio;
    ++counted;
    s.score +=
        logRatio - options.floorWeight * std::max(0.0, logFloor - logRatio);
    if (counted == 1 || ratio < s.lowest) {
      s.lowest = ratio;
      s.lowestProblem = p;
    }
  }
  s.geomean = counted ? std::exp(logSum / double(counted)) : 0;
  // A refused problem counts as a hundredth of cuBLAS's speed.
  s.score += double(s.refused) * (std::log(0.01) * (1 + options.floorWeight));
  s.score /= double(std::max<size_t>(problems.size(), 1));
  return s;
}
} // namespace

/// The candidates that failed verification on some problem.
static std::vector<bool>
failingCandidates(const std::vector<ProblemRecord> &problems) {
  std::vector<bool> failing;
  for (const ProblemRecord &r : problems) {
    failing.resize(std::max(failing.size(), r.failed.size()), false);
    for (size_t c = 0; c < r.failed.size(); ++c)
      if (r.failed[c])
        failing[c] = true;
  }
  return failing;
}

std::vector<Measurement>
tuning::measurementsOf(const std::vector<ProblemRecord> &problems,
                       size_t candidate) {
  // The fastest of the candidates that never failed (those a family may
  // hold) and that take the problem (a retargeted candidate's contract may
  // refuse what it was measured on).
  std::vector<bool> failing = failingCandidates(problems);
  std::vector<Measurement> out;
  for (const ProblemRecord &r : problems) {
    if (!(r.seconds[candidate] > 0))
      continue;
    // Each candidate's fastest measurement, at any count of splits.
    auto fastestOf = [&](size_t c) {
      double fastest = r.seconds[c];
      if (c < r.atSplits.size())
        for (const auto &[count, seconds] : r.atSplits[c])
          fastest = std::min(fastest, seconds);
      return fastest;
    };
    double fastest = fastestOf(candidate);
    for (size_t c = 0; c < r.seconds.size(); ++c)
      if (r.seconds[c] > 0 && !(c < failing.size() && failing[c]) &&
          !(c < r.refused.size() && r.refused[c]))
        fastest = std::min(fastest, fastestOf(c));
    // One measurement a count of splits it ran at.
    if (candidate < r.atSplits.size() && !r.atSplits[candidate].empty()) {
      for (const auto &[count, seconds] : r.atSplits[candidate])
        out.push_back({r.problem, seconds, count, fastest});
      continue;
    }
    int64_t splits = candidate < r.splits.size() ? r.splits[candidate] : 1;
    out.push_back({r.problem, r.seconds[candidate], splits, fastest});
  }
  return out;
}

double ProblemRecord::measuredAt(size_t c, int64_t count) const {
  if (c < atSplits.size() && atSplits[c].size() > 1) {
    auto at = atSplits[c].find(count);
    return at == atSplits[c].end() ? NAN : at->second;
  }
  return seconds[c];
}

FamilyScore tuning::scoreFamily(const std::vector<Candidate> &candidates,
                                const std::vector<ProblemRecord> &problems,
                                const std::vector<size_t> &variants,
                                const contract::DeviceModel &device,
                                const ChooseOptions &options) {
  return score(problems, predictAll(candidates, problems, device), variants,
               options);
}

/// Candidates that may join a family: measured on some problem, never
/// failing on one.
static std::vector<bool>
eligibleCandidates(const std::vector<Candidate> &candidates,
                   const std::vector<ProblemRecord> &problems) {
  std::vector<bool> eligible(candidates.size(), false);
  for (const ProblemRecord &p : problems)
    for (size_t c = 0; c < candidates.size(); ++c)
      if (p.seconds[c] > 0)
        eligible[c] = true;
  std::vector<bool> failing = failingCandidates(problems);
  for (size_t c = 0; c < candidates.size() && c < failing.size(); ++c)
    if (failing[c])
      eligible[c] = false;
  return eligible;
}

void tuning::coverProbes(const std::vector<Candidate> &candidates,
                         const std::vector<ProblemRecord> &problems,
                         const std::vector<ProblemRecord> &probes,
                         const contract::DeviceModel &device,
                         const ChooseOptions &options, FamilyChoice &choice) {
  if (probes.empty() || choice.variants.empty())
    return;
  std::vector<bool> eligible = eligibleCandidates(candidates, problems);
  for (size_t c = 0; c < candidates.size(); ++c)
    if (candidates[c].measurements < options.minCoverMeasurements)
      eligible[c] = false;
  Predictions predicted = predictAll(candidates, probes, device);
  auto familyBest = [&](size_t p) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t v : choice.variants)
      best = std::min(best, predicted[v][p]);
    return best;
  };
  // The training problems as the family stands: a candidate that joins
  // for the probes must not take training problems to slower kernels (the
  // model ranks it first there as well, and a cover variant of 128x256
  // split-K tiles, fitted to 1024x1024x100000, took 11 training problems
  // at 0.56-0.86x cuBLAS where stream-K ran them at 0.9x).
  Predictions trained = predictAll(candidates, problems, device);
  double trainingScore =
      score(problems, trained, choice.variants, options).score;
  std::vector<double> bestPossible(probes.size(),
                                   std::numeric_limits<double>::infinity());
  for (size_t c = 0; c < candidates.size(); ++c)
    if (eligible[c])
      for (size_t p = 0; p < probes.size(); ++p)
        bestPossible[p] = std::min(bestPossible[p], predicted[c][p]);
  for (size_t added = 0; added < options.maxCoverVariants; ++added) {
    // The candidate that brings the most uncovered probes within the
    // factor (ties: the larger gain in log time).
    int best = -1;
    size_t bestCount = 0;
    double bestGain = 0;
    std::string bestReason;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (!eligible[c] ||
          std::find(choice.variants.begin(), choice.variants.end(), c) !=
              choice.variants.end())
        continue;
      size_t count = 0;
      double gain = 0;
      std::string reason;
      for (size_t p = 0; p < probes.size(); ++p) {
        double have = familyBest(p);
        if (!(have > options.coverFactor * bestPossible[p]))
          continue;
        if (predicted[c][p] <= options.coverFactor * bestPossible[p]) {
          ++count;
          gain += std::isfinite(have) ? std::log(have / predicted[c][p]) : 10;
          reason += (reason.empty() ? "" : ", ") + probes[p].label;
        }
      }
      if (!count || count < bestCount ||
          (count == bestCount && gain <= bestGain))
        continue;
      std::vector<size_t> family = choice.variants;
      family.push_back(c);
      if (score(problems, trained, family, options).score <
          trainingScore - options.maxCoverLoss)
        continue;
      best = int(c);
      bestCount = count;
      bestGain = gain;
      bestReason = reason;
    }
    if (best < 0)
      break;
    choice.variants.push_back(size_t(best));
    trainingScore = score(problems, trained, choice.variants, options).score;
    choice.coverVariants.push_back(size_t(best));
    choice.coverReasons.push_back(bestReason);
  }
  // The training score of the family with its cover.
  choice.score = score(problems, trained, choice.variants, options);
}

FamilyChoice tuning::chooseFamily(const std::vector<Candidate> &candidates,
                                  const std::vector<ProblemRecord> &problems,
                                  const contract::DeviceModel &device,
                                  const ChooseOptions &options) {
  FamilyChoice choice;
  Predictions predicted = predictAll(candidates, problems, device);
  // A candidate joins only if it was measured on some problem, and never
  // if it failed on one.
  std::vector<bool> eligible = eligibleCandidates(candidates, problems);
  // First the best candidate that takes every problem: the family's
  // fallback, which the compiler asks for.
  double bestScore = -std::numeric_limits<double>::infinity();
  int fallback = -1;
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (!eligible[c] || !candidates[c].takesAnyProblem)
      continue;
    FamilyScore s = score(problems, predicted, {c}, options);
    if (s.score > bestScore) {
      bestScore = s.score;
      fallback = int(c);
    }
  }
  if (fallback < 0)
    return choice;
  choice.variants.push_back(size_t(fallback));
  choice.score = score(problems, predicted, choice.variants, options);
  choice.geomeans.push_back(choice.score.geomean);
  while (choice.variants.size() < options.maxVariants) {
    int best = -1;
    FamilyScore bestFamily;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (!eligible[c] ||
          std::find(choice.variants.begin(), choice.variants.end(), c) !=
              choice.variants.end())
        continue;
      std::vector<size_t> family = choice.variants;
      family.push_back(c);
      FamilyScore s = score(problems, predicted, family, options);
      if (best < 0 || s.score > bestFamily.score) {
        best = int(c);
        bestFamily = s;
      }
    }
    if (best < 0 || bestFamily.score - choice.score.score < options.minGain)
      break;
    choice.variants.push_back(size_t(best));
    choice.score = bestFamily;
    choice.geomeans.push_back(bestFamily.geomean);
  }
  return choice;
}
