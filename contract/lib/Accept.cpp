//===- Accept.cpp - which problems a contract takes ----------------------===//
//
// Whether a kernel takes a problem: types, layouts, epilogue, sizes,
// leading dimensions and alignment, limits.
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
    // A batch's strides step by the leading dimension's multiple, and by
    // the batch-stride multiple where one is stated.
    int64_t strideMultiple = std::max(multiple, contract.strideMultiple[i]);
    // A grouped GEMM's B holds a matrix a group.
    int64_t count = i == 1 ? p.countOfB() : p.batch;
    bool steps = i == 1 && p.grouped ? count > 1 : k.batch != 1 && count > 1;
    if (steps &&
        (m.stride < m.span || m.stride % multiple ||
         m.stride % strideMultiple)) {
      why = std::string("the batch stride of ") + m.name + " (" +
            std::to_string(m.stride) + ") must be at least " +
            std::to_string(m.span) + " and a multiple of " +
            std::to_string(strideMultiple);
      return false;
    }
    // 32-bit index arithmetic: every element's offset must fit.
    if (contract.indexBits() == 32 &&
        (count - 1) * m.stride + m.span >= (int64_t(1) << 31)) {
      why = std::string("the kernel indexes in 32 bits: ") + m.name +
            " spans 2^31 elements or more";
      return false;
    }
  }
  return true;
}

int64_t gemmc::contract::everyLdMultiple(DType operand) {
  // FP8 operands are copied by TMA alone (wgmma's only FP8 feed in gemmc):
  // their rows start 16 bytes apart at least, as torch._scaled_mm asks too.
  return isFloat8(operand) ? 16 / int64_t(sizeOf(operand)) : 1;
}

bool gemmc::contract::takesEveryProblem(const Contract &c) {
  const Problem &p = c.problem;
  auto every = [](int64_t multiple, DType type) {
    return everyLdMultiple(type) % multiple == 0;
  };
  return c.when.isAll() && every(c.ldMultiple[0], p.a) &&
         every(c.ldMultiple[1], p.b) && c.ldMultiple[2] == 1 &&
         c.multipleM == 1 && c.multipleN == 1 && c.multipleK == 1 &&
         !c.storesWithTma();
}

bool gemmc::contract::accepts(const Contract &contract, const Problem &p,
                              std::string &why) {
  const Problem &k = contract.problem;
  // The general form's sizes and leading dimensions are its table's, on the
  // device: the caller keeps each group's to the contract's multiples.
  bool table = k.groupTable && p.groupTable;
  const std::tuple<int64_t, int64_t, int64_t, const char *> dims[] = {
      {k.m, p.m, contract.multipleM, "M"},
      {k.n, p.n, contract.multipleN, "N"},
      {k.k, p.k, contract.multipleK, "K"}};
  for (auto [fixed, want, multiple, name] : dims) {
    if (table)
      break;
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
  if (k.fastAccumulate && !p.fastAccumulate) {
    why = "the kernel sums FP8 products on the tensor cores over all of K "
          "(math=fast-accumulate), which the problem does not allow";
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
  if (p.grouped != k.grouped) {
    why = p.grouped ? "the problem is grouped; the kernel computes one GEMM"
                    : "the kernel computes a grouped GEMM (groups=" +
                          (k.groups ? std::to_string(k.groups) : "?") + ")";
    return false;
  }
  if (p.groupTable != k.groupTable) {
    why = p.groupTable ? "the problem is a grouped GEMM's general form "
                         "(group-form=ptr-array); the kernel reads offsets"
                       : "the kernel reads a group table "
                         "(group-form=ptr-array)";
    return false;
  }
  if (p.grouped && (p.groups < 1 || (k.groups != 0 && p.groups != k.groups))) {
    why = "groups = " + std::to_string(p.groups) +
          ": the kernel computes " + k.str();
    return false;
  }
  if (p.grouped && !contract.descriptors() && p.strideOfB() != p.spanOfB()) {
    why = "the kernel takes its groups' B dense, one after the other";
    return false;
  }
  if (!table && !acceptsLeadingDims(contract, p, why))
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
  if (p.bias != contract.bias || p.activation != contract.activation ||
      p.scales != contract.scales || p.residual != contract.residual) {
    why = "the kernel's epilogue is " + contract.semantics;
    return false;
  }
  if (p.amax != contract.amax) {
    why = contract.amax ? "the kernel writes the amax of C: give it one"
                        : "the kernel writes no amax of C";
    return false;
  }
  if (p.outputScale != contract.outputScale) {
    why = contract.outputScale
              ? "the kernel multiplies C by its scale: give it one"
              : "the kernel takes no scale of C";
    return false;
  }
  return true;
}
