//===- Run.cpp - a run on the GPU ----------------------------------------===//
//
// gemm-bench's run: each case's inputs, cuBLAS verified against fp64 and
// timed, then each kernel verified against both and timed; `--results`
// saved and resumed, `--budget`.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/Autotune.h"
#include "gemmc-rt/Bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

using namespace gemmc::rt;

/// Peak dense rate, in TFLOP/s, of the unit that computes the problem: FP32
/// FMA lanes, or tensor cores for f16/bf16 and tf32 (FLOP per SM per clock
/// by compute capability).
static double peakTflops(const Device &d, DType type, MathMode math) {
  double perSmPerClock = 256; // 128 FP32 lanes x 2
  if (type != DType::F32 || math == MathMode::TF32) {
    double f16 =
        d.major >= 9 ? 4096 : (d.major == 8 && d.minor == 0 ? 2048 : 1024);
    perSmPerClock = type == DType::F32 ? f16 / 2
                    : isFloat8(type)   ? 2 * f16
                                       : f16;
  }
  return d.smCount * perSmPerClock * d.clockKHz * 1e3 / 1e12;
}

unsigned gemmc::rt::poisonWord(DType type) {
  switch (type) {
  case DType::F32:
    return 0x7fc00000u;
  case DType::F16:
    return 0x7e007e00u;
  case DType::BF16:
    return 0x7fc07fc0u;
  case DType::E4M3:
    return 0x7f7f7f7fu;
  case DType::E5M2:
    return 0x7e7e7e7eu;
  }
  return 0xffffffffu;
}

double gemmc::rt::timeMedian(const BenchOptions &o, DeviceBuffer *flush,
                             const std::function<void()> &launch) {
  for (int i = 0; i < o.warmup; ++i)
    launch();
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  EventTimer timer(/*gated=*/true);
  static bool warned = false;
  if (!timer.gated() && !warned) {
    warned = true;
    std::fprintf(stderr, "gemm-bench: the device cannot wait on memory; "
                         "times include the host's cost of each launch\n");
  }
  std::vector<double> times;
  for (int i = 0; i < o.runs; ++i) {
    if (flush)
      flush->fill32(unsigned(i));
    timer.start();
    launch();
    times.push_back(timer.stop());
  }
  return medianOf(std::move(times));
}

double gemmc::rt::medianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<float>
gemmc::rt::randomScales(const Problem &p, bool ofA, uint64_t seed,
                        std::unique_ptr<DeviceBuffer> &device) {
  std::vector<float> values(size_t(scaleCount(p, ofA)));
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  for (float &value : values)
    value = dist(gen);
  device = std::make_unique<DeviceBuffer>(values.size() * 4);
  device->upload(values.data());
  return values;
}

void gemmc::rt::poison(DeviceBuffer &buffer, DType type) {
  // Each element's size: a matrix of an odd count of bytes is poisoned to
  // its last byte (an FP8 C's last padding entry was left as it was).
  uint32_t word = poisonWord(type);
  if (sizeOf(type) == 4)
    buffer.fill32(word);
  else if (sizeOf(type) == 2)
    buffer.fill16(uint16_t(word));
  else
    buffer.fill8(static_cast<unsigned char>(word));
}

namespace {
/// `--results FILE`: the outcomes so far, one line per problem and kernel
/// file (`problem, file, kernel, status, ms, cuBLAS ms`, tab-separated),
/// read at the start and appended to as results come. A file is known by
/// its name without its folder, so that a results file resumes wherever
/// the kernels are.
class ResultsFile {
public:
  explicit ResultsFile(const std::string &path) {
    if (path.empty())
      return;
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    for (const ResultRow &row : parseResults(text.str()))
      done.insert(key(row.problem, row.fileName()));
    out.open(path, std::ios::app);
    if (!out)
      throw std::runtime_error("cannot write " + path);
  }

  bool has(const std::string &label, const std::string &file) const {
    return done.count(key(label, fileNameOf(file))) != 0;
  }

