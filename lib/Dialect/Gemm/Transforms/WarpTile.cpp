//===- WarpTile.cpp - distribute a block tile over the block's warps ------===//

#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMWARPTILE
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// A warp's view, marked for gemm-promote and gemm-register-tile.
static Value warpView(OpBuilder &b, Location loc, Value source, Value row,
                      Value col, OpFoldResult rows, OpFoldResult cols) {
  auto view = createTileView(b, loc, source, row, col, rows, cols);
  view->setAttr(kWarpViewAttr, b.getUnitAttr());
  return view;
}

static LogicalResult warpTile(MatmulOp matmul) {
  const gemmc::Schedule &s = getKernelSchedule(matmul);
  auto cType = cast<MemRefType>(matmul.getC().getType());
  int64_t bm = cType.getDimSize(0), bn = cType.getDimSize(1);
  int64_t wm = s.wm(), wn = s.wn();
  if (bm % wm || bn % wn)
    return matmul.emitOpError("block tile ")
           << bm << "x" << bn << " is not a multiple of the warp tile " << wm
           << "x" << wn;

  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, tid, c(32));
  // One op per statement: the order of a call's arguments is unspecified.
  Value warpRow = arith::DivUIOp::create(b, loc, warp, c(bn / wn));
  Value row = arith::MulIOp::create(b, loc, warpRow, c(wm));
  Value warpCol = arith::RemUIOp::create(b, loc, warp, c(bn / wn));
  Value col = arith::MulIOp::create(b, loc, warpCol, c(wn));
  Value zero = c(0);
  OpFoldResult k = extentOf(b, loc, matmul.getA(), 1);
  OpFoldResult rows = b.getIndexAttr(wm), cols = b.getIndexAttr(wn);
  Value a = warpView(b, loc, matmul.getA(), row, zero, rows, k);
  Value bView = warpView(b, loc, matmul.getB(), zero, col, k, cols);
  Value cView = warpView(b, loc, matmul.getC(), row, col, rows, cols);
  MatmulOp::create(b, loc, a, bView, cView, matmul.getAccTypeAttr(),
                   LevelAttr::get(b.getContext(), Level::Warp));
  matmul.erase();
  return success();
}

namespace {
struct GemmWarpTilePass
    : public mlir::gemm::impl::GemmWarpTileBase<GemmWarpTilePass> {
  void runOnOperation() override {
    FailureOr<SmallVector<MatmulOp>> matmuls = collectMatmuls(
        getOperation(), [](MatmulOp op, const gemmc::Schedule &s) {
          return op.getLevel() == Level::Block && s.warpTile;
        });
    if (failed(matmuls))
      return signalPassFailure();
    for (MatmulOp matmul : *matmuls)
      if (failed(warpTile(matmul)))
        return signalPassFailure();
  }
};
} // namespace
