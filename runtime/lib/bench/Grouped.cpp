//===- Grouped.cpp - gemm-bench on grouped GEMMs --------------------------===//
//
// A grouped kernel (contract `groups=`) on mixture-of-experts problems:
// each problem's tokens routed to its experts (balanced, Zipf-skewed with
// empty experts, or in a sweep at random), the kernel verified group by
// group against cuBLAS on that group's rows and against fp64 at samples,
// the rows past the last group checked untouched, then timed beside a loop
// of cuBLAS calls, one an expert: on the GPU alone (the loop's sizes known
// beforehand), and as a host pays for it, the loop's copy of the offsets
// to the host and its synchronisation included.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/Bench.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>

using namespace gemmc::rt;

namespace {
/// One grouped problem: the experts' shared N and K, and the rows routed
/// to each; `extraRows` rows of A and C past the last group's.
struct GroupedCase {
  std::string label;
  int64_t n = 0, k = 0, extraRows = 0;
  std::string routing;
  std::vector<int64_t> sizes;
  /// The general form's (`group-form=ptr-array`) groups each their own N
  /// and K (a sweep's; else all `n` and `k`), and their leading dimensions'
  /// padding (elements past the dense ones, multiples of the kernel's).
  std::vector<int64_t> ns, ks, pads;

  int64_t tokens() const {
    return std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  }
  int64_t empty() const {
    return std::count(sizes.begin(), sizes.end(), int64_t(0));
  }
};

struct GroupedOutcome {
  /// The variant that ran (a family's choice for the problem).
  std::string kernel;
  std::string label, status, note;
  int64_t empty = 0;
  double relToCublas = NAN, relToFp64 = NAN, cublasToFp64 = NAN;
  double ms = NAN, loopMs = NAN, wallMs = NAN, syncLoopMs = NAN, tflops = NAN;
};
} // namespace

/// The cases of the run: the shapes file's, or a sweep's random ones
/// (groups 1 to 64, some empty, up to 300 rows a group and 3 past the
/// last, N and K up to 1024 (or --max-size) at the multiples the leading dimensions of
/// `spec`'s operands need; the sizes and group count `spec` fixes, its
/// rows shared out among the groups).
static std::vector<GroupedCase> groupedCases(const BenchOptions &o,
                                             const Contract &spec) {
  const Problem &kp = spec.problem;
  int64_t kMultiple = std::lcm(
      kp.aLayout == Layout::Row ? spec.ldMultiple[0] : 1,
      kp.bLayout == Layout::Col ? spec.ldMultiple[1] : 1);
  int64_t nMultiple = std::lcm(
      std::lcm(kp.bLayout == Layout::Row ? spec.ldMultiple[1] : 1,
               kp.cLayout == Layout::Row ? spec.ldMultiple[2] : 1),
      spec.multipleN);
  std::vector<GroupedCase> cases;
  if (!o.sweep) {
    for (const GroupedShape &s : o.groupedShapes) {
      GroupedCase c;
      c.n = s.n;
      c.k = s.k;
      c.routing = s.routing;
      c.sizes = routeTokens(s.tokens, s.groups, s.routing, o.seed);
      c.label = s.label() + " " + s.routing;
      cases.push_back(c);
    }
    return cases;
  }
  std::mt19937_64 gen(o.seed);
  auto draw = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  };
  for (int64_t i = 0; i < o.count; ++i) {
    GroupedCase c;
    int64_t groups = kp.groups ? kp.groups : draw(1, 64);
    int64_t most = std::min<int64_t>(1024, o.maxSize);
    c.n = kp.n ? kp.n : nMultiple * draw(1, std::max<int64_t>(1, most / nMultiple));
    c.k = kp.k ? kp.k : kMultiple * draw(1, std::max<int64_t>(1, most / kMultiple));
    c.extraRows = draw(0, 3);
    int64_t kind = draw(0, 2);
    c.routing = kind == 0 ? "balanced" : kind == 1 ? "zipf" : "random";
    if (kind == 2) {
      // Each group empty, one row, a multiple of the tile or any count.
      for (int64_t g = 0; g < groups; ++g) {
        int64_t shape = draw(0, 3);
        c.sizes.push_back(shape == 0   ? 0
                          : shape == 1 ? 1
                          : shape == 2 ? 64 * draw(1, 3)
                                       : draw(0, 300));
      }
    } else {
      c.sizes = routeTokens(draw(0, std::min<int64_t>(3000, 3 * o.maxSize)),
                            groups, c.routing, gen());
    }
    if (kp.groupTable) {
      // The general form: each group its own N, K and padded leading
      // dimensions, its matrices apart (no rows past the last group);
      // with random sizes, some groups of K 0 (C left alpha * 0, whose
      // groups are not checked, but the others after them are).
      c.extraRows = 0;
      for (size_t g = 0; g < c.sizes.size(); ++g) {
        c.ns.push_back(nMultiple *
                       draw(1, std::max<int64_t>(1, most / nMultiple)));
        int64_t k = kMultiple * draw(1, std::max<int64_t>(1, most / kMultiple));
        if (kind == 2 && draw(0, 7) == 0)
          k = 0;
        c.ks.push_back(k);
        c.pads.push_back(draw(0, 2));
      }
    }
    if (kp.m) {
      // A static M: the rows given out up to it, the rest past the last
      // group.
      int64_t left = kp.m;
      for (int64_t &size : c.sizes)
        left -= size = std::min(size, left);
      c.extraRows = left;
    }
    c.label = "sweep " + std::to_string(i + 1);
    cases.push_back(c);
  }
  return cases;
}

