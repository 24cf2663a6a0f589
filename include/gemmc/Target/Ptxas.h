//===- Ptxas.h - ptxas's resource report, in process ------------*- C++ -*-===//
//
// The registers and spills ptxas gives each kernel, got by assembling the
// PTX in this process with CUDA's libnvJitLink (loaded when first asked
// for; gemmc runs without it). The driver asks where the schedule model
// suspects a spill, so that the warning states what ptxas does
// (docs/dsl.md, "Registers"). libnvJitLink assembles PTX as relocatable
// code (`ptxas -c`), which allocates registers a little differently from
// ptxas alone and the driver, which assemble it whole.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TARGET_PTXAS_H
#define GEMMC_TARGET_PTXAS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace gemmc {

/// What ptxas reports for one kernel.
struct KernelResources {
  int64_t registers = 0;
  int64_t spillStoreBytes = 0, spillLoadBytes = 0;
};

struct PtxasReport {
  enum class Status {
    /// libnvJitLink could not be loaded: `log` says why.
    Unavailable,
    /// ptxas refused the PTX: `log` holds its errors.
    Rejected,
    /// `kernels` holds each entry's resources.
    Assembled,
  };
  Status status = Status::Unavailable;
  std::string log;
  llvm::StringMap<KernelResources> kernels;
};

/// Assembles `ptx` for `arch` (sm_80 ... sm_90a) with ptxas's verbose
/// report. Safe to call from several threads at once.
PtxasReport assembleWithPtxas(llvm::StringRef ptx, llvm::StringRef arch);

/// Each entry's resources in ptxas's verbose log ("Compiling entry function
/// 'NAME'", then "N bytes spill stores, M bytes spill loads" and "Used R
/// registers"); entries the log does not name are absent.
llvm::StringMap<KernelResources> parsePtxasLog(llvm::StringRef log);

} // namespace gemmc

#endif // GEMMC_TARGET_PTXAS_H
