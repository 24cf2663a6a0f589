//===- Draw.h - the schedule fuzzer's random choices ------------*- C++ -*-===//
//
// Private to the schedule fuzzer: random choices from one generator, the
// element kinds drawn, and the Hopper schedules' generator
// (HopperSchedule.cpp) that Generator.cpp calls.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TOOLS_SCHEDULE_FUZZ_DRAW_H
#define GEMMC_TOOLS_SCHEDULE_FUZZ_DRAW_H

#include "Generator.h"

#include <initializer_list>

namespace gemmc::fuzz {

/// Random choices from one generator.
class Draw {
public:
  explicit Draw(std::mt19937_64 &rng) : rng(rng) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  template <typename T> T pick(const std::vector<T> &from) {
    return from[size_t(uniform(0, int64_t(from.size()) - 1))];
  }
  template <typename T> T pick(std::initializer_list<T> from) {
    return pick(std::vector<T>(from));
  }

private:
  std::mt19937_64 &rng;
};

enum class Kind { Simt, F16, BF16, TF32 };

/// The element type's name in the DSL.
inline const char *elementName(Kind kind) {
  switch (kind) {
  case Kind::F16:
    return "f16";
  case Kind::BF16:
    return "bf16";
  default:
    return "f32";
  }
}

/// The streams a Hopper schedule draws its later additions from, each its
/// own so that what earlier seeds drew stays: the operands the producer's
/// threads copy, deep K steps and pipelines, batches, and what came after
/// (FP8, the activations' kinds), and the epilogue's R (`residual = add`)
/// and scales of 16- and 32-bit inputs.
struct SideDraws {
  Draw &side, &deep, &batch, &extra, &groups, &epilogue, &registers;
  /// The general form of a grouped GEMM (`ptr-array`).
  Draw &table;
  /// Ping-pong consumers (`warp-specialize 2 ping-pong`).
  Draw &pingPong;
  /// The amax of C (`amax = c`), then C's scale (`output-scale`).
  Draw &amax;
};

/// An activation: ReLU half the time, else GELU (either form) or SiLU.
inline const char *drawActivation(Draw &d) {
  return d.pick({"relu", "relu", "relu", "gelu", "gelu-tanh", "silu"});
}

/// A schedule for Hopper's warpgroup kernel (sm_90a); HopperSchedule.cpp.
std::string generateHopper(Draw &d, SideDraws sides, const std::string &name,
                           const GeneratorOptions &options);

} // namespace gemmc::fuzz

#endif // GEMMC_TOOLS_SCHEDULE_FUZZ_DRAW_H
