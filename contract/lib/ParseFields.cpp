//===- ParseFields.cpp - a contract's field values ------------------------===//
//
// The values of a contract's fields (docs/contract.md): numbers, types,
// layouts, extents, grids, the problem and the cost facts. Parse.cpp reads
// the blocks and checks the fields together.
//
//===----------------------------------------------------------------------===//

#include "ParseFields.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <sstream>

using namespace gemmc::contract;
using namespace gemmc::contract::detail;

bool gemmc::contract::parseInt(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < 0)
    return false;
  value = parsed;
  return true;
}

bool gemmc::contract::parseDType(const std::string &text, DType &type) {
  if (text == "f32")
    type = DType::F32;
  else if (text == "f16")
    type = DType::F16;
  else if (text == "bf16")
    type = DType::BF16;
  else if (text == "e4m3")
    type = DType::E4M3;
  else if (text == "e5m2")
    type = DType::E5M2;
  else
    return false;
  return true;
}

bool gemmc::contract::detail::parseLayout(const std::string &text,
                                          Layout &layout) {
  if (text == "row")
    layout = Layout::Row;
  else if (text == "col")
    layout = Layout::Col;
  else
    return false;
  return true;
}

std::vector<std::string> gemmc::contract::splitWords(const std::string &text) {
  std::istringstream is(text);
  std::vector<std::string> words;
  for (std::string word; is >> word;)
    words.push_back(word);
  return words;
}

/// `X Y Z`: three positive extents whose product (and so each) is at most
/// `most` (a block's threads, a cluster's blocks).
bool gemmc::contract::detail::parseExtents(const std::string &text,
                                           int64_t most, unsigned extents[3]) {
  std::vector<std::string> words = splitWords(text);
  if (words.size() != 3)
    return false;
  int64_t product = 1;
  for (int i = 0; i < 3; ++i) {
    int64_t v;
    if (!parseInt(words[i], v) || v <= 0 || v > most)
      return false;
    extents[i] = static_cast<unsigned>(v);
    product *= v;
  }
  return product <= most;
}

/// The `key=value` words of a field; false if a word has no `=`.
bool gemmc::contract::detail::parseKeyValues(
    const std::string &text, std::map<std::string, std::string> &parts) {
  for (const std::string &word : splitWords(text)) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      return false;
    parts[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return true;
}

bool gemmc::contract::detail::parseGrid(const std::string &word,
                                        GridExpr &expr) {
  // A fixed count of blocks: 1, or split-K's splits.
  if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))) {
    expr = GridExpr{};
    return parseInt(word, expr.divisor) && expr.divisor > 0;
  }
  if (word == "SM") {
    expr = GridExpr{'S', 1};
    return true;
  }
  if (word == "splits") {
    expr = GridExpr{'Z', 1};
    return true;
  }
  if (word.size() < 3 || word[1] != '/' ||
      (word[0] != 'M' && word[0] != 'N' && word[0] != 'K' && word[0] != 'B'))
    return false;
  expr.dim = word[0];
  return parseInt(word.substr(2), expr.divisor) && expr.divisor > 0;
}

/// `a=f32:row`
bool gemmc::contract::detail::parseMatrix(const std::string &value, DType &type,
                                          Layout &layout) {
  size_t colon = value.find(':');
  return colon != std::string::npos &&
         parseDType(value.substr(0, colon), type) &&
         parseLayout(value.substr(colon + 1), layout);
}

