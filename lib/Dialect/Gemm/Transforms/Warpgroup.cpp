//===- Warpgroup.cpp - Hopper's warp-specialised wgmma kernel -------------===//
//
// Lowers a kernel whose schedule has `wgmma` to the kernel of
// gemmc/Schedule/Warpgroup.h, whose layout (shared memory, TMA boxes,
// descriptor strides, registers) it takes from the schedule model:
//
//   thread 0: init full[s] (1 arrival + the stage's bytes), empty[s] (one
//             arrival per consumer warpgroup); fence; barrier
//   warpgroup 0 (producer), thread 0, for each (tile, k tile) `it`:
//     wait empty[it % S] (parity of the round before), arm full[it % S]
//     with the stage's bytes, TMA-copy the boxes of A and B into stage
//   (an operand without `tma`: all of the producer's threads loop, each
//   copying its pieces of the tile into the swizzled layout, with cp.async
//   (2-byte pieces as the aligned 16-byte windows that hold a 128-byte run
//   of a line, shifted into place by the thread once landed) or, for
//   2-byte pieces whose windows do not fit, loads of the aligned words
//   that hold 16 bytes of them, shifted into place, and 16-byte shared
//   stores. With cp.async alone a thread's copies arrive on full[it % S]
//   as they land (cp.async.mbarrier.arrive.noinc) and the consumers fence
//   the stage for the async proxy that wgmma reads through after their
//   wait; otherwise,
//   once its copies of iteration it - L have landed (cp.async.wait_group
//   L, L = S - 2, or at once without cp.async) the thread fences them and
//   arrives on that iteration's full barrier)
//   warpgroups 1.. (consumers), for each tile:
//     for each k tile: wait full[it % S]; wgmma.fence; wgmma.mma_async
//     over the stage; commit; wait until one group is in flight; release
//     the previous stage (empty, one arrival per warpgroup)
//     wait for the last group, release its stage, store C with the
//     epilogue from the accumulators: directly, or with `tma c` through
//     two shared-memory buffers per warpgroup that TMA stores (one group
//     of 64 rows x 128 bytes at a time; the matrix's edges clip them)
//
// With `split-k S` (one block per tile and split, the split blockIdx.z)
// each block covers ceil(K tiles / S) of K; the consumers store their
// partials, and the tile's last block sums them in split order and stores
// C (SplitK.h), the consumers meeting at a named barrier of their own.
//
// In a cluster (`cluster CMxCN`, persistent) the blocks walk the cluster's
// tiles in step: block (rm, rn) of the cluster computes tile row
// CM * r + rm and column CN * c + rn of cluster tile (r, c). The blocks of
// a cluster row share A's tile, each copying 1/CN of its rows and
// multicasting them to the row; likewise B in a column. A stage is free
// once the consumers of every block that writes into it have released it:
// they arrive on the "empty" barriers of their row's and column's blocks.
//
//===----------------------------------------------------------------------===//

#include "Epilogue.h"
#include "SplitK.h"
#include "Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <numeric>

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMWARPGROUP
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;
using gemmc::TmaOperand;
using gemmc::WarpgroupKernel;

/// The symbol of the kernels' dynamic shared memory.
static constexpr StringLiteral kSharedMemorySymbol = "gemmc_shared";

/// The suspend-time hint of the mbarrier waits, in nanoseconds.
static constexpr int64_t kWaitHintNs = 10000000;

/// tf32x3's split of an f32 element held as an i32 word: its tf32 part and
/// the remainder, as i32 words.
static std::pair<Value, Value> splitWord(OpBuilder &b, Location loc,
                                         Value word) {
  Value x = arith::BitcastOp::create(b, loc, b.getF32Type(), word);
  auto [big, small] = splitTf32(b, loc, x);
  Value bigWord = arith::BitcastOp::create(b, loc, b.getI32Type(), big);
  Value smallWord = arith::BitcastOp::create(b, loc, b.getI32Type(), small);
  return {bigWord, smallWord};
}

namespace {
/// Builds the kernel into `func` (whose body it replaces).
class KernelBuilder {
public:
  KernelBuilder(gpu::GPUFuncOp func, const gemmc::Problem &problem,
                const gemmc::Schedule &schedule, const WarpgroupKernel &kernel)
      : func(func), p(problem), s(schedule), k(kernel),
        loc(func.getLoc()), b(func.getContext()) {}

