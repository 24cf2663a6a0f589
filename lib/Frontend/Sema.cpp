//===- Sema.cpp - checks on a schedule file before any IR is built --------===//
//
// The rules themselves live in the schedule model (lib/Schedule/Rules.cpp);
// here the syntax tree becomes the model's Problem and Schedule, the checks
// that only the spelling can tell are made, and the model's diagnostics are
// printed at the directive or declaration they name.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Frontend/Sema.h"
#include "gemmc/Schedule/Registers.h"

using namespace gemmc;
using llvm::SMLoc;
using llvm::SourceMgr;
using llvm::StringRef;
using llvm::Twine;

static Problem buildProblem(const ProblemDecl &p) {
  Problem problem;
  problem.m = p.m->value;
  problem.n = p.n->value;
  problem.k = p.k->value;
  if (p.a) {
    problem.a = p.a->type;
    problem.aLayout = p.a->layout;
  }
  if (p.b) {
    problem.b = p.b->type;
    problem.bLayout = p.b->layout;
  }
  if (p.c) {
    problem.c = p.c->type;
    problem.cLayout = p.c->layout;
  }
  if (p.acc)
    problem.acc = p.acc->type;
  problem.tf32 = p.math && (p.math->mode == MathMode::TF32 ||
                            p.math->mode == MathMode::TF32x3);
  problem.tf32x3 = p.math && p.math->mode == MathMode::TF32x3;
  problem.fastAccumulate =
      p.math && p.math->mode == MathMode::FastAccumulate;
  problem.alphaBeta = p.epilogue && p.epilogue->kind == Epilogue::AlphaBeta;
  if (p.bias)
    problem.bias = p.bias->kind;
  if (p.scales)
    problem.scales = p.scales->kind;
  if (p.activation)
    problem.activation = p.activation->kind;
  problem.residual = p.residual.has_value();
  problem.amax = p.amax.has_value();
  problem.outputScale = p.outputScale.has_value();
  if (p.batch) {
    problem.batched = true;
    problem.batchCount = p.batch->count.value;
    problem.batchStrides = p.batch->strides;
  }
  if (p.groups) {
    problem.grouped = true;
    problem.groupCount = p.groups->count.value;
    problem.groupTable = p.groups->ptrArray.has_value();
  }
  return problem;
}

static std::array<int64_t, 2> shape2(const Directive &d) {
  return {d.shape[0], d.shape[1]};
}

static Schedule buildSchedule(const ScheduleDecl &decl) {
  Schedule s;
  for (const Directive &d : decl.directives) {
    switch (d.kind) {
    case DirectiveKind::Tile:
      llvm::copy(d.shape, s.tile.begin());
      break;
    case DirectiveKind::Coalesce:
      s.coalesce = true;
      break;
    case DirectiveKind::RegisterTile:
      s.registerTile = shape2(d);
      break;
    case DirectiveKind::WarpTile:
      s.warpTile = shape2(d);
      break;
    case DirectiveKind::Promote:
      s.promoteA = d.operandA;
      s.promoteB = d.operandB;
      s.pad = d.pad;
      s.transposeA = d.transposeA;
      s.swizzle = d.swizzle;
      break;
    case DirectiveKind::Vectorize:
      s.vectorize = {d.globalLoadA, d.sharedLoad, d.sharedStore,
                     d.globalStore};
      if (d.globalLoadB != d.globalLoadA)
        s.globalLoadB = d.globalLoadB;
      break;
    case DirectiveKind::Pipeline:
      s.stages = d.stages;
      s.registerDoubleBuffer = d.registerDoubleBuffer;
      s.cpAsync = d.cpAsync;
      break;
    case DirectiveKind::Raster:
      s.raster = d.count;
      break;
    case DirectiveKind::Unroll:
      s.unroll = d.count;
      break;
    case DirectiveKind::BlocksPerSM:
      s.blocksPerSM = d.count;
      break;
    case DirectiveKind::SplitK:
      s.splitK = d.count;
      break;
    case DirectiveKind::SliceK:
      s.sliceK = d.count;
      break;
    case DirectiveKind::Edges:
      s.splitEdges = d.splitEdges;
      break;
    case DirectiveKind::Mma:
      s.mma = {d.shape[0], d.shape[1], d.shape[2]};
      break;
    case DirectiveKind::Wgmma:
      s.wgmma = {d.shape[0], d.shape[1], d.shape[2]};
      s.wgmmaRegistersA = d.registersA;
      break;
    case DirectiveKind::Tma:
      s.tmaA = d.operandA;
      s.tmaB = d.operandB;
      s.tmaC = d.operandC;
      break;
    case DirectiveKind::WarpSpecialize:
      s.consumers = d.count;
      s.pingPong = d.pingPong;
      break;
    case DirectiveKind::Persistent:
      s.persistent = true;
      s.streamK = d.streamK;
      break;
    case DirectiveKind::Cluster:
      s.cluster = shape2(d);
      break;
    case DirectiveKind::Transpose:
      s.transpose = true;
      break;
    }
  }
  return s;
}

