//===- Space.cpp - the schedules gemmc-tune measures ----------------------===//

#include "gemmc/Tuning/Space.h"
#include "SpaceParts.h"
#include "gemmc/Frontend/Printer.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace gemmc;
using namespace gemmc::tuning;

Problem tuning::tunedProblem(ElementType type, llvm::StringRef layouts) {
  Problem p;
  p.a = p.b = p.c = type;
  MatrixLayout *matrices[] = {&p.aLayout, &p.bLayout, &p.cLayout};
  for (size_t i = 0; i < 3 && i < layouts.size(); ++i)
    *matrices[i] = layouts[i] == 'c' ? MatrixLayout::Col : MatrixLayout::Row;
  return p;
}

/// The variants of one block and warp tile: mma.sync with a swizzle and
/// cp.async (f16) or register tiles of 32 threads a warp tile with 4-wide
/// accesses (f32), each beside its scalar twin, which takes every leading
/// dimension.
static void addWarpVariants(const Schedule &s, bool halves,
                            std::vector<Schedule> &space) {
  if (halves) {
    Schedule t = s;
    t.mma = std::array<int64_t, 3>{16, 8, 16};
    t.swizzle = true;
    t.vectorize = std::array<int64_t, 4>{8, 1, 1, 2};
    t.stages = 3;
    t.cpAsync = true;
    space.push_back(t);
    // Scalar copies through padded rows.
    t.swizzle = false;
    t.pad = 8;
    t.vectorize.reset();
    t.stages = 2;
    t.cpAsync = false;
    space.push_back(t);
    return;
  }
  int64_t wm = (*s.warpTile)[0], wn = (*s.warpTile)[1];
  for (int64_t tm : {2, 4, 8}) {
    int64_t tn = wm * wn / (32 * tm);
    if (tn < 1 || tn > 8 || wn % tn || wm % tm)
      continue;
    Schedule t = s;
    t.registerTile = std::array<int64_t, 2>{tm, tn};
    t.pad = 4;
    t.transposeA = true;
    int64_t lanes = std::min<int64_t>({4, tm, tn});
    t.vectorize = std::array<int64_t, 4>{4, lanes, 1, lanes};
    t.stages = 2;
    t.unroll = 0;
    space.push_back(t);
    t.vectorize.reset();
    space.push_back(t);
  }
}

/// A block tile of warps (`tile`, `warp-tile`), A and B staged in shared
/// memory, K split `split` ways: what each part's variants start from.
static Schedule warpTiled(std::array<int64_t, 3> tile,
                          std::array<int64_t, 2> warp,
                          std::optional<int64_t> split) {
  Schedule s;
  s.tile = tile;
  s.warpTile = warp;
  s.promoteA = s.promoteB = true;
  s.splitK = split;
  return s;
}

/// The space: block tiles, warp and register tiles (SIMT) or warp tiles of
/// mma.sync (f16), pipelines and split-K counts.
static std::vector<Schedule> enumerateSpace(bool halves) {
  std::vector<Schedule> space;
  const int64_t blocks[] = {32, 64, 128, 256};
  const std::optional<int64_t> splits[] = {std::nullopt, 4, 16, 64};
  for (int64_t bm : blocks)
    for (int64_t bn : blocks)
      for (int64_t bk : {16, 32, 64})
        for (int64_t wm : {16, 32, 64})
          for (int64_t wn : {16, 32, 64})
            for (std::optional<int64_t> split : splits)
              for (bool raster : {false, true}) {
                Schedule s = warpTiled({bm, bn, bk}, {wm, wn}, split);
                if (raster)
                  s.raster = 8;
                addWarpVariants(s, halves, space);
              }
  return space;
}

