//===- Unroll.cpp - unroll the inner loop over BK -------------------------===//
//
// The gemm-unroll pass: `unroll` unrolls the inner loop over BK (fully or
// by a factor), or, where a register tile reads global memory itself (no
// `promote`), its loop over K by a factor, the steps past a multiple of it
// in a loop of their own: the reads of the unrolled steps are then in
// flight together.
//
//===----------------------------------------------------------------------===//

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
    const gemmc::Schedule &s = scheduleAttr.getValue();
    int64_t factor = *s.unroll;
    StringRef unrolled =
        s.readsGlobalInRegisterTile() ? kKLoopAttr : kInnerKAttr;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(unrolled))
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
