//===- RuntimeTest.cpp - CPU-only unit tests of the runtime -------------===//
//
// The fp64 reference and the comparisons, the f16/bf16
// conversions, the mapping of problems onto column-major cuBLAS, and
// gemm-bench's option handling. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/Autotune.h"
#include "gemmc-rt/BenchOptions.h"
#include "gemmc-rt/Cublas.h"
#include "gemmc-rt/CublasLt.h"
#include "gemmc-rt/Host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gemmc::rt;

TEST(Host, LeadingDimensionsPadRowsAndColumns) {
  HostMatrix row(3, 5, Layout::Row, DType::F32, 8);
  EXPECT_EQ(row.data.size(), 24u);
  EXPECT_EQ(row.index(2, 4), 20u);
  HostMatrix col(3, 5, Layout::Col, DType::F16, 4);
  EXPECT_EQ(col.data.size(), 20u);
  EXPECT_EQ(col.index(2, 4), 18u);
  EXPECT_EQ(col.bytes(), 40u);
}

TEST(Host, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(toHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(toHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(toHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(toHalfBits(65520.0f), 0x7c00); // rounds to infinity
  EXPECT_EQ(toHalfBits(0.0f), 0x0000);
  EXPECT_EQ(toHalfBits(5.9604645e-8f), 0x0001); // smallest subnormal
  EXPECT_EQ(toHalfBits(2.9802322e-8f), 0x0000); // half of it: ties to even
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(toHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(toHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(std::isnan(fromHalfBits(toHalfBits(NAN))));
  EXPECT_EQ(fromHalfBits(0x3555), 0.333251953125f);
  for (uint32_t bits = 0; bits < 0x7c00; ++bits)
    ASSERT_EQ(toHalfBits(fromHalfBits(uint16_t(bits))), bits);
}

TEST(Host, BFloat16ConversionsRoundToNearestEven) {
  EXPECT_EQ(toBF16Bits(1.0f), 0x3f80);
  EXPECT_EQ(toBF16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80); // tie: even
  EXPECT_EQ(toBF16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(fromBF16Bits(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(fromBF16Bits(toBF16Bits(NAN))));
}

TEST(Host, Float8ConversionsRoundToNearestEvenAndSaturate) {
  // e4m3: bias 7, three mantissa bits, 448 the largest, no infinity.
  EXPECT_EQ(toFloat8Bits(DType::E4M3, 1.0f), 0x38);
  EXPECT_EQ(toFloat8Bits(DType::E4M3, 448.0f), 0x7e);
  EXPECT_EQ(toFloat8Bits(DType::E4M3, 1e6f), 0x7e); // saturates
  EXPECT_EQ(toFloat8Bits(DType::E4M3, -1e6f), 0xfe);
  EXPECT_EQ(toFloat8Bits(DType::E4M3, std::ldexp(1.0f, -9)), 0x01);
  EXPECT_EQ(toFloat8Bits(DType::E4M3, 1.0625f), 0x38); // tie: even
  EXPECT_EQ(toFloat8Bits(DType::E4M3, 1.1875f), 0x3a); // tie: even
  EXPECT_EQ(fromFloat8Bits(DType::E4M3, 0x7e), 448.0f);
  EXPECT_TRUE(std::isnan(fromFloat8Bits(DType::E4M3, 0x7f)));
  EXPECT_TRUE(std::isnan(
      fromFloat8Bits(DType::E4M3, toFloat8Bits(DType::E4M3, NAN))));
  // e5m2: bias 15, two mantissa bits, 57344 the largest finite value.
  EXPECT_EQ(toFloat8Bits(DType::E5M2, 1.0f), 0x3c);
  EXPECT_EQ(toFloat8Bits(DType::E5M2, 1e6f), 0x7b);
  EXPECT_EQ(fromFloat8Bits(DType::E5M2, 0x7b), 57344.0f);
  EXPECT_TRUE(std::isinf(fromFloat8Bits(DType::E5M2, 0x7c)));
  EXPECT_EQ(fromFloat8Bits(DType::E5M2, 0x01), std::ldexp(1.0f, -16));
  // Every finite code comes back as itself, both signs.
  for (DType type : {DType::E4M3, DType::E5M2})
    for (unsigned bits = 0; bits < 256; ++bits) {
      float value = fromFloat8Bits(type, uint8_t(bits));
      if (std::isfinite(value) && bits != 0x80)
        ASSERT_EQ(toFloat8Bits(type, value), bits) << bits;
    }
}

TEST(Host, ActivationsInFp64) {
  Epilogue e;
  EXPECT_EQ(e.activate(-2.0), -2.0);
  e.activation = "relu";
  EXPECT_EQ(e.activate(-2.0), 0.0);
  EXPECT_TRUE(std::isnan(e.activate(NAN)));
  e.activation = "gelu"; // x * Phi(x)
  EXPECT_NEAR(e.activate(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(e.activate(-1.0), -0.15865525393145707, 1e-15);
  e.activation = "gelu-tanh";
  EXPECT_NEAR(e.activate(1.0), 0.8411919906082768, 1e-15);
  e.activation = "silu"; // x / (1 + e^-x)
  EXPECT_NEAR(e.activate(1.0), 0.7310585786300049, 1e-15);
  EXPECT_NEAR(e.activate(-20.0), -20.0 / (1 + std::exp(20.0)), 1e-18);
}

TEST(Host, CsScaleMultipliesLast) {
  // `output-scale`: the finished value (bias, activation, R) times C's
  // scale.
  Epilogue e;
  EXPECT_EQ(e.finish(3.0, 0, 0), 3.0);
  HostMatrix r(1, 1, Layout::Row, DType::F32);
  r.data[0] = 1.0f;
  e.activation = "relu";
  e.residual = &r;
  e.outputScale = 0.5;
  EXPECT_EQ(e.finish(-3.0, 0, 0), 0.5);
  EXPECT_EQ(e.finish(3.0, 0, 0), 2.0);
}

TEST(Host, MatricesPackInTheirType) {
  HostMatrix m(2, 3, Layout::Col, DType::F16);
  fillRandom(m, 7);
  for (float v : m.data) {
    EXPECT_EQ(v, roundTo(DType::F16, v));
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
  EXPECT_EQ(m.bytes(), 12u);
  HostMatrix copy(2, 3, Layout::Col, DType::F16);
  copy.unpack(m.pack());
  EXPECT_EQ(copy.data, m.data);
  EXPECT_EQ(m.index(1, 2), 5u); // column-major: j * rows + i
}

/// Block scales across blocks: a 1 x 300 by 300 x 130 product of ones
/// has three blocks along K (128, 128, 44 deep) and two along N.
TEST(Host, ReferenceAppliesBlockScales) {
  HostMatrix a(1, 300, Layout::Row), b(300, 130, Layout::Col),
      c(1, 130, Layout::Row);
  std::fill(a.data.begin(), a.data.end(), 1.0);
  std::fill(b.data.begin(), b.data.end(), 1.0);
  Epilogue block;
  block.blockScales = true;
  block.scaleA = {1.0f, 2.0f, 4.0f};          // M x 3, M-major
  block.scaleB = {1.0f, 1.0f, 1.0f, 0.5f, 0.5f, 0.5f}; // 2 x 3, K's contiguous
  // Columns 0..127: 128 + 2 * 128 + 4 * 44; 128 and 129 half that.
  double first = 128 + 2 * 128 + 4 * 44;
  for (int64_t j = 0; j < 130; ++j)
    c.data[size_t(j)] = j < 128 ? first : first / 2;
  Sample all = chooseSample(1, 130, 300, /*fullLimit=*/1 << 20, 0, 1);
  EXPECT_EQ(compareWithReference(a, b, c, all, block).relFrobenius, 0.0);
  c.data[129] = first;
  EXPECT_GT(compareWithReference(a, b, c, all, block).maxAbs, 0.0);
}

/// A small GEMM with an exact answer: entries are small integers.
TEST(Host, ReferenceMatchesExactProduct) {
  HostMatrix a(2, 3, Layout::Row), b(3, 2, Layout::Col), c(2, 2, Layout::Row);
  a.data = {1, 2, 3, 4, 5, 6};
  b.data = {7, 9, 11, 8, 10, 12}; // column-major [[7, 8], [9, 10], [11, 12]]
  c.data = {58, 64, 139, 154};
  Sample all = chooseSample(2, 2, 3, /*fullLimit=*/1 << 20, 0, 1);
  EXPECT_EQ(all.rows.size(), 4u);
  Comparison exact = compareWithReference(a, b, c, all);
  EXPECT_EQ(exact.relFrobenius, 0.0);
  EXPECT_EQ(exact.nonFinite, 0);

  c.data[3] = 155; // one entry off by one
  Comparison off = compareWithReference(a, b, c, all);
  EXPECT_NEAR(off.relFrobenius,
              1.0 / std::sqrt(58. * 58 + 64 * 64 + 139 * 139 + 154 * 154),
              1e-12);
  EXPECT_EQ(off.maxAbs, 1.0);

  // alpha * A * B + beta * C0.
  HostMatrix c0(2, 2, Layout::Row);
  c0.data = {1, 2, 3, 4};
  c.data = {2 * 58 - 1, 2 * 64 - 2, 2 * 139 - 3, 2 * 154 - 4};
  Epilogue alphaBeta;
  alphaBeta.alpha = 2;
  alphaBeta.beta = -1;
  alphaBeta.c0 = &c0;
  Comparison scaled = compareWithReference(a, b, c, all, alphaBeta);
  EXPECT_EQ(scaled.relFrobenius, 0.0);

  // FP8's scales first: rowwise, scale_a[i] * scale_b[j] * (A * B).
  Epilogue rowwise;
  rowwise.scaleA = {0.5f, 2.0f};
  rowwise.scaleB = {4.0f, 0.25f};
  c.data = {0.5f * 4 * 58, 0.5f * 0.25f * 64, 2 * 4 * 139, 2 * 0.25f * 154};
  EXPECT_EQ(compareWithReference(a, b, c, all, rowwise).relFrobenius, 0.0);

  // Block scales: each 128-deep part of the sum times A's scale of its
  // row and B's of its column's block (all of K and N in block 0 here).
  Epilogue block;
  block.blockScales = true;
  block.scaleA = {0.5f, 2.0f};
  block.scaleB = {4.0f};
  c.data = {0.5f * 4 * 58, 0.5f * 4 * 64, 2 * 4 * 139, 2 * 4 * 154};
  EXPECT_EQ(compareWithReference(a, b, c, all, block).relFrobenius, 0.0);

  // Then + bias[col] and ReLU: [[58 - 100, 64 + 1], [139 - 100, 154 + 1]].
  HostMatrix bias(1, 2, Layout::Row);
  bias.data = {-100, 1};
  Epilogue biased;
  biased.bias = &bias;
  biased.activation = "relu";
  c.data = {0, 65, 39, 155};
  EXPECT_EQ(compareWithReference(a, b, c, all, biased).relFrobenius, 0.0);
  HostMatrix product(2, 2, Layout::Row);
  product.data = {58, 64, 139, 154};
  finishOnHost(product, biased);
  EXPECT_EQ(product.data, c.data);

  // Then + R, after the activation: relu(-42) + R is R.
  HostMatrix residual(2, 2, Layout::Row);
  residual.data = {3, -5, 0.5f, 7};
  biased.residual = &residual;
  c.data = {3, 60, 39.5f, 162};
  EXPECT_EQ(compareWithReference(a, b, c, all, biased).relFrobenius, 0.0);
  product.data = {58, 64, 139, 154};
  finishOnHost(product, biased);
  EXPECT_EQ(product.data, c.data);
  Epilogue residualAlone;
  residualAlone.residual = &residual;
  product.data = {58, 64, 139, 154};
  finishOnHost(product, residualAlone);
  EXPECT_EQ(product.data, (std::vector<float>{61, 59, 139.5f, 161}));

  // cuBLAS's A * B alone, finished where 16- and 32-bit inputs have
  // scales: rowwise, then alpha and beta * C0 = [[1, 2], [3, 4]].
  Epilogue scaledOnHost;
  scaledOnHost.productOnly = true;
  scaledOnHost.scaleA = {0.5f, 2.0f};
  scaledOnHost.scaleB = {4.0f, 0.25f};
  scaledOnHost.alpha = 2;
  scaledOnHost.beta = -1;
  scaledOnHost.c0 = &c0;
  product.data = {58, 64, 139, 154};
  finishOnHost(product, scaledOnHost);
  EXPECT_EQ(product.data, (std::vector<float>{231, 14, 2221, 150}));

  c.data[0] = NAN;
  Comparison nan = compareWithReference(a, b, c, all);
  EXPECT_EQ(nan.nonFinite, 1);
  EXPECT_TRUE(std::isnan(nan.relFrobenius));
}

TEST(Host, SamplesIncludeTheCorners) {
  Sample s = chooseSample(1000, 3000, 4000, /*fullLimit=*/0, 16, 3);
  ASSERT_EQ(s.rows.size(), 20u);
  EXPECT_EQ(s.rows[3], 999);
  EXPECT_EQ(s.cols[3], 2999);
  for (size_t i = 0; i < s.rows.size(); ++i) {
    EXPECT_LT(s.rows[i], 1000);
    EXPECT_LT(s.cols[i], 3000);
  }
}

TEST(Host, CompareMatricesCountsNonFinite) {
  HostMatrix x(1, 3, Layout::Row), y(1, 3, Layout::Row);
  x.data = {1, 2, 2};
  y.data = {1, 2, 3};
  EXPECT_NEAR(compareMatrices(x, y).relFrobenius, 1 / std::sqrt(14.0), 1e-12);
  x.data[0] = INFINITY;
  EXPECT_EQ(compareMatrices(x, y).nonFinite, 1);
}

/// Column-major sgemm on the host, as cuBLAS defines it.
static void hostColumnMajorGemm(const ColumnMajorCall &c, const float *x,
                                const float *y, float *out) {
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int l = 0; l < c.k; ++l) {
        float xv = c.transX ? x[l + i * c.ldx] : x[i + l * c.ldx];
        float yv = c.transY ? y[j + l * c.ldy] : y[l + j * c.ldy];
        sum += double(xv) * yv;
      }
      out[i + j * c.ldc] = float(sum);
    }
}

TEST(Cublas, TakesTheTypesOfItsGemms) {
  auto takes = [](DType a, DType b, DType c, std::string &why) {
    Problem p;
    p.a = a, p.b = b, p.c = c;
    why.clear();
    return Cublas::takes(p, why);
  };
  std::string why;
  EXPECT_TRUE(takes(DType::F16, DType::F16, DType::F16, why)) << why;
  EXPECT_TRUE(takes(DType::F16, DType::F16, DType::F32, why)) << why;
  EXPECT_TRUE(takes(DType::BF16, DType::BF16, DType::BF16, why)) << why;
  EXPECT_TRUE(takes(DType::BF16, DType::BF16, DType::F32, why)) << why;
  EXPECT_TRUE(takes(DType::F32, DType::F32, DType::F32, why)) << why;
  // gemm-bench printed no result where cuBLAS refused f16 inputs with a
  // bf16 C: such a case now skips cuBLAS and checks against fp64.
  EXPECT_FALSE(takes(DType::F16, DType::F16, DType::BF16, why));
  EXPECT_EQ(why, "cuBLAS writes no bf16 C from f16 inputs");
  EXPECT_FALSE(takes(DType::BF16, DType::BF16, DType::F16, why));
  EXPECT_EQ(why, "cuBLAS writes no f16 C from bf16 inputs");
  EXPECT_FALSE(takes(DType::F16, DType::F16, DType::E4M3, why));
  EXPECT_EQ(why, "cuBLAS writes no e4m3 C from f16 inputs");
  EXPECT_FALSE(takes(DType::F32, DType::F32, DType::F16, why));
  EXPECT_FALSE(takes(DType::F16, DType::BF16, DType::F32, why));
  EXPECT_EQ(why, "cuBLAS takes no f16 x bf16 product");
  EXPECT_FALSE(takes(DType::E4M3, DType::E4M3, DType::BF16, why));
  EXPECT_EQ(why, "cuBLAS's GEMMs take no e4m3 inputs");
}

TEST(CublasLt, TakesAnE4m3CAsTorchWritesOne) {
  // An FP8 D (cuBLASLt's D scale as C's): e4m3 x e4m3, per-tensor scales,
  // no bias, as torch._scaled_mm writes one.
  Problem p;
  p.m = p.n = p.k = 64;
  p.a = p.b = p.c = DType::E4M3;
  p.bLayout = Layout::Col;
  p.scales = "tensor";
  p.outputScale = true;
  std::string why;
  EXPECT_TRUE(CublasLt::takes(p, why)) << why;
  p.scales = "rowwise";
  EXPECT_FALSE(CublasLt::takes(p, why));
  EXPECT_EQ(why, "cuBLASLt baseline writes an e4m3 C with per-tensor scales "
                 "and no bias");
  p.scales = "tensor";
  p.bias = "col";
  EXPECT_FALSE(CublasLt::takes(p, why));
  p.bias.clear();
  p.c = DType::E5M2;
  EXPECT_FALSE(CublasLt::takes(p, why));
  EXPECT_EQ(why, "cuBLASLt baseline writes an f32, f16, bf16 or e4m3 C");
}

TEST(Cublas, EveryLayoutMapsOntoColumnMajor) {
  // Every layout, with dense and with padded leading dimensions.
  for (int layouts = 0; layouts < 16; ++layouts) {
    Problem p;
    p.m = 5, p.n = 7, p.k = 3;
    p.aLayout = layouts & 1 ? Layout::Col : Layout::Row;
    p.bLayout = layouts & 2 ? Layout::Col : Layout::Row;
    p.cLayout = layouts & 4 ? Layout::Col : Layout::Row;
    if (layouts & 8) {
      p.lda = p.ldOfA() + 3;
      p.ldb = p.ldOfB() + 1;
      p.ldc = p.ldOfC() + 2;
    }
    HostMatrix a(p.m, p.k, p.aLayout, DType::F32, p.ldOfA()),
        b(p.k, p.n, p.bLayout, DType::F32, p.ldOfB()),
        c(p.m, p.n, p.cLayout, DType::F32, p.ldOfC());
    fillRandom(a, 11);
    fillRandom(b, 12);
    ColumnMajorCall call = mapToColumnMajor(p);
    hostColumnMajorGemm(call, call.swap ? b.data.data() : a.data.data(),
                        call.swap ? a.data.data() : b.data.data(),
                        c.data.data());
    Sample all = chooseSample(p.m, p.n, p.k, 1 << 20, 0, 1);
    EXPECT_LT(compareWithReference(a, b, c, all).relFrobenius, 1e-7)
        << "layouts " << toString(p.aLayout) << toString(p.bLayout)
        << toString(p.cLayout) << (layouts & 8 ? " padded" : "");
  }
}

static bool parse(std::vector<std::string> args, BenchOptions &o,
                  std::string &error) {
  o = BenchOptions();
  return parseBenchOptions(args, o, error);
}

TEST(BenchOptions, ParsesEveryOption) {
  BenchOptions o;
  std::string error;
  ASSERT_TRUE(parse({"a.ptx",       "--size",      "4096,128x256x64",
                     "--dtype",     "f16",         "--layout",
                     "rcr",         "--runs",      "50",
                     "--warmup",    "2",           "--flush-l2",
                     "--seed",      "9",           "--samples",
                     "64",          "--tolerance", "1e-3",
                     "--opt-level", "3",           "--alpha",
                     "2",           "--beta",      "-0.5",
                     "--bias",      "row",         "--relu",
                     "--csv",       "out.csv",     "--json",
                     "out.json",    "b.ptx"},
                    o, error))
      << error;
  ASSERT_EQ(o.kernels.size(), 2u);
  ASSERT_EQ(o.sizes.size(), 2u);
  EXPECT_EQ(o.sizes[0].k, 4096);
  EXPECT_EQ(o.sizes[1].n, 256);
  EXPECT_EQ(o.type, DType::F16);
  EXPECT_EQ(o.cType, DType::F16); // C follows A and B unless --ctype
  EXPECT_EQ(o.bLayout, Layout::Col);
  EXPECT_EQ(o.runs, 50);
  EXPECT_TRUE(o.flushL2);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.tolerance, 1e-3);
  EXPECT_EQ(o.alpha, 2.0f);
  EXPECT_EQ(o.beta, -0.5f);
  EXPECT_EQ(o.bias, "row");
  EXPECT_EQ(o.activation, "relu");
  EXPECT_EQ(o.json, "out.json");

  ASSERT_TRUE(parse({"a.ptx", "--sweep", "random", "--count", "300",
                     "--max-size", "2000", "--lda", "4096", "--ldc", "8"},
                    o, error))
      << error;
  EXPECT_TRUE(o.sweep);
  EXPECT_EQ(o.count, 300);
  EXPECT_EQ(o.maxSize, 2000);
  EXPECT_EQ(o.lda, 4096);
  EXPECT_EQ(o.ldb, 0);
  EXPECT_EQ(o.ldc, 8);

  ASSERT_TRUE(
      parse({"--size", "64", "--dtype", "bf16", "--ctype", "f32"}, o, error));
  EXPECT_EQ(o.cType, DType::F32);
  ASSERT_TRUE(parse({"--size", "64", "--math", "tf32"}, o, error));
  EXPECT_EQ(o.math, MathMode::TF32);
}

TEST(BenchOptions, RejectsBadUsage) {
  BenchOptions o;
  std::string error;
  EXPECT_FALSE(parse({"--size", "0"}, o, error));
  EXPECT_EQ(error, "bad size '0' (expected N, MxNxK or a list)");
  EXPECT_FALSE(parse({"--size", "1x2"}, o, error));
  EXPECT_FALSE(parse({"--runs", "0", "a.ptx"}, o, error));
  EXPECT_EQ(error, "bad value '0' for --runs");
  EXPECT_FALSE(parse({"--layout", "rrx", "a.ptx"}, o, error));
  EXPECT_FALSE(parse({"--dtype", "f64", "a.ptx"}, o, error));
  EXPECT_FALSE(parse({"--bogus"}, o, error));
  EXPECT_EQ(error, "unknown option '--bogus'");
  EXPECT_FALSE(parse({"--no-cublas"}, o, error));
  EXPECT_EQ(error, "nothing to run: no kernel given and --no-cublas");
  EXPECT_FALSE(parse({}, o, error));
  EXPECT_EQ(error, "cuBLAS alone needs --size");
  EXPECT_FALSE(
      parse({"--size", "64", "--dtype", "f16", "--math", "tf32"}, o, error));
  EXPECT_FALSE(parse({"a.ptx", "--runs"}, o, error));
  EXPECT_EQ(error, "--runs needs a value");
  EXPECT_FALSE(parse({"a.ptx", "--sweep", "grid"}, o, error));
  EXPECT_EQ(error, "bad sweep 'grid' (random)");
  EXPECT_FALSE(parse({"--sweep", "random", "--size", "64"}, o, error));
  EXPECT_EQ(error, "--sweep runs kernels: give at least one");
  EXPECT_FALSE(
      parse({"a.ptx", "--size", "64", "--results", "r.tsv"}, o, error));
  EXPECT_EQ(error, "--results needs --shapes");
  EXPECT_FALSE(parse({"a.ptx", "--size", "64", "--budget", "0"}, o, error));
  EXPECT_EQ(error, "--budget needs a positive number of seconds, got '0'");
  EXPECT_FALSE(parse({"a.ptx", "--size", "64", "--budget", "1x"}, o, error));
  ASSERT_TRUE(parse(
      {"a.ptx", "--shapes", "s.txt", "--results", "r.tsv", "--budget", "120.5"},
      o, error))
      << error;
  EXPECT_EQ(o.resultsFile, "r.tsv");
  EXPECT_EQ(o.budget, 120.5);
  EXPECT_FALSE(parse({"a.ptx", "--size", "64", "--autotune", "0"}, o, error));
  EXPECT_EQ(error, "bad value '0' for --autotune");
  ASSERT_TRUE(parse({"a.ptx", "--size", "64", "--autotune", "4"}, o, error))
      << error;
  EXPECT_EQ(o.autotune, 4);
}

/// A ranking as rankVariants gives it: `seconds` of the runnable
/// variants (indices 0, 1, ...), then `refused` more that cannot run.
static std::vector<RankedVariant> rankingOf(std::vector<double> seconds,
                                            int refused = 0) {
  std::vector<RankedVariant> ranking;
  for (double s : seconds) {
    RankedVariant r;
    r.index = ranking.size();
    r.seconds = s;
    r.splits = 1 + int64_t(r.index);
    ranking.push_back(r);
  }
  for (int i = 0; i < refused; ++i) {
    RankedVariant r;
    r.index = ranking.size();
    r.whyNot = "its tile is too wide";
    ranking.push_back(r);
  }
  return ranking;
}

TEST(Autotune, CandidatesAreTheModelsFirstWithinAFactor) {
  AutotuneOptions options; // 3 candidates within 1.5x
  std::vector<MeasuredVariant> c =
      autotuneCandidates(rankingOf({1e-5, 1.2e-5, 1.4e-5, 1.45e-5}), options);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2].index, 2u);
  EXPECT_EQ(c[2].splits, 3); // each at the model's splits
  EXPECT_DOUBLE_EQ(c[0].predictedMs, 0.01);
  EXPECT_EQ(c[0].measuredMs, 0);
  // Past 1.5x the first's prediction, or a variant that cannot run it:
  // not measured.
  EXPECT_EQ(
      autotuneCandidates(rankingOf({1e-5, 1.6e-5, 1.7e-5}), options).size(),
      1u);
  EXPECT_EQ(autotuneCandidates(rankingOf({1e-5, 1.1e-5}, 2), options).size(),
            2u);
  EXPECT_TRUE(autotuneCandidates(rankingOf({}, 2), options).empty());
  options.candidates = 5;
  options.within = 10;
  EXPECT_EQ(
      autotuneCandidates(rankingOf({1, 2, 3, 4, 5, 6, 7}), options).size(), 5u);
}

TEST(Autotune, AnOverrideIsTakenUnmeasured) {
  std::vector<RankedVariant> ranking = rankingOf({2e-5, 1e-5, 1.1e-5});
  ranking[0].overrides = true; // a `when` that holds
  std::vector<MeasuredVariant> c = autotuneCandidates(ranking, {});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].index, 0u);
  EXPECT_EQ(&fastestMeasured(c), &c[0]);
}

TEST(Autotune, AnotherCandidateDisplacesTheModelsFirstBeyondTheMargin) {
  std::vector<MeasuredVariant> c =
      autotuneCandidates(rankingOf({1e-5, 1.1e-5, 1.2e-5}), {});
  ASSERT_EQ(c.size(), 3u);
  c[0].measuredMs = 0.0100;
  c[1].measuredMs = 0.0099; // 1% faster: noise, the model's order stands
  c[2].measuredMs = 0.0120;
  EXPECT_EQ(fastestMeasured(c).index, 0u);
  c[2].measuredMs = 0.0097; // 3% faster
  EXPECT_EQ(fastestMeasured(c).index, 2u);
  EXPECT_EQ(fastestMeasured(c, /*margin=*/0.05).index, 0u);
  // None measured (one candidate): the model's first.
  for (MeasuredVariant &m : c)
    m.measuredMs = 0;
  EXPECT_EQ(fastestMeasured(c).index, 0u);
}

TEST(BenchOptions, TolerancesFollowPrecision) {
  // At K = 1 the f32 sum adds 2 u = 2^-23 to the rounding of the output.
  double u2 = std::ldexp(1.0, -23);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F32, DType::F32, MathMode::Exact, 1),
                   1e-5 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F32, DType::F32, MathMode::TF32, 1),
                   5e-3 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F16, DType::F16, MathMode::Exact, 1),
                   2e-3 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::BF16, DType::BF16, MathMode::Exact, 1),
                   1e-2 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::BF16, DType::F32, MathMode::Exact, 1),
                   1e-5 + u2);
  // FP8's products are summed in about 14 mantissa bits first: at K = 4096,
  // 2 x 2^-14 x 64.
  EXPECT_DOUBLE_EQ(toleranceFor(DType::E4M3, DType::F32, MathMode::Exact, 4096),
                   1e-4 + std::ldexp(1.0, -7));
  EXPECT_DOUBLE_EQ(
      toleranceFor(DType::E5M2, DType::BF16, MathMode::Exact, 4096),
      1e-2 + std::ldexp(1.0, -7));
}

