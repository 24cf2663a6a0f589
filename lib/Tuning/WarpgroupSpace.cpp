//===- WarpgroupSpace.cpp - the tuning space's Hopper parts ---------------===//
//
// The parts of the tuning space that run on Hopper's warpgroup kernel
// (wgmma, sm_90a): Space.cpp enumerates them beside the SIMT and mma.sync
// parts (SpaceParts.h).
//
//===----------------------------------------------------------------------===//

#include "SpaceParts.h"

#include "llvm/ADT/STLFunctionalExtras.h"

using namespace gemmc;
using namespace gemmc::tuning;

/// The shared memory a Hopper block's stages may take: 227 KB, less 1 KB
/// for the mbarriers and the tiles' alignment, less C's two TMA store
/// buffers of 8 KB a consumer where `tma c`.
static int64_t roomForStages(const Schedule &s) {
  int64_t cBytes = s.tmaC ? *s.consumers * 16 * 1024 : 0;
  return 227 * 1024 - 1024 - cBytes;
}

/// The stages of a 16-bit tile (A's and B's, BK columns of 2 bytes each a
/// row) that the shared memory holds beside C's store buffers, at most 8.
static int64_t sixteenBitStages(const Schedule &s) {
  int64_t stageBytes = (s.bm() + s.bn()) * s.bk() * 2;
  return std::min<int64_t>(8, roomForStages(s) / stageBytes);
}

/// A 16-bit wgmma tile of BM x BN x 64 with TMA for A, B and C, one
/// consumer warpgroup per 64 rows, and as many stages of A and B (64
/// columns of 2 bytes each row) as 227 KB hold beside C's two store buffers
/// of 8 KB per consumer, at most 8.
static Schedule warpgroupTmaTile(int64_t bm, int64_t bn) {
  Schedule s;
  s.tile = {bm, bn, 64};
  s.wgmma = std::array<int64_t, 3>{64, bn, 16};
  s.tmaA = s.tmaB = s.tmaC = true;
  s.consumers = bm / 64;
  s.stages = sixteenBitStages(s);
  return s;
}

/// Hopper's kernel (16-bit inputs on an arch with wgmma): the
/// warp-specialised kernel with TMA for A and B, C stored through shared
/// memory by TMA, block tiles of 64 (one consumer warpgroup) or 128 rows
/// (two) by 64, 128 or 256 columns and BK = 64, as many stages as the
/// shared memory holds (at most 8); persistent (raster 8) without split-K,
/// or split 2 to 16 ways; the 128-row tiles also in clusters of 2 tile rows
/// (B multicast), and the 128 x 128 tile storing C from registers (any N).
std::vector<Schedule> tuning::enumerateWarpgroup(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  const std::optional<int64_t> splits[] = {std::nullopt, 2, 4, 8, 16};
  for (int64_t bm : {128, 64})
    for (int64_t bn : {64, 128, 256})
      for (std::optional<int64_t> split : splits) {
        Schedule s = warpgroupTmaTile(bm, bn);
        s.splitK = split;
        s.persistent = !split;
        if (!split)
          s.raster = 8;
        space.push_back(s);
        if (split || bm != 128 || bn == 64)
          continue;
        Schedule clustered = s;
        clustered.cluster = std::array<int64_t, 2>{2, 1};
        space.push_back(clustered);
        if (bn != 128)
          continue;
        Schedule registers = s;
        registers.tmaC = false;
        registers.stages = sixteenBitStages(registers);
        space.push_back(registers);
      }
  return space;
}

