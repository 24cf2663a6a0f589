//===- SizeRange.cpp - the sizes a variant is for ------------------------===//
//
// A family variant's `when`: bounds per size, parsed and tested.
//
//===----------------------------------------------------------------------===//

#include "gemmc-contract/Contract.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>

using namespace gemmc::contract;

int SizeRange::dimension(char name) {
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

void SizeRange::constrain(int dim, bool atMost, int64_t value) {
  if (atMost)
    hi[dim] = std::min(hi[dim], value);
  else
    lo[dim] = std::max(lo[dim], value);
}

bool SizeRange::isEmpty() const {
  for (int d = 0; d < 3; ++d)
    if (lo[d] > hi[d])
      return true;
  return false;
}

bool SizeRange::contains(int64_t m, int64_t n, int64_t k) const {
  const int64_t sizes[3] = {m, n, k};
  for (int d = 0; d < 3; ++d)
    if (sizes[d] < lo[d] || sizes[d] > hi[d])
      return false;
  return true;
}

bool SizeRange::isAll() const {
  for (int d = 0; d < 3; ++d)
    if (lo[d] != 1 || hi[d] != kUnbounded)
      return false;
  return true;
}

std::string SizeRange::str() const {
  if (isAll())
    return "any";
  std::string text;
  for (int d = 0; d < 3; ++d) {
    bool low = lo[d] != 1, high = hi[d] != kUnbounded;
    if (!low && !high)
      continue;
    if (!text.empty())
      text += " ";
    std::string dim(1, "mnk"[d]);
    if (low && high)
      text += std::to_string(lo[d]) + "<=" + dim + "<=" + std::to_string(hi[d]);
    else if (low)
      text += dim + ">=" + std::to_string(lo[d]);
    else
      text += dim + "<=" + std::to_string(hi[d]);
  }
  return text;
}

/// `any`, or words `m<=64`, `k>=4096`, `256<=m<=1024`, at most one per
/// dimension, each range non-empty.
bool gemmc::contract::parseSizeRange(const std::string &text,
                                     SizeRange &range) {
  range = SizeRange();
  std::vector<std::string> words = splitWords(text);
  if (words.size() == 1 && words[0] == "any")
    return true;
  if (words.empty())
    return false;
  bool seen[3] = {false, false, false};
  for (const std::string &word : words) {
    size_t dimAt = word.find_first_of("mnk");
    if (dimAt == std::string::npos)
      return false;
    int d = word[dimAt] == 'm' ? 0 : word[dimAt] == 'n' ? 1 : 2;
    if (seen[d])
      return false;
    seen[d] = true;
    std::string before = word.substr(0, dimAt), after = word.substr(dimAt + 1);
    auto bound = [](const std::string &digits, int64_t &value) {
      return parseInt(digits, value) && value >= 1;
    };
    if (!before.empty()) {
      if (before.size() < 3 || before.compare(before.size() - 2, 2, "<=") ||
          !bound(before.substr(0, before.size() - 2), range.lo[d]))
        return false;
      if (after.empty())
        continue;
      if (after.compare(0, 2, "<=") || !bound(after.substr(2), range.hi[d]))
        return false;
    } else if (!after.compare(0, 2, "<=")) {
      if (!bound(after.substr(2), range.hi[d]))
        return false;
    } else if (after.compare(0, 2, ">=") ||
               !bound(after.substr(2), range.lo[d])) {
      return false;
    }
    if (range.lo[d] > range.hi[d])
      return false;
  }
  return true;
}