  /// Appends the kernels' results of one problem (cuBLAS's first, if it
  /// ran), flushed: a run cut short keeps them.
  void append(const std::string &label, const std::vector<Result> &results) {
    if (!out.is_open())
      return;
    double cublasMs = NAN;
    for (const Result &r : results) {
      if (r.kernel == "cuBLAS") {
        cublasMs = r.ms;
        continue;
      }
      ResultRow row{label, r.file, r.kernel, r.status, r.ms, cublasMs,
                    r.splits};
      out << formatResult(row);
      done.insert(key(label, row.fileName()));
    }
    out.flush();
  }

private:
  static std::string key(const std::string &label, const std::string &file) {
    return label + "\t" + file;
  }

  std::set<std::string> done;
  std::ofstream out;
};

/// One case on the GPU: its inputs, C as it is before each run, the
/// bias, cuBLAS's result as the reference, then each kernel verified and,
/// if it passes, timed.
class CaseRun {
public:
  CaseRun(Bench &bench, const Case &cs);

  /// cuBLAS on the case: verified against fp64, then timed.
  void runCublas();
  /// A kernel on the case: skipped where its contract does not take the
  /// problem, else verified against cuBLAS and fp64, then timed.
  void runKernel(const Loaded &loaded);

private:
  std::vector<HostMatrix> batchOfC() const;
  size_t span(int64_t stride, int64_t elements, DType type) const {
    return size_t((p.batch - 1) * stride + elements) * sizeOf(type);
  }
  /// The bytes of a batch of matrices, each at its stride.
  std::vector<unsigned char> packBatch(const std::vector<HostMatrix> &ms,
                                       int64_t stride, size_t bytes) const;
  /// C as before each verified run: NaN where beta is 0 (a word the
  /// device sets, no upload), else the random C0.
  void resetC() {
    // The amax a NaN whose bits no magnitude passes: the launch must
    // zero it.
    uint32_t poisoned = 0x7fffffff;
    dAmax.upload(&poisoned);
    if (p.beta != 0) {
      dc.upload(initialC.data());
      return;
    }
    poison(dc, p.c);
  }
  void progress(const std::string &name);
  /// `amax`: the kernel wrote the amax of C, checked too.
  bool verify(std::vector<HostMatrix> &c,
              const std::vector<HostMatrix> *reference, Result &r,
              bool fromCublas, bool amax = false);

  Bench &bench;
  const BenchOptions &o;
  const Case &cs;
  const Problem &p;
  double tolerance;
  std::vector<HostMatrix> as, bs, c0s;
  DeviceBuffer da, db, dc;
  Operands ops;
  Sample sample;
  /// referenceAt's values for each GEMM of the batch, computed once.
  std::vector<std::vector<double>> references;
  std::vector<unsigned char> initialC, bytes;
  bool perRow;
  HostMatrix bias;
  std::unique_ptr<DeviceBuffer> dBias;
  /// R (`residual = add`): a matrix each GEMM of the batch, in C's type
  /// and strides.
  std::vector<HostMatrix> rs;
  std::unique_ptr<DeviceBuffer> dResidual;
  /// FP8's scales (one each, or per row of A and per column of B) and
  /// their device copies.
  std::vector<float> scaleA, scaleB;
  std::unique_ptr<DeviceBuffer> dScaleA, dScaleB;
  /// C's scale (`output-scale`: one f32 in 0.5-2), and its device copy.
  float scaleC = 1;
  std::unique_ptr<DeviceBuffer> dScaleC;
  /// The amax of C (one f32) of the kernels that write one (`amax`: an
  /// output, which changes nothing else, so that kernels with and without
  /// it run the same case side by side).
  DeviceBuffer dAmax;
  double flop, peak;
  double cublasMs = NAN, cublasError = NAN;
  std::unique_ptr<std::vector<HostMatrix>> reference;
};
} // namespace

/// One rows x cols matrix (zeros) for each GEMM of the batch.
static std::vector<HostMatrix> batchOf(const Problem &p, int64_t rows,
                                       int64_t cols, Layout layout, DType type,
                                       int64_t ld) {
  return std::vector<HostMatrix>(p.batch,
                                 HostMatrix(rows, cols, layout, type, ld));
}

