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
    // The bias at C's row (one value) or columns (along the row), read
    // like C (guarded past the matrix in kernels with tails).
    auto [row, col] = position();
    MatrixPoint p = pointInMatrix(b, loc, c, row, col);
    auto biasType = cast<MemRefType>(bias.getType());
    Type element = biasType.getElementType();
    Value zero = indexConstant(b, loc, 0);
    Value at[] = {biasPerRow ? p.row : zero, biasPerRow ? zero : p.col};
    int64_t width = vectorType && !biasPerRow ? vectorType.getNumElements() : 1;
    // Guarded reads (tails) keep or drop a whole vector: where N is not a
    // multiple of the width (a column-major C allows it) or is given at
    // launch, the bias is read an element at a time.
    int64_t piece =
        !biasType.isDynamicDim(1) && biasType.getDimSize(1) % width == 0 ? width
                                                                         : 1;
    auto pieceType = VectorType::get({piece}, element);
    auto readAt = [&](int64_t e) {
      return readAlongRow(b, loc, pieceType, bias, at[0],
                          addOffset(b, loc, at[1], e));
    };
    Value read;
    if (piece == width) {
      read = readAt(0);
    } else {
      SmallVector<Value> elements;
      for (int64_t e = 0; e < width; ++e)
        elements.push_back(vector::ExtractOp::create(b, loc, readAt(e), 0));
      read = vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, element), elements);
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
  // 1 + erf(z) = erfc(-z) to within C's rounding: for t = |z|, erfc(t) =
  // r exp(-t^2 - 1.26551223 + r P(r)) with r = 1 / (1 + t / 2) (Numerical
  // Recipes' erfcc, relative error below 1.2e-7; P of degree 8 by Horner's
  // rule in fma.rn.f32), the reciprocal and the exponential the GPU's
  // approximate ones (`afn`: rcp.approx.f32, ex2.approx.f32 of the argument
  // times log2(e)); then 2 - erfc(t) where z >= 0. GELU's relative error
  // (emulated in f32, the approximations exact): at most 1.6e-5 (near
  // x = -11.5, the exponent's rounding), 2.5e-6 for |x| < 5, where 1 + erf
  // from erf's polynomial loses every digit below x = -5.5. NaN stays NaN.
  auto onePlusErfApproximate = [&](Value z) -> Value {
    auto fast = arith::FastMathFlags::afn;
    Value t = math::AbsFOp::create(b, loc, z);
    Value halfT = mul(constant(0.5), t);
    Value denominator = add(constant(1.0), halfT);
    Value one = constant(1.0);
    Value r = arith::DivFOp::create(b, loc, one, denominator, fast);
    static constexpr double kCoefficients[] = {
        1.00002368,  0.37409196, 0.09678418,  -0.18628806, 0.27886807,
        -1.13520398, 1.48851587, -0.82215223, 0.17087277};
    auto fma = [&](Value l, Value r, Value c) -> Value {
      return math::FmaOp::create(b, loc, l, r, c);
    };
    Value poly = constant(kCoefficients[8]);
    for (int i = 7; i >= 0; --i)
      poly = fma(r, poly, constant(kCoefficients[i]));
    // -t^2 - 1.26551223 + r P(r), times log2(e) for ex2.
    Value sum = fma(r, poly, constant(-1.26551223));
    Value negative = arith::NegFOp::create(b, loc, t);
    Value exponent = fma(negative, t, sum);
    Value power = mul(exponent, constant(M_LOG2E));
    Value exp = math::Exp2Op::create(b, loc, power, fast);
    Value erfc = mul(r, exp);
    Value zero = constant(0.0);
    Value nonNegative = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OGE, z, zero);
    Value two = constant(2.0);
    Value upper = arith::SubFOp::create(b, loc, two, erfc);
    return arith::SelectOp::create(b, loc, nonNegative, upper, erfc);
  };
  switch (activation) {
  case gemmc::Activation::None:
    return x;
  case gemmc::Activation::ReLU: {
    Value zero = constant(0.0);
    return arith::MaximumFOp::create(b, loc, x, zero);
  }
  case gemmc::Activation::GELU: {
    // x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))).
    Value scaled = mul(x, constant(M_SQRT1_2));
    Value onePlus;
    if (approximate) {
      onePlus = onePlusErfApproximate(scaled);
    } else {
      Value erf = math::ErfOp::create(b, loc, scaled);
      onePlus = add(constant(1.0), erf);
    }
    Value half = mul(constant(0.5), x);
    return mul(half, onePlus);
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

LogicalResult mlir::gemm::buildEpilogue(
    OpBuilder &b, Location loc, Operation *at, Value c,
    function_ref<void(OpBuilder &, const EpilogueValues &)> stores,
    Value group) {
  auto func = at->getParentOfType<gpu::GPUFuncOp>();
  EpilogueValues plain;
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
