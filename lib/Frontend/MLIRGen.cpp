//===- MLIRGen.cpp - schedule file to gemm dialect ------------------------===//

#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

using namespace gemmc;
using namespace mlir;

static Location getLocation(MLIRContext &ctx, const llvm::SourceMgr &sourceMgr,
                            llvm::SMLoc loc) {
  auto [line, col] = sourceMgr.getLineAndColumn(loc);
  StringRef file = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                       ->getBufferIdentifier();
  return FileLineColLoc::get(&ctx, file, line, col);
}

static Type getType(MLIRContext &ctx, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return Float32Type::get(&ctx);
  case ElementType::F16:
    return Float16Type::get(&ctx);
  case ElementType::BF16:
    return BFloat16Type::get(&ctx);
  case ElementType::E4M3:
    return Float8E4M3FNType::get(&ctx);
  case ElementType::E5M2:
    return Float8E5M2Type::get(&ctx);
  }
  llvm_unreachable("unknown element type");
}

static gemm::Layout getLayout(MatrixLayout layout) {
  return layout == MatrixLayout::Row ? gemm::Layout::RowMajor
                                     : gemm::Layout::ColMajor;
}

/// The batch count and the strides between consecutive A, B and C (dense
/// by default); `?` where given at launch.
static std::array<int64_t, 4> getBatch(const Problem &p) {
  auto orDynamic = [](std::optional<int64_t> value) {
    return value ? *value : ShapedType::kDynamic;
  };
  int64_t count = orDynamic(p.batchCount);
  // Sizes given at launch: so are the strides.
  if (p.isDynamic())
    return {count, ShapedType::kDynamic, ShapedType::kDynamic,
            ShapedType::kDynamic};
  if (p.batchStrides)
    return {count, (*p.batchStrides)[0], (*p.batchStrides)[1],
            (*p.batchStrides)[2]};
  int64_t m = *p.m, n = *p.n, k = *p.k;
  return {count, m * k, k * n, m * n};
}

OwningOpRef<ModuleOp> gemmc::createModule(MLIRContext &ctx,
                                          const KernelDecl &kernel,
                                          const llvm::SourceMgr &sourceMgr) {
  ctx.getOrLoadDialect<gemm::GemmDialect>();
  return ModuleOp::create(getLocation(ctx, sourceMgr, kernel.loc));
}

void gemmc::mlirGen(ModuleOp module, const KernelDecl &kernel,
                    const CheckedKernel &checked,
                    const llvm::SourceMgr &sourceMgr) {
  MLIRContext &ctx = *module.getContext();
  Location loc = getLocation(ctx, sourceMgr, kernel.loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());

  // With `transpose`, the kernel computes C^T = B^T * A^T: built for that
  // problem; its contract states the one written (toContract).
  Problem p = computedProblem(checked.problem, checked.schedule);
  auto size = [](std::optional<int64_t> value) {
    return value ? *value : ShapedType::kDynamic;
  };
  Type aType = getType(ctx, p.a);
  Type bType = getType(ctx, p.b);
  Type cType = getType(ctx, p.c);
  Type accType = getType(ctx, p.acc);
  gemmc::MathMode math = p.tf32x3           ? gemmc::MathMode::TF32x3
                         : p.fastAccumulate ? gemmc::MathMode::FastAccumulate
                                            : gemmc::MathMode::Exact;
  auto problem = gemm::ProblemAttr::get(
      &ctx, size(p.m), size(p.n), size(p.k), aType, getLayout(p.aLayout), bType,
      getLayout(p.bLayout), cType, getLayout(p.cLayout), accType, math);
  auto schedule = gemm::ScheduleAttr::get(&ctx, checked.schedule);
  StringAttr bias;
  if (p.bias)
    bias = builder.getStringAttr(stringify(*p.bias));
  StringAttr activation;
  if (p.activation != Activation::None)
    activation = builder.getStringAttr(stringify(p.activation));
  StringAttr scales;
  if (p.scales)
    scales = builder.getStringAttr(stringify(*p.scales));
  DenseI64ArrayAttr batch;
  if (p.batched)
    batch = builder.getDenseI64ArrayAttr(getBatch(p));
  IntegerAttr groups;
  if (p.grouped)
    groups = builder.getI64IntegerAttr(
        p.groupCount ? *p.groupCount : ShapedType::kDynamic);
  gemm::KernelOp::create(builder, loc, kernel.name, problem, schedule,
                         p.alphaBeta, bias, scales, activation, p.residual,
                         p.amax, p.outputScale, batch, groups, p.groupTable);
}
