//===- FoldAlignedViews.cpp - subviews into aligned vector accesses -------===//

#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/ViewLikeInterfaceUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMFOLDALIGNEDVIEWS
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;

namespace {
/// vector.load / vector.store (with an alignment) of a unit-stride subview
/// -> the same access of the subview's source, alignment kept.
template <typename OpTy>
struct FoldSubViewKeepingAlignment : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAlignment())
      return rewriter.notifyMatchFailure(op, "no alignment to keep");
    auto subView = op.getBase().template getDefiningOp<memref::SubViewOp>();
    if (!subView)
      return rewriter.notifyMatchFailure(op, "not through a subview");
    if (!llvm::all_of(subView.getStaticStrides(),
                      [](int64_t stride) { return stride == 1; }))
      return rewriter.notifyMatchFailure(op, "subview with non-unit strides");
    SmallVector<Value> indices;
    affine::resolveIndicesIntoOpWithOffsetsAndStrides(
        rewriter, op.getLoc(), subView.getMixedOffsets(),
        subView.getMixedStrides(), subView.getDroppedDims(),
        getAsOpFoldResult(op.getIndices()), indices);
    rewriter.modifyOpInPlace(op, [&] {
      op.getBaseMutable().assign(subView.getSource());
      op.getIndicesMutable().assign(indices);
    });
    return success();
  }
};

struct GemmFoldAlignedViewsPass
    : public mlir::gemm::impl::GemmFoldAlignedViewsBase<
          GemmFoldAlignedViewsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldSubViewKeepingAlignment<vector::LoadOp>,
                 FoldSubViewKeepingAlignment<vector::StoreOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
