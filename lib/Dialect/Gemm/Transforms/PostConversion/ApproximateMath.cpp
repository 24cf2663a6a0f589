//===- ApproximateMath.cpp - the epilogue's erf, tanh and exp as polynomials //
//
// GELU (erf, or its tanh form) and SiLU (tanh) are math ops in the epilogue
// (Lowering/Epilogue.cpp). The GPU-to-NVVM conversion lowers them to calls
// of libdevice's __nv_erff and the like, which gemmc does not link; upstream
// MLIR's polynomial approximations rewrite them into arith ops, math.fma
// and math.absf (f32 to a few ulp); a tanh marked `afn` (C of 16 bits or
// fewer) becomes tanh.approx.f32 instead, and GELU's exp2 there (marked
// `afn` too) NVVM's ex2.approx.f32. fma and absf would become
// libdevice calls too (the conversion marks llvm.intr.fabs illegal): fma
// becomes LLVM's intrinsic (fma.rn.f32), the absolute value its sign bit
// cleared. (Where CUDA_HOME names a toolkit, MLIR's NVVM target links its
// libdevice, and a call left over would pass unseen: lit runs without it.)
//
//===----------------------------------------------------------------------===//

#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMAPPROXIMATEMATH
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;

/// Whether `op`, a math op of `type` with fast-math `flags`, is an f32 one
/// marked `afn`: the epilogue's, where C's rounding is as coarse as the
/// GPU's approximate instructions.
static LogicalResult matchApproximateF32(Operation *op, Type type,
                                         arith::FastMathFlags flags,
                                         PatternRewriter &rewriter) {
  if (!getElementTypeOrSelf(type).isF32())
    return rewriter.notifyMatchFailure(op, "not f32");
  if (!arith::bitEnumContainsAll(flags, arith::FastMathFlags::afn))
    return rewriter.notifyMatchFailure(op, "not approximate");
  return success();
}

namespace {
/// math.fma as llvm.intr.fma, which NVPTX selects as fma.rn.f32.
struct FmaToIntrinsic : public OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(),
                                             op.getC());
    return success();
  }
};

/// math.tanh of f32 with `afn` (the epilogue's, where C's rounding is as
/// coarse) as LLVM's intrinsic with `afn`, which NVPTX selects as
/// tanh.approx.f32: one instruction for the polynomial's dozen.
struct ApproximateTanhToIntrinsic : public OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(matchApproximateF32(op, op.getType(), op.getFastmath(),
                                   rewriter)))
      return failure();
    auto flags = LLVM::FastmathFlagsAttr::get(rewriter.getContext(),
                                              LLVM::FastmathFlags::afn);
    rewriter.replaceOpWithNewOp<LLVM::TanhOp>(op, op.getType(),
                                              op.getOperand(), flags);
    return success();
  }
};

/// math.exp2 of f32 (or a vector of them) with `afn` (GELU's erfc where
/// C's rounding is as coarse) as NVVM's ex2.approx.f32 (relative error
/// about 2^-22), an element at a time: the conversion to NVVM takes
/// llvm.intr.exp2 for libdevice's, which gemmc does not link.
struct ApproximateExp2ToNvvm : public OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (failed(matchApproximateF32(op, type, op.getFastmath(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    StringAttr name = rewriter.getStringAttr("llvm.nvvm.ex2.approx");
    Type f32 = rewriter.getF32Type();
    auto vector = dyn_cast<VectorType>(type);
    if (!vector) {
      rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
          op, f32, name, ValueRange{op.getOperand()});
      return success();
    }
    if (vector.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "not a 1-D vector");
    SmallVector<Value> elements;
    for (int64_t i = 0; i < vector.getNumElements(); ++i) {
      Value element =
          vector::ExtractOp::create(rewriter, loc, op.getOperand(), i);
      elements.push_back(
          LLVM::CallIntrinsicOp::create(rewriter, loc, f32, name,
                                        ValueRange{element})
              .getResult(0));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vector, elements);
    return success();
  }
};

/// math.absf of f32 (or a vector of them) as its bits with the sign
/// cleared: exact, NaN included.
struct AbsToSignMask : public OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Type bits = rewriter.getI32Type();
    if (auto vector = dyn_cast<VectorType>(type))
      bits = vector.clone(bits);
    Location loc = op.getLoc();
    Value word = arith::BitcastOp::create(rewriter, loc, bits, op.getOperand());
    TypedAttr maskValue = rewriter.getI32IntegerAttr(0x7fffffff);
    if (auto vector = dyn_cast<VectorType>(bits))
      maskValue = DenseElementsAttr::get(vector, maskValue);
    Value mask = arith::ConstantOp::create(rewriter, loc, bits, maskValue);
    Value cleared = arith::AndIOp::create(rewriter, loc, word, mask);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, cleared);
    return success();
  }
};

struct GemmApproximateMathPass
    : public mlir::gemm::impl::GemmApproximateMathBase<
          GemmApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Before the polynomial, which would take every tanh.
    patterns.add<ApproximateTanhToIntrinsic>(&getContext(), /*benefit=*/2);
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          return name == math::ErfOp::getOperationName() ||
                 name == math::TanhOp::getOperationName();
        });
    patterns.add<FmaToIntrinsic, AbsToSignMask, ApproximateExp2ToNvvm>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
