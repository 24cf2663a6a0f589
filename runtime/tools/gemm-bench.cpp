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


#include "gemmc-rt/Bench.h"

#include <iostream>

using namespace gemmc::rt;

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

  if (!o.groupedFile.empty()) {
    try {
      if (!parseGroupedShapes(readFile(o.groupedFile), o.groupedShapes,
                              error)) {
        std::cerr << "gemm-bench: error: " << o.groupedFile << ": " << error
                  << "\n";
        return 2;
      }
    } catch (const std::exception &e) {
      std::cerr << "gemm-bench: error: " << e.what() << "\n";
      return 2;
    }
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
      return explainBench(o);
    } catch (const std::exception &e) {
      std::cerr << "gemm-bench: error: " << e.what() << "\n";
      return 1;
    }
  }

  return runBench(o);
}
