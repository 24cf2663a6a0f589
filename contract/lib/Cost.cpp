//===- Cost.cpp - the predicted time of a kernel, and the rule of choice --===//

#include "gemmc-contract/Cost.h"

#include <algorithm>
#include <cmath>

using namespace gemmc::contract;

bool DeviceModel::named(const std::string &name, DeviceModel &model) {
  model = DeviceModel();
  if (name == "h200") {
    model.name = "H200 (assumed: 132 SMs, 1.98 GHz, 4.8 TB/s)";
    return true;
  }
  if (name == "h100") {
    model.name = "H100 SXM (assumed: 132 SMs, 1.98 GHz, 3.35 TB/s)";
    model.memoryBandwidth = 3.35e12;
    return true;
  }
  if (name == "a100") {
    model.name = "A100 SXM (assumed: 108 SMs, 1.41 GHz, 2.04 TB/s)";
    model.major = 8;
    model.multiprocessors = 108;
    model.clockGHz = 1.41;
    model.memoryBandwidth = 2.04e12;
    return true;
  }
  return false;
}

double DeviceModel::peakPerMultiprocessor(Unit unit,
                                          const Problem &problem) const {
  double perClock;
  if (unit == Unit::Simt) {
    // FP32 lanes x 2 (an FMA is two operations): 128 lanes from sm_86 on,
    // 64 on sm_80.
    perClock = major == 8 && minor == 0 ? 128 : 256;
  } else {
    // Dense f16/bf16 tensor-core operations per clock; tf32 half of it.
    perClock = major >= 9 ? 4096 : major == 8 && minor == 0 ? 2048 : 1024;
    if (problem.a == DType::F32)
      perClock /= problem.tf32x3 ? 6 : 2;
  }
  return perClock * clockGHz * 1e9;
}

double DeviceModel::feedPerMultiprocessor() const {
  // Operand bytes a multiprocessor draws from L2 per clock.
  return 48 * clockGHz * 1e9;
}

CostConstants CostConstants::defaults(Unit unit) {
  CostConstants c;
  // The share of the unit's peak a kernel of its kind reaches on large
  // problems (measured on an H200, docs/benchmarks.md): SIMT about 80%,
  // mma.sync about 60%, wgmma about 80%.
  c.compute = unit == Unit::Simt ? 1.25 : unit == Unit::Mma ? 1.6 : 1.2;
  return c;
}

CostConstants CostConstants::of(const Contract &contract) {
  if (!contract.hasCost)
    return defaults(Unit::Simt);
  const CostFacts &f = contract.cost;
  if (!f.fitted)
    return defaults(f.unit);
  CostConstants c;
  c.fixed = f.fixed;
  c.latency = f.latency;
  c.compute = f.compute;
  c.memory = f.memory;
  c.reduce = f.reduce;
  return c;
}

void CostConstants::toArray(double out[kCount]) const {
  out[0] = fixed;
  out[1] = latency;
  out[2] = compute;
  out[3] = memory;
  out[4] = reduce;
}

CostConstants CostConstants::fromArray(const double in[kCount]) {
  CostConstants c;
  c.fixed = in[0];
  c.latency = in[1];
  c.compute = in[2];
  c.memory = in[3];
  c.reduce = in[4];
  return c;
}

double CostFeatures::predict(const CostConstants &c) const {
  return (c.fixed + c.latency * double(waves)) * 1e-6 +
         std::max({c.compute * compute, c.memory * memory, pipeline}) +
         c.reduce * reduce;
}

static int64_t ceilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

/// The block tile of a contract: its schedule's, else what its grid divides
/// M and N by (hand-written kernels), else 1.
static void blockTile(const Contract &c, int64_t &bm, int64_t &bn,
                      int64_t &bk) {
  c.tile(bm, bn, bk);
  for (const GridExpr &g : c.grid) {
    if (g.dim == 'M' && !bm)
      bm = g.divisor;
    if (g.dim == 'N' && !bn)
      bn = g.divisor;
  }
  bm = std::max<int64_t>(bm, 1);
  bn = std::max<int64_t>(bn, 1);
  bk = std::max<int64_t>(bk, 1);
}