CaseRun::CaseRun(Bench &bench, const Case &cs)
    : bench(bench), o(bench.o), cs(cs), p(cs.p),
      tolerance(o.tolerance > 0 ? o.tolerance
                                : toleranceFor(p.a, p.c, cs.math, p.k)),
      as(batchOf(p, p.m, p.k, p.aLayout, p.a, p.ldOfA())),
      bs(batchOf(p, p.k, p.n, p.bLayout, p.b, p.ldOfB())),
      c0s(batchOf(p, p.m, p.n, p.cLayout, p.c, p.ldOfC())),
      da(span(p.strideOfA(), p.spanOfA(), p.a)),
      db(span(p.strideOfB(), p.spanOfB(), p.b)),
      dc(span(p.strideOfC(), p.spanOfC(), p.c)),
      sample(chooseSample(p.m, p.n, p.k, /*fullLimit=*/0,
                          std::max<int64_t>(16, o.samples / p.batch),
                          o.seed + 2)),
      initialC(dc.size()), bytes(dc.size()), perRow(p.bias == "row"),
      // The bias: M x 1 (per row) or 1 x N (per column), in C's type, the
      // same for every GEMM of a batch.
      bias(perRow ? p.m : 1, perRow ? 1 : p.n, Layout::Row, p.c),
      dAmax(sizeof(float)), flop(2.0 * p.m * p.n * p.k * p.batch),
      peak(peakTflops(bench.device, p.a, cs.math)) {
  // Each GEMM of the batch: its own random A and B (and C0 below); the
  // device buffers hold them strideA, strideB and strideC elements apart.
  for (int64_t i = 0; i < p.batch; ++i) {
    fillRandom(as[i], o.seed + 8 * uint64_t(i));
    fillRandom(bs[i], o.seed + 8 * uint64_t(i) + 1);
  }
  da.upload(packBatch(as, p.strideOfA(), da.size()).data());
  db.upload(packBatch(bs, p.strideOfB(), db.size()).data());
  ops = Operands{da.ptr(), db.ptr(), dc.ptr()};
  // C before each verified run: NaN where beta = 0 (a kernel must not read
  // it), else random values the result depends on; the padding of its
  // leading dimension too, which no run may change.
  if (p.beta != 0) {
    for (int64_t i = 0; i < p.batch; ++i)
      fillRandom(c0s[i], o.seed + 8 * uint64_t(i) + 3);
    initialC = packBatch(c0s, p.strideOfC(), dc.size());
  } else {
    uint32_t word = poisonWord(p.c);
    unsigned char pattern[4];
    std::memcpy(pattern, &word, 4);
    for (size_t i = 0; i < initialC.size(); ++i)
      initialC[i] = pattern[i % 4];
  }
  if (!p.bias.empty()) {
    fillRandom(bias, o.seed + 4);
    dBias = std::make_unique<DeviceBuffer>(bias.bytes());
    dBias->upload(bias.pack().data());
    ops.bias = dBias->ptr();
  }
  if (p.residual) {
    rs = batchOfC();
    for (int64_t i = 0; i < p.batch; ++i)
      fillRandom(rs[size_t(i)], o.seed + 8 * uint64_t(i) + 7);
    dResidual = std::make_unique<DeviceBuffer>(dc.size());
    dResidual->upload(packBatch(rs, p.strideOfC(), dc.size()).data());
    ops.residual = dResidual->ptr();
  }
  if (!p.scales.empty()) {
    scaleA = randomScales(p, true, o.seed + 5, dScaleA);
    scaleB = randomScales(p, false, o.seed + 6, dScaleB);
    ops.scaleA = dScaleA->ptr();
    ops.scaleB = dScaleB->ptr();
  }
  if (p.outputScale) {
    std::mt19937_64 gen(o.seed + 9);
    scaleC = std::uniform_real_distribution<float>(0.5f, 2.0f)(gen);
    dScaleC = std::make_unique<DeviceBuffer>(sizeof(float));
    dScaleC->upload(&scaleC);
    ops.scaleC = dScaleC->ptr();
  }
  ops.amax = dAmax.ptr();
}