namespace {
/// Prints the schedule model's diagnostics at the part of the file they
/// name. Under `transpose` the model checks the transposed problem: its A
/// is the file's B (and the other way round), and each error says so.
class Reporter {
public:
  Reporter(const KernelDecl &kernel, SourceMgr &sourceMgr,
           std::vector<SpillWarning> *heldSpills = nullptr)
      : kernel(kernel), sourceMgr(sourceMgr),
        transpose(kernel.schedule
                      ? kernel.schedule->find(DirectiveKind::Transpose)
                      : nullptr),
        heldSpills(heldSpills) {}

  void operator()(const Diagnostic &diagnostic) const {
    if (diagnostic.spill) {
      SpillWarning spill{locate(diagnostic.part), diagnostic.message,
                         diagnostic.producerSpill};
      if (heldSpills)
        heldSpills->push_back(std::move(spill));
      else
        reportSpills(spill, SpillVerdict(), sourceMgr);
      return;
    }
    SourceMgr::DiagKind kind = SourceMgr::DK_Error;
    if (diagnostic.severity == Diagnostic::Severity::Warning)
      kind = SourceMgr::DK_Warning;
    else if (diagnostic.severity == Diagnostic::Severity::Note)
      kind = SourceMgr::DK_Note;
    sourceMgr.PrintMessage(locate(diagnostic.part), kind, diagnostic.message);
    if (transpose && kind == SourceMgr::DK_Error &&
        transposes(diagnostic.part.kind))
      sourceMgr.PrintMessage(
          transpose->loc, SourceMgr::DK_Note,
          "the schedule is of the transposed problem C^T = B^T * A^T: its "
          "A is B^T, its B A^T, M and N swap");
  }

  bool error(SMLoc loc, const Twine &message) const {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, message);
    return false;
  }

private:
  /// Whether an error about `part` may be about the transposed problem's
  /// orientation: its operands, sizes and the directives.
  static bool transposes(Part::Kind part) {
    switch (part) {
    case Part::Kind::AType:
    case Part::Kind::BType:
    case Part::Kind::CType:
    case Part::Kind::Problem:
    case Part::Kind::Schedule:
    case Part::Kind::Directive:
      return true;
    default:
      return false;
    }
  }

