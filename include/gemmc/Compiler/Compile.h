//===- Compile.h - a schedule file to PTX, in process ---------*- C++ -*-===//
//
// The whole compilation: parse, check, build the gemm dialect, run gemmc's
// passes and upstream's lowering to NVVM, and emit PTX with its kernel
// contract. The gemmc tool, the schedule-space fuzzer and the tests call it.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_COMPILER_COMPILE_H
#define GEMMC_COMPILER_COMPILE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>

namespace mlir {
class MLIRContext;
class PassManager;
} // namespace mlir

namespace gemmc {

/// The stage compilation stops at and prints.
enum class EmitKind { AST, MLIR, GPU, LLVM, PTX };

struct CompileOptions {
  /// The target: sm_80, sm_86, sm_89, sm_90 or sm_90a.
  std::string arch = "sm_90";
  EmitKind emit = EmitKind::PTX;
  /// The schedule file's name, as the contract states it.
  std::string sourceName;
  /// Whether a kernel the schedule model suspects of spilling registers is
  /// assembled by ptxas (libnvJitLink, in process) to tell: the warning is
  /// then given only where ptxas spills, with its figures. Without it, or
  /// where the library is not found, the model's warning is given.
  bool askPtxas = true;
  /// Called on each pass manager before it runs (the tool applies MLIR's
  /// --mlir-* command-line options there); may be empty.
  llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)>
      configurePassManager;
};

/// Compiles the schedule in `sourceMgr`'s main buffer and prints the stage
/// `options.emit` to `os`. Errors are reported through `sourceMgr` (the
/// schedule's checks) and the context's diagnostic handler (the passes);
/// on failure `os` may hold partial output.
mlir::LogicalResult compileSchedule(mlir::MLIRContext &ctx,
                                    llvm::SourceMgr &sourceMgr,
                                    const CompileOptions &options,
                                    llvm::raw_ostream &os);

/// What compileBuffer produced: the output (the stage asked for, empty on
/// failure) and the diagnostics as gemmc prints them (`file:line:col:
/// error: ...` with the source line and a caret; warnings too).
struct CompileResult {
  bool succeeded = false;
  std::string output, diagnostics;
};

/// Compiles the schedule in `buffer` (named by its identifier) in a
/// context of its own, gathering every diagnostic into the result: safe to
/// call from several threads at once. The C API and gemmc-tune compile
/// through it.
CompileResult compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            const CompileOptions &options);

} // namespace gemmc

#endif // GEMMC_COMPILER_COMPILE_H