TEST(BenchOptions, TolerancesGrowWithK) {
  // 2 u sqrt(K): 7.6e-6 more at K = 4096. At K = 500,000 an f32 kernel
  // summing K products in sequence was measured at 1.2e-5 against fp64
  // (cuBLAS, summing in parts, 1.6e-6): it passes, with room.
  EXPECT_NEAR(toleranceFor(DType::F32, DType::F32, MathMode::Exact, 4096),
              1e-5 + 7.63e-6, 1e-8);
  double longK = toleranceFor(DType::F32, DType::F32, MathMode::Exact, 500000);
  EXPECT_GT(longK, 1.2e-5 * 4);
  EXPECT_LT(longK, 1e-4);
}

TEST(BenchOptions, TakesAShapesFile) {
  std::string error;
  BenchOptions o;
  EXPECT_TRUE(parseBenchOptions(
      {"--shapes", "s.txt", "--shape-summary", "s.csv", "k.ptx"}, o, error))
      << error;
  EXPECT_EQ(o.shapesFile, "s.txt");
  EXPECT_EQ(o.shapeSummary, "s.csv");
  BenchOptions bad;
  EXPECT_FALSE(parseBenchOptions({"--shapes", "s.txt", "--size", "64", "k.ptx"},
                                 bad, error));
  EXPECT_EQ(error, "--shapes gives the problems: not with --size, --sweep "
                   "or --lda/--ldb/--ldc");
  BenchOptions lone;
  EXPECT_FALSE(
      parseBenchOptions({"--shape-summary", "s.csv", "k.ptx"}, lone, error));
  EXPECT_EQ(error, "--shape-summary needs --shapes");
}

