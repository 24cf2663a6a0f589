//===- gemm-bench.cpp - verify and time GEMM kernels beside cuBLAS --------===//
//
// gemm-bench [options] KERNEL.ptx...
//
// For each problem size: random inputs (seeded), cuBLAS's result checked
// against an fp64 reference at sampled entries; then each kernel that accepts
// the problem is launched as its contract says on the same inputs with C
// poisoned with NaN, compared with cuBLAS over all of C and with fp64 at the
// samples, and only if it passes, timed (warm-up, CUDA events, median). One
// table, with the ratio to cuBLAS from the same run.
//
// Exit status: 0 every kernel verified; 1 a failure or an error; 2 bad
// usage; 3 no GPU.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/BenchOptions.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Cublas.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Host.h"
#include "gemmc-rt/Launch.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <sstream>

using namespace gemmc::rt;

namespace {
struct Result {
  std::string kernel;
  std::string file;
  Size size;
  std::string status; ///< PASS, FAIL, SKIP
  std::string note;
  double relToCublas = NAN, relToFp64 = NAN;
  /// The kernel's error against fp64 over cuBLAS's on the same inputs: above
  /// 1, the kernel is less accurate than cuBLAS.
  double errorVsCublas = NAN;
  double ms = NAN, tflops = NAN, vsCublas = NAN, peakShare = NAN;
  KernelInfo info;
  int64_t dynamicShared = 0;
  /// The splits of K a kernel that takes them at launch ran with.
  int64_t splits = 0;
};

struct Loaded {
  std::string file;
  /// One kernel, or a family's variants.
  std::unique_ptr<KernelFamily> kernel;
};

/// A problem and the kernels that run it.
struct Case {
  Problem p;
  Size size;
  MathMode math = MathMode::Exact;
  std::vector<const Loaded *> run;
  /// `--shapes`: the line's problem.
  std::string label;
  /// `--sweep`: what picks the splits of K of a kernel that takes them at
  /// launch (any count it may take, not only the cost model's).
  uint64_t splitsDraw = 0;
};

/// `--shapes`: how one problem went, from the best kernel that took it.
struct ShapeOutcome {
  std::string label, kernel;
  /// "run", "refused" (no kernel takes it) or "FAIL".
  std::string status;
  double ms = NAN, cublasMs = NAN, ratio = NAN;
};
} // namespace

/// A contract with the smallest size and leading-dimension multiples any
/// variant of `family` asks: a sweep draws problems for the whole family
/// (a family takes what its fallback variant does).
static Contract leastDemanding(const KernelFamily &family) {
  Contract least = family.contract();
  for (const std::unique_ptr<ContractKernel> &variant : family.variants()) {
    const Contract &c = variant->contract();
    least.multipleM = std::min(least.multipleM, c.multipleM);
    least.multipleN = std::min(least.multipleN, c.multipleN);
    least.multipleK = std::min(least.multipleK, c.multipleK);
    for (int i = 0; i < 3; ++i)
      least.ldMultiple[i] = std::min(least.ldMultiple[i], c.ldMultiple[i]);
  }
  return least;
}

