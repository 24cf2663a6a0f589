//===- Results.h - the tuning-results format ------------------*- C++ -*-===//
//
// `gemm-bench --shapes FILE --results RESULTS` appends one line per
// problem and kernel file as each is measured, tab-separated:
//
//   problem  file  kernel  status  ms  cuBLAS-ms  [splits]
//
// (the problem's label, Shapes.h; the kernel file; the entry that ran;
// PASS, FAIL or SKIP; the median times, `null` where none; for a kernel
// whose split-K splits are chosen at launch, the count it ran with).
// gemmc-tune
// reads it to fit the cost model and choose a family's variants; a run
// cut short resumes from it.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_CONTRACT_RESULTS_H
#define GEMMC_CONTRACT_RESULTS_H

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gemmc::contract {

struct ResultRow {
  std::string problem, file, kernel, status;
  double ms = NAN, cublasMs = NAN;
  /// The splits of K chosen at launch; 0: none chosen (the contract's).
  int64_t splits = 0;

  /// The kernel file's name without its folder (fileNameOf).
  std::string fileName() const;
  bool passed() const { return status == "PASS" && ms > 0; }
};

/// A kernel file's name without its folder: what a results file knows it
/// by, so that a run resumes wherever the kernels are copied.
std::string fileNameOf(const std::string &path);

/// The row as one line, newline included.
std::string formatResult(const ResultRow &row);
/// Parses one line; false if it is not a row.
bool parseResult(const std::string &line, ResultRow &row);
/// Parses a whole file's rows, skipping lines that are not rows.
std::vector<ResultRow> parseResults(const std::string &text);

} // namespace gemmc::contract

#endif // GEMMC_CONTRACT_RESULTS_H