/// Hopper's kernel for rows TMA cannot copy (a leading dimension of no
/// 16-byte multiple): A, B or both copied by the producer's threads in
/// pieces of 1, 2 or 4 elements (the other by TMA), C stored from
/// registers (any leading dimension); 128 x 128 and 128 x 256 tiles, BK =
/// 64, as many stages as the shared memory holds (at most 8), persistent,
/// raster 8. Pieces of 1 element are realigned in shared memory, which
/// takes an eighth more of their tile (TmaOperand::stageStride), and read
/// by cp.async through L1, which needs room: stages up to 160 KB there
/// (H100, f16 4095x4097x4093, 128x128 tiles: 0.95x cuBLAS in 4 stages,
/// 147 KB; 0.80x in 6, 221 KB, as with cp.async.cg bypassing L1).
std::vector<Schedule> tuning::enumerateWarpgroupUnaligned(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  // 0: TMA; otherwise the piece in elements.
  const int64_t copies[] = {0, 1, 2, 4};
  for (int64_t bn : {128, 256})
    for (int64_t a : copies)
      for (int64_t b : copies) {
        if (!a && !b)
          continue;
        Schedule s;
        s.tile = {128, bn, 64};
        s.wgmma = std::array<int64_t, 3>{64, bn, 16};
        s.tmaA = !a;
        s.tmaB = !b;
        s.vectorize = std::array<int64_t, 4>{std::max<int64_t>(a, 1), 1, 1, 1};
        if (std::max<int64_t>(b, 1) != s.vectorize->front())
          s.globalLoadB = std::max<int64_t>(b, 1);
        if (a <= 1 && b <= 1) {
          s.vectorize.reset();
          s.globalLoadB.reset();
        }
        s.consumers = 2;
        int64_t aBytes = 128 * 64 * 2, bBytes = bn * 64 * 2;
        int64_t stageBytes = aBytes + (a == 1 ? aBytes / 8 : 0) + bBytes +
                             (b == 1 ? bBytes / 8 : 0);
        bool realigns = a == 1 || b == 1;
        int64_t budget = realigns ? 160 * 1024 : 227 * 1024 - 1024;
        s.stages = std::min<int64_t>(8, budget / stageBytes);
        s.persistent = true;
        s.raster = 8;
        space.push_back(s);
      }
  return space;
}

/// Hopper's split-tf32 part (f32, `math = tf32x3` on wgmma): the producer's
/// threads split every element of A and B as they copy it (no TMA), in
/// pieces of 4, 2 or 1 elements as the leading dimensions allow; tiles of
/// 128x128 (two consumers), 128x64 and 64x128, and for long K beside small
/// M and N 128x128 and 64x128 split 4 or 16 ways.
std::vector<Schedule> tuning::enumerateWarpgroupSplitTf32(bool halves,
                                                          bool split) {
  std::vector<Schedule> space;
  if (halves)
    return space;
  struct Tile {
    int64_t bm, bn, consumers;
  };
  const Tile tiles[] = {{128, 128, 2}, {128, 64, 2}, {64, 128, 1}};
  // Under tf32 (no split) pieces of 4 and 1 alone: `_wf` copies B beside
  // A's TMA, which is how a row-major A is best read.
  const std::pair<int64_t, int64_t> pieces[] = {
      {4, 4}, {4, 2}, {4, 1}, {1, 4}, {1, 1}};
  auto kept = [&](std::pair<int64_t, int64_t> piece) {
    return split || piece.first == piece.second;
  };
  auto make = [&](Tile t, std::pair<int64_t, int64_t> piece,
                  std::optional<int64_t> splits) {
    Schedule s;
    s.tile = {t.bm, t.bn, 32};
    s.wgmma = std::array<int64_t, 3>{64, t.bn, 8};
    s.tmaA = s.tmaB = false;
    auto [a, b] = piece;
    if (a > 1 || b > 1) {
      s.vectorize = std::array<int64_t, 4>{a, 1, 1, 1};
      if (b != a)
        s.globalLoadB = b;
    }
    s.consumers = t.consumers;
    // Each stage holds the tiles' tf32 parts and remainders (tf32x3).
    int64_t stageBytes = (t.bm + t.bn) * 32 * 4 * (split ? 2 : 1);
    s.stages = std::min<int64_t>(4, roomForStages(s) / stageBytes);
    if (splits) {
      s.splitK = splits;
    } else {
      s.persistent = true;
      s.raster = 8;
    }
    return s;
  };
  for (Tile t : tiles)
    for (auto piece : pieces)
      if (kept(piece))
        space.push_back(make(t, piece, std::nullopt));
  for (Tile t : {tiles[0], tiles[2]})
    for (int64_t splits : {4, 16})
      space.push_back(make(t, {4, 4}, splits));
  return space;
}