/// The skinny part of the space, for GEMV-like problems (M or N up to 64):
/// block tiles 8 or 16 wide on the short side and 64-256 long, warps along
/// the long side, K split 16 or 32 ways so that the blocks fill the GPU.
static std::vector<Schedule> enumerateSkinny(bool halves) {
  std::vector<Schedule> space;
  for (bool shortM : {true, false})
    for (int64_t narrow : {8, 16})
      for (int64_t wide : {64, 128, 256})
        for (int64_t bk : {32, 64})
          for (int64_t across : {16, 32, 64})
            for (int64_t split : {16, 32}) {
              if (across > wide)
                continue;
              Schedule s =
                  shortM
                      ? warpTiled({narrow, wide, bk}, {narrow, across}, split)
                      : warpTiled({wide, narrow, bk}, {across, narrow}, split);
              addWarpVariants(s, halves, space);
            }
  return space;
}

/// The skinny part again for a short M, rastered: block tiles 8-32 rows
/// by 64-128 columns, K split 16-64 ways, and `raster 8`, so that the
/// block rows of one column of tiles run together. (Measured, raster
/// itself gained little: at 16 splits L2 holds B's slice for the other
/// block rows; the part's gains are its tiles, docs/tuning.md.) The splits
/// are fixed: chosen at launch, SIMT's skinny tiles took 2-4 (the model's
/// memory term holds for any count of blocks) and ran at 0.4x of these.
static std::vector<Schedule> enumerateSkinnyRastered(bool halves) {
  std::vector<Schedule> space;
  for (int64_t narrow : {8, 16, 32})
    for (int64_t wide : {64, 128})
      for (int64_t bk : {32, 64})
        for (int64_t across : {16, 32, 64})
          for (int64_t split : {16, 32, 64}) {
            if (across > wide)
              continue;
            Schedule s = warpTiled({narrow, wide, bk}, {narrow, across}, split);
            s.raster = 8;
            addWarpVariants(s, halves, space);
          }
  return space;
}

/// The part for a narrow B (N up to 64 with any leading dimension of B and
/// C, as a GEMV's B of one column has): block tiles 64-256 along M by 8-32,
/// A's copies 16 bytes wide, B's and C's element by element (`global-load
/// a W global-load b 1`), so that only A's leading dimension needs a
/// multiple; K split 4 to 32 ways.
static std::vector<Schedule> enumerateNarrowB(bool halves) {
  std::vector<Schedule> space;
  for (int64_t narrow : {8, 16, 32})
    for (int64_t wide : {64, 128, 256})
      for (int64_t bk : {32, 64})
        for (int64_t across : {16, 32, 64})
          for (int64_t split : {4, 8, 16, 32}) {
            if (across > wide)
              continue;
            Schedule s = warpTiled({wide, narrow, bk}, {across, narrow}, split);
            std::vector<Schedule> variants;
            addWarpVariants(s, halves, variants);
            for (Schedule &t : variants) {
              if (!t.vectorize || t.cpAsync)
                continue;
              // B's and C's accesses element by element; A's stored to
              // shared memory as wide as loaded (but for a transposed A).
              t.globalLoadB = 1;
              (*t.vectorize)[2] = t.transposeA ? 1 : (*t.vectorize)[0];
              (*t.vectorize)[3] = 1;
              space.push_back(t);
            }
            if (halves) {
              // mma.sync through registers: cp.async moves 4 bytes or more.
              Schedule t = s;
              t.mma = std::array<int64_t, 3>{16, 8, 16};
              t.pad = 8;
              t.vectorize = std::array<int64_t, 4>{8, 1, 8, 1};
              t.globalLoadB = 1;
              t.stages = 2;
              space.push_back(t);
            }
          }
  return space;
}

/// The part for long K beside small M and N (K over 65536 with M and N up
/// to 64): small block tiles with K split 128 to 512 ways, so that the
/// blocks fill the GPU and each sums a shorter run of K (the error grows
/// with the run).
static std::vector<Schedule> enumerateLongK(bool halves) {
  std::vector<Schedule> space;
  for (int64_t block : {16, 32, 64})
    for (int64_t bk : {32, 64})
      for (int64_t warp : {16, 32})
        for (int64_t split : {128, 256, 512}) {
          if (warp > block)
            continue;
          addWarpVariants(warpTiled({block, block, bk}, {warp, warp}, split),
                          halves, space);
        }
  return space;
}