  SMLoc locate(Part part) const {
    const ProblemDecl &p = *kernel.problem;
    const ScheduleDecl &s = *kernel.schedule;
    auto type = [&](const std::optional<MatrixDecl> &m) {
      return m ? m->typeLoc : p.loc;
    };
    switch (part.kind) {
    case Part::Kind::Kernel:
      return kernel.loc;
    case Part::Kind::Problem:
      return p.loc;
    case Part::Kind::AType:
      return type(transpose ? p.b : p.a);
    case Part::Kind::BType:
      return type(transpose ? p.a : p.b);
    case Part::Kind::CType:
      return type(p.c);
    case Part::Kind::Accumulate:
      return p.acc ? p.acc->loc : p.loc;
    case Part::Kind::Math:
      return p.math ? p.math->loc : p.loc;
    case Part::Kind::Scales:
      return p.scales ? p.scales->loc : p.loc;
    case Part::Kind::Batch:
      return p.batch ? p.batch->loc : p.loc;
    case Part::Kind::BatchCount:
      return p.batch ? p.batch->count.loc : p.loc;
    case Part::Kind::Groups:
      return p.groups ? p.groups->loc : p.loc;
    case Part::Kind::Amax:
      return p.amax ? p.amax->loc : p.loc;
    case Part::Kind::OutputScale:
      return p.outputScale ? p.outputScale->loc : p.loc;
    case Part::Kind::Schedule:
      return s.loc;
    case Part::Kind::Directive: {
      const Directive *d = s.find(part.directive);
      return d ? d->loc : s.loc;
    }
    }
    llvm_unreachable("unknown part");
  }

  const KernelDecl &kernel;
  SourceMgr &sourceMgr;
  /// The `transpose` directive, if given.
  const Directive *transpose;
  /// Where the model's spill warnings are held, if they are.
  std::vector<SpillWarning> *heldSpills;
};
} // namespace

/// What only the spelling of the file tells: sections, sizes and the tile
/// are given, the tile's K step is written where promotion needs it, and a
/// pipeline does something.
static bool checkSpelling(const KernelDecl &kernel, const Reporter &report) {
  if (!kernel.problem)
    return report.error(kernel.loc, "kernel '" + kernel.name +
                                        "' has no 'problem' section");
  if (!kernel.schedule)
    return report.error(kernel.loc, "kernel '" + kernel.name +
                                        "' has no 'schedule' section");
  const ProblemDecl &p = *kernel.problem;
  const std::pair<const std::optional<SizeDecl> *, const char *> sizes[] = {
      {&p.m, "m"}, {&p.n, "n"}, {&p.k, "k"}};
  for (auto [size, name] : sizes)
    if (!*size)
      return report.error(p.loc, Twine("problem does not give the size '") +
                                     name + "'");
  const ScheduleDecl &s = *kernel.schedule;
  const Directive *tile = s.find(DirectiveKind::Tile);
  if (!tile)
    return report.error(s.loc, "schedule has no 'tile' directive");
  const Directive *staging = s.find(DirectiveKind::Promote);
  if (!staging)
    staging = s.find(DirectiveKind::Wgmma);
  if (staging && tile->shape.size() != 3)
    return report.error(tile->loc,
                        "'" + stringify(staging->kind) +
                            "' needs the K step of the tile: write "
                            "'tile " +
                            Twine(tile->shape[0]) + "x" +
                            Twine(tile->shape[1]) + "xBK'");
  const Directive *pipeline = s.find(DirectiveKind::Pipeline);
  if (pipeline && pipeline->stages == 1 && !pipeline->registerDoubleBuffer &&
      !pipeline->cpAsync)
    return report.error(pipeline->loc,
                        "a pipeline of 1 stage without 'registers' does "
                        "nothing: use 2 or more stages");
  return true;
}

std::optional<CheckedKernel> gemmc::checkSchedule(const KernelDecl &kernel,
                                                  SourceMgr &sourceMgr,
                                                  StringRef archName,
                                                  bool holdSpills) {
  std::vector<SpillWarning> spills;
  Reporter report(kernel, sourceMgr, holdSpills ? &spills : nullptr);
  if (!checkSpelling(kernel, report))
    return std::nullopt;
  std::optional<Arch> arch = lookupArch(archName);
  CheckedKernel checked{
      buildProblem(*kernel.problem), buildSchedule(*kernel.schedule), {}, {}};
  std::optional<ScheduleFacts> facts = gemmc::checkSchedule(
      computedProblem(checked.problem, checked.schedule), checked.schedule,
      arch ? &*arch : nullptr, report);
  if (!facts)
    return std::nullopt;
  checked.facts = *facts;
  checked.spills = std::move(spills);
  return checked;
}

