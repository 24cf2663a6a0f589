//===- Warpgroup.h - the Hopper kernel a wgmma schedule implies -*- C++ -*-===//
//
// A schedule with `wgmma` describes a warp-specialised kernel for sm_90a: a
// producer warpgroup copies tiles of A and B into 128-byte-swizzled shared
// memory, `stages` deep, each stage completing on an mbarrier ("full") and
// released by the consumers on another ("empty"): with the tensor memory
// accelerator (TMA) where the schedule says `tma a` (`tma b`), otherwise its
// 128 threads copy the operand piece by piece (cp.async; pieces of 2 bytes
// as the aligned 16-byte windows that hold them, shifted into place once
// landed, or through registers), which takes any leading dimension
// and alignment; the consumer warpgroups multiply with
// wgmma.mma_async reading both operands from shared memory through matrix
// descriptors, and store C from their accumulators. This header is the one
// home of that kernel's layout: the shared-memory map, the TMA boxes (which
// the kernel contract states and the runtime encodes tensor maps from), the
// wgmma descriptors' strides, the register split of `setmaxnreg`, and the
// rules such a schedule must satisfy.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_WARPGROUP_H
#define GEMMC_SCHEDULE_WARPGROUP_H

#include "gemmc/Schedule/Schedule.h"

#include <optional>

namespace gemmc {

/// The 128-byte swizzle TMA writes and wgmma reads: rows of 128 bytes in
/// atoms of 8 rows (1024 bytes, the alignment a swizzled tile needs).
inline constexpr int64_t kSwizzleBytes = 128;
inline constexpr int64_t kSwizzleAtomBytes = 1024;
/// A 16-byte unit of a swizzled row: a window of realigned copies.
inline constexpr int64_t kWindowBytes = 16;

/// The most blocks a cluster may have without opting in to non-portable
/// sizes.
inline constexpr int64_t kMaxClusterSize = 8;

/// The most pipeline stages a wgmma kernel may have (shared memory bounds
/// them first but for the narrowest tiles).
inline constexpr int64_t kMaxWarpgroupStages = 32;

/// The elements of K in each of tf32x3's promoted sums
/// (WarpgroupKernel::promoteSteps).
inline constexpr int64_t kTf32x3PromoteK = 32;

/// How one operand's tile of a stage lies in shared memory: `chunks` TMA
/// boxes of `boxInner` x `boxOuter` elements (innermost first, as
/// cuTensorMapEncodeTiled takes them), `chunkBytes` apart. Each box row is
/// 128 bytes of the operand's contiguous dimension. A K-major operand (A
/// row-major, B column-major) is split along K, an MN-major one along M or
/// N. Where the producer's threads copy the operand instead of TMA, they
/// write the same layout: `boxOuter` lines (rows of the box) of
/// `lineBytes()` bytes along the contiguous dimension, in pieces of
/// `pieceBytes`; byte `x` of line `l` of a chunk lies at 128 * l +
/// ((x / 16) ^ (l % 8)) * 16 + x % 16.
struct TmaOperand {
  Operand operand = Operand::A;
  /// K is the contiguous dimension.
  bool kMajor = true;
  int64_t boxInner = 0, boxOuter = 0, chunks = 0, chunkBytes = 0;
  /// Copied by TMA (`tma a`, `tma b`), or by the producer's threads in
  /// pieces of `pieceBytes` (2, 4, 8 or 16: cp.async from 4 on).
  bool byTma = true;
  int64_t pieceBytes = 0;
  /// The matrix's contiguous dimension is not the one the tile's lines run
  /// along in shared memory: an M- or N-major f32 operand, which tf32
  /// wgmma reads only K-major, transposed in shared memory (`kMajor` is
  /// the shared layout's). The tile is cut into blocks of 4 elements of K
  /// by 4 lines, each transposed by a producer thread once it landed
  /// (`transposesInShared`): the producer's threads copy each block's four
  /// rows of 4 M or N elements with cp.async into its own four 16-byte
  /// units of the tile (row i into line i's) and turn it in place; or TMA
  /// copies the tile as the matrix holds it into a staging tile after the
  /// stage's (`staged()`) and the threads write each block's columns into
  /// its units.
  bool transposed = false;
  /// `wgmma ... registers` (A only): the consumers load the tile's
  /// elements into wgmma's register fragments (ld.shared, an element at a
  /// time), so it lies as the matrix holds it, M-major too, and is never
  /// transposed.
  bool inRegisters = false;
  /// math = tf32x3: each element the producer's threads copy is stored as
  /// its tf32 part, in place, and the remainder, `remainderOffset()` bytes
  /// further (the same layout), for the consumers' three products. Copies
  /// through registers split their elements on the way; cp.async copies
  /// are split in shared memory once the stage's have landed
  /// (`splitsInShared`). Not an A in registers: the consumers split its
  /// fragments as they load them.
  bool split = false;
  /// The blocks of a cluster that share this tile (1 without multicast):
  /// each copies `sliceRows()` of every box's rows and TMA multicasts them
  /// to all; the tensor map's box is boxInner x sliceRows().
  int64_t multicast = 1;

