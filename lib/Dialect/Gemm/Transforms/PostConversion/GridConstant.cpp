//===- GridConstant.cpp - tensor maps passed by value as grid constants ---===//
//
// A CUtensorMap is a 128-byte, 64-byte-aligned struct that TMA reads by its
// generic address. Passed by value as a `.param` marked grid-constant, the
// kernel takes the address of the parameter itself: no copy to local memory
// and no tensor map in global memory. gpu.func cannot say so (its lowering
// drops byval and refuses nvvm.grid_constant on arguments); this pass marks
// the lowered kernel's parameters.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMGRIDCONSTANT
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// Bytes and alignment of a CUtensorMap.
static constexpr int64_t kTensorMapBytes = 128;
static constexpr int64_t kTensorMapAlignment = 64;

namespace {
struct GemmGridConstantPass
    : public mlir::gemm::impl::GemmGridConstantBase<GemmGridConstantPass> {
  void runOnOperation() override {
    LLVM::LLVMFuncOp func = getOperation();
    if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      return;
    unsigned maps = KernelABI::of(func).getNumTensorMaps();
    if (maps == 0)
      return;
    unsigned count = func.getNumArguments();
    if (count < maps) {
      func.emitOpError("has fewer parameters than its ")
          << maps << " tensor maps";
      return signalPassFailure();
    }
    MLIRContext *ctx = func.getContext();
    OpBuilder b(ctx);
    auto mapType = LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes);
    // The tensor maps are the kernel's last parameters (the kernel ABI).
    for (unsigned i = count - maps; i < count; ++i) {
      if (!isa<LLVM::LLVMPointerType>(func.getArgument(i).getType())) {
        func.emitOpError("tensor-map parameter ")
            << i << " is not a pointer";
        return signalPassFailure();
      }
      func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(mapType));
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(kTensorMapAlignment));
      func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
    }
  }
};
} // namespace
