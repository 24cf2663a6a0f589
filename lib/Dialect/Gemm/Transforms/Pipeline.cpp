//===- Pipeline.cpp - multi-buffered shared memory, register prefetch -----===//

#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMPIPELINE
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// Clones the ops inside `scope` that `values` are computed from, in program
/// order, at the builder's insertion point; `mapping` gives the block
/// arguments of `scope` (induction variables) their replacements and
/// receives the clones. Returns the clones of `values`.
static SmallVector<Value> cloneSlice(OpBuilder &b, ValueRange values,
                                     Operation *scope, IRMapping &mapping) {
  llvm::SmallPtrSet<Operation *, 16> slice;
  SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || !scope->isProperAncestor(op) || !slice.insert(op).second)
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  SmallVector<Operation *> ordered;
  scope->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (slice.contains(op))
      ordered.push_back(op);
  });
  for (Operation *op : ordered)
    b.clone(*op, mapping);
  return llvm::map_to_vector(
      values, [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// Clones the ops `value` is computed from inside `loop` (a chain of index
/// arithmetic and subviews), with the induction variable replaced by
/// `newIv`, at the builder's insertion point.
static Value cloneWithIv(OpBuilder &b, Value value, scf::ForOp loop,
                         Value newIv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), newIv);
  return cloneSlice(b, value, loop, mapping).front();
}

/// `(t * BK) mod K`, the start of tile t of a loop over K tiles that wraps
/// around (K is the loop's extent, static or given at launch).
static Value wrappedStart(OpBuilder &b, Location loc, int64_t start, Value k) {
  if (std::optional<int64_t> known = getConstantIntValue(k))
    return indexConstant(b, loc, start % *known);
  if (start == 0)
    return indexConstant(b, loc, 0);
  return arith::RemUIOp::create(b, loc, indexConstant(b, loc, start), k);
}

/// Stage index `(kt / BK + ahead) mod S` and tile start `(kt + ahead * BK)
/// mod K` for a tile `ahead` steps after the loop's current one.
static std::pair<Value, Value> stageAndTile(OpBuilder &b, Location loc,
                                            Value kt, int64_t ahead, int64_t bk,
                                            Value k, int64_t stages) {
  Value tile = addOffset(
      b, loc, arith::DivUIOp::create(b, loc, kt, indexConstant(b, loc, bk)),
      ahead);
  Value stage =
      arith::RemUIOp::create(b, loc, tile, indexConstant(b, loc, stages));
  if (ahead == 0)
    return {stage, kt};
  Value start =
      arith::RemUIOp::create(b, loc, addOffset(b, loc, kt, ahead * bk), k);
  return {stage, start};
}

