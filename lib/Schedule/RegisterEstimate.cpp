//===- RegisterEstimate.cpp - registers and spills -----------------------===//
//
// The SIMT and mma.sync kernels' registers: the estimate against the
// cap (an error past it) and the warning of a likely spill.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

using namespace gemmc;
using namespace gemmc::rules;

/// The most k tiles of a static K whose loop LLVM unrolls whole.
static constexpr int64_t kUnrolledKTiles = 4;

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
/// allocation is not this arithmetic: the tuner leaves out schedules whose
/// estimate comes within an eighth of the cap (a quarter before sm_90);
/// the warning comes there before sm_90, and for sm_90 where the estimate
/// reaches the cap (but for a register of a cap of 128 or more).
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
    // Without a pipeline, all of a thread's guarded pieces of one element
    // are loaded at once, each with its own predicate and address (ptxas
    // spilled 288 bytes of a 128x16x32 tf32 kernel of 64 threads loading
    // 72 single floats each at 255 registers, estimated 224: the schedule
    // fuzzer's seed 48).
    bool loadedAtOnce = width == 1 && !s.isPipelined();
    int64_t guard = guarded ? (loadedAtOnce ? 2 : 1) : 0;
    int64_t perPiece = words + (throughRegisters ? 2 : 0) + guard;
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
  // A static K of at most 4 k tiles: LLVM unrolls the loop over them whole
  // (or drops a loop of one trip), and in that straight code ptxas reads
  // the fragments of every step ahead. The schedule fuzzer's s72_164 (f32
  // SIMT, a 16x32x32 tile of one element a thread, 512 threads, capped at
  // 64 registers, 4 cp-async stages) spilled 64 bytes at K = 32, 388 at
  // 64 and 1,048 at 128, about 2.5 registers a step past the cap (2
  // fragments a step), and none from 5 k tiles on (LLVM unrolled 3 and 4
  // only from 4 stages on: this may warn there without a spill, which
  // ptxas, where gemmc asks it, then leaves unsaid).
  if (p.k && !s.hasMma()) {
    int64_t kTiles = (*p.k + s.bk() - 1) / s.bk();
    if (kTiles <= kUnrolledKTiles)
      fragments = satAdd(
          fragments, satMul(fragments, satMul(kTiles, s.innerSteps()) - 1));
  }
  // (A value an element and an address a read: one address for W elements
  // where a register tile without `promote` reads W-wide.)
  auto reads = [&](Operand operand, int64_t elements) {
    int64_t perRead =
        readsWideFromGlobal(operand) ? s.registerLoadWidth() : 1;
    return elements + elements / perRead;
  };
  if (!s.promoteA)
    copies = satAdd(copies, satMul(unrolled, reads(Operand::A, s.tm())));
  if (!s.promoteB)
    copies = satAdd(copies, satMul(unrolled, reads(Operand::B, s.tn())));
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
  // R (`residual = add`) is read as C is with beta: a row's more.
  if (p.residual)
    epilogue = satAdd(epilogue, s.hasMma() ? s.wn() / 2 : s.tn());
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
  if (!arch)
    return;
  // ptxas for sm_80 (and the other Ampere targets) has spilled kernels
  // that it fits in their cap for sm_90: a wider margin there.
  facts.registersNearCap = pressure > cap - cap / (arch->hopper ? 8 : 4);
  // The warning: for sm_90, on the fuzzer's seeds 1, 42 and 47 every
  // SIMT and mma.sync kernel that ptxas made spill more than 64 bytes but
  // one (whose estimate was half its cap) had an estimate of at least its
  // cap less a 128th (254 of 255 spilled 532 bytes); warning there rather
  // than at the tuner's margin leaves out a fifth of the warnings of
  // kernels that do not spill. For sm_80 seed 1 had two such kernels
  // within the margin, under the cap: the margin stays there
  // (docs/fuzzing.md, "The register warning").
  bool warn =
      arch->hopper ? pressure >= cap - cap / 128 : facts.registersNearCap;
  if (!warn)
    return;
  facts.spillWarned = true;
  warnOfSpill(
      at,
      "it needs about " + Twine(pressure) + " per thread (" + Twine(acc) +
          " accumulators, " +
          (stepSums ? Twine(stepSums) + " for tf32x3's step sums, " : Twine()) +
          Twine(fragments) + " for fragments, " + Twine(copies) +
          " for tile copies in flight, " + Twine(epilogue) +
          " for the epilogue, " + Twine(kAddressingRegisters) +
          " for addressing), close to or over the " + Twine(cap) +
          " a block of " + Twine(facts.threadsPerBlock) + " threads gets");
}
