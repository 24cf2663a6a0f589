//===- GemmOps.h - gemm dialect operations ----------------------*- C++ -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMOPS_H
#define GEMMC_DIALECT_GEMM_IR_GEMMOPS_H

#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "gemmc/Dialect/Gemm/IR/GemmOps.h.inc"

namespace mlir::gemm {

/// The schedule of the kernel `op` belongs to: the `gemm.schedule` of `op`
/// or of the nearest op around it that has one (the gpu.func after
/// convert-gemm-to-gpu); null where there is none.
ScheduleAttr lookupSchedule(Operation *op);

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_IR_GEMMOPS_H
