//===- Contract.cpp - the kernel contract: parse, format, accept ----------===//

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

const char *gemmc::contract::toString(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  }
  return "?";
}

const char *gemmc::contract::toString(Layout layout) {
  return layout == Layout::Row ? "row" : "col";
}

unsigned gemmc::contract::sizeOf(DType type) {
  return type == DType::F32 ? 4 : 2;
}

int64_t GridExpr::evaluate(int64_t m, int64_t n, int64_t k, int64_t batch,
                           int64_t multiprocessors, int64_t splits) const {
  int64_t extent = 1;
  switch (dim) {
  case 'S':
    return multiprocessors;
  case 'Z':
    return splits;
  case 'B':
    extent = batch;
    break;
  case 'M':
    extent = m;
    break;
  case 'N':
    extent = n;
    break;
  case 'K':
    extent = k;
    break;
  default:
    return divisor;
  }
  return (extent + divisor - 1) / divisor;
}

std::string GridExpr::str() const {
  if (dim == '1')
    return std::to_string(divisor);
  if (dim == 'S')
    return "SM";
  if (dim == 'Z')
    return "splits";
  return std::string(1, dim) + "/" + std::to_string(divisor);
}

static std::string sizeStr(int64_t size) {
  return size == 0 ? "?" : std::to_string(size);
}

std::string Problem::str() const {
  std::ostringstream os;
  os << "m=" << sizeStr(m) << " n=" << sizeStr(n) << " k=" << sizeStr(k)
     << " a=" << toString(a) << ":" << toString(aLayout) << " b=" << toString(b)
     << ":" << toString(bLayout) << " c=" << toString(c) << ":"
     << toString(cLayout) << " acc=" << toString(acc);
  if (tf32)
    os << " math=tf32";
  else if (tf32x3)
    os << " math=tf32x3";
  if (batch != 1)
    os << " batch=" << sizeStr(batch) << " strides=" << sizeStr(strideOfA())
       << "," << sizeStr(strideOfB()) << "," << sizeStr(strideOfC());
  return os.str();
}

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
  else
    return false;
  return true;
}

