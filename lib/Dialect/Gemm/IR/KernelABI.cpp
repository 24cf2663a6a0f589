//===- KernelABI.cpp - the roles of a gemmc kernel's arguments ------------===//

#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::gemm;

StringRef mlir::gemm::stringifyKernelArg(KernelArg role) {
  switch (role) {
  case KernelArg::A:
    return "A";
  case KernelArg::B:
    return "B";
  case KernelArg::C:
    return "C";
  case KernelArg::Offsets:
    return "offsets";
  case KernelArg::GroupTable:
    return "table";
  case KernelArg::Alpha:
    return "alpha";
  case KernelArg::Beta:
    return "beta";
  case KernelArg::Bias:
    return "bias";
  case KernelArg::Residual:
    return "R";
  case KernelArg::ScaleA:
    return "scale-A";
  case KernelArg::ScaleB:
    return "scale-B";
  case KernelArg::OutputScale:
    return "scale-C";
  case KernelArg::Amax:
    return "amax";
  case KernelArg::Workspace:
    return "workspace";
  case KernelArg::Counters:
    return "counters";
  case KernelArg::TensorMapA:
    return "tmap-A";
  case KernelArg::TensorMapB:
    return "tmap-B";
  case KernelArg::TensorMapC:
    return "tmap-C";
  }
  llvm_unreachable("unknown kernel argument");
}

KernelABI::KernelABI(const ProblemArgs &problem, bool workspace,
                     bool tensorMapA, bool tensorMapB, bool tensorMapC)
    : roles({KernelArg::A, KernelArg::B, KernelArg::C}) {
  if (problem.groups)
    roles.push_back(problem.groupTable ? KernelArg::GroupTable
                                       : KernelArg::Offsets);
  if (problem.alphaBeta)
    roles.append({KernelArg::Alpha, KernelArg::Beta});
  if (problem.bias)
    roles.push_back(KernelArg::Bias);
  if (problem.residual)
    roles.push_back(KernelArg::Residual);
  if (problem.scales)
    roles.append({KernelArg::ScaleA, KernelArg::ScaleB});
  if (problem.outputScale)
    roles.push_back(KernelArg::OutputScale);
  if (problem.amax)
    roles.push_back(KernelArg::Amax);
  if (workspace)
    roles.append({KernelArg::Workspace, KernelArg::Counters});
  if (tensorMapA)
    roles.push_back(KernelArg::TensorMapA);
  if (tensorMapB)
    roles.push_back(KernelArg::TensorMapB);
  if (tensorMapC)
    roles.push_back(KernelArg::TensorMapC);
}

KernelABI KernelABI::get(const ProblemArgs &problem,
                         const gemmc::Schedule &schedule) {
  return KernelABI(problem, schedule.usesWorkspace(), schedule.tmaA,
                   schedule.tmaB, schedule.tmaC);
}

KernelABI KernelABI::of(Operation *kernel) {
  auto schedule = kernel->getAttrOfType<ScheduleAttr>(kScheduleAttr);
  ProblemArgs problem;
  problem.groups = kernel->hasAttr(kGroupsAttr);
  problem.groupTable = kernel->hasAttr(kGroupTableAttr);
  problem.alphaBeta = kernel->hasAttr(kAlphaBetaAttr);
  problem.bias = kernel->hasAttr(kBiasAttr);
  problem.residual = kernel->hasAttr(kResidualAttr);
  problem.scales = kernel->hasAttr(kScalesAttr);
  problem.outputScale = kernel->hasAttr(kOutputScaleAttr);
  problem.amax = kernel->hasAttr(kAmaxAttr);
  if (!schedule)
    return KernelABI(problem, /*workspace=*/false, /*tensorMapA=*/false,
                     /*tensorMapB=*/false, /*tensorMapC=*/false);
  return get(problem, schedule.getValue());
}

unsigned KernelABI::getNumTensorMaps() const {
  return llvm::count_if(roles, [](KernelArg role) {
    return role == KernelArg::TensorMapA || role == KernelArg::TensorMapB ||
           role == KernelArg::TensorMapC;
  });
}

std::optional<unsigned> KernelABI::indexOf(KernelArg role) const {
  const auto *it = llvm::find(roles, role);
  if (it == roles.end())
    return std::nullopt;
  return unsigned(it - roles.begin());
}

BlockArgument mlir::gemm::getKernelArgument(FunctionOpInterface kernel,
                                            KernelArg role) {
  std::optional<unsigned> index = KernelABI::of(kernel).indexOf(role);
  if (!index || *index >= kernel.getNumArguments())
    return {};
  return kernel.getArgument(*index);
}

Value mlir::gemm::createBatchMatrixView(OpBuilder &b, Location loc,
                                        Value batch, OpFoldResult index) {
  auto type = cast<MemRefType>(batch.getType());
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (unsigned dim : {1u, 2u}) {
    if (!type.isDynamicDim(dim)) {
      sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
      continue;
    }
    Value extent = memref::DimOp::create(b, loc, batch, dim);
    sizes.push_back(extent);
  }
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), batch,
                                   offsets, sizes, strides);
}