  LogicalResult build(MatmulOp matmul);

private:
  Value index(int64_t v) { return indexConstant(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value toI32(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  }
  /// A pointer `offset` bytes (an i32) into the dynamic shared memory.
  Value sharedPointer(Value offset) {
    return LLVM::GEPOp::create(b, loc, sharedBase.getType(), b.getI8Type(),
                               sharedBase, ValueRange{offset});
  }
  /// The mbarrier at `offset` + 8 * stage.
  Value barrier(int64_t offset, Value stage) {
    Value stage32 = toI32(stage);
    Value scaled = arith::MulIOp::create(b, loc, stage32, i32(8));
    Value at = arith::AddIOp::create(b, loc, scaled, i32(offset));
    return sharedPointer(at);
  }

  void buildPrologue();
  /// All threads of the cluster's blocks meet (a cluster kernel only).
  void clusterBarrier();
  void buildProducer(Value tileStart, Value tileStep);
  LogicalResult buildConsumer(Value tileStart, Value tileStep);
  /// The tile row and column (in tiles) of linear tile `tile`.
  std::pair<Value, Value> tileCoordinates(Value tile);
  /// The stage and the phase parity (i32) of pipeline iteration `it`.
  std::pair<Value, Value> stageAndPhase(Value it);
  void copyOperand(const TmaOperand &t, Value map, int64_t offset,
                   int64_t stride, Value stage, Value mn0, Value k0,
                   Value full);
  /// The byte offset (i32) of the stage `stage` of the tile at `offset`,
  /// stages `stride` bytes apart.
  Value stageBaseOf(int64_t offset, int64_t stride, Value stage);
  /// Walks a producer thread's copies of `t`'s tile in rounds of
  /// piecesPerRound: `copy(line, piece)` for each (index values, the
  /// copy's line and piece along it as the matrix holds the tile; inside a
  /// guard where the last round leaves threads without a copy), and
  /// `endRound()` after a round (and around a guarded copy).
  void forEachCopy(const TmaOperand &t, function_ref<void(Value, Value)> copy,
                   function_ref<void()> endRound);
  /// Where a copy goes in the stage at `stageBase`: one destination, or
  /// where `t` is transposed one per element (four lines of the tile).
  SmallVector<Value, 4> copyDestinations(const TmaOperand &t, Value stageBase,
                                         Value line, Value piece);
  /// The producer's threads copy the tile of `t` (not TMA) at (`mn0`,
  /// `k0`) (index values) of `matrix` into `stage`.
  void copyByThreads(const TmaOperand &t, Value matrix, int64_t offset,
                     int64_t stride, Value stage, Value mn0, Value k0);
  /// Where a thread's copies of `matrix` come from: the address of its
  /// first element, and the byte strides along the tile's lines and its
  /// contiguous dimension (index values).
  struct CopySource {
    Value base, lineStride, positionStride;
  };
  CopySource copySource(const TmaOperand &t, Value matrix);
  /// Walks a producer thread's runs of `t` (realignsInShared):
  /// `visit(line, chunk)` for run lane + 128 j, which is line (run %
  /// lines) of chunk (run / lines) (index values; inside a guard where the
  /// last leaves threads without one).
  void forEachRun(const TmaOperand &t, function_ref<void(Value, Value)> visit);
  /// Where the windows of the run at `line` of `chunk` (i32 values) go in
  /// the stage at `stageBase` (byte offsets): window w < 8 into the run's
  /// unit w of the swizzled tile, the ninth into the run's 16 bytes after
  /// the tile.
  SmallVector<Value, 9> runSlots(const TmaOperand &t, Value stageBase,
                                 Value line, Value chunk);
  /// The runs of `t`'s tile whose first element is the tile's line `line0`
  /// at `contiguous0` (index values), copied as their windows.
  void copyWindows(const TmaOperand &t, Value stageBase,
                   const CopySource &source, Value tileBase, Value line0,
                   Value contiguous0, Value lineExtent, Value contiguousExtent);
  /// tf32x3: once every producer thread's copies into `stage` landed, the
  /// threads split the stage's elements in place into their tf32 parts
  /// and remainders.
  void splitLanded(Value stage);
  /// Once a producer thread's windows of `stage` landed, it shifts each of
  /// its runs into place.
  void realignLanded(Value stage);
  /// One 16-byte copy through registers of operand `t`: where its
  /// elements lie (`address` in bytes, for 2-byte elements only 2-byte
  /// aligned; the position along the contiguous dimension; whether its
  /// line lies inside the matrix) and where they go (one 16-byte
  /// destination, or where the operand is transposed one per element);
  /// once loaded, the four words: of 2-byte elements, the aligned words
  /// that hold them and the element after them, and the shift (0 or 16
  /// bits) that lines them up; of f32 ones, the elements (shift 0). Zeros
  /// outside the matrix.
  struct RegisterCopy {
    const TmaOperand *t = nullptr;
    Value address, position, lineInside;
    SmallVector<Value, 4> destinations;
    SmallVector<Value, 5> words;
    Value shift;
  };
  static constexpr int64_t kCopyWords = 4;
  /// The elements of a 16-byte copy.
  int64_t copyElements() const { return 16 / k.elementBytes; }
  /// The byte offset (i32) in shared memory of byte `x` of line `line` of
  /// an operand's tile whose stage starts at `stageBase` (the 128-byte
  /// swizzle of TmaOperand).
  Value swizzledOffset(const TmaOperand &t, Value stageBase, Value line,
                       Value x);
  /// Whether `copy` lies wholly inside the matrix.
  Value isWhole(const RegisterCopy &copy, Value contiguousExtent);
  /// The words and shift of a copy inside the matrix, and of one at its
  /// edges (element by element).
  SmallVector<Value, 6> loadWholeCopy(const RegisterCopy &copy);
  SmallVector<Value, 6> loadEdgeCopy(const RegisterCopy &copy,
                                     Value contiguousExtent);
  /// Takes a copy's words and shift from loadWholeCopy's or loadEdgeCopy's
  /// values.
  void setWords(RegisterCopy &copy, ValueRange loaded);
  /// Loads a round of copies, each inside the matrix or at its edges.
  void loadThroughRegisters(MutableArrayRef<RegisterCopy> round,
                            Value contiguousExtent);
  /// Shifts a copy's words into place and stores them into shared memory.
  void storeThroughRegisters(const RegisterCopy &copy);
  /// A producer thread's copies of pipeline iteration `it` issued: fences
  /// them, once landed, for the async proxy and arrives on the full barrier
  /// of iteration it - copyLag (of every iteration left, with `drain`).
  void signalCopies(Value it, bool drain);
  /// Where `when` holds (a warpgroup's leader), arrives on the "empty"
  /// barrier of the stage of pipeline iteration `it` - 1 (of each block
  /// that writes into the stage, in a cluster).
  void releaseStageBefore(Value it, Value when);
  /// Arrives on the mbarrier `local` of the cluster's block `rank`.
  void arriveRemote(Value local, Value rank);
  /// The elementwise f32 sum of two wgmma accumulator structs.
  Value addAccumulators(Value acc, Value sum);
  /// The descriptor of stage 0, row 0 of `t` at `offset` in shared memory.
  Value baseDescriptor(const TmaOperand &t, int64_t offset);
  /// The accumulator layout of wgmma m64nN (f32): thread t of the
  /// warpgroup holds, for i in [0, N/2), row 16 * (t / 32) + (t % 32) / 4 +
  /// 8 * (i / 2 % 2) and column 8 * (i / 4) + 2 * (t % 4) + i % 2 (pairs of
  /// adjacent columns). Returns the thread's part: its row and first column.
  std::pair<Value, Value> accumulatorPosition();
  /// The value `epilogue` gives the f32 accumulators `acc` at (`row`,
  /// `col`) of C, reading C there where it reads C: a pair along a row
  /// (vector<2xf32>), or one element.
  Value epiloguePair(OpBuilder &ob, const EpilogueValues &epilogue, Value acc,
                     Value row, Value col);
  Value epilogueElement(OpBuilder &ob, const EpilogueValues &epilogue,
                        Value acc, Value row, Value col);
  LogicalResult storeC(ArrayRef<Value> accumulators, Value row0, Value col0);
  /// `tma c`: stores C through shared memory with TMA.
  LogicalResult storeCWithTma(ArrayRef<Value> accumulators, Value consumer,
                              Value leader, Value row0, Value col0);
  /// Split-K: the consumers' partials of linear tile `tile` reduced
  /// (SplitK.h); leaves `b` in the tile's last block, `accs` the sums.
  LogicalResult reduceSplits(Value tile, Value row0, Value col0,
                             SmallVectorImpl<Value> &accs);
  /// The byte offset, in a group of C's store buffer, of the element at
  /// (`row`, `col`) of the group (i32 values).
  Value groupOffset(Value row, Value col);

  gpu::GPUFuncOp func;
  const gemmc::Problem &p;
  const gemmc::Schedule &s;
  const WarpgroupKernel &k;
  Location loc;
  OpBuilder b;

  Value sharedBase, sharedAddress;
  Value a, bMatrix, c, mapA, mapB, mapC;
  Value m, n, kExtent, tilesM, tilesN, numTiles, kTiles;
  /// The K tiles of this block, [kBegin, kEnd): all of them, or with
  /// `split-k` those of split blockIdx.z (`split`) of `splitCount`.
  Value kBegin, kEnd, split;
  OpFoldResult splitCount;
  Value threadId, warpgroup;
  /// In a cluster: the block's rank and its tile row and column in the
  /// cluster (index), and the cluster tiles' rows and columns.
  Value rank, rankM, rankN, clusterTilesM, clusterTilesN;
};
} // namespace

std::pair<Value, Value> KernelBuilder::tileCoordinates(Value tile) {
  // Without a cluster, each cluster tile is one tile.
  Value rows = s.cluster ? clusterTilesM : tilesM;
  Value cols = s.cluster ? clusterTilesN : tilesN;
  Value row, col;
  if (s.raster) {
    std::tie(row, col) = rasterize(b, loc, tile, rows, cols, *s.raster);
  } else {
    row = arith::DivUIOp::create(b, loc, tile, cols);
    col = arith::RemUIOp::create(b, loc, tile, cols);
  }
  if (!s.cluster)
    return {row, col};
  Value rowStart = arith::MulIOp::create(b, loc, row, index(k.clusterM));
  Value colStart = arith::MulIOp::create(b, loc, col, index(k.clusterN));
  Value ownRow = arith::AddIOp::create(b, loc, rowStart, rankM);
  Value ownCol = arith::AddIOp::create(b, loc, colStart, rankN);
  return {ownRow, ownCol};
}

std::pair<Value, Value> KernelBuilder::stageAndPhase(Value it) {
  Value stage = arith::RemUIOp::create(b, loc, it, index(k.stages));
  Value round = arith::DivUIOp::create(b, loc, it, index(k.stages));
  Value parity = arith::RemUIOp::create(b, loc, round, index(2));
  return {stage, toI32(parity)};
}

void KernelBuilder::buildPrologue() {
  Value zero = index(0);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      threadId, zero);
  auto init = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&init.getThenRegion().front());
    for (int64_t stage = 0; stage < k.stages; ++stage) {
      Value full = sharedPointer(i32(k.fullBarrierOffset + 8 * stage));
      NVVM::MBarrierInitOp::create(b, loc, full, i32(k.fullArrivals),
                                   Value());
      Value empty = sharedPointer(i32(k.emptyBarrierOffset + 8 * stage));
      NVVM::MBarrierInitOp::create(b, loc, empty, i32(k.emptyArrivals),
                                   Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);
  // The peers' copies and arrivals find the barriers initialised.
  if (s.cluster)
    clusterBarrier();
}

void KernelBuilder::clusterBarrier() {
  UnitAttr aligned = b.getUnitAttr();
  NVVM::ClusterArriveOp::create(b, loc, aligned);
  NVVM::ClusterWaitOp::create(b, loc, aligned);
}

void KernelBuilder::copyOperand(const TmaOperand &t, Value map,
                                int64_t offset, int64_t stride, Value stage,
                                Value mn0, Value k0, Value full) {
  Value stage32 = toI32(stage);
  Value stageOffset = arith::MulIOp::create(b, loc, stage32, i32(stride));
  // Shared by a cluster row (A) or column (B): this block copies slice
  // `slice` of each box's rows and multicasts it to the blocks of `mask`.
  Value slice, mask, sliceOffset;
  if (t.multicast > 1) {
    bool isA = t.operand == gemmc::Operand::A;
    slice = toI32(isA ? rankN : rankM);
    Value rm = toI32(rankM), rn = toI32(rankN);
    // Ranks are rm + CM * rn: A goes to rm + CM * j, B to i + CM * rn.
    int64_t pattern = 0;
    for (int64_t j = 0; j < t.multicast; ++j)
      pattern |= int64_t(1) << (isA ? k.clusterM * j : j);
    Value first = isA ? rm : arith::MulIOp::create(b, loc, rn, i32(k.clusterM));
    Value bits = arith::ShLIOp::create(b, loc, i32(pattern), first);
    mask = arith::TruncIOp::create(b, loc, b.getI16Type(), bits);
    sliceOffset = arith::MulIOp::create(
        b, loc, slice, i32(t.sliceRows() * gemmc::kSwizzleBytes));
    stageOffset = arith::AddIOp::create(b, loc, stageOffset, sliceOffset);
  }
  for (int64_t chunk = 0; chunk < t.chunks; ++chunk) {
    Value at = arith::AddIOp::create(b, loc, stageOffset,
                                     i32(offset + chunk * t.chunkBytes));
    // The block's own shared memory, as the cluster's address space names
    // it (the form every PTX version since 8.0 takes).
    Value local = sharedPointer(at);
    auto clusterType = LLVM::LLVMPointerType::get(b.getContext(), 7);
    Value dst = LLVM::AddrSpaceCastOp::create(b, loc, clusterType, local);
    // Coordinates innermost first: the contiguous dimension, cut into
    // 128-byte boxes, then the other.
    Value inner = t.kMajor ? k0 : mn0;
    Value outer = t.kMajor ? mn0 : k0;
    Value innerAt = arith::AddIOp::create(b, loc, inner, i32(chunk * t.boxInner));
    if (slice) {
      Value sliceRow = arith::MulIOp::create(b, loc, slice, i32(t.sliceRows()));
      outer = arith::AddIOp::create(b, loc, outer, sliceRow);
    }
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, map, ValueRange{innerAt, outer}, full,
        /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/mask,
        /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
  }
}

void KernelBuilder::buildProducer(Value tileStart, Value tileStep) {
  NVVM::SetMaxRegisterOp::create(b, loc, k.producerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  Value issuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       threadId, index(0));
  // With TMA alone the first thread issues every copy; where the threads
  // copy an operand, all of them walk the pipeline.
  bool allThreads = k.copiesByThreads();
  OpBuilder::InsertionGuard guard(b);
  scf::IfOp ifIssuer;
  if (!allThreads) {
    ifIssuer = scf::IfOp::create(b, loc, issuer, false);
    b.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
  }
  auto tiles = scf::ForOp::create(b, loc, tileStart, numTiles, tileStep,
                                  ValueRange{index(0)});
  b.setInsertionPointToStart(tiles.getBody());
  auto [tileRow, tileCol] = tileCoordinates(tiles.getInductionVar());
  Value rowIndex = arith::MulIOp::create(b, loc, tileRow, index(s.bm()));
  Value colIndex = arith::MulIOp::create(b, loc, tileCol, index(s.bn()));
  Value row0 = toI32(rowIndex);
  Value col0 = toI32(colIndex);
  Value one = index(1);
  auto steps = scf::ForOp::create(b, loc, kBegin, kEnd, one,
                                  ValueRange{tiles.getRegionIterArg(0)});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(steps.getBody());
    Value it = steps.getRegionIterArg(0);
    auto [stage, parity] = stageAndPhase(it);
    // A fresh barrier completes the phase before its first: the first
    // round of waits on "empty" passes at once.
    Value previous = arith::XOrIOp::create(b, loc, parity, i32(1));
    Value empty = barrier(k.emptyBarrierOffset, stage);
    NVVM::MBarrierTryWaitParityOp::create(b, loc, empty, previous,
                                          i32(kWaitHintNs));
    Value full = barrier(k.fullBarrierOffset, stage);
    Value kIndex =
        arith::MulIOp::create(b, loc, steps.getInductionVar(), index(s.bk()));
    if (k.usesTma()) {
      OpBuilder::InsertionGuard tma(b);
      if (allThreads) {
        auto ifFirst = scf::IfOp::create(b, loc, issuer, false);
        b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      }
      NVVM::MBarrierArriveExpectTxOp::create(
          b, loc, Type(), full, i32(k.stageTransactionBytes),
          NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
      Value k0 = toI32(kIndex);
      if (k.a.byTma)
        copyOperand(k.a, mapA, k.aOffset, k.aStageStride, stage, row0, k0,
                    full);
      if (k.b.byTma)
        copyOperand(k.b, mapB, k.bOffset, k.bStageStride, stage, col0, k0,
                    full);
    }
    if (allThreads) {
      if (!k.a.byTma)
        copyByThreads(k.a, a, k.aOffset, k.aStageStride, stage, rowIndex,
                      kIndex);
      if (!k.b.byTma)
        copyByThreads(k.b, bMatrix, k.bOffset, k.bStageStride, stage,
                      colIndex, kIndex);
      signalCopies(it, /*drain=*/false);
    }
    Value next = arith::AddIOp::create(b, loc, it, index(1));
    scf::YieldOp::create(b, loc, next);
  }
  scf::YieldOp::create(b, loc, steps.getResult(0));
  if (allThreads) {
    b.setInsertionPointAfter(tiles);
    signalCopies(tiles.getResult(0), /*drain=*/true);
  }
  // With split-K the whole warpgroup joins the consumers' count of the
  // block's one tile (the grid is not persistent).
  if (s.splitsK()) {
    if (ifIssuer)
      b.setInsertionPointAfter(ifIssuer);
    joinSplitCount(b, loc);
  }
}

Value KernelBuilder::stageBaseOf(int64_t offset, int64_t stride, Value stage) {
  // One op a statement: C++ leaves the order of a call's arguments open.
  Value stage32 = toI32(stage);
  Value stageOffset = arith::MulIOp::create(b, loc, stage32, i32(stride));
  return arith::AddIOp::create(b, loc, stageOffset, i32(offset));
}

void KernelBuilder::forEachCopy(const TmaOperand &t,
                                function_ref<void(Value, Value)> copy,
                                function_ref<void()> endRound) {
  int64_t linePieces = t.copyLineBytes() / t.copyBytes();
  int64_t threads = gemmc::kWarpgroupSize;
  Value lane = threadId;
  // The thread's copies, in rounds of `unroll` (a loop: unrolled whole, the
  // copies' addresses were all hoisted out of the pipeline's loop and held
  // across it; LLVM still unrolls a loop of few rounds).
  // Copy lane + 128 j: consecutive threads take consecutive pieces of a
  // line (coalesced reads).
  int64_t perThread = t.piecesPerThread();
  bool ragged = perThread * threads != t.pieces();
  int64_t unroll = std::gcd(perThread, t.piecesPerRound());
  // One op a statement: C++ leaves the order of a call's arguments open.
  Value zero = index(0);
  Value roundCount = index(perThread / unroll);
  Value one = index(1);
  auto rounds = scf::ForOp::create(b, loc, zero, roundCount, one);
  OpBuilder::InsertionGuard inRounds(b);
  b.setInsertionPoint(rounds.getBody()->getTerminator());
  Value round =
      arith::MulIOp::create(b, loc, rounds.getInductionVar(), index(unroll));
  for (int64_t u = 0; u < unroll; ++u) {
    Value j = addOffset(b, loc, round, u);
    Value line, piece;
    if (t.transposed) {
      // A warp takes 16 lines by 2 pieces (32-byte sectors): the lines'
      // elements go to the same byte of 8 lines of the shared tile, and
      // 16 lines' bytes fill the 32 banks.
      Value first = arith::MulIOp::create(b, loc, j, index(threads));
      Value linear = arith::AddIOp::create(b, loc, lane, first);
      Value group = arith::DivUIOp::create(b, loc, linear, index(32));
      Value inGroup = arith::RemUIOp::create(b, loc, linear, index(32));
      int64_t groupsAlong = linePieces / 2;
      Value groupLine =
          arith::DivUIOp::create(b, loc, group, index(groupsAlong));
      Value groupPiece =
          arith::RemUIOp::create(b, loc, group, index(groupsAlong));
      Value lineInGroup = arith::DivUIOp::create(b, loc, inGroup, index(2));
      Value pieceInGroup = arith::RemUIOp::create(b, loc, inGroup, index(2));
      Value lines = arith::MulIOp::create(b, loc, groupLine, index(16));
      line = arith::AddIOp::create(b, loc, lines, lineInGroup);
      Value pieces = arith::MulIOp::create(b, loc, groupPiece, index(2));
      piece = arith::AddIOp::create(b, loc, pieces, pieceInGroup);
    } else if (threads % linePieces == 0) {
      line = arith::DivUIOp::create(b, loc, lane, index(linePieces));
      Value lines =
          arith::MulIOp::create(b, loc, j, index(threads / linePieces));
      line = arith::AddIOp::create(b, loc, line, lines);
      piece = arith::RemUIOp::create(b, loc, lane, index(linePieces));
    } else if (linePieces % threads == 0) {
      int64_t perLine = linePieces / threads;
      line = arith::DivUIOp::create(b, loc, j, index(perLine));
      Value part = arith::RemUIOp::create(b, loc, j, index(perLine));
      Value first = arith::MulIOp::create(b, loc, part, index(threads));
      piece = arith::AddIOp::create(b, loc, lane, first);
    } else {
      Value first = arith::MulIOp::create(b, loc, j, index(threads));
      Value linear = arith::AddIOp::create(b, loc, lane, first);
      line = arith::DivUIOp::create(b, loc, linear, index(linePieces));
      piece = arith::RemUIOp::create(b, loc, linear, index(linePieces));
    }
    if (!ragged) {
      copy(line, piece);
      continue;
    }
    // The last round may leave threads without a copy.
    endRound();
    OpBuilder::InsertionGuard guarded(b);
    Value first = arith::MulIOp::create(b, loc, j, index(threads));
    Value linear = arith::AddIOp::create(b, loc, lane, first);
    Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, index(t.pieces()));
    auto ifExists = scf::IfOp::create(b, loc, exists, false);
    b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    copy(line, piece);
    endRound();
  }
  endRound();
}