/// The product of the scales (`scales`, tensor or rowwise; 1 without) at
/// row `row`, column `col` of C, `n` wide, in group `g`: A's at the row,
/// B's of the group (a group's after the other's).
static double scaleProduct(int64_t row, int64_t col, int64_t g, int64_t n,
                           const std::string &scales,
                           const std::vector<float> &scaleA,
                           const std::vector<float> &scaleB) {
  if (scales == "tensor")
    return double(scaleA[0]) * double(scaleB[size_t(g)]);
  if (scales == "rowwise")
    return double(scaleA[size_t(row)]) * double(scaleB[size_t(g * n + col)]);
  return 1;
}

/// The fp64 value of A * B at row `row`, column `col` of C (`b` its
/// group's B), times the scales (`scales`): A's at the row, B's of group
/// `g` (contract::scaleCount's layout, a group's B's after the other's).
static double exactAt(const HostMatrix &a, const HostMatrix &b, int64_t row,
                      int64_t col, int64_t g, const std::string &scales,
                      const std::vector<float> &scaleA,
                      const std::vector<float> &scaleB) {
  int64_t m = a.rows, n = b.cols, k = a.cols;
  int64_t ofB = scaleCount(scales, false, m, n, k);
  auto sumOf = [&](int64_t from, int64_t to) {
    double sum = 0;
    for (int64_t x = from; x < to; ++x)
      sum += double(a.at(row, x)) * double(b.at(x, col));
    return sum;
  };
  if (scales == "block") {
    double sum = 0;
    for (int64_t x = 0; x < k; x += kScaleBlock) {
      double sa = scaleA[size_t(blockScaleIndex(true, row, x, m, n, k))];
      double sb =
          scaleB[size_t(g * ofB + blockScaleIndex(false, x, col, m, n, k))];
      sum += sa * sb * sumOf(x, std::min(x + kScaleBlock, k));
    }
    return sum;
  }
  return sumOf(0, k) * scaleProduct(row, col, g, n, scales, scaleA, scaleB);
}

