//===- Epilogue.cpp - how the stores of C apply the epilogue
//----------------===//
//
// C = alpha * acc + beta * C, the bias, the activation, R, under one
// branch on beta.
//
//===----------------------------------------------------------------------===//

#include "Lowering/Epilogue.h"
#include "Lowering/Bounds.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

Value EpilogueValues::apply(
    OpBuilder &b, Location loc, Value acc, Value old, Value added, Value c,
    function_ref<std::pair<Value, Value>()> position) const {
  auto vectorType = dyn_cast<VectorType>(acc.getType());
  auto splat = [&](Value scalar) -> Value {
    if (vectorType)
      return vector::BroadcastOp::create(b, loc, vectorType, scalar);
    return scalar;
  };
  Value value = acc;
  if (scale)
    value = arith::MulFOp::create(b, loc, value, splat(scale));
  if (scaleA) {
    // A's scale at C's row, B's along its columns. A tile's values past the
    // matrix are computed too (their stores are guarded): their scales are
    // read at the last row and column instead, inside the vectors (reads
    // past them were out of bounds, the schedule fuzzer's s65_788).
    auto [row, col] = position();
    MatrixPoint p = pointInMatrix(b, loc, c, row, col);
    Value one = indexConstant(b, loc, 1);
    Value lastRow = arith::SubIOp::create(b, loc, p.rows, one);
    Value lastCol = arith::SubIOp::create(b, loc, p.cols, one);
    Value scaleRow = arith::MinUIOp::create(b, loc, p.row, lastRow);
    Value rowScale =
        memref::LoadOp::create(b, loc, scaleA, ValueRange{scaleRow});
    // (A group's: offset before the clamp, the clamp's bound offset too.)
    Value colBase = p.col, colLast = lastCol;
    if (scaleBOffset) {
      colBase = arith::AddIOp::create(b, loc, scaleBOffset, p.col);
      colLast = arith::AddIOp::create(b, loc, scaleBOffset, lastCol);
    }
    auto colScaleAt = [&](int64_t e) -> Value {
      Value at = addOffset(b, loc, colBase, e);
      Value inside = arith::MinUIOp::create(b, loc, at, colLast);
      return memref::LoadOp::create(b, loc, scaleB, ValueRange{inside});
    };
    Value colScale;
    if (vectorType) {
      SmallVector<Value> elements;
      for (int64_t e = 0, n = vectorType.getNumElements(); e < n; ++e)
        elements.push_back(colScaleAt(e));
      colScale =
          vector::FromElementsOp::create(b, loc, vectorType, elements);
    } else {
      colScale = colScaleAt(0);
    }
    Value both = arith::MulFOp::create(b, loc, splat(rowScale), colScale);
    value = arith::MulFOp::create(b, loc, value, both);
  }
  if (alpha) {
    value = arith::MulFOp::create(b, loc, splat(alpha), value);
    if (readsC)
      value = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, splat(beta), old), value);
  }
  if (bias) {
    // The bias at C's row (one value) or columns (along the row).
    auto [row, col] = position();
    MatrixPoint p = pointInMatrix(b, loc, c, row, col);
    auto biasType = cast<MemRefType>(bias.getType());
    Type element = biasType.getElementType();
    Value zero = indexConstant(b, loc, 0);
    Value at[] = {biasPerRow ? p.row : zero, biasPerRow ? zero : p.col};
    int64_t width = vectorType && !biasPerRow ? vectorType.getNumElements() : 1;
    auto readType = VectorType::get({width}, element);
    Value read;
    if (clampBiasReads) {
      // An element at a time, its index clamped into the vector, as the
      // scales' are: the values past the matrix take the last entry's.
      // Unguarded, a thread's reads of one column (its rows share them)
      // merge, and none waits on a branch of its own: 128x192 FP8 tiles
      // into bf16 (48 reads a tile, where there were 96) ran 2.5-7.5%
      // faster on an H200, the bias costing them 2.4-6.7% where it had
      // cost 5-15% (8192^3 to 2048x8192x4096; with rowwise scales beside
      // it, within 1% either way). (The other kernels read it as C, where
      // merged reads issued early spilled mma.sync's registers.)
      Value extent = biasPerRow ? p.rows : p.cols;
      Value last =
          arith::SubIOp::create(b, loc, extent, indexConstant(b, loc, 1));
      SmallVector<Value> elements;
      for (int64_t e = 0; e < width; ++e) {
        Value along = addOffset(b, loc, biasPerRow ? at[0] : at[1], e);
        Value inside = arith::MinUIOp::create(b, loc, along, last);
        Value index[] = {biasPerRow ? inside : zero,
                         biasPerRow ? zero : inside};
        elements.push_back(memref::LoadOp::create(b, loc, bias, index));
      }
      read = vector::FromElementsOp::create(b, loc, readType, elements);
    } else {
      // Read like C (guarded past the matrix in kernels with tails, which
      // keep or drop a whole vector): where N is not a multiple of the
      // width (a column-major C allows it) or is given at launch, an
      // element at a time.
      int64_t piece =
          !biasType.isDynamicDim(1) && biasType.getDimSize(1) % width == 0
              ? width
              : 1;
      auto pieceType = VectorType::get({piece}, element);
      auto readAt = [&](int64_t e) {
        return readAlongRow(b, loc, pieceType, bias, at[0],
                            addOffset(b, loc, at[1], e));
      };
      if (piece == width) {
        read = readAt(0);
      } else {
        SmallVector<Value> elements;
        for (int64_t e = 0; e < width; ++e)
          elements.push_back(vector::ExtractOp::create(b, loc, readAt(e), 0));
        read = vector::FromElementsOp::create(b, loc, readType, elements);
      }
    }
    read = extendToF32(b, loc, read);
    Value add =
        width > 1 ? read : splat(vector::ExtractOp::create(b, loc, read, 0));
    value = arith::AddFOp::create(b, loc, value, add);
  }
  value = applyActivation(b, loc, value, splat);
  if (residual)
    value = arith::AddFOp::create(b, loc, value, added);
  return value;
}

