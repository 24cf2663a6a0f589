//===- Host.cpp - host matrices, the fp64 reference and the comparison --===//

#include "gemmc-rt/Host.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

using namespace gemmc::rt;

HostMatrix::HostMatrix(int64_t rows, int64_t cols, Layout layout)
    : rows(rows), cols(cols), layout(layout), data(size_t(rows) * cols) {}

void gemmc::rt::fillRandom(HostMatrix &m, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &v : m.data)
    v = dist(gen);
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
  const int64_t corners[4][2] = {{0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
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

Comparison gemmc::rt::compareWithReference(const HostMatrix &a,
                                           const HostMatrix &b,
                                           const HostMatrix &c,
                                           const Sample &sample) {
  const int64_t k = a.cols;
  // Dense copies with K contiguous for both operands keep the dot products
  // streaming through cache whatever the layouts.
  std::vector<double> at(size_t(a.rows) * k), bt(size_t(b.cols) * k);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      at[size_t(i) * k + kk] = a.at(i, kk);
  for (int64_t j = 0; j < b.cols; ++j)
    for (int64_t kk = 0; kk < k; ++kk)
      bt[size_t(j) * k + kk] = b.at(kk, j);

  const size_t total = sample.rows.size();
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  struct Partial {
    double diff2 = 0, ref2 = 0, maxAbs = 0;
    int64_t nonFinite = 0;
  };
  std::vector<Partial> partials(workers);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      Partial &p = partials[w];
      for (size_t s = w; s < total; s += workers) {
        int64_t i = sample.rows[s], j = sample.cols[s];
        const double *x = &at[size_t(i) * k];
        const double *y = &bt[size_t(j) * k];
        double ref = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          ref += x[kk] * y[kk];
        double got = c.at(i, j);
        if (!std::isfinite(got)) {
          ++p.nonFinite;
          continue;
        }
        double d = got - ref;
        p.diff2 += d * d;
        p.ref2 += ref * ref;
        p.maxAbs = std::max(p.maxAbs, std::fabs(d));
      }
    });
  }
  for (std::thread &t : threads)
    t.join();

  Comparison result;
  double diff2 = 0, ref2 = 0;
  for (const Partial &p : partials) {
    diff2 += p.diff2;
    ref2 += p.ref2;
    result.maxAbs = std::max(result.maxAbs, p.maxAbs);
    result.nonFinite += p.nonFinite;
  }
  result.entries = int64_t(total);
  result.relFrobenius = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (result.nonFinite)
    result.relFrobenius = NAN;
  return result;
}
