//===- Sema.h - checks on a schedule file before any IR is built -*- C++
//-*-===//
//
// The front end's side of the schedule model (gemmc/Schedule/Schedule.h):
// builds the model's Problem and Schedule from the syntax tree, checks what
// only the spelling can tell, and reports the model's diagnostics at the
// directive or declaration they name.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_FRONTEND_SEMA_H
#define GEMMC_FRONTEND_SEMA_H

#include "gemmc/Frontend/AST.h"
#include "gemmc-contract/Contract.h"
#include "gemmc/Schedule/Schedule.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <vector>

namespace gemmc {

/// A spill the schedule model suspects: at the directive it names, and
/// why (Diagnostic::spill).
struct SpillWarning {
  llvm::SMLoc loc;
  std::string reason;
  /// Of the producer's registers (Diagnostic::producerSpill): it stands
  /// whatever relocatable code spills.
  bool producer = false;
};

/// A schedule file that passed the checks, as the schedule model holds it.
struct CheckedKernel {
  Problem problem;
  Schedule schedule;
  ScheduleFacts facts;
  /// The model's spill warnings, where checkSchedule held them back for
  /// ptxas to confirm.
  std::vector<SpillWarning> spills;
};

/// The checks of docs/dsl.md: every schedule that cannot work is rejected
/// here, naming the directive and pointing at it. Reports the first error
/// (and any warnings) through the SourceMgr. `arch` must be one that
/// lookupArch knows. With `holdSpills`, the model's spill warnings go into
/// the result instead (the driver asks ptxas, reportSpills).
std::optional<CheckedKernel> checkSchedule(const KernelDecl &kernel,
                                           llvm::SourceMgr &sourceMgr,
                                           llvm::StringRef arch,
                                           bool holdSpills = false);

/// What ptxas says of a kernel the model suspects of spilling.
struct SpillVerdict {
  /// ptxas was asked (else `why` says why not, and the model's warning
  /// stands).
  bool asked = false;
  int64_t registers = 0, spillStoreBytes = 0;
  std::string why;
  /// The model's estimate and cap (ScheduleFacts::registerPressure and
  /// registerCap).
  int64_t estimate = 0, cap = 0;
  /// A wgmma kernel: its estimate counts the accumulators and little more,
  /// and the schedule model's rules name what it suspects.
  bool warpgroup = false;
  /// The consumers take their registers with `setmaxnreg`
  /// (ScheduleFacts::registerSplit), which relocatable code ignores: ptxas's
  /// figures are a copy's capped at their share (the driver asks so), which
  /// takes every register of it as a rule.
  bool registerSplit = false;
};

/// Reports `spills` as gemmc's warnings: where ptxas was asked, only if it
/// spills more than 64 bytes (with its figures), or takes every register
/// of a kernel the model estimates at half as many again (254 or more of a
/// wgmma kernel's without a register split, where the rules suspect a
/// spill); else the model's own warning ("may spill"). The producer
/// warpgroup's warnings (SpillWarning::producer) stand whatever ptxas says.
void reportSpills(llvm::ArrayRef<SpillWarning> spills,
                  const SpillVerdict &verdict, llvm::SourceMgr &sourceMgr);

/// Rejects, with "not implemented yet", what the language can say but code
/// generation cannot do yet (gemmc::checkImplemented); reports the first.
bool checkImplemented(const KernelDecl &kernel, const CheckedKernel &checked,
                      llvm::SourceMgr &sourceMgr);

/// The kernels a schedule file compiles to: the kernel itself, or each
/// variant of a family as a kernel of its own (named `KERNEL_VARIANT`, at
/// the variant, with the family's problem and the variant's directives as
/// its schedule).
llvm::SmallVector<KernelDecl, 1> getKernels(const KernelDecl &kernel);

/// The sizes a variant is for, from its `when`.
contract::SizeRange getShapeRange(const VariantDecl &variant);

/// The rules of a family's variants (docs/dsl.md, "Kernel families"): each
/// condition names a size given at launch, leaves some size, and the last
/// variant has none (it takes what the others do not). Reports the first
/// error through the SourceMgr.
bool checkFamily(const KernelDecl &kernel, llvm::SourceMgr &sourceMgr);

/// Prints the checked schedule and its facts (`gemmc --emit=ast`).
void dump(const KernelDecl &kernel, const ScheduleFacts &facts,
          llvm::raw_ostream &os);

} // namespace gemmc

#endif // GEMMC_FRONTEND_SEMA_H
