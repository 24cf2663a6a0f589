//===- Format.cpp - the contract as text ---------------------------------===//
//
// Writing contracts (the inverse of Parse.cpp) and problems.
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
  else if (fastAccumulate)
    os << " math=fast-accumulate";
  if (!scales.empty())
    os << " scales=" << scales;
  if (batch != 1)
    os << " batch=" << sizeStr(batch) << " strides=" << sizeStr(strideOfA())
       << "," << sizeStr(strideOfB()) << "," << sizeStr(strideOfC());
  if (grouped)
    os << " groups=" << sizeStr(groups);
  if (groupTable)
    os << " group-form=ptr-array";
  return os.str();
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
  else if (p.fastAccumulate)
    os << " math=fast-accumulate";
  if (p.batched || p.batch != 1)
    os << " batch=" << sizeStr(p.batch) << " strides=" << sizeStr(p.strideA)
       << "," << sizeStr(p.strideB) << "," << sizeStr(p.strideC);
  if (p.grouped)
    os << " groups=" << (p.groups ? std::to_string(p.groups) : "?");
  if (p.groupTable)
    os << " group-form=ptr-array";
  return os.str();
}

/// Whether the kernel takes FP8 operands or their scales, or applies GELU
/// or SiLU (version 11).
static bool needsVersion11(const Contract &c) {
  bool newActivation = !c.activation.empty() && c.activation != "relu";
  return newActivation || !c.scales.empty() || isFloat8(c.problem.a) ||
         isFloat8(c.problem.b) || isFloat8(c.problem.c);
}

std::string gemmc::contract::formatContract(const Contract &c) {
  std::ostringstream os;
  // Version 2 adds tensor maps and the persistent grid, version 3 C's
  // tensor map and clusters, version 4 split-K's workspace, version 5 a
  // family's variant, version 6 split-K's splits chosen at launch,
  // version 7 stream-K, version 8 a transposed kernel, version 9 a batch
  // copied by TMA (3-D tensor maps), version 10 multiples of the batch
  // strides, version 11 FP8 operands and their scales, version 12 a grouped
  // GEMM and its offsets, version 13 a residual R, version 14 a grouped
  // GEMM's general form and its table, version 15 a variant for a range
  // of the rows a group, version 16 the amax of C, version 17 C's scale:
  // a reader of an older
  // version refuses such a kernel rather than launch it wrongly (or for
  // problems it is not for).
  int version = c.outputScale                              ? 17
                : c.amax                                   ? 16
                : c.when.boundsGroupRows()                 ? 15
                : c.problem.groupTable                     ? 14
                : c.residual                               ? 13
                : c.problem.grouped                        ? 12
                : needsVersion11(c)                        ? 11
                : c.hasStrideMultiples()                   ? 10
                : c.problem.batched && c.tensorMaps        ? 9
                : c.transposed                             ? 8
                : c.streamK                                ? 7
                : c.splitsAtLaunch()                       ? 6
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
  if (c.streamK)
    os << "// split-k: splits=stream partial=" << c.partialFloats << "\n";
  else if (c.splitsAtLaunch())
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
  if (c.hasStrideMultiples())
    os << "// batch-stride-multiple: a=" << c.strideMultiple[0]
       << " b=" << c.strideMultiple[1] << " c=" << c.strideMultiple[2]
       << "\n";
  os << "// semantics: " << c.semantics << "\n";
  if (!c.bias.empty() || !c.activation.empty() || !c.scales.empty() ||
      c.residual || c.amax || c.outputScale) {
    os << "// epilogue:";
    if (!c.scales.empty())
      os << " scales=" << c.scales;
    if (!c.bias.empty())
      os << " bias=" << c.bias;
    if (!c.activation.empty())
      os << " " << c.activation;
    if (c.residual)
      os << " residual=add";
    if (c.amax)
      os << " amax";
    if (c.outputScale)
      os << " output-scale";
    os << "\n";
  }
  os << "// problem: " << problemLine(c.problem) << "\n";
  if (c.transposed)
    os << "// transposed: " << kTransposedLine << "\n";
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
