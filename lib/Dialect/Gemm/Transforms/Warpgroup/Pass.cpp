//===- Pass.cpp - gemm-warpgroup -----------------------------------------===//
//
// The pass: a kernel whose schedule has `wgmma` becomes the warp-
// specialised kernel of KernelBuilder.h, with its launch.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMWARPGROUP
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

/// Sets the launch: threads, grid (or one block per multiprocessor), the
/// dynamic shared memory, and the attributes the contract reads.
static void setLaunch(gpu::GPUFuncOp func, const gemmc::Problem &p,
                      const gemmc::Schedule &s, const WarpgroupKernel &k) {
  OpBuilder b(func.getContext());
  int32_t blockSize[] = {static_cast<int32_t>(k.threads), 1, 1};
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(blockSize));
  if (s.cluster) {
    int32_t clusterSize[] = {static_cast<int32_t>(s.clusterSize()), 1, 1};
    func.setKnownClusterSizeAttr(b.getDenseI32ArrayAttr(clusterSize));
  }
  // The schedule model's `.minnctapersm`, under which ptxas honours the
  // warpgroups' register split.
  if (k.minBlocksPerSM)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(int32_t(k.minBlocksPerSM)));
  if (gemmc::hasEdgeTiles(p, s) || *p.k % s.bk())
    func->setAttr(kTailsAttr, b.getUnitAttr());
  // A persistent grid walks a batch's tiles too; otherwise its matrices
  // lie along z.
  SmallVector<GridDim, 3> grid;
  if (s.persistent)
    grid = {{Dim::SMs, 1}, {Dim::One, 1}, {Dim::One, 1}};
  else if (p.batched)
    grid = {{Dim::N, s.bn()}, {Dim::M, s.bm()}, {Dim::Batch, 1}};
  else if (s.splitsAtLaunch())
    grid = {{Dim::N, s.bn()}, {Dim::M, s.bm()}, {Dim::Splits, 1}};
  else
    grid = {{Dim::N, s.bn()}, {Dim::M, s.bm()}, {Dim::One, s.splits()}};
  // TMA copies rows of 16-byte multiples, the producer's threads pieces of
  // the global-load width; without `tma c`, C takes any leading dimension.
  int64_t aMultiple = gemmc::leadingDimMultiple(k.a, k.elementBytes);
  int64_t bMultiple = gemmc::leadingDimMultiple(k.b, k.elementBytes);
  int64_t cMultiple = k.c ? 16 / k.c->elementBytes : 1;
  func->setAttr(kLaunchAttr,
                LaunchAttr::get(b.getContext(), {k.threads, 1, 1}, grid,
                                k.sharedBytes)
                    .withIndexBitwidth(s.indexBitwidth())
                    .withLdMultiple({aMultiple, bMultiple, cMultiple}));
}

namespace {
struct GemmWarpgroupPass
    : public mlir::gemm::impl::GemmWarpgroupBase<GemmWarpgroupPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    auto problem = func->getAttrOfType<ProblemAttr>(kProblemAttr);
    if (!schedule || !schedule.getValue().hasWgmma())
      return;
    if (!problem) {
      func.emitOpError("a wgmma kernel needs its gemm.problem");
      return signalPassFailure();
    }
    FailureOr<SmallVector<MatmulOp>> matmuls =
        collectMatmuls(func, [](MatmulOp op, const gemmc::Schedule &) {
          return op.getLevel() == Level::Grid;
        });
    if (failed(matmuls))
      return signalPassFailure();
    if (matmuls->size() != 1) {
      func.emitOpError("expected one grid-level gemm.matmul, found ")
          << matmuls->size();
      return signalPassFailure();
    }
    // The whole problem, epilogue included, as Sema's model saw it: the
    // register split and the stores follow from it.
    gemmc::Problem p = getKernelProblemModel(func);
    const gemmc::Schedule &s = schedule.getValue();
    WarpgroupKernel kernel = gemmc::getWarpgroupKernel(p, s);
    setLaunch(func, p, s, kernel);
    if (failed(KernelBuilder(func, p, s, kernel).build(matmuls->front())))
      return signalPassFailure();
  }
};
} // namespace