int64_t gemmc::contract::streamKPieces(int64_t tiles, int64_t steps,
                                      int64_t blocks) {
  // As the kernel cuts them (Warpgroup/Kernel.cpp, buildStreamKShare): as
  // many as the blocks allow, at most the largest s <= 8 with 2 s^2 <= the
  // K steps, then as many pieces of ceil(steps / s) steps as that takes.
  constexpr int64_t kMaxPieces = 8;
  if (tiles <= 0 || steps <= 0)
    return 1;
  int64_t bySteps = 1;
  while (bySteps < kMaxPieces && 2 * (bySteps + 1) * (bySteps + 1) <= steps)
    ++bySteps;
  int64_t split = std::max<int64_t>(std::min(blocks / tiles, bySteps), 1);
  return ceilDiv(steps, ceilDiv(steps, split));
}

/// The share of its multiprocessor's part of the bandwidth that one SIMT
/// block resident there draws: its loads through registers keep few bytes
/// in flight (H200, f32 GEMV 1x22016x4096 on `tile 1x2048x1`: one block a
/// multiprocessor streamed B at 3.0 TB/s, two at 4.0).
static constexpr double kSimtBlockDraw = 0.75;

/// The part of the bandwidth a wave of `blocks` SIMT blocks draws: each
/// multiprocessor min(1, kSimtBlockDraw x its resident blocks) of its
/// share, the blocks spread evenly (some one more than others).
static double waveDraw(int64_t blocks, int64_t sms, int64_t occupancy) {
  int64_t each = blocks / sms, more = blocks % sms;
  auto draw = [&](int64_t resident) {
    return std::min(1.0, kSimtBlockDraw * double(std::min(resident, occupancy)));
  };
  return (double(more) * draw(each + 1) + double(sms - more) * draw(each)) /
         double(sms);
}

/// Full waves of `sms` x `occupancy` blocks, then what is left, each over
/// the bandwidth it draws.
double gemmc::contract::simtMemoryFactor(int64_t units, int64_t sms,
                                         int64_t occupancy) {
  if (units <= 0)
    return 1.0;
  int64_t wave = sms * std::max<int64_t>(occupancy, 1);
  int64_t full = units / wave, rest = units % wave;
  double time = double(full) * double(wave) / waveDraw(wave, sms, occupancy);
  if (rest)
    time += double(rest) / waveDraw(rest, sms, occupancy);
  return time / double(units);
}

