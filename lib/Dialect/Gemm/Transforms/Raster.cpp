//===- Raster.cpp - block-index swizzle for L2 reuse ---------------------===//

#include "Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMRASTER
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// The grouped ("rasterised") order: the linear block index walks `group`
/// block rows column by column. Returns the block row and column to compute.
static std::pair<Value, Value> rasterize(OpBuilder &b, Location loc,
                                         Value blockX, Value blockY,
                                         int64_t rows, int64_t cols,
                                         int64_t group) {
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value pid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockY, c(cols)), blockX);
  Value perGroup = c(group * cols);
  Value groupId = arith::DivUIOp::create(b, loc, pid, perGroup);
  Value firstRow = arith::MulIOp::create(b, loc, groupId, c(group));
  Value groupRows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c(rows), firstRow), c(group));
  Value inGroup = arith::RemUIOp::create(b, loc, pid, perGroup);
  Value row = arith::AddIOp::create(
      b, loc, firstRow, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value col = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {row, col};
}

namespace {
struct GemmRasterPass
    : public mlir::gemm::impl::GemmRasterBase<GemmRasterPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    if (!schedule || schedule.getRaster() == 0)
      return;
    std::optional<DenseI32ArrayAttr> grid = func.getKnownGridSizeAttr();
    gpu::BlockIdOp blockX, blockY;
    func.walk([&](gpu::BlockIdOp op) {
      if (op.getDimension() == gpu::Dimension::x)
        blockX = op;
      else if (op.getDimension() == gpu::Dimension::y)
        blockY = op;
    });
    if (!grid || !blockX || !blockY) {
      func.emitOpError("gemm-raster expects the blocks of gemm-tile-blocks");
      return signalPassFailure();
    }
    Operation *last = blockX->isBeforeInBlock(blockY) ? blockY : blockX;
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    auto [row, col] =
        rasterize(b, func.getLoc(), blockX, blockY, (*grid)[1], (*grid)[0],
                  schedule.getRaster());
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
