//===- Rules.cpp - the rules a schedule must satisfy ----------------------===//
//
// Every schedule that cannot work is refused here, with a diagnostic naming
// the part of the schedule file at fault; docs/dsl.md lists the rules. The
// front end reports them at their directive, the gemm dialect's verifiers
// at the op.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Schedule/Registers.h"
#include "gemmc/Schedule/Saturating.h"
#include "gemmc/Schedule/Schedule.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

using namespace gemmc;
using llvm::Twine;

namespace {
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
  void warning(Part part, const Twine &message) {
    handler({Diagnostic::Severity::Warning, part, message.str()});
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
  bool checkThreads();
  bool checkPromoteAndPipeline();
  bool checkVectorize();
  bool checkCooperativeLoads();
  bool checkSizes();
  bool checkSharedMemory();
  bool checkSharedRows();
  bool checkRegisters();
  bool checkHopperDirectives();
  bool checkWarpgroup();
  bool checkCluster();
  void warnOfSpills(Part at, int64_t acc, int64_t fragments);

  /// The directive that makes the threads: the warp tile with mma, else the
  /// register tile, else the tile.
  DirectiveKind threadsPart() const {
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
} // namespace

bool Rules::checkProblem() {
  if (p.acc != ElementType::F32)
    return error(Part::Kind::Accumulate,
                 "the accumulator must be f32, got " + stringify(p.acc));
  if (!p.batchStrides)
    return true;
  const char *names[3] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    auto [rows, cols] = p.shapeOf(Operand(i));
    if (!rows || !cols)
      continue;
    int64_t size = satMul(*rows, *cols);
    int64_t stride = (*p.batchStrides)[i];
    if (stride < size)
      return error(Part::Kind::Batch,
                   Twine("the batch stride of ") + names[i] + " (" +
                       Twine(stride) + ") is smaller than " + names[i] + " (" +
                       Twine(size) +
                       " elements): consecutive matrices would overlap");
  }
  return true;
}

bool Rules::checkTypes() {
  if (p.a != p.b)
    return error(Part::Kind::BType,
                 "A and B must have the same element type, got " +
                     stringify(p.a) + " and " + stringify(p.b));
  llvm::StringRef math = p.tf32x3 ? "math = tf32x3" : "math = tf32";
  if (p.tf32 && p.a != ElementType::F32)
    return error(Part::Kind::Math,
                 math + " needs f32 inputs, got " + stringify(p.a));
  // tf32 lowers the accuracy only tensor cores give up; tf32x3 keeps
  // about f32's, so a SIMT schedule (FMA in f32) honours it too, and a
  // family can mix both kinds of variant.
  if (p.tf32 && !p.tf32x3 && !s.hasMma() && !s.hasWgmma())
    return error(Part::Kind::Math, math + " runs on tensor cores: add the "
                                          "directive 'mma m16n8k8'");
  if (!s.hasMma())
    return true;

  int64_t mmaK = (*s.mma)[2];
  if (mmaK == 16 && p.a == ElementType::F32)
    return error(DirectiveKind::Mma,
                 "mma m16n8k16 takes f16 or bf16 inputs, got f32 "
                 "(f32 inputs use m16n8k8 with math = tf32)");
  if (mmaK == 8 && p.a != ElementType::F32)
    return error(DirectiveKind::Mma,
                 "mma m16n8k8 is the tf32 shape: it takes f32 "
                 "inputs, got " +
                     stringify(p.a) + " (use m16n8k16)");
  if (mmaK == 8 && !p.tf32)
    return error(DirectiveKind::Mma,
                 "mma m16n8k8 computes in tf32: opt in with "
                 "'math = tf32' in the problem");
  return true;
}

bool Rules::checkThreads() {
  int64_t bm = s.bm(), bn = s.bn(), tm = s.tm(), tn = s.tn(), wm = s.wm(),
          wn = s.wn();
  if (s.hasMma()) {
    if (s.registerTile)
      return conflict(DirectiveKind::RegisterTile, DirectiveKind::Mma,
                      "an mma warp tile is made of mma fragments, not of "
                      "per-thread register tiles");
    if (s.coalesce)
      return conflict(DirectiveKind::Coalesce, DirectiveKind::Mma,
                      "mma fixes which lane owns which element");
    if (!s.warpTile)
      return error(DirectiveKind::Mma,
                   "'mma' needs a 'warp-tile' (WMxWN per warp)");
    int64_t fm = (*s.mma)[0], fn = (*s.mma)[1];
    if (wm % fm || wn % fn)
      return error(DirectiveKind::WarpTile,
                   "warp tile " + Twine(wm) + "x" + Twine(wn) +
                       " is not a multiple of the mma shape " + Twine(fm) +
                       "x" + Twine(fn));
    if (s.bk() % (*s.mma)[2])
      return error(
          DirectiveKind::Tile,
          "BK = " + Twine(s.bk()) +
              " is not a multiple of the mma K = " + Twine((*s.mma)[2]));
  }
  if (bm % tm || bn % tn)
    return error(DirectiveKind::RegisterTile,
                 "block tile " + Twine(bm) + "x" + Twine(bn) +
                     " is not a multiple of the register tile " + Twine(tm) +
                     "x" + Twine(tn));
  if (s.warpTile) {
    if (bm % wm || bn % wn)
      return error(DirectiveKind::WarpTile,
                   "block tile " + Twine(bm) + "x" + Twine(bn) +
                       " is not a multiple of the warp tile " + Twine(wm) +
                       "x" + Twine(wn));
    if (!s.hasMma()) {
      if (wm % tm || wn % tn)
        return error(DirectiveKind::WarpTile,
                     "warp tile " + Twine(wm) + "x" + Twine(wn) +
                         " is not a multiple of the register tile " +
                         Twine(tm) + "x" + Twine(tn));
      int64_t lanes = (wm / tm) * (wn / tn);
      if (lanes != kWarpSize)
        return error(DirectiveKind::WarpTile,
                     "warp tile " + Twine(wm) + "x" + Twine(wn) +
                         " with register tile " + Twine(tm) + "x" + Twine(tn) +
                         " gives " + Twine(lanes) +
                         " threads per warp, not 32");
    }
  }

  int64_t threads = s.threadsPerBlock();
  facts.threadsPerBlock = threads;
  facts.workspaceFloatsPerTile = s.workspaceFloatsPerTile();
  if (s.splitsAtLaunch())
    facts.workspaceFloatsPerSplit = s.partialFloats();
  std::string text = "tile " + std::to_string(bm) + "x" + std::to_string(bn);
  if (s.hasMma())
    text += " with warp tile " + std::to_string(wm) + "x" + std::to_string(wn);
  else if (s.registerTile)
    text +=
        " with register tile " + std::to_string(tm) + "x" + std::to_string(tn);
  if (threads > kMaxThreadsPerBlock)
    return error(threadsPart(),
                 text + " needs " + Twine(threads) +
                     " threads per block, more than the limit of 1024");
  if (threads % kWarpSize)
    return error(threadsPart(), text + " needs " + Twine(threads) +
                                    " threads per block, not a multiple of "
                                    "the warp size 32");
  return true;
}

bool Rules::checkPromoteAndPipeline() {
  if (s.bk() != 1 && !s.hasPromotion() && !s.hasMma())
    return error(DirectiveKind::Tile,
                 "a K step (BK = " + Twine(s.bk()) +
                     ") only applies with 'promote'; write 'tile " +
                     Twine(s.bm()) + "x" + Twine(s.bn()) + "'");
  if (s.hasPromotion()) {
    if (s.pad && s.swizzle)
      return error(DirectiveKind::Promote,
                   "'pad' and 'swizzle' are two answers to "
                   "bank conflicts: choose one");
    if (s.pad > 32)
      return error(DirectiveKind::Promote,
                   "a padding of " + Twine(s.pad) +
                       " elements is more than one row of banks (32)");
    if (s.swizzle && !s.hasMma())
      return error(DirectiveKind::Promote,
                   "'swizzle' lays shared memory out for ldmatrix and "
                   "needs 'mma'; SIMT schedules use 'pad'");
  }
  if (s.transposeA && !s.promoteA)
    return error(DirectiveKind::Promote,
                 "'transpose-a' needs A in shared memory: promote 'a'");
  if (!s.isPipelined())
    return true;
  if (!s.hasPromotion())
    return error(DirectiveKind::Pipeline,
                 "'pipeline' needs 'promote': its stages "
                 "are shared-memory buffers");
  if (s.stages > 8)
    return error(DirectiveKind::Pipeline,
                 "at most 8 pipeline stages, got " + Twine(s.stages));
  if (s.cpAsync && s.stages < 2)
    return error(DirectiveKind::Pipeline,
                 "'cp-async' overlaps copies with compute "
                 "and needs at least 2 stages");
  if (s.cpAsync && s.transposeA)
    return conflict(DirectiveKind::Pipeline, DirectiveKind::Promote,
                    "cp.async copies global memory to shared memory as is "
                    "and cannot transpose A");
  if (s.registerDoubleBuffer && !s.registerTile && !s.hasMma())
    return error(DirectiveKind::Pipeline,
                 "'registers' double-buffers register "
                 "tiles: add 'register-tile' or 'mma'");
  return true;
}

/// The dimension of an operand's block tile along which memory is
/// contiguous.
static int64_t contiguousTileExtent(MatrixLayout layout, int64_t rows,
                                    int64_t cols) {
  return layout == MatrixLayout::Row ? cols : rows;
}

bool Rules::checkVectorize() {
  if (!s.vectorize)
    return true;
  int64_t loadA = s.globalLoadWidth(Operand::A),
          loadB = s.globalLoadWidth(Operand::B),
          sharedLoad = s.sharedLoadWidth(), sharedStore = s.sharedStoreWidth(),
          globalStore = s.globalStoreWidth();
  // One global-load width, or one per operand (`global-load a W`).
  bool perOperand = s.globalLoadB.has_value();
  struct Width {
    int64_t width;
    const char *name;
    ElementType type;
  };
  llvm::SmallVector<Width, 5> widths = {
      {loadA, perOperand ? "global-load a" : "global-load", p.a}};
  if (perOperand)
    widths.push_back({loadB, "global-load b", p.b});
  widths.append({{sharedLoad, "shared-load", p.a},
                 {sharedStore, "shared-store", p.a},
                 {globalStore, "global-store", p.c}});
  for (const Width &w : widths)
    if (w.width != 1 && w.width != 2 && w.width != 4 && w.width != 8)
      return error(DirectiveKind::Vectorize,
                   Twine(w.name) + " width must be 1, 2, 4 or 8, got " +
                       Twine(w.width));
  for (const Width &w : widths)
    if (w.width * sizeInBytes(w.type) > 16)
      return error(DirectiveKind::Vectorize,
                   Twine(w.name) + " width " + Twine(w.width) + " of " +
                       stringify(w.type) + " is " +
                       Twine(w.width * sizeInBytes(w.type)) +
                       " bytes, more than the widest (16-byte) access");

  bool sharedWidths =
      loadA != 1 || loadB != 1 || sharedLoad != 1 || sharedStore != 1;
  if (sharedWidths && !s.hasPromotion())
    return error(DirectiveKind::Vectorize,
                 "global-load, shared-load and shared-store widths apply "
                 "to tiles staged in shared memory: add 'promote'");
  if (perOperand) {
    const std::tuple<int64_t, bool, const char *> operands[] = {
        {loadA, s.promoteA, "a"}, {loadB, s.promoteB, "b"}};
    for (auto [width, promoted, name] : operands)
      if (width != 1 && !promoted)
        return error(DirectiveKind::Vectorize,
                     Twine("global-load ") + name + " width " + Twine(width) +
                         " applies to tiles staged in shared memory: "
                         "promote '" +
                         name + "'");
  }
  // Each operand's pieces are stored at most as wide as they were loaded;
  // the shared-store width must fit the widest of them.
  int64_t widestLoad = std::max(s.promoteA ? loadA : 1, s.promoteB ? loadB : 1);
  if (sharedStore > widestLoad)
    return error(DirectiveKind::Vectorize,
                 "shared-store width " + Twine(sharedStore) +
                     " is wider than the global-load width " +
                     Twine(widestLoad) + " that feeds it");
  if (sharedLoad != 1 && s.hasMma())
    return error(DirectiveKind::Vectorize,
                 "mma fragments are read with ldmatrix: "
                 "leave shared-load at 1");
  if (sharedLoad != 1 && (s.tm() % sharedLoad || s.tn() % sharedLoad))
    return error(DirectiveKind::Vectorize,
                 "shared-load width " + Twine(sharedLoad) +
                     " must divide the register tile " + Twine(s.tm()) + "x" +
                     Twine(s.tn()));

  if (globalStore != 1) {
    int64_t run = p.cLayout == MatrixLayout::Row ? s.tn() : s.tm();
    if (!s.hasMma() && run % globalStore)
      return error(DirectiveKind::Vectorize,
                   "global-store width " + Twine(globalStore) +
                       " must divide each thread's contiguous run of C (" +
                       Twine(run) + "): set the register tile");
    // A thread's columns of C come in chunks of the shared-load width (its
    // fragments of B); stores are at most that wide.
    if (!s.hasMma() && globalStore > sharedLoad)
      return error(DirectiveKind::Vectorize,
                   "global-store width " + Twine(globalStore) +
                       " is wider than the chunks of C a thread owns (the "
                       "shared-load width, " +
                       Twine(sharedLoad) + ")");
    std::optional<int64_t> leading = p.leadingDimension(Operand::C);
    if (leading && *leading % globalStore)
      return error(DirectiveKind::Vectorize,
                   "global-store width " + Twine(globalStore) +
                       " needs the leading dimension of C (" + Twine(*leading) +
                       ") to be a multiple of it, for aligned stores");
  }
  return true;
}

bool Rules::checkCooperativeLoads() {
  // Each promoted tile, cut into global-load-wide pieces along its
  // contiguous side, must split evenly over the block's threads.
  if (!s.hasPromotion())
    return true;
  DirectiveKind at =
      s.vectorize ? DirectiveKind::Vectorize : DirectiveKind::Promote;
  struct Tile {
    bool promoted;
    const char *name;
    int64_t rows, cols;
    Operand operand;
  };
  const Tile tiles[] = {{s.promoteA, "A", s.bm(), s.bk(), Operand::A},
                        {s.promoteB, "B", s.bk(), s.bn(), Operand::B}};
  for (const Tile &t : tiles) {
    if (!t.promoted)
      continue;
    int64_t width = s.globalLoadWidth(t.operand);
    int64_t extent =
        contiguousTileExtent(p.layoutOf(t.operand), t.rows, t.cols);
    if (extent % width)
      return error(at, Twine("global-load width ") + Twine(width) +
                           " does not divide the contiguous side (" +
                           Twine(extent) + ") of the " + t.name + " tile " +
                           Twine(t.rows) + "x" + Twine(t.cols));
    std::optional<int64_t> leading = p.leadingDimension(t.operand);
    if (leading && *leading % width)
      return error(at, Twine("global-load width ") + Twine(width) +
                           " needs the leading dimension of " + t.name + " (" +
                           Twine(*leading) +
                           ") to be a multiple of it, for aligned loads");
    int64_t loads = satMul(t.rows, t.cols) / width;
    if (loads % facts.threadsPerBlock)
      return error(at, Twine("the ") + t.name + " tile " + Twine(t.rows) + "x" +
                           Twine(t.cols) + " in " + Twine(width) +
                           "-wide loads (" + Twine(loads) +
                           ") does not split evenly over " +
                           Twine(facts.threadsPerBlock) + " threads");
  }
  return true;
}

bool Rules::checkSizes() {
  if (s.raster && *s.raster < 1)
    return error(DirectiveKind::Raster, "raster group size must be positive");
  if (s.splitK && *s.splitK == 1)
    return error(DirectiveKind::SplitK,
                 "split-k needs at least 2 splits, got " + Twine(*s.splitK));
  // The launch chooses the splits for the problem's K, which a kernel for
  // a static K has no use for: its splits are known when it compiles.
  if (s.splitsAtLaunch() && p.k)
    return error(DirectiveKind::SplitK,
                 "split-k ? chooses the splits at launch, for K given at "
                 "launch; with K = " +
                     Twine(*p.k) + " give their number");
  if (s.unroll && *s.unroll > 0 && s.innerSteps() % *s.unroll)
    return error(DirectiveKind::Unroll,
                 "unroll factor " + Twine(*s.unroll) +
                     " does not divide the number of steps (" +
                     Twine(s.innerSteps()) + ") of the inner loop over BK");
  if (s.splitK && *s.splitK && p.k && *p.k % satMul(*s.splitK, s.bk()))
    return error(DirectiveKind::SplitK,
                 "K = " + Twine(*p.k) + " does not split into " +
                     Twine(*s.splitK) +
                     " parts that are multiples of BK = " + Twine(s.bk()));
  return true;
}

bool Rules::checkSharedMemory() {
  if (!s.hasPromotion())
    return true;
  SharedMemory shared = getSharedMemory(s, p.a, p.b);
  facts.sharedBytes = shared.totalBytes();
  if (arch && facts.sharedBytes > arch->sharedMemoryLimit)
    return error(s.isPipelined() ? DirectiveKind::Pipeline
                                 : DirectiveKind::Promote,
                 "the schedule needs " + Twine(facts.sharedBytes) +
                     " bytes of shared memory per block (" +
                     Twine(shared.bytesPerStage()) + " per stage x " +
                     Twine(s.stages) + " stages), more than the " + arch->name +
                     " limit of " + Twine(arch->sharedMemoryLimit) + " bytes");
  return true;
}

/// Every access to a shared-memory row must be aligned to its width: a
/// vector of N bytes needs an N-byte-aligned address (ldmatrix 16 bytes per
/// row), so each row of a staged tile, padding included, must be a multiple
/// of the widest access to it. Without this, `pad 4` on f16 tiles makes rows
/// 8-byte aligned and ldmatrix faults with a misaligned address.
bool Rules::checkSharedRows() {
  if (!s.hasPromotion())
    return true;
  int64_t bytes = sizeInBytes(p.a);
  struct Row {
    bool promoted;
    const char *name;
    int64_t cols; ///< elements of a shared-memory row, before padding
    bool ldmatrix;
    Operand operand;
  };
  bool tf32 = p.a == ElementType::F32;
  const Row rows[] = {
      {s.promoteA, "A", s.transposeA ? s.bm() : s.bk(), s.hasMma(),
       Operand::A},
      // tf32 B fragments are read with 32-bit loads (ldmatrix transposes
      // only 16-bit elements).
      {s.promoteB, "B", s.bn(), s.hasMma() && !tf32, Operand::B}};
  for (const Row &r : rows) {
    if (!r.promoted)
      continue;
    // The widest access to the row and what makes it.
    int64_t need = 0;
    std::string what;
    auto require = [&](int64_t width, const Twine &why) {
      if (width > need) {
        need = width;
        what = why.str();
      }
    };
    if (r.ldmatrix)
      require(16, "ldmatrix reads per row");
    if (s.cpAsync)
      require(s.globalLoadWidth(r.operand) * bytes, "a cp.async copy writes");
    if (s.vectorize) {
      int64_t store = s.sharedStoreWidth(r.operand);
      require(store * bytes, "a shared-store of " + Twine(store) + " writes");
      require(s.sharedLoadWidth() * bytes,
              "a shared-load of " + Twine(s.sharedLoadWidth()) + " reads");
    }
    int64_t rowBytes = satMul(r.cols + s.pad, bytes);
    if (need <= bytes || rowBytes % need == 0)
      continue;
    error(DirectiveKind::Promote,
          Twine("shared-memory rows of the ") + r.name + " tile are " +
              Twine(rowBytes) + " bytes (" + Twine(r.cols) + " + pad " +
              Twine(s.pad) + " " + stringify(p.a) +
              " elements), not a multiple of the " + Twine(need) + " bytes " +
              what + ": the accesses would be misaligned");
    if (r.cols * bytes % need == 0)
      note(DirectiveKind::Promote, "a pad that is a multiple of " +
                                       Twine(need / bytes) +
                                       " elements keeps the rows aligned");
    return false;
  }
  return true;
}

bool Rules::checkRegisters() {
  int64_t acc, fragments;
  DirectiveKind at;
  if (s.hasMma()) {
    // f32 accumulators of the warp tile spread over 32 lanes; A fragments of
    // 16xK and B fragments of Kx8 in 32-bit registers.
    acc = satMul(s.wm(), s.wn()) / kWarpSize;
    int64_t mmaK = (*s.mma)[2];
    int64_t perReg = 4 / sizeInBytes(p.a);
    fragments = satAdd(satMul(s.wm(), mmaK), satMul(s.wn(), mmaK)) /
                (kWarpSize * perReg);
    at = DirectiveKind::WarpTile;
  } else {
    acc = satMul(s.tm(), s.tn());
    fragments = satAdd(s.tm(), s.tn());
    at = s.registerTile ? DirectiveKind::RegisterTile : DirectiveKind::Tile;
  }
  if (s.registerDoubleBuffer)
    fragments = satMul(fragments, 2);
  // tf32x3 holds each mma fragment's tf32 part and remainder (SIMT
  // schedules compute in f32 under it).
  if (p.tf32x3 && s.hasMma())
    fragments = satMul(fragments, 2);
  // Staging registers: a pipeline through registers holds the next tiles
  // while the current ones are computed.
  int64_t staging = 0;
  if (s.hasPromotion() && s.isPipelined() && !s.cpAsync) {
    int64_t elements = 0;
    if (s.promoteA)
      elements = satMul(satMul(s.bm(), s.bk()), sizeInBytes(p.a));
    if (s.promoteB)
      elements =
          satAdd(elements, satMul(satMul(s.bk(), s.bn()), sizeInBytes(p.b)));
    staging = elements / 4 / facts.threadsPerBlock;
  }
  facts.registers =
      satAdd(satAdd(acc, fragments), satAdd(staging, kAddressingRegisters));
  if (facts.registers > kMaxRegistersPerThread)
    return error(at, "the schedule needs about " + Twine(facts.registers) +
                         " registers per thread (" + Twine(acc) +
                         " accumulators, " + Twine(fragments) +
                         " for fragments, " + Twine(staging) +
                         " for staging, " + Twine(kAddressingRegisters) +
                         " for addressing), more than the 255 a thread "
                         "can have");
  warnOfSpills(at, acc, fragments);
  return true;
}

/// Warns where the kernel is likely to need more registers than its cap
/// (Schedule::registerCap, the nvvm.maxnreg gemm-tile-blocks sets): ptxas
/// then spills to local memory. Besides the accumulators and fragments, a
/// thread holds the pieces of a tile copy in flight: the values loaded
/// before they are stored (an element a register where a piece is scattered
/// across the shared tile's rows), a predicate a piece where copies are
/// guarded, plus two addresses a piece where a pipeline through registers
/// keeps its S - 1 tiles ahead across the compute (cp.async holds no values,
/// a 64-bit address a piece, and with `edges split` the guarded copy's
/// address and size beside it), half as much again where `edges split`
/// lowers a copy through registers twice; what an unrolled loop reads ahead;
/// the epilogue's reads of C (an address more a pair where C is
/// column-major) and the bias; and tf32x3's sums of unrolled steps. ptxas's
/// allocation is not this arithmetic, so the warning comes within an eighth
/// of the cap (a quarter before sm_90).
/// Checked on the schedule fuzzer's kernels (docs/fuzzing.md): a kernel
/// that ptxas makes spill more than 64 bytes has been warned of.
void Rules::warnOfSpills(Part at, int64_t acc, int64_t fragments) {
  bool throughRegisters = s.isPipelined() && !s.cpAsync && s.stages >= 2;
  // Per operand: its pieces per thread, each loaded into words of 32 bits,
  // or into one register an element where the piece is stored across the
  // shared tile's rows (a column-major operand, or A transposed).
  // Copies guarded by the matrix bounds (tails, sizes given at launch) hold
  // a predicate or clamped address a piece more.
  bool guarded =
      p.isDynamic() || *p.m % s.bm() || *p.n % s.bn() || *p.k % s.bk();
  int64_t copies = 0;
  auto copy = [&](Operand operand, bool promoted, int64_t elements,
                  bool acrossRows) {
    if (!promoted)
      return;
    int64_t width = s.globalLoadWidth(operand);
    int64_t pieces = elements / width / facts.threadsPerBlock;
    if (s.cpAsync) { // a 64-bit source address a piece, no values
      // `edges split` keeps the guarded copy's clamped address and zero-fill
      // size beside the unguarded one's (ptxas spilled a 256x32x64 f16
      // kernel of 18 pieces a thread, 4 stages, 80 bytes at 255 registers).
      int64_t perPiece = s.splitEdges && guarded ? 5 : 2;
      copies = satAdd(copies, satMul(pieces, perPiece));
      return;
    }
    int64_t words =
        acrossRows ? width : std::max<int64_t>(1, width * sizeInBytes(p.a) / 4);
    int64_t perPiece = words + (throughRegisters ? 2 : 0) + (guarded ? 1 : 0);
    // A pipeline of S stages through registers holds S - 1 tiles ahead.
    if (throughRegisters)
      perPiece = satMul(perPiece, s.stages - 1);
    copies = satAdd(copies, satMul(pieces, perPiece));
  };
  copy(Operand::A, s.promoteA, satMul(s.bm(), s.bk()),
       (p.aLayout == MatrixLayout::Col) != s.transposeA);
  copy(Operand::B, s.promoteB, satMul(s.bk(), s.bn()),
       p.bLayout == MatrixLayout::Col);
  if (s.splitEdges && !s.cpAsync)
    copies = satAdd(copies, copies / 2);
  // An unrolled loop over BK lets ptxas read ahead: half as many fragments
  // again, and where an operand is read from global memory in the loop (it
  // is not promoted), a value and an address for each unrolled step.
  int64_t unrolled = 1;
  if (s.unroll)
    unrolled = *s.unroll > 0 ? *s.unroll : s.innerSteps();
  if (unrolled > 1)
    fragments = satAdd(fragments, fragments / 2);
  if (!s.promoteA)
    copies = satAdd(copies, satMul(unrolled, 2 * s.tm()));
  if (!s.promoteB)
    copies = satAdd(copies, satMul(unrolled, 2 * s.tn()));
  // tf32 reads B's fragments with two 32-bit loads each, an address each.
  if (s.hasMma() && p.a == ElementType::F32)
    fragments = satAdd(fragments, s.wn() / 4);
  // The epilogue with beta reads a row of the thread's C (a row of mma
  // fragments: WN / 8 pairs of each of 2 rows, or TN values) into registers
  // beside the accumulators, with alpha and beta.
  int64_t epilogue = 0;
  if (p.alphaBeta)
    epilogue = (s.hasMma() ? s.wn() / 2 : s.tn()) + 2;
  // A column-major C is read a pair's elements apart: an address more each
  // (128 accumulators of bf16 with beta spilled 64 bytes without it).
  if (p.alphaBeta && s.hasMma() && p.cLayout == MatrixLayout::Col)
    epilogue = satAdd(epilogue, s.wn() / 4);
  // A bias along the row: WN / 4 values (mma), or TN.
  if (p.bias)
    epilogue = satAdd(epilogue, s.hasMma() ? s.wn() / 4 : s.tn());
  // tf32x3 sums each step's three products from zero before adding them to
  // the accumulators: ptxas computes the sums of an unrolled loop's later
  // steps ahead, as many registers as the accumulators a step (kernels of
  // 64 accumulators unrolled 4 steps spilled a kilobyte).
  int64_t stepSums = 0;
  if (p.tf32x3 && s.hasMma() && unrolled > 1)
    stepSums = satMul(acc, unrolled - 1);
  int64_t pressure =
      satAdd(satAdd(satAdd(acc, fragments), satAdd(copies, epilogue)),
             satAdd(stepSums, kAddressingRegisters));
  int64_t cap = s.registerCap();
  facts.registerPressure = pressure;
  facts.registerCap = cap;
  // ptxas for sm_80 (and the other Ampere targets) has spilled kernels
  // that it fits in their cap for sm_90: a wider margin there.
  if (!arch || pressure <= cap - cap / (arch->hopper ? 8 : 4))
    return;
  warning(
      at,
      "the kernel may spill registers to local memory: it "
      "needs about " +
          Twine(pressure) + " per thread (" + Twine(acc) + " accumulators, " +
          (stepSums ? Twine(stepSums) + " for tf32x3's step sums, " : Twine()) +
          Twine(fragments) + " for fragments, " + Twine(copies) +
          " for tile copies in flight, " + Twine(epilogue) +
          " for the epilogue, " + Twine(kAddressingRegisters) +
          " for addressing), close to or over the " + Twine(cap) +
          " a block of " + Twine(facts.threadsPerBlock) +
          " threads gets (ptxas -v tells)");
}

/// The directives of Hopper's kernel need `wgmma`, which needs the others
/// of its kind only: the mma.sync path's directives do not apply to it.
bool Rules::checkHopperDirectives() {
  if (!s.hasWgmma()) {
    const std::pair<bool, DirectiveKind> needWgmma[] = {
        {s.hasTma() || s.tmaC, DirectiveKind::Tma},
        {s.consumers.has_value(), DirectiveKind::WarpSpecialize},
        {s.persistent, DirectiveKind::Persistent},
        {s.cluster.has_value(), DirectiveKind::Cluster}};
    for (auto [given, directive] : needWgmma)
      if (given)
        return error(directive, "'" + stringify(directive) +
                                    "' belongs to Hopper's warpgroup kernel: "
                                    "add 'wgmma'");
    return true;
  }
  const std::pair<bool, DirectiveKind> others[] = {
      {s.hasMma(), DirectiveKind::Mma},
      {s.registerTile.has_value(), DirectiveKind::RegisterTile},
      {s.warpTile.has_value(), DirectiveKind::WarpTile},
      {s.coalesce, DirectiveKind::Coalesce},
      {s.hasPromotion(), DirectiveKind::Promote},
      {s.registerDoubleBuffer || s.cpAsync, DirectiveKind::Pipeline},
      {s.unroll.has_value(), DirectiveKind::Unroll},
      {s.splitEdges, DirectiveKind::Edges}};
  for (auto [given, directive] : others)
    if (given)
      return conflict(directive, DirectiveKind::Wgmma,
                      "a wgmma kernel stages its tiles with 'tma' and "
                      "'pipeline stages N', and wgmma fixes the threads' "
                      "work");
  // `vectorize global-load` sizes the pieces in which the producer's
  // threads copy an operand that TMA does not.
  if (s.vectorize) {
    const std::array<int64_t, 4> &v = *s.vectorize;
    if (v[1] != 1 || v[2] != 1 || v[3] != 1)
      return error(DirectiveKind::Vectorize,
                   "with wgmma, 'vectorize' sets only the global-load width "
                   "of an operand the producer's threads copy "
                   "('vectorize global-load a W'): wgmma reads shared memory "
                   "and the kernel stores C itself");
    const std::pair<bool, Operand> copies[] = {{s.tmaA, Operand::A},
                                               {s.tmaB, Operand::B}};
    for (auto [byTma, operand] : copies) {
      int64_t width = s.globalLoadWidth(operand);
      const char *name = operand == Operand::A ? "a" : "b";
      if (byTma && width != 1)
        return error(DirectiveKind::Vectorize,
                     Twine("'tma ") + name + "' copies " + name +
                         " with TMA: a global-load width for it does "
                         "not apply");
      int64_t bytes = width * sizeInBytes(p.a);
      if (bytes > 16)
        return error(DirectiveKind::Vectorize,
                     Twine("the producer copies pieces of at most 16 bytes: "
                           "a global-load width of ") +
                         Twine(width) + " " + stringify(p.a) + " is " +
                         Twine(bytes));
    }
  }
  return true;
}

bool Rules::checkWarpgroup() {
  if (arch && arch->name != "sm_90a")
    return error(DirectiveKind::Wgmma,
                 "wgmma is an instruction of sm_90a: compile with "
                 "--arch=sm_90a (the target is " +
                     arch->name + ")");
  int64_t m = (*s.wgmma)[0], n = (*s.wgmma)[1], k = (*s.wgmma)[2];
  bool tf32 = p.a == ElementType::F32;
  int64_t wantK = tf32 ? 8 : 16;
  if (m != 64 || n % 8 || n < 8 || n > 256 || k != wantK)
    return error(DirectiveKind::Wgmma,
                 "wgmma shapes are m64nNk" + Twine(wantK) + " for " +
                     stringify(p.a) +
                     " inputs, N a multiple of 8 from 8 to 256; got m" +
                     Twine(m) + "n" + Twine(n) + "k" + Twine(k));
  if (tf32 && !p.tf32)
    return error(DirectiveKind::Wgmma, "wgmma takes f32 inputs as tf32: opt "
                                       "in with 'math = tf32' in the problem");
  // The producer's threads transpose an M- or N-major f32 operand; TMA
  // copies it as it lies.
  bool aByTmaMNMajor = s.tmaA && p.aLayout != MatrixLayout::Row;
  bool bByTmaMNMajor = s.tmaB && p.bLayout != MatrixLayout::Col;
  if (tf32 && (aByTmaMNMajor || bByTmaMNMajor))
    return error(aByTmaMNMajor ? Part::Kind::AType : Part::Kind::BType,
                 "tf32 wgmma reads both operands K-major: with 'tma', A must "
                 "be row-major and B column-major (leave the operand out of "
                 "'tma' and the producer's threads transpose it)");
  // tf32x3 splits each element into its tf32 part and the remainder as the
  // producer's threads copy it; TMA copies bytes as they are.
  if (p.tf32x3 && s.hasTma())
    return error(DirectiveKind::Tma,
                 "math = tf32x3 splits each element of A and B as the "
                 "producer's threads copy it: leave 'a' and 'b' out of 'tma'");

  int64_t consumers = s.consumers.value_or(1);
  if (consumers < 1 || consumers > 2)
    return error(DirectiveKind::WarpSpecialize,
                 "'warp-specialize' takes 1 or 2 consumer warpgroups, got " +
                     Twine(consumers));
  // The consumers release a stage once the wgmma after it is issued (one
  // group stays in flight): with one stage the producer would wait for ever.
  if (s.stages < 2)
    return error(s.isPipelined() ? Part(DirectiveKind::Pipeline)
                                 : Part(DirectiveKind::Wgmma),
                 "the wgmma kernel keeps one stage's wgmma in flight while "
                 "the next stage loads: it needs 'pipeline stages 2' or more");
  if (s.stages > 8)
    return error(DirectiveKind::Pipeline,
                 "at most 8 pipeline stages, got " + Twine(s.stages));
  if (!checkCluster())
    return false;
  WarpgroupKernel kernel = getWarpgroupKernel(p, s);
  int64_t elementBytes = kernel.elementBytes;
  int64_t rowElements = kSwizzleBytes / elementBytes;
  if (s.bm() % (64 * consumers))
    return error(DirectiveKind::Tile,
                 "BM = " + Twine(s.bm()) + " is not a multiple of 64 rows per "
                 "consumer warpgroup (" + Twine(consumers) + ")");
  if (s.bn() % n)
    return error(DirectiveKind::Tile, "BN = " + Twine(s.bn()) +
                                          " is not a multiple of the wgmma N = " +
                                          Twine(n));
  if (s.bk() * elementBytes % kSwizzleBytes)
    return error(DirectiveKind::Tile,
                 "BK = " + Twine(s.bk()) + " (" + Twine(s.bk() * elementBytes) +
                     " bytes) is not a multiple of the 128-byte rows of the "
                     "swizzled tiles (" +
                     Twine(rowElements) + " " + stringify(p.a) + " elements)");
  // TMA boxes have at most 256 rows; an MN-major operand is cut into
  // 128-byte columns, which the wgmma tiles must not straddle.
  for (const TmaOperand *t : {&kernel.a, &kernel.b}) {
    Part part = t->operand == Operand::A ? Part(Part::Kind::AType)
                                         : Part(Part::Kind::BType);
    const char *name = t->operand == Operand::A ? "A" : "B";
    if (t->byTma && t->boxOuter > 256)
      return error(DirectiveKind::Tile,
                   Twine("a TMA box has at most 256 rows: the tile of ") +
                       name + " needs " + Twine(t->boxOuter));
    int64_t mnExtent = t->operand == Operand::A ? 64 : n;
    if (!t->kMajor && mnExtent % rowElements)
      return error(part, Twine("with ") + name +
                             " stored M- or N-major, the wgmma tile (" +
                             Twine(mnExtent) + ") must be a multiple of " +
                             Twine(rowElements) + " elements");
    // A cluster's blocks each copy a slice of the box's rows, on whole
    // swizzle atoms of 8 rows.
    if (t->boxOuter % (8 * t->multicast))
      return error(DirectiveKind::Cluster,
                   Twine("the ") + Twine(t->multicast) +
                       " blocks that share the tile of " + name +
                       " each multicast a slice of its " +
                       Twine(t->boxOuter) +
                       " box rows, which must be a multiple of 8 rows");
  }
  if (kernel.c) {
    bool rowMajor = kernel.c->rowMajor;
    std::optional<int64_t> extent = rowMajor ? p.n : p.m;
    int64_t multiple = kernel.c->sizeMultiple();
    if (extent && *extent % multiple)
      return error(DirectiveKind::Tma,
                   Twine("'tma c' stores C in 16-byte units along its ") +
                       (rowMajor ? "rows" : "columns") + ": " +
                       (rowMajor ? "N = " : "M = ") + Twine(*extent) +
                       " is not a multiple of " + Twine(multiple) +
                       " (the last unit would write past the matrix)");
  }
  if (kernel.c && s.bn() % kernel.c->groupColumns)
    return error(DirectiveKind::Tile,
                 "'tma c' stores C in 128-byte groups of " +
                     Twine(kernel.c->groupColumns) + " " + stringify(p.c) +
                     " columns: BN = " + Twine(s.bn()) +
                     " is not a multiple of them");

  // TMA reads and writes rows that start at multiples of 16 bytes, the
  // producer's threads pieces of the global-load width; C without `tma c`
  // takes any leading dimension (pairs of columns are stored element by
  // element where it is odd). (Sizes given at launch: the contract's
  // leading-dimension multiples say so, and the runtime checks them.)
  int64_t cMultiple = kernel.c ? 16 / kernel.c->elementBytes : 1;
  const std::pair<Operand, int64_t> multiples[] = {
      {Operand::A, leadingDimMultiple(kernel.a, elementBytes)},
      {Operand::B, leadingDimMultiple(kernel.b, elementBytes)},
      {Operand::C, cMultiple}};
  for (auto [operand, multiple] : multiples) {
    std::optional<int64_t> ld = p.leadingDimension(operand);
    if (!ld || *ld % multiple == 0)
      continue;
    const char *names[] = {"A", "B", "C"};
    Part part = operand == Operand::A   ? Part(Part::Kind::AType)
                : operand == Operand::B ? Part(Part::Kind::BType)
                                        : Part(Part::Kind::CType);
    return error(part, Twine("the wgmma kernel needs the leading dimension "
                             "of ") +
                           names[int(operand)] + " (" + Twine(*ld) +
                           ") to be a multiple of " + Twine(multiple) +
                           (operand != Operand::C &&
                                    !(operand == Operand::A ? kernel.a
                                                            : kernel.b)
                                         .byTma
                                ? " (the producer copies pieces of the "
                                  "global-load width)"
                                : " (TMA copies rows of 16-byte multiples)"));
  }

  facts.threadsPerBlock = kernel.threads;
  facts.sharedBytes = kernel.sharedBytes;
  int64_t budget =
      kernel.consumerRegisters ? kernel.consumerRegisters : kMaxRegistersPerThread;
  // Accumulators (and tf32x3's sums) plus descriptors, addresses and the
  // epilogue's values.
  facts.registers = satAdd(kernel.accumulators + kernel.sums, 40);
  facts.registerCap = budget;
  facts.registerPressure = facts.registers;
  if (facts.registers > budget)
    return error(DirectiveKind::Tile,
                 "a consumer thread holds " + Twine(kernel.accumulators) +
                     " accumulators of the " + Twine(kernel.rowsPerConsumer) +
                     "x" + Twine(s.bn()) + " tile of its warpgroup" +
                     (kernel.sums ? " and as many sums of a k tile's "
                                    "tf32x3 products"
                                  : "") +
                     ", and needs about " + Twine(facts.registers) +
                     " registers, more than the " + Twine(budget) +
                     " it can have");
  // The stores of C at the matrix's edges are guarded element by element,
  // or with `tma c` clipped by TMA but C read (beta) element by element at
  // clamped positions; with a full tile of accumulators live, ptxas may
  // then spill (seen from 128 accumulators on, depending on C's type and
  // the warpgroups).
  if (hasEdgeTiles(p, s) && kernel.accumulators >= 128 &&
      (!kernel.c || p.alphaBeta))
    warning(DirectiveKind::Tile,
            Twine("the kernel may spill registers to local memory: at the "
                  "matrix's edges it ") +
                (kernel.c ? "reads C element by element"
                          : "stores C element by element") +
                " while " + Twine(kernel.accumulators) +
                " accumulators per consumer thread are live (ptxas -v tells" +
                (kernel.c ? ")" : "; 'tma c' stores through shared memory "
                                  "instead)"));
  if (arch && facts.sharedBytes > arch->sharedMemoryLimit)
    return error(DirectiveKind::Pipeline,
                 "the tiles need " + Twine(facts.sharedBytes) +
                     " bytes of shared memory (" + Twine(s.stages) +
                     " stages), more than the " + arch->name + " limit of " +
                     Twine(arch->sharedMemoryLimit) + " bytes");
  return true;
}

bool Rules::checkCluster() {
  if (!s.cluster)
    return true;
  int64_t cm = s.clusterM(), cn = s.clusterN();
  if (!llvm::isPowerOf2_64(cm) || !llvm::isPowerOf2_64(cn) ||
      cm * cn > kMaxClusterSize)
    return error(DirectiveKind::Cluster,
                 "a cluster is a power of two of tile rows by a power of two "
                 "of tile columns, at most " +
                     Twine(kMaxClusterSize) + " blocks; got " + Twine(cm) +
                     "x" + Twine(cn));
  // The blocks of a cluster walk the same tiles in step (their copies feed
  // each other): a grid of whole clusters that loops over the tiles.
  if (!s.persistent)
    return error(DirectiveKind::Cluster,
                 "a cluster's blocks walk the tiles together: 'cluster' "
                 "needs 'persistent'");
  if (!s.tmaA || !s.tmaB)
    return error(DirectiveKind::Cluster,
                 "a cluster's blocks share their tiles by TMA multicast: "
                 "'cluster' needs 'tma a b'");
  return true;
}

std::optional<ScheduleFacts> Rules::run() {
  if (!checkHopperDirectives())
    return std::nullopt;
  if (s.hasWgmma()) {
    if (!checkProblem() || !checkTypes() || !checkWarpgroup())
      return std::nullopt;
    return facts;
  }
  if (!checkProblem() || !checkTypes() || !checkThreads() ||
      !checkPromoteAndPipeline() || !checkVectorize() ||
      !checkCooperativeLoads() || !checkSizes() || !checkSharedMemory() ||
      !checkSharedRows() || !checkRegisters())
    return std::nullopt;
  return facts;
}

bool Rules::checkImplemented() {
  // Split-K runs the splits along the grid's z, which a batch and a
  // persistent grid take.
  if (s.splitK && s.persistent)
    return notYet(DirectiveKind::SplitK, "'split-k' with 'persistent'");
  if (s.splitK && p.batched)
    return notYet(DirectiveKind::SplitK, "'split-k' with a batch");
  if (s.hasWgmma()) {
    if (!s.consumers)
      return notYet(DirectiveKind::Wgmma, "'wgmma' without 'warp-specialize'");
    if (p.batched)
      return notYet(Part::Kind::Batch, "a batch with 'wgmma'");
    return true;
  }
  bool columnMajorOperand =
      p.aLayout == MatrixLayout::Col || p.bLayout == MatrixLayout::Col;
  // The narrowest pieces the block-cooperative copies move (each
  // operand's global-load width).
  int64_t elementBytes = sizeInBytes(p.a);
  int64_t pieceBytes = 16;
  const std::pair<bool, Operand> copied[] = {{s.promoteA, Operand::A},
                                             {s.promoteB, Operand::B}};
  for (auto [promoted, operand] : copied)
    if (promoted)
      pieceBytes =
          std::min(pieceBytes, s.globalLoadWidth(operand) * elementBytes);
  if (s.cpAsync) {
    // cp.async moves 4, 8 or 16 bytes.
    if (pieceBytes < 4)
      return notYet(DirectiveKind::Pipeline,
                    "'pipeline ... cp-async' with " + Twine(pieceBytes) +
                        "-byte pieces (raise the global-load width)");
    if (columnMajorOperand)
      return notYet(DirectiveKind::Pipeline,
                    "'pipeline ... cp-async' with a column-major operand");
  }
  // Fragments are double-buffered for mma.sync with cp.async only.
  if (s.registerDoubleBuffer && (!s.hasMma() || !s.cpAsync))
    return notYet(DirectiveKind::Pipeline,
                  "'pipeline ... registers' without 'mma' "
                  "and 'cp-async'");
  if (s.swizzle) {
    // The swizzle permutes 16-byte chunks: copies move whole chunks.
    if (pieceBytes != 16)
      return notYet(DirectiveKind::Promote,
                    "'promote ... swizzle' with copies of " +
                        Twine(pieceBytes) +
                        " bytes (vectorize global-load to 16 bytes)");
    // Rows of a power-of-two number of 16-byte chunks, along rows.
    for (int64_t cols : {s.bk(), s.bn()})
      if (!llvm::isPowerOf2_64(cols * elementBytes / 16) ||
          cols * elementBytes % 16)
        return notYet(DirectiveKind::Promote,
                      "'promote ... swizzle' with tile rows of " +
                          Twine(cols * elementBytes) +
                          " bytes (not a power-of-two number of 16-byte "
                          "chunks)");
    if (columnMajorOperand)
      return notYet(DirectiveKind::Promote,
                    "'promote ... swizzle' with a column-major operand");
  }
  if (s.hasMma() && s.transposeA)
    return notYet(DirectiveKind::Promote,
                  "'promote ... transpose-a' with 'mma'");
  if (s.hasMma() && (!s.promoteA || !s.promoteB))
    return notYet(DirectiveKind::Mma, "'mma' without 'promote a b'");

  // f16 and bf16 run on tensor cores only.
  const std::pair<ElementType, Part::Kind> matrices[] = {
      {p.a, Part::Kind::AType},
      {p.b, Part::Kind::BType},
      {p.c, Part::Kind::CType}};
  for (auto [type, part] : matrices)
    if (!s.hasMma() && type != ElementType::F32)
      return notYet(part,
                    "element type '" + stringify(type) + "' without 'mma'");
  if (p.batched && !p.batchCount && !p.isDynamic())
    return notYet(Part::Kind::BatchCount,
                  "a batch count given at launch ('?') with static sizes");
  if (p.isDynamic()) {
    // The leading dimensions and a batch's strides come with the sizes, at
    // launch; the runtime checks the extent of each matrix.
    if (p.batchStrides)
      return error(Part::Kind::Batch,
                   "batch strides in a problem with sizes "
                   "given at launch: its strides are given at "
                   "launch too");
    return true;
  }
  // Kernels index with 32-bit arithmetic, across a batch too.
  int64_t count = p.batched ? *p.batchCount : 1;
  for (int i = 0; i < 3; ++i) {
    auto [rows, cols] = p.shapeOf(Operand(i));
    int64_t size = *rows * *cols;
    int64_t stride = p.batchStrides ? (*p.batchStrides)[i] : size;
    if ((count - 1) * stride + size >= (int64_t(1) << 31))
      return notYet(Part::Kind::Problem, "a matrix (or batch of them) of 2^31 "
                                         "elements or more");
  }
  return true;
}

std::optional<ScheduleFacts> gemmc::checkSchedule(const Problem &problem,
                                                  const Schedule &schedule,
                                                  const Arch *arch,
                                                  DiagnosticHandler handler) {
  return Rules(problem, schedule, arch, handler).run();
}

bool gemmc::checkImplemented(const Problem &problem, const Schedule &schedule,
                             DiagnosticHandler handler) {
  return Rules(problem, schedule, nullptr, handler).checkImplemented();
}

bool gemmc::verifyScheduleStructure(const Schedule &s,
                                    DiagnosticHandler handler) {
  auto error = [&](const Twine &message) {
    handler({Diagnostic::Severity::Error, Part::Kind::Schedule, message.str()});
    return false;
  };
  auto positive = [](llvm::ArrayRef<int64_t> sizes) {
    return llvm::all_of(sizes, [](int64_t size) { return size > 0; });
  };
  if (!positive(s.tile))
    return error("tile sizes must be positive");
  if (s.registerTile &&
      (!positive(*s.registerTile) || s.bm() % s.tm() || s.bn() % s.tn()))
    return error("register_tile must be TMxTN dividing the tile");
  if (s.warpTile &&
      (!positive(*s.warpTile) || s.bm() % s.wm() || s.bn() % s.wn()))
    return error("warp_tile must be WMxWN dividing the tile");
  auto vectorWidth = [](int64_t w) {
    return w == 1 || w == 2 || w == 4 || w == 8;
  };
  if (s.vectorize && !llvm::all_of(*s.vectorize, vectorWidth))
    return error("vectorize must be 4 widths of 1, 2, 4 or 8");
  if (s.globalLoadB && (!s.vectorize || !vectorWidth(*s.globalLoadB)))
    return error("global_load_b needs vectorize and is 1, 2, 4 or 8");
  if (s.mma && !positive(*s.mma))
    return error("mma sizes must be positive");
  if (s.pad < 0 || s.stages < 1 || (s.raster && *s.raster < 1) ||
      (s.unroll && *s.unroll < 0) || (s.splitK && *s.splitK < 0))
    return error("pad, stages, raster, unroll and split_k must be in range");
  if (s.transposeA && !s.promoteA)
    return error("transpose_a needs A promoted");
  if ((s.pad || s.stages > 1) && !s.hasPromotion() && !s.hasWgmma())
    return error("pad and stages need promote or wgmma");
  if (s.swizzle && (s.pad || s.transposeA || !s.hasPromotion() || !s.hasMma()))
    return error("swizzle needs promote and mma, and neither pad nor "
                 "transpose_a");
  if (s.cpAsync && (s.stages < 2 || s.transposeA))
    return error("cp_async needs 2 or more stages and no transpose_a");
  if (s.mma && (!s.warpTile || s.registerTile))
    return error("mma needs a warp_tile and no register_tile");
  if (s.wgmma && (!positive(*s.wgmma) || s.bk() % (*s.wgmma)[2] ||
                  s.bn() % (*s.wgmma)[1]))
    return error("wgmma sizes must be positive and divide the tile");
  if (s.wgmma && (s.mma || s.hasPromotion() || s.warpTile || s.registerTile))
    return error("wgmma excludes mma, promote, warp_tile and register_tile");
  if (s.consumers && (*s.consumers < 1 || *s.consumers > 2 ||
                      s.bm() % (64 * *s.consumers)))
    return error("warp_specialize must be 1 or 2 dividing the tile's rows in "
                 "64s");
  if (!s.wgmma &&
      (s.hasTma() || s.tmaC || s.consumers || s.persistent || s.cluster))
    return error("tma, warp_specialize, persistent and cluster need wgmma");
  if (s.cluster && ((*s.cluster)[0] < 1 || (*s.cluster)[1] < 1 ||
                    !s.persistent))
    return error("cluster sizes must be positive, with persistent");
  return true;
}