  /// Bytes of the tile (of its tf32 part where `split`); from its start to
  /// the remainder's (a whole number of swizzle atoms); and from one stage
  /// to the next (both parts where `split`).
  int64_t stageBytes() const { return chunks * chunkBytes; }
  int64_t remainderOffset() const {
    return (stageBytes() + kSwizzleAtomBytes - 1) / kSwizzleAtomBytes *
           kSwizzleAtomBytes;
  }
  int64_t stageStride() const {
    if (split || staged())
      return 2 * remainderOffset();
    if (realignsInShared())
      return remainderOffset() +
             (runs() * kWindowBytes + kSwizzleAtomBytes - 1) /
                 kSwizzleAtomBytes * kSwizzleAtomBytes;
    return remainderOffset();
  }
  /// Bytes of a line of the tile along the contiguous dimension.
  int64_t lineBytes() const { return chunks * kSwizzleBytes; }
  /// Whether the producer's threads copy through registers (loads, then
  /// shared stores) rather than with cp.async (4, 8 or 16 bytes; where
  /// transposed, 4 bytes an element): getWarpgroupKernel decides.
  bool registerCopies = false;
  bool throughRegisters() const { return registerCopies; }
  bool usesCpAsync() const { return !byTma && !throughRegisters(); }
  bool splitsInShared() const {
    return split && usesCpAsync() && !transposed;
  }
  /// A transposed operand's blocks, transposed (and where `split` split)
  /// in place by a producer thread once they landed.
  bool transposesInShared() const { return transposed; }
  /// A transposed operand copied by TMA: its boxes (`stagingBox()`, 128
  /// bytes of M or N by BK rows of K, as an M- or N-major operand's) land
  /// in the staging tile `stagingOffset()` bytes into the stage, on the
  /// stage's "landed" mbarrier, not "full".
  bool staged() const { return byTma && transposed; }
  int64_t stagingOffset() const { return remainderOffset(); }
  /// The staging tile's boxes: `lineBytes() / elementBytes` rows (BK) of
  /// 128 bytes, `boxOuter * elementBytes / 128` chunks along M or N (each
  /// BK x 128 bytes).
  int64_t stagingRows(int64_t elementBytes) const {
    return lineBytes() / elementBytes;
  }
  /// The 4 x 4 blocks of a stage's tile (transposesInShared).
  int64_t blocks() const { return boxOuter * lineBytes() / 64; }
  /// 2-byte pieces by cp.async (which cannot take a source only 2-byte
  /// aligned): a thread copies each of its runs, 128 bytes of a line of
  /// one chunk, as the nine 16-byte-aligned windows of the matrix that
  /// hold them, the first eight into the run's own 16-byte units of the
  /// tile and the ninth `remainderOffset()` bytes further (16 bytes a
  /// run); once they landed it shifts the run into place, unit by unit.
  bool realignsInShared() const { return usesCpAsync() && pieceBytes < 4; }
  /// Whether a thread rewrites its landed cp.async copies before the
  /// stage is full (tf32x3's split, or the realignment).
  bool transformsInShared() const {
    return splitsInShared() || realignsInShared() || transposesInShared();
  }
  /// The runs of a stage's tile (realignsInShared), `chunks` to a line.
  int64_t runs() const { return boxOuter * chunks; }
  /// The bytes a thread copies at once: a cp.async piece, a realigned run
  /// (128 bytes), or 16 bytes through registers. 2-byte pieces through
  /// registers (whose source is only 2-byte aligned) are loaded as the
  /// aligned 4-byte words that hold them, each pair shifted by half a word
  /// where the source is not 4-byte aligned, then stored with one 16-byte
  /// shared store. (At the matrix's edges, element by element.)
  int64_t copyBytes() const {
    if (realignsInShared())
      return kSwizzleBytes;
    return usesCpAsync() ? pieceBytes : 16;
  }
  /// The copies of a stage's tile, and of each of the producer's threads
  /// (the last round of copies may leave threads idle).
  int64_t pieces() const { return boxOuter * lineBytes() / copyBytes(); }
  int64_t piecesPerThread() const {
    return (pieces() + kWarpgroupSize - 1) / kWarpgroupSize;
  }
  /// The copies a thread handles per round of its copy loop (a divisor of
  /// piecesPerThread at most this): cp.async copies hold only addresses;
  /// copies through registers hold their words from the loads to the
  /// stores, and a round's loads in flight together are what hides their
  /// latency. (Rounds of 8 cp.async pieces spilled 112 bytes in the
  /// fuzzer's s1_3079, test/fuzz/copies-spill.test.)
  /// (A realigned run is nine cp.async: one a round.)
  int64_t piecesPerRound() const {
    if (realignsInShared())
      return 1;
    return usesCpAsync() ? 4 : 8;
  }
  int64_t sliceRows() const { return boxOuter / multicast; }
  /// The wgmma descriptor's leading and stride byte offsets.
  int64_t leadingByteOffset() const;
  int64_t strideByteOffset() const { return kSwizzleAtomBytes; }
  /// The byte offset, from the start of a stage, of the wgmma operand that
  /// starts at row (of M or N) `mn` and step `kStep` of K (each `kElems`
  /// elements of `elementBytes`).
  int64_t offsetOf(int64_t mn, int64_t kElements, int64_t elementBytes) const;
};

/// How a consumer warpgroup stores C through shared memory with TMA (`tma
/// c`): in groups of 64 rows (one wgmma tile) by `groupColumns` (128 bytes
/// of a row-major C; of a column-major one, the widest multiple of 8 that
/// divides BN, at most 128 bytes' worth), two buffers deep. A row-major
/// group is one TMA box of 64 rows of 128 bytes; a column-major one
/// `boxes` boxes of `boxInner` rows (128 bytes) by `groupColumns` columns.
/// Boxes are 128-byte swizzled: byte `x` of line `l` (a row of a row-major
/// box, a column of a column-major one) lies at 128 * l + ((x / 16) ^ (l %
/// 8)) * 16 + x % 16.
struct TmaStore {
  bool rowMajor = true;
  int64_t elementBytes = 4;
  int64_t groupRows = 64, groupColumns = 0, groupsPerTile = 0;
  /// The tensor map's box (innermost first), and boxes per group.
  int64_t boxInner = 0, boxOuter = 0, boxes = 1;
  static constexpr int64_t kBuffers = 2;

