//===- CApiProblems.cpp - the C API's checks of a problem -----------------===//
//
// A gemmc_problem as a kernel's contract sees it, and why one cannot be
// launched: its sizes, its pointers, the buffers they point into.
//
//===----------------------------------------------------------------------===//

#include "CApiInternal.h"

#include <cstdint>
#include <cstdio>
#include <string>

using namespace gemmc::rt;
using namespace gemmc::rt::capi_internal;

/// The runtime's problem for `given` on `contract`'s types, layouts and
/// epilogue.
Problem capi_internal::toProblem(const Contract &contract,
                                 const gemmc_problem &given) {
  // R and the scales, as the kernel takes them (checkPointers requires
  // their pointers).
  Problem p = contract.problemWithEpilogue();
  p.m = given.m;
  p.n = given.n;
  p.k = given.k;
  p.lda = given.lda;
  p.ldb = given.ldb;
  p.ldc = given.ldc;
  p.alpha = given.alpha;
  p.beta = given.beta;
  p.batch = given.batch > 0 ? given.batch : 1;
  p.strideA = given.stride_a;
  p.strideB = given.stride_b;
  p.strideC = given.stride_c;
  // One GEMM (a grouped one is gemmc_grouped_problem's).
  p.grouped = false;
  p.groups = 0;
  return p;
}

/// Why `given`'s sizes cannot be launched whatever the variant.
std::string capi_internal::checkSizes(const gemmc_problem &given) {
  if (given.m < 1 || given.n < 1 || given.k < 1)
    return "sizes must be positive, got " + std::to_string(given.m) + "x" +
           std::to_string(given.n) + "x" + std::to_string(given.k);
  if (given.m > INT32_MAX || given.n > INT32_MAX || given.k > INT32_MAX)
    return "sizes must be below 2^31";
  if (given.batch < 0 || given.lda < 0 || given.ldb < 0 || given.ldc < 0 ||
      given.stride_a < 0 || given.stride_b < 0 || given.stride_c < 0)
    return "leading dimensions, strides and the batch must not be negative";
  return "";
}

gemmc_operands capi_internal::operandsOf(const gemmc_problem &given) {
  return {given.a,       given.b,        given.c,
          given.bias,    given.residual, given.scale_a,
          given.scale_b, given.amax,     given.scale_c};
}

/// Why these pointers cannot be launched on `contract`'s kernels: null, a
/// bias, R or scales given or missing against the contract, or (checked
/// only where `alignment` is given) misaligned.
std::string capi_internal::checkPointers(const Contract &contract,
                                         const gemmc_operands &o,
                                         int64_t alignment) {
  if (!o.a || !o.b || !o.c)
    return "the pointers to A, B and C must not be null";
  if (!contract.bias.empty() && !o.bias)
    return "the kernel adds a " + contract.bias +
           " bias: its pointer must not be null";
  if (contract.bias.empty() && o.bias)
    return "the kernel adds no bias, but a bias pointer was given";
  if (contract.residual && !o.residual)
    return "the kernel adds R: its pointer must not be null";
  if (!contract.residual && o.residual)
    return "the kernel adds no R, but an R pointer was given";
  bool scales = !contract.scales.empty();
  if (scales && (!o.scale_a || !o.scale_b))
    return "the kernel multiplies by " + contract.scales +
           " scales: the pointers to A's and B's must not be null";
  if (!scales && (o.scale_a || o.scale_b))
    return "the kernel takes no scales, but a scale pointer was given";
  if (contract.amax && !o.amax)
    return "the kernel writes the amax of C: its pointer must not be null";
  if (!contract.amax && o.amax)
    return "the kernel writes no amax, but an amax pointer was given";
  if (contract.outputScale && !o.scale_c)
    return "the kernel multiplies C by its scale: the pointer to it must "
           "not be null";
  if (!contract.outputScale && o.scale_c)
    return "the kernel takes no scale of C, but a pointer to one was given";
  // The vectors (the bias, the scales) are read an element at a time: 4
  // bytes are enough for the scales.
  if (alignment > 1 &&
      (o.a | o.b | o.c | o.bias | o.residual) % uint64_t(alignment))
    return "the pointers must be aligned to " + std::to_string(alignment) +
           " bytes";
  if ((o.scale_a | o.scale_b) % 4)
    return "the scales' pointers must be aligned to 4 bytes";
  if (o.amax % 4)
    return "the amax's pointer must be aligned to 4 bytes";
  if (o.scale_c % 4)
    return "C's scale's pointer must be aligned to 4 bytes";
  return "";
}

