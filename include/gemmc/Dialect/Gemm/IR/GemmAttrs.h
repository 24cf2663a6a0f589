//===- GemmAttrs.h - gemm dialect attributes --------------------*- C++ -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMATTRS_H
#define GEMMC_DIALECT_GEMM_IR_GEMMATTRS_H

#include "gemmc/Schedule/Schedule.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/Hashing.h"

#include "gemmc/Dialect/Gemm/IR/GemmEnums.h.inc"

namespace mlir::gemm {

/// One grid extent: ceildiv(dim, divisor), or where `dim` is `Dim::One` a
/// fixed count of blocks, `divisor` (1, or split-K's splits).
struct GridDim {
  Dim dim = Dim::One;
  int64_t divisor = 1;

  bool operator==(const GridDim &other) const {
    return dim == other.dim && divisor == other.divisor;
  }
};

inline llvm::hash_code hash_value(const GridDim &g) {
  return llvm::hash_combine(static_cast<int>(g.dim), g.divisor);
}

/// The body of a `#gemm.schedule<...>`: `tile = 128x128x8, coalesce, ...`.
FailureOr<gemmc::Schedule> parseScheduleParameter(AsmParser &parser);
void printScheduleParameter(AsmPrinter &printer,
                            const gemmc::Schedule &schedule);

} // namespace mlir::gemm

#define GET_ATTRDEF_CLASSES
#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h.inc"

namespace mlir::gemm {

/// The schedule model's element type for `type` (f32, f16 or bf16).
gemmc::ElementType getElementTypeModel(Type type);

/// The schedule model's view of a problem attribute (sizes, element types,
/// layouts); the epilogue and batch come from the kernel.
gemmc::Problem getProblemModel(ProblemAttr problem);
/// Adds a kernel's batch to the schedule model's problem: its count and A,
/// B and C's strides (ShapedType::kDynamic where given at launch; the
/// strides are the problem's only where its sizes are static).
void setBatchModel(gemmc::Problem &problem, ArrayRef<int64_t> batch);
/// Makes the model's problem grouped: `groups` GEMMs (dynamic: given at
/// launch).
void setGroupsModel(gemmc::Problem &problem, int64_t groups,
                    bool groupTable = false);

/// The schedule model's whole problem of a kernel function: its problem
/// attribute with the batch, groups, scales and epilogue that
/// convert-gemm-to-gpu put on the function (what Sema's model had).
gemmc::Problem getKernelProblemModel(Operation *func);

/// Reports a schedule model diagnostic through `emitError` (errors only;
/// notes become notes of the error before them, warnings are dropped).
class ModelDiagnostics {
public:
  explicit ModelDiagnostics(function_ref<InFlightDiagnostic()> emitError)
      : emitError(emitError) {}
  void operator()(const gemmc::Diagnostic &diagnostic);

private:
  function_ref<InFlightDiagnostic()> emitError;
  std::optional<InFlightDiagnostic> last;
};

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_IR_GEMMATTRS_H