  int64_t boxBytes() const { return boxInner * boxOuter * elementBytes; }
  int64_t groupBytes() const { return boxes * boxBytes(); }
  /// TMA clips stores past the matrix in 16-byte units of its contiguous
  /// dimension (measured on an H200: the rest of such a unit is written):
  /// N (row-major C) or M (column-major) must be a multiple of this.
  int64_t sizeMultiple() const { return 16 / elementBytes; }
};

/// The Hopper kernel of a wgmma schedule.
struct WarpgroupKernel {
  int64_t consumers = 1;
  /// `warp-specialize 2 ping-pong`: each consumer computes whole tiles,
  /// the block's even tiles the first, its odd ones the second, each
  /// stage used (and released) by one of them; otherwise they share each
  /// tile, `rowsPerConsumer` rows each.
  bool pingPong = false;
  int64_t threads = 0;
  int64_t stages = 1;
  /// wgmma's shape: 64 x N x K.
  int64_t instM = 64, instN = 0, instK = 0;
  int64_t elementBytes = 2;
  /// Rows of C per consumer warpgroup (the tile's BM with `ping-pong`),
  /// and the wgmma tiles it covers.
  int64_t rowsPerConsumer = 0, mTiles = 0, nTiles = 0, kSteps = 0;
  /// Where consumer i's rows start in the tile: i times this.
  int64_t consumerRowStride() const { return pingPong ? 0 : rowsPerConsumer; }
  /// The consumers that use each stage: all of them, or with `ping-pong`
  /// the one whose tile it holds.
  int64_t stageConsumers() const { return pingPong ? 1 : consumers; }
  TmaOperand a, b;
  /// Whether the producer's threads rewrite a stage of either operand
  /// once it landed (TmaOperand::transformsInShared).
  bool transformsInShared() const {
    return a.transformsInShared() || b.transformsInShared();
  }
  /// With `tma c`: how C is stored.
  std::optional<TmaStore> c;
  /// The cluster: tile rows by tile columns of blocks.
  int64_t clusterM = 1, clusterN = 1;
  /// Arrivals that release a stage: each consumer warpgroup that uses it
  /// (stageConsumers) of every block whose producer writes into it (the
  /// block itself, the blocks of its cluster row and those of its cluster
  /// column).
  int64_t emptyArrivals = 1;
  /// The shared-memory map: A's stages, B's stages, C's store buffers (two
  /// per consumer), then the mbarriers (full, then empty, then where TMA
  /// stages an operand landed, 8 bytes each); the whole is requested
  /// dynamically and aligned to 1024 bytes.
  int64_t aOffset = 0, bOffset = 0, cOffset = 0, fullBarrierOffset = 0,
          emptyBarrierOffset = 0, landedBarrierOffset = 0, sharedBytes = 0;
  /// Stream-K: the i32 through which a shared tile's count reaches the
  /// consumers (after the barriers; 0 otherwise).
  int64_t countFlagOffset = 0;
  /// Bytes from one stage of A (B) to the next: a multiple of 1024.
  int64_t aStageStride = 0, bStageStride = 0;
  /// Block scales: each stage's BM + scaleBlocks f32 (16-byte aligned),
  /// after C's buffers.
  int64_t scaleOffset = 0, scaleStageStride = 0;
  /// Bytes one stage's TMA copies bring (the full barrier's transaction
  /// count), and the arrivals that complete its full barrier: one for the
  /// TMA copies (the issuing thread's arrive.expect_tx), one from each of
  /// the producer's threads where they copy an operand.
  int64_t stageTransactionBytes = 0, fullArrivals = 1;
  /// Bytes of a stage's staged operands (`stagesByTma`): the transaction
  /// count of its "landed" barrier, which the issuing thread's
  /// arrive.expect_tx alone arrives on.
  int64_t landedTransactionBytes = 0;
  /// Where the producer's threads copy only with cp.async and leave the
  /// elements as they are, each thread's copies of a stage arrive on its
  /// full barrier as they land (cp.async.mbarrier.arrive.noinc), and the
  /// consumers fence the stage for the async proxy once it is full.
  bool asyncArrivals = false;
  /// Otherwise, where cp.async copies sit beside copies through registers
  /// or are split in shared memory (tf32x3): the groups of copies (one a
  /// stage) a thread keeps in flight before it waits for the oldest,
  /// splits it, fences it and arrives on its full barrier. The consumers
  /// release a stage after the next one filled, so the producer may be at
  /// most stages - 2 behind.
  int64_t copyLag = 0;
  /// Whether the producer's threads finish each tile's copies (wait for
  /// them, realign them, arrive) before the next tile's, rather than
  /// `copyLag` iterations behind across tiles: where they realign 2-byte
  /// runs in shared memory and a run's place in its 16-byte window changes
  /// from tile to tile: a grouped GEMM's (its tiles start at any row of A,
  /// its groups' B at any 2 bytes; a batch's matrices start 16 bytes
  /// apart where they are realigned: Rules::checkHopperBatch). Realigned
  /// after the next tile's copies began, a run was shifted by that tile's
  /// place (the schedule fuzzer's s91_1484: a grouped GEMM, B in 2-byte
  /// pieces, wrong on an H200; seeds 36 and 80 found A's and the general
  /// form's, refused until then).
  bool finishesCopiesEachTile = false;
  /// `setmaxnreg`: the producer gives registers back, the consumers take
  /// them (with one consumer, none: it keeps what a thread has at entry,
  /// and the producer keeps most).
  int64_t producerRegisters = 0, consumerRegisters = 0;
  /// The registers the producer's threads want where they copy both
  /// operands (fewer where the consumers leave less; Warpgroup.cpp).
  static constexpr int64_t kProducerCopyRegisters = 120;
  /// `.minnctapersm` (nvvm.minctasm), or 0 for none: one block a
  /// multiprocessor at least, so that ptxas knows what a thread has at entry
  /// and honours the split above.
  int64_t minBlocksPerSM = 0;
  /// math = tf32x3: the consumers sum each k tile's three products of
  /// the operands' tf32 parts and remainders (A's remainder times B, A
  /// times B's remainder, then A times B) on the tensor cores from zero,
  /// then add that sum to the accumulators in f32.
  bool tf32x3 = false;
  /// Whether the consumers sum each k tile's products from zero and add
  /// that sum to the accumulators in f32: tf32x3's three products, and
  /// FP8's (whose tensor-core sums keep about 14 bits) but with `math =
  /// fast-accumulate`.
  bool promotes = false;
  /// `scales = block`: the consumers multiply each k tile's sum (BK = 128,
  /// one block of the scales deep) by A's scale of its row and B's of its
  /// column's block as they add it to the accumulators. The producer's
  /// threads copy a stage's scales (cp.async, arriving as they land) beside
  /// TMA's tiles: A's of the tile's BM rows, then B's of the `scaleBlocks`
  /// blocks of 128 columns the tile reaches (a BN-wide tile starts at most
  /// 128 - gcd(BN, 128) columns into its first).
  bool blockScales = false;
  int64_t scaleBlocks = 0;
  /// f32 accumulators per consumer thread, and where the kernel promotes
  /// as many for a k tile's sums (live in the loop, not in the epilogue).
  int64_t accumulators = 0, sums = 0;
  /// The K steps of each wgmma group a stage issues, and so of each
  /// promoted sum (`promotes`): the k tile's, but tf32x3's every 32
  /// elements of K (4 steps), where a deeper tile gets two or more sums a
  /// stage, each waited for and added in f32 before the next: the tensor
  /// cores truncate their sums, and with a sum over 64 or 128 of K the
  /// error against fp64 was 0.70x and 2.8x cuBLAS SGEMM's (median, an
  /// H200) where 32 gave 0.42x.
  int64_t promoteSteps = 0;
  /// A's register fragments a consumer thread holds (`a.inRegisters`):
  /// a k tile's, under tf32x3 each as its tf32 part and remainder.
  int64_t fragments = 0;
  /// Whether the consumers wait for each stage's wgmma to complete before
  /// the next (and release the stage then): to add a k tile's promoted
  /// sums, or where wgmma reads A's fragments from registers, which the
  /// next stage's would overwrite.
  bool drainsEachStage() const { return promotes || a.inRegisters; }
  /// Whether a tile's last K step frees its own stage (and a ping-pong
  /// consumer passes the turn there, before it waits for its wgmma), in
  /// the loop, rather than after it: where the epilogue applies an
  /// activation. Freed after the loop, ptxas moved the activation's
  /// arithmetic above the release (3,342 instructions of an f32 C's GELU
  /// on ping-pong 128 x 128 tiles, 386 on cooperative 128 x 256; other
  /// epilogues at most 78) and the producer could not refill the stage:
  /// freed in the loop, f32 C's GELU ran 1.04-1.24x as fast on an H200.
  /// But the last step's branch costs the loop its uniform registers
  /// (ptxas moved the K steps' count and the barriers' phase into vector
  /// registers): without an activation, ping-pong 128 x 128 tiles ran
  /// 4-7% slower (benchmarks/results/h100-issue33/epilogue-release.txt).
  bool freesLastStageInLoop = false;
  /// Whether each K loop (producer's and consumers') carries its step's
  /// stage and phase (i32, the next by compare and select) rather than
  /// deriving them from the pipeline iteration: where the stage count is
  /// not a power of two. There the derivation divides a 64-bit count each
  /// step, which ptxas kept in vector registers (ping-pong 128 x 128 with
  /// 6 stages: 99 SASS instructions a consumer's step, 52 carried; R in
  /// clusters ran 1.26x as fast, an f32 C's GELU 1.06x, on an H200).
  /// With a power of two it is a mask and a shift in uniform registers,
  /// and carrying cost cooperative 128 x 256 tiles of 4 stages 3-4%
  /// (benchmarks/results/h100-issue33/epilogue-release.txt).
  bool carriesStageAndPhase = false;
  /// The values a consumer thread keeps live across the k loop.
  int64_t liveValues() const { return accumulators + sums + fragments; }

