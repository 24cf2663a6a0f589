//===- Promote.cpp - stage the tiles of A and B in shared memory ----------===//

#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMPROMOTE
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// A read of A or B inside the loop over K: a memref.load or a
/// vector.transfer_read whose row (B) or column (A) index is the loop's
/// induction variable.
static bool isReadAlongK(Operation *op, Value iv, unsigned kDim,
                         Value &source) {
  ValueRange indices;
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    source = load.getMemRef();
    indices = load.getIndices();
  } else if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
    source = read.getBase();
    indices = read.getIndices();
  } else if (auto fragment = dyn_cast<LoadFragmentOp>(op)) {
    source = fragment.getSource();
    Value index = kDim == 0 ? fragment.getRow() : fragment.getCol();
    return index == iv;
  } else {
    return false;
  }
  return indices.size() == 2 && indices[kDim] == iv;
}

/// A `rows x cols` view of stage `stage` of a `stages x rows x (cols + pad)`
/// shared buffer.
static Value stageView(OpBuilder &b, Location loc, Value buffer, Value stage,
                       int64_t rows, int64_t cols) {
  SmallVector<OpFoldResult> offsets = {stage, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(rows),
                                     b.getIndexAttr(cols)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto bufferType = cast<MemRefType>(buffer.getType());
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {rows, cols}, bufferType, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), buffer,
                                   offsets, sizes, strides);
}

/// Rewrites a read of the promoted operand to read the shared tile at
/// (row, kk) of A (or (kk, row) when transposed) or (kk, col) of B.
/// `offset` (or null) is where the read's view (a warp's) starts in the
/// promoted block tile, along M for A and N for B.
static void redirectRead(OpBuilder &b, Operation *op, Value shared, bool isA,
                         bool transposed, Value kk, Value offset) {
  b.setInsertionPoint(op);
  Location loc = op->getLoc();
  auto shift = [&](Value index) -> Value {
    return offset ? arith::AddIOp::create(b, loc, index, offset) : index;
  };
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    Value other = shift(load.getIndices()[isA ? 0 : 1]);
    SmallVector<Value> indices = isA && !transposed
                                     ? SmallVector<Value>{other, kk}
                                     : SmallVector<Value>{kk, other};
    Value value = memref::LoadOp::create(b, loc, shared, indices);
    load.replaceAllUsesWith(value);
    load.erase();
    return;
  }
  if (auto fragment = dyn_cast<LoadFragmentOp>(op)) {
    assert(!transposed &&
           "gemmc::checkImplemented refuses transpose-a with mma");
    Value other = shift(isA ? fragment.getRow() : fragment.getCol());
    auto newFragment = LoadFragmentOp::create(
        b, loc, fragment.getType(), shared, isA ? other : kk, isA ? kk : other,
        fragment.getA());
    fragment.replaceAllUsesWith(newFragment.getResult());
    fragment.erase();
    return;
  }
  auto read = cast<vector::TransferReadOp>(op);
  Value other = shift(read.getIndices()[isA ? 0 : 1]);
  SmallVector<Value> indices = isA && !transposed
                                   ? SmallVector<Value>{other, kk}
                                   : SmallVector<Value>{kk, other};
  // A's fragment runs along M: in a transposed tile that is dimension 1.
  AffineMap map = read.getPermutationMap();
  if (isA && transposed)
    map = AffineMap::get(2, 0, getAffineDimExpr(1, b.getContext()));
  auto newRead = vector::TransferReadOp::create(
      b, loc, read.getVectorType(), shared, indices, read.getPadding(), map,
      read.getInBoundsValues());
  read.replaceAllUsesWith(newRead.getResult());
  read.erase();
}

