//===- Types.cpp - names of element types, layouts and epilogues ----------===//

#include "gemmc/Schedule/Types.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace gemmc;
using llvm::StringRef;

StringRef gemmc::stringify(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::E4M3:
    return "e4m3";
  case ElementType::E5M2:
    return "e5m2";
  }
  llvm_unreachable("unknown element type");
}

int64_t gemmc::sizeInBytes(ElementType type) {
  if (isFloat8(type))
    return 1;
  return type == ElementType::F32 ? 4 : 2;
}

StringRef gemmc::stringify(MatrixLayout layout) {
  return layout == MatrixLayout::Row ? "row" : "col";
}

StringRef gemmc::stringify(MathMode mode) {
  switch (mode) {
  case MathMode::Exact:
    return "exact";
  case MathMode::TF32:
    return "tf32";
  case MathMode::TF32x3:
    return "tf32x3";
  case MathMode::FastAccumulate:
    return "fast-accumulate";
  }
  llvm_unreachable("unknown math mode");
}

StringRef gemmc::stringify(Epilogue epilogue) {
  return epilogue == Epilogue::Store ? "store" : "alpha-beta";
}

StringRef gemmc::stringify(BiasKind bias) {
  return bias == BiasKind::Row ? "row" : "col";
}

StringRef gemmc::stringify(ScaleKind scales) {
  switch (scales) {
  case ScaleKind::Tensor:
    return "tensor";
  case ScaleKind::Rowwise:
    return "rowwise";
  case ScaleKind::Block:
    return "block";
  }
  llvm_unreachable("unknown scales");
}

std::optional<ScaleKind> gemmc::scaleKindNamed(StringRef spelling) {
  for (ScaleKind kind : {ScaleKind::Tensor, ScaleKind::Rowwise, ScaleKind::Block})
    if (stringify(kind) == spelling)
      return kind;
  return std::nullopt;
}

StringRef gemmc::stringify(Activation activation) {
  switch (activation) {
  case Activation::None:
    return "none";
  case Activation::ReLU:
    return "relu";
  case Activation::GELU:
    return "gelu";
  case Activation::GELUTanh:
    return "gelu-tanh";
  case Activation::SiLU:
    return "silu";
  }
  llvm_unreachable("unknown activation");
}

std::optional<Activation> gemmc::activationNamed(StringRef spelling) {
  for (Activation a : {Activation::None, Activation::ReLU, Activation::GELU,
                       Activation::GELUTanh, Activation::SiLU})
    if (stringify(a) == spelling)
      return a;
  return std::nullopt;
}

StringRef gemmc::stringify(DirectiveKind kind) {
  switch (kind) {
#define GEMMC_DIRECTIVE(Kind, Spelling)                                        \
  case DirectiveKind::Kind:                                                    \
    return Spelling;
#include "gemmc/Schedule/Directives.def"
  }
  llvm_unreachable("unknown directive");
}

std::optional<DirectiveKind> gemmc::directiveNamed(StringRef spelling) {
  return llvm::StringSwitch<std::optional<DirectiveKind>>(spelling)
#define GEMMC_DIRECTIVE(Kind, Spelling) .Case(Spelling, DirectiveKind::Kind)
#include "gemmc/Schedule/Directives.def"
      .Default(std::nullopt);
}
