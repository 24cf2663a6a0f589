//===- BenchOptions.h - gemm-bench's command line -----------------------===//

#ifndef GEMMC_RT_BENCHOPTIONS_H
#define GEMMC_RT_BENCHOPTIONS_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Cublas.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gemmc::rt {

/// A line of `--grouped FILE`: a mixture-of-experts layer's grouped GEMM,
/// `tokens` rows routed among `groups` experts (balanced, or Zipf-skewed:
/// routeTokens), each expert's weights K x N.
struct GroupedShape {
  int64_t groups = 0, tokens = 0, n = 0, k = 0;
  std::string routing = "balanced";
  std::string name;

  /// `[NAME ]g=G t=T NxK`: the layer's name in results (the routing not
  /// included).
  std::string label() const;
};

/// Parses `--grouped`'s file: one `groups=G tokens=T n=N k=K
/// routing=balanced|zipf [name=NAME]` a line, `#` comments.
bool parseGroupedShapes(const std::string &text,
                        std::vector<GroupedShape> &shapes, std::string &error);

/// The rows of `tokens` routed to each of `groups` experts: as evenly as
/// they divide ("balanced"), or by Zipf's law (s = 1.2) over the experts in
/// an order drawn from `seed` ("zipf"), the rarest experts' shares rounding
/// down to none.
std::vector<int64_t> routeTokens(int64_t tokens, int64_t groups,
                                 const std::string &routing, uint64_t seed);

struct BenchOptions {
  std::vector<std::string> kernels; ///< PTX files
  std::vector<Size> sizes;          ///< empty: each fixed kernel's own size
  DType type = DType::F32;          ///< of A and B
  DType bType = DType::F32;         ///< of B: `type`, or FP8's other kind
  DType cType = DType::F32;
  bool typeGiven = false, cTypeGiven = false, mathGiven = false;
  MathMode math = MathMode::Exact;
  Layout aLayout = Layout::Row, bLayout = Layout::Row, cLayout = Layout::Row;
  bool layoutGiven = false;
  bool cublas = true;
  int runs = 20;
  int warmup = 5;
  bool flushL2 = false;
  uint64_t seed = 1;
  int64_t samples = 1024;
  double tolerance = 0; ///< 0: by precision (toleranceFor)
  float alpha = 1, beta = 0; ///< C = alpha * A * B + beta * C
  std::string bias;          ///< "row", "col" or empty: + bias[row or col]
  std::string activation;    ///< then relu, gelu, gelu-tanh or silu
  /// FP8's scales: "tensor", "rowwise", "block" or none (empty; by
  /// default the first kernel's), random in [0.5, 2) (seeds + 5 and + 6).
  std::string scales;
  bool scalesGiven = false;
  /// The first kernel's `residual = add`: R random (seed + 7), shaped and
  /// strided as C.
  bool residual = false;
  /// The first kernel's `output-scale`: C's scale random (seed + 9).
  bool outputScale = false;
  /// FP8 summed on the tensor cores throughout (the first kernel's
  /// `math=fast-accumulate`): cuBLASLt then accumulates fast too.
  bool fastAccumulate = false;
  /// A batch of GEMMs, strides in elements (0: dense); by default the first
  /// kernel's.
  int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
  bool batchGiven = false;
  /// Leading dimensions of A, B and C (0: dense); kernels that take them
  /// at launch run with them, the others are skipped unless dense.
  int64_t lda = 0, ldb = 0, ldc = 0;
  /// `--sweep random --count N`: N random cases (sizes 1 to `maxSize`,
  /// primes included, padded leading dimensions, beta, the kernels' layouts
  /// and batches), each verified against cuBLAS and fp64, none timed.
  bool sweep = false;
  int64_t count = 100, maxSize = 3000;
  /// `--shapes FILE`: a list of problems (parseShapes), each run by every
  /// kernel that takes it and by cuBLAS, summarised by the best kernel's
  /// ratio and their geometric mean; `--shape-summary FILE` writes that
  /// summary as CSV.
  std::string shapesFile, shapeSummary;
  std::vector<Shape> shapes;
  /// `--grouped FILE`: grouped problems (GroupedShape) for a grouped
  /// kernel (contract `groups=`), each verified group by group and timed
  /// beside a loop of cuBLAS calls; with `--sweep random`, random grouped
  /// problems instead.
  std::string groupedFile;
  std::vector<GroupedShape> groupedShapes;
  /// `--results FILE` (with --shapes): each kernel's outcome per problem,
  /// appended as it comes (`problem, file, kernel, status, ms, cuBLAS ms`,
  /// tab-separated); a problem and file already there are not run again,
  /// so a run cut short resumes (gemmc-tune reads the file).
  std::string resultsFile;
  /// `--prune F` (with --shapes): run a kernel on a problem only where the
  /// cost model predicts it at most F times slower than the fastest
  /// prediction among the kernels (0: run every one).
  double prune = 0;
  /// `--budget SECONDS`: start no problem after this long (0: no limit).
  double budget = 0;
  /// `--splits N`: a kernel whose splits of K are chosen at launch runs
  /// with N (at most what it may take; 0: the cost model's count, or in a
  /// sweep any count it may take).
  int64_t splits = 0;
  /// `--autotune N`: a family runs each problem on the fastest of the cost
  /// model's first N variants, measured (measureChoice; 0: the model's
  /// choice).
  int64_t autotune = 0;
  /// `--explain`: print each family's ranking of its variants for the
  /// problems, without a GPU, on `deviceModel` (`--device-model`).
  bool explain = false;
  DeviceModel deviceModel;
  int optLevel = 4;
  int device = 0;
  std::string csv, json;
  bool help = false;
};

/// Parses gemm-bench's arguments. Returns false with `error` set on bad
/// usage.
bool parseBenchOptions(const std::vector<std::string> &args,
                       BenchOptions &options, std::string &error);

/// The default tolerance on the relative Frobenius error for a precision;
/// docs/benchmarks.md justifies each.
double toleranceFor(DType input, DType output, MathMode math, int64_t k);

extern const char *kBenchUsage;

} // namespace gemmc::rt

#endif // GEMMC_RT_BENCHOPTIONS_H