static bool parseLayout(const std::string &text, Layout &layout) {
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
static bool parseExtents(const std::string &text, int64_t most,
                         unsigned extents[3]) {
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
static bool parseKeyValues(const std::string &text,
                           std::map<std::string, std::string> &parts) {
  for (const std::string &word : splitWords(text)) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      return false;
    parts[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return true;
}

static bool parseGrid(const std::string &word, GridExpr &expr) {
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
static bool parseMatrix(const std::string &value, DType &type, Layout &layout) {
  size_t colon = value.find(':');
  return colon != std::string::npos &&
         parseDType(value.substr(0, colon), type) &&
         parseLayout(value.substr(colon + 1), layout);
}

static bool parseProblem(const std::string &text, Problem &problem) {
  std::map<std::string, std::string> fields;
  for (const std::string &word : splitWords(text)) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      return false;
    fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
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
  problem.tf32 = fields.count("math") && fields["math"] == "tf32";
  problem.tf32x3 = fields.count("math") && fields["math"] == "tf32x3";
  if (fields.count("math") && !problem.tf32 && !problem.tf32x3 &&
      fields["math"] != "exact")
    return false;
  return size("m", problem.m) && size("n", problem.n) && size("k", problem.k) &&
         parseMatrix(fields["a"], problem.a, problem.aLayout) &&
         parseMatrix(fields["b"], problem.b, problem.bLayout) &&
         parseMatrix(fields["c"], problem.c, problem.cLayout) &&
         parseDType(fields["acc"], problem.acc);
}

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

/// `unit=wgmma occupancy=1`, then optionally the fitted constants `fixed=…
/// latency=… compute=… memory=… reduce=…` (all five, non-negative).
static bool parseCost(const std::string &text, CostFacts &cost) {
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

/// Parses the next contract block of `is` (read up to line `lineNo`).
/// Sets `found` to whether there was one; an error leaves `error` set.
static bool parseNextContract(std::istringstream &is, unsigned &lineNo,
                              Contract &contract, std::string &error,
                              bool &found) {
  // Version 2 adds tensor maps and persistent grids, version 3 C's tensor
  // map and clusters, version 4 split-K, version 5 a family's variants,
  // version 6 split-K's splits chosen at launch (docs/contract.md).
  const std::string begin = "// gemmc-contract-begin v1";
  const std::string prefix = "// gemmc-contract-begin v";
  const std::string end = "// gemmc-contract-end";
  std::string line;
  bool inside = false, done = false;
  found = false;
  int version = 0;
  std::map<std::string, std::string> fields;
  std::map<std::string, unsigned> fieldLines;
  while (!done && std::getline(is, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!inside) {
      inside = line.size() == prefix.size() + 1 && line.rfind(prefix, 0) == 0 &&
               line.back() >= '1' && line.back() <= '6';
      if (inside)
        version = line.back() - '0';
      if (!inside && line.rfind("// gemmc-contract-begin", 0) == 0) {
        error = "line " + std::to_string(lineNo) +
                ": unsupported contract version: " + line;
        return false;
      }
      continue;
    }
    if (line == end) {
      done = true;
      continue;
    }
    if (line.rfind("//", 0) != 0) {
      error = "line " + std::to_string(lineNo) +
              ": the kernel contract has no '" + end + "' line";
      return false;
    }
    size_t colon = line.find(": ");
    if (line.rfind("// ", 0) != 0 || colon == std::string::npos) {
      error = "line " + std::to_string(lineNo) +
              ": expected '// key: value' in the contract, got '" + line + "'";
      return false;
    }
    std::string key = line.substr(3, colon - 3);
    fields[key] = line.substr(colon + 2);
    fieldLines[key] = lineNo;
  }
  if (!inside) {
    error = "no kernel contract ('" + begin + "') in the PTX";
    return false;
  }
  found = true;
  if (!done) {
    error = "the kernel contract has no '" + end + "' line";
    return false;
  }

  for (const char *key : {"entry", "block", "grid", "dynamic-shared-bytes",
                          "params", "problem"}) {
    if (!fields.count(key)) {
      error = std::string("the kernel contract has no '") + key + "' field";
      return false;
    }
  }
  auto bad = [&](const std::string &key) {
    error = "line " + std::to_string(fieldLines[key]) + ": malformed '" + key +
            "' field: '" + fields[key] + "'";
    return false;
  };

  contract.entry = fields["entry"];
  // `family: NAME I/N` and `when: RANGE` come together, from version 5 (a
  // version 5 contract is a variant's; a version 6 one may be).
  contract.family.clear();
  contract.variant = contract.variants = 1;
  contract.when = SizeRange();
  bool variant = fields.count("family") != 0;
  if (fields.count("family") != fields.count("when") ||
      (version == 5 && !variant) || (version < 5 && variant)) {
    error = "a variant's contract (version 5 or 6) has 'family' and 'when' "
            "fields, and no other has";
    return false;
  }
  if (fields.count("family")) {
    std::vector<std::string> words = splitWords(fields["family"]);
    size_t slash = words.size() == 2 ? words[1].find('/') : std::string::npos;
    int64_t index = 0, count = 0;
    if (slash == std::string::npos ||
        !parseInt(words[1].substr(0, slash), index) ||
        !parseInt(words[1].substr(slash + 1), count) || index < 1 ||
        index > count || count > 1024)
      return bad("family");
    contract.family = words[0];
    contract.variant = int(index);
    contract.variants = int(count);
    if (!parseSizeRange(fields["when"], contract.when))
      return bad("when");
  }
  contract.arch = fields["arch"];
  contract.semantics = fields["semantics"];
  contract.schedule = fields["schedule"];
  contract.source = fields["source"];

  if (!parseExtents(fields["block"], 1024, contract.block))
    return bad("block");

  std::vector<std::string> grid = splitWords(fields["grid"]);
  if (grid.size() != 3)
    return bad("grid");
  for (int i = 0; i < 3; ++i)
    if (!parseGrid(grid[i], contract.grid[i]))
      return bad("grid");

  if (!parseInt(fields["dynamic-shared-bytes"], contract.dynamicSharedBytes))
    return bad("dynamic-shared-bytes");
  contract.params.clear();
  contract.alphaBeta = false;
  contract.bias.clear();
  contract.relu = false;
  if (fields.count("epilogue")) {
    for (const std::string &word : splitWords(fields["epilogue"])) {
      if (word == "relu")
        contract.relu = true;
      else if (word == "bias=row" || word == "bias=col")
        contract.bias = word.substr(5);
      else
        return bad("epilogue");
    }
  }
  for (const std::string &word : splitWords(fields["params"])) {
    size_t colon = word.find(':');
    if (colon == std::string::npos)
      return bad("params");
    Param param{word.substr(0, colon), word.substr(colon + 1)};
    bool pointer =
        param.kind == "ptr" && (param.name == "A" || param.name == "B" ||
                                param.name == "C" || param.name == "bias");
    bool size = param.kind == "i32" &&
                (param.name == "M" || param.name == "N" || param.name == "K");
    bool descriptor =
        (param.kind == "memref2.i32" || param.kind == "memref2.i64" ||
         param.kind == "memref3.i32" || param.kind == "memref3.i64") &&
        (param.name == "A" || param.name == "B" || param.name == "C" ||
         (param.name == "bias" && param.kind[6] == '2'));
    pointer = pointer || descriptor;
    bool scalar =
        param.kind == "f32" && (param.name == "alpha" || param.name == "beta");
    contract.alphaBeta = contract.alphaBeta || scalar;
    bool workspace = (param.name == "workspace" || param.name == "counters") &&
                     (param.kind == "ptr" || param.kind == "memref1.i32" ||
                      param.kind == "memref1.i64");
    pointer = pointer || workspace;
    bool tensorMap = param.kind == "tensormap" &&
                     (param.name == "tmap-A" || param.name == "tmap-B" ||
                      param.name == "tmap-C");
    if (!pointer && !size && !scalar && !tensorMap) {
      error = "line " + std::to_string(fieldLines["params"]) +
              ": unsupported kernel parameter '" + word +
              "' (known: A:ptr B:ptr C:ptr M:i32 N:i32 K:i32 alpha:f32 "
              "beta:f32 bias:ptr, memref2|3.i32|i64 for A, B, C, bias, "
              "workspace:ptr counters:ptr or memref1.i32|i64, and "
              "tmap-A:tensormap tmap-B:tensormap tmap-C:tensormap)";
      return false;
    }
    contract.params.push_back(param);
  }
  if (contract.params.empty())
    return bad("params");
  bool biasParam = std::any_of(contract.params.begin(), contract.params.end(),
                               [](const Param &p) { return p.name == "bias"; });
  if (biasParam != !contract.bias.empty()) {
    error = "line " + std::to_string(fieldLines["params"]) +
            ": a bias:ptr parameter needs 'epilogue: bias=row' or "
            "'bias=col', and the other way round";
    return false;
  }
  // alpha and beta come together.
  if (contract.alphaBeta &&
      std::count_if(contract.params.begin(), contract.params.end(),
                    [](const Param &p) { return p.kind == "f32"; }) != 2) {
    error = "line " + std::to_string(fieldLines["params"]) +
            ": a kernel takes both alpha:f32 and beta:f32, or neither";
    return false;
  }
  // `tensor-maps: A=IxO B=IxO swizzle=128`, with a tmap parameter each.
  int maps =
      std::count_if(contract.params.begin(), contract.params.end(),
                    [](const Param &p) { return p.kind == "tensormap"; });
  contract.tensorMaps = fields.count("tensor-maps") != 0;
  if (contract.tensorMaps != (maps != 0)) {
    error = "the tensor-map parameters and the 'tensor-maps' field come "
            "together";
    return false;
  }
  if (contract.tensorMaps) {
    std::map<std::string, std::string> parts;
    if (!parseKeyValues(fields["tensor-maps"], parts))
      return bad("tensor-maps");
    auto box = [&](const std::string &text, TensorMapBox &b) {
      size_t x = text.find('x');
      return x != std::string::npos && parseInt(text.substr(0, x), b.inner) &&
             parseInt(text.substr(x + 1), b.outer) && b.inner > 0 &&
             b.outer > 0 && b.inner <= 256 && b.outer <= 256;
    };
    // A box for each matrix TMA copies, and a `tmap-X` parameter each.
    std::pair<const char *, TensorMapBox *> boxes[] = {
        {"A", &contract.boxA}, {"B", &contract.boxB}, {"C", &contract.boxC}};
    size_t given = 0;
    bool matches = true;
    for (const auto &entry : boxes) {
      std::string name = entry.first;
      bool hasBox = parts.count(name) != 0;
      if (hasBox && !box(parts[name], *entry.second))
        return bad("tensor-maps");
      given += hasBox;
      bool hasParam = std::any_of(
          contract.params.begin(), contract.params.end(),
          [&](const Param &p) { return p.name == "tmap-" + name; });
      matches &= hasBox == hasParam;
    }
    if (given == 0 || parts.size() != given + 1 || parts["swizzle"] != "128")
      return bad("tensor-maps");
    if (!matches || maps != int(given)) {
      error = "line " + std::to_string(fieldLines["tensor-maps"]) +
              ": the tensor-map parameters and the boxes of 'tensor-maps' "
              "differ";
      return false;
    }
  }
  // `split-k: splits=S workspace=F` (F = S x P), or `splits=? partial=P`
  // (version 6, the grid's z `splits`), with the workspace and counters
  // parameters.
  int workspaceParams = std::count_if(
      contract.params.begin(), contract.params.end(), [](const Param &p) {
        return p.name == "workspace" || p.name == "counters";
      });
  contract.splits = 1;
  contract.partialFloats = 0;
  if (fields.count("split-k")) {
    std::map<std::string, std::string> parts;
    if (!parseKeyValues(fields["split-k"], parts) || parts.size() != 2)
      return bad("split-k");
    bool atLaunch = parts["splits"] == "?";
    if (atLaunch) {
      if (version < 6 || !parseInt(parts["partial"], contract.partialFloats) ||
          contract.partialFloats <= 0 || contract.grid[2].dim != 'Z')
        return bad("split-k");
      contract.splits = 0;
    } else {
      int64_t workspace = 0;
      if (!parseInt(parts["splits"], contract.splits) ||
          !parseInt(parts["workspace"], workspace) || contract.splits < 2 ||
          workspace <= 0 || workspace % contract.splits)
        return bad("split-k");
      contract.partialFloats = workspace / contract.splits;
    }
  }
  if ((contract.grid[2].dim == 'Z') != contract.splitsAtLaunch()) {
    error = "line " + std::to_string(fieldLines["grid"]) +
            ": the grid's z is 'splits' where, and only where, split-k's "
            "splits are chosen at launch ('splits=?')";
    return false;
  }
  if ((workspaceParams == 2) != contract.splitsK() ||
      (workspaceParams != 0 && workspaceParams != 2)) {
    error = "the workspace:... and counters:... parameters and the 'split-k' "
            "field come together";
    return false;
  }
  // `cluster: X Y Z`: blocks per cluster, at most 8 (the portable size).
  if (fields.count("cluster") &&
      !parseExtents(fields["cluster"], 8, contract.cluster))
    return bad("cluster");
  if (fields.count("alignment") &&
      (!parseInt(fields["alignment"], contract.alignment) ||
       contract.alignment <= 0))
    return bad("alignment");
  if (!parseProblem(fields["problem"], contract.problem))
    return bad("problem");
  contract.hasCost = fields.count("cost") != 0;
  contract.cost = CostFacts();
  if (contract.hasCost && !parseCost(fields["cost"], contract.cost))
    return bad("cost");
  // `size-multiple: m=… n=… k=…` and `leading-dim-multiple: a=… b=… c=…`:
  // three positive numbers, one per key.
  auto multiples = [&](const char *field, const char *const keys[3],
                       int64_t *const values[3]) {
    std::map<std::string, std::string> parts;
    if (!parseKeyValues(fields[field], parts))
      return false;
    for (int i = 0; i < 3; ++i)
      if (parts.size() != 3 || !parseInt(parts[keys[i]], *values[i]) ||
          *values[i] <= 0)
        return false;
    return true;
  };
  const char *const sizeKeys[] = {"m", "n", "k"};
  int64_t *const sizeMultiples[] = {&contract.multipleM, &contract.multipleN,
                                    &contract.multipleK};
  if (fields.count("size-multiple") &&
      !multiples("size-multiple", sizeKeys, sizeMultiples))
    return bad("size-multiple");
  const char *const ldKeys[] = {"a", "b", "c"};
  int64_t *const ldMultiples[] = {&contract.ldMultiple[0],
                                  &contract.ldMultiple[1],
                                  &contract.ldMultiple[2]};
  if (fields.count("leading-dim-multiple") &&
      !multiples("leading-dim-multiple", ldKeys, ldMultiples))
    return bad("leading-dim-multiple");
  // Matrices are all pointers or all descriptors.
  int descriptors = 0;
  for (const Param &p : contract.params)
    descriptors += p.kind.rfind("memref", 0) == 0;
  if (descriptors != 0 &&
      descriptors != 3 + !contract.bias.empty() + workspaceParams) {
    error = "line " + std::to_string(fieldLines["params"]) +
            ": A, B, C (and the bias, the workspace and counters) are all "
            "pointers or all memref descriptors";
    return false;
  }
  if (descriptors)
    return true;
  // A kernel with sizes given at launch must take them as parameters.
  const std::pair<int64_t, const char *> dims[] = {{contract.problem.m, "M"},
                                                   {contract.problem.n, "N"},
                                                   {contract.problem.k, "K"}};
  for (auto [size, name] : dims) {
    bool passed = false;
    for (const Param &p : contract.params)
      passed |= p.name == name;
    if (size == 0 && !passed) {
      error = std::string("the problem's size ") + name +
              " is given at launch but is not a kernel parameter";
      return false;
    }
  }
  return true;
}

bool gemmc::contract::parseContract(const std::string &ptx, Contract &contract,
                                    std::string &error) {
  std::istringstream is(ptx);
  unsigned lineNo = 0;
  bool found = false;
  return parseNextContract(is, lineNo, contract, error, found);
}

bool gemmc::contract::parseContracts(const std::string &ptx,
                                     std::vector<Contract> &contracts,
                                     std::string &error) {
  std::istringstream is(ptx);
  unsigned lineNo = 0;
  contracts.clear();
  for (;;) {
    Contract contract;
    bool found = false;
    if (!parseNextContract(is, lineNo, contract, error, found)) {
      if (found || contracts.empty())
        return false;
      error.clear();
      break;
    }
    contracts.push_back(std::move(contract));
  }
  // One kernel, or variants 1..N of one family.
  const Contract &first = contracts.front();
  bool family = !first.family.empty();
  if (!family && contracts.size() == 1)
    return true;
  for (size_t i = 0; i < contracts.size(); ++i) {
    const Contract &c = contracts[i];
    if (c.family != first.family || c.variant != int(i) + 1 ||
        c.variants != int(contracts.size()) || !family) {
      error = "contract " + std::to_string(i + 1) + " ('" + c.entry +
              "'): the contracts of a PTX module are one kernel's, or the "
              "variants 1.." +
              std::to_string(contracts.size()) + " of one family in turn";
      return false;
    }
  }
  return true;
}

int64_t Contract::tiles(const Problem &problem) const {
  return grid[0].evaluate(problem.m, problem.n, problem.k) *
         grid[1].evaluate(problem.m, problem.n, problem.k);
}

int64_t Contract::kSteps(const Problem &problem) const {
  int64_t bm, bn, bk;
  tile(bm, bn, bk);
  bk = std::max<int64_t>(bk, 1);
  return std::max<int64_t>((problem.k + bk - 1) / bk, 1);
}

int64_t Contract::workspaceFloats(const Problem &problem,
                                  int64_t count) const {
  if (!splitsK())
    return 0;
  return tiles(problem) * (splitsAtLaunch() ? count : splits) * partialFloats;
}

int64_t Contract::maxSplits(const Problem &problem) const {
  if (!splitsAtLaunch())
    return splits;
  // The grid's z is at most 65535 blocks.
  constexpr int64_t kMaxGridZ = 65535;
  int64_t perSplit = tiles(problem) * partialFloats;
  if (perSplit <= 0)
    return 0;
  int64_t fits = ((int64_t(1) << 31) - 1) / perSplit;
  return std::min({fits, kMaxGridZ, kSteps(problem)});
}

bool Contract::descriptors() const {
  return std::any_of(params.begin(), params.end(), [](const Param &p) {
    return p.kind.rfind("memref", 0) == 0;
  });
}

int Contract::indexBits() const {
  for (const Param &p : params)
    if (p.kind.rfind("memref", 0) == 0)
      return p.kind.substr(p.kind.size() - 2) == "32" ? 32 : 64;
  return 64;
}

/// The leading dimensions and batch strides of `p` for a kernel that takes
/// them at launch (`descriptors`), or that assumes dense matrices.
static bool acceptsLeadingDims(const Contract &contract, const Problem &p,
                               std::string &why) {
  const Problem &k = contract.problem;
  struct Matrix {
    const char *name;
    int64_t ld, dense, given, stride, span;
  } matrices[] = {{"A", p.ldOfA(), p.aLayout == Layout::Row ? p.k : p.m, p.lda,
                   p.strideOfA(), p.spanOfA()},
                  {"B", p.ldOfB(), p.bLayout == Layout::Row ? p.n : p.k, p.ldb,
                   p.strideOfB(), p.spanOfB()},
                  {"C", p.ldOfC(), p.cLayout == Layout::Row ? p.n : p.m, p.ldc,
                   p.strideOfC(), p.spanOfC()}};
  for (int i = 0; i < 3; ++i) {
    const Matrix &m = matrices[i];
    if (!contract.descriptors()) {
      if (m.given && m.given != m.dense) {
        why = std::string("the kernel takes dense matrices: the leading "
                          "dimension of ") +
              m.name + " must be " + std::to_string(m.dense);
        return false;
      }
      continue;
    }
    int64_t multiple = contract.ldMultiple[i];
    if (m.ld < m.dense || m.ld % multiple) {
      why = std::string("the leading dimension of ") + m.name + " (" +
            std::to_string(m.ld) + ") must be at least " +
            std::to_string(m.dense) + " and a multiple of " +
            std::to_string(multiple);
      const TensorMapBox *boxes[] = {&contract.boxA, &contract.boxB,
                                     &contract.boxC};
      if (boxes[i]->inner != 0)
        why += " (the kernel copies it with TMA, whose rows start at "
               "multiples of 16 bytes)";
      return false;
    }
    if (k.batch != 1 && p.batch > 1 &&
        (m.stride < m.span || m.stride % multiple)) {
      why = std::string("the batch stride of ") + m.name + " (" +
            std::to_string(m.stride) + ") must be at least " +
            std::to_string(m.span) + " and a multiple of " +
            std::to_string(multiple);
      return false;
    }
    // 32-bit index arithmetic: every element's offset must fit.
    if (contract.indexBits() == 32 &&
        (p.batch - 1) * m.stride + m.span >= (int64_t(1) << 31)) {
      why = std::string("the kernel indexes in 32 bits: ") + m.name +
            " spans 2^31 elements or more";
      return false;
    }
  }
  return true;
}

bool gemmc::contract::takesEveryProblem(const Contract &c) {
  return c.when.isAll() && c.ldMultiple[0] == 1 && c.ldMultiple[1] == 1 &&
         c.ldMultiple[2] == 1 && c.multipleM == 1 && c.multipleN == 1 &&
         c.multipleK == 1 && !c.storesWithTma();
}

bool gemmc::contract::accepts(const Contract &contract, const Problem &p,
                              std::string &why) {
  const Problem &k = contract.problem;
  const std::tuple<int64_t, int64_t, int64_t, const char *> dims[] = {
      {k.m, p.m, contract.multipleM, "M"},
      {k.n, p.n, contract.multipleN, "N"},
      {k.k, p.k, contract.multipleK, "K"}};
  for (auto [fixed, want, multiple, name] : dims) {
    if (want < 1) {
      why = std::string(name) + " = " + std::to_string(want) +
            ": sizes must be at least 1";
      return false;
    }
    if (fixed != 0 && fixed != want) {
      why = std::string("the kernel was compiled for ") + name + " = " +
            std::to_string(fixed) + ", not " + std::to_string(want);
      return false;
    }
    if (want % multiple != 0) {
      why = std::string(name) + " = " + std::to_string(want) +
            " is not a multiple of " + std::to_string(multiple);
      if (contract.storesWithTma())
        why += " (the kernel stores C with TMA, in 16-byte units)";
      return false;
    }
  }
  if (p.a != k.a || p.b != k.b || p.c != k.c || p.acc != k.acc) {
    why = "element types differ: the kernel computes " + k.str();
    return false;
  }
  if (p.aLayout != k.aLayout || p.bLayout != k.bLayout ||
      p.cLayout != k.cLayout) {
    why = "layouts differ: the kernel computes " + k.str();
    return false;
  }
  // A descriptor kernel takes any strides (checked below).
  if ((k.batch != 0 && p.batch != k.batch) ||
      (k.batch > 1 && !contract.descriptors() &&
       (p.strideOfA() != k.strideOfA() || p.strideOfB() != k.strideOfB() ||
        p.strideOfC() != k.strideOfC()))) {
    why = "batches differ: the kernel computes " + k.str();
    return false;
  }
  if (!acceptsLeadingDims(contract, p, why))
    return false;
  // Split-K's workspace is indexed like the matrices, in 32 bits (with
  // the splits chosen at launch, one split's).
  bool fits = !contract.splitsK() ||
              (contract.splitsAtLaunch()
                   ? contract.maxSplits(p) >= 1
                   : contract.tiles(p) <= (int64_t(1) << 31) /
                                              (contract.splits *
                                               contract.partialFloats));
  if (!fits) {
    why = "split-k's workspace for " + std::to_string(contract.tiles(p)) +
          " tiles of C would exceed 2^31 floats";
    return false;
  }
  if (!contract.alphaBeta && (p.alpha != 1 || p.beta != 0)) {
    why = "the kernel computes C = A * B: it takes no alpha and beta";
    return false;
  }
  if (p.bias != contract.bias || p.relu != contract.relu) {
    why = "the kernel's epilogue is " + contract.semantics;
    return false;
  }
  return true;
}

std::string gemmc::contract::describeSemantics(bool alphaBeta,
                                               const std::string &bias,
                                               bool relu) {
  std::string value = alphaBeta ? "alpha * A * B + beta * C" : "A * B";
  if (!bias.empty())
    value += " + bias[" + bias + "]";
  if (relu)
    value = "relu(" + value + ")";
  return "C = " + value;
}

const char *gemmc::contract::toString(Unit unit) {
  switch (unit) {
  case Unit::Simt:
    return "simt";
  case Unit::Mma:
    return "mma";
  case Unit::Wgmma:
    return "wgmma";
  }
  return "?";
}

void Contract::tile(int64_t &bm, int64_t &bn, int64_t &bk) const {
  bm = bn = bk = 0;
  std::vector<std::string> words = splitWords(schedule);
  if (words.empty() || words[0].rfind("tile=", 0) != 0)
    return;
  int64_t sizes[3] = {0, 0, 1};
  std::istringstream is(words[0].substr(5));
  std::string part;
  for (int i = 0; i < 3 && std::getline(is, part, 'x'); ++i)
    if (!parseInt(part, sizes[i]))
      return;
  bm = sizes[0];
  bn = sizes[1];
  bk = sizes[2];
}

/// A number of the `cost:` line: three decimals, the same text from every
/// host compiler's build.
static std::string decimal(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", value);
  return buffer;
}

/// The problem line of a contract: its sizes (`?` given at launch), types,
/// layouts, math, and a batch with its strides as stated.
static std::string problemLine(const Problem &p) {
  std::ostringstream os;
  os << "m=" << sizeStr(p.m) << " n=" << sizeStr(p.n) << " k=" << sizeStr(p.k)
     << " a=" << toString(p.a) << ":" << toString(p.aLayout)
     << " b=" << toString(p.b) << ":" << toString(p.bLayout)
     << " c=" << toString(p.c) << ":" << toString(p.cLayout)
     << " acc=" << toString(p.acc);
  if (p.tf32x3)
    os << " math=tf32x3";
  else if (p.tf32)
    os << " math=tf32";
  if (p.batched || p.batch != 1)
    os << " batch=" << sizeStr(p.batch) << " strides=" << sizeStr(p.strideA)
       << "," << sizeStr(p.strideB) << "," << sizeStr(p.strideC);
  return os.str();
}

std::string gemmc::contract::formatContract(const Contract &c) {
  std::ostringstream os;
  // Version 2 adds tensor maps and the persistent grid, version 3 C's
  // tensor map and clusters, version 4 split-K's workspace, version 5 a
  // family's variant, version 6 split-K's splits chosen at launch: a
  // reader of an older version refuses such a kernel rather than launch it
  // wrongly (or for problems it is not for).
  int version = c.splitsAtLaunch()                         ? 6
                : !c.family.empty()                        ? 5
                : c.splitsK()                              ? 4
                : c.storesWithTma() || c.clusterSize() > 1 ? 3
                : c.tensorMaps || c.grid[0].dim == 'S'     ? 2
                                                           : 1;
  os << "// gemmc-contract-begin v" << version << "\n";
  os << "// entry: " << c.entry << "\n";
  if (!c.family.empty())
    os << "// family: " << c.family << " " << c.variant << "/" << c.variants
       << "\n// when: " << c.when.str() << "\n";
  os << "// arch: " << c.arch << "\n";
  os << "// block: " << c.block[0] << " " << c.block[1] << " " << c.block[2]
     << "\n";
  os << "// grid: " << c.grid[0].str() << " " << c.grid[1].str() << " "
     << c.grid[2].str() << "\n";
  if (c.clusterSize() > 1)
    os << "// cluster: " << c.cluster[0] << " " << c.cluster[1] << " "
       << c.cluster[2] << "\n";
  os << "// dynamic-shared-bytes: " << c.dynamicSharedBytes << "\n";
  if (c.splitsAtLaunch())
    os << "// split-k: splits=? partial=" << c.partialFloats << "\n";
  else if (c.splitsK())
    os << "// split-k: splits=" << c.splits
       << " workspace=" << c.splits * c.partialFloats << "\n";
  os << "// params:";
  for (const Param &p : c.params)
    os << " " << p.name << ":" << p.kind;
  os << "\n// alignment: " << c.alignment << "\n";
  if (c.tensorMaps) {
    os << "// tensor-maps:";
    const std::pair<const char *, const TensorMapBox *> boxes[] = {
        {"A", &c.boxA}, {"B", &c.boxB}, {"C", &c.boxC}};
    for (auto [name, box] : boxes)
      if (box->inner != 0)
        os << " " << name << "=" << box->inner << "x" << box->outer;
    os << " swizzle=128\n";
  }
  if (c.multipleM != 1 || c.multipleN != 1 || c.multipleK != 1)
    os << "// size-multiple: m=" << c.multipleM << " n=" << c.multipleN
       << " k=" << c.multipleK << "\n";
  if (c.descriptors())
    os << "// leading-dim-multiple: a=" << c.ldMultiple[0]
       << " b=" << c.ldMultiple[1] << " c=" << c.ldMultiple[2] << "\n";
  os << "// semantics: " << c.semantics << "\n";
  if (!c.bias.empty() || c.relu) {
    os << "// epilogue:";
    if (!c.bias.empty())
      os << " bias=" << c.bias;
    if (c.relu)
      os << " relu";
    os << "\n";
  }
  os << "// problem: " << problemLine(c.problem) << "\n";
  os << "// schedule: " << c.schedule << "\n";
  if (c.hasCost) {
    const CostFacts &f = c.cost;
    os << "// cost: unit=" << toString(f.unit) << " occupancy=" << f.occupancy;
    if (f.fitted)
      os << " fixed=" << decimal(f.fixed) << " latency=" << decimal(f.latency)
         << " compute=" << decimal(f.compute) << " memory=" << decimal(f.memory)
         << " reduce=" << decimal(f.reduce);
    os << "\n";
  }
  os << "// source: " << c.source << "\n";
  os << "// gemmc-contract-end\n";
  return os.str();
}