/// Spills ptxas makes as relocatable code of at most this many bytes are
/// warned of only where the model suspects more (reportSpills); of a copy
/// capped at the consumers' share, at most kSmallShareSpillBytes.
static constexpr int64_t kSmallSpillBytes = 64, kSmallShareSpillBytes = 32;

void gemmc::reportSpills(llvm::ArrayRef<SpillWarning> spills,
                         const SpillVerdict &verdict, SourceMgr &sourceMgr) {
  // libnvJitLink's ptxas assembles the kernel as relocatable code (`ptxas
  // -c`), where ptxas alone and the driver assemble it whole: near the cap
  // their allocations differ, both ways (2% of the fuzzer's kernels, by up
  // to 764 bytes). So a spill of more than 64 bytes is warned of, and a
  // smaller one, or every register taken, where the model's estimate
  // passes the cap by 30% or more: over the fuzzer's seeds 1 and 2 (2,068
  // kernels) the rule that left no kernel spilling more than 64 bytes
  // assembled whole unwarned with the fewest warnings of no spill (26),
  // and it leaves out the examples' small relocatable spills (36 bytes
  // where ptxas alone spills none; docs/dsl.md, "Registers").
  // Where two consumers take their registers from the producer's with
  // `setmaxnreg`, which relocatable code ignores (ptxas's C7504), ptxas
  // judged a copy of the kernel capped at the consumers' share (the
  // driver's emitConsumersShare): its figures are theirs, a little low, so
  // more than 32 bytes are warned of. Assembled whole, the split honoured,
  // kernels whose copy spilled 44 and 52 bytes spilled 96 and 156 (the
  // fuzzer's s93_1453, s90_352); over seeds 87-93 (1,259 such kernels) none
  // whose copy spilled 32 bytes or less spilled more than 64 whole but in
  // the producer. The producer's share is not judged there (it has the
  // consumers' registers): its warnings stand (s89_1657 spilled 100 bytes
  // whole at the producer's 56 and none in the copy).
  for (const SpillWarning &spill : spills)
    if (spill.producer)
      sourceMgr.PrintMessage(spill.loc, SourceMgr::DK_Warning,
                             "the kernel may spill registers to local "
                             "memory: " +
                                 spill.reason);
  std::string prefix;
  bool overEstimate =
      verdict.cap > 0 && 10 * verdict.estimate >= 13 * verdict.cap;
  // A wgmma kernel's estimate is about its accumulators alone: the rules'
  // suspicion stands for the margin, and 254 registers count as every one.
  // Relocatable code fitting in 254 with no spill spilled 116-120 bytes
  // whole in 3 of the 7 such kernels of the fuzzer's seeds 87 and 89
  // (--hopper-only, 982 kernels; in 255, 0 of 5); the warning then
  // reaches 15 kernels there, 7 of them spilling nothing whole and 5 64
  // bytes or less.
  // A copy capped at the consumers' share takes every register of it as a
  // rule: there only its spills count.
  bool allTaken =
      !verdict.registerSplit &&
      (verdict.warpgroup
           ? verdict.registers >= kMaxRegistersPerThread - 1
           : verdict.registers >= kMaxRegistersPerThread && overEstimate);
  int64_t smallBytes =
      verdict.registerSplit ? kSmallShareSpillBytes : kSmallSpillBytes;
  std::string registers = std::to_string(verdict.registers);
  std::string figures =
      verdict.registerSplit
          ? ", the consumers at their " + registers + " registers: "
          : ": " + registers + " registers, ";
  if (!verdict.asked)
    prefix = "the kernel may spill registers to local memory: ";
  else if (verdict.spillStoreBytes > smallBytes ||
           (verdict.spillStoreBytes > 0 && overEstimate))
    prefix = "the kernel spills registers to local memory (ptxas" + figures +
             std::to_string(verdict.spillStoreBytes) +
             " bytes of spill stores): ";
  else if (allTaken)
    prefix = "the kernel may spill registers to local memory (ptxas, "
             "assembling it as relocatable code, takes all " +
             registers + " registers): ";
  else
    return;
  for (const SpillWarning &spill : spills)
    if (!spill.producer)
      sourceMgr.PrintMessage(spill.loc, SourceMgr::DK_Warning,
                             prefix + spill.reason);
  if (!verdict.asked && !verdict.why.empty() && !spills.empty())
    sourceMgr.PrintMessage(spills.front().loc, SourceMgr::DK_Note,
                           "ptxas was not asked: " + verdict.why);
}