/// Median of `runs` wall-clock times of `call`, each ended by a
/// synchronisation, in milliseconds.
template <typename Call>
static double wallMedian(const BenchOptions &o, Call call) {
  for (int i = 0; i < o.warmup; ++i)
    call();
  std::vector<double> times;
  for (int i = 0; i < o.runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    call();
    GEMMC_CU(DriverApi::get().cuCtxSynchronize());
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  return medianOf(std::move(times));
}

/// `p`, `math` and `epilogue` of a grouped case of the kernels' `kind`:
/// alpha from the options, beta 0 (C poisoned).
static void setUpCase(const BenchOptions &o, const Problem &kind, Problem &p,
                      MathMode &math, Epilogue &epilogue) {
  p = kind;
  math = p.tf32 ? MathMode::TF32 : MathMode::Exact;
  p.alpha = o.alpha;
  p.beta = 0;
  epilogue.alpha = p.alpha;
  epilogue.activation = p.activation;
}

/// The loop of cuBLAS calls `loop` timed on the GPU alone (the host's
/// launches hidden), and as a host pays: first copying the group sizes
/// back (`learnSizes`) to make its calls.
template <typename Loop, typename Learn>
static std::pair<double, double> timeLoop(const BenchOptions &o, Bench &bench,
                                          Loop loop, Learn learnSizes) {
  double onGpu = timeMedian(o, bench.flush, loop);
  double synchronised = wallMedian(o, [&] {
    learnSizes();
    loop();
  });
  return {onGpu, synchronised};
}

namespace {
/// One case on the GPU, made once: each kernel (a family's variant its
/// rule picks) verified on it and timed.
class CaseRun {
public:
  virtual ~CaseRun() = default;
  virtual GroupedOutcome run(const KernelFamily &family) = 0;
};

/// One case on the GPU: its inputs and cuBLAS's loop (one call a
/// non-empty group, on its rows of A and C) made, verified and timed once;
/// then each kernel verified against both and timed.
class GroupedRun : public CaseRun {
public:
  /// `kind`: the types, layouts and epilogue of the kernels (alpha from
  /// the options where the kernels take it; beta 0, C poisoned).
  GroupedRun(const BenchOptions &o, Bench &bench, const Problem &kind,
             const GroupedCase &gc);
  /// The kernel (a family's variant its rule picks) on the case.
  GroupedOutcome run(const KernelFamily &family) override;

private:
  GroupedOutcome outcome() const;

  const BenchOptions &o;
  Bench &bench;
  const GroupedCase &gc;
  Problem p;
  int64_t tokens;
  std::unique_ptr<HostMatrix> a, ref, residual;
  std::vector<HostMatrix> bs;
  std::vector<int32_t> offsets;
  /// What cuBLAS leaves to the host, and the fp64 reference's epilogue.
  Epilogue epilogue;
  std::unique_ptr<DeviceBuffer> da, db, dc, dRef, dOffsets, dResidual;
  /// The scales (`scales`): A's, and B's a group.
  std::vector<float> scaleA, scaleB;
  std::unique_ptr<DeviceBuffer> dScaleA, dScaleB;
  std::vector<std::pair<Problem, Operands>> calls;
  /// Whether cuBLAS's loop is the kernels' baseline (not for FP8: the
  /// kernels are checked against fp64 alone).
  bool baseline = false;
  /// fp64 at the samples (row, column, value), and cuBLAS's error there.
  std::vector<std::tuple<int64_t, int64_t, double>> samples;
  /// tf32 kernels are compared with cuBLAS in tf32, at its tolerance.
  MathMode math = MathMode::Exact;
  double cublasToFp64 = NAN, loopMs = NAN, syncLoopMs = NAN;
};
} // namespace

GroupedRun::GroupedRun(const BenchOptions &o, Bench &bench,
                       const Problem &kind, const GroupedCase &gc)
    : o(o), bench(bench), gc(gc), tokens(gc.tokens()) {
  setUpCase(o, kind, p, math, epilogue);
  p.m = tokens + gc.extraRows;
  p.n = gc.n;
  p.k = gc.k;
  p.lda = p.ldb = p.ldc = 0;
  p.grouped = true;
  p.groups = int64_t(gc.sizes.size());
  if (p.m == 0)
    return;
  a = std::make_unique<HostMatrix>(p.m, p.k, p.aLayout, p.a);
  fillRandom(*a, o.seed + 11);
  std::vector<unsigned char> bBytes;
  for (int64_t g = 0; g < p.groups; ++g) {
    bs.emplace_back(p.k, p.n, p.bLayout, p.b);
    fillRandom(bs.back(), o.seed + 12 + uint64_t(g));
    std::vector<unsigned char> one = bs.back().pack();
    bBytes.insert(bBytes.end(), one.begin(), one.end());
  }
  int64_t end = 0;
  for (int64_t size : gc.sizes)
    offsets.push_back(int32_t(end += size));
  HostMatrix c(p.m, p.n, p.cLayout, p.c);
  // R (`residual = add`): M x N as C, added on the host to cuBLAS's rows.
  if (p.residual) {
    residual = std::make_unique<HostMatrix>(c);
    fillRandom(*residual, o.seed + 14);
    dResidual = std::make_unique<DeviceBuffer>(residual->bytes());
    dResidual->upload(residual->pack().data());
    epilogue.residual = residual.get();
  }
  da = std::make_unique<DeviceBuffer>(a->bytes());
  db = std::make_unique<DeviceBuffer>(bBytes.size());
  dc = std::make_unique<DeviceBuffer>(c.bytes());
  dRef = std::make_unique<DeviceBuffer>(c.bytes());
  dOffsets = std::make_unique<DeviceBuffer>(offsets.size() * sizeof(int32_t));
  da->upload(a->pack().data());
  db->upload(bBytes.data());
  dOffsets->upload(offsets.data());
  // The scales, random in [0.5, 2): A's over all rows, B's a group.
  if (!p.scales.empty()) {
    scaleA = randomScales(p, true, o.seed + 15, dScaleA);
    scaleB = randomScales(p, false, o.seed + 16, dScaleB);
  }
  // cuBLAS, one call a non-empty group, on its rows of A and C.
  size_t aBytes = sizeOf(p.a), cBytes = sizeOf(p.c), bElement = sizeOf(p.b);
  auto rowOffset = [](Layout layout, int64_t ld, int64_t row) {
    return size_t(layout == Layout::Row ? row * ld : row);
  };
  int64_t first = 0;
  for (int64_t g = 0; g < p.groups; ++g) {
    int64_t rows = gc.sizes[size_t(g)];
    if (rows > 0) {
      Problem sub = p;
      sub.grouped = false;
      sub.groups = 0;
      sub.m = rows;
      sub.lda = p.ldOfA();
      sub.ldc = p.ldOfC();
      Operands so;
      so.a = da->ptr() + rowOffset(p.aLayout, p.ldOfA(), first) * aBytes;
      so.b = db->ptr() + size_t(g * p.spanOfB()) * bElement;
      so.c = dRef->ptr() + rowOffset(p.cLayout, p.ldOfC(), first) * cBytes;
      calls.push_back({sub, so});
    }
    first += rows;
  }
  poison(*dRef, p.c);
  // Without cuBLAS (--no-cublas), and for FP8 inputs (whose cuBLASLt
  // calls would take a group's rows at any 16 bytes, not at its
  // algorithms' alignment), the kernels are checked against fp64 alone.
  baseline = bench.cublas && !isFloat8(p.a);
  if (!baseline)
    calls.clear();
  auto loop = [&] {
    for (const auto &[sub, so] : calls)
      bench.cublas->gemm(sub, math, so);
  };
  loop();
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  ref = std::make_unique<HostMatrix>(c);
  std::vector<unsigned char> bytes(c.bytes());
  dRef->download(bytes.data());
  ref->unpack(bytes);
  // cuBLAS has no activation or R, nor the scales of 16- and 32-bit
  // inputs (beta is 0): the host applies them to the groups' rows.
  bool scalesOnHost = baseline && !p.scales.empty();
  if (!p.activation.empty() || p.residual || scalesOnHost) {
    size_t g = 0;
    for (int64_t i = 0; i < tokens; ++i) {
      while (offsets[g] <= i)
        ++g;
      for (int64_t j = 0; j < p.n; ++j) {
        double value = ref->at(i, j);
        if (scalesOnHost)
          value *= scaleProduct(i, j, int64_t(g), p.n, p.scales, scaleA,
                                scaleB);
        ref->data[ref->index(i, j)] =
            roundTo(p.c, float(epilogue.finish(value, i, j)));
      }
    }
  }
  // fp64 at samples: each row's group by the offsets.
  std::mt19937_64 gen(o.seed + 13);
  double err = 0, norm = 0;
  for (int64_t s = 0; tokens > 0 && s < o.samples; ++s) {
    int64_t i = std::uniform_int_distribution<int64_t>(0, tokens - 1)(gen);
    int64_t j = std::uniform_int_distribution<int64_t>(0, p.n - 1)(gen);
    size_t g = size_t(std::upper_bound(offsets.begin(), offsets.end(), i) -
                      offsets.begin());
    double exact = epilogue.finish(
        p.alpha * exactAt(*a, bs[g], i, j, int64_t(g), p.scales, scaleA,
                          scaleB),
        i, j);
    samples.emplace_back(i, j, exact);
    err += (ref->at(i, j) - exact) * (ref->at(i, j) - exact);
    norm += exact * exact;
  }
  cublasToFp64 = norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
  if (!baseline)
    cublasToFp64 = NAN;
  if (o.sweep || !baseline)
    return;
  // (The host learns the sizes from the offsets.)
  std::vector<int32_t> seen(offsets.size());
  std::tie(loopMs, syncLoopMs) =
      timeLoop(o, bench, loop, [&] { dOffsets->download(seen.data()); });
}

/// A case's outcome before any kernel ran: its label, empty groups and
/// cuBLAS's figures.
static GroupedOutcome outcomeOf(const GroupedCase &gc, double cublasToFp64,
                                double loopMs, double syncLoopMs) {
  GroupedOutcome out;
  out.label = gc.label;
  out.empty = gc.empty();
  out.cublasToFp64 = cublasToFp64;
  out.loopMs = loopMs;
  out.syncLoopMs = syncLoopMs;
  return out;
}

GroupedOutcome GroupedRun::outcome() const {
  return outcomeOf(gc, cublasToFp64, loopMs, syncLoopMs);
}

GroupedOutcome GroupedRun::run(const KernelFamily &family) {
  GroupedOutcome out = outcome();
  if (p.m == 0) {
    // No rows at all: nothing to launch (M must be at least 1).
    out.status = "SKIP";
    out.note = "no rows";
    return out;
  }
  std::string why;
  const ContractKernel *chosen = family.select(p, why);
  if (!chosen) {
    out.status = "SKIP";
    out.note = why;
    return out;
  }
  const ContractKernel &kernel = *chosen;
  out.kernel = kernel.contract().entry;
  poison(*dc, p.c);
  Operands ops{da->ptr(), db->ptr(), dc->ptr()};
  ops.offsets = dOffsets->ptr();
  if (dResidual)
    ops.residual = dResidual->ptr();
  if (dScaleA) {
    ops.scaleA = dScaleA->ptr();
    ops.scaleB = dScaleB->ptr();
  }
  LaunchPlan plan(kernel, p);
  plan.launch(ops);
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  HostMatrix c = *ref;
  std::vector<unsigned char> bytes(c.bytes());
  dc->download(bytes.data());
  c.unpack(bytes);
  // Against cuBLAS over every group's rows; rows past the last untouched.
  double diff = 0, norm = 0;
  int64_t nonFinite = 0, touched = 0;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      float x = c.at(i, j);
      if (i >= tokens) {
        touched += !std::isnan(x);
        continue;
      }
      nonFinite += !std::isfinite(x);
      if (!baseline)
        continue;
      double y = ref->at(i, j);
      diff += (double(x) - y) * (double(x) - y);
      norm += y * y;
    }
  out.relToCublas = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  if (!baseline)
    out.relToCublas = 0;
  double err = 0, exactNorm = 0;
  for (const auto &[i, j, exact] : samples) {
    err += (c.at(i, j) - exact) * (c.at(i, j) - exact);
    exactNorm += exact * exact;
  }
  out.relToFp64 = exactNorm > 0 ? std::sqrt(err / exactNorm) : std::sqrt(err);
  double tolerance = o.tolerance > 0
                         ? o.tolerance
                         : toleranceFor(p.a, p.c, math, p.k);
  bool pass = nonFinite == 0 && touched == 0 &&
              out.relToCublas <= tolerance && out.relToFp64 <= tolerance;
  out.status = pass ? "PASS" : "FAIL";
  if (nonFinite)
    out.note = std::to_string(nonFinite) + " entries not finite";
  if (touched)
    out.note = std::to_string(touched) + " entries past the last group written";
  if (o.sweep)
    out.note += (out.note.empty() ? "" : "; ") + p.str() + " " + gc.routing;
  if (!pass || o.sweep)
    return out;
  out.ms = timeMedian(o, bench.flush, [&] { plan.launch(ops); });
  out.wallMs = wallMedian(o, [&] { plan.launch(ops); });
  out.tflops = 2.0 * double(tokens) * double(p.n) * double(p.k) /
               (out.ms * 1e-3) / 1e12;
  return out;
}

