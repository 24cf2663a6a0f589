//===- MmaLayout.cpp - which lane holds what of an mma.sync fragment ------===//
//
// Each function builds its values one op per statement, in a fixed order:
// the IR must not depend on the host compiler.
//
//===----------------------------------------------------------------------===//

#include "Lowering/MmaLayout.h"
#include "Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::gemm;

int64_t mlir::gemm::getMmaElementsPerWord(Type element) {
  return 32 / element.getIntOrFloatBitWidth();
}

int64_t mlir::gemm::getMmaK(Type element) {
  return 8 * getMmaElementsPerWord(element);
}

VectorType mlir::gemm::getMmaAccumulatorType(MLIRContext *ctx) {
  return VectorType::get({2, 2}, Float32Type::get(ctx));
}

VectorType mlir::gemm::getMmaAType(Type element) {
  return VectorType::get({4, getMmaElementsPerWord(element)}, element);
}

VectorType mlir::gemm::getMmaBType(Type element, int64_t fragments) {
  return VectorType::get({2 * fragments, getMmaElementsPerWord(element)},
                         element);
}

Value mlir::gemm::getLaneId(OpBuilder &b, Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpSize = indexConstant(b, loc, 32);
  return arith::RemUIOp::create(b, loc, tid, warpSize);
}

AccumulatorLanes mlir::gemm::getAccumulatorLanes(OpBuilder &b, Location loc,
                                                 Value lane) {
  Value four = indexConstant(b, loc, 4);
  Value row = arith::DivUIOp::create(b, loc, lane, four);
  Value four2 = indexConstant(b, loc, 4);
  Value quad = arith::RemUIOp::create(b, loc, lane, four2);
  Value two = indexConstant(b, loc, 2);
  Value col = arith::MulIOp::create(b, loc, quad, two);
  return {row, col};
}

Value mlir::gemm::getLdmatrixRow(OpBuilder &b, Location loc, Value lane,
                                 Value row) {
  Value sixteen = indexConstant(b, loc, 16);
  Value laneRow = arith::RemUIOp::create(b, loc, lane, sixteen);
  return arith::AddIOp::create(b, loc, row, laneRow);
}

Value mlir::gemm::getLdmatrixColumn(OpBuilder &b, Location loc, Value lane,
                                    Value col, int64_t bits) {
  Value sixteen = indexConstant(b, loc, 16);
  Value half = arith::DivUIOp::create(b, loc, lane, sixteen);
  Value chunk = indexConstant(b, loc, 128 / bits);
  Value offset = arith::MulIOp::create(b, loc, half, chunk);
  return arith::AddIOp::create(b, loc, col, offset);
}

std::pair<Value, Value> mlir::gemm::getTf32BLane(OpBuilder &b, Location loc,
                                                 Value lane, Value row,
                                                 Value col) {
  Value four = indexConstant(b, loc, 4);
  Value laneK = arith::RemUIOp::create(b, loc, lane, four);
  Value k = arith::AddIOp::create(b, loc, row, laneK);
  Value four2 = indexConstant(b, loc, 4);
  Value laneN = arith::DivUIOp::create(b, loc, lane, four2);
  Value n = arith::AddIOp::create(b, loc, col, laneN);
  return {k, n};
}