TEST(BenchOptions, RoutesTokensToExperts) {
  // Balanced: as evenly as they divide.
  std::vector<int64_t> even = routeTokens(10, 4, "balanced", 1);
  EXPECT_EQ(even, (std::vector<int64_t>{3, 3, 2, 2}));
  // Zipf: every token routed, the rarest experts left empty where tokens
  // are few, the same sizes for the same seed.
  for (int64_t tokens : {0, 1, 100, 2048}) {
    std::vector<int64_t> skewed = routeTokens(tokens, 64, "zipf", 7);
    ASSERT_EQ(skewed.size(), 64u);
    int64_t sum = 0;
    for (int64_t size : skewed) {
      EXPECT_GE(size, 0);
      sum += size;
    }
    EXPECT_EQ(sum, tokens);
    EXPECT_EQ(skewed, routeTokens(tokens, 64, "zipf", 7));
  }
  std::vector<int64_t> few = routeTokens(100, 64, "zipf", 7);
  EXPECT_GT(std::count(few.begin(), few.end(), 0), 10);
  EXPECT_GT(*std::max_element(few.begin(), few.end()), 10);
}

TEST(BenchOptions, TakesAGroupedShapesFile) {
  std::vector<GroupedShape> shapes;
  std::string error;
  ASSERT_TRUE(parseGroupedShapes(
      "# Mixtral\n"
      "groups=8 tokens=4096 n=14336 k=4096 routing=zipf name=up\n"
      "\n"
      "groups=64 tokens=512 n=1408 k=2048  # balanced by default\n",
      shapes, error))
      << error;
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].groups, 8);
  EXPECT_EQ(shapes[0].tokens, 4096);
  EXPECT_EQ(shapes[0].n, 14336);
  EXPECT_EQ(shapes[0].routing, "zipf");
  EXPECT_EQ(shapes[0].name, "up");
  EXPECT_EQ(shapes[1].routing, "balanced");
  shapes.clear();
  EXPECT_FALSE(parseGroupedShapes("groups=8 tokens=1 n=2 k=3 routing=x\n",
                                  shapes, error));
  EXPECT_NE(error.find("line 1: expected groups=G"), std::string::npos)
      << error;
  EXPECT_FALSE(parseGroupedShapes("groups=8 tokens=1 n=2\n", shapes, error));
  EXPECT_EQ(error, "line 1: groups, tokens, n and k are all needed");
  EXPECT_FALSE(parseGroupedShapes("groups=0 tokens=1 n=2 k=3\n", shapes,
                                  error));
  std::vector<std::string> args = {"--grouped", "moe.txt", "k.ptx"};
  BenchOptions o;
  ASSERT_TRUE(parseBenchOptions(args, o, error)) << error;
  EXPECT_EQ(o.groupedFile, "moe.txt");
}

TEST(BenchOptions, ExplainNeedsKernelsAndProblems) {
  std::string error;
  BenchOptions o;
  EXPECT_TRUE(parseBenchOptions(
      {"--explain", "--size", "4096", "--device-model", "h100", "f.ptx"}, o,
      error))
      << error;
  EXPECT_TRUE(o.explain);
  EXPECT_DOUBLE_EQ(o.deviceModel.memoryBandwidth, 3.35e12);
  BenchOptions noSize;
  EXPECT_FALSE(parseBenchOptions({"--explain", "f.ptx"}, noSize, error));
  BenchOptions badModel;
  EXPECT_FALSE(parseBenchOptions(
      {"--explain", "--size", "64", "--device-model", "v100", "f.ptx"},
      badModel, error));
  EXPECT_EQ(error, "bad device model 'v100' (h200, h100 or a100)");
}
