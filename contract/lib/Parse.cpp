//===- Parse.cpp - reading contracts -------------------------------------===//
//
// Reading the contract blocks of a PTX module: every key, every version
// (docs/contract.md), with the line of the first error. A block's lines
// become its fields (readBlock); each group of fields is then parsed and
// checked against the others in the order of the docs' table, so that the
// first error reported is the first in that order. The single values are
// ParseFields.cpp's.
//
//===----------------------------------------------------------------------===//

#include "ParseFields.h"

#include <algorithm>
#include <functional>
#include <sstream>

using namespace gemmc::contract;
using namespace gemmc::contract::detail;

namespace {
/// A contract block as read: its version, its `// key: value` fields with
/// the line of each, and where an error goes.
struct Block {
  int version = 0;
  std::map<std::string, std::string> fields;
  std::map<std::string, unsigned> lines;
  std::string &error;

  explicit Block(std::string &error) : error(error) {}

  bool has(const std::string &key) const { return fields.count(key) != 0; }
  std::string &operator[](const std::string &key) { return fields[key]; }

  /// `line L: MESSAGE`, at field `key`'s line; false.
  bool fail(const std::string &key, const std::string &message) {
    error = "line " + std::to_string(lines[key]) + ": " + message;
    return false;
  }
  /// The field `key` is malformed; false.
  bool bad(const std::string &key) {
    return fail(key, "malformed '" + key + "' field: '" + fields[key] + "'");
  }
};
} // namespace

/// The newest contract version this library reads.
static constexpr int kLatestVersion = 17;

/// How many of `contract`'s parameters satisfy `pred`.
static int countParams(const Contract &contract,
                       const std::function<bool(const Param &)> &pred) {
  return int(
      std::count_if(contract.params.begin(), contract.params.end(), pred));
}

static bool isWorkspaceParam(const Param &p) {
  return p.name == "workspace" || p.name == "counters";
}

static bool isScaleParam(const Param &p) {
  return p.name == "scale-A" || p.name == "scale-B";
}

/// A 1-D buffer: a pointer, or a memref descriptor of rank 1.
static bool isBufferKind(const std::string &kind) {
  return kind == "ptr" || kind == "memref1.i32" || kind == "memref1.i64";
}

/// Reads the next contract block of `is` (read up to line `lineNo`) into
/// `block`. Sets `found` to whether there was one; an error leaves
/// `block.error` set.
static bool readBlock(std::istringstream &is, unsigned &lineNo, Block &block,
                      bool &found) {
  // Version 2 adds tensor maps and persistent grids, version 3 C's tensor
  // map and clusters, version 4 split-K, version 5 a family's variants,
  // version 6 split-K's splits chosen at launch, version 7 stream-K,
  // version 8 a transposed kernel, version 9 a batch copied by TMA,
  // version 10 multiples of the batch strides, version 11 FP8 operands and
  // their scales, version 12 grouped GEMMs, version 13 R, version 14 a
  // grouped GEMM's general form (docs/contract.md).
  const std::string begin = "// gemmc-contract-begin v1";
  const std::string prefix = "// gemmc-contract-begin v";
  const std::string end = "// gemmc-contract-end";
  std::string line;
  bool inside = false, done = false;
  found = false;
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
               std::stoi(number) >= 1 && std::stoi(number) <= kLatestVersion;
      if (inside)
        block.version = std::stoi(number);
      if (!inside && line.rfind("// gemmc-contract-begin", 0) == 0) {
        block.error = "line " + std::to_string(lineNo) +
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
      block.error = "line " + std::to_string(lineNo) +
                    ": the kernel contract has no '" + end + "' line";
      return false;
    }
    size_t colon = line.find(": ");
    if (line.rfind("// ", 0) != 0 || colon == std::string::npos) {
      block.error = "line " + std::to_string(lineNo) +
                    ": expected '// key: value' in the contract, got '" + line +
                    "'";
      return false;
    }
    std::string key = line.substr(3, colon - 3);
    block.fields[key] = line.substr(colon + 2);
    block.lines[key] = lineNo;
  }
  if (!inside) {
    block.error = "no kernel contract ('" + begin + "') in the PTX";
    return false;
  }
  found = true;
  if (!done) {
    block.error = "the kernel contract has no '" + end + "' line";
    return false;
  }
  for (const char *key : {"entry", "block", "grid", "dynamic-shared-bytes",
                          "params", "problem"}) {
    if (!block.has(key)) {
      block.error =
          std::string("the kernel contract has no '") + key + "' field";
      return false;
    }
  }
  return true;
}

