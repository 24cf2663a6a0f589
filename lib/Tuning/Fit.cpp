//===- Fit.cpp - the cost model's constants from measurements -------------===//

#include "gemmc/Tuning/Fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace gemmc;
using namespace gemmc::tuning;
using contract::CostConstants;
using contract::CostFeatures;

namespace {
constexpr int kParams = CostConstants::kCount;
using Params = std::array<double, kParams>;

/// The problem: residuals log(predicted / measured), one per measurement,
/// and a prior residual per parameter, sqrt(weight) (theta - theta0).
/// A measurement where the candidate was not competitive (its log time
/// above `logBound`, the competitive factor times the fastest time) has
/// the residual sqrt(kUncompetitiveWeight) min(0, log(predicted) -
/// logBound): only a prediction that makes it competitive is an error.
struct Objective {
  std::vector<CostFeatures> features;
  std::vector<double> logMeasured;
  std::vector<double> logBound;
  Params prior;
  /// The pull towards the defaults, against a problem's squared log error.
  static constexpr double kPriorWeight = 1e-3;

  size_t residualCount() const { return features.size() + kParams; }

  /// The constants of the parameters (their logarithms).
  static CostConstants constantsOf(const Params &theta) {
    double values[kParams];
    for (int j = 0; j < kParams; ++j)
      values[j] = std::exp(theta[size_t(j)]);
    return CostConstants::fromArray(values);
  }

  void residuals(const Params &theta, std::vector<double> &out) const {
    CostConstants c = constantsOf(theta);
    out.resize(residualCount());
    const double farWeight = std::sqrt(kUncompetitiveWeight);
    for (size_t i = 0; i < features.size(); ++i) {
      double logPredicted = std::log(features[i].predict(c));
      out[i] = logMeasured[i] > logBound[i]
                   ? farWeight * std::min(0.0, logPredicted - logBound[i])
                   : logPredicted - logMeasured[i];
    }
    double w = std::sqrt(kPriorWeight);
    for (int j = 0; j < kParams; ++j)
      out[features.size() + size_t(j)] =
          w * (theta[size_t(j)] - prior[size_t(j)]);
  }

  double cost(const Params &theta) const {
    std::vector<double> r;
    residuals(theta, r);
    double sum = 0;
    for (double v : r)
      sum += v * v;
    return sum;
  }
};

/// Solves the kParams x kParams system `a x = b` (Gaussian elimination with
/// partial pivoting); false if singular.
bool solve(std::array<Params, kParams> a, Params b, Params &x) {
  for (int col = 0; col < kParams; ++col) {
    int pivot = col;
    for (int row = col + 1; row < kParams; ++row)
      if (std::fabs(a[size_t(row)][size_t(col)]) >
          std::fabs(a[size_t(pivot)][size_t(col)]))
        pivot = row;
    if (std::fabs(a[size_t(pivot)][size_t(col)]) < 1e-300)
      return false;
    std::swap(a[size_t(col)], a[size_t(pivot)]);
    std::swap(b[size_t(col)], b[size_t(pivot)]);
    for (int row = col + 1; row < kParams; ++row) {
      double f = a[size_t(row)][size_t(col)] / a[size_t(col)][size_t(col)];
      for (int k = col; k < kParams; ++k)
        a[size_t(row)][size_t(k)] -= f * a[size_t(col)][size_t(k)];
      b[size_t(row)] -= f * b[size_t(col)];
    }
  }
  for (int row = kParams - 1; row >= 0; --row) {
    double sum = b[size_t(row)];
    for (int k = row + 1; k < kParams; ++k)
      sum -= a[size_t(row)][size_t(k)] * x[size_t(k)];
    x[size_t(row)] = sum / a[size_t(row)][size_t(row)];
  }
  return true;
}
} // namespace

FitResult tuning::fitConstants(const contract::Contract &c,
                               const std::vector<Measurement> &measurements,
                               const contract::DeviceModel &device) {
  FitResult result;
  CostConstants defaults = c.hasCost
                               ? CostConstants::defaults(c.cost.unit)
                               : CostConstants::defaults(contract::Unit::Simt);
  result.constants = defaults;
  Objective objective;
  for (const Measurement &m : measurements) {
    if (!(m.seconds > 0))
      continue;
    objective.features.push_back(
        contract::costFeatures(c, m.problem, device, m.splits));
    objective.logMeasured.push_back(std::log(m.seconds));
    objective.logBound.push_back(
        m.fastest > 0 ? std::log(kCompetitiveFactor * m.fastest)
                      : std::numeric_limits<double>::infinity());
  }
  result.problems = objective.features.size();
  if (objective.features.empty())
    return result;
  double values[kParams];
  defaults.toArray(values);
  Params theta;
  for (int j = 0; j < kParams; ++j)
    theta[size_t(j)] = objective.prior[size_t(j)] = std::log(values[j]);
  // The log error where the candidate was competitive (all of them
  // without the fastest times).
  auto rms = [&](const Params &t) {
    CostConstants c = Objective::constantsOf(t);
    double sum = 0;
    size_t count = 0;
    for (size_t i = 0; i < objective.features.size(); ++i) {
      if (objective.logMeasured[i] > objective.logBound[i])
        continue;
      double e = std::log(objective.features[i].predict(c)) -
                 objective.logMeasured[i];
      sum += e * e;
      ++count;
    }
    return count ? std::sqrt(sum / double(count)) : 0.0;
  };
  result.rmsBefore = rms(theta);

  // Levenberg-Marquardt with a forward-difference Jacobian: a fixed number
  // of steps from the defaults, deterministic.
  double lambda = 1e-2, current = objective.cost(theta);
  std::vector<double> r, shifted;
  for (int iteration = 0; iteration < 200; ++iteration) {
    objective.residuals(theta, r);
    size_t n = r.size();
    std::vector<Params> jacobian(n);
    for (int j = 0; j < kParams; ++j) {
      Params t = theta;
      const double h = 1e-6;
      t[size_t(j)] += h;
      objective.residuals(t, shifted);
      for (size_t i = 0; i < n; ++i)
        jacobian[i][size_t(j)] = (shifted[i] - r[i]) / h;
    }
    std::array<Params, kParams> normal{};
    Params gradient{};
    for (size_t i = 0; i < n; ++i)
      for (int a = 0; a < kParams; ++a) {
        gradient[size_t(a)] -= jacobian[i][size_t(a)] * r[i];
        for (int b = 0; b < kParams; ++b)
          normal[size_t(a)][size_t(b)] +=
              jacobian[i][size_t(a)] * jacobian[i][size_t(b)];
      }
    bool improved = false;
    while (lambda < 1e12) {
      std::array<Params, kParams> damped = normal;
      for (int a = 0; a < kParams; ++a)
        damped[size_t(a)][size_t(a)] *= 1 + lambda;
      Params step{};
      if (solve(damped, gradient, step)) {
        Params next = theta;
        for (int a = 0; a < kParams; ++a)
          next[size_t(a)] += std::clamp(step[size_t(a)], -2.0, 2.0);
        double cost = objective.cost(next);
        if (cost < current) {
          improved = current - cost > 1e-12 * current;
          theta = next;
          current = cost;
          lambda = std::max(lambda / 10, 1e-9);
          break;
        }
      }
      lambda *= 10;
    }
    if (!improved)
      break;
  }
  for (int j = 0; j < kParams; ++j)
    values[j] = std::exp(theta[size_t(j)]);
  result.constants = CostConstants::fromArray(values);
  result.rmsAfter = rms(theta);
  return result;
}
