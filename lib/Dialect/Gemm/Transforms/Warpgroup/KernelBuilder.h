//===- KernelBuilder.h - Hopper's warp-specialised wgmma kernel -*- C++ -*-===//
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
//   (an M- or N-major f32 operand, which tf32 wgmma reads only K-major: in
//   4 x 4 blocks, each block's rows copied by the producer's threads into
//   its units of the tile with cp.async, or by TMA into a staging tile on
//   the stage's third mbarrier, "landed"; a stage late each thread waits
//   for its blocks and writes them transposed into the tile before it
//   fences and arrives)
//   warpgroups 1.. (consumers), for each tile:
//     for each k tile: wait full[it % S]; wgmma.fence; wgmma.mma_async
//     over the stage; commit; wait until one group is in flight; release
//     the previous stage (empty, one arrival per warpgroup)
//     wait for the last group, release its stage, store C with the
//     epilogue from the accumulators: directly, or with `tma c` through
//     two shared-memory buffers per warpgroup that TMA stores (one group
//     of 64 rows x 128 bytes at a time; the matrix's edges clip them)
//
// With `warp-specialize 2 ping-pong` the consumers take turns at whole
// tiles instead: consumer i computes the block's tiles i, i + 2, ... (its
// rows the tile's, from its first), each stage released by the one that
// used it; a consumer's wgmma of a tile wait at a named barrier until the
// other's of the tile before are issued, so that one's epilogue runs
// beside the other's wgmma (awaitTurn, passTurn).
//
// With `split-k S` (one block per tile and split, the split blockIdx.z)
// each block covers ceil(K tiles / S) of K; the consumers store their
// partials, and the tile's last block sums them in split order and stores
// C (SplitK.h), the consumers meeting at a named barrier of their own.
//
// With `persistent stream-k` the blocks walk units (buildStreamKShare):
// whole tiles for the grid's full rounds but the last, then an even share
// of the remaining tiles' K tiles; a tile shared by several blocks is
// reduced like a split-K tile, its pieces' partials in two workspace slots
// a block, by the last of them (the consumers count in among themselves,
// through a word of shared memory).
//
// A batch's matrices are count x rows x cols memrefs: the tiles of every
// matrix are one walk, a matrix's after the one before (the persistent
// grid's blocks walk them all; a grid of tiles has the matrices along z).
// A tile's copies, stores and epilogue address its matrix (TileScope),
// and TMA copies it through 3-D tensor maps, the matrix the last
// coordinate.
//
// A grouped GEMM (`groups`, persistent; Groups.cpp) walks every group's
// tiles, group after group: group g has ceil((e(g) - e(g-1))/BM) tile rows
// (e(g) the end of its rows, offsets[g] clamped into M), and the grid deals
// the tiles round with no hole between groups. A block meets its tiles in
// the walk's order, so it finds each one's group by moving a cursor (the
// group, the tiles before it, where its rows start) on from its last
// tile's, producer and consumers alike, with no pass over the groups
// first. The walk's bound, floor(e(G-1)/BM) + G tile rows, is a closed
// form over the last offset; tiles past the last group's are none. A
// tile's B is its group's (the 3-D tensor map's last coordinate), its rows
// start at the group's first row plus BM a tile row, and its stores stop
// at the group's last row.
//
// In a cluster (`cluster CMxCN`, persistent) the blocks walk the cluster's
// tiles in step: block (rm, rn) of the cluster computes tile row
// CM * r + rm and column CN * c + rn of cluster tile (r, c). The blocks of
// a cluster row share A's tile, each copying 1/CN of its rows and
// multicasting them to the row; likewise B in a column. A stage is free
// once the consumers of every block that writes into it have released it:
// they arrive on the "empty" barriers of their row's and column's blocks.
// The cluster's blocks meet once, their barriers set up; a block leaves
// once its producer saw the last uses of its stages released (no cluster
// barrier closes the kernel: it held the producer's idle warps).
//
//
// The builder's parts live beside this header: Kernel.cpp (the kernel's
// frame: barriers' setup, the tile walk, producer and consumers placed),
// Producer.cpp (TMA and the copies' dispatch), ThreadCopies.cpp (the
// producer threads' cp.async copies, windows and in-place splits),
// RegisterCopies.cpp (copies through registers), Groups.cpp (a grouped
// GEMM's tiles), Barriers.cpp (the
// pipeline's arrivals and releases), Consumer.cpp (wgmma and split-K),
// StoreC.cpp (the epilogue's stores of C) and Pass.cpp (the pass).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_WARPGROUP_KERNELBUILDER_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_WARPGROUP_KERNELBUILDER_H

