//===- LeadingDimensions.cpp - what the accesses ask of the leading dims --===//
//
// A vector access (and a cp.async copy) needs an address aligned to its
// width, so the leading dimension of the matrix it reads or writes must be
// a multiple of it. gemm-vectorize, which makes the accesses, records the
// widest per matrix in the kernel's launch attribute; the contract states
// it and the runtime checks the leading dimensions given at launch.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

/// The argument of `kernel` that `memref` is a view of (through subviews and
/// casts), or null.
static BlockArgument viewedArgument(gpu::GPUFuncOp kernel, Value memref) {
  while (Operation *op = memref.getDefiningOp()) {
    if (auto subView = dyn_cast<memref::SubViewOp>(op))
      memref = subView.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(op))
      memref = cast.getSource();
    else
      return {};
  }
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner() != &kernel.getBody().front() ||
      arg.getArgNumber() >= kernel.getNumArguments())
    return {};
  return arg;
}

void mlir::gemm::recordLeadingDimensionMultiples(gpu::GPUFuncOp kernel) {
  auto launch = kernel->getAttrOfType<LaunchAttr>(kLaunchAttr);
  if (!launch)
    return;
  const KernelArg matrices[] = {KernelArg::A, KernelArg::B, KernelArg::C};
  BlockArgument arguments[3];
  for (auto [i, role] : llvm::enumerate(matrices))
    arguments[i] = getKernelArgument(kernel, role);
  // R (`residual = add`) has C's leading dimension: its reads count
  // towards C's multiple (4-wide reads of R at a leading dimension of 55
  // faulted, the schedule fuzzer's s65_504).
  BlockArgument residual = getKernelArgument(kernel, KernelArg::Residual);
  SmallVector<int64_t, 3> widest = {1, 1, 1};
  auto note = [&](Value memref, int64_t width) {
    BlockArgument arg = viewedArgument(kernel, memref);
    if (!arg)
      return;
    if (arg == residual)
      arg = arguments[2];
    for (int i = 0; i < 3; ++i)
      if (arg == arguments[i])
        widest[i] = std::max(widest[i], width);
  };
  kernel.walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op))
      note(load.getBase(), load.getVectorType().getNumElements());
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      note(store.getBase(), store.getVectorType().getNumElements());
    else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      note(copy.getSrc(), copy.getDstElements().getZExtValue());
  });
  kernel->setAttr(kLaunchAttr, launch.withLdMultiple(widest));
}