/// `--sweep random`: case i runs kernel i mod (number of kernels) on its
/// types, layouts, epilogue and batch count, with sizes drawn from 1 to
/// `maxSize` (a quarter of them at most 64, a quarter primes), leading
/// dimensions padded by 0 to 2 of the kernel's multiples, batch strides by
/// 0 or 1, and, for alpha-beta kernels, beta 0 a third of the time, else
/// uniform in [-1, 1), alpha in [0.5, 1.5). Kernels with fixed sizes keep
/// them.
static std::vector<Case> sweepCases(const BenchOptions &o,
                                    const std::vector<Loaded> &kernels) {
  std::mt19937_64 rng(o.seed);
  // The splits of K, drawn apart: the other draws stay those of a seed.
  std::mt19937_64 splitsRng(o.seed ^ 0x5b117ull);
  std::vector<int64_t> primes;
  std::vector<bool> composite(size_t(o.maxSize) + 1);
  for (int64_t i = 2; i <= o.maxSize; ++i) {
    if (composite[size_t(i)])
      continue;
    primes.push_back(i);
    for (int64_t j = i * i; j <= o.maxSize; j += i)
      composite[size_t(j)] = true;
  }
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto drawSize = [&]() -> int64_t {
    switch (uniform(0, 3)) {
    case 0:
      return uniform(1, std::min<int64_t>(64, o.maxSize));
    case 1:
      if (!primes.empty())
        return primes[size_t(uniform(0, int64_t(primes.size()) - 1))];
      [[fallthrough]];
    default:
      return uniform(1, o.maxSize);
    }
  };
  std::vector<Case> cases;
  for (int64_t i = 0; i < o.count; ++i) {
    const Loaded &l = kernels[size_t(i) % kernels.size()];
    const Contract c = leastDemanding(*l.kernel);
    Case cs;
    cs.splitsDraw = splitsRng();
    Problem &p = cs.p;
    p = c.problem;
    // Sizes at launch, rounded up to the multiples the contract asks for.
    auto draw = [&](int64_t fixed, int64_t multiple) {
      return fixed ? fixed : (drawSize() + multiple - 1) / multiple * multiple;
    };
    p.m = draw(c.problem.m, c.multipleM);
    p.n = draw(c.problem.n, c.multipleN);
    p.k = draw(c.problem.k, c.multipleK);
    p.bias = c.bias;
    p.relu = c.relu;
    if (p.batch == 0) // `batch=?`
      p.batch = uniform(1, 4);
    if (c.alphaBeta) {
      p.alpha = float(std::uniform_real_distribution<double>(0.5, 1.5)(rng));
      p.beta = uniform(0, 2) == 0
                   ? 0.0f
                   : float(std::uniform_real_distribution<double>(-1, 1)(rng));
    }
    if (c.descriptors()) {
      auto pad = [&](int64_t dense, int64_t multiple) {
        return (dense + multiple - 1) / multiple * multiple +
               uniform(0, 2) * multiple;
      };
      p.lda = pad(p.ldOfA(), c.ldMultiple[0]);
      p.ldb = pad(p.ldOfB(), c.ldMultiple[1]);
      p.ldc = pad(p.ldOfC(), c.ldMultiple[2]);
      if (p.batch > 1) {
        p.strideA = p.spanOfA() + uniform(0, 1) * c.ldMultiple[0];
        p.strideB = p.spanOfB() + uniform(0, 1) * c.ldMultiple[1];
        p.strideC = p.spanOfC() + uniform(0, 1) * c.ldMultiple[2];
      }
    }
    cs.size = {p.m, p.n, p.k};
    cs.math = p.tf32 ? MathMode::TF32 : MathMode::Exact;
    cs.run = {&l};
    cases.push_back(cs);
  }
  return cases;
}

/// Peak dense rate, in TFLOP/s, of the unit that computes the problem: FP32
/// FMA lanes, or tensor cores for f16/bf16 and tf32 (FLOP per SM per clock
/// by compute capability).
static double peakTflops(const Device &d, DType type, MathMode math) {
  double perSmPerClock = 256; // 128 FP32 lanes x 2
  if (type != DType::F32 || math == MathMode::TF32) {
    double f16 =
        d.major >= 9 ? 4096 : (d.major == 8 && d.minor == 0 ? 2048 : 1024);
    perSmPerClock = type == DType::F32 ? f16 / 2 : f16;
  }
  return d.smCount * perSmPerClock * d.clockKHz * 1e3 / 1e12;
}

static unsigned poisonWord(DType type) {
  switch (type) {
  case DType::F32:
    return 0x7fc00000u;
  case DType::F16:
    return 0x7e007e00u;
  case DType::BF16:
    return 0x7fc07fc0u;
  }
  return 0xffffffffu;
}