/// Hopper's part for long K beside small M and N: the 128 x 64 and 64 x 64
/// tiles split 64 to 256 ways.
std::vector<Schedule> tuning::enumerateWarpgroupLongK(bool halves) {
  std::vector<Schedule> space;
  for (Schedule s : enumerateWarpgroup(halves)) {
    if (s.bn() != 64 || s.splits() != 2)
      continue;
    for (int64_t split : {64, 128, 256}) {
      if (s.bm() == 64 && split == 256)
        continue;
      s.splitK = split;
      space.push_back(s);
    }
  }
  return space;
}

/// The parts whose split-K splits the launch chooses (`split-k ?`, the
/// count of the lowest predicted time for each problem): one kernel for
/// every length of K and number of tiles, where the parts above fix a count
/// per candidate. Hopper's (16-bit inputs, `_wz`): the warp-specialised
/// kernel with TMA at tiles of 64 or 128 rows by 64, 128 or 256 columns,
/// its tiles in groups of 8 rows (`raster 8`): at one split a grid of many
/// tiles that runs row after row reads B once per row of tiles (a 128 x 256
/// tile at 256x49152x12288 f16 ran 0.51x cuBLAS without it, H100).
std::vector<Schedule> tuning::enumerateWarpgroupSplitsAtLaunch(bool halves) {
  std::vector<Schedule> space;
  for (Schedule s : enumerateWarpgroup(halves)) {
    if (s.splits() != 2)
      continue;
    s.splitK = 0;
    s.raster = 8;
    space.push_back(s);
  }
  return space;
}

/// Hopper's f32 (`_wxz`, `math = tf32x3`): the split-tf32 kernel at tiles
/// of 128x128, 128x64 and 64x128, in pieces of 4 elements or of 1 (any
/// leading dimension), `raster 8` as `_wz`.
std::vector<Schedule>
tuning::enumerateWarpgroupSplitTf32AtLaunch(bool halves, bool split) {
  std::vector<Schedule> space;
  for (Schedule s : enumerateWarpgroupSplitTf32(halves, split)) {
    bool pieces = s.globalLoadWidth(Operand::A) == s.globalLoadWidth(Operand::B);
    if (s.splitK || !pieces)
      continue;
    s.persistent = false;
    s.raster = 8;
    s.splitK = 0;
    space.push_back(s);
  }
  return space;
}

/// A transposed wgmma tile (`_wt`, `_wd`): C^T = B^T * A^T on BM rows along
/// N by BN along M (wgmma's N), BK deep, TMA for A and B, C from registers,
/// one consumer a 64 rows, the splits chosen at launch.
static Schedule warpgroupTransposedTile(int64_t bm, int64_t bn, int64_t bk,
                                        int64_t stages) {
  Schedule s;
  s.transpose = true;
  s.tile = {bm, bn, bk};
  s.wgmma = std::array<int64_t, 3>{64, bn, 16};
  s.tmaA = s.tmaB = true;
  s.consumers = bm / 64;
  s.stages = stages;
  s.splitK = 0;
  return s;
}

/// Hopper's transposed part (`_wt`, 16-bit inputs): C^T = B^T * A^T
/// (`transpose`), so that a short M becomes wgmma's N: tiles of 64 or 128
/// rows along N by 8 to 64 along M, TMA for both operands, C stored from
/// registers, 8 stages, the splits chosen at launch. On an H100, 64 x 16
/// ran 5x5120x1280 f16 at 0.90x cuBLAS where the best untransposed
/// candidate ran 0.60x, 8x768x768 at 0.87x against 0.66x.
std::vector<Schedule> tuning::enumerateWarpgroupTransposed(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  for (int64_t bm : {64, 128})
    for (int64_t bn : {8, 16, 32, 64})
      space.push_back(warpgroupTransposedTile(bm, bn, 64, 8));
  return space;
}

