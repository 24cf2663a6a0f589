//===- Family.cpp - the problems a variant of a kernel family takes -------===//

#include "gemmc/Schedule/Family.h"
#include <algorithm>

using namespace gemmc;

int ShapeRange::dimension(char name) {
  switch (name) {
  case 'm':
    return 0;
  case 'n':
    return 1;
  case 'k':
    return 2;
  default:
    return -1;
  }
}

void ShapeRange::constrain(int dim, bool atMost, int64_t value) {
  if (atMost)
    hi[dim] = std::min(hi[dim], value);
  else
    lo[dim] = std::max(lo[dim], value);
}

bool ShapeRange::isAll() const {
  for (int dim = 0; dim < 3; ++dim)
    if (lo[dim] > 1 || hi[dim] != kUnbounded)
      return false;
  return true;
}

bool ShapeRange::isEmpty() const {
  for (int dim = 0; dim < 3; ++dim)
    if (lo[dim] > hi[dim])
      return true;
  return false;
}

bool ShapeRange::contains(int64_t m, int64_t n, int64_t k) const {
  const int64_t sizes[3] = {m, n, k};
  for (int dim = 0; dim < 3; ++dim)
    if (sizes[dim] < lo[dim] || sizes[dim] > hi[dim])
      return false;
  return true;
}

std::string ShapeRange::str() const {
  if (isAll())
    return "any";
  std::string text;
  for (int dim = 0; dim < 3; ++dim) {
    bool low = lo[dim] > 1, high = hi[dim] != kUnbounded;
    if (!low && !high)
      continue;
    if (!text.empty())
      text += " ";
    std::string name(1, "mnk"[dim]);
    if (low && high)
      text += std::to_string(lo[dim]) + "<=" + name + "<=" +
              std::to_string(hi[dim]);
    else if (low)
      text += name + ">=" + std::to_string(lo[dim]);
    else
      text += name + "<=" + std::to_string(hi[dim]);
  }
  return text;
}
