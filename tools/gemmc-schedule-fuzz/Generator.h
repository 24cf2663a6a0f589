//===- Generator.h - random schedules over the whole language --*- C++ -*-===//
//
// Draws schedule files over every problem statement and directive of
// docs/dsl.md. Each draw follows the language's rules where a free choice
// would almost always break them (thread counts, tile multiples, fragment
// shapes, vector widths that divide what they must), and leaves the rest
// to chance, so that most schedules pass the checks and the rest exercise
// the diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TOOLS_SCHEDULE_FUZZ_GENERATOR_H
#define GEMMC_TOOLS_SCHEDULE_FUZZ_GENERATOR_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gemmc::fuzz {

struct GeneratorOptions {
  /// Largest static size M, N or K drawn (tails included).
  int64_t maxSize = 640;
  /// Also draw Hopper's warpgroup schedules (a fifth of them): for sm_90a.
  bool hopper = false;
  /// Draw only Hopper's warpgroup schedules (with `hopper`).
  bool hopperOnly = false;
};

/// One random schedule file whose kernel is called `name`.
std::string generateSchedule(std::mt19937_64 &rng, const std::string &name,
                             const GeneratorOptions &options);

/// A kernel family named `name` from schedule files of one problem whose
/// sizes are all given at launch (generateSchedule's format): a variant of
/// each one's directives, all but the last with random `when` conditions,
/// and a last variant of the first's directives without `vectorize`
/// (scalar accesses, for every leading dimension), or a plain schedule
/// where the first copies with TMA, cp.async or a swizzle.
std::string composeFamily(std::mt19937_64 &rng, const std::string &name,
                          const std::vector<std::string> &schedules);

} // namespace gemmc::fuzz

#endif // GEMMC_TOOLS_SCHEDULE_FUZZ_GENERATOR_H