/// Hopper's transposed part with deep K steps (`_wd`, 16-bit inputs): the
/// transposed tiles of `_wt` with BK = 128 or 256 in 3 or 4 stages, where
/// `_wt` takes 64 in 8. A decode problem streams B through few blocks, and
/// the blocks keep pace with memory by the bytes each K step brings, not by
/// the stages in flight: on an H100, 64 x 8 tiles ran 1x4096x4096 f16 in
/// 16.0 us with BK 64 in 8 stages, 16.0 in 16 and 18.2 in 24, but 10.8 with
/// BK 128 in 4 (cuBLAS 11.0); 64x4096x4096 on 64 x 32 tiles went 0.70 ->
/// 0.94x cuBLAS at BK 256 (benchmarks/deep-k.sh). Tiles of 64 rows along N
/// by 8 to 64 along M (BK 128, 4 stages; BK 256, 4 stages, 3 for 64 x 64),
/// and 128 x 8, 128 x 32 at BK 128 in 4 stages.
std::vector<Schedule> tuning::enumerateWarpgroupTransposedDeep(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  for (int64_t bk : {128, 256})
    for (int64_t bn : {8, 16, 32, 64})
      space.push_back(
          warpgroupTransposedTile(64, bn, bk, bk == 256 && bn == 64 ? 3 : 4));
  for (int64_t bn : {8, 32})
    space.push_back(warpgroupTransposedTile(128, bn, 128, 4));
  return space;
}

/// Hopper's transposed wide part (`_wn`, 16-bit inputs): the persistent
/// kernel on transposed 128 x BN tiles (128 rows along N, BN along M as
/// wgmma's N, any multiple of 8), TMA for A, B and C, 4 stages, raster 8.
/// Where tiles of 128 x 256 leave the last round of the multiprocessors
/// part idle, one BN of many fits M's tiles to whole rounds, as cuBLAS's
/// kernels of 128 x 168 or 216 do (ncu, H100): 3000x3584x3584 f16 ran
/// 0.86x cuBLAS on 128 x 256, 0.98x on 216 x 128; 977x2816x2048 0.77 ->
/// 0.99x on 168 x 128; 2048x2560x2560 0.77 -> 0.99x on 160 x 128.
std::vector<Schedule> tuning::enumerateWarpgroupTransposedWide(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  for (int64_t bn : {144, 160, 168, 176, 192, 200, 208, 216, 224, 240}) {
    Schedule s = warpgroupTransposedTile(128, bn, 64, 4);
    s.tmaC = true;
    s.persistent = true;
    s.raster = 8;
    s.splitK.reset();
    space.push_back(s);
  }
  return space;
}

/// Hopper's stream-K part (`_ws`, 16-bit inputs): the persistent kernels
/// of `_w` (TMA for A, B and C, raster 8) with `persistent stream-k`, so
/// that the tiles left after the grid's full rounds are cut along K among
/// the blocks instead of leaving most of them idle: tiles of 128 x 256,
/// 128 x 128, 64 x 256 and 64 x 128.
std::vector<Schedule> tuning::enumerateWarpgroupStreamK(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  for (int64_t bm : {128, 64})
    for (int64_t bn : {256, 128}) {
      Schedule s = warpgroupTmaTile(bm, bn);
      s.persistent = true;
      s.streamK = true;
      s.raster = 8;
      space.push_back(s);
    }
  return space;
}

/// Hopper's ping-pong part (`_wp`, 16-bit inputs): the persistent TMA
/// kernels of `_w` whose two consumers take turns at whole tiles
/// (`warp-specialize 2 ping-pong`), one's epilogue beside the other's
/// wgmma: tiles of 128 x 64, 128 x 128, 128 x 192, 64 x 128 and 64 x 256
/// (a consumer's accumulators at most 192 values a thread), raster 8, as
/// many stages as the shared memory holds beside both consumers' store
/// buffers; 128 x 128 and 128 x 192 also in clusters of 2 tile rows. Tried
/// by hand on an H200 (f16 rrr, beside the same tiles shared by the two
/// consumers): 512x4096x11008 0.88 -> 0.99x cuBLAS, 640x2560x2560 0.91 ->
/// 1.00x, 2048x11008x4096 0.89 -> 1.02x at 128 x 128; 256x12288x12288
/// 1.01x at 128 x 192.
std::vector<Schedule> tuning::enumerateWarpgroupPingPong(bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  const std::array<int64_t, 2> tiles[] = {
      {128, 64}, {128, 128}, {128, 192}, {64, 128}, {64, 256}};
  for (auto [bm, bn] : tiles) {
    Schedule s = warpgroupTmaTile(bm, bn);
    s.consumers = 2;
    s.pingPong = true;
    s.stages = sixteenBitStages(s);
    s.persistent = true;
    s.raster = 8;
    space.push_back(s);
    if (bm != 128 || bn < 128)
      continue;
    Schedule clustered = s;
    clustered.cluster = std::array<int64_t, 2>{2, 1};
    space.push_back(clustered);
  }
  return space;
}