/// The kernel's names: `entry`, a variant's `family` and `when`, the
/// `transposed` line, and the fields kept as text.
static bool parseNames(Block &b, Contract &contract) {
  contract.entry = b["entry"];
  // `family: NAME I/N` and `when: RANGE` come together, from version 5 (a
  // version 5 contract is a variant's; a version 6 one may be).
  contract.family.clear();
  contract.variant = contract.variants = 1;
  contract.when = SizeRange();
  bool variant = b.has("family");
  if (b.has("family") != b.has("when") || (b.version == 5 && !variant) ||
      (b.version < 5 && variant)) {
    b.error = "a variant's contract (version 5 or later) has 'family' and "
              "'when' fields, and no other has";
    return false;
  }
  if (variant) {
    std::vector<std::string> words = splitWords(b["family"]);
    size_t slash = words.size() == 2 ? words[1].find('/') : std::string::npos;
    int64_t index = 0, count = 0;
    if (slash == std::string::npos ||
        !parseInt(words[1].substr(0, slash), index) ||
        !parseInt(words[1].substr(slash + 1), count) || index < 1 ||
        index > count || count > 1024)
      return b.bad("family");
    contract.family = words[0];
    contract.variant = int(index);
    contract.variants = int(count);
    // The rows a group from version 15.
    if (!parseSizeRange(b["when"], contract.when) ||
        (b.version < 15 && contract.when.boundsGroupRows()))
      return b.bad("when");
  }
  // `transposed: C^T = B^T * A^T`, from version 8.
  contract.transposed = b.has("transposed");
  if (contract.transposed &&
      (b.version < 8 || b["transposed"] != kTransposedLine))
    return b.bad("transposed");
  contract.arch = b["arch"];
  contract.semantics = b["semantics"];
  contract.schedule = b["schedule"];
  contract.source = b["source"];
  return true;
}

/// `block`, `grid` and `dynamic-shared-bytes`.
static bool parseLaunch(Block &b, Contract &contract) {
  if (!parseExtents(b["block"], 1024, contract.block))
    return b.bad("block");
  std::vector<std::string> grid = splitWords(b["grid"]);
  if (grid.size() != 3)
    return b.bad("grid");
  for (int i = 0; i < 3; ++i)
    if (!parseGrid(grid[i], contract.grid[i]))
      return b.bad("grid");
  if (!parseInt(b["dynamic-shared-bytes"], contract.dynamicSharedBytes))
    return b.bad("dynamic-shared-bytes");
  return true;
}