/// The split-tf32 part (f32; every target has mma.sync): tensor cores at
/// about f32's accuracy (`math = tf32x3`: three tf32 products a pair of
/// fragments), for large problems: block tiles 64-256 of 4 or 8 warps,
/// warp tiles 32-64, a swizzle, 16-byte copies through a cp.async pipeline
/// of 3 or 4 stages, raster 8, the loop over BK left rolled (unrolled,
/// ptxas computes the steps' sums ahead and spills).
static std::vector<Schedule> enumerateSplitTf32(bool halves) {
  std::vector<Schedule> space;
  if (halves)
    return space;
  const std::array<int64_t, 3> tiles[] = {
      {128, 128, 16}, {128, 128, 32}, {128, 256, 16}, {256, 128, 16},
      {128, 64, 32},  {64, 128, 32},  {64, 64, 32}};
  for (std::array<int64_t, 3> tile : tiles)
    for (std::array<int64_t, 2> warp :
         {std::array<int64_t, 2>{64, 64}, {64, 32}, {32, 64}, {32, 32}})
      for (int64_t stages : {3, 4}) {
        int64_t warps = tile[0] / warp[0] * (tile[1] / warp[1]);
        if (warps < 4 || warps > 8)
          continue;
        Schedule s = warpTiled(tile, warp, std::nullopt);
        s.mma = std::array<int64_t, 3>{16, 8, 8};
        s.swizzle = true;
        s.vectorize = std::array<int64_t, 4>{4, 1, 1, 2};
        s.stages = stages;
        s.cpAsync = true;
        s.raster = 8;
        space.push_back(s);
      }
  return space;
}

/// Every target's (`_kz`): block tiles of 32x32 and 64x64 (mma.sync for
/// 16-bit inputs, SIMT for f32) and 64x16 / 16x64 for a narrow side.
static std::vector<Schedule> enumerateSplitsAtLaunch(bool halves) {
  std::vector<Schedule> space;
  const std::pair<std::array<int64_t, 3>, std::array<int64_t, 2>> tiles[] = {
      {{32, 32, 32}, {16, 16}},
      {{64, 64, 32}, {32, 32}},
      {{64, 16, 64}, {32, 16}},
      {{16, 64, 64}, {16, 32}}};
  for (const auto &[tile, warp] : tiles)
    addWarpVariants(warpTiled(tile, warp, 0), halves, space);
  return space;
}

namespace {
/// A decode tile (`_gv`, `_gs`, `_gw`): TM x TN register tiles, `threads`
/// of them a slice, that read global memory themselves (no `promote`), B's
/// rows in 16-byte loads, C's in 16-byte stores, the loop over K unrolled
/// so that a thread's reads are in flight together, and K split at launch
/// (but for slices of fewer threads than a warp, which do not take
/// split-K); its K split among `slices` slices of the block too where more
/// than one; `blocksPerSM` where given (`blocks-per-sm`).
struct DecodeTile {
  int64_t tm, tn, threads, unroll, slices;
  std::optional<int64_t> blocksPerSM = std::nullopt;
};
} // namespace

/// The schedules of `tiles`; none for f16 and bf16 (`halves`): SIMT
/// register tiles are f32's alone.
static std::vector<Schedule> decodeTiles(bool halves,
                                         llvm::ArrayRef<DecodeTile> tiles) {
  std::vector<Schedule> space;
  if (halves)
    return space;
  for (const DecodeTile &t : tiles) {
    Schedule s;
    s.tile = {t.tm, t.tn * t.threads, 1};
    s.registerTile = std::array<int64_t, 2>{t.tm, t.tn};
    s.vectorize = std::array<int64_t, 4>{4, 1, 1, 4};
    s.unroll = t.unroll;
    if (t.threads >= kWarpSize)
      s.splitK = 0;
    if (t.slices > 1)
      s.sliceK = t.slices;
    s.blocksPerSM = t.blocksPerSM;
    space.push_back(s);
  }
  return space;
}