Value EpilogueValues::applyActivation(
    OpBuilder &b, Location loc, Value x,
    function_ref<Value(Value)> splat) const {
  auto constant = [&](double c) -> Value {
    Value scalar =
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(c)));
    return splat(scalar);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  auto add = [&](Value l, Value r) -> Value {
    return arith::AddFOp::create(b, loc, l, r);
  };
  auto tanhOf = [&](Value v) -> Value {
    arith::FastMathFlags flags = approximate ? arith::FastMathFlags::afn
                                             : arith::FastMathFlags::none;
    return math::TanhOp::create(b, loc, v, flags);
  };
  // GELU as x Phi(x), with Phi(-|x|) = erfc(t) / 2 (t = |x| / sqrt 2) =
  // r 2^(Q(r) - log2(e) x^2 / 2), r = 1 / (1 + 0.7 t), Q (Horner's rule in
  // fma.rn.f32) fitted minimax (Lawson's reweighting) to log2(erfc(t) / 2r)
  // + log2(e) t^2 over t in [0, 9.2]; the reciprocal and the power the
  // GPU's approximate ones (`afn`: rcp.approx.f32, ex2.approx.f32, a few
  // ulp); then 1 - Phi(-|x|) where x >= 0. Where C has 16 bits or fewer Q
  // is of degree 4: fifteen PTX instructions an element, against 24 of
  // Numerical Recipes' erfc before (the consumers issue them between a
  // tile's last wgmma and its stores: each costs), GELU's relative error,
  // each step rounded to f32 (the approximations exact), at most 5.8e-5
  // over x in [-13, 13], a quarter of f16's half unit. An f32 C's Q is of
  // degree 8: at most 1.6e-6 over [-5, 13] and 7.7e-6 below, where the
  // rounding of x^2 dominates; 0.5 x (1 + erf(x / sqrt 2)) with MLIR's erf
  // polynomial, before, lost the negative tail's digits (4% off at -4.95;
  // an f32 output of one element 6e-5 off, the schedule fuzzer's
  // s37_722_fam), and MLIR's erfc polynomial cost 2.5 times the GEMM
  // (scripts/gelu-fit.py fits Q and checks these constants). NaN stays NaN;
  // +inf stays +inf.
  static constexpr double kP = 0.7;
  static constexpr double kCoefficients[] = {
      -2.33640472, 1.37979278, 0.730293143, -1.14008425, 0.366381826};
  static constexpr double kCoefficients32[] = {
      -2.34073977, 1.45270915,   0.270878419,  0.264512186, -1.8527798,
      1.67944597,  -0.307659091, -0.285799462, 0.11943322};
  auto geluByErfc = [&](Value x, ArrayRef<double> coefficients) -> Value {
    auto fast = arith::FastMathFlags::afn;
    auto fma = [&](Value l, Value r, Value c) -> Value {
      return math::FmaOp::create(b, loc, l, r, c);
    };
    Value magnitude = math::AbsFOp::create(b, loc, x);
    Value one = constant(1.0);
    Value denominator = fma(magnitude, constant(kP * M_SQRT1_2), one);
    Value r = arith::DivFOp::create(b, loc, one, denominator, fast);
    Value q = constant(coefficients.back());
    for (double c : llvm::reverse(coefficients.drop_back()))
      q = fma(r, q, constant(c));
    Value square = mul(x, x);
    Value exponent = fma(square, constant(-0.5 * M_LOG2E), q);
    Value power = math::Exp2Op::create(b, loc, exponent, fast);
    Value lower = mul(r, power);
    Value upper = arith::SubFOp::create(b, loc, one, lower);
    Value zero = constant(0.0);
    Value nonNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, zero);
    Value phi = arith::SelectOp::create(b, loc, nonNegative, upper, lower);
    return mul(x, phi);
  };
  switch (activation) {
  case gemmc::Activation::None:
    return x;
  case gemmc::Activation::ReLU: {
    Value zero = constant(0.0);
    return arith::MaximumFOp::create(b, loc, x, zero);
  }
  case gemmc::Activation::GELU: {
    // x * Phi(x), Phi from erfc (above).
    if (approximate)
      return geluByErfc(x, kCoefficients);
    return geluByErfc(x, kCoefficients32);
  }
  case gemmc::Activation::GELUTanh: {
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
    Value square = mul(x, x);
    Value cube = mul(square, x);
    Value inner = add(x, mul(constant(0.044715), cube));
    Value argument = mul(constant(std::sqrt(2.0 / M_PI)), inner);
    Value tanh = tanhOf(argument);
    Value onePlus = add(constant(1.0), tanh);
    Value half = mul(constant(0.5), x);
    return mul(half, onePlus);
  }
  case gemmc::Activation::SiLU: {
    // x / (1 + exp(-x)) = 0.5 x (1 + tanh(x / 2)): tanh's approximation
    // needs no exp (whose range reduction takes a floor, which NVVM's
    // conversion leaves to libdevice).
    Value tanh = tanhOf(mul(constant(0.5), x));
    Value onePlus = add(constant(1.0), tanh);
    Value half = mul(constant(0.5), x);
    return mul(half, onePlus);
  }
  }
  llvm_unreachable("unknown activation");
}