/// `epilogue` and `params`: every parameter's role, the bias and alpha and
/// beta as the epilogue states them.
static bool parseParams(Block &b, Contract &contract) {
  contract.params.clear();
  contract.alphaBeta = false;
  contract.bias.clear();
  contract.activation.clear();
  contract.scales.clear();
  contract.residual = false;
  contract.amax = false;
  contract.outputScale = false;
  if (b.has("epilogue")) {
    for (const std::string &word : splitWords(b["epilogue"])) {
      if (word == "relu" || (isActivation(word) && b.version >= 11))
        contract.activation = word;
      else if (word == "bias=row" || word == "bias=col")
        contract.bias = word.substr(5);
      else if (word == "residual=add" && b.version >= 13)
        contract.residual = true;
      else if (word == "amax" && b.version >= 16)
        contract.amax = true;
      else if (word == "output-scale" && b.version >= 17)
        contract.outputScale = true;
      else if (word.rfind("scales=", 0) == 0 &&
               isScaleKind(word.substr(7)) && b.version >= 11)
        contract.scales = word.substr(7);
      else
        return b.bad("epilogue");
    }
  }
  for (const std::string &word : splitWords(b["params"])) {
    size_t colon = word.find(':');
    if (colon == std::string::npos)
      return b.bad("params");
    Param param{word.substr(0, colon), word.substr(colon + 1)};
    bool pointer =
        param.kind == "ptr" &&
        (param.name == "A" || param.name == "B" || param.name == "C" ||
         param.name == "R" || param.name == "bias");
    bool size = param.kind == "i32" &&
                (param.name == "M" || param.name == "N" || param.name == "K");
    bool descriptor =
        (param.kind == "memref2.i32" || param.kind == "memref2.i64" ||
         param.kind == "memref3.i32" || param.kind == "memref3.i64") &&
        (param.name == "A" || param.name == "B" || param.name == "C" ||
         param.name == "R" || (param.name == "bias" && param.kind[6] == '2'));
    pointer = pointer || descriptor;
    bool buffer = (isScaleParam(param) || isWorkspaceParam(param) ||
                   param.name == "offsets" || param.name == "table" ||
                   param.name == "amax" || param.name == "scale-C") &&
                  isBufferKind(param.kind);
    pointer = pointer || buffer;
    bool scalar =
        param.kind == "f32" && (param.name == "alpha" || param.name == "beta");
    contract.alphaBeta = contract.alphaBeta || scalar;
    bool tensorMap = param.kind == "tensormap" &&
                     (param.name == "tmap-A" || param.name == "tmap-B" ||
                      param.name == "tmap-C");
    if (!pointer && !size && !scalar && !tensorMap)
      return b.fail(
          "params",
          "unsupported kernel parameter '" + word +
              "' (known: A:ptr B:ptr C:ptr M:i32 N:i32 K:i32 alpha:f32 "
              "beta:f32 bias:ptr R:ptr, memref2|3.i32|i64 for A, B, C, R, "
              "bias, "
              "workspace:ptr counters:ptr scale-A:ptr scale-B:ptr "
              "scale-C:ptr amax:ptr offsets:ptr or memref1.i32|i64, and "
              "tmap-A:tensormap tmap-B:tensormap tmap-C:tensormap)");
    contract.params.push_back(param);
  }
  if (contract.params.empty())
    return b.bad("params");
  bool biasParam =
      countParams(contract, [](const Param &p) { return p.name == "bias"; });
  if (biasParam != !contract.bias.empty())
    return b.fail("params", "a bias:ptr parameter needs 'epilogue: bias=row' "
                            "or 'bias=col', and the other way round");
  bool residualParam =
      countParams(contract, [](const Param &p) { return p.name == "R"; });
  if (residualParam != contract.residual)
    return b.fail("params", "an R parameter needs 'epilogue: residual=add', "
                            "and the other way round");
  bool amaxParam =
      countParams(contract, [](const Param &p) { return p.name == "amax"; });
  if (amaxParam != contract.amax)
    return b.fail("params", "an amax parameter needs 'epilogue: amax', and "
                            "the other way round");
  bool scaleCParam =
      countParams(contract, [](const Param &p) { return p.name == "scale-C"; });
  if (scaleCParam != contract.outputScale)
    return b.fail("params", "a scale-C parameter needs 'epilogue: "
                            "output-scale', and the other way round");
  // A transposed kernel's A is the problem's B: block scales, A's 1 x 128
  // and B's 128 x 128, would be read each as the other's.
  if (contract.transposed && contract.scales == "block")
    return b.fail("transposed", "block scales cannot be transposed");
  int scaleParams = countParams(contract, isScaleParam);
  if (scaleParams != (contract.scales.empty() ? 0 : 2))
    return b.fail("params", "scale-A and scale-B parameters need 'epilogue: "
                            "scales=...', and the other way round");
  // alpha and beta come together.
  if (contract.alphaBeta && countParams(contract, [](const Param &p) {
                              return p.kind == "f32";
                            }) != 2)
    return b.fail("params",
                  "a kernel takes both alpha:f32 and beta:f32, or neither");
  return true;
}