#include "Lowering/Epilogue.h"
#include "Lowering/SplitK.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <numeric>

namespace mlir::gemm::warpgroup {

using gemmc::TmaOperand;
using gemmc::WarpgroupKernel;

/// The symbol of the kernels' dynamic shared memory.
inline constexpr StringLiteral kSharedMemorySymbol = "gemmc_shared";

/// The suspend-time hint of the mbarrier waits, in nanoseconds.
inline constexpr int64_t kWaitHintNs = 10000000;

/// Stream-K: the most pieces a tile of the last round is cut into
/// (buildStreamKShare; the contract library's cost model, Cost.cpp, holds
/// the same rule).
inline constexpr int64_t kStreamKMaxPieces = 8;

/// tf32x3's split of an f32 element held as an i32 word: its tf32 part and
/// the remainder, as i32 words.
std::pair<Value, Value> splitWord(OpBuilder &b, Location loc, Value word);

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
  /// An i32 that is never negative, as an index.
  Value toIndex(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  /// A pointer `offset` bytes (an i32) into the dynamic shared memory.
  Value sharedPointer(Value offset) {
    return LLVM::GEPOp::create(b, loc, sharedBase.getType(), b.getI8Type(),
                               sharedBase, ValueRange{offset});
  }
  /// The producer's and the consumers' loops over a tile's K steps stay
  /// loops, neither unrolled nor peeled. Where K is given and they are
  /// few, LLVM unrolled them whole, and the copies' and wgmma's values
  /// then lived across the steps (the schedule fuzzer's s37_1048:
  /// 256x128x128 tiles, A and B copied by the producer's threads, K = 200
  /// in 2 stages, 276 bytes spilled; as a loop, none). Of 4 stages it
  /// peeled the first step: its accumulators were copied into the loop's
  /// while a group ran (s91_1350: C7514), or lived beside its values
  /// (s91_590: 252 bytes spilled unwarned).
  void keepStepsRolled(scf::ForOp steps) { keepRolled(steps); }
  /// The mbarrier at `offset` + 8 * stage.
  Value barrier(int64_t offset, Value stage) {
    Value stage32 = toI32(stage);
    Value scaled = arith::MulIOp::create(b, loc, stage32, i32(8));
    Value at = arith::AddIOp::create(b, loc, scaled, i32(offset));
    return sharedPointer(at);
  }

  /// A block's share of a tile under stream-K (`persistent stream-k`): the
  /// linear tile and its K tiles [kBegin, kEnd) (index).
  struct WorkUnit {
    Value tile, kBegin, kEnd;
  };
  /// The blocks that share a unit's tile: `pieces` of them (1 where this
  /// block computes it whole), blocks `firstBlock` onwards, each keeping
  /// its partial tile in the workspace at slot block. (Built after the
  /// unit's loop over K, so that none of it is live across the loop.)
  struct TileSharing {
    Value pieces, firstBlock;
  };
  /// Stream-K: the share of the work this block computes: `wholeUnitCount`
  /// whole tiles (wholeTileAt), then `sharedUnitCount` (0 or 1) pieces of
  /// the last round's tiles (sharedUnit). buildProducer and buildConsumer
  /// walk them in two loops, so that the loop of whole tiles is the
  /// persistent kernel's.
  void buildStreamKShare(Value block, Value blocks);
  /// Stream-K: the block's u-th whole tile, and its piece of a shared tile
  /// (index values).
  Value wholeTileAt(Value u);
  WorkUnit sharedUnit();
  TileSharing sharingOf(const WorkUnit &unit);
  /// Stream-K: where the partial tiles of a shared tile lie in the
  /// workspace.
  PartialSlots streamKSlots(const TileSharing &sharing);

  void buildPrologue();
  /// All threads of the cluster's blocks meet (a cluster kernel only).
  void clusterBarrier();
  void buildProducer(Value tileStart, Value tileStep);
  /// A cluster's producer, its copies issued: waits until the consumers of
  /// every block that shares its stages released their last uses, `end`
  /// being the iteration after its last (so that no peer arrives on its
  /// barriers once it left).
  void waitForLastReleases(Value end);
  /// The producer's wait until pipeline iteration `it`'s stage is free (its
  /// use S iterations before released); returns the stage (index).
  Value waitUntilStageFree(Value it);
  /// The same for stage `stage` (index) of phase `parity` (i32).
  void waitUntilFree(Value stage, Value parity);
  /// Stream-K's producer: the issuer (all threads where they copy an
  /// operand) copies the block's whole tiles, then its shared units.
  void buildStreamKProducer(Value issuer, bool allThreads);
  /// Where a linear tile lies: its matrix of a batch or its group (null
  /// without), and its row and column in tiles (index values; of a grouped
  /// GEMM, among its group's). A grouped GEMM's tile also has its first
  /// row, the end of its group's rows, and whether it is one (`present`,
  /// i1: the walk's bound counts slots).
  struct TilePosition {
    Value batch, row, col;
    Value firstRow, rowEnd, present;
  };
  /// The producer's copies of the K tiles [kBegin, kEnd) of linear tile
  /// `tile`, from pipeline iteration `it0`; returns the iteration after
  /// them.
  Value produceTile(Value tile, Value kBegin, Value kEnd, Value it0,
                    Value issuer, bool allThreads);
  /// The same for the tile at `at`, which exists.
  Value produceTileAt(const TilePosition &at, Value kBegin, Value kEnd,
                      Value it0, Value issuer, bool allThreads);
  LogicalResult buildConsumer(Value tileStart, Value tileStep);
  /// What a consumer warpgroup's wgmma need, worked out once: its index
  /// and leader thread, the descriptors of its rows of A and of B in stage
  /// 0, and the instruction's accumulator type, shape, input types and
  /// operand layouts.
  struct ConsumerSetup {
    Value consumer, leader, descA, descB;
    Type accType;
    NVVM::MMAShapeAttr shape;
    NVVM::WGMMATypes inputTypeA, inputTypeB;
    NVVM::MMALayout layoutA, layoutB;
    /// With A in registers (`a.inRegisters`): the byte offsets (i32), from
    /// a stage's tile of A, of the thread's four elements of its first
    /// fragment (its rows' first wgmma tile, K step 0).
    SmallVector<Value, 4> fragmentOffsets;
  };
  /// The consumers' register budget, index, leader and descriptors.
  ConsumerSetup buildConsumerSetup();
  /// One tile's K tiles [kBegin, kEnd) from pipeline iteration `it0`, its
  /// partials reduced where it is shared (`unit`, stream-K) or split, and
  /// C stored; returns the iteration after them.
  FailureOr<Value> consumeTile(const ConsumerSetup &cs, Value tile,
                               Value kBegin, Value kEnd, Value it0,
                               const WorkUnit *unit);
  /// Ping-pong: before a consumer's wgmma of linear tile `tile` (but the
  /// block's first), it waits until the other consumer has waited for
  /// every stage of the tile before; once its own are issued, it passes
  /// the turn on (where the block has a tile after it). A consumer's
  /// waits then stay within a round of the stages' barriers, whose
  /// parity would not tell two rounds apart.
  void awaitTurn(const ConsumerSetup &cs, Value tile);
  /// Whether the turn passes after tile `tile` (where the block has a
  /// tile after it), and the pass where `when` (an i1) holds.
  Value turnPasses(Value tile);
  void passTurn(const ConsumerSetup &cs, Value when);
  /// The same for the tile at `at`, which exists.
  FailureOr<Value> consumeTileAt(const ConsumerSetup &cs,
                                 const TilePosition &at, Value tile,
                                 Value kBegin, Value kEnd, Value it0,
                                 const WorkUnit *unit);
  /// The body of consumeTile's loop over K tiles `steps` (its first
  /// iteration argument the pipeline iteration, the rest the
  /// accumulators): wait for the stage, its wgmma, release the stage
  /// before (and with freesLastStageInLoop, finishLastStep).
  /// (`col0`: with `scales = block`, the tile's first column, else null;
  /// `passes`: where a ping-pong consumer passes the turn in the last
  /// step, whether it does, else null.)
  void multiplyStage(const ConsumerSetup &cs, scf::ForOp steps, Value kBegin,
                     Value col0, Value passes);
  /// freesLastStageInLoop: at the loop's last step, once its wgmma were
  /// issued, pass the turn (where `passes` holds), wait for them all and
  /// free the step's own stage `stage`.
  void finishLastStep(const ConsumerSetup &cs, scf::ForOp steps, Value stage,
                      Value passes);
  /// `scales = block` (BlockScales.cpp): the producer's threads copy the
  /// scales of K tile `kTile` (one block of 128 deep) of the tile at row
  /// `row0` and column `col0` (index values) into `stage`: A's of its BM
  /// rows, then B's of the blocks of 128 columns it reaches (scaleBlocks).
  void copyScales(Value stage, Value row0, Value col0, Value kTile);
  /// A consumer thread's scales in `stage`, once it is full: A's at its
  /// rows, two per wgmma tile (rows r and r + 8), then B's blocks.
  SmallVector<Value> readScales(const ConsumerSetup &cs, Value stage);
  /// The factors of readScales' `values`: each row's times each of its
  /// scaleBlocks blocks';
  /// and where the tile's columns start in their first block (col0 % 128,
  /// `col0` the tile's first column).
  struct TileScales {
    SmallVector<Value> products;
    Value startInBlock;
  };
  TileScales tileScales(ArrayRef<Value> values, Value col0);
  /// `acc + factor * sum` elementwise, for wgmma tile (`mt`, `nt`): with
  /// `scales` the factor of each element's row and column, else 1.
  Value addAccumulators(Value acc, Value sum, const TileScales *scales,
                        int64_t mt, int64_t nt);
  /// A's register fragments of a stage (`a.inRegisters`), whose tile of A
  /// starts `aStage` bytes (i32) into the shared memory: K step by K
  /// step, wgmma tile by tile, four values each.
  SmallVector<Value> loadFragments(const ConsumerSetup &cs, Value aStage);
  /// The wgmma of K steps [`firstStep`, `endStep`) of one stage at
  /// descriptors `stageDescA` and `stageDescB` (or A's `fragments`,
  /// loadFragments) into `into` (tf32x3: its three products a step), in
  /// one group; where the kernel promotes, `into` starts from zero.
  void issueWgmma(const ConsumerSetup &cs, Value stageDescA, Value stageDescB,
                  ArrayRef<Value> fragments, int64_t firstStep,
                  int64_t endStep, SmallVectorImpl<Value> &into);
  /// A tile's `accumulators` stored as C at the tile whose rows start at
  /// `firstRow` (index) in tile column `tileCol`: at once, or by the last
  /// of the blocks that share it (split-K, or stream-K's `unit`) from
  /// their sum; `one` the index 1.
  LogicalResult finishTile(const ConsumerSetup &cs, Value tile, Value firstRow,
                           Value tileCol, ArrayRef<Value> accumulators,
                           Value one, const WorkUnit *unit);
  TilePosition tileCoordinates(Value tile);
  /// The first row of C of the tile at `at` (index).
  Value tileFirstRow(const TilePosition &at);
  /// With a batch, the matrices of the batch `at.batch` that a tile reads
  /// and writes: `a`, `bMatrix` and `c` view them, and TMA copies at
  /// `tmaBatch`, until the scope ends; of a grouped GEMM, its group's B,
  /// `group`, and `m` the end of its rows. Otherwise, nothing.
  class TileScope {
  public:
    TileScope(KernelBuilder &kb, const TilePosition &at);
    ~TileScope();

  private:
    KernelBuilder &kb;
    Value saved[9];
  };
  /// Groups.cpp: the end of group `g`'s rows (index), offsets[g] clamped
  /// into [0, M].
  Value groupRowEnd(Value g);
  /// The slots of tile rows of all groups (index): a bound on their tile
  /// rows.
  Value groupSlotRows();
  /// Where group `g`'s rows end (no earlier than `rowStart`, where they
  /// start), and its tiles: its tile rows times the tile columns. Past the
  /// last group, the last group's (the caller drops what lies there).
  std::pair<Value, Value> groupExtent(Value g, Value rowStart);
  /// Where tile `tile` of a grouped GEMM's walk lies: its group (`batch`),
  /// its row among the group's and column, first row, the end of its
  /// group's rows, and whether it is a tile (`present`: the walk's bound
  /// counts slots). Moves `cursor` on to its group.
  void locateGroup(TilePosition &at, Value tile);
  /// Group `g`'s next row start and its tiles, from its row start.
  using GroupStep = llvm::function_ref<std::pair<Value, Value>(Value, Value)>;
  /// Moves `cursor` on past every group whose tiles end at or before
  /// `tile`, each group's tiles and the next one's row start by `step`.
  void moveCursor(Value tile, GroupStep step);
  /// Tile `tile`'s row and column (`at`) in its group's grid of `rows` x
  /// `cols` tiles, from the cursor's tiles before the group, rastered as
  /// the schedule says.
  void placeInGroup(TilePosition &at, Value tile, Value rows, Value cols);
  /// The general form (`groups = G ptr-array`; Groups.cpp): entry
  /// `column` of group `g`'s row of the table (i64), and a size of it
  /// (index; a negative one taken as 0).
  Value tableEntry(Value g, gemmc::GroupColumn column);
  Value tableSize(Value g, gemmc::GroupColumn column);
  /// Group `g`'s tile rows and columns (index values).
  std::pair<Value, Value> tableGroupTiles(Value g);
  /// The tiles of all groups (index): a pass over the table.
  Value tableTileCount();
  /// locateGroup for the general form: each group's own tile columns.
  void locateTableGroup(TilePosition &at, Value tile);
  /// The cursor moved on to the general form's group of tile `tile`.
  void moveTableCursor(Value tile);
  /// The pipeline iterations (k tiles) of the general form's tile `tile`,
  /// the cursor moved on to its group (past the last group, the last
  /// group's).
  Value tableTileSteps(Value tile);
  /// The general form's group `g` in `a`, `bMatrix`, `c`, `m`, `n`,
  /// `kExtent` and `kTiles` (TileScope): views of its matrices at the
  /// table's addresses.
  void viewTableGroup(Value g);
  /// A `type` view (2-D, strided, offset 0) of the matrix at `address`
  /// (i64) of `rows` x `cols` (index) and leading dimension `ld` (i64).
  Value viewAt(Value address, Value rows, Value cols, Value ld,
               MemRefType type);
  /// The general form with `tma a b` (GroupMaps.cpp). Each group's A and
  /// B lie at addresses read on the device, so no tensor map the host
  /// encodes describes them: the kernel's `tmap-A` and `tmap-B` are
  /// templates (type, box, swizzle), and the producer's issuer writes its
  /// group's maps into a slot of global memory (`tensormap.replace`) that
  /// its block holds for the kernel's duration, taken from a pool the
  /// module keeps (so that no launch needs a workspace, and launches on
  /// several streams or in CUDA graphs never share a slot).
  bool mapsGroups() const { return table && k.usesTma(); }
  /// Takes a free slot of the pool (an atomic exchange from slot
  /// blockIdx.x on) and points `mapA` and `mapB` at its two maps.
  void claimMapSlot();
  /// Gives the slot back once every copy that read its maps landed: the
  /// consumers released the stages of the walk's last `stages` pipeline
  /// iterations before `end`.
  void releaseMapSlot(Value end);
  /// Where the block's tile `tile` is its first of the group at the cursor,
  /// writes that group's maps into the slot, once the copies issued with
  /// the group before's (pipeline iterations before `it0`) landed.
  void mapTileGroup(Value tile, Value it0);
  /// The slot's index in the pool (index), its maps of A and B (global
  /// pointers; `mapA` and `mapB` their generic addresses), and the
  /// templates.
  Value mapSlot, slotA, slotB, templateA, templateB;
  /// A block's place in a grouped GEMM's walk, carried from tile to tile
  /// (its tiles come in order): the group of its last tile, the tiles of
  /// the groups before it, and where that group's rows start.
  struct GroupCursor {
    Value group, tilesBefore, rowStart;
  };
  GroupCursor cursor;
  /// The values a loop over the walk's tiles carries beside pipeline
  /// iteration `it0` (a grouped GEMM's cursor at the first group, or
  /// `from`), those it yields after a tile that ends at `it`, and the
  /// cursor taken from the loop's arguments.
  SmallVector<Value> walkInits(Value it0, const GroupCursor *from = nullptr);
  SmallVector<Value> walkYields(Value it);
  void enterWalk(scf::ForOp tiles);
  /// `body()` (which returns the pipeline iteration after the tile) where
  /// the tile at `at` exists; `it0`, the iteration before it, where a
  /// grouped GEMM's walk has no tile there (past the last group).
  FailureOr<Value> whereTileExists(const TilePosition &at, Value it0,
                                   function_ref<FailureOr<Value>()> body);
  /// The views of matrix `index` of the batch in `a`, `bMatrix` and `c`,
  /// and its coordinate in `tmaBatch`.
  void viewBatch(Value index);
  /// The stage and the phase parity (i32) of pipeline iteration `it`.
  std::pair<Value, Value> stageAndPhase(Value it);
  /// A K loop step's place in the pipeline: its iteration (index), stage
  /// (index) and phase parity (i32); `carried`, the stage (i32) where the
  /// loop carries it with the phase (carriesStageAndPhase), else null.
  struct PipelineStep {
    Value it, stage, parity, carried;
  };
  /// The values a K loop carries before its accumulators: the pipeline
  /// iteration, then where the schedule says so its stage and phase.
  unsigned stepValues() const { return k.carriesStageAndPhase ? 3 : 1; }
  /// Those values' initial ones, from the first step's iteration `it0`.
  SmallVector<Value> stepInits(Value it0);
  /// At the start of K loop `steps`' body: its step.
  PipelineStep pipelineStep(scf::ForOp steps);
  /// The values the loop carries to the step after `step` (carried: the
  /// next stage and phase by compare and select, no division).
  SmallVector<Value> nextStep(const PipelineStep &step);
  /// Frees the stage of the step before `step`, `when`.
  void releaseStepBefore(const PipelineStep &step, Value when);
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
  /// Where a copy goes in the stage at `stageBase`.
  Value copyDestination(const TmaOperand &t, Value stageBase, Value line,
                        Value piece);
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
  /// One cp.async of `count` elements at `address` (index), `position`
  /// along the matrix's contiguous dimension, to `destination`: only
  /// those inside the matrix (`lineInside`, `contiguousExtent`), zeros for
  /// the rest (`matrixBase` stands in as the source of none).
  void copyAsync(Value destination, Value address, Value position,
                 Value lineInside, Value contiguousExtent, Value matrixBase,
                 int64_t count);
  /// Walks a producer thread's 4 x 4 blocks of a transposed `t`
  /// (transposesInShared): `visit(group, quad)` for group (of 4 elements
  /// of K) and quad (lines 4 quad .. 4 quad + 3 of the tile) of each of
  /// its blocks, lane + 128 j (index values; inside a guard where the last
  /// leaves threads without one): consecutive groups of a block of lines,
  /// or where `t` is staged the diagonals of 8 x 8 squares of blocks.
  void forEachBlock(const TmaOperand &t,
                    function_ref<void(Value, Value)> visit);
  /// The byte offsets (i32) of a block's four 16-byte units in the stage
  /// at `stageBase`: unit i is the block's part of line 4 quad + i.
  SmallVector<Value, 4> blockUnits(const TmaOperand &t, Value stageBase,
                                   Value group, Value quad);
  /// The byte offsets (i32) of a staged block's four rows (4 elements of
  /// M or N each) in the staging tile of the stage at `stageBase`.
  SmallVector<Value, 4> stagedRows(const TmaOperand &t, Value stageBase,
                                   Value group, Value quad);
  /// The blocks of a transposed `t`'s tile whose first element is the
  /// matrix's line (of K) `line0` at `contiguous0` (index values): row i of
  /// a block into its unit i.
  void copyBlocks(const TmaOperand &t, Value stageBase,
                  const CopySource &source, Value tileBase, Value line0,
                  Value contiguous0, Value lineExtent, Value contiguousExtent);
  /// Once a producer thread's blocks of `stage` landed (in the tile, or
  /// staged by TMA), it writes each transposed into the tile (and splits
  /// it under tf32x3).
  void transposeLanded(Value stage);
  /// tf32x3: once every producer thread's copies into `stage` landed, the
  /// threads split the stage's elements in place into their tf32 parts
  /// and remainders.
  void splitLanded(Value stage);
  /// The tile whose copies a producer thread signals where it finishes
  /// each tile's (finishesCopiesEachTile): its first pipeline iteration,
  /// row and column.
  struct CopiedTile {
    Value it0, row0, col0;
  };
  /// Once a producer thread's windows of `stage` landed, it shifts each of
  /// its runs into place (by where they lie in `tile`, where given).
  void realignLanded(Value stage, const CopiedTile *tile);
  /// One 16-byte copy of 2-byte elements through registers of operand
  /// `t`: where its elements lie (`address` in bytes, only 2-byte aligned;
  /// the position along the contiguous dimension; whether its line lies
  /// inside the matrix) and where they go (`destination`, 16 bytes); once
  /// loaded, the aligned words that hold them and the element after them,
  /// and the shift (0 or 16 bits) that lines them up. Zeros outside the
  /// matrix.
  struct RegisterCopy {
    const TmaOperand *t = nullptr;
    Value address, position, lineInside;
    Value destination;
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
  /// of iteration it - copyLag (of every iteration left, with `drain`);
  /// with `tile`, of that tile's iterations only.
  void signalCopies(Value it, bool drain, const CopiedTile *tile = nullptr);
  /// Where `when` holds (a warpgroup's leader), arrives on the "empty"
  /// barrier of the stage of pipeline iteration `it` - 1 (of each block
  /// that writes into the stage, in a cluster).
  void releaseStageBefore(Value it, Value when);
  /// The same for stage `stage`, unconditionally.
  void releaseStage(Value stage);
  /// Where `when` holds, releases the stage that `stage` computes (under
  /// the condition: its ops in the branch).
  void releaseStageIf(Value when, function_ref<Value()> stage);
  /// Arrives on the mbarrier `local` of the cluster's block `rank`.
  void arriveRemote(Value local, Value rank);
  /// The descriptor of stage 0, row 0 of `t` at `offset` in shared memory.
  Value baseDescriptor(const TmaOperand &t, int64_t offset);
  /// The accumulator layout of wgmma m64nN (f32): thread t of the
  /// warpgroup holds, for i in [0, N/2), row 16 * (t / 32) + (t % 32) / 4 +
  /// 8 * (i / 2 % 2) and column 8 * (i / 4) + 2 * (t % 4) + i % 2 (pairs of
  /// adjacent columns). Returns the thread's part: its row and first column.
  std::pair<Value, Value> accumulatorPosition();
  /// What the epilogue reads at a place of C, as f32: C's old values where
  /// it reads C, R's where it adds R (null where not).
  struct StoreInputs {
    Value old, added;
  };
  /// `value` (f32, or a pair vector<2xf32>) in C's type: rounded to
  /// nearest, an FP8 C saturated to its largest finite value
  /// (cvt.rn.satfinite). With `bits`, an FP8 value as its i8 bits (what
  /// LLVM's stores take).
  Value narrowToC(OpBuilder &ob, Value value, bool bits = false);
  /// The inputs at (`row`, `col`): a pair along a row (vector<2xf32>; as
  /// C's type holds it without `widen`), or one element.
  StoreInputs readStoreInputs(OpBuilder &ob, const EpilogueValues &epilogue,
                              Value row, Value col, bool pair,
                              bool widen = true);
  /// The value `epilogue` gives the f32 accumulators `acc` at (`row`,
  /// `col`) of C, reading C and R there where it reads them: a pair along a
  /// row (vector<2xf32>), or one element. A pair takes instead the inputs
  /// `read` ahead of it where given (readStoreInputs).
  Value epiloguePair(OpBuilder &ob, const EpilogueValues &epilogue, Value acc,
                     Value row, Value col, const StoreInputs *read = nullptr);
  Value epilogueElement(OpBuilder &ob, const EpilogueValues &epilogue,
                        Value acc, Value row, Value col);
  LogicalResult storeC(ArrayRef<Value> accumulators, Value row0, Value col0);
  /// `tma c`: stores C through shared memory with TMA.
  LogicalResult storeCWithTma(ArrayRef<Value> accumulators, Value consumer,
                              Value leader, Value row0, Value col0);
  /// Split-K: the consumers' partials of linear tile `tile` reduced
  /// (SplitK.h); leaves `b` in the tile's last block, `accs` the sums.
  /// With `sharing` (stream-K, a tile shared by blocks), its pieces'
  /// partials.
  LogicalResult reduceSplits(Value tile, Value row0, Value col0,
                             SmallVectorImpl<Value> &accs,
                             const TileSharing *sharing = nullptr);
  /// Whether the consumer's rows of the tile (or of its group's rows) from
  /// `row0` and its columns from `col0` lie inside the matrix (i1).
  Value consumerTileInside(OpBuilder &ob, Value row0, Value col0);
  /// The byte offset, in a group of C's store buffer, of the element at
  /// (`row`, `col`) of the group (i32 values).
  Value groupOffset(Value row, Value col);
  /// The address (index) of the first element of the 1-D f32 memref
  /// `buffer` (a kernel argument).
  Value f32BufferAddress(Value buffer);

  /// `amax = c` (Amax.cpp): the slot of the thread's largest magnitude,
  /// made in the kernel's entry block; zeroed where a consumer starts;
  /// raised by the stores of C with their values (f32 or vector<2xf32>,
  /// before the cast to C's type), each added to a run where the run's
  /// values lie in one block (a group of TMA's store, an accumulator's
  /// pairs), only where `inside` (i1) if given, and the run then raises
  /// it at once; and at the consumer's end its warps' largest raise the
  /// kernel's amax. Each does nothing without `amax`.
  struct AmaxRun {
    /// The independent chains of maxima a run keeps.
    static constexpr unsigned kWays = 4;
    SmallVector<Value, kWays> ways;
    unsigned count = 0;
  };
  void createAmaxSlot();
  void startAmax();
  void addToAmax(OpBuilder &ob, AmaxRun &run, Value value,
                 Value inside = Value());
  void raiseAmax(OpBuilder &ob, AmaxRun &run);
  /// A run of `value` alone.
  void raiseAmax(OpBuilder &ob, Value value);
  /// Whether a store's values past the matrix, which TMA clips, can raise
  /// the amax: where the epilogue adds C, R or a bias. Else they are
  /// zeros (the copies fill the tiles past the matrix with zeros, and the
  /// activations, alpha and the scales keep a zero one).
  static bool amaxSeesPastTheMatrix(const EpilogueValues &epilogue);
  void finishAmax();

  gpu::GPUFuncOp func;
  const gemmc::Problem &p;
  const gemmc::Schedule &s;
  const WarpgroupKernel &k;
  Location loc;
  OpBuilder b;

  Value sharedBase, sharedAddress;
  /// `amax = c`: the thread's largest magnitude so far (an f32
  /// llvm.alloca that SROA promotes to a register); else null.
  Value amaxSlot;
  /// The matrices the copies, stores and epilogue address: the kernel's
  /// own, or with a batch (whose arguments are `batchA`, `batchB` and
  /// `batchC`, count x rows x cols) views of one of its matrices, that of
  /// the tile at hand (TileScope), else the first; with groups, B's
  /// (`batchB`, a matrix a group) likewise.
  Value a, bMatrix, c, mapA, mapB, mapC;
  Value batchA, batchB, batchC;
  /// With a batch: the matrices it holds (index), and the TMA coordinate
  /// (i32) of the tile at hand's (with groups, its group's).
  Value batchCount, tmaBatch;
  /// A grouped GEMM: the offsets (i32, one a group) and the groups (index);
  /// the group of the tile at hand (TileScope; index), whose B's scales
  /// the copies and the epilogue read; A's rows (index: all groups', `m`
  /// being the group's end in a TileScope).
  Value offsets, groupCount, group, rowsOfA;
  /// The general form's group table (i64, kGroupTableColumns a group), in
  /// place of the offsets.
  Value table;
  Value m, n, kExtent, tilesM, tilesN, numTiles, kTiles;
  /// The K tiles of this block, [kBegin, kEnd): all of them, or with
  /// `split-k` those of split blockIdx.z (`split`) of `splitCount`.
  Value kBegin, kEnd, split;
  OpFoldResult splitCount;
  Value threadId, warpgroup;
  /// The block's walk of the tiles: its first and the step to the next
  /// (index).
  Value walkStart, walkStep;
  /// Stream-K (buildStreamKShare), i32 values: the block; the tiles of
  /// the full rounds, [0, dpTiles), computed whole in steps of the grid;
  /// the pieces each later tile is cut into; and this block's piece: K
  /// tiles [sharedKBegin, sharedKEnd) of tile sharedTile.
  Value block, dpTiles, piecesPerTile, sharedTile, sharedKBegin, sharedKEnd;
  /// Stream-K, index values: the whole tiles' walk (the block, the grid's
  /// blocks) and the counts of the two loops.
  Value wholeStart, wholeStep, wholeUnitCount, sharedUnitCount;
  /// In a cluster: the block's rank and its tile row and column in the
  /// cluster (index), and the cluster tiles' rows and columns.
  Value rank, rankM, rankN, clusterTilesM, clusterTilesN;
};

} // namespace mlir::gemm::warpgroup

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_WARPGROUP_KERNELBUILDER_H