/// Hopper's transposed streaming part (`_wm`, 16-bit inputs): where M is
/// short (tens of rows) and N and K long, the problem is B's bytes streamed
/// once, and it runs at memory's speed only if every multiprocessor
/// streams. cuBLAS's kernels there (ncu, H200) take M whole as wgmma's N
/// (64 x 56 tiles for 50x7680x2560, 192 x 40 for 40x18176x4544) in one
/// round of 96-120 blocks with ~220 KB of stages each; `_wd`'s narrow tiles
/// cut M in two or three, `_w`'s 64 x 128 leave half the multiprocessors
/// idle. Transposed tiles (C^T = B^T * A^T) of BK = 128 in as many stages
/// as shared memory holds (at most 8): 128 rows along N (two consumers) by
/// 32, 48, 64 or 96 along M and 64 by 48, 64 or 128, `split-k ?`; and
/// persistent stream-K, TMA for C, of 64 x 32 and 64 x 64 at BK 128 and 128
/// x 64, 128 x 128 at BK 64. Tried by hand on an H200 (f16 rrr, beside the
/// family then shipped): 40x4544x4544 0.68 -> 0.98x cuBLAS and
/// 40x4544x18176 0.83 -> 0.98x on 128 x 48 (3 and 2 splits), 64x8192x4096
/// 0.82 -> 0.98x on 64 x 64 stream-K, 40x18176x4544 0.86 -> 0.95x on 128 x
/// 64 stream-K, 50x7680x2560 0.68 -> 0.85x on 64 x 56 (one split).
std::vector<Schedule> tuning::enumerateWarpgroupTransposedStreaming(
    bool halves) {
  std::vector<Schedule> space;
  if (!halves)
    return space;
  auto add = [&](int64_t bm, int64_t bn, int64_t bk, bool streamK) {
    Schedule s = warpgroupTransposedTile(bm, bn, bk, 1);
    if (streamK) {
      s.tmaC = true;
      s.persistent = true;
      s.streamK = true;
      s.raster = 8;
      s.splitK.reset();
    }
    s.stages = sixteenBitStages(s);
    space.push_back(s);
  };
  for (int64_t bn : {32, 48, 64, 96})
    add(128, bn, 128, /*streamK=*/false);
  for (int64_t bn : {48, 64, 128})
    add(64, bn, 128, /*streamK=*/false);
  for (int64_t bn : {32, 64})
    add(64, bn, 128, /*streamK=*/true);
  for (int64_t bn : {64, 128})
    add(128, bn, 64, /*streamK=*/true);
  return space;
}

/// A tf32 wgmma tile of BM x BN x BK (f32 inputs under `math = tf32`): one
/// consumer warpgroup per 64 rows, A and B by TMA (legal where both are
/// K-major, as tf32 wgmma reads them), C stored by TMA, and as many stages
/// as 227 KB hold beside C's store buffers, at most 8.
static Schedule warpgroupTf32Tile(int64_t bm, int64_t bn, int64_t bk) {
  Schedule s;
  s.tile = {bm, bn, bk};
  s.wgmma = std::array<int64_t, 3>{64, bn, 8};
  s.tmaA = s.tmaB = s.tmaC = true;
  s.consumers = bm / 64;
  int64_t stageBytes = (bm + bn) * bk * 4;
  s.stages = std::min<int64_t>(8, roomForStages(s) / stageBytes);
  return s;
}