/// `tensor-maps: A=IxO B=IxO swizzle=128`, with a tmap parameter each.
static bool parseTensorMaps(Block &b, Contract &contract) {
  int maps = countParams(contract,
                         [](const Param &p) { return p.kind == "tensormap"; });
  contract.tensorMaps = b.has("tensor-maps");
  if (contract.tensorMaps != (maps != 0)) {
    b.error = "the tensor-map parameters and the 'tensor-maps' field come "
              "together";
    return false;
  }
  if (!contract.tensorMaps)
    return true;
  std::map<std::string, std::string> parts;
  if (!parseKeyValues(b["tensor-maps"], parts))
    return b.bad("tensor-maps");
  auto box = [&](const std::string &text, TensorMapBox &box) {
    size_t x = text.find('x');
    return x != std::string::npos && parseInt(text.substr(0, x), box.inner) &&
           parseInt(text.substr(x + 1), box.outer) && box.inner > 0 &&
           box.outer > 0 && box.inner <= 256 && box.outer <= 256;
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
      return b.bad("tensor-maps");
    given += hasBox;
    bool hasParam = countParams(
        contract, [&](const Param &p) { return p.name == "tmap-" + name; });
    matches &= hasBox == hasParam;
  }
  if (given == 0 || parts.size() != given + 1 || parts["swizzle"] != "128")
    return b.bad("tensor-maps");
  if (!matches || maps != int(given))
    return b.fail("tensor-maps", "the tensor-map parameters and the boxes of "
                                 "'tensor-maps' differ");
  return true;
}

/// `split-k: splits=S workspace=F` (F = S x P), or `splits=? partial=P`
/// (version 6, the grid's z `splits`), or `splits=stream partial=P`
/// (version 7), with the workspace and counters parameters.
static bool parseSplitK(Block &b, Contract &contract) {
  int workspaceParams = countParams(contract, isWorkspaceParam);
  contract.splits = 1;
  contract.partialFloats = 0;
  contract.streamK = false;
  if (b.has("split-k")) {
    std::map<std::string, std::string> parts;
    if (!parseKeyValues(b["split-k"], parts) || parts.size() != 2)
      return b.bad("split-k");
    bool atLaunch = parts["splits"] == "?";
    if (parts["splits"] == "stream") {
      // The persistent grid's blocks share out the K steps.
      if (b.version < 7 ||
          !parseInt(parts["partial"], contract.partialFloats) ||
          contract.partialFloats <= 0 || contract.grid[0].dim != 'S')
        return b.bad("split-k");
      contract.streamK = true;
    } else if (atLaunch) {
      if (b.version < 6 ||
          !parseInt(parts["partial"], contract.partialFloats) ||
          contract.partialFloats <= 0 || contract.grid[2].dim != 'Z')
        return b.bad("split-k");
      contract.splits = 0;
    } else {
      int64_t workspace = 0;
      if (!parseInt(parts["splits"], contract.splits) ||
          !parseInt(parts["workspace"], workspace) || contract.splits < 2 ||
          workspace <= 0 || workspace % contract.splits)
        return b.bad("split-k");
      contract.partialFloats = workspace / contract.splits;
    }
  }
  if ((contract.grid[2].dim == 'Z') != contract.splitsAtLaunch())
    return b.fail("grid", "the grid's z is 'splits' where, and only where, "
                          "split-k's splits are chosen at launch "
                          "('splits=?')");
  if ((workspaceParams == 2) != contract.usesWorkspace() ||
      (workspaceParams != 0 && workspaceParams != 2)) {
    b.error = "the workspace:... and counters:... parameters and the "
              "'split-k' field come together";
    return false;
  }
  return true;
}

/// `cluster`, `alignment`, `problem` and `cost`.
static bool parseProblemFields(Block &b, Contract &contract) {
  // `cluster: X Y Z`: blocks per cluster, at most 8 (the portable size).
  if (b.has("cluster") && !parseExtents(b["cluster"], 8, contract.cluster))
    return b.bad("cluster");
  if (b.has("alignment") && (!parseInt(b["alignment"], contract.alignment) ||
                             contract.alignment <= 0))
    return b.bad("alignment");
  if (!parseProblem(b["problem"], contract.problem))
    return b.bad("problem");
  // A batch's tensor maps are 3-D, from version 9.
  if (contract.problem.batched && contract.tensorMaps && b.version < 9)
    return b.bad("problem");
  // FP8 operands, from version 11.
  const Problem &p = contract.problem;
  if ((isFloat8(p.a) || isFloat8(p.b) || isFloat8(p.c)) && b.version < 11)
    return b.bad("problem");
  // Grouped GEMMs, from version 12; never a batch besides.
  if (p.grouped && (b.version < 12 || p.batched))
    return b.bad("problem");
  // Its general form, from version 14.
  if (p.groupTable && b.version < 14)
    return b.bad("problem");
  contract.hasCost = b.has("cost");
  contract.cost = CostFacts();
  if (contract.hasCost && !parseCost(b["cost"], contract.cost))
    return b.bad("cost");
  return true;
}