bool gemmc::contract::detail::parseProblem(const std::string &text,
                                           Problem &problem) {
  std::map<std::string, std::string> fields;
  if (!parseKeyValues(text, fields))
    return false;
  for (const char *key : {"m", "n", "k", "a", "b", "c", "acc"})
    if (!fields.count(key))
      return false;
  // `?`: given at launch, stored as 0.
  auto size = [&](const char *key, int64_t &value) {
    if (fields[key] == "?") {
      value = 0;
      return true;
    }
    return parseInt(fields[key], value) && value > 0;
  };
  // `batch=COUNT strides=SA,SB,SC`.
  problem.batched = fields.count("batch") != 0;
  if (problem.batched) {
    // `batch=?`: a batch whose count is given at launch (stored as 0).
    if (fields["batch"] == "?")
      problem.batch = 0;
    else if (!parseInt(fields["batch"], problem.batch) || problem.batch <= 0)
      return false;
    if (!fields.count("strides"))
      return false;
    // `?`: given at launch (stored as 0).
    std::vector<int64_t> strides;
    std::istringstream is(fields["strides"]);
    for (std::string part; std::getline(is, part, ',');) {
      int64_t stride = 0;
      if (part != "?" && (!parseInt(part, stride) || stride <= 0))
        return false;
      strides.push_back(stride);
    }
    if (strides.size() != 3)
      return false;
    problem.strideA = strides[0];
    problem.strideB = strides[1];
    problem.strideC = strides[2];
  }
  // `groups=G` (`?`: given at launch, stored as 0).
  problem.grouped = fields.count("groups") != 0;
  problem.groups = 0;
  if (problem.grouped && fields["groups"] != "?" &&
      (!parseInt(fields["groups"], problem.groups) || problem.groups <= 0))
    return false;
  // `group-form=ptr-array`: the general form (of a grouped problem only).
  problem.groupTable = fields.count("group-form") != 0;
  if (problem.groupTable &&
      (!problem.grouped || fields["group-form"] != "ptr-array"))
    return false;
  problem.tf32 = fields.count("math") && fields["math"] == "tf32";
  problem.tf32x3 = fields.count("math") && fields["math"] == "tf32x3";
  problem.fastAccumulate =
      fields.count("math") && fields["math"] == "fast-accumulate";
  if (fields.count("math") && !problem.tf32 && !problem.tf32x3 &&
      !problem.fastAccumulate &&
      fields["math"] != "exact")
    return false;
  return size("m", problem.m) && size("n", problem.n) && size("k", problem.k) &&
         parseMatrix(fields["a"], problem.a, problem.aLayout) &&
         parseMatrix(fields["b"], problem.b, problem.bLayout) &&
         parseMatrix(fields["c"], problem.c, problem.cLayout) &&
         parseDType(fields["acc"], problem.acc);
}

/// `unit=wgmma occupancy=1`, then optionally the fitted constants `fixed=…
/// latency=… compute=… memory=… reduce=…` (all five, non-negative).
bool gemmc::contract::detail::parseCost(const std::string &text,
                                        CostFacts &cost) {
  std::map<std::string, std::string> parts;
  if (!parseKeyValues(text, parts) || !parts.count("unit") ||
      !parts.count("occupancy"))
    return false;
  const std::string &unit = parts["unit"];
  if (unit == "simt")
    cost.unit = Unit::Simt;
  else if (unit == "mma")
    cost.unit = Unit::Mma;
  else if (unit == "wgmma")
    cost.unit = Unit::Wgmma;
  else
    return false;
  if (!parseInt(parts["occupancy"], cost.occupancy) || cost.occupancy < 1)
    return false;
  const std::pair<const char *, double *> constants[] = {
      {"fixed", &cost.fixed},
      {"latency", &cost.latency},
      {"compute", &cost.compute},
      {"memory", &cost.memory},
      {"reduce", &cost.reduce}};
  size_t given = 0;
  for (auto [key, value] : constants) {
    if (!parts.count(key))
      continue;
    ++given;
    const std::string &word = parts[key];
    char *end = nullptr;
    *value = std::strtod(word.c_str(), &end);
    if (word.empty() || *end != '\0' || !(*value >= 0) || *value > 1e9)
      return false;
  }
  cost.fitted = given != 0;
  return (given == 0 || given == std::size(constants)) &&
         parts.size() == 2 + given;
}
