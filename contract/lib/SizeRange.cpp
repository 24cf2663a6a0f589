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

static const char *const kNames[SizeRange::kDimensions] = {"m", "n", "k",
                                                           "group-rows"};

int SizeRange::dimension(const std::string &name) {
  for (int d = 0; d < kDimensions; ++d)
    if (name == kNames[d])
      return d;
  return -1;
}

int64_t SizeRange::groupRows(const Problem &problem) {
  if (!problem.grouped || problem.groups < 1)
    return 1;
  if (problem.groupTable && problem.m < 1)
    return 0;
  return std::max<int64_t>((problem.m + problem.groups - 1) / problem.groups,
                           1);
}

void SizeRange::constrain(int dim, bool atMost, int64_t value) {
  if (atMost)
    hi[dim] = std::min(hi[dim], value);
  else
    lo[dim] = std::max(lo[dim], value);
}

bool SizeRange::isEmpty() const {
  for (int d = 0; d < kDimensions; ++d)
    if (lo[d] > hi[d])
      return true;
  return false;
}

bool SizeRange::contains(int64_t m, int64_t n, int64_t k,
                         int64_t groupRows) const {
  const int64_t sizes[kDimensions] = {m, n, k, groupRows};
  for (int d = 0; d < kDimensions; ++d)
    if (sizes[d] < lo[d] || sizes[d] > hi[d])
      return false;
  return true;
}

bool SizeRange::isAll() const {
  for (int d = 0; d < kDimensions; ++d)
    if (lo[d] != 1 || hi[d] != kUnbounded)
      return false;
  return true;
}

std::string SizeRange::str() const {
  if (isAll())
    return "any";
  std::string text;
  for (int d = 0; d < kDimensions; ++d) {
    bool low = lo[d] != 1, high = hi[d] != kUnbounded;
    if (!low && !high)
      continue;
    if (!text.empty())
      text += " ";
    std::string dim = kNames[d];
    if (low && high)
      text += std::to_string(lo[d]) + "<=" + dim + "<=" + std::to_string(hi[d]);
    else if (low)
      text += dim + ">=" + std::to_string(lo[d]);
    else
      text += dim + "<=" + std::to_string(hi[d]);
  }
  return text;
}

/// `any`, or words `m<=64`, `k>=4096`, `256<=m<=1024`, `group-rows<=128`,
/// at most one per dimension, each range non-empty.
bool gemmc::contract::parseSizeRange(const std::string &text,
                                     SizeRange &range) {
  range = SizeRange();
  std::vector<std::string> words = splitWords(text);
  if (words.size() == 1 && words[0] == "any")
    return true;
  if (words.empty())
    return false;
  bool seen[SizeRange::kDimensions] = {};
  for (const std::string &word : words) {
    // The dimension's name: the word's letters and dashes.
    size_t dimAt = word.find_first_not_of("0123456789<=>");
    if (dimAt == std::string::npos)
      return false;
    size_t dimEnd = word.find_first_of("<=>", dimAt);
    if (dimEnd == std::string::npos)
      dimEnd = word.size();
    int d = SizeRange::dimension(word.substr(dimAt, dimEnd - dimAt));
    if (d < 0 || seen[d])
      return false;
    seen[d] = true;
    std::string before = word.substr(0, dimAt), after = word.substr(dimEnd);
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
