//===- Rules.h - the rules a schedule must satisfy --------------*- C++ -*-===//
//
// The checks of checkSchedule and checkImplemented, one class whose parts
// live by kernel kind: Rules.cpp (the problem, the types, what is
// implemented, the entry points), SimtRules.cpp (the SIMT and mma.sync
// kernels' threads, copies, shared memory), RegisterEstimate.cpp (their
// registers and the spill warning) and HopperRules.cpp (wgmma, TMA,
// warp specialisation, clusters).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_SCHEDULE_RULES_H
#define GEMMC_LIB_SCHEDULE_RULES_H

#include "gemmc/Schedule/Registers.h"
#include "gemmc/Schedule/Saturating.h"
#include "gemmc/Schedule/Schedule.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

namespace gemmc::rules {

using llvm::Twine;

class Rules {
public:
  Rules(const Problem &problem, const Schedule &schedule, const Arch *arch,
        DiagnosticHandler handler)
      : p(problem), s(schedule), arch(arch), handler(handler) {}

  std::optional<ScheduleFacts> run();
  bool checkImplemented();

private:
  bool error(Part part, const Twine &message) {
    handler({Diagnostic::Severity::Error, part, message.str()});
    return false;
  }
  /// That the kernel may spill registers, and why (`reason`, worded to
  /// follow "the kernel may spill registers to local memory: ").
  void warnOfSpill(Part part, const Twine &reason) {
    handler({Diagnostic::Severity::Warning, part, reason.str(),
             /*spill=*/true});
  }
  /// The same of the producer warpgroup's registers (relocatable code
  /// cannot judge them).
  void warnOfProducerSpill(Part part, const Twine &reason) {
    handler({Diagnostic::Severity::Warning, part, reason.str(),
             /*spill=*/true, /*producerSpill=*/true});
  }
  void note(Part part, const Twine &message) {
    handler({Diagnostic::Severity::Note, part, message.str()});
  }
  bool conflict(DirectiveKind directive, DirectiveKind other,
                const Twine &why) {
    error(directive, "'" + stringify(directive) +
                         "' cannot be combined with '" + stringify(other) +
                         "': " + why);
    note(other, "'" + stringify(other) + "' is given here");
    return false;
  }
  bool notYet(Part part, const Twine &what) {
    return error(part, what + " is not implemented yet");
  }

  bool checkProblem();
  bool checkTypes();
  /// e4m3 and e5m2 inputs, and their scales.
  bool checkFloat8();
  /// `scales = block`: promoted sums one block deep.
  bool checkBlockScales();
  /// A grouped problem (`groups`): the persistent wgmma kernel, which
  /// finds each tile's group on the device, without what it cannot yet
  /// combine with.
  bool checkGroups();
  /// The general form's (`groups = G ptr-array`) own rules.
  bool checkGroupTable();
  bool checkThreads();
  /// `slice-k`: the slices of a register tile that reads global memory
  /// itself, whole warps each or parts of one warp that fill it (without
  /// split-K), their sums within shared memory's static limit.
  bool checkSliceK();
  bool checkPromoteAndPipeline();
  bool checkVectorize();
  /// A register tile's own reads of global memory at `width`.
  bool checkRegisterLoads(int64_t width);
  /// Whether a register tile without `promote` reads `operand` in pieces
  /// of the global-load width (W > 1) along its contiguous side: a
  /// row-major B's rows, a column-major A's columns where W divides TM.
  /// Its other reads go an element at a time.
  bool readsWideFromGlobal(Operand operand) const;
  /// Global loads `width` elements wide of `operand` (called `name`):
  /// its leading dimension and batch stride, where static, multiples of it.
  bool checkLoadAlignment(Operand operand, const char *name, int64_t width,
                          DirectiveKind at);
  bool checkCooperativeLoads();
  bool checkSizes();
  bool checkSharedMemory();
  bool checkSharedRows();
  bool checkRegisters();
  bool checkHopperDirectives();
  bool checkWarpgroup();
  bool checkCluster();
  bool checkStreamK();
  bool checkPingPong();
  /// A batch on the warpgroup kernel: batch strides at the leading
  /// dimensions' `multiples`, and at 16 bytes for a realigned operand.
  bool checkHopperBatch(const WarpgroupKernel &kernel,
                        llvm::ArrayRef<std::pair<Operand, int64_t>> multiples);
  /// A grouped problem on the warpgroup kernel: what its lowering takes
  /// where a group's rows start at any row (Groups.cpp).
  bool checkHopperGroups(const WarpgroupKernel &kernel);
  void warnOfSpills(Part at, int64_t acc, int64_t fragments);

  /// The directive that makes the threads: `slice-k` where given (it
  /// multiplies them), the warp tile with mma, else the register tile, else
  /// the tile.
  DirectiveKind threadsPart() const {
    if (s.sliceK)
      return DirectiveKind::SliceK;
    if (s.hasMma())
      return DirectiveKind::WarpTile;
    return s.registerTile ? DirectiveKind::RegisterTile : DirectiveKind::Tile;
  }

  const Problem &p;
  const Schedule &s;
  const Arch *arch;
  DiagnosticHandler handler;
  ScheduleFacts facts;
};

} // namespace gemmc::rules

#endif // GEMMC_LIB_SCHEDULE_RULES_H
