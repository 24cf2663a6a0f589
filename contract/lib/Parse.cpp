//===- Parse.cpp - reading contracts -------------------------------------===//
//
// Reading the contract blocks of a PTX module: every key, every version
// (docs/contract.md), with the line of the first error.
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
  // version 6 split-K's splits chosen at launch, version 7 stream-K,
  // version 8 a transposed kernel, version 9 a batch copied by TMA,
  // version 10 multiples of the batch strides (docs/contract.md).
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
      std::string number = line.rfind(prefix, 0) == 0
                               ? line.substr(prefix.size())
                               : std::string();
      inside = !number.empty() && number.size() <= 2 &&
               std::all_of(number.begin(), number.end(),
                           [](char c) { return c >= '0' && c <= '9'; }) &&
               std::stoi(number) >= 1 && std::stoi(number) <= 10;
      if (inside)
        version = std::stoi(number);
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
    error = "a variant's contract (version 5 or later) has 'family' and "
            "'when' fields, and no other has";
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
  // `transposed: C^T = B^T * A^T`, from version 8.
  contract.transposed = fields.count("transposed") != 0;
  if (contract.transposed &&
      (version < 8 || fields["transposed"] != kTransposedLine))
    return bad("transposed");
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
  contract.streamK = false;
  if (fields.count("split-k")) {
    std::map<std::string, std::string> parts;
    if (!parseKeyValues(fields["split-k"], parts) || parts.size() != 2)
      return bad("split-k");
    bool atLaunch = parts["splits"] == "?";
    if (parts["splits"] == "stream") {
      // `splits=stream partial=P` (version 7): the persistent grid's
      // blocks share out the K steps.
      if (version < 7 || !parseInt(parts["partial"], contract.partialFloats) ||
          contract.partialFloats <= 0 || contract.grid[0].dim != 'S')
        return bad("split-k");
      contract.streamK = true;
    } else if (atLaunch) {
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
  if ((workspaceParams == 2) != contract.usesWorkspace() ||
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
  // A batch's tensor maps are 3-D, from version 9.
  if (contract.problem.batched && contract.tensorMaps && version < 9)
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
  // `batch-stride-multiple: a=… b=… c=…`, from version 10.
  int64_t *const strideMultiples[] = {&contract.strideMultiple[0],
                                      &contract.strideMultiple[1],
                                      &contract.strideMultiple[2]};
  if (fields.count("batch-stride-multiple") &&
      (version < 10 ||
       !multiples("batch-stride-multiple", ldKeys, strideMultiples)))
    return bad("batch-stride-multiple");
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
