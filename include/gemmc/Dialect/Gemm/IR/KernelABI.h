//===- KernelABI.h - the roles of a gemmc kernel's arguments ----*- C++ -*-===//
//
// A kernel's arguments, in order: the matrices A, B and C, then with
// `groups` the groups' offsets (i32, one a group: where its rows end), or
// with `groups = G ptr-array` the group table (i64, a row a group:
// gemmc-contract/Contract.h's GroupColumn), then alpha and
// beta (f32) with `epilogue = alpha-beta`, then the bias vector, then
// with `residual = add` the matrix R (C's type and strides), then with
// `scales` A's and B's scales (f32: one each, or one per row of A and per
// column of B), then with `output-scale = tensor` C's scale (one f32),
// then with `amax = c` the amax (one f32, which the runtime
// zeroes before the launch and the kernel raises), then with
// `split-k` the workspace (f32 partial tiles) and its arrival counters (i32,
// zero before the first launch; the kernel leaves them zero), then with
// `tma a b` the tensor maps of A and B, and of C with `tma c` (128-byte
// CUtensorMap structs the
// runtime encodes and passes by value; last, so that they stay the last
// parameters of the lowered kernel however the matrices expand). One module
// names them: convert-gemm-to-gpu builds the signature from it, the
// epilogue finds alpha, beta and the bias through it, the wgmma kernel its
// tensor maps, and the contract writer lists the parameters from it
// (docs/contract.md).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_DIALECT_GEMM_IR_KERNELABI_H
#define GEMMC_DIALECT_GEMM_IR_KERNELABI_H

#include "gemmc/Schedule/Schedule.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"

namespace mlir::gemm {

/// The matrices come first, A, B, C (0, 1, 2: convert-gemm-to-gpu indexes
/// its matrix types by them).
enum class KernelArg {
  A,
  B,
  C,
  Offsets,
  GroupTable,
  Alpha,
  Beta,
  Bias,
  Residual,
  ScaleA,
  ScaleB,
  OutputScale,
  Amax,
  Workspace,
  Counters,
  TensorMapA,
  TensorMapB,
  TensorMapC
};

/// The name of a role in the contract's `params:` line: A, B, C, offsets,
/// table, alpha,
/// beta, bias, R, scale-A, scale-B, scale-C, amax, workspace, counters, tmap-A,
/// tmap-B, tmap-C.
StringRef stringifyKernelArg(KernelArg role);

/// The arguments the problem adds to the matrices: the groups' offsets
/// (or, `groupTable`, their table), and the epilogue's.
struct ProblemArgs {
  bool groups = false, groupTable = false, alphaBeta = false, bias = false,
       residual = false, scales = false, outputScale = false, amax = false;
};

/// The argument list of a kernel.
class KernelABI {
public:
  /// The tensor maps of the matrices TMA copies (`tma a b c`), each where
  /// its flag is set.
  KernelABI(const ProblemArgs &problem, bool workspace, bool tensorMapA,
            bool tensorMapB, bool tensorMapC);
  /// The ABI of a kernel of `schedule` with the problem's arguments.
  static KernelABI get(const ProblemArgs &problem,
                       const gemmc::Schedule &schedule);
  /// The ABI of a kernel function, from its gemm.groups, gemm.alpha_beta,
  /// gemm.bias, gemm.residual, gemm.scales, gemm.output_scale, gemm.amax
  /// and gemm.schedule
  /// attributes.
  static KernelABI of(Operation *kernel);

  /// The roles, in argument order.
  ArrayRef<KernelArg> getRoles() const { return roles; }
  /// The position of `role`, or std::nullopt where the kernel has none.
  std::optional<unsigned> indexOf(KernelArg role) const;
  /// The number of tensor maps, the last arguments.
  unsigned getNumTensorMaps() const;

private:
  SmallVector<KernelArg, 6> roles;
};

/// The argument of `kernel` with `role`, or null where it has none.
BlockArgument getKernelArgument(FunctionOpInterface kernel, KernelArg role);

/// A batch's matrix argument is a count x rows x cols memref: the
/// rows x cols view of its matrix `index`.
Value createBatchMatrixView(OpBuilder &b, Location loc, Value batch,
                            OpFoldResult index);

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_IR_KERNELABI_H