SmallVector<Value, 4> KernelBuilder::copyDestinations(const TmaOperand &t,
                                                      Value stageBase,
                                                      Value line, Value piece) {
  // Byte x of `line` of the tile, swizzled; transposed, element i of the
  // piece goes to the tile's line 4 piece + i, at the byte of `line`.
  Value piece32 = toI32(piece);
  Value line32 = toI32(line);
  SmallVector<Value, 4> destinations;
  if (!t.transposed) {
    Value x = arith::MulIOp::create(b, loc, piece32, i32(t.copyBytes()));
    Value at = swizzledOffset(t, stageBase, line32, x);
    destinations.push_back(sharedPointer(at));
    return destinations;
  }
  // The first of the four lines is a multiple of 4, so line 4 piece + i
  // swizzles its 16-byte units by the first's phase xor i: its byte lies
  // at the first's, xor 16 i (bits 4-6 of an offset are its unit, the
  // stage and line offsets being multiples of 128), plus i lines. (One
  // offset a copy that the pipeline's loop does not change, where four
  // were all hoisted out of it and held across it.)
  int64_t width = t.copyBytes() / k.elementBytes;
  Value x = arith::MulIOp::create(b, loc, line32, i32(k.elementBytes));
  Value firstLine = arith::MulIOp::create(b, loc, piece32, i32(width));
  Value first = swizzledOffset(t, stageBase, firstLine, x);
  destinations.push_back(sharedPointer(first));
  for (int64_t i = 1; i < width; ++i) {
    Value unit = arith::XOrIOp::create(b, loc, first, i32(16 * i));
    Value at =
        arith::AddIOp::create(b, loc, unit, i32(gemmc::kSwizzleBytes * i));
    destinations.push_back(sharedPointer(at));
  }
  return destinations;
}

void KernelBuilder::copyByThreads(const TmaOperand &t, Value matrix,
                                  int64_t offset, int64_t stride, Value stage,
                                  Value mn0, Value k0) {
  MLIRContext *ctx = b.getContext();
  int64_t e = k.elementBytes;
  int64_t width = t.copyBytes() / e;
  Value stageBase = stageBaseOf(offset, stride, stage);
  // The extents along the matrix's lines (M or N where K is contiguous, K
  // otherwise) and along its contiguous dimension.
  bool kContiguous = t.kMajor != t.transposed;
  Value mnExtent = t.operand == gemmc::Operand::A ? m : n;
  Value lineExtent = kContiguous ? mnExtent : kExtent;
  Value contiguousExtent = kContiguous ? kExtent : mnExtent;
  Value line0 = kContiguous ? mn0 : k0;
  Value contiguous0 = kContiguous ? k0 : mn0;
  CopySource source = copySource(t, matrix);
  Value matrixBase = source.base, lineStride = source.lineStride;
  Value positionStride = source.positionStride;
  Value pieceStride =
      arith::MulIOp::create(b, loc, positionStride, index(width));
  Value firstLine = arith::MulIOp::create(b, loc, line0, lineStride);
  Value firstPosition = arith::MulIOp::create(b, loc, contiguous0, positionStride);
  Value tileBase = arith::AddIOp::create(b, loc, matrixBase, firstLine);
  tileBase = arith::AddIOp::create(b, loc, tileBase, firstPosition);
  if (t.realignsInShared()) {
    copyWindows(t, stageBase, source, tileBase, line0, contiguous0, lineExtent,
                contiguousExtent);
    return;
  }
  auto globalType = LLVM::LLVMPointerType::get(ctx, 1);
  // One cp.async of `count` elements from `address` (index) at `position`
  // along the contiguous dimension: only the bytes inside the matrix
  // (cp.async fills the rest with zeros), none where its line lies outside
  // (`lineInside`); then the matrix's first element stands in as the
  // source (nothing of it is read). (Tiles wholly inside the matrix
  // without these checks, a second loop beside these, spilled: LLVM
  // hoists both loops' offsets out of the pipeline's.)
  auto cpAsync = [&](Value destination, Value address, Value position,
                     Value lineInside, int64_t count) {
    Value positionInside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, position, contiguousExtent);
    Value inside = arith::AndIOp::create(b, loc, lineInside, positionInside);
    Value from = arith::SelectOp::create(b, loc, inside, address, matrixBase);
    Value address64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), from);
    Value source = LLVM::IntToPtrOp::create(b, loc, globalType, address64);
    Value left = arith::SubIOp::create(b, loc, contiguousExtent, position);
    Value elements = arith::MinUIOp::create(b, loc, left, index(count));
    Value elements32 = toI32(elements);
    Value bytes = arith::MulIOp::create(b, loc, elements32, i32(e));
    Value size = arith::SelectOp::create(b, loc, inside, bytes, i32(0));
    int64_t copyBytes = count * e;
    auto cache = copyBytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                 : NVVM::LoadCacheModifierKind::CA;
    NVVM::CpAsyncOp::create(
        b, loc, destination, source, b.getI32IntegerAttr(copyBytes),
        NVVM::LoadCacheModifierKindAttr::get(ctx, cache), size);
  };
  // Copies through registers check where they lie (`checked`) only in the
  // tiles that reach past the matrix's edges: inside it, a round's loads
  // need no branch; a round's loads all issue before its stores.
  auto copyRounds = [&](bool checked) {
    SmallVector<RegisterCopy, 8> pending;
    auto flush = [&]() {
      if (pending.empty())
        return;
      if (checked) {
        loadThroughRegisters(pending, contiguousExtent);
      } else {
        for (RegisterCopy &copy : pending)
          setWords(copy, loadWholeCopy(copy));
      }
      for (const RegisterCopy &copy : pending)
        storeThroughRegisters(copy);
      pending.clear();
    };
    auto copy = [&](Value line, Value piece) {
      SmallVector<Value, 4> destinations =
          copyDestinations(t, stageBase, line, piece);
      // Where it comes from, and how much of it lies inside the matrix:
      // the tile's first element plus the piece's line and position.
      Value lineAt = arith::AddIOp::create(b, loc, line0, line);
      Value pieceElements = arith::MulIOp::create(b, loc, piece, index(width));
      Value position =
          arith::AddIOp::create(b, loc, contiguous0, pieceElements);
      Value lineInside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, lineAt, lineExtent);
      Value lineBytes = arith::MulIOp::create(b, loc, line, lineStride);
      Value pieceBytes = arith::MulIOp::create(b, loc, piece, pieceStride);
      Value address = arith::AddIOp::create(b, loc, tileBase, lineBytes);
      address = arith::AddIOp::create(b, loc, address, pieceBytes);
      if (t.transposed && t.usesCpAsync()) {
        // Element by element into its line of the tile.
        for (auto [i, destination] : llvm::enumerate(destinations)) {
          int64_t at = i;
          Value elementAt = addOffset(b, loc, address, e * at);
          Value elementPosition = addOffset(b, loc, position, at);
          cpAsync(destination, elementAt, elementPosition, lineInside, 1);
        }
        return;
      }
      if (t.usesCpAsync()) {
        cpAsync(destinations.front(), address, position, lineInside, width);
        return;
      }
      RegisterCopy registerCopy;
      registerCopy.t = &t;
      registerCopy.address = address;
      registerCopy.position = position;
      registerCopy.lineInside = lineInside;
      registerCopy.destinations = destinations;
      pending.push_back(registerCopy);
    };
    forEachCopy(t, copy, flush);
  };
  if (t.usesCpAsync()) {
    copyRounds(/*checked=*/true);
    return;
  }
  Value lineEnd = addOffset(b, loc, line0, t.copyLines());
  Value contiguousEnd = addOffset(b, loc, contiguous0, t.copyLineBytes() / e);
  Value linesInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                            lineEnd, lineExtent);
  Value positionsInside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ule, contiguousEnd, contiguousExtent);
  Value interior = arith::AndIOp::create(b, loc, linesInside, positionsInside);
  auto ifInterior = scf::IfOp::create(b, loc, interior, /*withElse=*/true);
  OpBuilder::InsertionGuard branches(b);
  b.setInsertionPointToStart(&ifInterior.getThenRegion().front());
  copyRounds(/*checked=*/false);
  b.setInsertionPointToStart(&ifInterior.getElseRegion().front());
  copyRounds(/*checked=*/true);
}

KernelBuilder::CopySource KernelBuilder::copySource(const TmaOperand &t,
                                                    Value matrix) {
  // A row-major A's lines are the matrix's rows, a column-major B's its
  // columns (a transposed operand's the other way).
  int64_t e = k.elementBytes;
  bool kContiguous = t.kMajor != t.transposed;
  bool linesAreRows = (t.operand == gemmc::Operand::A) == kContiguous;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, matrix);
  CopySource source;
  source.lineStride = arith::MulIOp::create(
      b, loc, metadata.getStrides()[linesAreRows ? 0 : 1], index(e));
  source.positionStride = arith::MulIOp::create(
      b, loc, metadata.getStrides()[linesAreRows ? 1 : 0], index(e));
  Value offsetBytes =
      arith::MulIOp::create(b, loc, metadata.getOffset(), index(e));
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, matrix);
  source.base = arith::AddIOp::create(b, loc, aligned, offsetBytes);
  return source;
}

void KernelBuilder::forEachRun(const TmaOperand &t,
                               function_ref<void(Value, Value)> visit) {
  // Consecutive threads take the same unit of consecutive lines: eight
  // swizzle phases, so a quarter warp's 16-byte accesses of a unit meet
  // no bank twice.
  int64_t threads = gemmc::kWarpgroupSize;
  int64_t perThread = llvm::divideCeil(t.runs(), threads);
  for (int64_t j = 0; j < perThread; ++j) {
    OpBuilder::InsertionGuard guard(b);
    Value run = addOffset(b, loc, threadId, threads * j);
    if ((j + 1) * threads > t.runs()) {
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           run, index(t.runs()));
      auto ifExists = scf::IfOp::create(b, loc, exists, false);
      b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    }
    Value line = arith::RemUIOp::create(b, loc, run, index(t.boxOuter));
    Value chunk = arith::DivUIOp::create(b, loc, run, index(t.boxOuter));
    visit(line, chunk);
  }
}

SmallVector<Value, 9> KernelBuilder::runSlots(const TmaOperand &t,
                                              Value stageBase, Value line,
                                              Value chunk) {
  // Unit w of a line lies at unit w xor (line % 8) (TmaOperand).
  Value chunkOffset = arith::MulIOp::create(b, loc, chunk, i32(t.chunkBytes));
  Value lineOffset =
      arith::MulIOp::create(b, loc, line, i32(gemmc::kSwizzleBytes));
  Value row = arith::AddIOp::create(b, loc, stageBase, chunkOffset);
  row = arith::AddIOp::create(b, loc, row, lineOffset);
  Value lineInAtom = arith::AndIOp::create(b, loc, line, i32(7));
  Value phase = arith::ShLIOp::create(b, loc, lineInAtom, i32(4));
  Value chunkRuns = arith::MulIOp::create(b, loc, chunk, i32(t.boxOuter));
  Value run = arith::AddIOp::create(b, loc, chunkRuns, line);
  Value runBytes = arith::MulIOp::create(b, loc, run, i32(gemmc::kWindowBytes));
  Value ninth = arith::AddIOp::create(b, loc, stageBase, runBytes);
  Value after = i32(t.remainderOffset());
  ninth = arith::AddIOp::create(b, loc, ninth, after);
  SmallVector<Value, 9> slots;
  int64_t units = gemmc::kSwizzleBytes / gemmc::kWindowBytes;
  for (int64_t w = 0; w < units; ++w) {
    Value unit = arith::XOrIOp::create(b, loc, phase, i32(16 * w));
    slots.push_back(arith::AddIOp::create(b, loc, row, unit));
  }
  slots.push_back(ninth);
  return slots;
}