std::vector<HostMatrix> CaseRun::batchOfC() const {
  return batchOf(p, p.m, p.n, p.cLayout, p.c, p.ldOfC());
}

std::vector<unsigned char> CaseRun::packBatch(const std::vector<HostMatrix> &ms,
                                              int64_t stride,
                                              size_t size) const {
  std::vector<unsigned char> out(size);
  for (size_t i = 0; i < ms.size(); ++i) {
    std::vector<unsigned char> one = ms[i].pack();
    std::copy(one.begin(), one.end(),
              out.begin() + i * stride * sizeOf(ms[i].type));
  }
  return out;
}

void CaseRun::progress(const std::string &name) {
  ++bench.done;
  // A bar of 20 characters, the count and the time so far.
  int filled = int(20 * bench.done / std::max<size_t>(bench.total, 1));
  double elapsed = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - bench.start)
                       .count();
  std::fprintf(stderr, "[%s%s] %zu/%zu %.0f s  %s %s\n",
               std::string(size_t(filled), '#').c_str(),
               std::string(size_t(20 - filled), '.').c_str(), bench.done,
               bench.total, elapsed, name.c_str(), sizeStr(cs.size).c_str());
}

/// Every GEMM of the batch is checked; a result reports the worst.
bool CaseRun::verify(std::vector<HostMatrix> &c,
                     const std::vector<HostMatrix> *reference, Result &r,
                     bool fromCublas, bool amax) {
  dc.download(bytes.data());
  bool pass = true;
  r.relToFp64 = 0;
  r.relToCublas = reference ? 0 : NAN;
  for (int64_t i = 0; i < p.batch; ++i) {
    size_t at = size_t(i * p.strideOfC()) * sizeOf(p.c);
    c[i].unpack(std::vector<unsigned char>(
        bytes.begin() + at,
        bytes.begin() + at + size_t(p.spanOfC()) * sizeOf(p.c)));
    Epilogue epilogue;
    epilogue.alpha = p.alpha;
    epilogue.beta = p.beta;
    epilogue.c0 = &c0s[i];
    epilogue.bias = p.bias.empty() ? nullptr : &bias;
    epilogue.biasPerRow = perRow;
    epilogue.activation = p.activation;
    epilogue.residual = p.residual ? &rs[size_t(i)] : nullptr;
    epilogue.scaleA = scaleA;
    epilogue.scaleB = scaleB;
    epilogue.blockScales = p.scales == "block";
    epilogue.outputScale = p.outputScale ? scaleC : 1;
    epilogue.productOnly =
        fromCublas && !isFloat8(p.a) && !p.scales.empty();
    // cuBLAS has no bias, activation or R (nor scales of 16- and 32-bit
    // inputs): the host applies them to its result. cuBLASLt's FP8 adds
    // the bias and multiplies by C's scale itself (CublasLt::takes).
    if (fromCublas) {
      Epilogue rest = epilogue;
      if (isFloat8(p.a)) {
        rest.bias = nullptr;
        rest.outputScale = 1;
      }
      finishOnHost(c[i], rest);
    }
    // The fp64 reference at the samples, once per case: every kernel is
    // compared with the same values.
    if (references.size() <= size_t(i)) {
      std::vector<double> exact = referenceAt(as[i], bs[i], sample, epilogue);
      // An FP8 C saturates at its largest finite value (cvt.satfinite), as
      // the reference then does.
      if (isFloat8(p.c)) {
        double largest = roundTo(p.c, 1e30f);
        for (double &value : exact)
          value = std::clamp(value, -largest, largest);
      }
      references.push_back(std::move(exact));
    }
    Comparison fp64 = compareAtSamples(c[i], sample, references[size_t(i)]);
    r.relToFp64 = std::max(r.relToFp64, fp64.relFrobenius);
    pass = pass && fp64.nonFinite == 0 && fp64.relFrobenius <= tolerance;
    if (reference) {
      Difference d = compareMatrices(c[i], (*reference)[i]);
      r.relToCublas = std::max(r.relToCublas, d.relFrobenius);
      pass = pass && d.nonFinite == 0 && d.relFrobenius <= tolerance;
      if (d.nonFinite)
        r.note = std::to_string(d.nonFinite) + " entries not finite";
    }
  }
  // The padding of C's leading dimension is the caller's: untouched.
  int64_t lines = p.cLayout == Layout::Row ? p.m : p.n;
  int64_t length = p.cLayout == Layout::Row ? p.n : p.m;
  size_t element = sizeOf(p.c);
  int64_t touched = 0;
  for (int64_t i = 0; i < p.batch; ++i)
    for (int64_t l = 0; l < lines; ++l)
      for (int64_t e = length; e < p.ldOfC(); ++e) {
        size_t at = size_t(i * p.strideOfC() + l * p.ldOfC() + e) * element;
        touched += std::memcmp(&bytes[at], &initialC[at], element) != 0;
      }
  if (touched) {
    pass = false;
    r.note = std::to_string(touched) + " entries of C's padding overwritten";
  }
  // The amax is taken before C's scale (a positive f32 product) and the
  // cast to C's type, both monotonic: so scaled, it rounds to the largest
  // magnitude C holds, exactly.
  if (amax) {
    float written = 0;
    dAmax.download(&written);
    float largest = 0;
    for (const HostMatrix &matrix : c)
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j)
          largest = std::max(largest, std::fabs(matrix.at(i, j)));
    float scaled = p.outputScale ? written * scaleC : written;
    if (!(roundTo(p.c, scaled) == largest)) {
      pass = false;
      r.note = "amax " + std::to_string(written) +
               " where C's largest magnitude is " + std::to_string(largest);
    }
  }
  r.status = pass ? "PASS" : "FAIL";
  return pass;
}

