//===- Space.h - the schedules gemmc-tune measures -------------*- C++ -*-===//
//
// The candidates of a tuning run: schedules drawn from the schedule model
// for one problem whose sizes are given at launch, in parts (a main space
// of block, warp and register tiles; skinny tiles; a narrow B; long K;
// split tf32; Hopper's warp-specialised kernel at every tile and split;
// kernels whose splits of K the launch chooses),
// each kept where checkSchedule accepts it without a warning (a part may
// keep schedules near the register cap for ptxas to judge).
// docs/tuning.md lists the parts.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TUNING_SPACE_H
#define GEMMC_TUNING_SPACE_H

#include "gemmc/Schedule/Schedule.h"

#include <string>
#include <vector>

namespace gemmc::tuning {

/// A schedule of the space, checked.
struct SpaceCandidate {
  /// `<type>_<part><index>`, e.g. f16_w3.
  std::string name;
  Schedule schedule;
  ScheduleFacts facts;
  /// The candidate computes f32 as tf32x3 (the split-tf32 part).
  bool tf32x3 = false;
  /// Its register estimate comes within the tuner's margin of the cap, in
  /// a part that keeps such schedules for ptxas to judge (`_gw`):
  /// gemmc-tune keeps it only where ptxas assembles it without a spill.
  bool nearCap = false;
};

/// The tuned problem: sizes at launch, A, B and C of `type` in `layouts`
/// (three of 'r' and 'c', for A, B and C), f32 accumulation.
Problem tunedProblem(ElementType type, llvm::StringRef layouts);

struct SpaceCounts {
  /// Schedules drawn; legal without a warning, their register estimate
  /// clear of the cap; kept near the cap for ptxas to judge.
  size_t drawn = 0, legal = 0, nearCap = 0;
};

/// The candidates for `problem` on `target`: a spread of `limit` over the
/// main space (0: all), of a third as many over the skinny part, half as
/// many over the narrow-B, long-K and split-tf32 parts, and all of
/// Hopper's parts where the target has wgmma.
std::vector<SpaceCandidate> enumerateCandidates(const Problem &problem,
                                                const Arch &target,
                                                size_t limit,
                                                SpaceCounts &counts);

/// The schedule file of a candidate: its problem (`problem`, with math =
/// tf32x3 for that part) and its directives.
std::string scheduleFile(const std::string &name, const Problem &problem,
                         const Schedule &schedule, bool tf32x3);

} // namespace gemmc::tuning

#endif // GEMMC_TUNING_SPACE_H
