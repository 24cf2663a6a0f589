//===- Sema.h - checks on a schedule before any IR is built -----*- C++ -*-===//

#ifndef GEMMC_FRONTEND_SEMA_H
#define GEMMC_FRONTEND_SEMA_H

#include "gemmc/Frontend/AST.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/SourceMgr.h"
#include <optional>

namespace gemmc {

/// Shared memory one block may use on `arch` (sm_80, sm_86, sm_89, sm_90,
/// sm_90a), in bytes; std::nullopt for an unknown architecture.
std::optional<int64_t> getSharedMemoryLimit(llvm::StringRef arch);

/// Above this, a block's dynamic shared memory must be requested explicitly.
constexpr int64_t kDefaultSharedMemoryLimit = 48 * 1024;

/// What the schedule implies for one block, derived by the checks.
struct ScheduleFacts {
  int64_t threadsPerBlock = 0;
  int64_t sharedBytes = 0;
  /// A rough estimate of registers per thread (accumulators, fragments,
  /// staging registers and addressing), for the > 255 check.
  int64_t registers = 0;
  /// Registers a thread is likely to need with its tile copies in flight,
  /// and the cap its kernel gets (gemmc/Schedule/Registers.h): gemmc warns
  /// of spills when the one comes within an eighth of the other.
  int64_t registerPressure = 0, registerCap = 0;
};

/// The semantic checks of docs/dsl.md: every schedule that cannot work is
/// rejected here, naming the directive and pointing at it. Reports the first
/// error through the SourceMgr.
std::optional<ScheduleFacts> checkSchedule(const KernelDecl &kernel,
                                           llvm::SourceMgr &sourceMgr,
                                           llvm::StringRef arch);

/// Prints the checked schedule and its facts (`gemmc --emit=ast`).
void dump(const KernelDecl &kernel, const ScheduleFacts &facts,
          llvm::raw_ostream &os);

} // namespace gemmc

#endif // GEMMC_FRONTEND_SEMA_H