namespace {
/// The general form (`group-form=ptr-array`): each group's A, B and C
/// allocated apart at its own sizes and padded leading dimensions, listed
/// in the group table; cuBLAS on each group (but with --no-cublas, as
/// compute-sanitizer runs it), fp64 at samples of each.
class TableRun : public CaseRun {
public:
  /// `ldMultiple`: the multiples of A's, B's and C's leading dimensions
  /// the kernels take (the groups' are padded by multiples of them).
  TableRun(const BenchOptions &o, Bench &bench, const Problem &kind,
           const GroupedCase &gc, const std::array<int64_t, 3> &ldMultiple);
  GroupedOutcome run(const KernelFamily &family) override;

private:
  struct Group {
    Problem p;
    HostMatrix a, b, ref;
    std::unique_ptr<DeviceBuffer> da, db, dc;
    std::vector<std::tuple<int64_t, int64_t, double>> samples;
  };
  const BenchOptions &o;
  Bench &bench;
  const GroupedCase &gc;
  Problem p;
  MathMode math = MathMode::Exact;
  Epilogue epilogue;
  std::vector<Group> groups;
  std::unique_ptr<DeviceBuffer> dTable;
  std::vector<int64_t> table;
  /// Whether cuBLAS is the kernels' baseline (not with --no-cublas: then
  /// fp64 at the samples alone).
  bool baseline = false;
  double cublasToFp64 = NAN, flops = 0, loopMs = NAN, syncLoopMs = NAN;
  /// The groups' largest M, N and K, for a sweep's note.
  int64_t maxM = 0, maxN = 0, maxK = 0;
};
} // namespace