void CaseRun::runCublas() {
  Result r;
  r.kernel = "cuBLAS";
  r.size = cs.size;
  // FP8 runs on cuBLASLt (cuBLAS's GEMMs take none), where it takes the
  // problem.
  bool fp8 = isFloat8(p.a);
  // The scales of 16- and 32-bit inputs are not cuBLAS's: it computes
  // A * B alone, and the host the rest (verify).
  Problem product = p;
  if (!fp8 && !p.scales.empty()) {
    product.alpha = 1;
    product.beta = 0;
  }
  std::function<void()> gemm = [&] {
    bench.cublas->gemm(product, cs.math, ops);
  };
  r.file = Cublas::describe(p, cs.math);
  // Where the library has no such GEMM (an FP8 C from 16-bit inputs, f16
  // inputs with a bf16 C, FP8 cases cuBLASLt lacks), the kernels are
  // compared with fp64 alone.
  std::string why;
  if (fp8 ? !CublasLt::takes(p, why) : !Cublas::takes(p, why)) {
    progress(r.kernel);
    r.status = "SKIP";
    r.note = fp8 ? "cuBLASLt: " + why : why;
    bench.results.push_back(r);
    return;
  }
  if (fp8) {
    if (!bench.cublasLt)
      bench.cublasLt = std::make_unique<CublasLt>();
    gemm = [&] { bench.cublasLt->scaledGemm(p, ops); };
    r.file = CublasLt::describe(p);
  }
  progress(r.kernel);
  resetC();
  try {
    gemm();
  } catch (const CudaError &e) {
    // cuBLASLt's FP8 has no algorithm for some sizes (9x13x1361): the
    // kernels are compared with fp64 alone there.
    if (!fp8)
      throw;
    r.status = "SKIP";
    r.note = e.what();
    bench.results.push_back(r);
    return;
  }
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  reference = std::make_unique<std::vector<HostMatrix>>(batchOfC());
  if (verify(*reference, nullptr, r, /*fromCublas=*/true)) {
    if (!o.sweep) {
      cublasMs = timeMedian(o, bench.flush, gemm);
      r.ms = cublasMs;
      r.tflops = flop / (r.ms * 1e-3) / 1e12;
      r.vsCublas = 1.0;
      r.peakShare = r.tflops / peak;
    }
  } else {
    ++bench.failures;
    reference.reset(); // a wrong cuBLAS is no reference
  }
  r.note = r.file;
  cublasError = r.relToFp64;
  bench.results.push_back(r);
}