/// Median of `runs` timed launches after `warmup` untimed ones.
template <typename Launch>
static double timeMedian(const BenchOptions &o, DeviceBuffer *flush,
                         Launch launch) {
  for (int i = 0; i < o.warmup; ++i)
    launch();
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  EventTimer timer;
  std::vector<float> times;
  for (int i = 0; i < o.runs; ++i) {
    if (flush)
      flush->fill32(unsigned(i));
    timer.start();
    launch();
    times.push_back(timer.stop());
  }
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

static std::string fmt(double v, const char *format) {
  if (std::isnan(v))
    return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

static std::string sizeStr(const Size &s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

static void printTable(const std::vector<Result> &results) {
  std::printf("\n%-26s %-16s %-6s %10s %9s %9s %7s %5s %7s %7s %-21s %s\n",
              "kernel", "size", "status", "ms", "TFLOP/s", "xcuBLAS", "%peak",
              "regs", "smem", "spill", "rel.err(cuBLAS/fp64)",
              "fp64.err/cuBLAS's");
  for (const Result &r : results) {
    std::string smem =
        r.status == "SKIP"
            ? "-"
            : std::to_string(r.info.staticSharedBytes + r.dynamicShared);
    std::string errors =
        fmt(r.relToCublas, "%.2e") + "/" + fmt(r.relToFp64, "%.2e");
    std::printf(
        "%-26s %-16s %-6s %10s %9s %9s %7s %5s %7s %7s %-21s %8s%s%s\n",
        r.kernel.c_str(), sizeStr(r.size).c_str(), r.status.c_str(),
        fmt(r.ms, "%.4f").c_str(), fmt(r.tflops, "%.2f").c_str(),
        fmt(r.vsCublas, "%.3f").c_str(), fmt(r.peakShare * 100, "%.1f").c_str(),
        r.status == "SKIP" ? "-" : std::to_string(r.info.registers).c_str(),
        smem.c_str(),
        r.status == "SKIP" ? "-" : std::to_string(r.info.localBytes).c_str(),
        errors.c_str(), fmt(r.errorVsCublas, "%.2f").c_str(),
        r.note.empty() ? "" : "  ", r.note.c_str());
  }
}

static std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

static std::string jsonNumber(double v) {
  if (std::isnan(v))
    return "null";
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

/// A CSV field, quoted (RFC 4180) since names and notes may hold commas.
static std::string csvField(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

static void writeCsv(const std::string &path, const std::string &gpu,
                     const std::vector<Result> &results) {
  std::ofstream out(path);
  out << "gpu,kernel,file,m,n,k,status,ms,tflops,x_cublas,peak_share,"
         "registers,shared_bytes,spill_bytes,rel_err_cublas,rel_err_fp64,"
         "fp64_err_vs_cublas,note\n";
  for (const Result &r : results)
    out << csvField(gpu) << "," << csvField(r.kernel) << "," << csvField(r.file)
        << "," << r.size.m << "," << r.size.n << "," << r.size.k << ","
        << r.status << "," << jsonNumber(r.ms) << "," << jsonNumber(r.tflops)
        << "," << jsonNumber(r.vsCublas) << "," << jsonNumber(r.peakShare)
        << "," << r.info.registers << ","
        << r.info.staticSharedBytes + r.dynamicShared << ","
        << r.info.localBytes << "," << jsonNumber(r.relToCublas) << ","
        << jsonNumber(r.relToFp64) << "," << jsonNumber(r.errorVsCublas) << ","
        << csvField(r.note) << "\n";
}

static void writeJson(const std::string &path, const std::string &gpu,
                      const std::vector<Result> &results) {
  std::ofstream out(path);
  out << "{\n  \"gpu\": \"" << jsonEscape(gpu) << "\",\n  \"results\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    out << "    {\"kernel\": \"" << jsonEscape(r.kernel) << "\", \"file\": \""
        << jsonEscape(r.file) << "\", \"m\": " << r.size.m
        << ", \"n\": " << r.size.n << ", \"k\": " << r.size.k
        << ", \"status\": \"" << r.status << "\", \"ms\": " << jsonNumber(r.ms)
        << ", \"tflops\": " << jsonNumber(r.tflops)
        << ", \"x_cublas\": " << jsonNumber(r.vsCublas)
        << ", \"peak_share\": " << jsonNumber(r.peakShare)
        << ", \"registers\": " << r.info.registers
        << ", \"shared_bytes\": " << r.info.staticSharedBytes + r.dynamicShared
        << ", \"spill_bytes\": " << r.info.localBytes
        << ", \"rel_err_cublas\": " << jsonNumber(r.relToCublas)
        << ", \"rel_err_fp64\": " << jsonNumber(r.relToFp64)
        << ", \"fp64_err_vs_cublas\": " << jsonNumber(r.errorVsCublas)
        << ", \"note\": \"" << jsonEscape(r.note) << "\"}"
        << (i + 1 < results.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

/// Loads each kernel file of the command line through its contract.
static std::vector<Loaded> loadKernels(const BenchOptions &o) {
  std::vector<Loaded> kernels;
  for (const std::string &file : o.kernels) {
    auto kernel =
        std::make_unique<KernelFamily>(readFile(file), file, o.optLevel);
    for (const std::unique_ptr<ContractKernel> &variant : kernel->variants()) {
      const Contract &contract = variant->contract();
      if (kernel->isFamily())
        std::cerr << file << ": variant " << contract.variant << "/"
                  << contract.variants << " " << contract.entry << " when "
                  << contract.when.str() << "\n";
      if (contract.grid[0].dim == 'S')
        std::cerr << file << ": " << contract.entry << ": persistent grid of "
                  << variant->persistentBlocks() << " blocks"
                  << (contract.clusterSize() > 1
                          ? " in clusters of " +
                                std::to_string(contract.clusterSize())
                          : std::string())
                  << "\n";
    }
    kernels.push_back({file, std::move(kernel)});
  }
  return kernels;
}

/// Types, layouts and batch: the options', else the first kernel's
/// (`first`, its contract's problem).
static void takeProblemFromKernels(BenchOptions &o, const Problem &first) {
  if (!o.typeGiven) {
    o.type = first.a;
    o.cType = first.c;
  }
  if (!o.mathGiven && o.type == DType::F32 && first.tf32)
    o.math = MathMode::TF32;
  if (!o.layoutGiven) {
    o.aLayout = first.aLayout;
    o.bLayout = first.bLayout;
    o.cLayout = first.cLayout;
  }
  if (!o.batchGiven) {
    o.batch = first.batch ? first.batch : 1; // `batch=?`: 1 by default
    o.strideA = first.strideA;
    o.strideB = first.strideB;
    o.strideC = first.strideC;
  }
}

/// The problem of `size` (with `shape`'s leading dimensions) as the
/// options describe it.
static Problem problemOf(const BenchOptions &o, const Shape &shape) {
  Problem p;
  p.m = shape.size.m, p.n = shape.size.n, p.k = shape.size.k;
  p.a = p.b = o.type;
  p.c = o.cType;
  p.aLayout = o.aLayout, p.bLayout = o.bLayout, p.cLayout = o.cLayout;
  p.alpha = o.alpha, p.beta = o.beta;
  p.bias = o.bias, p.relu = o.relu;
  p.batch = o.batch;
  p.strideA = o.strideA, p.strideB = o.strideB, p.strideC = o.strideC;
  p.lda = shape.lda, p.ldb = shape.ldb, p.ldc = shape.ldc;
  return p;
}

/// The cases: the sweep's, or each size (the options', else the kernels'
/// own) with every kernel.
static std::vector<Case> buildCases(const BenchOptions &o,
                                    const std::vector<Loaded> &kernels) {
  std::vector<Size> sizes = o.sizes;
  if (sizes.empty() && !o.sweep && o.shapes.empty())
    for (const Loaded &l : kernels) {
      const Problem &p = l.kernel->contract().problem;
      if (p.m && p.n && p.k &&
          std::none_of(sizes.begin(), sizes.end(), [&](const Size &s) {
            return s.m == p.m && s.n == p.n && s.k == p.k;
          }))
        sizes.push_back({p.m, p.n, p.k});
    }
  if (sizes.empty() && !o.sweep && o.shapes.empty())
    throw std::runtime_error("no problem size: the kernels take their "
                             "sizes at launch; give --size");

  std::vector<Case> cases;
  if (o.sweep)
    cases = sweepCases(o, kernels);
  // `--shapes`: each line's sizes and leading dimensions.
  std::vector<Shape> shapes = o.shapes;
  if (shapes.empty())
    for (const Size &size : sizes)
      shapes.push_back({size, o.lda, o.ldb, o.ldc});
  for (const Shape &shape : shapes) {
    const Size &size = shape.size;
    Case cs;
    cs.p = problemOf(o, shape);
    cs.size = size;
    if (!o.shapes.empty())
      cs.label = shape.label();
    cs.math = o.math;
    for (const Loaded &l : kernels)
      cs.run.push_back(&l);
    cases.push_back(cs);
  }
  return cases;
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

/// What a whole run shares: the options, the GPU, cuBLAS, the L2 flush
/// buffer, the results and the counts.
struct Bench {
  Bench(const BenchOptions &o, const Device &device) : o(o), device(device) {}

  const BenchOptions &o;
  const Device &device;
  Cublas *cublas = nullptr;
  DeviceBuffer *flush = nullptr;
  std::vector<Result> results;
  int failures = 0, passed = 0;
  size_t done = 0, total = 0;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
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
    if (p.beta != 0) {
      dc.upload(initialC.data());
      return;
    }
    uint32_t word = poisonWord(p.c);
    if (sizeOf(p.c) == 4)
      dc.fill32(word);
    else
      dc.fill16(uint16_t(word));
  }
  void progress(const std::string &name);
  bool verify(std::vector<HostMatrix> &c,
              const std::vector<HostMatrix> *reference, Result &r,
              bool fromCublas);

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
      flop(2.0 * p.m * p.n * p.k * p.batch),
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
                     bool fromCublas) {
  dc.download(bytes.data());
  bool pass = true;
  r.relToFp64 = 0;
  r.relToCublas = reference ? 0 : NAN;
  for (int64_t i = 0; i < p.batch; ++i) {
    size_t at = size_t(i * p.strideOfC()) * sizeOf(p.c);
    c[i].unpack(std::vector<unsigned char>(
        bytes.begin() + at,
        bytes.begin() + at + size_t(p.spanOfC()) * sizeOf(p.c)));
    Epilogue epilogue{p.alpha, p.beta, &c0s[i]};
    epilogue.bias = p.bias.empty() ? nullptr : &bias;
    epilogue.biasPerRow = perRow;
    epilogue.relu = p.relu;
    // cuBLAS has no bias or ReLU: the host adds them to its result.
    if (fromCublas)
      finishOnHost(c[i], epilogue);
    // The fp64 reference at the samples, once per case: every kernel is
    // compared with the same values.
    if (references.size() <= size_t(i))
      references.push_back(referenceAt(as[i], bs[i], sample, epilogue));
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
  r.status = pass ? "PASS" : "FAIL";
  return pass;
}

void CaseRun::runCublas() {
  Result r;
  r.kernel = "cuBLAS";
  r.file = Cublas::describe(p, cs.math);
  r.size = cs.size;
  progress(r.kernel);
  resetC();
  bench.cublas->gemm(p, cs.math, ops);
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  reference = std::make_unique<std::vector<HostMatrix>>(batchOfC());
  if (verify(*reference, nullptr, r, /*fromCublas=*/true)) {
    if (!o.sweep) {
      cublasMs = timeMedian(o, bench.flush,
                            [&] { bench.cublas->gemm(p, cs.math, ops); });
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
  // A family runs the problem on the variant its rule picks.
  std::string why;
  const ContractKernel *kernel = l.kernel->select(p, why);
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
  kernel->launch(ops, p, nullptr, splits);
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  std::vector<HostMatrix> c = batchOfC();
  bool pass = verify(c, reference.get(), r, /*fromCublas=*/false);
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
                    [&] { kernel->launch(ops, p, nullptr, splits); });
  r.tflops = flop / (r.ms * 1e-3) / 1e12;
  r.vsCublas = cublasMs / r.ms;
  r.peakShare = r.tflops / peak;
  bench.results.push_back(r);
}

/// `--shapes`: the outcome of the case whose results are `results`
/// (cuBLAS's first where it ran): the fastest verified kernel against
/// cuBLAS.
static ShapeOutcome shapeOutcome(const Case &cs,
                                 const std::vector<Result> &results) {
  ShapeOutcome out;
  out.label = cs.label;
  out.status = "refused";
  for (const Result &r : results) {
    if (r.kernel == "cuBLAS") {
      out.cublasMs = r.ms;
      continue;
    }
    if (r.status == "FAIL")
      out.status = "FAIL";
    if (r.status != "PASS" || out.status == "FAIL")
      continue;
    if (out.status != "run" || r.ms < out.ms) {
      out.status = "run";
      out.kernel = r.kernel;
      out.ms = r.ms;
    }
  }
  out.ratio = out.cublasMs / out.ms;
  return out;
}

/// `--shapes`: each problem's best kernel and ratio, then the geometric
/// mean of the ratios, the lowest, and the problems refused or failed.
static void printShapes(const BenchOptions &o,
                        const std::vector<ShapeOutcome> &outcomes) {
  std::printf("\n%-44s %-24s %10s %10s %9s\n", "problem", "best kernel", "ms",
              "cuBLAS ms", "xcuBLAS");
  double logSum = 0;
  int timed = 0, refused = 0, failed = 0;
  const ShapeOutcome *lowest = nullptr;
  for (const ShapeOutcome &s : outcomes) {
    std::printf("%-44s %-24s %10.4f %10.4f %9.3f%s\n", s.label.c_str(),
                s.status == "run" ? s.kernel.c_str() : s.status.c_str(), s.ms,
                s.cublasMs, s.ratio,
                s.status == "run" ? "" : ("  " + s.status).c_str());
    refused += s.status == "refused";
    failed += s.status == "FAIL";
    if (s.status != "run" || !(s.ratio > 0))
      continue;
    logSum += std::log(s.ratio);
    ++timed;
    if (!lowest || s.ratio < lowest->ratio)
      lowest = &s;
  }
  std::printf("shapes: %zu problems, %d timed, %d refused by every kernel, "
              "%d failed\n",
              outcomes.size(), timed, refused, failed);
  if (timed)
    std::printf("geometric mean x cuBLAS: %.3f over %d problems; lowest "
                "%.3f (%s, %s)\n",
                std::exp(logSum / timed), timed, lowest->ratio,
                lowest->label.c_str(), lowest->kernel.c_str());
  if (o.shapeSummary.empty())
    return;
  std::ofstream csv(o.shapeSummary);
  csv << "problem,kernel,status,ms,cublas_ms,ratio\n";
  for (const ShapeOutcome &s : outcomes)
    csv << s.label << "," << s.kernel << "," << s.status << "," << s.ms << ","
        << s.cublasMs << "," << s.ratio << "\n";
}

/// The line under the table: what was run and how.
static void printSummary(const BenchOptions &o, const Bench &bench) {
  if (o.sweep) {
    std::printf("sweep: %lld random cases (seed %llu, sizes 1 to %lld), "
                "%d kernel runs verified, %d failed; untimed\n",
                (long long)o.count, (unsigned long long)o.seed,
                (long long)o.maxSize, bench.passed, bench.failures);
    return;
  }
  std::printf(
      "problem: A %s:%s, B %s:%s, C %s:%s, math %s%s; tolerance by "
      "precision%s; median of %d runs after %d warm-up%s\n",
      toString(o.type), toString(o.aLayout), toString(o.type),
      toString(o.bLayout), toString(o.cType), toString(o.cLayout),
      o.math == MathMode::TF32 ? "tf32" : "exact",
      o.alpha == 1 && o.beta == 0 ? ""
                                  : (", alpha " + std::to_string(o.alpha) +
                                     ", beta " + std::to_string(o.beta))
                                        .c_str(),
      o.tolerance > 0 ? (" (" + std::to_string(o.tolerance) + ")").c_str() : "",
      o.runs, o.warmup, o.flushL2 ? ", L2 flushed" : "");
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

/// `--prune F`: the kernels of `cs` whose chosen variant the cost model
/// predicts at most F times slower than the fastest prediction among them
/// (all of them without --prune; a kernel that takes no variant stays, to
/// be reported as skipped).
static std::vector<const Loaded *> prune(const BenchOptions &o,
                                         const Case &cs) {
  if (o.prune <= 0)
    return cs.run;
  std::vector<double> predicted;
  double best = INFINITY;
  for (const Loaded *l : cs.run) {
    std::vector<RankedVariant> ranked = l->kernel->rank(cs.p);
    double seconds = !ranked.empty() && ranked.front().whyNot.empty()
                         ? ranked.front().seconds
                         : NAN;
    predicted.push_back(seconds);
    if (seconds < best)
      best = seconds;
  }
  std::vector<const Loaded *> kept;
  for (size_t i = 0; i < cs.run.size(); ++i)
    if (!(predicted[i] > o.prune * best))
      kept.push_back(cs.run[i]);
  return kept;
}

/// `--explain`: how each family would choose its variant for each problem,
/// by its contracts and the cost model on `--device-model` (no GPU): every
/// variant in the order of choice with its predicted time and the model's
/// terms, or why it cannot run the problem.
static int explain(BenchOptions &o) {
  std::vector<std::pair<std::string, std::vector<Contract>>> files;
  for (const std::string &path : o.kernels) {
    std::vector<Contract> contracts;
    std::string error;
    if (!parseContracts(readFile(path), contracts, error)) {
      std::cerr << "gemm-bench: error: " << path << ": " << error << "\n";
      return 1;
    }
    files.emplace_back(path, std::move(contracts));
  }
  takeProblemFromKernels(o, files.front().second.front().problem);
  std::vector<Shape> shapes = o.shapes;
  if (shapes.empty())
    for (const Size &size : o.sizes)
      shapes.push_back({size, o.lda, o.ldb, o.ldc});
  std::printf("device: %s\n", o.deviceModel.name.c_str());
  auto ms = [](double seconds) { return fmt(seconds * 1e3, "%.4f"); };
  for (const Shape &shape : shapes) {
    for (const auto &[path, contracts] : files) {
      Problem p = problemOf(o, shape);
      std::printf("\n%s: %s (%s)\n", path.c_str(), shape.label().c_str(),
                  p.str().c_str());
      std::printf("%-4s %-32s %10s %6s %7s %6s %6s %10s %10s %10s  %s\n",
                  "rank", "variant", "pred. ms", "splits", "units", "waves",
                  "rounds",
                  "compute ms", "memory ms", "reduce ms",
                  "constants (fixed us, latency us, compute, memory, "
                  "reduce)");
      int rank = 0;
      for (const RankedVariant &r : rankVariants(contracts, p, o.deviceModel)) {
        const Contract &c = contracts[r.index];
        if (!r.whyNot.empty()) {
          std::printf("%-4s %-32s  %s\n", "-", c.entry.c_str(),
                      r.whyNot.c_str());
          continue;
        }
        const CostFeatures &f = r.features;
        const CostConstants &k = r.constants;
        char constants[128];
        std::snprintf(constants, sizeof(constants),
                      "%.2f %.2f %.3f %.3f %.3f%s%s", k.fixed, k.latency,
                      k.compute, k.memory, k.reduce,
                      c.hasCost && c.cost.fitted ? "" : " (defaults)",
                      r.overrides ? "; override: " : "");
        std::printf("%-4d %-32s %10s %6lld %7lld %6lld %6lld %10s %10s %10s  "
                    "%s%s\n",
                    ++rank, c.entry.c_str(), ms(r.seconds).c_str(),
                    (long long)r.splits, (long long)f.units, (long long)f.waves, (long long)f.rounds,
                    ms(f.compute).c_str(), ms(f.memory).c_str(),
                    ms(f.reduce).c_str(), constants,
                    r.overrides ? c.when.str().c_str() : "");
      }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  BenchOptions o;
  std::string error;
  if (!parseBenchOptions(std::vector<std::string>(argv + 1, argv + argc), o,
                         error)) {
    std::cerr << "gemm-bench: error: " << error << "\n" << kBenchUsage;
    return 2;
  }
  if (o.help) {
    std::cout << kBenchUsage;
    return 0;
  }

  if (!o.shapesFile.empty()) {
    try {
      if (!parseShapes(readFile(o.shapesFile), o.shapes, error)) {
        std::cerr << "gemm-bench: error: " << o.shapesFile << ": " << error
                  << "\n";
        return 2;
      }
    } catch (const std::exception &e) {
      std::cerr << "gemm-bench: error: " << e.what() << "\n";
      return 2;
    }
  }

  if (o.explain) {
    try {
      return explain(o);
    } catch (const std::exception &e) {
      std::cerr << "gemm-bench: error: " << e.what() << "\n";
      return 1;
    }
  }

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
    if (!kernels.empty())
      takeProblemFromKernels(o, kernels.front().kernel->contract().problem);
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
