//===- GemmDialect.h - gemm dialect -----------------------------*- C++ -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMDIALECT_H
#define GEMMC_DIALECT_GEMM_IR_GEMMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "gemmc/Dialect/Gemm/IR/GemmDialect.h.inc"

#endif // GEMMC_DIALECT_GEMM_IR_GEMMDIALECT_H