CostFeatures gemmc::contract::costFeatures(const Contract &c, const Problem &p,
                                           const DeviceModel &device,
                                           int64_t launchSplits) {
  int64_t bm, bn, bk;
  blockTile(c, bm, bn, bk);
  int64_t splits =
      std::max<int64_t>(c.splitsAtLaunch() ? launchSplits : c.splits, 1);
  int64_t batch = std::max<int64_t>(p.batch, 1);
  int64_t m = std::max<int64_t>(p.m, 1), n = std::max<int64_t>(p.n, 1),
          k = std::max<int64_t>(p.k, 1);
  int64_t occupancy = c.hasCost ? c.cost.occupancy : 1;
  int64_t sms = std::max<int64_t>(device.multiprocessors, 1);
  Unit unit = c.hasCost ? c.cost.unit : Unit::Simt;

  CostFeatures f;
  f.units = ceilDiv(m, bm) * ceilDiv(n, bn) * batch * splits;
  f.waves = ceilDiv(f.units, sms * occupancy);
  f.rounds = ceilDiv(f.units, sms);
  int64_t kUnit = ceilDiv(ceilDiv(k, bk), splits) * bk;
  double flops = 2.0 * double(bm) * double(bn) * double(kUnit);
  double feed = double(bm + bn) * double(kUnit) * sizeOf(p.a);
  f.compute = double(f.rounds) *
              std::max(flops / device.peakPerMultiprocessor(unit, c.problem),
                       feed / device.feedPerMultiprocessor());
  double operandBytes =
      double(m) * double(k) * sizeOf(p.a) + double(k) * double(n) * sizeOf(p.b);
  double bytes = operandBytes +
                 double(m) * double(n) * sizeOf(p.c) * (p.beta != 0 ? 2 : 1);
  // The compulsory traffic over the bandwidth; a SIMT kernel's over the
  // part of it its waves draw (simtMemoryFactor). TMA's and the
  // tensor-core kernels' deep pipelines let few blocks draw all of it.
  double factor =
      unit == Unit::Simt ? simtMemoryFactor(f.units, sms, occupancy) : 1.0;
  f.memory = bytes * double(batch) * factor / device.memoryBandwidth;
  // A kernel staging its operands in shared memory waits, each K step, for
  // a stage's tiles, with stages - 1 more in flight behind it: on a long K
  // a shallow pipeline is bound by the latency, not the bandwidth (f32
  // 4096x1x4096 on a 32 x 32 x 16 tile in 2 stages: 256 steps, 0.27 ms on
  // an H200, where the bytes take 0.02). The tiles come from memory in the
  // share of the compulsory bytes in all the blocks' loads, from L2 in the
  // rest (tiles of A and B read by several blocks). One block's steps: the
  // estimate of the blocks resident together is not exact enough to count
  // waves by.
  double stepLatency = 0;
  if (int64_t stages = c.stages()) {
    double loaded = double(f.units) * double(kUnit) *
                    (double(std::min(bm, m)) * sizeOf(p.a) +
                     double(std::min(bn, n)) * sizeOf(p.b));
    double compulsory = operandBytes * double(batch);
    double fromMemory = loaded > 0 ? std::min(1.0, compulsory / loaded) : 1.0;
    stepLatency = (device.l2Latency +
                   fromMemory * (device.memoryLatency - device.l2Latency)) /
                  double(std::max<int64_t>(stages - 1, 1));
  }
  f.pipeline = double(kUnit / bk) * stepLatency;
  if (c.streamK) {
    // The kernel's share of the work (docs/selection.md): whole tiles for
    // the grid's full rounds, then each tile left cut along K into
    // streamKPieces pieces, a block each; a tile of several pieces is
    // summed by its last block from their partial tiles.
    int64_t tiles = ceilDiv(m, bm) * ceilDiv(n, bn) * batch;
    int64_t steps = ceilDiv(k, bk);
    int64_t full = tiles / sms, rest = tiles % sms;
    double tileFlops = 2.0 * double(bm) * double(bn) * double(steps * bk);
    double tileFeed = double(bm + bn) * double(steps * bk) * sizeOf(p.a);
    double tileSeconds =
        std::max(tileFlops / device.peakPerMultiprocessor(unit, c.problem),
                 tileFeed / device.feedPerMultiprocessor());
    f.units = tiles;
    f.rounds = full + (rest ? 1 : 0);
    f.waves = f.rounds;
    f.pipeline = full ? double(steps) * stepLatency : 0.0;
    if (rest == 0) {
      f.compute = double(full) * tileSeconds;
      return f;
    }
    int64_t pieces = streamKPieces(rest, steps, sms);
    int64_t perPiece = std::max<int64_t>(ceilDiv(steps, pieces), 1);
    f.compute = (double(full) + double(perPiece) / double(steps)) * tileSeconds;
    f.pipeline = std::max(f.pipeline, double(perPiece) * stepLatency);
    if (pieces > 1) {
      double partial = double(std::min(bm, m)) * double(std::min(bn, n)) * 4;
      double traffic =
          double(rest) * double(pieces) * partial * 2 / device.memoryBandwidth;
      double serial = double(pieces) * partial / device.feedPerMultiprocessor();
      f.reduce = std::max(traffic, serial);
    }
    return f;
  }
  if (c.splitsK()) {
    // Every split writes its partial tile and the last one reads them all:
    // through memory, and in each tile's last block alone, which sums the
    // S partials (the part inside C) in turn; the tiles' last blocks run
    // side by side, a round of them per multiprocessor.
    double traffic = double(splits) * double(m) * double(n) * double(batch) *
                     8 / device.memoryBandwidth;
    int64_t tiles = ceilDiv(m, bm) * ceilDiv(n, bn) * batch;
    double partial = double(std::min(bm, m)) * double(std::min(bn, n)) * 4;
    double serial = double(ceilDiv(tiles, sms)) * double(splits) * partial /
                    device.feedPerMultiprocessor();
    f.reduce = std::max(traffic, serial);
  }
  return f;
}

