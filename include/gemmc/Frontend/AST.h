//===- AST.h - the schedule language's syntax tree --------------*- C++ -*-===//

#ifndef GEMMC_FRONTEND_AST_H
#define GEMMC_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <optional>
#include <string>

namespace gemmc {

enum class ElementType { F32, F16, BF16 };
enum class MatrixLayout { Row, Col };

llvm::StringRef stringify(ElementType type);
llvm::StringRef stringify(MatrixLayout layout);

/// A problem size: `m = 1024`.
struct SizeDecl {
  int64_t value = 0;
  llvm::SMLoc loc;
};

/// A matrix declaration: `a = f32 row`.
struct MatrixDecl {
  ElementType type = ElementType::F32;
  MatrixLayout layout = MatrixLayout::Row;
  llvm::SMLoc loc;
  llvm::SMLoc typeLoc;
};

/// The accumulator declaration: `accumulate = f32`.
struct AccumulateDecl {
  ElementType type = ElementType::F32;
  llvm::SMLoc loc;
};

struct ProblemDecl {
  llvm::SMLoc loc;
  std::optional<SizeDecl> m, n, k;
  std::optional<MatrixDecl> a, b, c;
  std::optional<AccumulateDecl> acc;
};

enum class DirectiveKind { Tile, Coalesce };

llvm::StringRef stringify(DirectiveKind kind);

/// One schedule directive with its integer arguments: `tile 32x32`.
struct Directive {
  DirectiveKind kind;
  llvm::SMLoc loc;
  llvm::SmallVector<int64_t, 3> args;
};

struct ScheduleDecl {
  llvm::SMLoc loc;
  llvm::SmallVector<Directive, 4> directives;
};

/// The whole schedule file: `kernel NAME { problem {...} schedule {...} }`.
struct KernelDecl {
  std::string name;
  llvm::SMLoc loc;
  std::optional<ProblemDecl> problem;
  std::optional<ScheduleDecl> schedule;
};

} // namespace gemmc

#endif // GEMMC_FRONTEND_AST_H