/// f32's decode part (`_gv`, M of 1 to 8): decode tiles of 512 to 2048
/// columns.
static std::vector<Schedule> enumerateRegisterTilesFromGlobal(bool halves) {
  return decodeTiles(halves, {{1, 4, 256, 8, 1},
                              {1, 8, 256, 4, 1},
                              {1, 4, 128, 8, 1},
                              {2, 4, 256, 8, 1},
                              {2, 4, 128, 8, 1},
                              {4, 4, 128, 4, 1},
                              {8, 4, 128, 4, 1},
                              {8, 4, 64, 8, 1}});
}

/// f32's sliced decode part (`_gs`, M of 1 to 4): decode tiles of 128 or
/// 256 columns whose warps split K among them (`slice-k`), so that split-K
/// needs fewer blocks a tile and its last block sums fewer columns.
/// (Blocks of 512 threads, capped at 64 registers, unroll 2 ways: their
/// estimate comes near the cap at 4, where ptxas fits them without
/// spilling.)
static std::vector<Schedule> enumerateSlicedRegisterTiles(bool halves) {
  return decodeTiles(halves, {{1, 4, 32, 8, 8},
                              {1, 4, 32, 4, 8},
                              {1, 4, 32, 2, 16},
                              {1, 4, 64, 8, 4},
                              {1, 4, 64, 2, 8},
                              {2, 4, 32, 4, 8},
                              {4, 4, 32, 4, 8}});
}

/// f32's GEMV part in cuBLAS's shape (`_gw`, M of 1 or 2): tiles of 32
/// columns in slices of 8 threads, a warp's 4 slices reading 4 rows of B
/// 128 bytes each, K whole in 64 slices of a block of 512 threads, one
/// block a multiprocessor (its cap of 128 registers holds a deeper
/// unroll). No split-K: a GEMV of N columns has N / 32 blocks. Unroll 16,
/// last so that the others keep their names, is cuBLAS's own kernel: its
/// register estimate (147) passes the cap, where ptxas fits it in 127
/// without a spill (results/h100-issue31/sub-warp-slices-h200.txt), so the
/// part keeps schedules near the cap for ptxas to judge (NearCap::Ptxas);
/// of 2 x 32 tiles at unroll 16 it spills 8 bytes (left out).
static std::vector<Schedule> enumerateSubWarpSlicedTiles(bool halves) {
  return decodeTiles(halves, {{1, 4, 8, 8, 64, 1},
                              {1, 4, 8, 4, 64, 1},
                              {2, 4, 8, 4, 64, 1},
                              {1, 4, 8, 16, 64, 1},
                              {2, 4, 8, 16, 64, 1}});
}

/// Which schedules whose register estimate comes near the cap (or past
/// it: the spill warning) a part keeps. The estimate is not ptxas's
/// allocation; most parts leave them out, so that the names the tuning
/// measurements give their candidates stay.
enum class NearCap {
  /// None: they may spill.
  Refused,
  /// mma.sync schedules whose estimate is not over the cap (tf32x3's
  /// kernels need nearly all 255 registers: 128 accumulators and both
  /// parts of each fragment).
  UnderCap,
  /// All, each marked SpaceCandidate::nearCap: gemmc-tune keeps those
  /// that ptxas assembles without a spill.
  Ptxas,
};

