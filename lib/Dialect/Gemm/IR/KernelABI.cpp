//===- KernelABI.cpp - the roles of a gemmc kernel's arguments ------------===//

#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"

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
  case KernelArg::Alpha:
    return "alpha";
  case KernelArg::Beta:
    return "beta";
  case KernelArg::Bias:
    return "bias";
  }
  llvm_unreachable("unknown kernel argument");
}

KernelABI::KernelABI(bool alphaBeta, bool bias)
    : roles({KernelArg::A, KernelArg::B, KernelArg::C}) {
  if (alphaBeta)
    roles.append({KernelArg::Alpha, KernelArg::Beta});
  if (bias)
    roles.push_back(KernelArg::Bias);
}

KernelABI KernelABI::of(Operation *kernel) {
  return KernelABI(kernel->hasAttr(kAlphaBetaAttr), kernel->hasAttr(kBiasAttr));
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
