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

/// The access `load` or `store` again, on `base` at `indices`.
static void rebuild(PatternRewriter &rewriter, vector::LoadOp load, Value base,
                    ValueRange indices) {
  rewriter.replaceOpWithNewOp<vector::LoadOp>(
      load, load.getVectorType(), base, indices, load.getNontemporal(),
      llvm::MaybeAlign(*load.getAlignment()));
}
static void rebuild(PatternRewriter &rewriter, vector::StoreOp store,
                    Value base, ValueRange indices) {
  rewriter.replaceOpWithNewOp<vector::StoreOp>(
      store, store.getValueToStore(), base, indices, store.getNontemporal(),
      llvm::MaybeAlign(*store.getAlignment()));
}

namespace {
/// A vector.load or vector.store with an alignment, through a subview.
template <typename OpTy> struct FoldAlignedAccess : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy access,
                                PatternRewriter &rewriter) const override {
    auto subView = access.getBase().template getDefiningOp<memref::SubViewOp>();
    if (!subView)
      return rewriter.notifyMatchFailure(access, "not through a subview");
    if (!access.getAlignment())
      return rewriter.notifyMatchFailure(access, "no alignment to keep");
    SmallVector<Value> indices =
        resolveIndices(rewriter, access.getLoc(), subView, access.getIndices());
    rebuild(rewriter, access, subView.getSource(), indices);
    return success();
  }
};

struct GemmFoldAlignedViewsPass
    : public mlir::gemm::impl::GemmFoldAlignedViewsBase<
          GemmFoldAlignedViewsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAlignedAccess<vector::LoadOp>,
                 FoldAlignedAccess<vector::StoreOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
