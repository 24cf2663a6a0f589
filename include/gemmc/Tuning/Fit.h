//===- Fit.h - the cost model's constants from measurements ----*- C++ -*-===//
//
// gemmc-tune measures each candidate on the training problems; the cost
// model (gemmc-contract/Cost.h) then takes five constants per variant
// from those measurements: the ones that minimise the squared error of
// the logarithm of the predicted time, so that a variant is fitted by its
// relative error on small and large problems alike, with a weak pull
// towards the unit's defaults for constants the problems do not tell
// (a variant that never splits K says nothing of `reduce`). A problem
// where the candidate ran far slower than the fastest candidate counts
// only one way, and less: the model must not predict it competitive
// there, and how slow it is does not change a choice.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TUNING_FIT_H
#define GEMMC_TUNING_FIT_H

#include "gemmc-contract/Cost.h"

#include <vector>

namespace gemmc::tuning {

/// A candidate's measured time on one problem (with `splits` splits of K
/// where it takes them at launch), and the fastest candidate's time there
/// (0: unknown, the time counts both ways).
struct Measurement {
  contract::Problem problem;
  double seconds = 0;
  int64_t splits = 1;
  double fastest = 0;
};

/// A candidate is competitive on a problem where it ran within this factor
/// of the fastest candidate; elsewhere its prediction is asked only not to
/// fall below this factor times the fastest time, with
/// `kUncompetitiveWeight` of a competitive problem's weight. Chosen by
/// cross-validation on the training problems (benchmarks/select-cv.sh,
/// docs/selection.md).
constexpr double kCompetitiveFactor = 1.3;
constexpr double kUncompetitiveWeight = 0.3;

struct FitResult {
  contract::CostConstants constants;
  /// The root mean square of log(predicted / measured) over the problems
  /// where the candidate was competitive, before and after the fit (with
  /// the unit's defaults, and fitted).
  double rmsBefore = 0, rmsAfter = 0;
  size_t problems = 0;
};

/// The constants of `contract`'s kernel that fit `measurements` on
/// `device` (Levenberg-Marquardt on their logarithms, from the unit's
/// defaults). With no measurement, the defaults.
FitResult fitConstants(const contract::Contract &contract,
                       const std::vector<Measurement> &measurements,
                       const contract::DeviceModel &device);

} // namespace gemmc::tuning

#endif // GEMMC_TUNING_FIT_H