void KernelBuilder::copyWindows(const TmaOperand &t, Value stageBase,
                                const CopySource &source, Value tileBase,
                                Value line0, Value contiguous0,
                                Value lineExtent, Value contiguousExtent) {
  MLIRContext *ctx = b.getContext();
  int64_t e = k.elementBytes;
  int64_t runElements = gemmc::kSwizzleBytes / e;
  int64_t windows = gemmc::kSwizzleBytes / gemmc::kWindowBytes + 1;
  auto globalType = LLVM::LLVMPointerType::get(ctx, 1);
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  // The matrix's end: past its last line's last element.
  Value lastLine = addOffset(b, loc, lineExtent, -1);
  Value lastLineBytes =
      arith::MulIOp::create(b, loc, lastLine, source.lineStride);
  Value extentBytes =
      arith::MulIOp::create(b, loc, contiguousExtent, source.positionStride);
  Value matrixEnd = arith::AddIOp::create(b, loc, source.base, lastLineBytes);
  matrixEnd = arith::AddIOp::create(b, loc, matrixEnd, extentBytes);
  // A thread copies its runs' windows itself, and realigns them once they
  // landed (no other thread reads them). (Runs of lines apart in a warp's
  // copies, where eight threads a run read consecutive windows: two
  // thirds of the speed, the windows' addresses and sizes a thread's own
  // work then.)
  forEachRun(t, [&](Value line, Value chunk) {
    Value lineAt = arith::AddIOp::create(b, loc, line0, line);
    Value lineInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             lineAt, lineExtent);
    Value runOffset = arith::MulIOp::create(b, loc, chunk, index(runElements));
    Value position = arith::AddIOp::create(b, loc, contiguous0, runOffset);
    Value positionInside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, position, contiguousExtent);
    Value inside = arith::AndIOp::create(b, loc, lineInside, positionInside);
    Value lineBytes = arith::MulIOp::create(b, loc, line, source.lineStride);
    Value runBytes =
        arith::MulIOp::create(b, loc, runOffset, source.positionStride);
    Value first = arith::AddIOp::create(b, loc, tileBase, lineBytes);
    first = arith::AddIOp::create(b, loc, first, runBytes);
    // The windows from the one that holds the run's first element: of the
    // bytes from there to the line's end inside the matrix (none where the
    // run lies outside) each takes its part, zeros after them.
    Value window0 = arith::AndIOp::create(b, loc, first, index(~int64_t(15)));
    Value lead = arith::SubIOp::create(b, loc, first, window0);
    Value left = arith::SubIOp::create(b, loc, contiguousExtent, position);
    Value leftBytes = arith::MulIOp::create(b, loc, left, index(e));
    Value through = arith::AddIOp::create(b, loc, lead, leftBytes);
    Value available =
        arith::SelectOp::create(b, loc, inside, through, index(0));
    Value line32 = toI32(line);
    Value chunk32 = toI32(chunk);
    SmallVector<Value, 9> slots = runSlots(t, stageBase, line32, chunk32);
    struct Window {
      Value from, bytes, some, destination;
    };
    SmallVector<Window, 9> parts;
    for (int64_t w = 0; w < windows; ++w) {
      Window part;
      int64_t offset = gemmc::kWindowBytes * w;
      Value beyond = arith::SubIOp::create(b, loc, available, index(offset));
      Value atLeast = arith::MaxSIOp::create(b, loc, beyond, index(0));
      part.bytes = arith::MinSIOp::create(b, loc, atLeast, index(16));
      part.some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        beyond, index(0));
      part.from = addOffset(b, loc, window0, offset);
      part.destination = sharedPointer(slots[w]);
      parts.push_back(part);
    }
    // cp.async through L1 (.ca: a window's 32-byte sector is its
    // neighbour's): a window with nothing inside the matrix copies nothing
    // from the run's first window.
    auto cpAsync = [&](const Window &part) {
      Value from = arith::SelectOp::create(b, loc, part.some, part.from,
                                           parts.front().from);
      Value from64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), from);
      Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, from64);
      Value bytes32 = toI32(part.bytes);
      NVVM::CpAsyncOp::create(b, loc, part.destination, pointer,
                              b.getI32IntegerAttr(gemmc::kWindowBytes),
                              NVVM::LoadCacheModifierKindAttr::get(
                                  ctx, NVVM::LoadCacheModifierKind::CA),
                              bytes32);
    };
    // The windows lie in the matrix's allocation (before its first element
    // at most the 14 bytes of its window, and allocations start 256-byte
    // aligned) unless they reach past its end: only the last line's may.
    // There each window inside the matrix is copied, one past its end
    // loaded element by element, its elements inside only, and stored, and
    // one with nothing inside is zeros.
    Value runEnd = addOffset(b, loc, window0, gemmc::kWindowBytes * windows);
    Value notLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          lineAt, lastLine);
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                       runEnd, matrixEnd);
    Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value noneInside = arith::XOrIOp::create(b, loc, inside, yes);
    Value safe = arith::OrIOp::create(b, loc, notLast, fits);
    safe = arith::OrIOp::create(b, loc, safe, noneInside);
    auto ifSafe = scf::IfOp::create(b, loc, safe, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard then(b);
      b.setInsertionPointToStart(&ifSafe.getThenRegion().front());
      for (const Window &part : parts)
        cpAsync(part);
    }
    OpBuilder::InsertionGuard atEnd(b);
    b.setInsertionPointToStart(&ifSafe.getElseRegion().front());
    for (const Window &part : parts) {
      OpBuilder::InsertionGuard window(b);
      Value to = addOffset(b, loc, part.from, gemmc::kWindowBytes);
      Value within = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           to, matrixEnd);
      auto ifWithin = scf::IfOp::create(b, loc, within, /*withElse=*/true);
      b.setInsertionPointToStart(&ifWithin.getThenRegion().front());
      cpAsync(part);
      b.setInsertionPointToStart(&ifWithin.getElseRegion().front());
      SmallVector<Value, 8> halves;
      for (int64_t i = 0; i < 8; ++i) {
        Value at = addOffset(b, loc, part.from, e * i);
        Value before = addOffset(b, loc, part.bytes, -e * i);
        Value inWindow = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sgt, before, index(0));
        Value afterStart = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::uge, at, source.base);
        Value valid = arith::AndIOp::create(b, loc, inWindow, afterStart);
        Value address = arith::SelectOp::create(b, loc, valid, at, source.base);
        Value address64 =
            arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
        Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, address64);
        Value half = LLVM::LoadOp::create(b, loc, b.getI16Type(), pointer, e);
        Value word = arith::ExtUIOp::create(b, loc, wordType, half);
        halves.push_back(arith::SelectOp::create(b, loc, valid, word, i32(0)));
      }
      Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
      for (int64_t w = 0; w < 4; ++w) {
        Value high = arith::ShLIOp::create(b, loc, halves[2 * w + 1], i32(16));
        Value word = arith::OrIOp::create(b, loc, halves[2 * w], high);
        vector = LLVM::InsertElementOp::create(b, loc, vector, word, i32(w));
      }
      LLVM::StoreOp::create(b, loc, vector, part.destination, 16);
    }
  });
}

void KernelBuilder::realignLanded(Value stage) {
  // A producer thread's copies of the stage landed: it shifts its runs
  // into place (forEachRun gives it those it copied).
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  for (const auto &[operand, offset, stride, matrix] :
       {std::tuple(&k.a, k.aOffset, k.aStageStride, a),
        std::tuple(&k.b, k.bOffset, k.bStageStride, bMatrix)}) {
    const TmaOperand &t = *operand;
    if (!t.realignsInShared())
      continue;
    Value stageBase = stageBaseOf(offset, stride, stage);
    CopySource source = copySource(t, matrix);
    forEachRun(t, [&](Value line, Value chunk) {
      // The run's first element lies `lead` bytes into its first window,
      // in every tile alike (tiles start at multiples of 8 lines and of 16
      // bytes along them): each unit of the run is its window's bytes from
      // `lead` on and the next window's before it. Word i of a unit is the
      // windows' word lead / 4 + i and the next, funnel-shifted right by
      // the half word lead % 4 leaves.
      Value lineBytes = arith::MulIOp::create(b, loc, line, source.lineStride);
      Value first = arith::AddIOp::create(b, loc, source.base, lineBytes);
      Value leadIndex = arith::AndIOp::create(b, loc, first, index(15));
      Value lead = toI32(leadIndex);
      Value words = arith::ShRUIOp::create(b, loc, lead, i32(2));
      Value oddWords = arith::AndIOp::create(b, loc, words, i32(1));
      Value twoWords = arith::AndIOp::create(b, loc, words, i32(2));
      Value byOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          oddWords, i32(0));
      Value byTwo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          twoWords, i32(0));
      Value halfWord = arith::AndIOp::create(b, loc, lead, i32(2));
      Value shift = arith::ShLIOp::create(b, loc, halfWord, i32(3));
      Value line32 = toI32(line);
      Value chunk32 = toI32(chunk);
      SmallVector<Value, 9> slots = runSlots(t, stageBase, line32, chunk32);
      auto load = [&](Value slot) {
        Value pointer = sharedPointer(slot);
        Value window = LLVM::LoadOp::create(b, loc, vectorType, pointer, 16);
        SmallVector<Value, 4> loaded;
        for (int64_t w = 0; w < 4; ++w)
          loaded.push_back(
              LLVM::ExtractElementOp::create(b, loc, window, i32(w)));
        return loaded;
      };
      // Each unit is stored after its window and the next were read.
      SmallVector<Value, 8> pair = load(slots.front());
      for (int64_t u = 0; u + 1 < int64_t(slots.size()); ++u) {
        llvm::append_range(pair, load(slots[u + 1]));
        // Words x + (lead / 4) % 2, then those + lead / 4 - that.
        SmallVector<Value, 7> byOneWord;
        for (int64_t x = 0; x < 7; ++x)
          byOneWord.push_back(
              arith::SelectOp::create(b, loc, byOne, pair[x + 1], pair[x]));
        SmallVector<Value, 5> lined;
        for (int64_t x = 0; x < 5; ++x)
          lined.push_back(arith::SelectOp::create(
              b, loc, byTwo, byOneWord[x + 2], byOneWord[x]));
        Value unit = LLVM::PoisonOp::create(b, loc, vectorType);
        for (int64_t w = 0; w < 4; ++w) {
          Value word =
              LLVM::FshrOp::create(b, loc, lined[w + 1], lined[w], shift);
          unit = LLVM::InsertElementOp::create(b, loc, unit, word, i32(w));
        }
        Value pointer = sharedPointer(slots[u]);
        LLVM::StoreOp::create(b, loc, unit, pointer, 16);
        pair.erase(pair.begin(), pair.begin() + 4);
      }
    });
  }
}

void KernelBuilder::splitLanded(Value stage) {
  // Each producer thread waited for its own copies of the stage; once all
  // have, they split the stage's tiles 16 bytes a thread at a time, in
  // the order they lie (the split is elementwise): each word's tf32 part
  // back in place, its remainder remainderOffset() bytes further.
  int64_t threads = gemmc::kWarpgroupSize;
  Value id = i32(k.producerBarrier());
  Value count = i32(threads);
  NVVM::BarrierOp::create(b, loc, Type(), id, count, /*reductionOp=*/{},
                          /*reductionPredicate=*/Value());
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  for (const auto &[t, offset, stride] :
       {std::tuple(&k.a, k.aOffset, k.aStageStride),
        std::tuple(&k.b, k.bOffset, k.bStageStride)}) {
    if (!t->splitsInShared())
      continue;
    Value stageBase = stageBaseOf(offset, stride, stage);
    int64_t units = t->stageBytes() / 16;
    Value lane = toI32(threadId);
    Value laneBytes = arith::MulIOp::create(b, loc, lane, i32(16));
    Value first = arith::AddIOp::create(b, loc, stageBase, laneBytes);
    Value zero = index(0);
    Value steps = index(llvm::divideCeil(units, threads));
    Value one = index(1);
    auto sweep = scf::ForOp::create(b, loc, zero, steps, one);
    OpBuilder::InsertionGuard inSweep(b);
    b.setInsertionPoint(sweep.getBody()->getTerminator());
    Value i32Step = toI32(sweep.getInductionVar());
    Value stepBytes = arith::MulIOp::create(b, loc, i32Step, i32(16 * threads));
    Value at = arith::AddIOp::create(b, loc, first, stepBytes);
    if (units % threads) {
      Value end = i32(t->stageBytes());
      Value before = arith::SubIOp::create(b, loc, at, stageBase);
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, before, end);
      auto ifInside = scf::IfOp::create(b, loc, inside, false);
      b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    }
    Value part = sharedPointer(at);
    Value landed = LLVM::LoadOp::create(b, loc, vectorType, part, 16);
    Value big = LLVM::PoisonOp::create(b, loc, vectorType);
    Value small = big;
    for (int64_t w = 0; w < 4; ++w) {
      Value word = LLVM::ExtractElementOp::create(b, loc, landed, i32(w));
      auto [tf32Word, restWord] = splitWord(b, loc, word);
      big = LLVM::InsertElementOp::create(b, loc, big, tf32Word, i32(w));
      small = LLVM::InsertElementOp::create(b, loc, small, restWord, i32(w));
    }
    LLVM::StoreOp::create(b, loc, big, part, 16);
    Value restOffset = i32(t->remainderOffset());
    Value rest = LLVM::GEPOp::create(b, loc, part.getType(), b.getI8Type(),
                                     part, ValueRange{restOffset});
    LLVM::StoreOp::create(b, loc, small, rest, 16);
  }
}

