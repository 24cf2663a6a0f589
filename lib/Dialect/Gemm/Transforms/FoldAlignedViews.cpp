//===- FoldAlignedViews.cpp - fold subviews into aligned vector accesses --===//
//
// Upstream's fold-memref-alias-ops folds a memref.subview into the
// vector.load and vector.store that go through it, but drops their alignment
// attribute. Where strides are static, LLVM infers the alignment again; in
// kernels whose leading dimensions are given at launch it cannot, and splits
// every 128-bit access into four. These patterns fold first and keep it.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/Affine/ViewLikeInterfaceUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMFOLDALIGNEDVIEWS
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// The indices into the source of `subView` of `indices` into its result.
static SmallVector<Value> resolveIndices(PatternRewriter &rewriter,
                                         Location loc,
                                         memref::SubViewOp subView,
                                         ValueRange indices) {
  SmallVector<Value> resolved;
  affine::resolveIndicesIntoOpWithOffsetsAndStrides(
      rewriter, loc, subView.getMixedOffsets(), subView.getMixedStrides(),
      subView.getDroppedDims(), getAsOpFoldResult(indices), resolved);
  return resolved;
}

namespace {
struct FoldAlignedLoad : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::LoadOp load,
                                PatternRewriter &rewriter) const override {
    auto subView = load.getBase().getDefiningOp<memref::SubViewOp>();
    if (!subView)
      return rewriter.notifyMatchFailure(load, "not through a subview");
    if (!load.getAlignment())
      return rewriter.notifyMatchFailure(load, "no alignment to keep");
    SmallVector<Value> indices =
        resolveIndices(rewriter, load.getLoc(), subView, load.getIndices());
    rewriter.replaceOpWithNewOp<vector::LoadOp>(
        load, load.getVectorType(), subView.getSource(), indices,
        load.getNontemporal(), llvm::MaybeAlign(*load.getAlignment()));
    return success();
  }
};

struct FoldAlignedStore : OpRewritePattern<vector::StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::StoreOp store,
                                PatternRewriter &rewriter) const override {
    auto subView = store.getBase().getDefiningOp<memref::SubViewOp>();
    if (!subView)
      return rewriter.notifyMatchFailure(store, "not through a subview");
    if (!store.getAlignment())
      return rewriter.notifyMatchFailure(store, "no alignment to keep");
    SmallVector<Value> indices =
        resolveIndices(rewriter, store.getLoc(), subView, store.getIndices());
    rewriter.replaceOpWithNewOp<vector::StoreOp>(
        store, store.getValueToStore(), subView.getSource(), indices,
        store.getNontemporal(), llvm::MaybeAlign(*store.getAlignment()));
    return success();
  }
};

struct GemmFoldAlignedViewsPass
    : public mlir::gemm::impl::GemmFoldAlignedViewsBase<
          GemmFoldAlignedViewsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAlignedLoad, FoldAlignedStore>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