/// `size-multiple: m=… n=… k=…`, `leading-dim-multiple: a=… b=… c=…` and
/// (from version 10) `batch-stride-multiple: a=… b=… c=…`: three positive
/// numbers, one per key.
static bool parseMultiples(Block &b, Contract &contract) {
  auto multiples = [&](const char *field, const char *const keys[3],
                       int64_t *const values[3]) {
    std::map<std::string, std::string> parts;
    if (!parseKeyValues(b[field], parts))
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
  if (b.has("size-multiple") &&
      !multiples("size-multiple", sizeKeys, sizeMultiples))
    return b.bad("size-multiple");
  const char *const matrixKeys[] = {"a", "b", "c"};
  int64_t *const ldMultiples[] = {&contract.ldMultiple[0],
                                  &contract.ldMultiple[1],
                                  &contract.ldMultiple[2]};
  if (b.has("leading-dim-multiple") &&
      !multiples("leading-dim-multiple", matrixKeys, ldMultiples))
    return b.bad("leading-dim-multiple");
  int64_t *const strideMultiples[] = {&contract.strideMultiple[0],
                                      &contract.strideMultiple[1],
                                      &contract.strideMultiple[2]};
  if (b.has("batch-stride-multiple") &&
      (b.version < 10 ||
       !multiples("batch-stride-multiple", matrixKeys, strideMultiples)))
    return b.bad("batch-stride-multiple");
  return true;
}

/// The matrices are all pointers or all memref descriptors, and a kernel
/// of pointers takes the sizes given at launch as parameters.
static bool checkMatrixParams(Block &b, const Contract &contract) {
  int descriptors = countParams(
      contract, [](const Param &p) { return p.kind.rfind("memref", 0) == 0; });
  int workspaceParams = countParams(contract, isWorkspaceParam);
  // A transposed kernel's A is the problem's B: block scales, A's 1 x 128
  // and B's 128 x 128, would be read each as the other's.
  if (contract.transposed && contract.scales == "block")
    return b.fail("transposed", "block scales cannot be transposed");
  int scaleParams = countParams(contract, isScaleParam);
  int offsetsParams = countParams(contract, [](const Param &p) {
    return p.name == "offsets" || p.name == "table";
  });
  int tableParams = countParams(
      contract, [](const Param &p) { return p.name == "table"; });
  if (offsetsParams != int(contract.problem.grouped) ||
      tableParams != int(contract.problem.groupTable))
    return b.fail("params", "a grouped problem ('groups=') takes one offsets "
                            "parameter (its general form, "
                            "'group-form=ptr-array', one table parameter), "
                            "and only it does");
  if (descriptors != 0 &&
      descriptors != 3 + !contract.bias.empty() + contract.residual +
                         contract.amax + contract.outputScale +
                         workspaceParams + scaleParams + offsetsParams)
    return b.fail("params",
                  "A, B, C (and the offsets, the bias, R, the scales, the "
                  "amax, C's scale, the workspace and counters) are all "
                  "pointers or all memref descriptors");
  if (descriptors)
    return true;
  const std::pair<int64_t, const char *> dims[] = {{contract.problem.m, "M"},
                                                   {contract.problem.n, "N"},
                                                   {contract.problem.k, "K"}};
  for (const auto &[size, dim] : dims) {
    const char *name = dim;
    bool passed =
        countParams(contract, [&](const Param &p) { return p.name == name; });
    if (size == 0 && !passed) {
      b.error = std::string("the problem's size ") + name +
                " is given at launch but is not a kernel parameter";
      return false;
    }
  }
  return true;
}

/// Parses the next contract block of `is` (read up to line `lineNo`).
/// Sets `found` to whether there was one; an error leaves `error` set.
static bool parseNextContract(std::istringstream &is, unsigned &lineNo,
                              Contract &contract, std::string &error,
                              bool &found) {
  Block block(error);
  return readBlock(is, lineNo, block, found) && parseNames(block, contract) &&
         parseLaunch(block, contract) && parseParams(block, contract) &&
         parseTensorMaps(block, contract) && parseSplitK(block, contract) &&
         parseProblemFields(block, contract) &&
         parseMultiples(block, contract) && checkMatrixParams(block, contract);
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