  /// Whether the producer's threads copy some operand (not TMA).
  bool copiesByThreads() const { return !a.byTma || !b.byTma; }
  /// Whether the producer's threads copy or transpose anything (an
  /// operand, or the block scales): then all of them walk the pipeline and
  /// arrive.
  bool threadsCopy() const {
    return copiesByThreads() || blockScales || a.staged() || b.staged();
  }
  /// Whether TMA fills "full" (an operand it copies into the tile), and
  /// "landed" (a staged one: the producer's threads wait for it there,
  /// transpose it into the tile, then arrive on "full").
  bool fullByTma() const {
    return (a.byTma && !a.staged()) || (b.byTma && !b.staged());
  }
  bool stagesByTma() const { return a.staged() || b.staged(); }
  /// Named barriers: 0 is the block's; consumer warpgroup i stores C with
  /// TMA at 1 + i; the consumers reduce split-K's partials at
  /// splitKBarrier(), and the producer's threads meet before tf32x3's
  /// split at producerBarrier(); ping-pong consumer i passes the turn to
  /// the other at turnBarrier() + i.
  int64_t splitKBarrier() const { return consumers + 1; }
  int64_t producerBarrier() const { return consumers + 2; }
  int64_t turnBarrier() const { return consumers + 3; }
  bool usesTma() const { return a.byTma || b.byTma; }
  /// With `tma c`, where a tile inside the matrix reads `matrices` of C
  /// (beta) and R: the groups whose reads a consumer thread issues before
  /// it writes the first, one more as each is written, so that their
  /// latencies overlap rather than add up a group at a time. As many as
  /// the registers beside the live values hold (each group's reads
  /// `groupBytes() / 512` a matrix; kConsumerOverheadRegisters and
  /// kAddressingRegisters kept), at least 1: the group's own, read as it is
  /// written.
  int64_t storeGroupsReadAhead(int64_t matrices) const;
  /// Whether the stores read a bias at its index clamped into the vector,
  /// unguarded, a thread's rows sharing one read a column: beside at most
  /// 96 accumulators a thread. Beside 128, with split-K or stream-K, the
  /// reads merged and issued early spilled 12-80 bytes (64x256 and 128x256
  /// tiles), so there they stay guarded like C's.
  bool clampsBiasReads() const { return accumulators <= 96; }
};

/// The layout of the kernel of `schedule` (which has `wgmma`) for `problem`;
/// meaningful where checkSchedule accepts them.
WarpgroupKernel getWarpgroupKernel(const Problem &problem,
                                   const Schedule &schedule);

/// The leading dimension (and batch stride) of A or B must be a multiple
/// of this many elements: 16 bytes for TMA, a piece for the producer's
/// threads.
int64_t leadingDimMultiple(const TmaOperand &operand, int64_t elementBytes);

/// Whether some tiles of C, in `schedule`'s grid, reach past the matrix's
/// edges or lie wholly outside it (a cluster's blocks beyond the last tile
/// row or column): their stores must be guarded or clipped.
bool hasEdgeTiles(const Problem &problem, const Schedule &schedule);

/// Whether `kernel`'s consumers go element by element at the matrix's
/// edges: tiles there, and C stored from registers (no `tma c`), or C
/// (beta) or R read beside TMA's stores.
bool elementwiseAtEdges(const Problem &problem, const Schedule &schedule,
                        const WarpgroupKernel &kernel);

} // namespace gemmc

#endif // GEMMC_SCHEDULE_WARPGROUP_H
