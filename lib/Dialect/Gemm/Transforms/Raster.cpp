//===- Raster.cpp - block-index swizzle for L2 reuse ----------------------===//

#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMRASTER
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;


namespace {
struct GemmRasterPass
    : public mlir::gemm::impl::GemmRasterBase<GemmRasterPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    // gemm-warpgroup orders a wgmma kernel's tiles itself.
    if (!schedule || !schedule.getValue().raster ||
        schedule.getValue().hasWgmma())
      return;
    gpu::BlockIdOp blockX, blockY;
    func.walk([&](gpu::BlockIdOp op) {
      if (op.getDimension() == gpu::Dimension::x)
        blockX = op;
      else if (op.getDimension() == gpu::Dimension::y)
        blockY = op;
    });
    if (!blockX || !blockY) {
      func.emitOpError("gemm-raster expects the blocks of gemm-tile-blocks");
      return signalPassFailure();
    }
    Operation *last = blockX->isBeforeInBlock(blockY) ? blockY : blockX;
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    // The grid's extent: known where the sizes are static, else read.
    Location loc = func.getLoc();
    Value rows, cols;
    if (DenseI32ArrayAttr grid = func.getKnownGridSizeAttr()) {
      rows = indexConstant(b, loc, grid[1]);
      cols = indexConstant(b, loc, grid[0]);
    } else {
      rows = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
      cols = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    }
    Value rowStart = arith::MulIOp::create(b, loc, blockY, cols);
    Value linear = arith::AddIOp::create(b, loc, rowStart, blockX);
    auto [row, col] =
        rasterize(b, loc, linear, rows, cols, *schedule.getValue().raster);
    // Uses after the swizzle (its last op computes the column) take the
    // swizzled indices; the swizzle keeps the hardware ones.
    Operation *swizzleEnd = col.getDefiningOp();
    auto afterSwizzle = [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user->getBlock() != swizzleEnd->getBlock() ||
             swizzleEnd->isBeforeInBlock(user);
    };
    blockX.getResult().replaceUsesWithIf(col, afterSwizzle);
    blockY.getResult().replaceUsesWithIf(row, afterSwizzle);
  }
};
} // namespace
