//===- Family.h - the problems a variant of a kernel family takes -*- C++ -*-===//
//
// A kernel family (docs/dsl.md, "Kernel families") compiles several
// schedules of one problem into one PTX module; each variant says with
// `when` the sizes it is for. The runtime runs a problem on the first
// variant, in the order written, whose range holds its sizes and whose
// contract takes it (leading dimensions, alignment).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_FAMILY_H
#define GEMMC_SCHEDULE_FAMILY_H

#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace gemmc {

/// Closed ranges of M, N and K: `when m <= 64, k >= 4096`.
struct ShapeRange {
  static constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

  /// Indexed by dimension: 0 is M, 1 is N, 2 is K.
  std::array<int64_t, 3> lo = {1, 1, 1};
  std::array<int64_t, 3> hi = {kUnbounded, kUnbounded, kUnbounded};

  /// The dimension named `m`, `n` or `k`, or -1.
  static int dimension(char name);

  /// Narrows dimension `dim` to at most (`atMost`) or at least `value`.
  void constrain(int dim, bool atMost, int64_t value);
  /// Every size (no condition).
  bool isAll() const;
  /// No size of some dimension.
  bool isEmpty() const;
  bool contains(int64_t m, int64_t n, int64_t k) const;
  /// The contract's spelling: `m<=64 k>=4096`, `256<=m<=1024`, or `any`.
  std::string str() const;
};

} // namespace gemmc

#endif // GEMMC_SCHEDULE_FAMILY_H