/// A device buffer of `bytes`, at least one 16-byte unit (an empty group's
/// matrix still has an address).
static std::unique_ptr<DeviceBuffer> deviceBufferOf(size_t bytes) {
  return std::make_unique<DeviceBuffer>(std::max<size_t>(bytes, 16));
}

TableRun::TableRun(const BenchOptions &o, Bench &bench, const Problem &kind,
                   const GroupedCase &gc,
                   const std::array<int64_t, 3> &ldMultiple)
    : o(o), bench(bench), gc(gc) {
  setUpCase(o, kind, p, math, epilogue);
  p.grouped = p.groupTable = true;
  p.groups = int64_t(gc.sizes.size());
  // (The sizes are the table's: these stand for them on the host.)
  p.m = p.n = p.k = 1;
  baseline = bench.cublas != nullptr;
  double err = 0, norm = 0;
  std::mt19937_64 gen(o.seed + 13);
  for (size_t g = 0; g < gc.sizes.size(); ++g) {
    Problem sub = kind;
    sub.alpha = p.alpha;
    sub.beta = 0;
    sub.m = gc.sizes[g];
    sub.n = gc.ns.empty() ? gc.n : gc.ns[g];
    sub.k = gc.ks.empty() ? gc.k : gc.ks[g];
    int64_t pad = gc.pads.empty() ? 0 : gc.pads[g];
    auto padded = [&](Layout layout, int64_t rows, int64_t cols,
                      int64_t multiple) {
      return (layout == Layout::Row ? cols : rows) + pad * multiple;
    };
    // (Dense leading dimensions rounded up to the kernels' multiples.)
    auto roundUp = [](int64_t x, int64_t multiple) {
      return (std::max<int64_t>(x, 1) + multiple - 1) / multiple * multiple;
    };
    sub.lda = roundUp(padded(sub.aLayout, sub.m, sub.k, ldMultiple[0]),
                      ldMultiple[0]);
    sub.ldb = roundUp(padded(sub.bLayout, sub.k, sub.n, ldMultiple[1]),
                      ldMultiple[1]);
    sub.ldc = roundUp(padded(sub.cLayout, sub.m, sub.n, ldMultiple[2]),
                      ldMultiple[2]);
    Group grp{sub,
              HostMatrix(sub.m, sub.k, sub.aLayout, sub.a, sub.lda),
              HostMatrix(sub.k, sub.n, sub.bLayout, sub.b, sub.ldb),
              HostMatrix(sub.m, sub.n, sub.cLayout, sub.c, sub.ldc),
              nullptr, nullptr, nullptr, {}};
    fillRandom(grp.a, o.seed + 11 + 2 * uint64_t(g));
    fillRandom(grp.b, o.seed + 12 + 2 * uint64_t(g));
    grp.da = deviceBufferOf(grp.a.bytes());
    grp.db = deviceBufferOf(grp.b.bytes());
    grp.dc = deviceBufferOf(grp.ref.bytes());
    if (grp.a.bytes())
      grp.da->upload(grp.a.pack().data());
    if (grp.b.bytes())
      grp.db->upload(grp.b.pack().data());
    table.insert(table.end(),
                 {sub.m, sub.n, sub.k, sub.lda, sub.ldb, sub.ldc,
                  int64_t(grp.da->ptr()), int64_t(grp.db->ptr()),
                  int64_t(grp.dc->ptr())});
    flops += 2.0 * double(sub.m) * double(sub.n) * double(sub.k);
    maxM = std::max(maxM, sub.m);
    maxN = std::max(maxN, sub.n);
    maxK = std::max(maxK, sub.k);
    if (sub.m > 0 && sub.n > 0 && sub.k > 0) {
      // cuBLAS on the group (the host applies the activation), and fp64
      // at its share of the samples.
      if (baseline) {
        poison(*grp.dc, sub.c);
        Operands so{grp.da->ptr(), grp.db->ptr(), grp.dc->ptr()};
        bench.cublas->gemm(sub, math, so);
        GEMMC_CU(DriverApi::get().cuCtxSynchronize());
        std::vector<unsigned char> bytes(grp.ref.bytes());
        grp.dc->download(bytes.data());
        grp.ref.unpack(bytes);
        if (!p.activation.empty())
          for (int64_t i = 0; i < sub.m; ++i)
            for (int64_t j = 0; j < sub.n; ++j)
              grp.ref.data[grp.ref.index(i, j)] = roundTo(
                  sub.c, float(epilogue.finish(grp.ref.at(i, j), i, j)));
      }
      int64_t share = std::max<int64_t>(1, o.samples / p.groups);
      for (int64_t s = 0; s < share; ++s) {
        int64_t i = std::uniform_int_distribution<int64_t>(0, sub.m - 1)(gen);
        int64_t j = std::uniform_int_distribution<int64_t>(0, sub.n - 1)(gen);
        double sum = 0;
        for (int64_t x = 0; x < sub.k; ++x)
          sum += double(grp.a.at(i, x)) * double(grp.b.at(x, j));
        double exact = epilogue.finish(p.alpha * sum, i, j);
        grp.samples.emplace_back(i, j, exact);
        err += (grp.ref.at(i, j) - exact) * (grp.ref.at(i, j) - exact);
        norm += exact * exact;
      }
    }
    groups.push_back(std::move(grp));
  }
  cublasToFp64 = norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
  if (!baseline)
    cublasToFp64 = NAN;
  dTable = deviceBufferOf(table.size() * sizeof(int64_t));
  dTable->upload(table.data());
  if (o.sweep || !baseline)
    return;
  // cuBLAS's loop, one call a non-empty group: on the GPU alone, and as a
  // host pays, which first copies the table back to learn the sizes.
  auto loop = [&] {
    for (Group &grp : groups)
      if (grp.p.m > 0 && grp.p.n > 0 && grp.p.k > 0) {
        Operands so{grp.da->ptr(), grp.db->ptr(), grp.dc->ptr()};
        bench.cublas->gemm(grp.p, math, so);
      }
  };
  std::vector<int64_t> seen(table.size());
  std::tie(loopMs, syncLoopMs) =
      timeLoop(o, bench, loop, [&] { dTable->download(seen.data()); });
}

