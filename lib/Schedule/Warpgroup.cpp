//===- Warpgroup.cpp - the Hopper kernel a wgmma schedule implies ---------===//

#include "gemmc/Schedule/Warpgroup.h"
#include "gemmc/Schedule/Registers.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace gemmc;

int64_t TmaOperand::leadingByteOffset() const {
  // K-major with the 128-byte swizzle: one wgmma's K step (32 bytes) lies
  // within a swizzled row, and the field is unused (1 by convention).
  // MN-major: the distance between 128-byte-wide chunks along M or N.
  return kMajor ? 16 : chunkBytes;
}

int64_t TmaOperand::offsetOf(int64_t mn, int64_t kElements,
                             int64_t elementBytes) const {
  int64_t kBytes = kElements * elementBytes;
  if (kMajor) {
    // Chunks along K of 128 bytes; rows of M or N are 128 bytes apart in a
    // chunk, and a K step inside a swizzled row is a plain byte offset (the
    // swizzle is applied to the address bits by the hardware).
    return (kBytes / kSwizzleBytes) * chunkBytes + mn * kSwizzleBytes +
           kBytes % kSwizzleBytes;
  }
  // Chunks along M or N of 128 bytes; rows of K are 128 bytes apart.
  int64_t elementsPerRow = kSwizzleBytes / elementBytes;
  return (mn / elementsPerRow) * chunkBytes + kElements * kSwizzleBytes;
}

/// The boxes of one operand's BK x `mnExtent` tile.
static TmaOperand layOut(Operand operand, bool kMajor, int64_t bk,
                         int64_t mnExtent, int64_t elementBytes) {
  int64_t elementsPerRow = kSwizzleBytes / elementBytes;
  TmaOperand t;
  t.operand = operand;
  t.kMajor = kMajor;
  t.boxInner = elementsPerRow;
  if (kMajor) {
    t.boxOuter = mnExtent;
    t.chunks = llvm::divideCeil(bk, elementsPerRow);
  } else {
    t.boxOuter = bk;
    t.chunks = llvm::divideCeil(mnExtent, elementsPerRow);
  }
  t.chunkBytes = t.boxOuter * kSwizzleBytes;
  return t;
}