/// The schedules of `space` that the model accepts for `problem` without a
/// warning (a likely spill, but as `nearCap` allows) and that are
/// implemented, each once (`seen`).
static std::vector<SpaceCandidate>
legalCandidates(const std::vector<Schedule> &space, const Problem &problem,
                const Arch &target, std::set<std::string> &seen,
                NearCap nearCap) {
  std::vector<SpaceCandidate> legal;
  for (const Schedule &s : space) {
    int warnings = 0;
    Problem computed = computedProblem(problem, s);
    std::optional<ScheduleFacts> facts =
        checkSchedule(computed, s, &target, [&](const gemmc::Diagnostic &d) {
          warnings += d.severity != gemmc::Diagnostic::Severity::Note;
        });
    if (!facts)
      continue;
    // Schedules whose register estimate comes near the cap are left out
    // (they may spill), whether or not the spill warning came, but as
    // `nearCap` allows. The only other warning of a SIMT or mma.sync
    // schedule would be that one.
    int others = warnings - (facts->spillWarned ? 1 : 0);
    bool near = facts->registersNearCap || facts->spillWarned;
    bool kept =
        others == 0 && (!near || nearCap == NearCap::Ptxas ||
                        (nearCap == NearCap::UnderCap && s.hasMma() &&
                         facts->registerPressure <= facts->registerCap));
    if (!kept ||
        !checkImplemented(computed, s, [](const gemmc::Diagnostic &) {}))
      continue;
    std::string key;
    llvm::raw_string_ostream os(key);
    printDirectives(os, s, "");
    if (!seen.insert(key).second)
      continue;
    SpaceCandidate c;
    c.schedule = s;
    c.facts = *facts;
    c.nearCap = near && nearCap == NearCap::Ptxas;
    legal.push_back(std::move(c));
  }
  return legal;
}

/// At most `count` of `candidates` (0: all), spread over the space, every
/// k-th in the enumeration's order: a sixth (at least one) of those with
/// scalar accesses, which take every leading dimension, and the rest of
/// those with vectors.
static std::vector<SpaceCandidate>
spreadOver(std::vector<SpaceCandidate> candidates, size_t count) {
  if (!count || candidates.size() <= count)
    return candidates;
  std::vector<SpaceCandidate> vectors, scalars, kept;
  for (SpaceCandidate &c : candidates)
    (c.schedule.vectorize ? vectors : scalars).push_back(std::move(c));
  auto spread = [&](std::vector<SpaceCandidate> &from, size_t n) {
    n = std::min(n, from.size());
    for (size_t i = 0; i < n; ++i)
      kept.push_back(from[i * from.size() / n]);
  };
  size_t scalarCount = std::max<size_t>(1, count / 6);
  spread(vectors, count - std::min(scalarCount, scalars.size()));
  spread(scalars, scalarCount);
  return kept;
}

