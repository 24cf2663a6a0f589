//===- TileBlocks.cpp - distribute a gemm.matmul over thread blocks -------===//

#include "Lowering/SplitK.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "gemmc/Schedule/Registers.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMTILEBLOCKS
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

static LogicalResult tileBlocks(gpu::GPUFuncOp func, MatmulOp matmul) {
  const gemmc::Schedule &schedule = getKernelSchedule(matmul);
  auto cType = cast<MemRefType>(matmul.getC().getType());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = cast<MemRefType>(matmul.getA().getType()).getDimSize(1);
  int64_t bm = schedule.bm(), bn = schedule.bn();
  // Tails: the blocks past the last full tile compute a whole tile, and the
  // passes guard every global access by the matrix bounds. Sizes given at
  // launch may be anything.
  bool dynamic = ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
                 ShapedType::isDynamic(k);
  if (dynamic || m % bm || n % bn || k % schedule.bk())
    func->setAttr(kTailsAttr, UnitAttr::get(func.getContext()));

  OpBuilder builder(matmul);
  Location loc = matmul.getLoc();
  OpFoldResult kStart = builder.getIndexAttr(0);
  OpFoldResult kExtent = extentOf(builder, loc, matmul.getA(), 1);
  if (schedule.splitsK()) {
    OpFoldResult splits = getSplitCount(builder, loc, schedule);
    SplitRange range = getSplitRange(builder, loc, kExtent, splits,
                                     schedule.bk());
    kStart = range.start;
    kExtent = range.extent;
  }
  Value blockX = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::y);
  Value rowOffset = arith::MulIOp::create(
      builder, loc, blockY, arith::ConstantIndexOp::create(builder, loc, bm));
  Value colOffset = arith::MulIOp::create(
      builder, loc, blockX, arith::ConstantIndexOp::create(builder, loc, bn));

  OpFoldResult rows = builder.getIndexAttr(bm), cols = builder.getIndexAttr(bn);
  Value a = createTileView(builder, loc, matmul.getA(), rowOffset, kStart,
                           rows, kExtent);
  Value b = createTileView(builder, loc, matmul.getB(), kStart, colOffset,
                           kExtent, cols);
  Value c = createTileView(builder, loc, matmul.getC(), rowOffset, colOffset,
                           rows, cols);
  MatmulOp::create(builder, loc, a, b, c, matmul.getAccTypeAttr(),
                   LevelAttr::get(builder.getContext(), Level::Block));
  matmul.erase();

  int64_t threads = schedule.threadsPerBlock();
  int32_t blockSize[] = {static_cast<int32_t>(threads), 1, 1};
  // A batch runs its GEMMs along z.
  auto batch = func->getAttrOfType<DenseI64ArrayAttr>(kBatchAttr);
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(blockSize));
  if (!dynamic) {
    int32_t gridSize[] = {static_cast<int32_t>(llvm::divideCeil(n, bn)),
                          static_cast<int32_t>(llvm::divideCeil(m, bm)),
                          static_cast<int32_t>(batch ? batch[0]
                                                     : schedule.splits())};
    func.setKnownGridSizeAttr(builder.getDenseI32ArrayAttr(gridSize));
  }
  // The register cap of the schedule model, which warns where the schedule
  // is likely to need more.
  int64_t cap = schedule.registerCap();
  if (cap < gemmc::kMaxRegistersPerThread)
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  builder.getI32IntegerAttr(int32_t(cap)));
  // The grid's z: a batch's GEMMs, or split-K's splits (chosen at launch
  // with `split-k ?`).
  GridDim z = batch                         ? GridDim{Dim::Batch, 1}
              : schedule.splitsAtLaunch() ? GridDim{Dim::Splits, 1}
                                          : GridDim{Dim::One, schedule.splits()};
  GridDim grid[] = {{Dim::N, bn}, {Dim::M, bm}, z};
  func->setAttr(kLaunchAttr,
                LaunchAttr::get(builder.getContext(), {threads, 1, 1}, grid,
                                /*sharedBytes=*/0)
                    .withIndexBitwidth(schedule.indexBitwidth()));
  return success();
}

namespace {
struct GemmTileBlocksPass
    : public mlir::gemm::impl::GemmTileBlocksBase<GemmTileBlocksPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    FailureOr<SmallVector<MatmulOp>> matmuls =
        collectMatmuls(func, [](MatmulOp op, const gemmc::Schedule &) {
          return op.getLevel() == Level::Grid;
        });
    if (failed(matmuls))
      return signalPassFailure();
    if (matmuls->size() > 1) {
      func.emitOpError("expected at most one grid-level gemm.matmul, found ")
          << matmuls->size();
      return signalPassFailure();
    }
    if (!matmuls->empty() && failed(tileBlocks(func, matmuls->front())))
      return signalPassFailure();
  }
};
} // namespace