Value KernelBuilder::swizzledOffset(const TmaOperand &t, Value stageBase,
                                    Value line, Value x) {
  Value chunk = arith::DivUIOp::create(b, loc, x, i32(gemmc::kSwizzleBytes));
  Value inLine = arith::RemUIOp::create(b, loc, x, i32(gemmc::kSwizzleBytes));
  Value unit = arith::ShRUIOp::create(b, loc, inLine, i32(4));
  Value phase = arith::AndIOp::create(b, loc, line, i32(7));
  Value swizzled = arith::XOrIOp::create(b, loc, unit, phase);
  Value unitOffset = arith::ShLIOp::create(b, loc, swizzled, i32(4));
  Value inUnit = arith::AndIOp::create(b, loc, inLine, i32(15));
  Value chunkOffset = arith::MulIOp::create(b, loc, chunk, i32(t.chunkBytes));
  Value lineOffset =
      arith::MulIOp::create(b, loc, line, i32(gemmc::kSwizzleBytes));
  Value at = arith::AddIOp::create(b, loc, stageBase, chunkOffset);
  at = arith::AddIOp::create(b, loc, at, lineOffset);
  at = arith::AddIOp::create(b, loc, at, unitOffset);
  return arith::AddIOp::create(b, loc, at, inUnit);
}

Value KernelBuilder::isWhole(const RegisterCopy &copy, Value contiguousExtent) {
  Value end = addOffset(b, loc, copy.position, copyElements());
  Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                     contiguousExtent);
  return arith::AndIOp::create(b, loc, copy.lineInside, fits);
}

SmallVector<Value, 6> KernelBuilder::loadWholeCopy(const RegisterCopy &copy) {
  Type wordType = b.getI32Type();
  auto globalType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  auto loadAt = [&](Value at, Type type, int64_t alignment) {
    Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, at);
    return LLVM::LoadOp::create(b, loc, type, pointer, alignment).getResult();
  };
  Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(), copy.address);
  SmallVector<Value, 6> loaded;
  if (k.elementBytes == 4) {
    // The four elements in pieces (as aligned as the leading dimension
    // allows: one 16-byte load where it is a multiple of 4).
    int64_t piece = copy.t->pieceBytes, words = piece / 4;
    auto pieceType = VectorType::get({words}, wordType);
    for (int64_t first = 0; first < kCopyWords; first += words) {
      Value pieceAt = arith::AddIOp::create(b, loc, at, i64(4 * first));
      Value vector = loadAt(pieceAt, pieceType, piece);
      for (int64_t w = 0; w < words; ++w)
        loaded.push_back(
            LLVM::ExtractElementOp::create(b, loc, vector, i32(w)));
    }
    loaded.push_back(i32(0));
    loaded.push_back(i32(0));
    return loaded;
  }
  // 2-byte elements: the aligned words from the one holding the first
  // element, and the last element (the half word the shift takes where the
  // first is not 4-byte aligned). Nothing past the last element is read;
  // before the first, at most the 2 bytes of its word (an allocation starts
  // 256-byte aligned, so they lie in the matrix's).
  Value wordAt = arith::AndIOp::create(b, loc, at, i64(~int64_t(3)));
  for (int64_t w = 0; w < kCopyWords; ++w) {
    Value wordAddress = arith::AddIOp::create(b, loc, wordAt, i64(4 * w));
    loaded.push_back(loadAt(wordAddress, wordType, 4));
  }
  Value lastAt = arith::AddIOp::create(b, loc, at, i64(2 * copyElements() - 2));
  Value last = loadAt(lastAt, b.getI16Type(), 2);
  loaded.push_back(arith::ExtUIOp::create(b, loc, wordType, last));
  Value halves = arith::ShRUIOp::create(b, loc, at, i64(1));
  Value odd = arith::AndIOp::create(b, loc, halves, i64(1));
  Value odd32 = arith::TruncIOp::create(b, loc, wordType, odd);
  loaded.push_back(arith::ShLIOp::create(b, loc, odd32, i32(4)));
  return loaded;
}

SmallVector<Value, 6> KernelBuilder::loadEdgeCopy(const RegisterCopy &copy,
                                                  Value contiguousExtent) {
  // The elements inside, one by one, as whole words (shift 0); none where
  // the copy lies wholly outside. Its first element stands in for those
  // past the edge (nothing of it is used).
  Type wordType = b.getI32Type();
  Value some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     copy.position, contiguousExtent);
  Value partly = arith::AndIOp::create(b, loc, copy.lineInside, some);
  SmallVector<Type, 4> wordTypes(kCopyWords, wordType);
  auto ifPartly = scf::IfOp::create(b, loc, wordTypes, partly, true);
  {
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(&ifPartly.getThenRegion().front());
    auto globalType = LLVM::LLVMPointerType::get(b.getContext(), 1);
    Value first =
        arith::IndexCastOp::create(b, loc, b.getI64Type(), copy.address);
    Value zero = i32(0);
    int64_t e = k.elementBytes;
    Type elementType = b.getIntegerType(8 * e);
    SmallVector<Value, 8> elements;
    for (int64_t i = 0; i < copyElements(); ++i) {
      Value position = addOffset(b, loc, copy.position, i);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           position, contiguousExtent);
      Value next = arith::AddIOp::create(b, loc, first, i64(e * i));
      Value at = arith::SelectOp::create(b, loc, inside, next, first);
      Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, at);
      Value bits = LLVM::LoadOp::create(b, loc, elementType, pointer, e);
      if (e == 2)
        bits = arith::ExtUIOp::create(b, loc, wordType, bits);
      elements.push_back(arith::SelectOp::create(b, loc, inside, bits, zero));
    }
    // f32 elements are the words; 2-byte ones are paired into them.
    if (e == 2) {
      SmallVector<Value, 8> halves = std::move(elements);
      elements.clear();
      for (int64_t w = 0; w < kCopyWords; ++w) {
        Value high = arith::ShLIOp::create(b, loc, halves[2 * w + 1], i32(16));
        elements.push_back(arith::OrIOp::create(b, loc, halves[2 * w], high));
      }
    }
    scf::YieldOp::create(b, loc, elements);
  }
  {
    OpBuilder::InsertionGuard otherwise(b);
    b.setInsertionPointToStart(&ifPartly.getElseRegion().front());
    SmallVector<Value, 4> zeros(kCopyWords, i32(0));
    scf::YieldOp::create(b, loc, zeros);
  }
  SmallVector<Value, 6> words(ifPartly.getResults());
  words.push_back(i32(0));
  words.push_back(i32(0));
  return words;
}

void KernelBuilder::loadThroughRegisters(MutableArrayRef<RegisterCopy> round,
                                         Value contiguousExtent) {
  // One branch for the round: where all its copies lie inside the matrix
  // (every tile but the edges') their loads all issue before any of their
  // values is used; otherwise each copy is whole or at the edge.
  int64_t perCopy = kCopyWords + 2;
  SmallVector<Type, 24> types(perCopy * round.size(), b.getI32Type());
  SmallVector<Value, 8> whole;
  for (const RegisterCopy &copy : round)
    whole.push_back(isWhole(copy, contiguousExtent));
  Value all = whole.front();
  for (Value w : ArrayRef<Value>(whole).drop_front())
    all = arith::AndIOp::create(b, loc, all, w);
  auto ifAll = scf::IfOp::create(b, loc, types, all, true);
  {
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(&ifAll.getThenRegion().front());
    SmallVector<Value, 24> values;
    for (const RegisterCopy &copy : round)
      llvm::append_range(values, loadWholeCopy(copy));
    scf::YieldOp::create(b, loc, values);
  }
  {
    OpBuilder::InsertionGuard otherwise(b);
    b.setInsertionPointToStart(&ifAll.getElseRegion().front());
    SmallVector<Value, 24> values;
    for (auto [copy, isWholeCopy] : llvm::zip_equal(round, whole)) {
      SmallVector<Type, 6> copyTypes(perCopy, b.getI32Type());
      auto ifWhole = scf::IfOp::create(b, loc, copyTypes, isWholeCopy, true);
      {
        OpBuilder::InsertionGuard then(b);
        b.setInsertionPointToStart(&ifWhole.getThenRegion().front());
        scf::YieldOp::create(b, loc, loadWholeCopy(copy));
      }
      {
        OpBuilder::InsertionGuard edge(b);
        b.setInsertionPointToStart(&ifWhole.getElseRegion().front());
        scf::YieldOp::create(b, loc, loadEdgeCopy(copy, contiguousExtent));
      }
      llvm::append_range(values, ifWhole.getResults());
    }
    scf::YieldOp::create(b, loc, values);
  }
  for (auto [i, copy] : llvm::enumerate(round))
    setWords(copy, ifAll.getResults().slice(i * perCopy, perCopy));
}

void KernelBuilder::setWords(RegisterCopy &copy, ValueRange loaded) {
  copy.words.assign(loaded.begin(), loaded.begin() + kCopyWords + 1);
  copy.shift = loaded.back();
}

void KernelBuilder::storeThroughRegisters(const RegisterCopy &copy) {
  const TmaOperand &t = *copy.t;
  // The words to store: 2-byte elements shifted into place (word w is the
  // upper half of word w and the lower of w + 1 where the shift is 16: a
  // funnel shift right), f32 ones as they are or with tf32x3 split into
  // their tf32 parts and remainders.
  SmallVector<Value, 4> words, remainders;
  for (int64_t w = 0; w < kCopyWords; ++w) {
    if (k.elementBytes == 2) {
      words.push_back(LLVM::FshrOp::create(b, loc, copy.words[w + 1],
                                           copy.words[w], copy.shift));
      continue;
    }
    if (!t.split) {
      words.push_back(copy.words[w]);
      continue;
    }
    auto [big, small] = splitWord(b, loc, copy.words[w]);
    words.push_back(big);
    remainders.push_back(small);
  }
  auto storeAll = [&](ArrayRef<Value> values, int64_t offset) {
    auto at = [&](Value destination) -> Value {
      if (!offset)
        return destination;
      Value bytes = i32(offset);
      return LLVM::GEPOp::create(b, loc, destination.getType(), b.getI8Type(),
                                 destination, ValueRange{bytes});
    };
    // A transposed copy's elements go to four lines of the tile.
    if (t.transposed) {
      for (auto [value, destination] :
           llvm::zip_equal(values, copy.destinations)) {
        Value pointer = at(destination);
        LLVM::StoreOp::create(b, loc, value, pointer, /*alignment=*/4);
      }
      return;
    }
    auto vectorType = VectorType::get({kCopyWords}, b.getI32Type());
    Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
    for (auto [w, value] : llvm::enumerate(values))
      vector =
          LLVM::InsertElementOp::create(b, loc, vector, value, i32(int64_t(w)));
    Value pointer = at(copy.destinations.front());
    LLVM::StoreOp::create(b, loc, vector, pointer, /*alignment=*/16);
  };
  storeAll(words, 0);
  if (t.split)
    storeAll(remainders, t.remainderOffset());
}

