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

/// An empty module at the schedule file's kernel, for mlirGen to fill.
mlir::OwningOpRef<mlir::ModuleOp> createModule(mlir::MLIRContext &context,
                                               const KernelDecl &kernel,
                                               const llvm::SourceMgr &sourceMgr);

/// Appends to `module` the `gemm.kernel` of a checked kernel (its name and
/// locations from the syntax tree, all else from the model). Locations
/// point into the schedule file. A family's variants (getKernels) are one
/// `gemm.kernel` each, in one module.
void mlirGen(mlir::ModuleOp module, const KernelDecl &kernel,
             const CheckedKernel &checked, const llvm::SourceMgr &sourceMgr);

} // namespace gemmc

#endif // GEMMC_FRONTEND_MLIRGEN_H