/// Why the buffer at `pointer` cannot hold `bytes` for operand `name`: not
/// device memory, misaligned, or too small.
static std::string checkBuffer(const char *name, uint64_t pointer,
                               int64_t bytes, int64_t alignment) {
  const DriverApi &api = DriverApi::get();
  // The operand's name in a message (built only for one).
  auto operandName = [&] {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "%llx", (unsigned long long)pointer);
    return std::string(name) + " (0x" + hex + ")";
  };
  // One query for the three attributes (a launch's cost is mostly such
  // calls).
  unsigned memoryType = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                      CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *values[] = {&memoryType, &start, &size};
  CUresult r =
      api.cuPointerGetAttributes(3, attributes, values, CUdeviceptr(pointer));
  if (r != CUDA_SUCCESS || memoryType == CU_MEMORYTYPE_HOST || memoryType == 0)
    return operandName() + " is not device memory of the current context";
  if (alignment > 1 && pointer % uint64_t(alignment))
    return operandName() + " must be aligned to " + std::to_string(alignment) +
           " bytes";
  if (size && uint64_t(bytes) > start + size - pointer)
    return operandName() + " needs " + std::to_string(bytes) +
           " bytes, but its allocation has " +
           std::to_string(start + size - pointer) + " from there";
  return "";
}

/// Why the scales' buffers `given` (where not null) cannot hold `p`'s.
static std::string checkScaleBuffers(const Problem &p,
                                     const gemmc_operands &given) {
  for (bool ofA : {true, false}) {
    uint64_t scale = ofA ? given.scale_a : given.scale_b;
    if (!scale)
      continue;
    std::string why = checkBuffer(ofA ? "A's scales" : "B's scales", scale,
                                  scaleCount(p, ofA) * 4, 4);
    if (!why.empty())
      return why;
  }
  return "";
}

std::string capi_internal::checkBuffers(const Contract &contract,
                                        const Problem &p,
                                        const gemmc_problem &given) {
  auto extent = [&](int64_t stride, int64_t span, DType type) {
    return ((p.batch - 1) * stride + span) * int64_t(sizeOf(type));
  };
  std::string why =
      checkBuffer("A", given.a, extent(p.strideOfA(), p.spanOfA(), p.a),
                  contract.alignment);
  if (why.empty())
    why = checkBuffer("B", given.b, extent(p.strideOfB(), p.spanOfB(), p.b),
                      contract.alignment);
  if (why.empty())
    why = checkBuffer("C", given.c, extent(p.strideOfC(), p.spanOfC(), p.c),
                      contract.alignment);
  if (why.empty() && given.bias)
    why = checkBuffer("the bias", given.bias,
                      (p.bias == "row" ? p.m : p.n) * int64_t(sizeOf(p.c)),
                      contract.alignment);
  if (why.empty() && given.residual)
    why = checkBuffer("R", given.residual,
                      extent(p.strideOfC(), p.spanOfC(), p.c),
                      contract.alignment);
  if (why.empty() && given.amax)
    why = checkBuffer("the amax", given.amax, 4, 4);
  if (why.empty() && given.scale_c)
    why = checkBuffer("C's scale", given.scale_c, 4, 4);
  return why.empty() ? checkScaleBuffers(p, operandsOf(given)) : why;
}

std::string capi_internal::checkGroupedBuffers(const Contract &contract,
                                               const Problem &p,
                                               const gemmc_operands &given,
                                               uint64_t offsets) {
  int64_t bBytes = ((p.groups - 1) * p.strideOfB() + p.spanOfB()) *
                   int64_t(sizeOf(p.b));
  std::string why = checkBuffer(
      "A", given.a, p.spanOfA() * int64_t(sizeOf(p.a)), contract.alignment);
  if (why.empty())
    why = checkBuffer("B", given.b, bBytes, contract.alignment);
  if (why.empty())
    why = checkBuffer("C", given.c, p.spanOfC() * int64_t(sizeOf(p.c)),
                      contract.alignment);
  if (why.empty())
    why = checkBuffer("the offsets", offsets, p.groups * 4, 4);
  return why.empty() ? checkScaleBuffers(p, given) : why;
}