WarpgroupKernel gemmc::getWarpgroupKernel(const Problem &p, const Schedule &s) {
  WarpgroupKernel k;
  k.consumers = s.consumers.value_or(1);
  k.threads = s.threadsPerBlock();
  k.stages = s.stages;
  if (s.wgmma) {
    k.instM = (*s.wgmma)[0];
    k.instN = (*s.wgmma)[1];
    k.instK = (*s.wgmma)[2];
  }
  k.elementBytes = sizeInBytes(p.a);
  k.pingPong = s.pingPong;
  k.rowsPerConsumer = k.pingPong ? s.bm() : s.bm() / k.consumers;
  k.mTiles = k.rowsPerConsumer / std::max<int64_t>(k.instM, 1);
  k.nTiles = k.instN ? s.bn() / k.instN : 0;
  k.kSteps = k.instK ? s.bk() / k.instK : 0;
  // tf32 wgmma reads f32 operands only K-major: an M- or N-major one is
  // transposed in shared memory.
  bool f32 = p.a == ElementType::F32;
  bool aKMajor = p.aLayout == MatrixLayout::Row;
  bool bKMajor = p.bLayout == MatrixLayout::Col;
  bool transposeA = f32 && !aKMajor && !s.wgmmaRegistersA;
  bool transposeB = f32 && !bKMajor;
  k.a =
      layOut(Operand::A, aKMajor || transposeA, s.bk(), s.bm(), k.elementBytes);
  k.b =
      layOut(Operand::B, bKMajor || transposeB, s.bk(), s.bn(), k.elementBytes);
  k.a.transposed = transposeA;
  k.b.transposed = transposeB;
  k.a.inRegisters = s.wgmmaRegistersA;
  // Without `tma a` (`tma b`) the producer's threads copy the operand in
  // pieces of its global-load width (`vectorize global-load`, one element
  // by default), with tf32x3 splitting each element.
  k.a.byTma = s.tmaA;
  k.b.byTma = s.tmaB;
  k.tf32x3 = p.tf32x3;
  k.promotes = p.tf32x3 || (isFloat8(p.a) && !p.fastAccumulate);
  k.blockScales = p.scales == ScaleKind::Block;
  if (k.blockScales) {
    int64_t latestStart = kScaleBlock - std::gcd(s.bn(), kScaleBlock);
    k.scaleBlocks = (latestStart + s.bn() - 1) / kScaleBlock + 1;
  }
  // tf32x3: the producer's threads split what they copy; A's fragments in
  // registers are split by the consumers as they load them.
  k.a.split = p.tf32x3 && !s.tmaA && !k.a.inRegisters;
  k.b.split = p.tf32x3 && !s.tmaB;
  k.a.pieceBytes = s.globalLoadWidth(Operand::A) * k.elementBytes;
  k.b.pieceBytes = s.globalLoadWidth(Operand::B) * k.elementBytes;
  // f32 pieces go by cp.async: a transposed operand's rows of 4 elements
  // into the units of its 4 x 4 blocks, each block transposed in place
  // once it landed, and tf32x3's elements split in shared memory (in the
  // transposition, where transposed); with `tma` a transposed operand is
  // staged (TmaOperand). Before, a transposed operand went through
  // registers (16-byte loads, four 4-byte shared stores, rounds of 4
  // copies: 64 bytes in flight a thread) or as four 4-byte cp.async a
  // piece. Measured on an H200, held-out problems, old and new PTX in one
  // process: the f32 family (tf32x3, rrr) 1.008 -> 1.159x cuBLAS SGEMM;
  // plain tf32's blocks by cp.async 0.92x as fast as the register copies
  // (0.48 -> 0.46x cuBLAS), TMA staged 0.46 -> 0.77x (re-selected).
  // 2-byte pieces go by cp.async as aligned windows realigned in shared
  // memory where their ninth windows fit beside the stages (below),
  // through registers otherwise. Measured on an H100 (f16 rrr, x cuBLAS
  // in the same process, 128x128x64 tiles, 4 stages, registers -> windows):
  // 4095x4097x4093 (every row odd) 0.67 -> 0.95 static, 0.58 -> 0.93 with
  // sizes at launch, 128x256x64 in 3 stages 1.04; 401408x64x147 (A only,
  // 128x64 tiles) 0.96 -> 1.39; but 1500x51866x1280 (rows 4-byte aligned)
  // 0.65 -> 0.57. Windows by cp.async.cg (L2 only) 0.76; eight threads a
  // run, coalesced but each window's checks its own work, 0.52.

  // The blocks of a cluster row compute the same rows of C and share A's
  // tile; those of a column share B's.
  k.clusterM = s.clusterM();
  k.clusterN = s.clusterN();
  // (A staged operand is not multicast: each block stages its own.)
  k.a.multicast = k.a.staged() ? 1 : k.clusterN;
  k.b.multicast = k.b.staged() ? 1 : k.clusterM;
  k.emptyArrivals = k.stageConsumers() * (k.clusterM + k.clusterN - 1);
  if (s.tmaC) {
    TmaStore c;
    c.rowMajor = p.cLayout == MatrixLayout::Row;
    c.elementBytes = sizeInBytes(p.c);
    int64_t lineElements = kSwizzleBytes / c.elementBytes;
    // A row-major group's rows are 128-byte lines; a column-major group's
    // lines are its columns, any count of them a box: the widest multiple
    // of 8 that divides BN, up to a line's elements (BN = 216: 24), so
    // that transposed tiles of any wgmma N store C with TMA.
    c.groupColumns = lineElements;
    if (!c.rowMajor)
      while (c.groupColumns > 8 && s.bn() % c.groupColumns)
        c.groupColumns -= 8;
    c.groupsPerTile = k.mTiles * (s.bn() / c.groupColumns);
    c.boxInner = lineElements;
    c.boxOuter = c.rowMajor ? c.groupRows : c.groupColumns;
    c.boxes = c.rowMajor ? 1 : c.groupRows / lineElements;
    k.c = c;
  }

  // Every stage of a swizzled tile starts on a 1024-byte boundary
  // (TmaOperand::stageStride), and so does each of C's buffers.
  auto alignAtom = [](int64_t bytes) {
    return llvm::alignTo(bytes, kSwizzleAtomBytes);
  };
  auto layOutShared = [&]() {
    k.aStageStride = k.a.stageStride();
    k.bStageStride = k.b.stageStride();
    k.aOffset = 0;
    k.bOffset = k.stages * k.aStageStride;
    k.cOffset = k.bOffset + k.stages * k.bStageStride;
    int64_t cBytes =
        k.c ? alignAtom(k.c->groupBytes()) * TmaStore::kBuffers * k.consumers
            : 0;
    k.scaleOffset = k.cOffset + cBytes;
    k.scaleStageStride =
        k.blockScales ? llvm::alignTo((s.bm() + k.scaleBlocks) * 4, 16) : 0;
    k.fullBarrierOffset = k.scaleOffset + k.stages * k.scaleStageStride;
    k.emptyBarrierOffset = k.fullBarrierOffset + 8 * k.stages;
    k.landedBarrierOffset = k.emptyBarrierOffset + 8 * k.stages;
    k.sharedBytes =
        k.landedBarrierOffset + (k.stagesByTma() ? 8 * k.stages : 0);
    // Stream-K's consumers learn from a word of their own whether their
    // block counted in last.
    if (s.streamK) {
      k.countFlagOffset = k.sharedBytes;
      k.sharedBytes += 8;
    }
  };
  layOutShared();
  // The realigned runs' ninth windows (an eighth of the tile) that do not
  // fit beside the stages: through registers instead.
  int64_t limit = lookupArch("sm_90a")->sharedMemoryLimit;
  if (k.sharedBytes > limit &&
      (k.a.realignsInShared() || k.b.realignsInShared())) {
    for (TmaOperand *t : {&k.a, &k.b})
      t->registerCopies |= t->realignsInShared();
    layOutShared();
  }
  for (const TmaOperand *t : {&k.a, &k.b}) {
    if (!t->byTma)
      continue;
    (t->staged() ? k.landedTransactionBytes : k.stageTransactionBytes) +=
        t->stageBytes();
  }
  k.fullArrivals = (k.fullByTma() ? 1 : 0) +
                   (k.threadsCopy() ? kWarpgroupSize : 0);
  // A thread splits, realigns or transposes its copies once they landed,
  // before it arrives.
  auto cpAsyncOrTma = [](const TmaOperand &t) {
    return t.byTma ? !t.staged()
                   : t.usesCpAsync() && !t.transformsInShared();
  };
  k.asyncArrivals = k.threadsCopy() && cpAsyncOrTma(k.a) && cpAsyncOrTma(k.b);
  bool lands = k.a.usesCpAsync() || k.b.usesCpAsync() || k.stagesByTma();
  if (!k.asyncArrivals && lands)
    k.copyLag = std::max<int64_t>(k.stages - 2, 0);
  bool realigns = k.a.realignsInShared() || k.b.realignsInShared();
  k.finishesCopiesEachTile = k.copyLag > 0 && realigns && p.grouped;

  // 64K registers per multiprocessor: the producer keeps 40 (TMA), 56
  // (its threads' cp.async copies: a round's addresses), 152 (cp.async
  // copies that tf32x3 splits or that are realigned in shared memory:
  // LLVM hoists every copy's offsets out of the pipeline's loop, and the
  // split comes beside them; f32 rrc, 128x128x32 tiles, A in 8-byte pieces
  // and B transposed, spilled 16 bytes at 136) or 160 (a round of 8 copies
  // through registers, 40 words of 2-byte pieces in flight between their loads
  // and stores; rounds of 4 at 104 measured 0.59x cuBLAS at 4095x4097x4093 on
  // an H100, 8 at 152 0.68x; beside cp.async pieces of the other operand
  // 152 spilled), the consumers share the rest (a multiple of 8, at most
  // 256). With one consumer the 255 a thread may have at entry are enough.
  bool throughRegisters = k.a.throughRegisters() || k.b.throughRegisters();
  bool transforms = k.transformsInShared();
  // Stream-K's consumers hold, beside the tile, the shared tiles' sums
  // and the partials in flight to them (128x128 tiles spilled 28 bytes at
  // 232): its TMA producer, whose issuer alone walks the units, gives up
  // 16 more (ptxas spills neither at 24 + 2 x 240); with block scales all
  // its threads walk them, copying scales, at 40.
  // Multicasting both operands M- and N-major (a cluster of 2 x 2 blocks
  // or more, A column-major, B row-major), the issuer's slices of their
  // boxes spilled 96-128 bytes at 40 (the schedule fuzzer's s3_946:
  // 256x64 tiles of bf16 in clusters of 4 x 2; 2 x 1, 1 x 2 or a K-major
  // operand none), at 56 none.
  auto multicastMN = [](const TmaOperand &operand) {
    return operand.byTma && !operand.kMajor && operand.multicast > 1;
  };
  bool slicesBoth = multicastMN(k.a) && multicastMN(k.b);
  // Ping-pong consumers hold a whole tile each; reading a vector of the
  // epilogue element by element beside 192 accumulators (rowwise scales,
  // a column bias, R or beta * C), they spilled 36-460 bytes at 232 (a
  // grid of e4m3 and f16 128 x 192 tiles, C bf16 and f32), at 240 none
  // with rowwise scales and 8-20 with the others, but for a column bias
  // into an f32 C (168 bytes; HopperRules.cpp warns of it).
  k.accumulators = k.mTiles * s.bn() / 2;
  bool vectorsBesideTile =
      s.pingPong && k.accumulators >= 192 &&
      (p.scales == ScaleKind::Rowwise || p.bias == BiasKind::Col ||
       p.residual || p.alphaBeta);
  // The general form's issuer walks the group table and writes each
  // group's tensor maps (GroupMaps.cpp): at 40 a 128 x 192 tile's spilled
  // 88 bytes, at 56 none; a grid of 48 such kernels (bf16, tiles 128 x 256
  // to 64 x 128, cooperative and ping-pong, alpha-beta, GELU or R, B either
  // way, C bf16 or f32) spilled up to 88 bytes at 56 (128 x 256 tiles,
  // ping-pong 128 x 128 with GELU), none at 88, where the consumers'
  // 208 hold a 128 x 256 tile's 128 values and its epilogue.
  bool mapsGroups = p.groupTable && k.usesTma();
  k.producerRegisters = throughRegisters                    ? 160
                        : transforms                        ? 152
                        : mapsGroups                        ? 88
                        : k.copiesByThreads() || slicesBoth ? 56
                        : (s.streamK || vectorsBesideTile) && !k.blockScales
                            ? 24
                            : 40;
  // The split must leave 8 a thread unallocated: at 160 + 2 x 176, the
  // whole 512, the kernels hung on an H100 (the consumers' setmaxnreg
  // waited for ever); every split that ran leaves 8 (CUTLASS's 40 + 2 x 232
  // too).
  int64_t perConsumer =
      (65536 / kWarpgroupSize - 8 - k.producerRegisters) / k.consumers;
  k.consumerRegisters =
      k.consumers == 1 ? 0 : std::min<int64_t>(perConsumer / 8 * 8, 256);
  // With one consumer no warpgroup takes what the producer gives back, so
  // it gives back little: 240 of the 255 a thread has at entry. Given back
  // down to 40-160, its copies spilled once ptxas honoured the split
  // (`.minnctapersm`, below): of the schedule fuzzer's seed 37 (400
  // accepted, --hopper-only), 24 of the 230 kernels of one consumer
  // spilled, 9 more than 64 bytes unwarned (s37_10 204 bytes, s37_483
  // 184); at 240, 5 and 4, the rest the consumers' own, every kernel at
  // the same 255 registers. Without the decrease ptxas would allocate less
  // than 255 (51-235 in the shipped families), the state measured slower.
  if (k.consumers == 1)
    k.producerRegisters = 240;
  k.sums = k.promotes ? k.accumulators : 0;
  k.promoteSteps = k.kSteps;
  if (p.tf32x3 && k.instK)
    k.promoteSteps = std::min<int64_t>(k.kSteps, kTf32x3PromoteK / k.instK);
  // A fragment is 64 x instK elements over the warpgroup's 128 threads;
  // tf32x3 holds each as its tf32 part and remainder.
  if (k.a.inRegisters)
    k.fragments = k.mTiles * k.kSteps * k.instM * k.instK / kWarpgroupSize *
                  (p.tf32x3 ? 2 : 1);
  // The producer's threads copying operands spilled at 56 where their
  // rounds are long (a grid of 42 kernels, bf16 and tf32, tiles 128x64 to
  // 256x128, A in pieces of 4 to 16 bytes, B by the threads or TMA, ptxas
  // -v at each split: both operands by the threads spilled up to 184
  // bytes at 56, 104 at 88, 24 at 104, none at 120; one of them, 16 at
  // 56, none at 72; the schedule fuzzer's s80_1945, 76 at 56). So the
  // producer takes 120 or 72 where the consumers keep what they hold and
  // 56 more (their addresses and the epilogue's values; the grid's 128
  // values a thread spilled nothing at 120 / 192), at least its 56. Where
  // the consumers store or read C or R element by element at the edges, 96
  // more (a grouped kernel of 128 values, A copied by the threads, alpha,
  // beta and scales, spilled 48 bytes at 56 / 224 and 84 at 72 / 216): so
  // such consumers of 128 values keep 224.
  if (k.consumers > 1 && k.copiesByThreads() && !throughRegisters &&
      !transforms) {
    int64_t wanted =
        !k.a.byTma && !k.b.byTma ? WarpgroupKernel::kProducerCopyRegisters : 72;
    int64_t consumersNeed = llvm::alignTo(
        k.liveValues() + (elementwiseAtEdges(p, s, k) ? 96 : 56), 8);
    int64_t room =
        (65536 / kWarpgroupSize - 8 - k.consumers * consumersNeed) / 8 * 8;
    k.producerRegisters = std::clamp<int64_t>(room, 56, wanted);
    k.consumerRegisters = std::min<int64_t>(
        (65536 / kWarpgroupSize - 8 - k.producerRegisters) / k.consumers / 8 *
            8,
        256);
  }
  // ptxas honours `setmaxnreg` only where it knows what a thread has at
  // entry; without `.minnctapersm 1` (CUTLASS's launch bounds of one block)
  // it ignored the split (C7508) in 122 of the 234 shipped variants that
  // set it, the consumers left what a thread gets at entry. With it the f16
  // family's held-out problems ran 0.950 -> 0.957x cuBLAS and f32's 1.046
  // -> 1.045x (an H200, both in one process). Not where split-K's
  // consumers sum partials beside more than 96 values a thread: there
  // ptxas honoured the split without it and spills with it (two consumers
  // of 128 x 208 to 128 x 256 or 256 x 128 tiles, `split-k` 2, 4 or ?:
  // 76-256 bytes, 0-32 without; 128 x 192, 96 values: none either way).
  bool splitSumsBesideTile =
      s.splitsK() && k.consumers > 1 && k.liveValues() > 96;
  k.minBlocksPerSM = splitSumsBesideTile ? 0 : 1;
  k.freesLastStageInLoop =
      !k.drainsEachStage() && p.activation != Activation::None;
  k.carriesStageAndPhase = !llvm::isPowerOf2_64(k.stages);
  return k;
}

