//===- Epilogue.h - how the stores of C apply the epilogue -----------*- C++
//-*-===//
//
// alpha and beta, the bias and ReLU, as the passes that store C apply them;
// alpha, beta and the bias are the kernel's arguments by the kernel ABI.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_EPILOGUE_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_EPILOGUE_H

#include "gemmc/Schedule/Types.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// How the stores of C apply the epilogue: the accumulators times A's and
/// B's scales where there are any (`scale`, their product, or per row
/// `scaleA[row] * scaleB[col]`), then `alpha * acc` (beta = 0: C is not
/// read) or `alpha * acc + beta * C` where there is an alpha, then plus a
/// bias (a 1 x N row or an M x 1 column of C's type), then the activation
/// (GELU's erf and tanh and SiLU's tanh as math ops, which
/// gemm-approximate-math turns into polynomials; where `approximate`, tanh
/// into `tanh.approx.f32` and GELU's 1 + erf built from erfc's rational
/// form on `ex2.approx.f32`), then plus R (`residual`).
struct EpilogueValues {
  /// `scales = tensor`: scale_a * scale_b (f32); `scales = rowwise`: the
  /// 1-D memrefs of A's scales (M) and B's (N; a grouped GEMM's, N a
  /// group, `scaleBOffset` the first of the stores' group, index).
  Value scale, scaleA, scaleB, scaleBOffset;
  Value alpha, beta;
  bool readsC = false;
  Value bias;
  bool biasPerRow = false;
  /// Whether the bias is read an element at a time at its index clamped
  /// into the vector, unguarded (the warpgroup kernels': a tile's values
  /// past the matrix are never stored, and with a bias the amax leaves
  /// them out); else like C, guarded past the matrix.
  bool clampBiasReads = false;
  gemmc::Activation activation = gemmc::Activation::None;
  /// `residual = add`: the view of R that matches the stores' view of C
  /// (R has C's type and strides): the stores read R where they would read
  /// C, and pass its values to `apply`.
  Value residual;
  /// Whether the activation may be computed to within C's rounding rather
  /// than to a few ulp of f32: where C is of 16 bits or fewer. The tanh is
  /// then the GPU's `tanh.approx.f32` (relative error at most 2^-11;
  /// `math.tanh` carries `afn`, which gemm-approximate-math keeps for
  /// NVPTX), and GELU's Phi(x) comes from erfc in a fitted form on
  /// `rcp.approx` and `ex2.approx` with Q of degree 4 (GELU's relative
  /// error at most 5.8e-5 over [-13, 13]: the negative tail keeps its
  /// digits, which 1 + erf loses). An f32 C takes tanh's polynomial, and
  /// GELU's erfc in the same form with Q of degree 8 (at most 1.6e-6 over
  /// [-5, 13]; Epilogue.cpp, applyActivation).
  bool approximate = false;
  /// `output-scale = tensor`: C's scale (f32), by which the stores of an
  /// FP8 C multiply `apply`'s values last, after the amax took them
  /// (`scaleOutput`); else null.
  Value outputScale;

  /// The value to store for the f32 accumulators `acc` (a scalar, or a
  /// vector along a row of C), given C's old values `old` as f32 where
  /// `readsC` and R's `added` as f32 where `residual`; `position` gives
  /// (row, col) of `acc` in the view `c` of C (asked for only with a bias
  /// or rowwise scales).
  Value apply(OpBuilder &b, Location loc, Value acc, Value old, Value added,
              Value c,
              function_ref<std::pair<Value, Value>()> position) const;
  /// `value` (f32, or a vector of them) times C's scale where there is
  /// one: the last step before the cast to C's type.
  Value scaleOutput(OpBuilder &b, Location loc, Value value) const;
  /// The activation of `x` (f32, or a vector of them; `splat` makes a
  /// scalar its shape).
  Value applyActivation(OpBuilder &b, Location loc, Value x,
                        function_ref<Value(Value)> splat) const;
};

/// Emits the stores of C (`stores`) once, or in a kernel with
/// `gemm.alpha_beta` (alpha and beta its arguments by the kernel ABI) twice,
/// under one branch on beta != 0: C is read only on that side.
/// Fails where a bias or R cannot be placed: C (`c`) is not a view of a
/// matrix (for R: of the kernel's C argument). A grouped GEMM's stores lie
/// in group `group` (index; else null), whose B has its own scales.
/// `clampBiasReads` as EpilogueValues'. C's scale is loaded once, before
/// the stores.
LogicalResult
buildEpilogue(OpBuilder &b, Location loc, Operation *at, Value c,
              function_ref<void(OpBuilder &, const EpilogueValues &)> stores,
              Value group = nullptr, bool clampBiasReads = false);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_EPILOGUE_H
