//===- Explain.cpp - gemm-bench --explain --------------------------------===//
//
// `--explain`: the cost model's ranking of each family's variants, without
// a GPU (with `--autotune N`, the variants a measured choice would time).
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/Autotune.h"
#include "gemmc-rt/Bench.h"

#include <cstdio>
#include <iostream>

using namespace gemmc::rt;

/// With `--autotune N`: the variants the measured choice would time.
static void printCandidates(const BenchOptions &o,
                            const std::vector<Contract> &contracts,
                            const std::vector<RankedVariant> &ranking) {
  AutotuneOptions options;
  options.candidates = int(o.autotune);
  std::vector<MeasuredVariant> candidates =
      autotuneCandidates(ranking, options);
  std::string names;
  for (const MeasuredVariant &m : candidates)
    names += (names.empty() ? "" : ", ") + contracts[m.index].entry;
  long long n = o.autotune;
  if (candidates.empty())
    std::printf("--autotune %lld measures nothing: no variant runs it\n", n);
  else if (candidates.size() == 1)
    std::printf("--autotune %lld measures nothing: %s alone is a candidate\n",
                n, names.c_str());
  else
    std::printf("--autotune %lld measures: %s\n", n, names.c_str());
}

/// `--explain`: how each family would choose its variant for each problem,
/// by its contracts and the cost model on `--device-model` (no GPU): every
/// variant in the order of choice with its predicted time and the model's
/// terms, or why it cannot run the problem.
int gemmc::rt::explainBench(BenchOptions &o) {
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
  takeProblemFromKernels(o, files.front().second.front());
  // The problems: each shape's, or each grouped layer's (`--grouped`: its
  // tokens the rows of A, each group's rows on the device; the rows a
  // group, which a variant's `when` may bound, M over the groups; of the
  // general form, its groups' rows in all, as the table's rows from the
  // host give them).
  struct Explained {
    Shape shape;
    std::string label;
    int64_t groups = 0;
  };
  std::vector<Explained> problems;
  for (const Shape &shape : o.shapes)
    problems.push_back({shape, shape.label(), 0});
  if (o.shapes.empty())
    for (const Size &size : o.sizes) {
      Shape shape{size, o.lda, o.ldb, o.ldc};
      problems.push_back({shape, shape.label(), 0});
    }
  for (const GroupedShape &g : o.groupedShapes) {
    Shape shape{{g.tokens, g.n, g.k}, 0, 0, 0};
    problems.push_back({shape, g.label(), g.groups});
  }
  std::printf("device: %s\n", o.deviceModel.name.c_str());
  auto ms = [](double seconds) { return fmt(seconds * 1e3, "%.4f"); };
  for (const Explained &e : problems) {
    for (const auto &[path, contracts] : files) {
      Problem p = problemOf(o, e.shape);
      if (e.groups) {
        p.grouped = true;
        p.groups = e.groups;
        p.groupTable = contracts.front().problem.groupTable;
      }
      std::printf("\n%s: %s (%s)\n", path.c_str(), e.label.c_str(),
                  p.str().c_str());
      std::printf("%-4s %-32s %10s %6s %7s %6s %6s %10s %10s %10s %11s  %s\n",
                  "rank", "variant", "pred. ms", "splits", "units", "waves",
                  "rounds", "compute ms", "memory ms", "reduce ms",
                  "pipeline ms",
                  "constants (fixed us, latency us, compute, memory, "
                  "reduce)");
      int rank = 0;
      std::vector<RankedVariant> ranking =
          rankVariants(contracts, p, o.deviceModel);
      for (const RankedVariant &r : ranking) {
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
        std::printf("%-4d %-32s %10s %6lld %7lld %6lld %6lld %10s %10s %10s "
                    "%11s  %s%s\n",
                    ++rank, c.entry.c_str(), ms(r.seconds).c_str(),
                    (long long)r.splits, (long long)f.units, (long long)f.waves,
                    (long long)f.rounds, ms(f.compute).c_str(),
                    ms(f.memory).c_str(), ms(f.reduce).c_str(),
                    ms(f.pipeline).c_str(), constants,
                    r.overrides ? c.when.str().c_str() : "");
      }
      if (o.autotune > 0)
        printCandidates(o, contracts, ranking);
    }
  }
  return 0;
}