Value EpilogueValues::scaleOutput(OpBuilder &b, Location loc,
                                  Value value) const {
  if (!outputScale)
    return value;
  Value factor = outputScale;
  if (auto vectorType = dyn_cast<VectorType>(value.getType()))
    factor = vector::BroadcastOp::create(b, loc, vectorType, outputScale);
  return arith::MulFOp::create(b, loc, value, factor);
}

LogicalResult mlir::gemm::buildEpilogue(
    OpBuilder &b, Location loc, Operation *at, Value c,
    function_ref<void(OpBuilder &, const EpilogueValues &)> stores, Value group,
    bool clampBiasReads) {
  auto func = at->getParentOfType<gpu::GPUFuncOp>();
  EpilogueValues plain;
  plain.clampBiasReads = clampBiasReads;
  if (!func) {
    stores(b, plain);
    return success();
  }
  if (auto bias = func->getAttrOfType<StringAttr>(kBiasAttr)) {
    if (!viewsMatrix(c))
      return at->emitOpError("cannot place the bias: C is not a view of a "
                             "matrix");
    plain.bias = getKernelArgument(func, KernelArg::Bias);
    if (!plain.bias)
      return func.emitOpError("lacks the bias argument of the kernel ABI");
    plain.biasPerRow = bias.getValue() == "row";
  }
  if (func->hasAttr(kResidualAttr)) {
    Value from = getKernelArgument(func, KernelArg::C);
    Value to = getKernelArgument(func, KernelArg::Residual);
    if (!from || !to)
      return func.emitOpError("lacks the C and R arguments of the kernel ABI");
    FailureOr<Value> view = replayView(b, c, from, to);
    if (failed(view))
      return at->emitOpError("cannot place R: C is not a view of the "
                             "kernel's C argument");
    plain.residual = *view;
  }
  if (auto activation = func->getAttrOfType<StringAttr>(kActivationAttr))
    plain.activation = gemmc::activationNamed(activation.getValue())
                           .value_or(gemmc::Activation::None);
  if (auto cType = dyn_cast<MemRefType>(c.getType()))
    plain.approximate = cType.getElementTypeBitWidth() <= 16;
  // Block scales were applied to each k tile's sum as the consumers added
  // it to the accumulators (Warpgroup/Consumer.cpp).
  auto scales = func->getAttrOfType<StringAttr>(kScalesAttr);
  if (scales && gemmc::scaleKindNamed(scales.getValue()) !=
                    gemmc::ScaleKind::Block) {
    Value scaleA = getKernelArgument(func, KernelArg::ScaleA);
    Value scaleB = getKernelArgument(func, KernelArg::ScaleB);
    if (!scaleA || !scaleB)
      return func.emitOpError("lacks the scale arguments of the kernel ABI");
    if (scales.getValue() == "rowwise") {
      if (!viewsMatrix(c))
        return at->emitOpError("cannot place the rowwise scales: C is not a "
                               "view of a matrix");
      plain.scaleA = scaleA;
      plain.scaleB = scaleB;
      // A group's B has N column scales of its own (a grouped kernel's
      // stores take C whole: its columns are N).
      if (group) {
        Value cols = memref::DimOp::create(b, loc, c, 1);
        plain.scaleBOffset = arith::MulIOp::create(b, loc, group, cols);
      }
    } else {
      Value zero = indexConstant(b, loc, 0);
      Value a = memref::LoadOp::create(b, loc, scaleA, ValueRange{zero});
      Value bAt = group ? group : zero;
      Value bScale = memref::LoadOp::create(b, loc, scaleB, ValueRange{bAt});
      plain.scale = arith::MulFOp::create(b, loc, a, bScale);
    }
  }
  if (func->hasAttr(kOutputScaleAttr)) {
    Value scale = getKernelArgument(func, KernelArg::OutputScale);
    if (!scale)
      return func.emitOpError("lacks C's scale argument of the kernel ABI");
    Value zero = indexConstant(b, loc, 0);
    plain.outputScale = memref::LoadOp::create(b, loc, scale, ValueRange{zero});
  }
  if (!func->hasAttr(kAlphaBetaAttr)) {
    stores(b, plain);
    return success();
  }
  plain.alpha = getKernelArgument(func, KernelArg::Alpha);
  plain.beta = getKernelArgument(func, KernelArg::Beta);
  if (!plain.alpha || !plain.beta)
    return func.emitOpError("lacks the alpha and beta arguments of the "
                            "kernel ABI");
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value readsC = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                       plain.beta, zero);
  scf::IfOp::create(
      b, loc, readsC,
      [&](OpBuilder &tb, Location) {
        EpilogueValues withC = plain;
        withC.readsC = true;
        stores(tb, withC);
        scf::YieldOp::create(tb, loc);
      },
      [&](OpBuilder &eb, Location) {
        stores(eb, plain);
        scf::YieldOp::create(eb, loc);
      });
  return success();
}
