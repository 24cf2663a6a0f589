//===- Contract.h - the kernel contract written into the PTX ----*- C++ -*-===//
//
// The kernel contract is a block of `//` comment lines that gemmc writes into
// the PTX right after the header (.version, .target, .address_size). It holds
// everything the runtime needs to launch the kernel; docs/contract.md
// describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TARGET_CONTRACT_H
#define GEMMC_TARGET_CONTRACT_H

#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h"
#include "gemmc-contract/Contract.h"
#include "gemmc-contract/Cost.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include <optional>
#include <string>

namespace mlir::gemm {

struct KernelContract {
  std::string entry;
  std::string arch;
  std::string source;
  ProblemAttr problem;
  ScheduleAttr schedule;
  LaunchAttr launch;
  /// `C = alpha * A * B + beta * C`, alpha and beta parameters.
  bool alphaBeta = false;
  /// "row" or "col" for a bias parameter (one value per row or column of
  /// C), or empty.
  std::string bias;
  /// The activation applied after the bias ("relu", "gelu", "gelu-tanh",
  /// "silu"), or empty.
  std::string activation;
  /// `residual = add`: R (the `R` parameter, shaped as C) added last.
  bool residual = false;
  /// `amax = c`: the kernel raises `amax` (an f32 parameter) to max |C|.
  bool amax = false;
  /// `output-scale = tensor`: the kernel takes `scale-C` (an f32
  /// parameter) and multiplies an FP8 C's values by it before their cast.
  bool outputScale = false;
  /// "tensor" or "rowwise" for A's and B's scales (scale-A and scale-B
  /// parameters), empty without.
  std::string scales;
  /// A batch: count and the strides of A, B and C (ShapedType::kDynamic:
  /// given at launch), or empty.
  SmallVector<int64_t, 4> batch;
  /// A grouped GEMM's group count (ShapedType::kDynamic: given at launch).
  std::optional<int64_t> groups;
  /// The general form's group table (`groups = G ptr-array`).
  bool groupTable = false;
  /// Sizes given at launch: A, B, C (and the bias) are memref descriptors
  /// whose index fields have the launch attribute's index width, and the
  /// leading dimensions of A, B and C must be multiples of its
  /// `ld_multiple` (the widest vector access to each, in elements).
  bool descriptors = false;
  /// The parameters by the kernel ABI: role and type (`ptr`, `f32`,
  /// `memref2.i64`, ...), from the kernel's signature.
  SmallVector<std::pair<std::string, std::string>, 6> params;
  /// A variant of a kernel family (contract version 5): the family's name,
  /// the variant's place among `variants` (from 0, the order the runtime
  /// tries them in) and the sizes it is for; `family` is empty otherwise.
  std::string family;
  unsigned variant = 0, variants = 1;
  gemmc::contract::SizeRange when;
  /// The variant's fitted cost constants (`cost` in the schedule file), or
  /// none: the model's defaults.
  std::optional<gemmc::contract::CostConstants> cost;
};

/// Reads the contract of a kernel produced by gemmc's schedule passes from
/// its `gemm.problem`, `gemm.schedule` and `gemm.launch` attributes and its
/// signature (the kernel ABI); formatContract only formats it.
FailureOr<KernelContract> getKernelContract(gpu::GPUFuncOp kernel,
                                            StringRef arch, StringRef source);

/// The contract library's contract of a kernel (docs/contract.md).
gemmc::contract::Contract toContract(const KernelContract &contract);

/// Formats `contract` as the comment block described in docs/contract.md.
std::string formatContract(const KernelContract &contract);

/// Returns `ptx` with `block` inserted after its header lines.
std::string insertContract(StringRef ptx, StringRef block);

} // namespace mlir::gemm

#endif // GEMMC_TARGET_CONTRACT_H
