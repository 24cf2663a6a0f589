//===- Cost.h - the predicted time of a kernel, and the rule of choice ----===//
//
// A kernel family holds several variants of one problem; the runtime runs
// each problem on the variant with the lowest predicted time among those
// whose contract takes it (docs/selection.md). The prediction is an
// analytic model of the kernel on the device:
//
//   t = fixed + latency * waves + max(compute * Tc, memory * Tm)
//         + reduce * Tr
//
// where, for the variant's block tile BM x BN x BK, S splits of K and a
// problem of M x N x K (a batch of b):
//
//   units  U  = ceil(M / BM) ceil(N / BN) b S   (blocks' worth of work)
//   waves     = ceil(U / (SMs x occupancy))     (generations of blocks)
//   rounds    = ceil(U / SMs)                   (units one SM works through)
//   kU        = ceil(ceil(K / BK) / S) BK       (K of one unit)
//   Tc = rounds x max(2 BM BN kU / peak FLOP/s of an SM,
//                     (BM + BN) kU e / operand feed of an SM)
//   Tm = (M K eA + K N eB + M N eC (2 with beta)) b / memory bandwidth
//        (a SIMT kernel's x simtMemoryFactor: the bandwidth its waves draw)
//   Tr = max(S M N b 8 / memory bandwidth,      (split-K's partials)
//            ceil(tiles / SMs) S min(BM, M) min(BN, N) 4
//              / operand feed of an SM)         (the last block's sum)
//
// A kernel whose splits are chosen at launch (`split-k ?`) runs each
// problem with the count of the lowest predicted time (chooseSplits).
//
// The five constants (microseconds for `fixed` and `latency`,
// dimensionless multipliers for the rest) are a variant's own: fitted by
// gemmc-tune from measurements and stated in the contract's `cost:` line,
// or the defaults of its unit. This library holds the model and the rule;
// the tuner fits, the runtime and `gemm-bench --explain` ask.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_CONTRACT_COST_H
#define GEMMC_CONTRACT_COST_H

#include "gemmc-contract/Contract.h"

#include <functional>
#include <string>
#include <vector>

namespace gemmc::contract {

/// What the model knows of the device.
struct DeviceModel {
  std::string name = "H200 (assumed: 132 SMs, 1.98 GHz, 4.8 TB/s)";
  /// Compute capability.
  int major = 9, minor = 0;
  int64_t multiprocessors = 132;
  /// The multiprocessors' clock, in GHz.
  double clockGHz = 1.98;
  /// Memory bandwidth, bytes per second (the datasheet's).
  double memoryBandwidth = 4.8e12;
  /// The least time, in seconds, between a stage's loads leaving a block
  /// and its tiles landing in shared memory, under load, where they come
  /// from memory and where L2 holds them: the lower envelopes of the
  /// measured times over the pipelines' stages (docs/selection.md).
  double memoryLatency = 0.55e-6, l2Latency = 0.4e-6;

  /// The devices `gemm-bench --explain --device-model NAME` knows: `h200`,
  /// `h100` (SXM), `a100`. False for another name.
  static bool named(const std::string &name, DeviceModel &model);
  /// Peak dense FLOP/s of one multiprocessor on `unit` for `problem`'s
  /// inputs (FP32 lanes, or tensor cores in f16/bf16, tf32, or tf32x3's
  /// three products).
  double peakPerMultiprocessor(Unit unit, const Problem &problem) const;
  /// Bytes per second one multiprocessor can be fed from L2.
  double feedPerMultiprocessor() const;
};

/// A variant's constants: fitted, or its unit's defaults.
struct CostConstants {
  double fixed = 4, latency = 1.5, compute = 1.25, memory = 1.15, reduce = 1.5;

  static CostConstants defaults(Unit unit);
  static CostConstants of(const Contract &contract);
  /// The constants as an array, in the order of the `cost:` line.
  static constexpr int kCount = 5;
  void toArray(double out[kCount]) const;
  static CostConstants fromArray(const double in[kCount]);
};

/// The model's terms for one variant and problem: the counts and the
/// ideal times, in seconds, before the constants.
struct CostFeatures {
  int64_t units = 0, waves = 0, rounds = 0;
  double compute = 0, memory = 0, reduce = 0;
  /// The pipeline's bound, in seconds (no constant scales it): one block's
  /// K steps, each waiting for its tiles, stages - 1 of them in flight.
  double pipeline = 0;

