//===- MLIRGen.h - schedule file to gemm dialect ----------------*- C++ -*-===//

#ifndef GEMMC_FRONTEND_MLIRGEN_H
#define GEMMC_FRONTEND_MLIRGEN_H

#include "gemmc/Frontend/AST.h"
#include "gemmc/Frontend/Sema.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace gemmc {

/// Builds a module holding one `gemm.kernel` from a checked schedule file
/// (its name and locations from the syntax tree, all else from the model).
/// Locations point into the schedule file.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &context,
                                          const KernelDecl &kernel,
                                          const CheckedKernel &checked,
                                          const llvm::SourceMgr &sourceMgr);

} // namespace gemmc

#endif // GEMMC_FRONTEND_MLIRGEN_H
