//===- Contract.cpp - the kernel contract --------------------------------===//
//
// The contract's vocabulary: types and layouts, grid expressions, and
// what a contract says of a problem (tiles, K steps, split-K's workspace).
// Parse.cpp reads contracts, Format.cpp writes them, Accept.cpp decides
// which problems one takes, SizeRange.cpp holds a variant's sizes.
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

const char *gemmc::contract::toString(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::E4M3:
    return "e4m3";
  case DType::E5M2:
    return "e5m2";
  }
  return "?";
}

const char *gemmc::contract::toString(Layout layout) {
  return layout == Layout::Row ? "row" : "col";
}

unsigned gemmc::contract::sizeOf(DType type) {
  if (isFloat8(type))
    return 1;
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

int64_t Contract::tilesOfC(const Problem &problem) const {
  int64_t bm, bn, bk;
  tile(bm, bn, bk);
  bm = std::max<int64_t>(bm, 1);
  bn = std::max<int64_t>(bn, 1);
  return (problem.m + bm - 1) / bm * ((problem.n + bn - 1) / bn) *
         problem.batch;
}

int64_t Contract::workspaceFloats(const Problem &problem, int64_t count,
                                  int64_t blocks) const {
  if (streamK)
    return 2 * blocks * partialFloats;
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

std::string gemmc::contract::describeSemantics(
    bool alphaBeta, const std::string &bias, const std::string &activation,
    const std::string &scales, bool residual, bool outputScale) {
  std::string product =
      scales == "tensor"    ? "scale_a * scale_b * A * B"
      : scales == "rowwise" ? "scale_a[row] * scale_b[col] * A * B"
      : scales == "block"
          ? "(scale_a[row,k/128] * A) * (scale_b[col/128,k/128] * B)"
          : "A * B";
  std::string value =
      alphaBeta ? "alpha * " + product + " + beta * C" : product;
  if (!bias.empty())
    value += " + bias[" + bias + "]";
  if (!activation.empty())
    value = activation + "(" + value + ")";
  if (residual)
    value += " + R";
  if (outputScale)
    value = "scale_c * (" + value + ")";
  return "C = " + value;
}

bool gemmc::contract::isScaleKind(const std::string &name) {
  return name == "tensor" || name == "rowwise" || name == "block";
}

static int64_t blocksOf(int64_t extent) {
  return (extent + kScaleBlock - 1) / kScaleBlock;
}

int64_t gemmc::contract::scaleCount(const std::string &scales, bool ofA,
                                    int64_t m, int64_t n, int64_t k,
                                    int64_t groups) {
  int64_t perGroup = ofA ? 1 : groups;
  if (scales == "tensor")
    return perGroup;
  if (scales == "rowwise")
    return ofA ? m : n * perGroup;
  if (scales == "block")
    return (ofA ? m : blocksOf(n) * perGroup) * blocksOf(k);
  return 0;
}

int64_t gemmc::contract::scaleCount(const Problem &p, bool ofA) {
  return scaleCount(p.scales, ofA, p.m, p.n, p.k, p.grouped ? p.groups : 1);
}

int64_t gemmc::contract::blockScaleIndex(bool ofA, int64_t row, int64_t col,
                                         int64_t m, int64_t n, int64_t k) {
  // A's: (row, col / 128) at (col / 128) * M + row. B's, for (k, n) at
  // (row, col): block (col / 128, row / 128) at (col / 128) * ceil(K/128)
  // + row / 128.
  if (ofA)
    return col / kScaleBlock * m + row;
  return col / kScaleBlock * blocksOf(k) + row / kScaleBlock;
}

bool gemmc::contract::isActivation(const std::string &name) {
  return name == "relu" || name == "gelu" || name == "gelu-tanh" ||
         name == "silu";
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

int64_t Contract::stages() const {
  for (const std::string &word : splitWords(schedule)) {
    int64_t stages;
    if (word.rfind("stages=", 0) == 0 && parseInt(word.substr(7), stages))
      return std::max<int64_t>(stages, 0);
  }
  return 0;
}

static Layout flip(Layout layout) {
  return layout == Layout::Row ? Layout::Col : Layout::Row;
}

Problem gemmc::contract::transposeProblem(const Problem &p) {
  Problem t = p;
  t.m = p.n;
  t.n = p.m;
  t.a = p.b;
  t.b = p.a;
  t.aLayout = flip(p.bLayout);
  t.bLayout = flip(p.aLayout);
  t.cLayout = flip(p.cLayout);
  t.lda = p.ldb;
  t.ldb = p.lda;
  t.strideA = p.strideB;
  t.strideB = p.strideA;
  if (!p.bias.empty())
    t.bias = p.bias == "row" ? "col" : "row";
  return t;
}

Contract gemmc::contract::untransposeContract(const Contract &kernel) {
  Contract c = kernel;
  c.transposed = true;
  c.problem = transposeProblem(kernel.problem);
  std::swap(c.multipleM, c.multipleN);
  std::swap(c.ldMultiple[0], c.ldMultiple[1]);
  std::swap(c.strideMultiple[0], c.strideMultiple[1]);
  std::swap(c.boxA, c.boxB);
  for (GridExpr &g : c.grid)
    g.dim = g.dim == 'M' ? 'N' : g.dim == 'N' ? 'M' : g.dim;
  // The kernel's A is the problem's B, its M the problem's N.
  for (Param &p : c.params) {
    static const std::pair<const char *, const char *> renames[] = {
        {"A", "B"},           {"B", "A"},
        {"tmap-A", "tmap-B"}, {"tmap-B", "tmap-A"},
        {"scale-A", "scale-B"}, {"scale-B", "scale-A"},
        {"M", "N"}, {"N", "M"}};
    for (auto [from, to] : renames)
      if (p.name == from) {
        p.name = to;
        break;
      }
  }
  if (!c.bias.empty())
    c.bias = kernel.bias == "row" ? "col" : "row";
  c.semantics = describeSemantics(c.alphaBeta, c.bias, c.activation, c.scales,
                                  c.residual, c.outputScale);
  // The tile along the problem's M first.
  int64_t bm, bn, bk;
  kernel.tile(bm, bn, bk);
  std::vector<std::string> words = splitWords(kernel.schedule);
  if (bm && !words.empty()) {
    words[0] = "tile=" + std::to_string(bn) + "x" + std::to_string(bm) + "x" +
               std::to_string(bk);
    c.schedule.clear();
    for (const std::string &word : words)
      c.schedule += (c.schedule.empty() ? "" : " ") + word;
  }
  return c;
}