static LogicalResult promote(gpu::GPUFuncOp func, scf::ForOp loop,
                             const gemmc::Schedule &s) {
  // The upper bound is K rounded up to BK (kLoopExtent): static, or computed
  // from the K given at launch.
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto step = getConstantIntValue(loop.getStep());
  int64_t bk = s.bk();
  if (!lb || !step || *lb != 0 || bk % *step || (ub && *ub % bk))
    return loop.emitOpError("expects a loop over K from 0, by a step that "
                            "divides BK = ")
           << bk << ", to a multiple of it";

  // Find the operands read along K.
  Value iv = loop.getInductionVar();
  Value aSource, bSource;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    Value source;
    for (unsigned kDim : {1u, 0u}) {
      if (!isReadAlongK(op, iv, kDim, source))
        continue;
      Value &slot = kDim == 1 ? aSource : bSource;
      if (slot && slot != source)
        return WalkResult::interrupt();
      slot = source;
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || !aSource || !bSource)
    return loop.emitOpError("expects reads of one A and one B along K");
  // A warp reads its part of the block's tiles (gemm-warp-tile's views):
  // promote the block's whole tiles, and shift the warp's reads.
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto blockTile = [&](Value source, unsigned dim) -> std::pair<Value, Value> {
    auto view = source.getDefiningOp<memref::SubViewOp>();
    if (!view || !view->hasAttr(kWarpViewAttr))
      return {source, Value()};
    OpFoldResult offset = view.getMixedOffsets()[dim];
    return {view.getSource(), getValueOrCreateConstantIndexOp(b, loc, offset)};
  };
  Value aBlock, aOffset, bBlock, bOffset;
  std::tie(aBlock, aOffset) = blockTile(aSource, 0);
  std::tie(bBlock, bOffset) = blockTile(bSource, 1);
  auto aType = cast<MemRefType>(aBlock.getType());
  auto bType = cast<MemRefType>(bBlock.getType());
  int64_t bm = aType.getDimSize(0), bn = bType.getDimSize(1);

  // Shared buffers, one per promoted operand, with a stage dimension:
  // workgroup attributions (static shared memory, 16-byte aligned) up to
  // 48 KB; past that, views of the kernel's dynamic shared memory, whose size
  // the launch attribute (and so the kernel contract) records.
  MLIRContext *ctx = func.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  // The schedule model lays the buffers out (and Sema checked their size).
  gemmc::SharedMemory shared =
      gemmc::getSharedMemory(s, getElementTypeModel(aType.getElementType()),
                             getElementTypeModel(bType.getElementType()));
  bool transposeA = s.transposeA;
  int64_t aRows = transposeA ? bk : bm, aCols = transposeA ? bm : bk;
  SmallVector<MemRefType, 2> bufferTypes;
  for (const gemmc::SharedBuffer &buffer : shared.buffers) {
    MemRefType operand = buffer.operand == gemmc::Operand::A ? aType : bType;
    bufferTypes.push_back(
        MemRefType::get({buffer.stages, buffer.rows, buffer.cols + buffer.pad},
                        operand.getElementType(), AffineMap(), workgroup));
  }
  SmallVector<Value, 2> buffers;
  if (!shared.isDynamic()) {
    for (MemRefType type : bufferTypes) {
      BlockArgument buffer = func.addWorkgroupAttribution(type, loop.getLoc());
      unsigned index = buffer.getArgNumber() - func.getNumArguments();
      func.setWorkgroupAttributionAttr(
          index, "llvm.align", IntegerAttr::get(IntegerType::get(ctx, 64), 16));
      buffers.push_back(buffer);
    }
  } else {
    OpBuilder fb = OpBuilder::atBlockBegin(&func.getBody().front());
    Value dynamic = gpu::DynamicSharedMemoryOp::create(
        fb, loop.getLoc(),
        MemRefType::get({ShapedType::kDynamic}, fb.getI8Type(), AffineMap(),
                        workgroup));
    for (auto [i, type] : llvm::enumerate(bufferTypes)) {
      Value offset = indexConstant(fb, loop.getLoc(), shared.offsetOf(i));
      buffers.push_back(memref::ViewOp::create(fb, loop.getLoc(), type, dynamic,
                                               offset, ValueRange{}));
    }
    auto launch = func->getAttrOfType<LaunchAttr>(kLaunchAttr);
    if (!launch)
      return func.emitOpError("expects the launch attribute of "
                              "gemm-tile-blocks");
    func->setAttr(kLaunchAttr, launch.withSharedBytes(shared.totalBytes()));
  }
  Value aBuffer = s.promoteA ? buffers.front() : Value();
  Value bBuffer = s.promoteB ? buffers.back() : Value();

  // for kt = 0 to K step BK: copy, barrier, for kk < BK: compute, barrier.
  int64_t threads = s.threadsPerBlock();
  Value lower = indexConstant(b, loc, 0);
  Value tileStep = indexConstant(b, loc, bk);
  auto outer = scf::ForOp::create(
      b, loc, lower, loop.getUpperBound(), tileStep, loop.getInitArgs(),
      [&](OpBuilder &ob, Location l, Value kt, ValueRange args) {
        Value stage = indexConstant(ob, l, 0);
        stage.getDefiningOp()->setAttr(kStageAttr, ob.getUnitAttr());
        Value zero = indexConstant(ob, l, 0);
        Value aShared, bShared;
        if (aBuffer) {
          aShared = stageView(ob, l, aBuffer, stage, aRows, aCols);
          Value tile = createTileView(ob, l, aBlock, zero, kt,
                                      ob.getIndexAttr(bm), ob.getIndexAttr(bk));
          CopyOp::create(ob, l, tile, aShared, transposeA, /*async=*/false,
                         threads, s.globalLoadWidth(gemmc::Operand::A));
        }
        if (bBuffer) {
          bShared = stageView(ob, l, bBuffer, stage, bk, bn);
          Value tile = createTileView(ob, l, bBlock, kt, zero,
                                      ob.getIndexAttr(bk), ob.getIndexAttr(bn));
          CopyOp::create(ob, l, tile, bShared, /*transpose=*/false,
                         /*async=*/false, threads,
                         s.globalLoadWidth(gemmc::Operand::B));
        }
        gpu::BarrierOp::create(ob, l);

        Value innerLower = indexConstant(ob, l, 0);
        Value innerUpper = indexConstant(ob, l, bk);
        Value innerStep = indexConstant(ob, l, *step);
        auto inner = scf::ForOp::create(
            ob, l, innerLower, innerUpper, innerStep, args,
            [&](OpBuilder &ib, Location il, Value kk, ValueRange innerArgs) {
              IRMapping mapping;
              mapping.map(iv, arith::AddIOp::create(ib, il, kt, kk));
              mapping.map(loop.getRegionIterArgs(), innerArgs);
              for (Operation &op : loop.getBody()->without_terminator())
                ib.clone(op, mapping);
              auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
              SmallVector<Value> results;
              for (Value v : yield.getOperands())
                results.push_back(mapping.lookupOrDefault(v));
              scf::YieldOp::create(ib, il, results);
              // Redirect the promoted reads to shared memory.
              Value k = mapping.lookup(iv);
              SmallVector<std::pair<Operation *, bool>> reads;
              ib.getInsertionBlock()->walk([&](Operation *op) {
                Value source;
                if (aShared && isReadAlongK(op, k, 1, source) &&
                    source == aSource)
                  reads.push_back({op, true});
                else if (bShared && isReadAlongK(op, k, 0, source) &&
                         source == bSource)
                  reads.push_back({op, false});
              });
              for (auto [op, isA] : reads)
                redirectRead(ib, op, isA ? aShared : bShared, isA,
                             isA && transposeA, kk, isA ? aOffset : bOffset);
            });
        inner->setAttr(kInnerKAttr, ob.getUnitAttr());
        ob.setInsertionPointAfter(inner);
        gpu::BarrierOp::create(ob, l);
        scf::YieldOp::create(ob, l, inner.getResults());
      });
  outer->setAttr(kKTilesAttr, b.getUnitAttr());
  loop.replaceAllUsesWith(outer.getResults());
  loop.erase();
  return success();
}

namespace {
struct GemmPromotePass
    : public mlir::gemm::impl::GemmPromoteBase<GemmPromotePass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    if (!schedule || !schedule.getValue().hasPromotion())
      return;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kKLoopAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(promote(func, loop, schedule.getValue())))
        return signalPassFailure();
  }
};
} // namespace
