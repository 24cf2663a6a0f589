//===- Autotune.h - a family's choice measured on the GPU ---------------===//
//
// The cost model ranks a family's variants for a problem it has not seen;
// where the first few lie close, its choice may be 10-40% off the fastest
// (docs/selection.md, "What the model does not know"). A measured choice
// times the model's first few candidates on the caller's operands, once
// per problem, and takes the fastest: what cuBLASLt's users do with its
// heuristic's list, and torch.compile's max-autotune with its kernels.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_AUTOTUNE_H
#define GEMMC_RT_AUTOTUNE_H

#include "gemmc-rt/Launch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gemmc::rt {

/// Which of the model's candidates a measured choice times, and how.
struct AutotuneOptions {
  /// At most this many variants, the model's first, each at the splits of
  /// K the model gives it.
  int candidates = 3;
  /// Only those predicted within this factor of the first's time: the
  /// model's errors on unseen problems are tens of percent, not times.
  double within = 1.5;
  /// Launches a round (timed together between two events, so that the
  /// GPU runs them back to back, as a stream of calls does), and rounds,
  /// each candidate's in turn (the median's): after one launch of each
  /// candidate as a warm-up.
  int launches = 4;
  int rounds = 5;
  /// Another candidate displaces the model's first only where it ran
  /// faster by more than this share (within it, two kernels' times are
  /// the measurement's noise, and the model's order stands).
  double margin = 0.02;
};

/// One candidate of a measured choice.
struct MeasuredVariant {
  /// Its place in the family and the splits of K it ran.
  size_t index = 0;
  int64_t splits = 1;
  double predictedMs = 0;
  /// The median round's time a launch; 0 where it was not measured.
  double measuredMs = 0;
};

/// The variants a measured choice times for `problem`, from the model's
/// ranking (rankVariants, in its order): none where the ranking has no
/// runnable variant, the override alone where one holds (a user's `when`
/// is not second-guessed), else the first `candidates` runnable ones
/// predicted within `within` of the first. Needs no GPU.
std::vector<MeasuredVariant>
autotuneCandidates(const std::vector<RankedVariant> &ranking,
                   const AutotuneOptions &options);

/// The choice among measured candidates: the fastest where it ran faster
/// than the model's first (the list's) by more than `margin`, else the
/// model's first (also where none was measured). The list must not be
/// empty.
const MeasuredVariant &
fastestMeasured(const std::vector<MeasuredVariant> &measured,
                double margin = AutotuneOptions().margin);

/// Times `family`'s candidates for `problem` (autotuneCandidates) on
/// `stream` with `operands`, and returns them, measured, in the model's
/// order; empty where no variant takes the problem. C (and the amax) are
/// written to buffers of the measurement's own: the caller's are untouched
/// and only read (A, B, the bias, R, the scales). Waits for `stream`.
/// Throws UsageError while `stream` is being captured into a CUDA graph
/// (a measurement must run), and for a grouped family (whose variants
/// are chosen by the rows a group).
std::vector<MeasuredVariant> measureChoice(const KernelFamily &family,
                                           const Problem &problem,
                                           const Operands &operands,
                                           CUstream stream,
                                           const AutotuneOptions &options);

/// One line: each candidate's entry, splits and time, `chosen` first.
std::string describeMeasured(const KernelFamily &family,
                             const std::vector<MeasuredVariant> &measured,
                             const MeasuredVariant &chosen);

} // namespace gemmc::rt

#endif // GEMMC_RT_AUTOTUNE_H