/// `warpgroupTf32Tile` of each of `tiles` (BM, BN, BK), `set` applied.
static std::vector<Schedule>
warpgroupTf32Tiles(std::initializer_list<std::array<int64_t, 3>> tiles,
                   llvm::function_ref<void(Schedule &)> set) {
  std::vector<Schedule> space;
  for (auto [bm, bn, bk] : tiles) {
    Schedule s = warpgroupTf32Tile(bm, bn, bk);
    set(s);
    space.push_back(s);
  }
  return space;
}

/// tf32's persistent part (`_wf`): tiles of 128 x 256, 128 x 128, 64 x 256,
/// 64 x 128 and 128 x 64 with TMA for A, B and C, raster 8; and 128 x 256,
/// 128 x 128 with A by TMA and B copied by the producer's threads in
/// pieces of 4 or 1 elements (a row-major B: tf32 wgmma reads it K-major,
/// so the threads transpose it), C stored from registers (by TMA from
/// 128 x 256: 128 accumulators a thread leave no registers for the
/// element-wise edges), pieces of 1 in at most 160 KB of stages (their
/// cp.async reads through L1, `_wu`). The TMA tiles fill shared memory
/// with stages of K-major operands; where one is M- or N-major its staging
/// tile takes room too (`_wfb`), and the checks leave them out.
std::vector<Schedule> tuning::enumerateWarpgroupTf32() {
  std::vector<Schedule> space = warpgroupTf32Tiles(
      {{128, 256, 32},
       {128, 128, 32},
       {128, 128, 64},
       {64, 256, 32},
       {64, 128, 64},
       {128, 64, 64}},
      [](Schedule &s) {
        s.persistent = true;
        s.raster = 8;
      });
  for (int64_t bn : {256, 128})
    for (int64_t piece : {4, 1}) {
      Schedule s = warpgroupTf32Tile(128, bn, 32);
      s.tmaB = false;
      s.tmaC = bn == 256;
      s.vectorize = std::array<int64_t, 4>{1, 1, 1, 1};
      if (piece > 1)
        s.globalLoadB = piece;
      else
        s.vectorize.reset();
      int64_t room = piece == 1 ? 160 * 1024 : roomForStages(s);
      s.stages = std::min<int64_t>(8, room / ((128 + bn) * 32 * 4));
      s.persistent = true;
      s.raster = 8;
      space.push_back(s);
    }
  return space;
}

/// The tiles of `_wf`, `_wfs`, `_wfz` and `_wft` that TMA copies both
/// operands of: what `_wfb` and `_wfr` start from.
static std::vector<Schedule> tf32TmaTiles() {
  std::vector<Schedule> tiles;
  for (auto part :
       {tuning::enumerateWarpgroupTf32, tuning::enumerateWarpgroupTf32StreamK,
        tuning::enumerateWarpgroupTf32AtLaunch,
        tuning::enumerateWarpgroupTf32Transposed})
    for (const Schedule &s : part())
      if (s.tmaA && s.tmaB)
        tiles.push_back(s);
  return tiles;
}

/// tf32's staged part (`_wfb`): `_wf`'s TMA tiles, then `_wfs`'s, `_wfz`'s
/// and `_wft`'s, with as many stages as hold the staging tile of an M- or
/// N-major operand beside them (TMA copies it as the matrix holds it and
/// the producer's threads transpose it into the K-major tile): the larger
/// of BM and BN by BK more a stage.
std::vector<Schedule> tuning::enumerateWarpgroupTf32Staged() {
  std::vector<Schedule> space;
  for (Schedule s : tf32TmaTiles()) {
    int64_t stageBytes =
        (s.bm() + s.bn() + std::max(s.bm(), s.bn())) * s.bk() * 4;
    s.stages = std::min<int64_t>(s.stages, roomForStages(s) / stageBytes);
    if (s.stages >= 2)
      space.push_back(s);
  }
  return space;
}

