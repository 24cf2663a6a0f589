//===- GemmOps.cpp - gemm dialect operations -----------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::gemm;

#define GET_OP_CLASSES
#include "gemmc/Dialect/Gemm/IR/GemmOps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  int64_t threads = getSchedule().getThreadsPerBlock();
  if (threads > 1024)
    return emitOpError("schedule needs ")
           << threads << " threads per block, more than the limit of 1024";
  if (threads % 32 != 0)
    return emitOpError("schedule needs ")
           << threads << " threads per block, not a multiple of the warp size 32";
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto a = getA().getType();
  auto b = getB().getType();
  auto c = getC().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D memrefs");
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError("B has ")
           << b.getDimSize(0) << " rows but A has " << k << " columns";
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError("C must be ") << m << "x" << n << ", got "
                                     << c.getDimSize(0) << "x"
                                     << c.getDimSize(1);
  for (MemRefType type : {a, b, c})
    if (!isa<FloatType>(type.getElementType()))
      return emitOpError("operands must have floating-point elements");
  if (!isa<FloatType>(getAccType()))
    return emitOpError("accumulator type must be a floating-point type");
  return success();
}
