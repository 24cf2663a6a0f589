//===- Pipeline.cpp - multi-buffered shared memory, register prefetch ----===//

#include "Utils.h"
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

/// Clones the ops `value` is computed from inside `loop` (a chain of index
/// arithmetic and subviews), with the induction variable replaced by
/// `newIv`, at the builder's insertion point.
static Value cloneWithIv(OpBuilder &b, Value value, scf::ForOp loop,
                         Value newIv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), newIv);
  SmallVector<Operation *> chain;
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || !loop->isProperAncestor(op) || !seen.insert(op).second)
      continue;
    chain.push_back(op);
    for (Value operand : op->getOperands())
      worklist.push_back(operand);
  }
  // Clone in program order.
  llvm::sort(chain, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  for (Operation *op : chain)
    b.clone(*op, mapping);
  return mapping.lookupOrDefault(value);
}

/// Stage index `(kt / BK + ahead) mod S` and tile start `(kt + ahead * BK)
/// mod K` for a tile `ahead` steps after the loop's current one.
static std::pair<Value, Value> stageAndTile(OpBuilder &b, Location loc,
                                            Value kt, int64_t ahead,
                                            int64_t bk, int64_t k,
                                            int64_t stages) {
  Value tile = addOffset(
      b, loc, arith::DivUIOp::create(b, loc, kt, indexConstant(b, loc, bk)),
      ahead);
  Value stage =
      arith::RemUIOp::create(b, loc, tile, indexConstant(b, loc, stages));
  if (ahead == 0)
    return {stage, kt};
  Value start = arith::RemUIOp::create(b, loc, addOffset(b, loc, kt, ahead * bk),
                                       indexConstant(b, loc, k));
  return {stage, start};
}

/// cp.async: tiles 0 .. S-2 are copied before the loop, one commit group
/// each; step t waits until at most S - 2 groups are in flight (tile t has
/// landed), meets the others at the barrier, computes on stage t mod S, and
/// starts the copy of tile t + S - 1 into the stage computed in step t - 1.
static LogicalResult asyncPipeline(scf::ForOp loop, ScheduleAttr s,
                                   ArrayRef<CopyOp> copies,
                                   arith::ConstantIndexOp stageOp,
                                   ArrayRef<gpu::BarrierOp> barriers) {
  int64_t stages = s.getStages(), bk = s.getTileK();
  int64_t k = *getConstantIntValue(loop.getUpperBound());
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  for (int64_t t = 0; t + 1 < stages; ++t) {
    Value kt = indexConstant(b, loc, (t * bk) % k);
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

static LogicalResult pipeline(scf::ForOp loop, ScheduleAttr s) {
  int64_t stages = s.getStages();
  int64_t bk = s.getTileK();
  auto ub = getConstantIntValue(loop.getUpperBound());
  if (!ub)
    return loop.emitOpError("expects a static loop over K tiles");
  int64_t k = *ub;

  Block *body = loop.getBody();
  SmallVector<CopyOp> copies(body->getOps<CopyOp>());
  SmallVector<gpu::BarrierOp> barriers(body->getOps<gpu::BarrierOp>());
  arith::ConstantIndexOp stageOp;
  for (auto c : body->getOps<arith::ConstantIndexOp>())
    if (c->hasAttr(kStageAttr))
      stageOp = c;
  if (copies.empty() || barriers.size() != 2 || !stageOp)
    return loop.emitOpError("expects the loop over K tiles of gemm-promote");
  if (s.getCpAsync())
    return asyncPipeline(loop, s, copies, stageOp, barriers);

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
  Value nextTile = arith::AddIOp::create(b, loc, tile, indexConstant(b, loc, 1));
  Value nextStage =
      arith::RemUIOp::create(b, loc, nextTile, indexConstant(b, loc, stages));
  Value nextKt = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, kt, indexConstant(b, loc, bk)),
      indexConstant(b, loc, k));
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
    if (!schedule || schedule.getStages() < 2)
      return;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kKTilesAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(pipeline(loop, schedule)))
        return signalPassFailure();
  }
};
} // namespace
