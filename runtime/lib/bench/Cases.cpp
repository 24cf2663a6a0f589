//===- Cases.cpp - the cases of a run ------------------------------------===//
//
// The problems gemm-bench runs and the kernels of each: `--size` and
// `--shapes` problems, `--sweep random` cases, and `--prune`.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/Bench.h"

#include <algorithm>
#include <iostream>
#include <random>

using namespace gemmc::rt;

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
    p = c.problemWithEpilogue();
    // Sizes at launch, rounded up to the multiples the contract asks for.
    auto draw = [&](int64_t fixed, int64_t multiple) {
      return fixed ? fixed : (drawSize() + multiple - 1) / multiple * multiple;
    };
    p.m = draw(c.problem.m, c.multipleM);
    p.n = draw(c.problem.n, c.multipleN);
    p.k = draw(c.problem.k, c.multipleK);
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
        // At least the matrix, at the multiples the contract asks.
        auto stride = [&](int64_t span, int i) {
          int64_t multiple = std::max(c.ldMultiple[i], c.strideMultiple[i]);
          return (span + multiple - 1) / multiple * multiple +
                 uniform(0, 1) * multiple;
        };
        p.strideA = stride(p.spanOfA(), 0);
        p.strideB = stride(p.spanOfB(), 1);
        p.strideC = stride(p.spanOfC(), 2);
      }
    }
    cs.size = {p.m, p.n, p.k};
    cs.math = p.tf32 ? MathMode::TF32 : MathMode::Exact;
    cs.run = {&l};
    cases.push_back(cs);
  }
  return cases;
}

/// Loads each kernel file of the command line through its contract.
std::vector<Loaded> gemmc::rt::loadKernels(const BenchOptions &o) {
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

/// Types, layouts, batch and FP8's scales: the options', else the first
/// kernel's (`kernel`, its contract).
void gemmc::rt::takeProblemFromKernels(BenchOptions &o,
                                       const Contract &kernel) {
  const Problem &first = kernel.problem;
  if (!o.scalesGiven)
    o.scales = kernel.scales;
  o.residual = kernel.residual;
  o.outputScale = kernel.outputScale;
  o.fastAccumulate = first.fastAccumulate;
  if (!o.typeGiven) {
    o.type = first.a;
    o.bType = first.b;
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
Problem gemmc::rt::problemOf(const BenchOptions &o, const Shape &shape) {
  Problem p;
  p.m = shape.size.m, p.n = shape.size.n, p.k = shape.size.k;
  p.a = o.type;
  p.b = o.bType;
  p.c = o.cType;
  p.aLayout = o.aLayout, p.bLayout = o.bLayout, p.cLayout = o.cLayout;
  p.alpha = o.alpha, p.beta = o.beta;
  p.bias = o.bias, p.activation = o.activation;
  p.scales = o.scales;
  p.residual = o.residual;
  p.outputScale = o.outputScale;
  p.fastAccumulate = o.fastAccumulate;
  p.batch = o.batch;
  p.strideA = o.strideA, p.strideB = o.strideB, p.strideC = o.strideC;
  // A shape's own batch is dense.
  if (shape.batch) {
    p.batch = shape.batch;
    p.strideA = p.strideB = p.strideC = 0;
  }
  p.lda = shape.lda, p.ldb = shape.ldb, p.ldc = shape.ldc;
  return p;
}

/// The cases: the sweep's, or each size (the options', else the kernels'
/// own) with every kernel.
std::vector<Case> gemmc::rt::buildCases(const BenchOptions &o,
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

/// `--prune F`: the kernels of `cs` whose chosen variant the cost model
/// predicts at most F times slower than the fastest prediction among them
/// (all of them without --prune; a kernel that takes no variant stays, to
/// be reported as skipped).
std::vector<const Loaded *> gemmc::rt::prune(const BenchOptions &o,
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
