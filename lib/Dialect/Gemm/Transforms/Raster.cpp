//===- Raster.cpp - block-index swizzle for L2 reuse ----------------------===//

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
                                         Value blockX, Value blockY, Value rows,
                                         Value cols, int64_t group) {
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value pid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockY, cols), blockX);
  std::optional<int64_t> knownCols = getConstantIntValue(cols);
  Value perGroup =
      knownCols ? c(group * *knownCols)
                : arith::MulIOp::create(b, loc, c(group), cols).getResult();
  Value groupId = arith::DivUIOp::create(b, loc, pid, perGroup);
  Value firstRow = arith::MulIOp::create(b, loc, groupId, c(group));
  Value rowsLeft = arith::SubIOp::create(b, loc, rows, firstRow);
  Value groupRows = arith::MinUIOp::create(b, loc, rowsLeft, c(group));
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
    if (!schedule || !schedule.getValue().raster)
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
    auto [row, col] = rasterize(b, loc, blockX, blockY, rows, cols,
                                *schedule.getValue().raster);
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
