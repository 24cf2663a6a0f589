//===- Vectorize.cpp - tile copies and fragments as vector accesses -------===//
//
// The gemm-vectorize pass: lowers the block-cooperative copies
// (TileCopies.cpp), the mma fragments (Fragments.cpp) and the thread-level
// transfers (Transfers.cpp) to vector loads and stores, ldmatrix and
// cp.async, then records what the accesses ask of the leading dimensions
// (LeadingDimensions.cpp).
//
//===----------------------------------------------------------------------===//

#include "Lowering/Accesses.h"
#include "Lowering/Bounds.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMVECTORIZE
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

namespace {
struct GemmVectorizePass
    : public mlir::gemm::impl::GemmVectorizeBase<GemmVectorizePass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    int64_t sharedStore = schedule ? schedule.getValue().sharedStoreWidth() : 1;
    int64_t globalStore = schedule ? schedule.getValue().globalStoreWidth() : 1;
    bool swizzle = schedule && schedule.getValue().swizzle;
    bool guard = func->hasAttr(kTailsAttr);
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<CopyOp, LoadTileOp, StoreTileOp, LoadFragmentOp,
              vector::TransferReadOp, vector::TransferWriteOp>(op))
        ops.push_back(op);
    });
    // Guarded accesses find the matrix bounds through the views.
    if (guard)
      for (Operation *op : ops)
        for (Value operand : op->getOperands())
          if (isa<MemRefType>(operand.getType()) && !isShared(operand) &&
              !viewsMatrix(operand)) {
            op->emitOpError("gemm-vectorize cannot find the bounds of the "
                            "matrix this access reads or writes");
            return signalPassFailure();
          }
    TileCopyLowering copies;
    copies.storeWidth = sharedStore;
    copies.swizzle = swizzle;
    copies.guard = guard;
    copies.splitEdges = schedule && schedule.getValue().splitEdges;
    for (Operation *op : ops) {
      LogicalResult result = success();
      if (auto copy = dyn_cast<CopyOp>(op))
        lowerCopy(copy, copies);
      else if (auto load = dyn_cast<LoadTileOp>(op))
        lowerLoadTile(load, copies);
      else if (auto store = dyn_cast<StoreTileOp>(op))
        lowerStoreTile(store, sharedStore, swizzle);
      else if (auto fragment = dyn_cast<LoadFragmentOp>(op))
        result = lowerLoadFragment(fragment, swizzle);
      else if (auto read = dyn_cast<vector::TransferReadOp>(op))
        result = lowerTransferRead(read, guard);
      else
        result = lowerTransferWrite(cast<vector::TransferWriteOp>(op),
                                    globalStore, guard);
      if (failed(result))
        return signalPassFailure();
    }
    // gemm-warpgroup records a wgmma kernel's multiples (TMA's among them).
    if (!schedule || !schedule.getValue().hasWgmma())
      recordLeadingDimensionMultiples(func);
  }
};
} // namespace
