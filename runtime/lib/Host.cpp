//===- Host.cpp - host matrices, the fp64 reference and the comparison --===//

#include "gemmc-rt/Host.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

using namespace gemmc::rt;

HostMatrix::HostMatrix(int64_t rows, int64_t cols, Layout layout, DType type,
                       int64_t ld)
    : rows(rows), cols(cols), layout(layout), type(type),
      ld(ld                      ? ld
         : layout == Layout::Row ? cols
                                 : rows),
      data(size_t(this->ld) * (layout == Layout::Row ? rows : cols)) {}

uint16_t gemmc::rt::toBF16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN stays NaN
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1); // round to nearest even
  return uint16_t(bits >> 16);
}

float gemmc::rt::fromBF16Bits(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t gemmc::rt::toHalfBits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u)
    return uint16_t(sign | 0x7e00u); // NaN
  if (absx >= 0x477ff000u)           // rounds to >= 65520: infinity
    return uint16_t(sign | 0x7c00u);
  if (absx < 0x38800000u) { // subnormal half (or zero)
    float magnitude;
    std::memcpy(&magnitude, &absx, 4);
    // Scale so that the half subnormal step (2^-24) is one unit; rint
    // rounds to nearest even.
    return uint16_t(sign | uint32_t(std::nearbyint(magnitude * 16777216.0f)));
  }
  uint32_t mantissa = absx & 0x7fffffu;
  uint32_t exponent = (absx >> 23) - 127 + 15;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return uint16_t(sign | half);
}

float gemmc::rt::fromHalfBits(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  float value;
  if (exponent == 0) {
    value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  uint32_t out = exponent == 31
                     ? sign | 0x7f800000u | (mantissa << 13)
                     : sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  std::memcpy(&value, &out, 4);
  return value;
}

/// The value of FP8 code `bits` (sign, then 4 exponent and 3 mantissa bits
/// for e4m3, bias 7, no infinities, NaN S.1111.111; 5 and 2 for e5m2, bias
/// 15, IEEE-like).
float gemmc::rt::fromFloat8Bits(DType type, uint8_t bits) {
  bool e4m3 = type == DType::E4M3;
  int mantissaBits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int exponentMask = e4m3 ? 15 : 31;
  int exponent = (bits >> mantissaBits) & exponentMask;
  int mantissa = bits & ((1 << mantissaBits) - 1);
  float magnitude;
  if (e4m3 && exponent == 15 && mantissa == 7)
    magnitude = NAN;
  else if (!e4m3 && exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), 1 - bias - mantissaBits);
  else
    magnitude = std::ldexp(float((1 << mantissaBits) + mantissa),
                           exponent - bias - mantissaBits);
  return bits & 0x80 ? -magnitude : magnitude;
}

uint8_t gemmc::rt::toFloat8Bits(DType type, float value) {
  bool e4m3 = type == DType::E4M3;
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value))
    return uint8_t(sign | (e4m3 ? 0x7f : 0x7e));
  // The positive codes run in the order of their values: the largest
  // finite one is 0x7e (448) or 0x7b (57344). Find the nearest code by
  // bisection over them, a tie to the even code.
  uint8_t hi = e4m3 ? 0x7e : 0x7b;
  float magnitude = std::fabs(value);
  if (magnitude >= fromFloat8Bits(type, hi))
    return uint8_t(sign | hi);
  uint8_t lo = 0;
  while (hi - lo > 1) {
    uint8_t mid = uint8_t((lo + hi) / 2);
    (fromFloat8Bits(type, mid) <= magnitude ? lo : hi) = mid;
  }
  float below = magnitude - fromFloat8Bits(type, lo);
  float above = fromFloat8Bits(type, hi) - magnitude;
  uint8_t code = below < above ? lo : above < below ? hi : (lo & 1 ? hi : lo);
  return uint8_t(sign | code);
}

double Epilogue::activate(double x) const {
  // ReLU keeps NaN, as the kernels' max.NaN does.
  if (activation == "relu")
    return x < 0 ? 0.0 : x;
  if (activation == "gelu")
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (activation == "gelu-tanh")
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  if (activation == "silu")
    return x / (1 + std::exp(-x));
  return x;
}

float gemmc::rt::roundTo(DType type, float value) {
  switch (type) {
  case DType::F32:
    return value;
  case DType::F16:
    return fromHalfBits(toHalfBits(value));
  case DType::BF16:
    return fromBF16Bits(toBF16Bits(value));
  case DType::E4M3:
  case DType::E5M2:
    return fromFloat8Bits(type, toFloat8Bits(type, value));
  }
  return value;
}