int64_t WarpgroupKernel::storeGroupsReadAhead(int64_t matrices) const {
  if (!c || matrices == 0)
    return 1;
  int64_t budget =
      consumerRegisters ? consumerRegisters : kMaxRegistersPerThread;
  int64_t perGroup = matrices * c->groupBytes() / (kWarpgroupSize * 4);
  // Reading ahead keeps the groups' addresses live too: cooperative 128x256
  // tiles adding R (232 registers, 128 accumulators) spilled nothing 2
  // groups ahead, 88 bytes 3 ahead and 248 bytes 4 ahead.
  int64_t spare =
      budget - liveValues() - kConsumerOverheadRegisters - kAddressingRegisters;
  return std::clamp<int64_t>(spare / std::max<int64_t>(perGroup, 1), 1,
                             c->groupsPerTile);
}

int64_t gemmc::leadingDimMultiple(const TmaOperand &t, int64_t elementBytes) {
  return (t.byTma ? 16 : t.pieceBytes) / elementBytes;
}

bool gemmc::elementwiseAtEdges(const Problem &p, const Schedule &s,
                               const WarpgroupKernel &k) {
  return hasEdgeTiles(p, s) && (!k.c || p.alphaBeta || p.residual);
}

bool gemmc::hasEdgeTiles(const Problem &p, const Schedule &s) {
  // A group's tiles end where its rows do.
  if (p.isDynamic() || p.grouped)
    return true;
  int64_t tilesM = llvm::divideCeil(*p.m, s.bm());
  int64_t tilesN = llvm::divideCeil(*p.n, s.bn());
  return *p.m % s.bm() || *p.n % s.bn() || tilesM % s.clusterM() ||
         tilesN % s.clusterN();
}
