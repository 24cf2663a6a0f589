//===- Saturating.h - sizes that saturate instead of overflowing -*- C++
//-*-===//
//
// Sizes reach 2^31 - 1 and the model only compares products and sums of
// them with limits: they saturate at INT64_MAX.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_SATURATING_H
#define GEMMC_SCHEDULE_SATURATING_H

#include <cstdint>

namespace gemmc {

inline int64_t satMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

inline int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

} // namespace gemmc

#endif // GEMMC_SCHEDULE_SATURATING_H