void KernelBuilder::signalCopies(Value it, bool drain) {
  if (k.asyncArrivals) {
    // Arrives once the thread's copies so far have landed; the consumers
    // fence them for the async proxy.
    if (drain)
      return;
    Value stage = arith::RemUIOp::create(b, loc, it, index(k.stages));
    Value full = barrier(k.fullBarrierOffset, stage);
    NVVM::CpAsyncMBarrierArriveOp::create(b, loc, full, /*noinc=*/true);
    return;
  }
  bool cpAsync = k.a.usesCpAsync() || k.b.usesCpAsync();
  int64_t lag = k.copyLag;
  // Without a lag every iteration was signalled as it was issued.
  if (drain && lag == 0)
    return;
  if (cpAsync && !drain)
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  if (cpAsync)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, drain ? 0 : lag);
  // The copies landed, by the generic proxy, before wgmma reads them;
  // tf32x3's are split first, windows realigned.
  bool splits = k.a.splitsInShared() || k.b.splitsInShared();
  bool realigns = k.a.realignsInShared() || k.b.realignsInShared();
  auto fence = [&]() {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  };
  if (!splits && !realigns)
    fence();
  auto arrive = [&](Value iteration) {
    Value stage = arith::RemUIOp::create(b, loc, iteration, index(k.stages));
    if (splits)
      splitLanded(stage);
    if (realigns)
      realignLanded(stage);
    if (splits || realigns)
      fence();
    Value full = barrier(k.fullBarrierOffset, stage);
    NVVM::MBarrierArriveOp::create(b, loc, Type(), full, Value());
  };
  if (lag == 0) {
    arrive(it);
    return;
  }
  // Iteration it - lag, or when draining it - lag .. it - 1: those that
  // exist.
  for (int64_t back = drain ? 1 : lag; back <= lag; ++back) {
    Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         it, index(back));
    auto ifExists = scf::IfOp::create(b, loc, exists, false);
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    arrive(arith::SubIOp::create(b, loc, it, index(back)));
  }
}

void KernelBuilder::releaseStageBefore(Value it, Value when) {
  auto ifRelease = scf::IfOp::create(b, loc, when, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard then(b);
  b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
  Value before = arith::AddIOp::create(b, loc, it, index(k.stages - 1));
  Value stage = arith::RemUIOp::create(b, loc, before, index(k.stages));
  Value empty = barrier(k.emptyBarrierOffset, stage);
  if (!s.cluster) {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), empty, Value());
    return;
  }
  // The blocks of this block's cluster row (itself included) and column
  // (the others).
  Value rm = toI32(rankM), rn = toI32(rankN);
  Value rowBase = arith::MulIOp::create(b, loc, rn, i32(k.clusterM));
  for (int64_t j = 0; j < k.clusterN; ++j) {
    Value column = i32(k.clusterM * j);
    arriveRemote(empty, arith::AddIOp::create(b, loc, rm, column));
  }
  for (int64_t d = 1; d < k.clusterM; ++d) {
    Value shifted = arith::AddIOp::create(b, loc, rm, i32(d));
    Value i = arith::RemUIOp::create(b, loc, shifted, i32(k.clusterM));
    arriveRemote(empty, arith::AddIOp::create(b, loc, rowBase, i));
  }
}

void KernelBuilder::arriveRemote(Value local, Value peer) {
  auto clusterType = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value remote = NVVM::MapaOp::create(b, loc, clusterType, local, peer);
  // The default release.cta: the stage's reads were wgmma's, complete at
  // its wait, and the peer only copies into it. (A release at cluster
  // scope held the warpgroup at every stage: 0.65x of the CTA scope's
  // speed on an H200.)
  NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, Value());
}

Value KernelBuilder::addAccumulators(Value acc, Value sum) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  Value result = acc;
  for (int64_t i = 0, e = type.getBody().size(); i < e; ++i) {
    Value x = LLVM::ExtractValueOp::create(b, loc, acc, i);
    Value y = LLVM::ExtractValueOp::create(b, loc, sum, i);
    Value added = LLVM::FAddOp::create(b, loc, x, y);
    result = LLVM::InsertValueOp::create(b, loc, result, added, i);
  }
  return result;
}

Value KernelBuilder::baseDescriptor(const TmaOperand &t, int64_t offset) {
  // Bits 0-13: the address >> 4; 16-29: the leading byte offset >> 4;
  // 32-45: the stride byte offset >> 4; 62-63: 1 for the 128-byte swizzle.
  Value address = arith::AddIOp::create(b, loc, sharedAddress, i32(offset));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), address);
  Value field = arith::ShRUIOp::create(b, loc, wide, i64(4));
  Value masked = arith::AndIOp::create(b, loc, field, i64(0x3FFF));
  uint64_t constant = (uint64_t(t.leadingByteOffset() >> 4) << 16) |
                      (uint64_t(t.strideByteOffset() >> 4) << 32) |
                      (uint64_t(1) << 62);
  return arith::OrIOp::create(b, loc, masked, i64(int64_t(constant)));
}

LogicalResult KernelBuilder::buildConsumer(Value tileStart, Value tileStep) {
  MLIRContext *ctx = b.getContext();
  if (k.consumerRegisters)
    NVVM::SetMaxRegisterOp::create(b, loc, k.consumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  Value consumer = arith::SubIOp::create(b, loc, warpgroup, index(1));
  Value laneInGroup =
      arith::RemUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       laneInGroup, index(0));
  // The descriptors of this warpgroup's rows of A in stage 0, and of B.
  int64_t e = k.elementBytes;
  Value descA = baseDescriptor(k.a, k.aOffset);
  Value rowsOffset = arith::MulIOp::create(
      b, loc, consumer, index(k.a.offsetOf(k.rowsPerConsumer, 0, e) >> 4));
  Value rowsField = arith::IndexCastOp::create(b, loc, b.getI64Type(), rowsOffset);
  descA = arith::AddIOp::create(b, loc, descA, rowsField);
  Value descB = baseDescriptor(k.b, k.bOffset);

  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(k.instN / 2, b.getF32Type()));
  int64_t numAcc = k.mTiles * k.nTiles;
  auto shape = NVVM::MMAShapeAttr::get(ctx, k.instM, k.instN, k.instK);
  NVVM::WGMMATypes inputType = p.a == gemmc::ElementType::F16
                                   ? NVVM::WGMMATypes::f16
                               : p.a == gemmc::ElementType::BF16
                                   ? NVVM::WGMMATypes::bf16
                                   : NVVM::WGMMATypes::tf32;
  // wgmma's "row" A and "col" B are K-major.
  NVVM::MMALayout layoutA =
      k.a.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  NVVM::MMALayout layoutB =
      k.b.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;

  auto tiles = scf::ForOp::create(b, loc, tileStart, numTiles, tileStep,
                                  ValueRange{index(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  auto [tileRow, tileCol] = tileCoordinates(tiles.getInductionVar());
  SmallVector<Value> inits = {tiles.getRegionIterArg(0)};
  for (int64_t i = 0; i < numAcc; ++i)
    inits.push_back(LLVM::ZeroOp::create(b, loc, accType));
  Value one = index(1);
  auto steps = scf::ForOp::create(b, loc, kBegin, kEnd, one, inits);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(steps.getBody());
    Value it = steps.getRegionIterArg(0);
    auto [stage, parity] = stageAndPhase(it);
    Value full = barrier(k.fullBarrierOffset, stage);
    NVVM::MBarrierTryWaitParityOp::create(b, loc, full, parity,
                                          i32(kWaitHintNs));
    // Copies of the producer's threads that arrived as they landed were
    // written by the generic proxy; wgmma reads through the async one.
    if (k.asyncArrivals)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    Value stage64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), stage);
    Value aStage = arith::MulIOp::create(b, loc, stage64,
                                         i64(k.aStageStride >> 4));
    Value bStage = arith::MulIOp::create(b, loc, stage64,
                                         i64(k.bStageStride >> 4));
    Value stageDescA = arith::AddIOp::create(b, loc, descA, aStage);
    Value stageDescB = arith::AddIOp::create(b, loc, descB, bStage);
    SmallVector<Value> acc(steps.getRegionIterArgs().drop_front());
    // With tf32x3 the k tile's products go into sums of their own, each
    // started from zero by the tile's first product.
    SmallVector<Value> sums;
    if (k.tf32x3)
      for (int64_t i = 0; i < numAcc; ++i)
        sums.push_back(LLVM::PoisonOp::create(b, loc, accType));
    SmallVector<Value> &into = k.tf32x3 ? sums : acc;
    // tf32x3's products of a step: A's remainder times B, A times B's
    // remainder (the small ones first, while the sum is small), A times B.
    struct Product {
      int64_t aOffset, bOffset;
    };
    SmallVector<Product, 3> products = {{0, 0}};
    if (k.tf32x3)
      products = {
          {k.a.remainderOffset(), 0}, {0, k.b.remainderOffset()}, {0, 0}};
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (int64_t kk = 0; kk < k.kSteps; ++kk) {
      for (auto [pi, product] : llvm::enumerate(products)) {
        for (int64_t mt = 0; mt < k.mTiles; ++mt) {
          int64_t offsetA =
              k.a.offsetOf(mt * k.instM, kk * k.instK, e) + product.aOffset;
          Value opA =
              arith::AddIOp::create(b, loc, stageDescA, i64(offsetA >> 4));
          for (int64_t nt = 0; nt < k.nTiles; ++nt) {
            int64_t offsetB =
                k.b.offsetOf(nt * k.instN, kk * k.instK, e) + product.bOffset;
            Value opB =
                arith::AddIOp::create(b, loc, stageDescB, i64(offsetB >> 4));
            Value &d = into[mt * k.nTiles + nt];
            bool fromZero = k.tf32x3 && kk == 0 && pi == 0;
            d = NVVM::WgmmaMmaAsyncOp::create(
                b, loc, accType, d, opA, opB, shape, inputType, inputType,
                NVVM::WGMMATypes::f32,
                fromZero ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA,
                layoutB, /*satfinite=*/nullptr);
          }
        }
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    if (k.tf32x3) {
      // The tensor cores round their sums toward zero: the k tile's sum is
      // added to the accumulators in f32 (rounded to nearest), once its
      // wgmma completed, which frees the stage too.
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      for (auto [d, sum] : llvm::zip_equal(acc, sums))
        d = addAccumulators(d, sum);
      Value next = arith::AddIOp::create(b, loc, it, index(1));
      releaseStageBefore(next, leader);
    } else {
      // One group stays in flight: the one before it has read its stage.
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
      Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             steps.getInductionVar(), kBegin);
      releaseStageBefore(it, arith::AndIOp::create(b, loc, notFirst, leader));
    }
    SmallVector<Value> yields = {arith::AddIOp::create(b, loc, it, index(1))};
    yields.append(acc);
    scf::YieldOp::create(b, loc, yields);
  }
  Value end = steps.getResult(0);
  if (!k.tf32x3) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    // The last stage this tile used, once its wgmma completed.
    Value any =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kEnd, kBegin);
    releaseStageBefore(end, arith::AndIOp::create(b, loc, any, leader));
  }
  Value tileRow0 = arith::MulIOp::create(b, loc, tileRow, index(s.bm()));
  Value ownRows =
      arith::MulIOp::create(b, loc, consumer, index(k.rowsPerConsumer));
  Value row0 = arith::AddIOp::create(b, loc, tileRow0, ownRows);
  Value col0 = arith::MulIOp::create(b, loc, tileCol, index(s.bn()));
  SmallVector<Value> results(steps.getResults().drop_front());
  // With split-K only the tile's last block stores C, from the sum.
  Operation *lastOnly = nullptr;
  if (s.splitsK()) {
    if (failed(reduceSplits(tiles.getInductionVar(), row0, col0, results)))
      return failure();
    lastOnly = b.getInsertionBlock()->getParentOp();
  }
  if (failed(k.c ? storeCWithTma(results, consumer, leader, row0, col0)
                 : storeC(results, row0, col0)))
    return failure();
  if (lastOnly)
    b.setInsertionPointAfter(lastOnly);
  scf::YieldOp::create(b, loc, end);
  if (!k.c)
    return success();
  // The block's shared memory must outlive the last stores' reads of it.
  b.setInsertionPointAfter(tiles);
  auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, /*read=*/nullptr);
  return success();
}

LogicalResult KernelBuilder::reduceSplits(Value tile, Value row0, Value col0,
                                          SmallVectorImpl<Value> &accs) {
  // Each consumer thread's accumulators in vectors of 4 (16-byte stores
  // and loads of the workspace), in the order of the accumulators: values
  // i..i+3 (i a multiple of 4) hold columns c, c + 1 of rows r and r + 8,
  // inside C where r < M and c < N (C's columns come in pairs).
  constexpr int64_t width = 4;
  auto vectorType = VectorType::get({width}, b.getF32Type());
  auto [threadRow, laneCol] = accumulatorPosition();
  Value rowBase = arith::AddIOp::create(b, loc, row0, threadRow);
  Value colBase = arith::AddIOp::create(b, loc, col0, laneCol);
  SmallVector<Value> pieces, inside;
  for (auto [position, acc] : llvm::enumerate(accs)) {
    int64_t mt = int64_t(position) / k.nTiles;
    int64_t nt = int64_t(position) % k.nTiles;
    Value row = addOffset(b, loc, rowBase, mt * k.instM);
    Value rowInside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, m);
    for (int64_t i = 0; i < k.instN / 2; i += width) {
      SmallVector<Value> elements;
      for (int64_t j = 0; j < width; ++j)
        elements.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i + j));
      pieces.push_back(
          vector::FromElementsOp::create(b, loc, vectorType, elements));
      Value col = addOffset(b, loc, colBase, nt * k.instN + 8 * (i / 4));
      Value colInside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, n);
      inside.push_back(arith::AndIOp::create(b, loc, rowInside, colInside));
    }
  }
  SplitParticipants who;
  who.thread = arith::SubIOp::create(b, loc, threadId,
                                     index(gemmc::kWarpgroupSize));
  who.threads = k.consumers * gemmc::kWarpgroupSize;
  who.barrierId = k.splitKBarrier();
  Operation *at = b.getInsertionBlock()->getParentOp();
  if (failed(gemm::reducePartials(b, loc, at, splitCount, s.bm() * s.bn(),
                                  tile, split, /*empty=*/Value(), who, pieces,
                                  inside)))
    return failure();
  size_t next = 0;
  for (Value &acc : accs) {
    for (int64_t i = 0; i < k.instN / 2; i += width) {
      Value sum = pieces[next++];
      for (int64_t j = 0; j < width; ++j) {
        Value element = vector::ExtractOp::create(b, loc, sum, j);
        acc = LLVM::InsertValueOp::create(b, loc, acc, element, i + j);
      }
    }
  }
  return success();
}