/// cp.async: tiles 0 .. S-2 are copied before the loop, one commit group
/// each; step t waits until at most S - 2 groups are in flight (tile t has
/// landed), meets the others at the barrier, computes on stage t mod S, and
/// starts the copy of tile t + S - 1 into the stage computed in step t - 1.
static LogicalResult asyncPipeline(scf::ForOp loop, const gemmc::Schedule &s,
                                   ArrayRef<CopyOp> copies,
                                   arith::ConstantIndexOp stageOp,
                                   ArrayRef<gpu::BarrierOp> barriers) {
  int64_t stages = s.stages, bk = s.bk();
  Value k = loop.getUpperBound();
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  for (int64_t t = 0; t + 1 < stages; ++t) {
    Value kt = wrappedStart(b, loc, t * bk, k);
    for (CopyOp copy : copies) {
      IRMapping mapping;
      mapping.map(stageOp.getResult(), indexConstant(b, loc, t));
      mapping.map(loop.getInductionVar(), kt);
      Value source = cloneWithIv(b, copy.getSource(), loop, kt);
      Operation *view = b.clone(*copy.getTarget().getDefiningOp(), mapping);
      CopyOp::create(b, loc, source, view->getResult(0), /*transpose=*/false,
                     /*async=*/true, copy.getThreads(), copy.getVector());
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  b.setInsertionPoint(stageOp);
  Value kt = loop.getInductionVar();
  Value stage = stageAndTile(b, loc, kt, 0, bk, k, stages).first;
  stageOp.replaceAllUsesWith(stage);
  stageOp.erase();
  b.setInsertionPoint(barriers[0]);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(stages - 2));

  b.setInsertionPoint(barriers[1]);
  auto [nextStage, nextStart] =
      stageAndTile(b, loc, kt, stages - 1, bk, k, stages);
  for (CopyOp copy : copies) {
    IRMapping mapping;
    mapping.map(stage, nextStage);
    Value source = cloneWithIv(b, copy.getSource(), loop, nextStart);
    Operation *view = b.clone(*copy.getTarget().getDefiningOp(), mapping);
    CopyOp::create(b, loc, source, view->getResult(0), /*transpose=*/false,
                   /*async=*/true, copy.getThreads(), copy.getVector());
    copy.erase();
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  // The stage step t copies into was last read in step t - 1, before the
  // barrier at the top of step t: the barrier after the compute can go.
  gpu::BarrierOp(barriers[1]).erase();
  return success();
}

/// Clones one step of the loop over BK, its fragment loads excepted (their
/// results are mapped), and returns what the step yields.
static SmallVector<Value> cloneStep(OpBuilder &b, scf::ForOp inner,
                                    IRMapping &mapping) {
  for (Operation &op : inner.getBody()->without_terminator())
    if (!isa<LoadFragmentOp>(op))
      b.clone(op, mapping);
  return llvm::map_to_vector(
      inner.getBody()->getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// `registers` with cp.async: the mma fragments of step j + 1 are read from
/// shared memory while step j computes, from one tile to the next too (as
/// CUTLASS's multistage main loop). Step t of the loop over K tiles starts
/// the copy of tile t + S - 1, computes all but its last mma step with the
/// next step's fragments in flight, waits for tile t + 1 and meets the block
/// at the barrier, reads the first fragments of tile t + 1, and computes its
/// last step. The first fragments of tile 0 are read before the loop.
static LogicalResult pipelineFragments(scf::ForOp loop,
                                       const gemmc::Schedule &s) {
  Block *body = loop.getBody();
  SmallVector<scf::ForOp> inners;
  for (auto inner : body->getOps<scf::ForOp>())
    if (inner->hasAttr(kInnerKAttr))
      inners.push_back(inner);
  SmallVector<NVVM::CpAsyncWaitGroupOp> waits(
      body->getOps<NVVM::CpAsyncWaitGroupOp>());
  SmallVector<gpu::BarrierOp> barriers(body->getOps<gpu::BarrierOp>());
  if (inners.size() != 1 || waits.size() != 1 || barriers.size() != 1)
    return loop.emitOpError("expects one loop over BK, one cp.async wait and "
                            "one barrier in the loop over K tiles");
  scf::ForOp inner = inners.front();
  SmallVector<Value> loads;
  for (auto load : inner.getBody()->getOps<LoadFragmentOp>())
    loads.push_back(load.getResult());
  std::optional<int64_t> first = getConstantIntValue(inner.getLowerBound());
  std::optional<int64_t> end = getConstantIntValue(inner.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(inner.getStep());
  if (loads.empty() || !first || !end || !step || *end - *step < *first)
    return loop.emitOpError("'registers' double-buffers the mma fragments of "
                            "a static loop over BK");
  int64_t stages = s.stages;
  size_t numAcc = inner.getNumRegionIterArgs();
  Location loc = loop.getLoc();

  // The copies of tile t + S - 1 go first; the wait and the barrier last.
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(inner->getIterator()),
                            body->getTerminator()->getIterator())))
    op.moveBefore(inner);
  waits.front()->moveBefore(body->getTerminator());
  barriers.front()->moveBefore(body->getTerminator());

  // Before the loop: wait for tile 0 and read its first fragments.
  OpBuilder b(loop);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(stages - 2));
  gpu::BarrierOp::create(b, loc);
  IRMapping tile0;
  tile0.map(loop.getInductionVar(), loop.getLowerBound());
  tile0.map(inner.getInductionVar(), indexConstant(b, loc, *first));
  SmallVector<Value> initFrags = cloneSlice(b, loads, loop, tile0);

  IRRewriter rewriter(b);
  FailureOr<LoopLikeOpInterface> extended = loop.replaceWithAdditionalYields(
      rewriter, initFrags, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  if (failed(extended))
    return failure();
  loop = cast<scf::ForOp>(extended->getOperation());
  body = loop.getBody();
  ValueRange frags = loop.getRegionIterArgs().take_back(loads.size());

  // All steps but the last, each reading the next one's fragments.
  b.setInsertionPoint(inner);
  SmallVector<Value> inits(inner.getInitArgs());
  llvm::append_range(inits, frags);
  Value lastStep = indexConstant(b, loc, *end - *step);
  auto steps = scf::ForOp::create(
      b, loc, inner.getLowerBound(), lastStep, inner.getStep(), inits,
      [&](OpBuilder &sb, Location l, Value kk, ValueRange args) {
        IRMapping next;
        next.map(inner.getInductionVar(), addOffset(sb, l, kk, *step));
        SmallVector<Value> results = cloneSlice(sb, loads, inner, next);
        IRMapping current;
        current.map(inner.getInductionVar(), kk);
        current.map(inner.getRegionIterArgs(), args.take_front(numAcc));
        current.map(loads, args.take_back(loads.size()));
        SmallVector<Value> accs = cloneStep(sb, inner, current);
        accs.append(results);
        scf::YieldOp::create(sb, l, accs);
      });
  steps->setAttr(kInnerKAttr, b.getUnitAttr());

  // After the barrier: the first fragments of tile t + 1, then the last step.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  b.setInsertionPoint(yield);
  IRMapping nextTile;
  nextTile.map(loop.getInductionVar(),
               addOffset(b, loc, loop.getInductionVar(), s.bk()));
  nextTile.map(inner.getInductionVar(), indexConstant(b, loc, *first));
  SmallVector<Value> nextFrags = cloneSlice(b, loads, loop, nextTile);
  IRMapping last;
  last.map(inner.getInductionVar(), indexConstant(b, loc, *end - *step));
  last.map(inner.getRegionIterArgs(), steps.getResults().take_front(numAcc));
  last.map(loads, steps.getResults().take_back(loads.size()));
  SmallVector<Value> accs = cloneStep(b, inner, last);
  inner.replaceAllUsesWith(accs);
  yield->setOperands(yield.getNumOperands() - loads.size(), loads.size(),
                     nextFrags);
  inner.erase();
  return success();
}

static LogicalResult pipeline(scf::ForOp loop, const gemmc::Schedule &s) {
  int64_t stages = s.stages;
  int64_t bk = s.bk();
  Value k = loop.getUpperBound();

  Block *body = loop.getBody();
  SmallVector<CopyOp> copies(body->getOps<CopyOp>());
  SmallVector<gpu::BarrierOp> barriers(body->getOps<gpu::BarrierOp>());
  arith::ConstantIndexOp stageOp;
  for (auto c : body->getOps<arith::ConstantIndexOp>())
    if (c->hasAttr(kStageAttr))
      stageOp = c;
  if (copies.empty() || barriers.size() != 2 || !stageOp)
    return loop.emitOpError("expects the loop over K tiles of gemm-promote");
  if (s.cpAsync) {
    if (failed(asyncPipeline(loop, s, copies, stageOp, barriers)))
      return failure();
    return s.registerDoubleBuffer ? pipelineFragments(loop, s) : success();
  }

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value zero = indexConstant(b, loc, 0);

  // Prologue: the first tiles into stage 0.
  for (CopyOp copy : copies) {
    Value source = cloneWithIv(b, copy.getSource(), loop, zero);
    Value target = cloneWithIv(b, copy.getTarget(), loop, zero);
    CopyOp::create(b, loc, source, target, copy.getTranspose(),
                   /*async=*/false, copy.getThreads(), copy.getVector());
  }
  gpu::BarrierOp::create(b, loc);

  // In the loop: stage = (kt / BK) mod S; load tile kt + BK (mod K) into
  // registers first, store it into stage + 1 before the last barrier.
  b.setInsertionPoint(stageOp);
  Value kt = loop.getInductionVar();
  Value tile = arith::DivUIOp::create(b, loc, kt, indexConstant(b, loc, bk));
  Value stage =
      arith::RemUIOp::create(b, loc, tile, indexConstant(b, loc, stages));
  Value nextTile =
      arith::AddIOp::create(b, loc, tile, indexConstant(b, loc, 1));
  Value nextStage =
      arith::RemUIOp::create(b, loc, nextTile, indexConstant(b, loc, stages));
  Value nextKt = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, kt, indexConstant(b, loc, bk)), k);
  stageOp.replaceAllUsesWith(stage);
  stageOp.erase();

  for (CopyOp copy : copies) {
    b.setInsertionPoint(copy);
    Value nextSource = cloneWithIv(b, copy.getSource(), loop, nextKt);
    auto sourceType = cast<MemRefType>(copy.getSource().getType());
    int64_t perThread = sourceType.getNumElements() / copy.getThreads();
    auto staged = LoadTileOp::create(
        b, loc, VectorType::get({perThread}, sourceType.getElementType()),
        nextSource, copy.getThreads(), copy.getVector());

    // The store goes to the next stage's view, just before the last barrier.
    b.setInsertionPoint(barriers[1]);
    IRMapping mapping;
    mapping.map(stage, nextStage);
    Operation *view = copy.getTarget().getDefiningOp();
    Operation *nextView = b.clone(*view, mapping);
    StoreTileOp::create(b, loc, staged, nextView->getResult(0),
                        sourceType.getShape(), isRowMajor(sourceType),
                        copy.getTranspose(), copy.getThreads(),
                        copy.getVector());
    copy.erase();
  }
  // Step t computes on stage t mod S, which step t - 1 stored before the
  // barrier that ends it, and stores into stage (t + 1) mod S, which no
  // thread reads in step t: the barrier before the compute can go.
  barriers[0].erase();
  return success();
}

namespace {
struct GemmPipelinePass
    : public mlir::gemm::impl::GemmPipelineBase<GemmPipelinePass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    if (!schedule || schedule.getValue().stages < 2)
      return;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kKTilesAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(pipeline(loop, schedule.getValue())))
        return signalPassFailure();
  }
};
} // namespace
