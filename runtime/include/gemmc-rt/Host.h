//===- Host.h - host matrices, the fp64 reference and the comparison ----===//

#ifndef GEMMC_RT_HOST_H
#define GEMMC_RT_HOST_H

#include "gemmc-rt/Contract.h"

#include <cstdint>
#include <vector>

namespace gemmc::rt {

/// A rows x cols matrix stored in `layout` with leading dimension `ld`
/// (0: dense, cols for row-major and rows for column-major; the padding
/// is stored too). Values are kept as floats that are exactly
/// representable in `type`; `pack` gives the bytes the device sees.
struct HostMatrix {
  int64_t rows = 0, cols = 0;
  Layout layout = Layout::Row;
  DType type = DType::F32;
  int64_t ld = 0;
  std::vector<float> data;

  HostMatrix(int64_t rows, int64_t cols, Layout layout, DType type = DType::F32,
             int64_t ld = 0);

  float at(int64_t i, int64_t j) const { return data[index(i, j)]; }
  size_t index(int64_t i, int64_t j) const {
    return layout == Layout::Row ? size_t(i) * ld + j : size_t(j) * ld + i;
  }
  size_t bytes() const { return data.size() * sizeOf(type); }

  /// The device representation: f32, IEEE half, bfloat16, or FP8.
  std::vector<unsigned char> pack() const;
  /// Reads the device representation back (for C).
  void unpack(const std::vector<unsigned char> &bytes);
};

/// Rounds to the nearest value of `type` (ties to even).
float roundTo(DType type, float value);
uint16_t toHalfBits(float value);
uint16_t toBF16Bits(float value);
float fromHalfBits(uint16_t bits);
float fromBF16Bits(uint16_t bits);
/// FP8 (`type` E4M3 or E5M2): the nearest value (ties to even), saturated
/// at the largest finite one (448 and 57344) as the kernels' casts
/// (`satfinite`) do; NaN stays NaN. And back.
uint8_t toFloat8Bits(DType type, float value);
float fromFloat8Bits(DType type, uint8_t bits);

/// Fills `m` with values uniform in [-1, 1) from a generator seeded by
/// `seed`, rounded to the matrix's type.
void fillRandom(HostMatrix &m, uint64_t seed);

/// Relative Frobenius norm of `x - y` over all entries, ||x - y|| / ||y||,
/// and the count of entries of x that are not finite.
struct Difference {
  double relFrobenius = 0;
  int64_t nonFinite = 0;
};
Difference compareMatrices(const HostMatrix &x, const HostMatrix &y);

/// The entries of C compared against the fp64 reference.
struct Sample {
  std::vector<int64_t> rows, cols;
};

/// Every entry when the reference is cheap enough (`m*n*k <= fullLimit`),
/// otherwise `count` entries drawn with `seed`, always including the four
/// corners.
Sample chooseSample(int64_t m, int64_t n, int64_t k, int64_t fullLimit,
                    int64_t count, uint64_t seed);

struct Comparison {
  double relFrobenius = 0; ///< ||C - ref||_F / ||ref||_F over the sample.
  double maxAbs = 0;
  int64_t nonFinite = 0; ///< NaN or Inf in C: unwritten or broken.
  int64_t entries = 0;
};

/// `C = alpha * A * B + beta * C0`: the scalars and C's values before the
/// kernel (needed when beta is not 0).
struct Epilogue {
  double alpha = 1, beta = 0;
  const HostMatrix *c0 = nullptr;
  /// Then plus bias[i] (`biasPerRow`, an M x 1 matrix) or bias[j] (1 x N),
  /// then ReLU.
  const HostMatrix *bias = nullptr;
  bool biasPerRow = false;
  /// The activation: "relu", "gelu", "gelu-tanh", "silu" or none.
  std::string activation;
  /// Then plus R[i, j] (`residual = add`), or nothing where null.
  const HostMatrix *residual = nullptr;
  /// FP8's scales, applied to A * B first: one each (size 1), or one per
  /// row of A (M) and per column of B (N); empty: none. With
  /// `blockScales`, one per block of A and of B (contract::scaleCount's
  /// "block"), applied to each 128-deep part of the products' sum.
  std::vector<float> scaleA, scaleB;
  bool blockScales = false;
  /// finishOnHost's input is A * B alone (cuBLAS's, where the scales of
  /// 16- or 32-bit inputs are not its own): the scales, alpha and beta * C0
  /// come first.
  bool productOnly = false;
  /// C's scale (`output-scale`), by which the finished value is
  /// multiplied last; 1 without.
  double outputScale = 1;

  /// The scales' product at (i, j), 1 without scales or with block scales.
  double scale(int64_t i, int64_t j) const {
    if (scaleA.empty() || blockScales)
      return 1;
    return double(scaleA[scaleA.size() == 1 ? 0 : i]) *
           double(scaleB[scaleB.size() == 1 ? 0 : j]);
  }
  /// The activation of `value`, in fp64.
  double activate(double value) const;
  double finish(double value, int64_t i, int64_t j) const {
    if (bias)
      value += biasPerRow ? bias->at(i, 0) : bias->at(0, j);
    value = activate(value);
    if (residual)
      value += residual->at(i, j);
    return value * outputScale;
  }
};

/// Adds the bias, applies the activation and adds R to `c` in place (with
/// `productOnly`, first the scales, alpha and beta * C0), rounding to its
/// type (what cuBLAS, which has no such epilogue, leaves to do).
void finishOnHost(HostMatrix &c, const Epilogue &epilogue);

/// alpha * sum_k A[i,k] * B[k,j] + beta * C0[i,j] (then the bias and
/// ReLU) in fp64 at each sampled entry, using all host threads: what
/// every kernel run on the same inputs is compared with.
std::vector<double> referenceAt(const HostMatrix &a, const HostMatrix &b,
                                const Sample &sample,
                                const Epilogue &epilogue = {});

/// Compares C with `reference` (referenceAt's) at the sampled entries.
Comparison compareAtSamples(const HostMatrix &c, const Sample &sample,
                            const std::vector<double> &reference);

/// compareAtSamples against referenceAt's values.
Comparison compareWithReference(const HostMatrix &a, const HostMatrix &b,
                                const HostMatrix &c, const Sample &sample,
                                const Epilogue &epilogue = {});

} // namespace gemmc::rt

#endif // GEMMC_RT_HOST_H