GroupedOutcome TableRun::run(const KernelFamily &family) {
  GroupedOutcome out = outcomeOf(gc, cublasToFp64, loopMs, syncLoopMs);
  // The variant for the rows a group, as the C API's rows from the host
  // choose it.
  Problem chooseBy = p;
  chooseBy.m = tableRows(table.data(), p.groups);
  std::string why;
  const ContractKernel *chosen = family.select(chooseBy, why);
  if (!chosen) {
    out.status = "SKIP";
    out.note = why;
    return out;
  }
  out.kernel = chosen->contract().entry;
  for (Group &grp : groups)
    poison(*grp.dc, grp.p.c);
  Operands ops;
  ops.table = dTable->ptr();
  LaunchPlan plan(*chosen, p);
  plan.launch(ops);
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  // Each group against cuBLAS over all its C (without cuBLAS, a group of
  // K = 0 against zeros), and against fp64 at its samples.
  double diff = 0, norm = 0, err = 0, exactNorm = 0;
  int64_t nonFinite = 0;
  for (Group &grp : groups) {
    const Problem &sub = grp.p;
    if (sub.m == 0 || sub.n == 0)
      continue;
    HostMatrix c = grp.ref;
    std::vector<unsigned char> bytes(c.bytes());
    grp.dc->download(bytes.data());
    c.unpack(bytes);
    for (int64_t i = 0; i < sub.m; ++i)
      for (int64_t j = 0; j < sub.n; ++j) {
        float x = c.at(i, j);
        nonFinite += !std::isfinite(x);
        if (!baseline && sub.k > 0)
          continue;
        double y = sub.k > 0 ? grp.ref.at(i, j) : 0.0;
        diff += (double(x) - y) * (double(x) - y);
        norm += y * y;
      }
    for (const auto &[i, j, exact] : grp.samples) {
      err += (c.at(i, j) - exact) * (c.at(i, j) - exact);
      exactNorm += exact * exact;
    }
  }
  out.relToCublas = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  out.relToFp64 = exactNorm > 0 ? std::sqrt(err / exactNorm) : std::sqrt(err);
  int64_t deepest = 1;
  for (const Group &grp : groups)
    deepest = std::max(deepest, grp.p.k);
  double tolerance = o.tolerance > 0
                         ? o.tolerance
                         : toleranceFor(p.a, p.c, math, deepest);
  bool pass = nonFinite == 0 && out.relToCublas <= tolerance &&
              out.relToFp64 <= tolerance;
  out.status = pass ? "PASS" : "FAIL";
  if (nonFinite)
    out.note = std::to_string(nonFinite) + " entries not finite";
  if (o.sweep) {
    Problem shown = p; // (the sizes are the table's)
    shown.m = shown.n = shown.k = 0;
    out.note += (out.note.empty() ? "" : "; ") + shown.str() +
                " each group's m <= " +
                std::to_string(maxM) + ", n <= " + std::to_string(maxN) +
                ", k <= " + std::to_string(maxK) + " " + gc.routing;
  }
  if (!pass || o.sweep)
    return out;
  out.ms = timeMedian(o, bench.flush, [&] { plan.launch(ops); });
  out.wallMs = wallMedian(o, [&] { plan.launch(ops); });
  out.tflops = flops / (out.ms * 1e-3) / 1e12;
  return out;
}

