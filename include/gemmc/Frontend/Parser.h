//===- Parser.h - the schedule language's parser ----------------*- C++ -*-===//

#ifndef GEMMC_FRONTEND_PARSER_H
#define GEMMC_FRONTEND_PARSER_H

#include "gemmc/Frontend/AST.h"
#include "llvm/Support/SourceMgr.h"
#include <optional>

namespace gemmc {

/// Parses the main buffer of `sourceMgr` into a KernelDecl. Reports the first
/// error through the SourceMgr and returns std::nullopt.
std::optional<KernelDecl> parseScheduleFile(llvm::SourceMgr &sourceMgr);

} // namespace gemmc

#endif // GEMMC_FRONTEND_PARSER_H