std::vector<int64_t> gemmc::contract::splitCounts(const Contract &c,
                                                  const Problem &p) {
  if (!c.splitsAtLaunch())
    return {std::max<int64_t>(c.splits, 1)};
  int64_t most = c.maxSplits(p);
  int64_t steps = c.kSteps(p);
  std::vector<int64_t> counts;
  for (int64_t count : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128,
                        192, 256}) {
    // The kernel gives each split ceil(steps / S) steps: the fewest splits
    // of that many steps apiece leave none empty.
    int64_t perSplit = ceilDiv(steps, count);
    int64_t splits = ceilDiv(steps, perSplit);
    if (splits > most)
      break;
    if (counts.empty() || splits != counts.back())
      counts.push_back(splits);
  }
  if (counts.empty())
    counts.push_back(1);
  return counts;
}

int64_t gemmc::contract::chooseSplits(const Contract &c, const Problem &p,
                                      const DeviceModel &device,
                                      const CostConstants &constants) {
  std::vector<int64_t> counts = splitCounts(c, p);
  int64_t best = counts.front();
  double bestSeconds = 0;
  for (int64_t splits : counts) {
    double seconds = costFeatures(c, p, device, splits).predict(constants);
    if (splits == counts.front() || seconds < bestSeconds) {
      best = splits;
      bestSeconds = seconds;
    }
  }
  return best;
}

std::vector<RankedVariant>
gemmc::contract::rankVariants(const std::vector<Contract> &variants,
                              const Problem &problem, const DeviceModel &device,
                              const WhyNot &whyNot) {
  std::vector<RankedVariant> ranked;
  for (size_t i = 0; i < variants.size(); ++i) {
    const Contract &c = variants[i];
    RankedVariant r;
    r.index = i;
    int64_t groupRows = SizeRange::groupRows(problem);
    if (groupRows == 0 && !c.when.isAll())
      r.whyNot = "the groups' rows are on the device alone, and the variant "
                 "is for " +
                 c.when.str();
    else if (!c.when.isAll() &&
             !c.when.contains(problem.m, problem.n, problem.k, groupRows))
      r.whyNot = "the sizes are not " + c.when.str();
    else if (whyNot)
      r.whyNot = whyNot(i);
    else
      accepts(c, problem, r.whyNot);
    r.overrides = !c.when.isAll();
    if (r.whyNot.empty()) {
      r.constants = CostConstants::of(c);
      r.splits = chooseSplits(c, problem, device, r.constants);
      r.features = costFeatures(c, problem, device, r.splits);
      r.seconds = r.features.predict(r.constants);
    }
    ranked.push_back(r);
  }
  // Runnable first: overrides in their order, then the others by
  // predicted time (stable: ties keep their order).
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedVariant &x, const RankedVariant &y) {
                     bool xRuns = x.whyNot.empty(), yRuns = y.whyNot.empty();
                     if (xRuns != yRuns)
                       return xRuns;
                     if (!xRuns)
                       return false;
                     if (x.overrides != y.overrides)
                       return x.overrides;
                     if (x.overrides)
                       return false;
                     return x.seconds < y.seconds;
                   });
  return ranked;
}

int gemmc::contract::selectVariant(const std::vector<Contract> &variants,
                                   const Problem &problem,
                                   const DeviceModel &device, std::string &why,
                                   const WhyNot &whyNot) {
  why.clear();
  std::vector<RankedVariant> ranked =
      rankVariants(variants, problem, device, whyNot);
  if (!ranked.empty() && ranked.front().whyNot.empty())
    return int(ranked.front().index);
  // None runs it: each one's reason, in the family's order.
  if (variants.size() == 1) {
    why = ranked.front().whyNot;
    return -1;
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const RankedVariant &x, const RankedVariant &y) {
              return x.index < y.index;
            });
  for (const RankedVariant &r : ranked)
    why +=
        (why.empty() ? "" : "; ") + variants[r.index].entry + ": " + r.whyNot;
  return -1;
}