Value KernelBuilder::groupOffset(Value row, Value col) {
  const gemmc::TmaStore &t = *k.c;
  int64_t lineElements = gemmc::kSwizzleBytes / t.elementBytes;
  // A row of a row-major group is a line; a column-major group's boxes
  // each hold `lineElements` rows, its columns the lines.
  Value line = col, element = row, box;
  if (t.rowMajor) {
    line = row;
    element = col;
  } else {
    box = arith::DivUIOp::create(b, loc, row, i32(lineElements));
    element = arith::RemUIOp::create(b, loc, row, i32(lineElements));
  }
  Value x = arith::MulIOp::create(b, loc, element, i32(t.elementBytes));
  Value unit = arith::ShRUIOp::create(b, loc, x, i32(4));
  Value phase = arith::AndIOp::create(b, loc, line, i32(7));
  Value swizzled = arith::XOrIOp::create(b, loc, unit, phase);
  Value unitOffset = arith::ShLIOp::create(b, loc, swizzled, i32(4));
  Value inUnit = arith::AndIOp::create(b, loc, x, i32(15));
  Value lineOffset =
      arith::MulIOp::create(b, loc, line, i32(gemmc::kSwizzleBytes));
  Value offset = arith::AddIOp::create(b, loc, lineOffset, unitOffset);
  offset = arith::OrIOp::create(b, loc, offset, inUnit);
  if (box) {
    Value boxOffset = arith::MulIOp::create(b, loc, box, i32(t.boxBytes()));
    offset = arith::AddIOp::create(b, loc, offset, boxOffset);
  }
  return offset;
}

LogicalResult KernelBuilder::storeCWithTma(ArrayRef<Value> accumulators,
                                           Value consumer, Value leader,
                                           Value row0, Value col0) {
  const gemmc::TmaStore &t = *k.c;
  Value threadRow, laneCol;
  std::tie(threadRow, laneCol) = accumulatorPosition();
  Value threadRow32 = toI32(threadRow), laneCol32 = toI32(laneCol);

  Type cType = cast<MemRefType>(c.getType()).getElementType();
  int64_t cBytes = t.elementBytes;
  auto pairType = VectorType::get({2}, cType);
  auto f32Pair = VectorType::get({2}, b.getF32Type());
  auto sharedType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  // Tiles may reach past the matrix (TMA clips their stores): the reads of
  // C and of the bias are then clamped into it.
  bool edges = gemmc::hasEdgeTiles(p, s);
  Value lastRow, lastCol;
  if (edges) {
    lastRow = arith::SubIOp::create(b, loc, m, index(1));
    lastCol = arith::SubIOp::create(b, loc, n, index(1));
  }
  auto clamp = [&](OpBuilder &ob, Value v, Value last) -> Value {
    if (!edges)
      return v;
    return arith::MinUIOp::create(ob, loc, v, last);
  };
  // This warpgroup's buffers, and its named barrier (0 is the block's).
  int64_t bufferStride =
      llvm::alignTo(t.groupBytes(), gemmc::kSwizzleAtomBytes);
  Value consumer32 = toI32(consumer);
  Value ownBuffers = arith::MulIOp::create(
      b, loc, consumer32, i32(bufferStride * gemmc::TmaStore::kBuffers));
  Value buffers = arith::AddIOp::create(b, loc, ownBuffers, i32(k.cOffset));
  Value barrierId = arith::AddIOp::create(b, loc, consumer32, i32(1));
  Value groupThreads = i32(gemmc::kWarpgroupSize);
  Value row0_32 = toI32(row0), col0_32 = toI32(col0);
  int64_t groupsPerRow = s.bn() / t.groupColumns;

  // The element values of one group, with the epilogue applied, written to
  // its buffer at `base`.
  auto writeGroup = [&](OpBuilder &ob, const EpilogueValues &epilogue,
                        int64_t mt, int64_t g, Value base) {
    for (int64_t nt = 0; nt < k.nTiles; ++nt) {
      Value acc = accumulators[mt * k.nTiles + nt];
      for (int64_t i = 0; i < k.instN / 2; i += 2) {
        int64_t dCol = nt * k.instN + 8 * (i / 4);
        if (dCol / t.groupColumns != g)
          continue;
        int64_t dRow = 8 * ((i / 2) % 2);
        Value localRow = arith::AddIOp::create(ob, loc, threadRow32, i32(dRow));
        Value localCol = arith::AddIOp::create(ob, loc, laneCol32,
                                               i32(dCol % t.groupColumns));
        Value row = addOffset(ob, loc, row0, mt * k.instM + dRow);
        row = arith::AddIOp::create(ob, loc, row, threadRow);
        Value col = addOffset(ob, loc, col0, dCol);
        col = arith::AddIOp::create(ob, loc, col, laneCol);
        Value x = LLVM::ExtractValueOp::create(ob, loc, acc, i);
        Value y = LLVM::ExtractValueOp::create(ob, loc, acc, i + 1);
        SmallVector<Value, 2> values;
        if (!edges && t.rowMajor) {
          // A pair along the row, read and applied at once.
          Value pair = vector::FromElementsOp::create(ob, loc, f32Pair,
                                                      ValueRange{x, y});
          values.push_back(epiloguePair(ob, epilogue, pair, row, col));
        } else {
          for (int64_t j = 0; j < 2; ++j) {
            Value at = addOffset(ob, loc, col, j);
            Value readRow = clamp(ob, row, lastRow);
            Value readCol = clamp(ob, at, lastCol);
            values.push_back(
                epilogueElement(ob, epilogue, j ? y : x, readRow, readCol));
          }
        }
        if (t.rowMajor) {
          Value pair = values.size() == 1
                           ? values[0]
                           : vector::FromElementsOp::create(ob, loc, f32Pair,
                                                            values)
                                 .getResult();
          if (cType != ob.getF32Type())
            pair = arith::TruncFOp::create(ob, loc, pairType, pair);
          Value offset = groupOffset(localRow, localCol);
          Value at = arith::AddIOp::create(ob, loc, base, offset);
          Value ptr = LLVM::GEPOp::create(ob, loc, sharedType, ob.getI8Type(),
                                          sharedBase, ValueRange{at});
          LLVM::StoreOp::create(ob, loc, pair, ptr, 2 * cBytes);
          continue;
        }
        for (int64_t j = 0; j < 2; ++j) {
          Value value = values[j];
          if (cType != ob.getF32Type())
            value = arith::TruncFOp::create(ob, loc, cType, value);
          Value elementCol = arith::AddIOp::create(ob, loc, localCol, i32(j));
          Value offset = groupOffset(localRow, elementCol);
          Value at = arith::AddIOp::create(ob, loc, base, offset);
          Value ptr = LLVM::GEPOp::create(ob, loc, sharedType, ob.getI8Type(),
                                          sharedBase, ValueRange{at});
          LLVM::StoreOp::create(ob, loc, value, ptr, cBytes);
        }
      }
    }
  };

  auto stores = [&](OpBuilder &ob, const EpilogueValues &epilogue) {
    OpBuilder::InsertionGuard guard(ob);
    for (int64_t q = 0; q < t.groupsPerTile; ++q) {
      int64_t mt = q / groupsPerRow, g = q % groupsPerRow;
      int64_t buffer = q % gemmc::TmaStore::kBuffers;
      Value base = arith::AddIOp::create(ob, loc, buffers,
                                         i32(buffer * bufferStride));
      // The buffer's previous store has read it: at most one other is in
      // flight (none at a tile's first group, whose buffers the last
      // tile's stores may still read).
      auto ifLeader = scf::IfOp::create(ob, loc, leader, false);
      {
        OpBuilder::InsertionGuard then(ob);
        ob.setInsertionPointToStart(&ifLeader.getThenRegion().front());
        NVVM::CpAsyncBulkWaitGroupOp::create(ob, loc, q == 0 ? 0 : 1,
                                             ob.getUnitAttr());
      }
      NVVM::BarrierOp::create(ob, loc, Type(), barrierId, groupThreads,
                              /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
      writeGroup(ob, epilogue, mt, g, base);
      // The writes, by the generic proxy, before TMA reads them.
      NVVM::FenceProxyOp::create(
          ob, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ob.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      NVVM::BarrierOp::create(ob, loc, Type(), barrierId, groupThreads,
                              /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
      auto ifIssuer = scf::IfOp::create(ob, loc, leader, false);
      OpBuilder::InsertionGuard then(ob);
      ob.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
      Value groupRow =
          arith::AddIOp::create(ob, loc, row0_32, i32(mt * k.instM));
      Value groupCol =
          arith::AddIOp::create(ob, loc, col0_32, i32(g * t.groupColumns));
      for (int64_t box = 0; box < t.boxes; ++box) {
        Value at = arith::AddIOp::create(ob, loc, base, i32(box * t.boxBytes()));
        Value src = LLVM::GEPOp::create(ob, loc, sharedType, ob.getI8Type(),
                                        sharedBase, ValueRange{at});
        // Coordinates innermost first.
        SmallVector<Value, 2> coordinates = {groupCol, groupRow};
        if (!t.rowMajor) {
          Value boxRow =
              arith::AddIOp::create(ob, loc, groupRow, i32(box * t.boxInner));
          coordinates = {boxRow, groupCol};
        }
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            ob, loc, mapC, src, coordinates, /*l2CacheHint=*/Value(),
            NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(ob, loc);
    }
  };

  Operation *at = b.getInsertionBlock()->getParentOp();
  return buildEpilogue(b, loc, at, c, stores);
}

std::pair<Value, Value> KernelBuilder::accumulatorPosition() {
  Value lane = arith::RemUIOp::create(b, loc, threadId, index(32));
  Value inGroup =
      arith::RemUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  Value warp = arith::DivUIOp::create(b, loc, inGroup, index(32));
  Value warpRow = arith::MulIOp::create(b, loc, warp, index(16));
  Value laneRow = arith::DivUIOp::create(b, loc, lane, index(4));
  Value threadRow = arith::AddIOp::create(b, loc, warpRow, laneRow);
  Value quad = arith::RemUIOp::create(b, loc, lane, index(4));
  Value laneCol = arith::MulIOp::create(b, loc, quad, index(2));
  return {threadRow, laneCol};
}

Value KernelBuilder::epiloguePair(OpBuilder &ob,
                                  const EpilogueValues &epilogue, Value acc,
                                  Value row, Value col) {
  Type cType = cast<MemRefType>(c.getType()).getElementType();
  Value old;
  if (epilogue.readsC) {
    Value read = vector::LoadOp::create(ob, loc, VectorType::get({2}, cType),
                                        c, ValueRange{row, col});
    old = extendToF32(ob, loc, read);
  }
  auto position = [&]() { return std::make_pair(row, col); };
  return epilogue.apply(ob, loc, acc, old, c, position);
}

Value KernelBuilder::epilogueElement(OpBuilder &ob,
                                     const EpilogueValues &epilogue, Value acc,
                                     Value row, Value col) {
  Value old;
  if (epilogue.readsC) {
    Value read = memref::LoadOp::create(ob, loc, c, ValueRange{row, col});
    old = read.getType() == ob.getF32Type()
              ? read
              : arith::ExtFOp::create(ob, loc, ob.getF32Type(), read)
                    .getResult();
  }
  auto position = [&]() { return std::make_pair(row, col); };
  return epilogue.apply(ob, loc, acc, old, c, position);
}

LogicalResult KernelBuilder::storeC(ArrayRef<Value> accumulators, Value row0,
                                    Value col0) {
  Value threadRow, laneCol;
  std::tie(threadRow, laneCol) = accumulatorPosition();
  Value rowBase = arith::AddIOp::create(b, loc, row0, threadRow);
  Value colBase = arith::AddIOp::create(b, loc, col0, laneCol);

  Type cType = cast<MemRefType>(c.getType()).getElementType();
  bool rowMajor = p.cLayout == gemmc::MatrixLayout::Row;
  auto pairType = VectorType::get({2}, cType);
  auto f32Pair = VectorType::get({2}, b.getF32Type());
  // Tiles inside the matrix store unguarded; the others element by
  // element inside the bounds.
  bool tails = gemmc::hasEdgeTiles(p, s);
  // Pairs of a row-major C's columns are one access where its leading
  // dimension is even; an odd one (static, or given at launch, when the
  // tiles inside the matrix test it) is stored element by element.
  std::optional<int64_t> ldc = p.leadingDimension(gemmc::Operand::C);
  bool pairs = rowMajor && (!ldc || *ldc % 2 == 0);

  auto stores = [&](OpBuilder &ob, const EpilogueValues &epilogue,
                    bool guarded) {
    for (auto [position, acc] : llvm::enumerate(accumulators)) {
      int64_t mt = position / k.nTiles, nt = position % k.nTiles;
      for (int64_t i = 0; i < k.instN / 2; i += 2) {
        int64_t dRow = mt * k.instM + 8 * ((i / 2) % 2);
        int64_t dCol = nt * k.instN + 8 * (i / 4);
        Value row = addOffset(ob, loc, rowBase, dRow);
        Value col = addOffset(ob, loc, colBase, dCol);
        Value x = LLVM::ExtractValueOp::create(ob, loc, acc, i);
        Value y = LLVM::ExtractValueOp::create(ob, loc, acc, i + 1);
        Value pair = vector::FromElementsOp::create(ob, loc, f32Pair,
                                                    ValueRange{x, y});
        Value col1 = addOffset(ob, loc, col, 1);
        if (!guarded && pairs) {
          Value value = epiloguePair(ob, epilogue, pair, row, col);
          Value narrow = value;
          if (cType != ob.getF32Type())
            narrow = arith::TruncFOp::create(ob, loc, pairType, value);
          vector::StoreOp::create(
              ob, loc, narrow, c, ValueRange{row, col}, /*nontemporal=*/false,
              llvm::MaybeAlign(2 * cType.getIntOrFloatBitWidth() / 8));
          continue;
        }
        // Element by element: a column-major C, or past the edges.
        for (int64_t j = 0; j < 2; ++j) {
          Value at = j ? col1 : col;
          Value element = j ? y : x;
          auto storeOne = [&](OpBuilder &eb) {
            Value value = epilogueElement(eb, epilogue, element, row, at);
            if (cType != eb.getF32Type())
              value = arith::TruncFOp::create(eb, loc, cType, value);
            memref::StoreOp::create(eb, loc, value, c, ValueRange{row, at});
          };
          if (!guarded) {
            storeOne(ob);
            continue;
          }
          Value inRows = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                               row, m);
          Value inCols = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                               at, n);
          Value inside = arith::AndIOp::create(ob, loc, inRows, inCols);
          auto ifInside = scf::IfOp::create(ob, loc, inside, false);
          OpBuilder tb = OpBuilder::atBlockBegin(&ifInside.getThenRegion().front());
          tb.setInsertionPoint(ifInside.getThenRegion().front().getTerminator());
          storeOne(tb);
        }
      }
    }
  };

  // The epilogue reads the kernel's attributes from an op inside it.
  Operation *at = b.getInsertionBlock()->getParentOp();
  return buildEpilogue(
      b, loc, at, c, [&](OpBuilder &ob, const EpilogueValues &epilogue) {
        if (!tails) {
          stores(ob, epilogue, /*guarded=*/false);
          return;
        }
        Value tileRowEnd = addOffset(ob, loc, row0, k.rowsPerConsumer);
        Value tileColEnd = addOffset(ob, loc, col0, s.bn());
        Value rowsInside = arith::CmpIOp::create(
            ob, loc, arith::CmpIPredicate::ule, tileRowEnd, m);
        Value colsInside = arith::CmpIOp::create(
            ob, loc, arith::CmpIPredicate::ule, tileColEnd, n);
        Value inside = arith::AndIOp::create(ob, loc, rowsInside, colsInside);
        if (pairs && !ldc) {
          auto metadata = memref::ExtractStridedMetadataOp::create(ob, loc, c);
          Value parity = arith::RemUIOp::create(
              ob, loc, metadata.getStrides()[0], indexConstant(ob, loc, 2));
          Value even = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq,
                                             parity, indexConstant(ob, loc, 0));
          inside = arith::AndIOp::create(ob, loc, inside, even);
        }
        scf::IfOp::create(
            ob, loc, inside,
            [&](OpBuilder &tb, Location) {
              stores(tb, epilogue, /*guarded=*/false);
              scf::YieldOp::create(tb, loc);
            },
            [&](OpBuilder &eb, Location) {
              stores(eb, epilogue, /*guarded=*/true);
              scf::YieldOp::create(eb, loc);
            });
      });
}

LogicalResult KernelBuilder::build(MatmulOp matmul) {
  a = getKernelArgument(func, KernelArg::A);
  bMatrix = getKernelArgument(func, KernelArg::B);
  c = getKernelArgument(func, KernelArg::C);
  mapA = getKernelArgument(func, KernelArg::TensorMapA);
  mapB = getKernelArgument(func, KernelArg::TensorMapB);
  mapC = getKernelArgument(func, KernelArg::TensorMapC);
  if (!a || !bMatrix || !c || (k.a.byTma && !mapA) || (k.b.byTma && !mapB) ||
      (k.c && !mapC))
    return func.emitOpError("lacks the matrices or tensor maps of the "
                            "kernel ABI");
  if (matmul.getA() != a || matmul.getB() != bMatrix || matmul.getC() != c)
    return matmul.emitOpError("of a wgmma kernel must multiply the kernel's "
                              "own matrices");

  // The dynamic shared memory, 1024-byte aligned for the swizzled tiles.
  auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
  auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  if (!gpuModule.lookupSymbol(kSharedMemorySymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(gpuModule.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::External, kSharedMemorySymbol,
                           /*value=*/Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }

  Block &body = func.getBody().front();
  b.setInsertionPointToStart(&body);
  auto sharedType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  sharedBase =
      LLVM::AddressOfOp::create(b, loc, sharedType, kSharedMemorySymbol);
  sharedAddress = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), sharedBase);
  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  warpgroup =
      arith::DivUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  auto extent = [&](Value matrix, unsigned dim) {
    return getValueOrCreateConstantIndexOp(b, loc,
                                           extentOf(b, loc, matrix, dim));
  };
  m = extent(c, 0);
  n = extent(c, 1);
  kExtent = extent(a, 1);
  auto ceilDiv = [&](Value x, int64_t y) -> Value {
    return arith::CeilDivUIOp::create(b, loc, x, index(y));
  };
  tilesM = ceilDiv(m, s.bm());
  tilesN = ceilDiv(n, s.bn());
  numTiles = arith::MulIOp::create(b, loc, tilesM, tilesN);
  kTiles = ceilDiv(kExtent, s.bk());
  kBegin = index(0);
  kEnd = kTiles;
  if (s.splitsK()) {
    // ceil(kTiles / S) K tiles per split, the last fewer; a split past K
    // has none (and adds zeros). S is the grid's z where the launch
    // chooses it.
    split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    splitCount = getSplitCount(b, loc, s);
    Value count = getValueOrCreateConstantIndexOp(b, loc, splitCount);
    Value perSplit = arith::CeilDivUIOp::create(b, loc, kTiles, count);
    Value start = arith::MulIOp::create(b, loc, split, perSplit);
    kBegin = arith::MinUIOp::create(b, loc, start, kTiles);
    Value stop = arith::AddIOp::create(b, loc, kBegin, perSplit);
    kEnd = arith::MinUIOp::create(b, loc, stop, kTiles);
  }
  // A persistent grid walks the tiles from its block by the grid's size;
  // otherwise each block computes the tile of its linear index. A cluster
  // walks the cluster tiles from its index by the clusters of the grid.
  Value tileStart, tileStep;
  if (s.cluster) {
    auto i32Type = b.getI32Type();
    Value rank32 = NVVM::ClusterId::create(b, loc, i32Type);
    rank = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rank32);
    rankM = arith::RemUIOp::create(b, loc, rank, index(k.clusterM));
    rankN = arith::DivUIOp::create(b, loc, rank, index(k.clusterM));
    clusterTilesM = ceilDiv(tilesM, k.clusterM);
    clusterTilesN = ceilDiv(tilesN, k.clusterN);
    numTiles = arith::MulIOp::create(b, loc, clusterTilesM, clusterTilesN);
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blocks = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    int64_t size = s.clusterSize();
    tileStart = arith::DivUIOp::create(b, loc, block, index(size));
    tileStep = arith::DivUIOp::create(b, loc, blocks, index(size));
  } else if (s.persistent) {
    tileStart = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    tileStep = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  } else {
    Value x = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value y = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value rowStart = arith::MulIOp::create(b, loc, y, tilesN);
    tileStart = arith::AddIOp::create(b, loc, rowStart, x);
    tileStep = numTiles;
  }

  buildPrologue();
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  b.setInsertionPointToStart(&roles.getThenRegion().front());
  buildProducer(tileStart, tileStep);
  b.setInsertionPointToStart(&roles.getElseRegion().front());
  if (failed(buildConsumer(tileStart, tileStep)))
    return failure();
  // No block leaves while its peers may still copy into it or arrive on
  // its barriers.
  if (s.cluster) {
    b.setInsertionPointAfter(roles);
    clusterBarrier();
  }
  matmul.erase();
  return success();
}