/// Runs `body(begin, end)` over [0, count) in chunks of `chunk`, on all
/// host threads. The chunks do not depend on the number of threads, so
/// neither does a result assembled chunk by chunk.
template <typename Body>
static void forEachChunk(size_t count, size_t chunk, Body body) {
  size_t chunks = (count + chunk - 1) / chunk;
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  workers = unsigned(std::min<size_t>(workers, chunks));
  if (workers <= 1) {
    for (size_t c = 0; c < chunks; ++c)
      body(c, c * chunk, std::min(count, (c + 1) * chunk));
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (size_t c; (c = next++) < chunks;)
        body(c, c * chunk, std::min(count, (c + 1) * chunk));
    });
  for (std::thread &t : threads)
    t.join();
}

/// Elements a chunk of host work covers.
static constexpr size_t kChunk = size_t(1) << 20;

std::vector<unsigned char> HostMatrix::pack() const {
  std::vector<unsigned char> bytes(this->bytes());
  if (type == DType::F32) {
    std::memcpy(bytes.data(), data.data(), bytes.size());
    return bytes;
  }
  if (sizeOf(type) == 1) {
    forEachChunk(data.size(), kChunk, [&](size_t, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i)
        bytes[i] = toFloat8Bits(type, data[i]);
    });
    return bytes;
  }
  forEachChunk(data.size(), kChunk, [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      uint16_t bits =
          type == DType::F16 ? toHalfBits(data[i]) : toBF16Bits(data[i]);
      std::memcpy(&bytes[2 * i], &bits, 2);
    }
  });
  return bytes;
}

void HostMatrix::unpack(const std::vector<unsigned char> &bytes) {
  if (type == DType::F32) {
    std::memcpy(data.data(), bytes.data(), data.size() * 4);
    return;
  }
  if (sizeOf(type) == 1) {
    forEachChunk(data.size(), kChunk, [&](size_t, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i)
        data[i] = fromFloat8Bits(type, bytes[i]);
    });
    return;
  }
  forEachChunk(data.size(), kChunk, [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      uint16_t bits;
      std::memcpy(&bits, &bytes[2 * i], 2);
      data[i] = type == DType::F16 ? fromHalfBits(bits) : fromBF16Bits(bits);
    }
  });
}

void gemmc::rt::fillRandom(HostMatrix &m, uint64_t seed) {
  // A generator per chunk, seeded by the seed and the chunk's index: the
  // same values whatever the number of threads.
  forEachChunk(m.data.size(), kChunk,
               [&](size_t chunk, size_t begin, size_t end) {
                 std::mt19937_64 gen(seed * 0x9e3779b97f4a7c15ull + chunk);
                 std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
                 for (size_t i = begin; i < end; ++i)
                   m.data[i] = roundTo(m.type, dist(gen));
               });
}

Difference gemmc::rt::compareMatrices(const HostMatrix &x,
                                      const HostMatrix &y) {
  struct Partial {
    double diff2 = 0, ref2 = 0;
    int64_t nonFinite = 0;
  };
  // Rows in chunks, summed in the chunks' order.
  size_t rowsPerChunk =
      std::max<size_t>(1, kChunk / size_t(std::max<int64_t>(x.cols, 1)));
  size_t chunks = (size_t(x.rows) + rowsPerChunk - 1) / rowsPerChunk;
  std::vector<Partial> partials(chunks);
  forEachChunk(size_t(x.rows), rowsPerChunk,
               [&](size_t chunk, size_t begin, size_t end) {
                 Partial &p = partials[chunk];
                 for (int64_t i = int64_t(begin); i < int64_t(end); ++i)
                   for (int64_t j = 0; j < x.cols; ++j) {
                     double got = x.at(i, j), want = y.at(i, j);
                     if (!std::isfinite(got)) {
                       ++p.nonFinite;
                       continue;
                     }
                     p.diff2 += (got - want) * (got - want);
                     p.ref2 += want * want;
                   }
               });
  Difference d;
  double diff2 = 0, ref2 = 0;
  for (const Partial &p : partials) {
    diff2 += p.diff2;
    ref2 += p.ref2;
    d.nonFinite += p.nonFinite;
  }
  d.relFrobenius = d.nonFinite ? NAN
                   : ref2 > 0  ? std::sqrt(diff2 / ref2)
                               : std::sqrt(diff2);
  return d;
}