int gemmc::rt::runGroupedBench(const BenchOptions &o, Bench &bench,
                               const std::vector<Loaded> &kernels) {
  std::vector<const KernelFamily *> grouped;
  for (const Loaded &l : kernels) {
    const ContractKernel &kernel = *l.kernel->variants().front();
    const Problem &kp = kernel.contract().problem;
    const Problem &first = kernels.front().kernel->contract().problem;
    const Contract &firstSpec = kernels.front().kernel->contract();
    if (kernel.contract().activation != firstSpec.activation ||
        kernel.contract().residual != firstSpec.residual ||
        kernel.contract().alphaBeta != firstSpec.alphaBeta ||
        kernel.contract().scales != firstSpec.scales ||
        kp.fastAccumulate != first.fastAccumulate ||
        !kp.grouped || kp.groupTable != first.groupTable || kp.a != first.a || kp.b != first.b || kp.c != first.c ||
        kp.aLayout != first.aLayout || kp.bLayout != first.bLayout ||
        kp.cLayout != first.cLayout)
      throw std::runtime_error(l.file + ": not a grouped kernel of the first "
                               "one's types, layouts and epilogue");
    grouped.push_back(l.kernel.get());
  }
  const Contract &first = grouped.front()->contract();
  std::vector<GroupedCase> cases = groupedCases(o, first);
  std::printf("%-44s %-20s %6s %5s %9s %8s %9s %7s %9s %9s %7s %8s %8s %8s\n",
              "case", "kernel", "status", "empty", "ms", "TFLOP/s", "loop ms",
              "xloop", "wall ms", "sync ms", "xsync", "vsCublas", "vsFp64",
              "cublas");
  struct Means {
    double tflops = 0, loop = 0, sync = 0;
    int timed = 0;
  };
  std::vector<Means> means(grouped.size());
  std::vector<GroupedOutcome> outcomes;
  Problem kind = first.problem;
  kind.activation = first.activation;
  kind.residual = first.residual;
  kind.scales = first.scales;
  if (!first.alphaBeta && o.alpha != 1)
    throw std::runtime_error("--alpha: the grouped kernels take no alpha");
  kind.groupTable = first.problem.groupTable;
  for (const GroupedCase &gc : cases) {
    std::unique_ptr<CaseRun> run;
    if (kind.groupTable)
      run = std::make_unique<TableRun>(
          o, bench, kind, gc,
          std::array<int64_t, 3>{first.ldMultiple[0], first.ldMultiple[1],
                                 first.ldMultiple[2]});
    else
      run = std::make_unique<GroupedRun>(o, bench, kind, gc);
    for (size_t i = 0; i < grouped.size(); ++i) {
      GroupedOutcome r = run->run(*grouped[i]);
      if (r.status == "FAIL")
        ++bench.failures;
      else if (r.status == "PASS")
        ++bench.passed;
      std::printf(
          "%-44s %-20s %6s %5lld %9s %8s %9s %7s %9s %9s %7s %8s %8s %8s %s\n",
          r.label.c_str(),
          (r.kernel.empty() ? grouped[i]->name() : r.kernel).c_str(),
          r.status.c_str(), (long long)r.empty, fmt(r.ms, "%.4f").c_str(),
          fmt(r.tflops, "%.1f").c_str(), fmt(r.loopMs, "%.4f").c_str(),
          fmt(r.loopMs / r.ms, "%.2f").c_str(), fmt(r.wallMs, "%.4f").c_str(),
          fmt(r.syncLoopMs, "%.4f").c_str(),
          fmt(r.syncLoopMs / r.wallMs, "%.2f").c_str(),
          fmt(r.relToCublas, "%.1e").c_str(), fmt(r.relToFp64, "%.1e").c_str(),
          fmt(r.cublasToFp64, "%.1e").c_str(), r.note.c_str());
      std::fflush(stdout);
      if (std::isfinite(r.ms)) {
        Means &m = means[i];
        m.tflops += std::log(r.tflops);
        m.loop += std::log(r.loopMs / r.ms);
        m.sync += std::log(r.syncLoopMs / r.wallMs);
        ++m.timed;
      }
      outcomes.push_back(r);
    }
  }
  for (size_t i = 0; i < grouped.size(); ++i) {
    const Means &m = means[i];
    if (m.timed)
      std::printf("geomean %s over %d cases: %.1f TFLOP/s, %.2fx the cuBLAS "
                  "loop on the GPU, %.2fx the loop with its host "
                  "synchronisation\n",
                  grouped[i]->name().c_str(), m.timed,
                  std::exp(m.tflops / m.timed), std::exp(m.loop / m.timed),
                  std::exp(m.sync / m.timed));
  }
  std::printf("%zu cases, %d passed, %d failed\n", outcomes.size(),
              bench.passed, bench.failures);
  return bench.failures ? 1 : 0;
}