/// Sets the launch: threads, grid (or one block per multiprocessor), the
/// dynamic shared memory, and the attributes the contract reads.
static void setLaunch(gpu::GPUFuncOp func, const gemmc::Problem &p,
                      const gemmc::Schedule &s, const WarpgroupKernel &k) {
  OpBuilder b(func.getContext());
  int32_t blockSize[] = {static_cast<int32_t>(k.threads), 1, 1};
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(blockSize));
  if (s.cluster) {
    int32_t clusterSize[] = {static_cast<int32_t>(s.clusterSize()), 1, 1};
    func.setKnownClusterSizeAttr(b.getDenseI32ArrayAttr(clusterSize));
  }
  if (gemmc::hasEdgeTiles(p, s) || *p.k % s.bk())
    func->setAttr(kTailsAttr, b.getUnitAttr());
  SmallVector<GridDim, 3> grid;
  if (s.persistent)
    grid = {{Dim::SMs, 1}, {Dim::One, 1}, {Dim::One, 1}};
  else if (s.splitsAtLaunch())
    grid = {{Dim::N, s.bn()}, {Dim::M, s.bm()}, {Dim::Splits, 1}};
  else
    grid = {{Dim::N, s.bn()}, {Dim::M, s.bm()}, {Dim::One, s.splits()}};
  // TMA copies rows of 16-byte multiples, the producer's threads pieces of
  // the global-load width; without `tma c`, C takes any leading dimension.
  int64_t aMultiple = gemmc::leadingDimMultiple(k.a, k.elementBytes);
  int64_t bMultiple = gemmc::leadingDimMultiple(k.b, k.elementBytes);
  int64_t cMultiple = k.c ? 16 / k.c->elementBytes : 1;
  func->setAttr(kLaunchAttr,
                LaunchAttr::get(b.getContext(), {k.threads, 1, 1}, grid,
                                k.sharedBytes)
                    .withIndexBitwidth(s.indexBitwidth())
                    .withLdMultiple({aMultiple, bMultiple, cMultiple}));
}

namespace {
struct GemmWarpgroupPass
    : public mlir::gemm::impl::GemmWarpgroupBase<GemmWarpgroupPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    auto problem = func->getAttrOfType<ProblemAttr>(kProblemAttr);
    if (!schedule || !schedule.getValue().hasWgmma())
      return;
    if (!problem) {
      func.emitOpError("a wgmma kernel needs its gemm.problem");
      return signalPassFailure();
    }
    FailureOr<SmallVector<MatmulOp>> matmuls =
        collectMatmuls(func, [](MatmulOp op, const gemmc::Schedule &) {
          return op.getLevel() == Level::Grid;
        });
    if (failed(matmuls))
      return signalPassFailure();
    if (matmuls->size() != 1) {
      func.emitOpError("expected one grid-level gemm.matmul, found ")
          << matmuls->size();
      return signalPassFailure();
    }
    gemmc::Problem p = getProblemModel(problem);
    const gemmc::Schedule &s = schedule.getValue();
    WarpgroupKernel kernel = gemmc::getWarpgroupKernel(p, s);
    setLaunch(func, p, s, kernel);
    if (failed(KernelBuilder(func, p, s, kernel).build(matmuls->front())))
      return signalPassFailure();
  }
};
} // namespace