std::vector<SpaceCandidate> tuning::enumerateCandidates(const Problem &problem,
                                                        const Arch &target,
                                                        size_t limit,
                                                        SpaceCounts &counts) {
  bool halves = problem.a != ElementType::F32;
  // `--type tf32`: f32 inputs under `math = tf32` (every candidate's
  // problem says so; SIMT ones compute in f32), where tf32x3's parts copy
  // without splitting and tf32's own parts join.
  bool tf32 = problem.tf32 && !problem.tf32x3;
  auto tf32Only = [&](std::vector<Schedule> (*part)()) {
    return tf32 ? part() : std::vector<Schedule>();
  };
  // f32 at f32's accuracy (tf32x3) alone.
  auto splitOnly = [&](std::vector<Schedule> (*part)()) {
    return !halves && !tf32 ? part() : std::vector<Schedule>();
  };
  std::set<std::string> seen;
  struct Part {
    std::vector<Schedule> space;
    const char *prefix;
    size_t count;
    bool tf32x3 = false;
    /// Kept for ptxas to judge where near the register cap.
    bool nearCapByPtxas = false;
  };
  size_t third = limit ? std::max<size_t>(2, limit / 3) : 0;
  size_t half = limit ? std::max<size_t>(2, limit / 2) : 0;
  const Part parts[] = {
      {enumerateSpace(halves), "_c", limit},
      {enumerateSkinny(halves), "_g", third},
      {enumerateWarpgroup(halves), "_w", 0},
      {enumerateNarrowB(halves), "_n", half},
      {enumerateLongK(halves), "_k", half},
      {enumerateWarpgroupLongK(halves), "_wk", 0},
      {enumerateWarpgroupUnaligned(halves), "_wu", 0},
      {enumerateSplitTf32(halves), "_x", half, /*tf32x3=*/true},
      {enumerateWarpgroupSplitTf32(halves, /*split=*/!tf32), "_wx", 0,
       /*tf32x3=*/true},
      {enumerateWarpgroupSplitsAtLaunch(halves), "_wz", 0},
      {enumerateWarpgroupSplitTf32AtLaunch(halves, /*split=*/!tf32), "_wxz", 0,
       /*tf32x3=*/true},
      {enumerateSplitsAtLaunch(halves), "_kz", half},
      {enumerateSkinnyRastered(halves), "_gr", 2 * limit},
      {enumerateWarpgroupTransposed(halves), "_wt", 0},
      {enumerateWarpgroupStreamK(halves), "_ws", 0},
      {enumerateWarpgroupTransposedDeep(halves), "_wd", 0},
      {enumerateWarpgroupTransposedWide(halves), "_wn", 0},
      {enumerateRegisterTilesFromGlobal(halves), "_gv", 0},
      {enumerateSlicedRegisterTiles(halves), "_gs", 0},
      {tf32Only(enumerateWarpgroupTf32), "_wf", 0},
      {tf32Only(enumerateWarpgroupTf32StreamK), "_wfs", 0},
      {tf32Only(enumerateWarpgroupTf32AtLaunch), "_wfz", 0},
      {tf32Only(enumerateWarpgroupTf32Transposed), "_wft", 0},
      {tf32Only(enumerateWarpgroupTf32Staged), "_wfb", 0},
      {tf32Only(enumerateWarpgroupTf32Registers), "_wfr", 0},
      {splitOnly(enumerateWarpgroupSplitTf32Registers), "_wxr", 0,
       /*tf32x3=*/true},
      {enumerateWarpgroupPingPong(halves), "_wp", 0},
      {enumerateWarpgroupTransposedStreaming(halves), "_wm", 0},
      {enumerateSubWarpSlicedTiles(halves), "_gw", 0, /*tf32x3=*/false,
       /*nearCapByPtxas=*/true}};
  std::string type = tf32 ? "tf32" : stringify(problem.a).str();
  std::vector<SpaceCandidate> candidates;
  for (const auto &[space, prefix, count, tf32x3, nearCapByPtxas] : parts) {
    // Hopper's parts on an arch with wgmma only.
    if (llvm::StringRef(prefix).starts_with("_w") && target.name != "sm_90a")
      continue;
    // tf32x3's parts under tf32 multiply once, in tf32.
    bool split = tf32x3 && !tf32;
    Problem partProblem = problem;
    partProblem.tf32 = tf32 || split;
    partProblem.tf32x3 = split;
    std::vector<SpaceCandidate> part =
        legalCandidates(space, partProblem, target, seen,
                        nearCapByPtxas ? NearCap::Ptxas
                        : split        ? NearCap::UnderCap
                                       : NearCap::Refused);
    size_t nearCap =
        llvm::count_if(part, [](const SpaceCandidate &c) { return c.nearCap; });
    counts.drawn += space.size();
    counts.legal += part.size() - nearCap;
    counts.nearCap += nearCap;
    part = spreadOver(std::move(part), count);
    for (size_t i = 0; i < part.size(); ++i) {
      SpaceCandidate &c = part[i];
      c.name = type + prefix + std::to_string(i);
      c.tf32x3 = split;
      candidates.push_back(std::move(c));
    }
  }
  return candidates;
}

std::string tuning::scheduleFile(const std::string &name,
                                 const Problem &problem,
                                 const Schedule &schedule, bool tf32x3) {
  // Sizes at launch, the tuned types and layouts, tf32 (every candidate
  // of `--type tf32`) or tf32x3 where asked.
  Problem tuned;
  tuned.m = tuned.n = tuned.k = std::nullopt;
  tuned.a = problem.a;
  tuned.b = problem.b;
  tuned.c = problem.c;
  tuned.aLayout = problem.aLayout;
  tuned.bLayout = problem.bLayout;
  tuned.cLayout = problem.cLayout;
  tuned.tf32 = problem.tf32 || tf32x3;
  tuned.tf32x3 = tf32x3;
  std::string text = "# gemmc-tune candidate\n";
  llvm::raw_string_ostream os(text);
  printKernel(os, name, tuned, schedule);
  return text;
}
