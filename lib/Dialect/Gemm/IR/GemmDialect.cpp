//===- GemmDialect.cpp - gemm dialect ------------------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"

using namespace mlir;
using namespace mlir::gemm;

#include "gemmc/Dialect/Gemm/IR/GemmDialect.cpp.inc"

void GemmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "gemmc/Dialect/Gemm/IR/GemmOps.cpp.inc"
      >();
  registerAttributes();
}
