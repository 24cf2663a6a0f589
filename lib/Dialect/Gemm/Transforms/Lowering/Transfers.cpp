//===- Transfers.cpp - vector transfers as loads and stores
//-----------------===//
//
// The 1-D vector.transfer_read and transfer_write of the thread-level
// lowerings (map-threads, register-tile, mma's epilogue) as vector loads and
// stores where the elements are adjacent, guarded where the problem has
// tails.
//
//===----------------------------------------------------------------------===//

#include "Lowering/Accesses.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

/// The dimension a 1-D transfer runs along (its permutation map's result).
static unsigned transferDim(AffineMap map) {
  return cast<AffineDimExpr>(map.getResult(0)).getPosition();
}

LogicalResult mlir::gemm::lowerTransferRead(vector::TransferReadOp read,
                                            bool guard) {
  if (read.getVectorType().getRank() != 1 || read.getMask() ||
      read.getIndices().size() != 2)
    return read.emitOpError("gemm-vectorize expects 1-D reads of 2-D tiles");
  OpBuilder b(read);
  Value value =
      readAlong(b, read.getLoc(), read.getBase(), read.getIndices()[0],
                read.getIndices()[1], read.getVectorType().getNumElements(),
                transferDim(read.getPermutationMap()), guard);
  read.replaceAllUsesWith(value);
  read.erase();
  return success();
}

LogicalResult mlir::gemm::lowerTransferWrite(vector::TransferWriteOp write,
                                             int64_t storeWidth, bool guard) {
  if (write.getVectorType().getRank() != 1 || write.getMask() ||
      write.getIndices().size() != 2)
    return write.emitOpError("gemm-vectorize expects 1-D writes of 2-D tiles");
  OpBuilder b(write);
  writeAlong(b, write.getLoc(), write.getVector(), write.getBase(),
             write.getIndices()[0], write.getIndices()[1],
             transferDim(write.getPermutationMap()), storeWidth, guard);
  write.erase();
  return success();
}