void CaseRun::runKernel(const Loaded &l) {
  Result r;
  r.file = l.file;
  r.size = cs.size;
  // A family runs the problem on the variant its rule picks; one that
  // writes the amax of C takes the case with it.
  Problem kp = p;
  kp.amax = l.kernel->contract().amax;
  std::string why;
  const ContractKernel *kernel = l.kernel->select(kp, why);
  // --autotune: the fastest of the model's first few, timed here first.
  if (kernel && o.autotune > 0 && l.kernel->isFamily()) {
    AutotuneOptions options;
    options.candidates = int(o.autotune);
    std::vector<MeasuredVariant> measured =
        measureChoice(*l.kernel, kp, ops, nullptr, options);
    if (!measured.empty()) {
      const MeasuredVariant &chosen = fastestMeasured(measured);
      kernel = l.kernel->variants()[chosen.index].get();
      if (measured.size() > 1)
        r.note = "autotune: " + describeMeasured(*l.kernel, measured, chosen);
    }
  }
  r.kernel = kernel ? kernel->contract().entry : l.kernel->name();
  progress(r.kernel);
  if (!kernel) {
    r.status = "SKIP";
    r.note = why;
    bench.results.push_back(r);
    return;
  }
  r.info = kernel->info();
  r.dynamicShared = kernel->contract().dynamicSharedBytes;
  // Splits of K chosen at launch: --splits, a sweep's draw among all the
  // counts the kernel may take (up to 128), or the cost model's.
  int64_t splits = 0;
  if (kernel->contract().splitsAtLaunch()) {
    int64_t most = kernel->contract().maxSplits(p);
    if (o.splits)
      splits = std::min(o.splits, most);
    else if (o.sweep)
      splits = 1 + int64_t(cs.splitsDraw %
                           uint64_t(std::min<int64_t>(most, 128)));
    else
      splits = kernel->splitsFor(p);
    r.splits = splits;
    r.note = (r.note.empty() ? "" : r.note + "; ") +
             "splits=" + std::to_string(splits);
  }
  resetC();
  kernel->launch(ops, kp, nullptr, splits);
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  std::vector<HostMatrix> c = batchOfC();
  bool pass = verify(c, reference.get(), r, /*fromCublas=*/false, kp.amax);
  if (cublasError > 0)
    r.errorVsCublas = r.relToFp64 / cublasError;
  if (o.sweep) {
    // Each case as it ends: a long sweep cut short keeps its record.
    r.note = (r.note.empty() ? "" : r.note + "; ") + p.str() +
             " ld=" + std::to_string(p.ldOfA()) + "," +
             std::to_string(p.ldOfB()) + "," + std::to_string(p.ldOfC()) +
             " alpha=" + std::to_string(p.alpha) +
             " beta=" + std::to_string(p.beta);
    std::fprintf(stderr, "  %s %s\n", r.status.c_str(), r.note.c_str());
  }
  if (!pass) {
    ++bench.failures;
    bench.results.push_back(r);
    return;
  }
  ++bench.passed;
  if (o.sweep) {
    bench.results.push_back(r);
    return;
  }
  r.ms = timeMedian(o, bench.flush,
                    [&] { kernel->launch(ops, kp, nullptr, splits); });
  r.tflops = flop / (r.ms * 1e-3) / 1e12;
  r.vsCublas = cublasMs / r.ms;
  r.peakShare = r.tflops / peak;
  bench.results.push_back(r);
}

/// The GPU in one line, printed with the driver's version.
static std::string describeGpu(const Device &device) {
  int driver = 0;
  GEMMC_CU(DriverApi::get().cuDriverGetVersion(&driver));
  std::ostringstream g;
  g << device.name << " (sm_" << device.major << device.minor << ", "
    << device.smCount << " SMs, " << device.clockKHz / 1000 << " MHz)";
  std::printf("GPU: %s; driver %d.%d\n", g.str().c_str(), driver / 1000,
              (driver % 1000) / 10);
  return g.str();
}

