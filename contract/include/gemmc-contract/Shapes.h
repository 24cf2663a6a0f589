//===- Shapes.h - the shapes-file format and problem sizes ----*- C++ -*-===//
//
// A shapes file lists problems, one a line: `MxNxK` (or `N` for N^3), then
// optionally `lda=L ldb=L ldc=L` (elements; dense where not given) and
// `batch=B` (a dense batch of B GEMMs); `#` starts a comment. gemm-bench times them (`--shapes`), gemmc-tune reads
// them back with the results, and benchmarks/ holds the sets.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_CONTRACT_SHAPES_H
#define GEMMC_CONTRACT_SHAPES_H

#include <cstdint>
#include <string>
#include <vector>

namespace gemmc::contract {

struct Size {
  int64_t m = 0, n = 0, k = 0;
};

/// One problem of a shapes file: its sizes and leading dimensions (0:
/// dense).
struct Shape {
  Size size;
  int64_t lda = 0, ldb = 0, ldc = 0;
  /// `batch=B`: a dense batch of B GEMMs (0: not given).
  int64_t batch = 0;

  /// `MxNxK`, with ` lda=… ldb=… ldc=… batch=…` where given: the
  /// problem's name in results files.
  std::string label() const;
};

/// Parses `4096`, `4096x2048x1024` or a comma-separated list of them, each
/// size from 1 to 2^31 - 1.
bool parseSizes(const std::string &text, std::vector<Size> &sizes);

/// Parses one problem (a shapes-file line without its comment, or a
/// label); false with `error` saying why.
bool parseShape(const std::string &text, Shape &shape, std::string &error);

/// Parses a shapes file. Returns false with `error` naming the line.
bool parseShapes(const std::string &text, std::vector<Shape> &shapes,
                 std::string &error);

} // namespace gemmc::contract

#endif // GEMMC_CONTRACT_SHAPES_H