Sample gemmc::rt::chooseSample(int64_t m, int64_t n, int64_t k,
                               int64_t fullLimit, int64_t count,
                               uint64_t seed) {
  Sample s;
  if (m * n * k <= fullLimit) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        s.rows.push_back(i);
        s.cols.push_back(j);
      }
    return s;
  }
  const int64_t corners[4][2] = {
      {0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
  for (const auto &c : corners) {
    s.rows.push_back(c[0]);
    s.cols.push_back(c[1]);
  }
  std::mt19937_64 gen(seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_int_distribution<int64_t> row(0, m - 1), col(0, n - 1);
  for (int64_t i = 0; i < count; ++i) {
    s.rows.push_back(row(gen));
    s.cols.push_back(col(gen));
  }
  return s;
}

std::vector<double> gemmc::rt::referenceAt(const HostMatrix &a,
                                           const HostMatrix &b,
                                           const Sample &sample,
                                           const Epilogue &epilogue) {
  const size_t k = size_t(a.cols);
  // Dense copies, K contiguous, of the rows of A and the columns of B the
  // sample reads: the dot products stream through cache whatever the
  // layouts, and a large A or B is not copied whole. The copies go by
  // chunks of K on all threads (a column of a row-major B is a strided
  // gather).
  std::vector<int64_t> rowSlot(size_t(a.rows), -1), colSlot(size_t(b.cols), -1);
  std::vector<int64_t> rows, cols;
  for (size_t s = 0; s < sample.rows.size(); ++s) {
    if (rowSlot[size_t(sample.rows[s])] < 0) {
      rowSlot[size_t(sample.rows[s])] = int64_t(rows.size());
      rows.push_back(sample.rows[s]);
    }
    if (colSlot[size_t(sample.cols[s])] < 0) {
      colSlot[size_t(sample.cols[s])] = int64_t(cols.size());
      cols.push_back(sample.cols[s]);
    }
  }
  std::vector<double> at(rows.size() * k), bt(cols.size() * k);
  forEachChunk(k, 4096, [&](size_t, size_t begin, size_t end) {
    for (size_t r = 0; r < rows.size(); ++r)
      for (size_t kk = begin; kk < end; ++kk)
        at[r * k + kk] = a.at(rows[r], int64_t(kk));
    for (size_t kk = begin; kk < end; ++kk)
      for (size_t c = 0; c < cols.size(); ++c)
        bt[c * k + kk] = b.at(int64_t(kk), cols[c]);
  });
  std::vector<double> reference(sample.rows.size());
  forEachChunk(reference.size(), 16, [&](size_t, size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      int64_t i = sample.rows[s], j = sample.cols[s];
      const double *x = &at[size_t(rowSlot[size_t(i)]) * k];
      const double *y = &bt[size_t(colSlot[size_t(j)]) * k];
      double ref = 0;
      if (epilogue.blockScales) {
        // Each 128-deep part of the sum times its blocks' scales.
        for (size_t k0 = 0; k0 < k; k0 += size_t(kScaleBlock)) {
          double part = 0;
          size_t k1 = std::min(k, k0 + size_t(kScaleBlock));
          for (size_t kk = k0; kk < k1; ++kk)
            part += x[kk] * y[kk];
          int64_t at = int64_t(k0);
          double sa = epilogue.scaleA[size_t(blockScaleIndex(
              true, i, at, a.rows, b.cols, a.cols))];
          double sb = epilogue.scaleB[size_t(blockScaleIndex(
              false, at, j, a.rows, b.cols, a.cols))];
          ref += part * sa * sb;
        }
      } else {
        for (size_t kk = 0; kk < k; ++kk)
          ref += x[kk] * y[kk];
      }
      ref *= epilogue.scale(i, j) * epilogue.alpha;
      if (epilogue.beta != 0)
        ref += epilogue.beta * epilogue.c0->at(i, j);
      reference[s] = epilogue.finish(ref, i, j);
    }
  });
  return reference;
}

Comparison gemmc::rt::compareAtSamples(const HostMatrix &c,
                                       const Sample &sample,
                                       const std::vector<double> &reference) {
  Comparison result;
  double diff2 = 0, ref2 = 0;
  for (size_t s = 0; s < sample.rows.size(); ++s) {
    double got = c.at(sample.rows[s], sample.cols[s]);
    if (!std::isfinite(got)) {
      ++result.nonFinite;
      continue;
    }
    double d = got - reference[s];
    diff2 += d * d;
    ref2 += reference[s] * reference[s];
    result.maxAbs = std::max(result.maxAbs, std::fabs(d));
  }
  result.entries = int64_t(sample.rows.size());
  result.relFrobenius = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (result.nonFinite)
    result.relFrobenius = NAN;
  return result;
}

Comparison gemmc::rt::compareWithReference(const HostMatrix &a,
                                           const HostMatrix &b,
                                           const HostMatrix &c,
                                           const Sample &sample,
                                           const Epilogue &epilogue) {
  return compareAtSamples(c, sample, referenceAt(a, b, sample, epilogue));
}

void gemmc::rt::finishOnHost(HostMatrix &c, const Epilogue &epilogue) {
  if (!epilogue.bias && epilogue.activation.empty() && !epilogue.residual &&
      !epilogue.productOnly && epilogue.outputScale == 1)
    return;
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j) {
      float &value = c.data[c.index(i, j)];
      double sum = value;
      if (epilogue.productOnly) {
        sum *= epilogue.scale(i, j) * epilogue.alpha;
        if (epilogue.beta != 0)
          sum += epilogue.beta * epilogue.c0->at(i, j);
      }
      value = roundTo(c.type, float(epilogue.finish(sum, i, j)));
    }
}