int gemmc::rt::runBench(BenchOptions &o) {
  Device device;
  try {
    device = Device::open(o.device);
  } catch (const NoGpuError &e) {
    std::cerr << "gemm-bench: " << e.what() << "\n";
    return 3;
  } catch (const std::exception &e) {
    std::cerr << "gemm-bench: error: " << e.what() << "\n";
    return 1;
  }

  Bench bench(o, device);
  std::vector<ShapeOutcome> outcomes;
  std::string gpu;
  try {
    gpu = describeGpu(device);
    std::vector<Loaded> kernels = loadKernels(o);
    if (!kernels.empty() && kernels.front().kernel->contract().problem.grouped) {
      std::unique_ptr<Cublas> cublas;
      if (o.cublas)
        cublas = std::make_unique<Cublas>();
      bench.cublas = cublas.get();
      return runGroupedBench(o, bench, kernels);
    }
    if (!kernels.empty())
      takeProblemFromKernels(o, kernels.front().kernel->contract());
    std::vector<Case> cases = buildCases(o, kernels);

    std::unique_ptr<Cublas> cublas;
    if (o.cublas)
      cublas = std::make_unique<Cublas>();
    std::unique_ptr<DeviceBuffer> flush;
    if (o.flushL2)
      flush = std::make_unique<DeviceBuffer>(size_t(256) << 20);
    bench.cublas = cublas.get();
    bench.flush = flush.get();
    for (const Case &cs : cases)
      bench.total += cs.run.size() + (cublas ? 1 : 0);

    ResultsFile saved(o.resultsFile);
    size_t pruned = 0;
    auto start = std::chrono::steady_clock::now();
    size_t started = 0, resumed = 0;
    for (const Case &cs : cases) {
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (o.budget > 0 && elapsed > o.budget) {
        std::cerr << "gemm-bench: the budget of " << o.budget
                  << " s is spent: " << cases.size() - started - resumed
                  << " of " << cases.size() << " problems not started\n";
        break;
      }
      // What the results file holds already is not run again, nor, with
      // --prune, what the cost model predicts far slower than the best.
      Case todo = cs;
      todo.run.clear();
      std::vector<const Loaded *> kept = prune(o, cs);
      pruned += cs.run.size() - kept.size();
      for (const Loaded *l : kept)
        if (!saved.has(cs.label, l->file))
          todo.run.push_back(l);
      if (todo.run.empty()) {
        ++resumed;
        bench.done += cs.run.size() + (cublas ? 1 : 0);
        continue;
      }
      ++started;
      size_t first = bench.results.size();
      CaseRun run(bench, todo);
      if (cublas)
        run.runCublas();
      for (const Loaded *l : todo.run)
        run.runKernel(*l);
      std::vector<Result> results(bench.results.begin() + first,
                                  bench.results.end());
      saved.append(cs.label, results);
      if (!cs.label.empty())
        outcomes.push_back(shapeOutcome(todo, results));
      // The CSV so far after each problem: a run killed by its time limit
      // keeps what it measured.
      if (!o.csv.empty())
        writeCsv(o.csv, gpu, bench.results);
    }
    if (resumed)
      std::cerr << "gemm-bench: " << resumed << " problems already in "
                << o.resultsFile << "\n";
    if (pruned)
      std::cerr << "gemm-bench: --prune " << o.prune << " left out " << pruned
                << " kernel runs the cost model predicted slower\n";
    printSummary(o, bench);
  } catch (const std::exception &e) {
    printTable(bench.results);
    std::cerr << "gemm-bench: error: " << e.what() << "\n";
    return 1;
  }
  printTable(bench.results);
  if (!outcomes.empty())
    printShapes(o, outcomes);
  if (!o.csv.empty())
    writeCsv(o.csv, gpu, bench.results);
  if (!o.json.empty())
    writeJson(o.json, gpu, bench.results);
  std::printf("%zu results, %d failed\n", bench.results.size(), bench.failures);
  return bench.failures ? 1 : 0;
}