  /// The predicted time, in seconds.
  double predict(const CostConstants &constants) const;
};

/// A SIMT kernel's memory time over the compulsory traffic at full
/// bandwidth, for `units` blocks on `sms` multiprocessors of `occupancy`
/// blocks each: each wave's share of the bytes over the part of the
/// bandwidth its blocks draw (a multiprocessor with one block resident
/// draws three quarters of its share, with two or more all of it; one
/// left idle, none). 1 for full waves of two or more blocks a
/// multiprocessor; 132 x 4/3 for one block on an H200.
double simtMemoryFactor(int64_t units, int64_t sms, int64_t occupancy);

/// Stream-K (`persistent stream-k`): the pieces along K that each of the
/// `tiles` tiles left after the grid's full rounds is cut into, a block
/// each, with `steps` K steps a tile on a grid of `blocks`: as many as the
/// blocks allow and at most the largest s <= 8 with 2 s^2 <= steps (a
/// piece's time against the partials its tile's last block sums), then as
/// many pieces of ceil(steps / s) steps as that takes. The kernel cuts
/// them so (Warpgroup/Kernel.cpp, buildStreamKShare).
int64_t streamKPieces(int64_t tiles, int64_t steps, int64_t blocks);

/// The terms of `contract`'s kernel on `problem` (which it takes) on
/// `device`, with the blocks a multiprocessor holds that its contract
/// states, and `splits` splits of K where the kernel takes them at launch
/// (a static count is the contract's own).
CostFeatures costFeatures(const Contract &contract, const Problem &problem,
                          const DeviceModel &device, int64_t splits = 1);

/// The splits a launch of `contract` on `problem` takes: where they are
/// chosen at launch, of the counts it may take (Contract::maxSplits) among
/// 1, 2, 3, 4, 6, 8, 12, ... 256, each lowered to the fewest splits of the
/// same K steps apiece (no split left empty), the one with the lowest
/// predicted time with `constants` (ties to the fewer); the contract's own
/// count otherwise (1 without split-K).
int64_t chooseSplits(const Contract &contract, const Problem &problem,
                     const DeviceModel &device,
                     const CostConstants &constants);

/// The counts of splits chooseSplits weighs for `contract` on `problem`,
/// fewest first: the contract's own count where it is static.
std::vector<int64_t> splitCounts(const Contract &contract,
                                 const Problem &problem);

/// One variant, as the rule of choice sees it.
struct RankedVariant {
  size_t index = 0;
  /// Why the variant cannot run the problem (empty: it can).
  std::string whyNot;
  /// A `when` other than `any` that holds: the variant overrides the
  /// model.
  bool overrides = false;
  CostFeatures features;
  CostConstants constants;
  /// The splits of K it runs with (chooseSplits).
  int64_t splits = 1;
  double seconds = 0;
};

/// Asked per variant: why it cannot run the problem (by default
/// `accepts`).
using WhyNot = std::function<std::string(size_t)>;

/// Every variant in the order of choice: those that run the problem first
/// (overrides in their order, then by predicted time, ties in their
/// order), then the others with their reasons.
std::vector<RankedVariant> rankVariants(const std::vector<Contract> &variants,
                                        const Problem &problem,
                                        const DeviceModel &device,
                                        const WhyNot &whyNot = nullptr);

/// The rule of choice (docs/selection.md): the first variant, in order,
/// whose `when` is not `any` and holds the problem's sizes and that takes
/// it (an explicit override); else, of the variants for any size that take
/// it, the one with the lowest predicted time. Returns its index, or -1
/// with `why` giving each variant's reason.
int selectVariant(const std::vector<Contract> &variants, const Problem &problem,
                  const DeviceModel &device, std::string &why,
                  const WhyNot &whyNot = nullptr);

} // namespace gemmc::contract

#endif // GEMMC_CONTRACT_COST_H
