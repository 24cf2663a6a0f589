//===- Bench.h - gemm-bench's parts -----------------------------*- C++ -*-===//
//
// What gemm-bench (runtime/tools) is made of, for its thin main: the cases
// a run measures (Cases.cpp: sizes, shapes files, random sweeps, pruning by
// the cost model), their run on the GPU (Run.cpp: inputs, cuBLAS, each
// kernel verified, then timed), the report (Report.cpp: the table, CSV,
// JSON, the shapes' summary) and `--explain` (Explain.cpp, no GPU).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_BENCH_H
#define GEMMC_RT_BENCH_H

#include "gemmc-rt/BenchOptions.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Cublas.h"
#include "gemmc-rt/CublasLt.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Host.h"
#include "gemmc-rt/Launch.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gemmc::rt {

/// One kernel (or cuBLAS) on one problem: verified, then timed.
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

/// A kernel file of the command line, loaded through its contract.
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

/// What a whole run shares: the options, the GPU, cuBLAS, the L2 flush
/// buffer, the results and the counts.
struct Bench {
  Bench(const BenchOptions &o, const Device &device) : o(o), device(device) {}

  const BenchOptions &o;
  const Device &device;
  Cublas *cublas = nullptr;
  /// The FP8 baseline (cublasLtMatmul), made at the first FP8 case.
  std::unique_ptr<CublasLt> cublasLt;
  DeviceBuffer *flush = nullptr;
  std::vector<Result> results;
  int failures = 0, passed = 0;
  size_t done = 0, total = 0;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};

// Cases.cpp

/// Loads each kernel file of the command line through its contract.
std::vector<Loaded> loadKernels(const BenchOptions &o);
/// Takes the problem's types, layouts and epilogue from the first kernel
/// where the command line leaves them.
void takeProblemFromKernels(BenchOptions &o, const Contract &first);
/// The problem of one shape under the options.
Problem problemOf(const BenchOptions &o, const Shape &shape);
/// The cases of the run: `--sweep`'s random ones, or each size or shape
/// with every kernel.
std::vector<Case> buildCases(const BenchOptions &o,
                             const std::vector<Loaded> &kernels);
/// `--prune F`: the kernels of `cs` the cost model keeps.
std::vector<const Loaded *> prune(const BenchOptions &o, const Case &cs);

// Run.cpp

/// Median of `--runs` timed calls of `launch` after `--warmup` untimed
/// ones: the GPU's time, the host's cost of each launch left out (a gated
/// EventTimer); `flush`, where given, is rewritten before each.
double timeMedian(const BenchOptions &o, DeviceBuffer *flush,
                  const std::function<void()> &launch);

/// The median of `values`.
double medianOf(std::vector<double> values);
/// A NaN of `type`, repeated over 32 bits.
unsigned poisonWord(DType type);
/// Fills `buffer` with poisonWord(type): C before a kernel writes it.
void poison(DeviceBuffer &buffer, DType type);
/// `p`'s scales of A (`ofA`) or of B (a grouped problem's, a group),
/// random in [0.5, 2) from `seed`, uploaded to a new `device` buffer.
std::vector<float> randomScales(const Problem &p, bool ofA, uint64_t seed,
                                std::unique_ptr<DeviceBuffer> &device);

/// The whole run on the GPU: every case, cuBLAS and each kernel, the
/// report. The exit status: 0 all verified, 1 a failure or an error, 3 no
/// GPU.
int runBench(BenchOptions &o);

// Grouped.cpp

/// A run of grouped kernels (contract `groups=`) on `--grouped`'s problems
/// or a sweep's: each verified group by group, then timed beside a loop of
/// cuBLAS calls. The exit status as runBench's.
int runGroupedBench(const BenchOptions &o, Bench &bench,
                    const std::vector<Loaded> &kernels);

// Report.cpp

/// `v` printed with `format`, or "-" for NaN.
std::string fmt(double v, const char *format);
std::string sizeStr(const Size &s);
void printTable(const std::vector<Result> &results);
void writeCsv(const std::string &path, const std::string &gpu,
              const std::vector<Result> &results);
void writeJson(const std::string &path, const std::string &gpu,
               const std::vector<Result> &results);
/// `--shapes`: the outcome of one case from its results.
ShapeOutcome shapeOutcome(const Case &cs, const std::vector<Result> &results);
/// `--shapes`: each problem's best kernel and ratio, then the geometric
/// mean, the lowest, and the problems refused or failed.
void printShapes(const BenchOptions &o,
                 const std::vector<ShapeOutcome> &outcomes);
/// The line under the table: what was run and how.
void printSummary(const BenchOptions &o, const Bench &bench);

// Explain.cpp

/// `--explain`: each family's ranking of its variants for each problem,
/// by the cost model on `--device-model` (no GPU).
int explainBench(BenchOptions &o);

} // namespace gemmc::rt

#endif // GEMMC_RT_BENCH_H