bool gemmc::checkImplemented(const KernelDecl &kernel,
                             const CheckedKernel &checked,
                             SourceMgr &sourceMgr) {
  return gemmc::checkImplemented(
      computedProblem(checked.problem, checked.schedule), checked.schedule,
      Reporter(kernel, sourceMgr));
}

//===----------------------------------------------------------------------===//
// Kernel families
//===----------------------------------------------------------------------===//

llvm::SmallVector<KernelDecl, 1> gemmc::getKernels(const KernelDecl &kernel) {
  llvm::SmallVector<KernelDecl, 1> kernels;
  if (!kernel.isFamily()) {
    kernels.push_back(kernel);
    return kernels;
  }
  for (const VariantDecl &variant : kernel.variants) {
    KernelDecl &k = kernels.emplace_back();
    k.name = kernel.name + "_" + variant.name;
    k.loc = variant.loc;
    k.problem = kernel.problem;
    k.schedule = variant.schedule;
  }
  return kernels;
}

contract::SizeRange gemmc::getShapeRange(const VariantDecl &variant) {
  contract::SizeRange range;
  for (const ConditionDecl &c : variant.conditions)
    range.constrain(contract::SizeRange::dimension(c.dim), c.atMost, c.value);
  return range;
}

bool gemmc::checkFamily(const KernelDecl &kernel, SourceMgr &sourceMgr) {
  auto error = [&](SMLoc loc, const Twine &message) {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, message);
    return false;
  };
  if (!kernel.problem)
    return error(kernel.loc,
                 "kernel '" + kernel.name + "' has no 'problem' section");
  const ProblemDecl &p = *kernel.problem;
  for (const VariantDecl &variant : kernel.variants) {
    for (const ConditionDecl &c : variant.conditions) {
      // The rows a group: M over the groups, of a grouped GEMM whose M is
      // given at launch; of the general form, its groups' rows in all
      // over the groups, which the host knows where it gives the table's
      // rows. The general form's groups each have their own M, N and K:
      // its variants name the rows a group alone.
      bool groupRows = c.dim == "group-rows";
      if (groupRows && !p.groups)
        return error(c.loc, "a condition on 'group-rows', the rows a group, "
                            "names a grouped GEMM's (groups = ?)");
      if (!groupRows && p.groups && p.groups->ptrArray)
        return error(c.loc, "a condition on '" + c.dim +
                                "' of the general form (groups = ? "
                                "ptr-array), whose groups each have their "
                                "own sizes: its variants name 'group-rows', "
                                "the rows a group");
      const std::optional<SizeDecl> &size = c.dim == "n"   ? p.n
                                            : c.dim == "k" ? p.k
                                                           : p.m;
      if (size && !size->isDynamic())
        return error(c.loc, "a condition on '" + c.dim +
                                "', which the problem fixes" +
                                (groupRows ? " (its m at " : " at ") +
                                Twine(*size->value) + (groupRows ? ")" : "") +
                                ": conditions name sizes given at launch (" +
                                (groupRows ? "m" : c.dim) + " = ?)");
    }
    if (getShapeRange(variant).isEmpty())
      return error(variant.loc, "variant '" + variant.name +
                                    "' can never run: its conditions leave "
                                    "no size");
  }
  const VariantDecl &last = kernel.variants.back();
  if (!last.conditions.empty())
    return error(last.conditions.front().loc,
                 "the last variant of a family takes every problem the "
                 "others do not: it has no 'when'");
  return true;
}