/// tf32's register part (`_wfr`): the transposed problem C^T = B^T * A^T
/// of `_wf`'s, `_wfs`'s and `_wfz`'s TMA tiles (BM along N, BN along M)
/// and `_wft`'s, with wgmma's A (B^T) from registers, which the consumers
/// load from its tile as TMA copied it where B is row-major (M-major
/// there): no staging tile, no transposition. The larger tiles in 4
/// stages (128 x 128 x 32 ran 4096^3 0.81x cuBLAS in 4, 0.75x in 6, an
/// H200) and in as many as shared memory holds; the narrow ones as
/// `_wft`'s. The checks leave them out where B is column-major (B^T is
/// K-major: wgmma reads it from shared memory itself).
std::vector<Schedule> tuning::enumerateWarpgroupTf32Registers() {
  std::vector<Schedule> space;
  for (Schedule s : tf32TmaTiles()) {
    s.wgmmaRegistersA = true;
    if (s.transpose) {
      space.push_back(s);
      continue;
    }
    s.transpose = true;
    int64_t most = s.stages;
    s.stages = std::min<int64_t>(4, most);
    space.push_back(s);
    if (most > 4) {
      s.stages = most;
      space.push_back(s);
    }
  }
  return space;
}

/// Hopper's f32 register part (`_wxr`, math = tf32x3): `_wfr`'s tiles,
/// wgmma's A (B^T where B is row-major) copied by TMA and split into tf32
/// parts and remainders in the consumers' registers as they load it, the
/// transposed problem's B (A^T) split by the producer's threads as they
/// copy it in pieces of 4 elements; each stage holds B's parts and
/// remainders, so as many stages as shared memory holds, at most `_wfr`'s.
/// Where the producer's threads split both operands (`_wx`), their copies
/// fall behind memory on the skinny problems (`_wxt`: 0.51-0.58x cuBLAS at
/// M of 17-64, docs/tuning.md).
std::vector<Schedule> tuning::enumerateWarpgroupSplitTf32Registers() {
  std::vector<Schedule> space;
  for (Schedule s : enumerateWarpgroupTf32Registers()) {
    s.tmaB = false;
    s.vectorize = std::array<int64_t, 4>{1, 1, 1, 1};
    s.globalLoadB = 4;
    int64_t stageBytes = (s.bm() + 2 * s.bn()) * s.bk() * 4;
    s.stages = std::min<int64_t>(s.stages, roomForStages(s) / stageBytes);
    if (s.stages >= 2)
      space.push_back(s);
  }
  return space;
}

/// tf32's stream-K part (`_wfs`): `_wf`'s 128 x 256 and 128 x 128 TMA tiles
/// with `persistent stream-k`.
std::vector<Schedule> tuning::enumerateWarpgroupTf32StreamK() {
  return warpgroupTf32Tiles({{128, 256, 32}, {128, 128, 32}}, [](Schedule &s) {
    s.persistent = true;
    s.streamK = true;
    s.raster = 8;
  });
}

/// tf32's part whose splits the launch chooses (`_wfz`): TMA tiles of
/// 128 x 128, 64 x 128, 128 x 64 and 64 x 64, `split-k ?`, raster 8.
std::vector<Schedule> tuning::enumerateWarpgroupTf32AtLaunch() {
  return warpgroupTf32Tiles(
      {{128, 128, 32}, {64, 128, 64}, {128, 64, 64}, {64, 64, 64}},
      [](Schedule &s) {
        s.splitK = 0;
        s.raster = 8;
      });
}

/// tf32's transposed part (`_wft`, a short M as wgmma's N): 64 rows along
/// N by 8, 16, 32 or 64 along M, and 128 by 8, deep K steps as `_wd`'s
/// (BK of 128 floats where the tile is narrow), TMA for A and B (both
/// K-major after the transposition only where they were before), C from
/// registers, the splits chosen at launch.
std::vector<Schedule> tuning::enumerateWarpgroupTf32Transposed() {
  return warpgroupTf32Tiles(
      {{64, 8, 128}, {64, 16, 128}, {64, 32, 64}, {64, 64, 64}, {128, 8, 128}},
      [](Schedule &s) {
        s.transpose = true;
        s.tmaC = false;
        s.stages = std::min<int64_t>(
            8, roomForStages(s) / ((s.bm() + s.bn()) * s.bk() * 4));
        s.splitK = 0;
      });
}
