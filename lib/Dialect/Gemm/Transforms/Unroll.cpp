//===- Unroll.cpp - unroll the inner loop over BK -------------------------===//

#include "Utils/Utils.h"
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
    auto scheduleAttr = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    if (!scheduleAttr || !scheduleAttr.getValue().unroll)
      return;
    int64_t factor = *scheduleAttr.getValue().unroll;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kInnerKAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      bool unrolled = factor == 0 ? succeeded(loopUnrollFull(loop))
                                  : succeeded(loopUnrollByFactor(loop, factor));
      if (!unrolled) {
        loop.emitOpError("could not be unrolled");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
