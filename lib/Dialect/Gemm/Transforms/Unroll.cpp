//===- Unroll.cpp - unroll the inner loop over BK ------------------------===//

#include "Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMUNROLL
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

namespace {
struct GemmUnrollPass
    : public mlir::gemm::impl::GemmUnrollBase<GemmUnrollPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    if (!schedule || schedule.getUnroll() < 0)
      return;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kInnerKAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      bool unrolled = schedule.getUnroll() == 0
                          ? succeeded(loopUnrollFull(loop))
                          : succeeded(loopUnrollByFactor(
                                loop, schedule.getUnroll()));
      if (!unrolled) {
        loop.emitOpError("could not be unrolled");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
