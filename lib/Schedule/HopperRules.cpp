//===- HopperRules.cpp - Hopper's kernels --------------------------------===//
//
// The rules of Hopper's kernels: the wgmma directives, the warp-
// specialised kernel's tiles, stages and shared memory, clusters.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

using namespace gemmc;
using namespace gemmc::rules;

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
  if (s.blocksPerSM)
    return conflict(DirectiveKind::BlocksPerSM, DirectiveKind::Wgmma,
                    "a wgmma kernel is one block a multiprocessor, its "
                    "warpgroups' registers set by 'setmaxnreg'");
  const std::pair<bool, DirectiveKind> others[] = {
      {s.hasMma(), DirectiveKind::Mma},
      {s.registerTile.has_value(), DirectiveKind::RegisterTile},
      {s.warpTile.has_value(), DirectiveKind::WarpTile},
      {s.coalesce, DirectiveKind::Coalesce},
      {s.hasPromotion(), DirectiveKind::Promote},
      {s.registerDoubleBuffer || s.cpAsync, DirectiveKind::Pipeline},
      {s.unroll.has_value(), DirectiveKind::Unroll},
      {s.sliceK.has_value(), DirectiveKind::SliceK},
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
  bool fp8 = isFloat8(p.a);
  int64_t wantK = tf32 ? 8 : fp8 ? 32 : 16;
  if (m != 64 || n % 8 || n < 8 || n > 256 || k != wantK)
    return error(DirectiveKind::Wgmma,
                 "wgmma shapes are m64nNk" + Twine(wantK) + " for " +
                     stringify(p.a) +
                     " inputs, N a multiple of 8 from 8 to 256; got m" +
                     Twine(m) + "n" + Twine(n) + "k" + Twine(k));
  if (tf32 && !p.tf32)
    return error(DirectiveKind::Wgmma, "wgmma takes f32 inputs as tf32: opt "
                                       "in with 'math = tf32' in the problem");
  // The consumers load A's fragments an element at a time, for tf32's
  // M-major A, which wgmma cannot read from shared memory (under tf32x3
  // they split them into tf32 parts and remainders too).
  if (s.wgmmaRegistersA && !tf32)
    return notYet(DirectiveKind::Wgmma,
                  "wgmma's A from registers ('registers') with " +
                      stringify(p.a) + " inputs (it takes tf32's)");
  // FP8 wgmma reads both operands K-major from shared memory; the
  // producer's threads' copies realign elements of 2 bytes and more, not
  // FP8's single bytes: TMA copies them.
  if (fp8 && (p.aLayout != MatrixLayout::Row || p.bLayout != MatrixLayout::Col))
    return error(p.aLayout != MatrixLayout::Row ? Part::Kind::AType
                                                : Part::Kind::BType,
                 "FP8 wgmma reads both operands K-major: A must be "
                 "row-major and B column-major (B as the N x K row-major W "
                 "of x @ W.T)");
  if (fp8 && (!s.tmaA || !s.tmaB))
    return error(DirectiveKind::Tma, "FP8 operands are copied by TMA: write "
                                     "'tma a b'");
  // tf32x3 splits each element into its tf32 part and the remainder as the
  // producer's threads copy it; TMA copies bytes as they are. A's
  // fragments in registers are split by the consumers that load them.
  if (p.tf32x3 && (s.tmaB || (s.tmaA && !s.wgmmaRegistersA)))
    return error(DirectiveKind::Tma,
                 s.wgmmaRegistersA
                     ? "math = tf32x3 splits each element of B as the "
                       "producer's threads copy it: leave 'b' out of 'tma' "
                       "(A's fragments are split in registers)"
                     : "math = tf32x3 splits each element of A and B as the "
                       "producer's threads copy it: leave 'a' and 'b' out "
                       "of 'tma'");

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
  // Shared memory bounds the stages (below); the cap only keeps the
  // prologue's unrolled barrier set-up short. A narrow tile's stage is small,
  // and a decode kernel streaming B keeps 16 or more in flight.
  if (s.stages > kMaxWarpgroupStages)
    return error(DirectiveKind::Pipeline,
                 "at most " + Twine(kMaxWarpgroupStages) +
                     " pipeline stages in a wgmma kernel, got " +
                     Twine(s.stages));
  if (!checkCluster() || !checkStreamK() || !checkPingPong())
    return false;
  WarpgroupKernel kernel = getWarpgroupKernel(p, s);
  if (kernel.a.inRegisters && kernel.a.kMajor)
    return error(DirectiveKind::Wgmma,
                 "'registers' loads an M-major A into wgmma's registers (a "
                 "column-major A, or with 'transpose' a row-major B); this "
                 "A is K-major, which wgmma reads from shared memory itself");
  int64_t elementBytes = kernel.elementBytes;
  int64_t rowElements = kSwizzleBytes / elementBytes;
  if (s.bm() % (64 * kernel.stageConsumers()))
    return error(DirectiveKind::Tile,
                 "BM = " + Twine(s.bm()) + " is not a multiple of 64 rows per "
                 "consumer warpgroup (" + Twine(consumers) +
                     (s.pingPong ? ", each computing whole tiles" : "") + ")");
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
    // A staged operand (tf32, M- or N-major, by TMA) lands as its 128-byte
    // boxes of M or N, BK rows each.
    if (t->staged() && t->boxOuter % rowElements)
      return error(part, Twine("TMA copies the ") +
                             (t->operand == Operand::A ? "M" : "N") +
                             "-major " + name +
                             " of tf32 wgmma in boxes of " +
                             Twine(rowElements) + " elements of " +
                             (t->operand == Operand::A ? "M" : "N") +
                             " that the producer's threads transpose: the "
                             "tile's " + Twine(t->boxOuter) +
                             " must be a multiple of " + Twine(rowElements) +
                             " (leave the operand out of 'tma' and the "
                             "producer's threads copy it)");
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
  // A column-major C's boxes are 128-byte lines down its columns, each a
  // share of a wgmma tile's 64 rows: of 1-byte elements a line is 128 rows,
  // more than the tile has (the fuzzer's s63_1344, e5m2, faulted).
  if (kernel.c && !kernel.c->rowMajor && kernel.c->boxes == 0)
    return notYet(DirectiveKind::Tma,
                  "'tma c' with a column-major " + stringify(p.c) +
                      " C (a 128-byte box line of its columns is " +
                      Twine(kSwizzleBytes / kernel.c->elementBytes) +
                      " rows, a wgmma tile 64)");
  // Row-major C goes in groups of 128-byte rows (a column-major C's groups
  // divide BN, any multiple of 8: TmaStore).
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

  if (p.batched && !checkHopperBatch(kernel, multiples))
    return false;
  if (p.grouped && !checkHopperGroups(kernel))
    return false;

  facts.threadsPerBlock = kernel.threads;
  facts.sharedBytes = kernel.sharedBytes;
  int64_t budget =
      kernel.consumerRegisters ? kernel.consumerRegisters : kMaxRegistersPerThread;
  // Accumulators (and tf32x3's sums, or A's fragments in registers) plus
  // descriptors, addresses and the epilogue's values.
  facts.registers = satAdd(kernel.liveValues(), kConsumerOverheadRegisters);
  std::string fragmentsText =
      kernel.fragments ? " and " + std::to_string(kernel.fragments) +
                             " registers of A's fragments"
                       : "";
  facts.registerCap = budget;
  facts.registerPressure = facts.registers;
  facts.registerSplit = kernel.consumerRegisters > 0;
  if (facts.registers > budget)
    return error(DirectiveKind::Tile,
                 "a consumer thread holds " + Twine(kernel.accumulators) +
                     " accumulators of the " + Twine(kernel.rowsPerConsumer) +
                     "x" + Twine(s.bn()) + " tile of its warpgroup" +
                     (kernel.sums ? " and as many sums of a k tile's "
                                    "products (promoted in f32)"
                                  : "") +
                     fragmentsText +
                     ", and needs about " + Twine(facts.registers) +
                     " registers, more than the " + Twine(budget) +
                     " it can have");
  // The stores of C at the matrix's edges are guarded element by element,
  // or with `tma c` clipped by TMA but C read (beta) element by element at
  // clamped positions; with a full tile of accumulators live, ptxas may
  // then spill (seen from 128 accumulators on, depending on C's type and
  // the warpgroups). Not where a consumer's rows are one wgmma tile (64)
  // whose operands TMA copies, without split-K or stream-K: of 63 such
  // kernels the fuzzer drew (seeds 34 and 35, --hopper-only), warned
  // before, 4 spilled, 36 bytes at most (docs/fuzzing.md, "The register
  // warning").
  // R read element by element beside 64 accumulators or more spilled
  // there too, each element at its own clamped address (the schedule
  // fuzzer's seed 93: s93_939, one row of wgmma tiles fed by TMA, 200
  // bytes; s93_1529, 64 accumulators beside beta * C and rowwise scales,
  // 92), where look-alikes spill none: ptxas is asked.
  // Nor where a column-major C is stored or read element by element and
  // clusters of two tile columns or more meet a corner tile of static
  // sizes: ptxas spilled 364-1,112 bytes (the schedule fuzzer's s97_208,
  // s98_1163 and s99_2046; none without the cluster's columns, with a
  // row-major C, with sizes at launch, or with whole tiles in M or N).
  // Nor where such a consumer stores C element by element and adds a bias
  // (of either kind): 92 bytes beside 128 accumulators (the schedule
  // fuzzer's s107_2237, f16 128x256 tiles of static sizes; none with
  // `tma c`, whole tiles, no bias, or persistent tiles): ptxas is asked.
  bool clusterColumnsAtCorner = s.clusterN() >= 2 && p.m && p.n &&
                                *p.m % s.bm() && *p.n % s.bn() &&
                                p.cLayout == MatrixLayout::Col;
  bool biasStoredByElements = p.bias && !kernel.c;
  bool oneTileOfRows = kernel.mTiles == 1 && kernel.a.byTma && kernel.b.byTma &&
                       !s.splitsK() && !s.streamK && !clusterColumnsAtCorner &&
                       !biasStoredByElements;
  bool fullTile = kernel.accumulators >= 128 && !oneTileOfRows;
  bool readsR = p.residual && kernel.accumulators >= 64;
  if (elementwiseAtEdges(p, s, kernel) && (fullTile || readsR)) {
    bool storesC = fullTile && !kernel.c;
    const char *work = storesC                   ? "stores C element by element"
                       : fullTile && p.alphaBeta ? "reads C element by element"
                                                 : "reads R element by element";
    warnOfSpill(DirectiveKind::Tile,
                Twine("at the matrix's edges it ") + work + " while " +
                    Twine(kernel.accumulators) +
                    " accumulators per consumer thread are live" +
                    (storesC ? " ('tma c' stores through shared memory "
                               "instead)"
                             : ""));
  }
  // Persistent consumers reading a column-major f32 C element by element
  // (beta * C) beside 128 accumulators a thread, stored from registers:
  // ptxas spilled 232 bytes (the schedule fuzzer's s108_569: tf32 128x256
  // tiles of two wgmma m64n128 a row, two consumers; bf16 the same), where
  // a row-major C, C of 16 bits, no beta, tiles not persistent or one
  // wgmma across the tile (m64n256) spilled none: ptxas is asked.
  if (s.persistent && !kernel.c && p.alphaBeta &&
      p.cLayout == MatrixLayout::Col && sizeInBytes(p.c) == 4 &&
      kernel.accumulators >= 128)
    warnOfSpill(DirectiveKind::Persistent,
                "persistent consumers read a column-major f32 C element by "
                "element beside " +
                    Twine(kernel.accumulators) + " accumulators a thread");
  // Clusters spanning more columns of tiles than static sizes give the
  // matrix, C stored by TMA beside a bias or rowwise scales: ptxas spilled
  // 124-1,524 bytes beside 128 accumulators a thread, tf32 into an f32 C,
  // cooperative or ping-pong, persistent or not (the schedule fuzzer's
  // s106_643: ping-pong 64 x 256 tiles, cluster 1x2, n = 72: 356; f16 20
  // at most; none with as many columns as the cluster, clusters along M,
  // 96 accumulators, or neither vector): ptxas is asked.
  int64_t tileColumns = p.n ? llvm::divideCeil(*p.n, s.bn()) : 0;
  if (p.n && tileColumns < s.clusterN() && kernel.c &&
      kernel.accumulators >= 128 && (p.bias || p.scales == ScaleKind::Rowwise))
    warnOfSpill(DirectiveKind::Cluster,
                "its clusters span " + Twine(s.clusterN()) +
                    " columns of tiles where n = " + Twine(*p.n) + " has " +
                    Twine(tileColumns) + ", beside " +
                    Twine(kernel.accumulators) +
                    " accumulators a thread, C stored by TMA and a " +
                    (p.bias ? "bias" : "row of scales"));
  // The producer's threads copying both operands of 4 bytes in fewer
  // registers than they want, the consumers' share being full (a grid of
  // such kernels spilled up to 184 bytes at 56; the schedule fuzzer's
  // s89_1657, tf32 groups of 256x128 tiles, 100), which ptxas assembling
  // relocatable code cannot see: there every thread has 168. Of the
  // fuzzer's kernels (seeds 87-93) whose producer copied both at 56, those
  // of 4-byte elements spilled over 64 bytes in 4 of 9, of 2 bytes in 2
  // of 10, both warned of by other rules (warning those, seed 89's three
  // that did not spill broke its bound of one kernel in twenty).
  if (kernel.consumers > 1 && !kernel.a.byTma && !kernel.b.byTma &&
      kernel.elementBytes == 4 && kernel.producerRegisters > 0 &&
      kernel.producerRegisters < WarpgroupKernel::kProducerCopyRegisters)
    warnOfProducerSpill(DirectiveKind::WarpSpecialize,
                        "the producer's threads copy A and B in " +
                            Twine(kernel.producerRegisters) +
                            " registers, the consumers keeping " +
                            Twine(kernel.consumerRegisters) + " each");
  // With `tma c`, a bias per column and beta * C, stream-K's consumers
  // stage C in shared memory beside the shared tile's sums. With the
  // shared tile under a branch of its own (Warpgroup/Consumer.cpp) ptxas
  // spilled there only beside 128 values a thread: 60-436 bytes (a grid of
  // 162 stream-K schedules: tiles of 64-256 by 128-256, TMA or the
  // threads for A, every epilogue); with 96, 24 at most, and without beta
  // * C none spilled more than 20. (As a loop of one trip, 64 values had
  // spilled 408-504 bytes, the schedule fuzzer's s37_491, and 128 in 224
  // registers 124, s42_3569: none now.)
  int64_t held = kernel.liveValues();
  // Both warnings: what the consumers do beside `held` values for C's TMA
  // store.
  auto warnBesideTmaStore = [&](DirectiveKind kind, const char *work) {
    warnOfSpill(kind, Twine(work) + " beside " + Twine(held) +
                          " values a thread for the TMA store of C (without "
                          "'tma c' they store C from registers)");
  };
  if (s.streamK && kernel.c && p.bias == BiasKind::Col && p.alphaBeta &&
      held >= 128)
    warnBesideTmaStore(DirectiveKind::Persistent,
                       "stream-K's consumers add the column bias and beta * C");
  // Ping-pong consumers hold a whole tile; given 8 more registers (the
  // producer's 24, Warpgroup.cpp), they read rowwise scales, R or beta * C
  // beside 192 values a thread with 20 bytes spilled at most, but a
  // column bias into an f32 C spilled 168 (e4m3 and f16, 128 x 192 tiles;
  // into C of 16 bits 8): ptxas keeps the bias values a thread reads for
  // both halves of its tile's rows. Beside rowwise scales, which it keeps
  // so too, the bias spilled 1,104 bytes into C of 16 bits as well (e4m3
  // and bf16, 128 x 192: the shipped FP8 families' ping-pong variant with
  // torch's bias; either vector alone spills none).
  bool rowwise = p.scales == ScaleKind::Rowwise;
  if (s.pingPong && p.bias == BiasKind::Col &&
      (sizeInBytes(p.c) == 4 || rowwise) && held >= 192)
    warnOfSpill(DirectiveKind::WarpSpecialize,
                "a ping-pong consumer adds the column bias to " + Twine(held) +
                    " values a thread " +
                    (rowwise ? "beside rowwise scales (either vector alone "
                               "does not)"
                             : "in f32 (with C of 16 bits, or 'bias = row', "
                               "it does not)"));
  // Ping-pong consumers of a grouped GEMM each walk the groups (a cursor
  // of their own, and the group of the slot after their tile, whose turn
  // they pass): beside 192 values a thread ptxas spilled where a single
  // GEMM's consumers spilled none (128 x 192 tiles: bf16 92 bytes at 232
  // registers; e4m3 with rowwise scales and fast sums 456 at 240); beside
  // 128, 20 bytes at most (bf16 128 x 128); 96 beside as many sums of
  // FP8's promotion (64 x 192), none.
  if (s.pingPong && p.grouped && kernel.accumulators >= 192)
    warnOfSpill(DirectiveKind::WarpSpecialize,
                "ping-pong consumers walk the groups beside " +
                    Twine(kernel.accumulators) + " accumulators a thread");
  // Split-K's consumers sum the partial tiles beside their accumulators;
  // with `tma c` they stage C in shared memory too. ptxas spilled beside
  // 192 values a thread (one consumer: 340-464 bytes with any epilogue,
  // the schedule fuzzer's s65_740), and beside 128 in two consumers' 240
  // registers with a column bias or with an operand copied by the
  // producer's threads (64-200 bytes), or with a bias of either kind
  // into a column-major C (92-128; 36-40 without, the schedule fuzzer's
  // s51_1853); of a grid of 144 split-K schedules (tiles of 64-256 by
  // 128-256, one or two consumers, TMA or the threads for A, no epilogue,
  // beta * C or a column bias, S = 2 and ?) every other kernel with
  // `tma c` spilled 24 bytes at most. SiLU or GELU's tanh form into an f32
  // C spilled 132-156 bytes beside 128 (the schedule fuzzer's s90_352:
  // 128 x 256 tiles, either layout of C; GELU's erf form and ReLU 12 at
  // most, into C of 16 bits none). Rowwise scales, a vector along the
  // columns as a column bias is, spilled 76-124 bytes beside 128 (the
  // schedule fuzzer's s108_190: bf16 128x256 tiles, S = 64, a column-major
  // C; a row-major one 76; per-tensor scales 40).
  bool biasIntoColumns =
      p.bias == BiasKind::Col || (p.bias && p.cLayout == MatrixLayout::Col);
  bool exponentialIntoF32 = (p.activation == Activation::SiLU ||
                             p.activation == Activation::GELUTanh) &&
                            sizeInBytes(p.c) == 4;
  if (s.splitsK() && kernel.c &&
      (held >= 192 || (kernel.consumers == 2 && held >= 128 &&
                       (biasIntoColumns || p.scales == ScaleKind::Rowwise ||
                        kernel.copiesByThreads() || exponentialIntoF32))))
    warnBesideTmaStore(DirectiveKind::SplitK,
                       "split-K's consumers sum the partial tiles");
  // Without `tma c` too where A's fragments in registers take a share of
  // `held`: two consumers of tf32x3 (a k tile's fragments split into parts
  // and remainders) spilled beside 128 values a thread (128 x 64 x 64
  // tiles: 120 bytes; 128 x 8 x 128: 640) and not beside 96 (128 x 32 x
  // 64), nor at 128 without split-K.
  if (s.splitsK() && !kernel.c && kernel.fragments && kernel.consumers == 2 &&
      held >= 128)
    warnOfSpill(DirectiveKind::SplitK,
                "split-K's consumers sum the partial tiles beside " +
                    Twine(held) + " values a thread, " +
                    Twine(kernel.fragments) + " of them A's fragments");
  // Stream-K's consumers beside more than 96 accumulators a thread, where
  // the producer's threads transpose an operand in shared memory (tf32 of
  // an M- or N-major A or B): a grid of 48 tf32 stream-K schedules (A and
  // B in pieces of 2, 2 stages, every layout but K-major both, alpha-beta
  // or not, transposed or not) spilled 52-256 bytes at 128 x 216 (108
  // accumulators; the schedule fuzzer's s105_2032, 316), at most 40 at
  // 128 x 192 (96), none at 128 x 128; moving the split between producer
  // and consumers (136 + 2 x 184 to 168 + 2 x 168) left 224-256, part of
  // it the producer's, which ptxas assembling relocatable code cannot see
  // (128 x 216, A column-major and B row-major: 132 bytes, none so).
  if (s.streamK && kernel.transformsInShared() && kernel.accumulators > 96)
    warnOfProducerSpill(
        DirectiveKind::Persistent,
        "stream-K's consumers hold " + Twine(kernel.accumulators) +
            " accumulators a thread where the producer's threads "
            "transpose an operand in shared memory");
  if (arch && facts.sharedBytes > arch->sharedMemoryLimit)
    return error(DirectiveKind::Pipeline,
                 "the tiles need " + Twine(facts.sharedBytes) +
                     " bytes of shared memory (" + Twine(s.stages) +
                     " stages), more than the " + arch->name + " limit of " +
                     Twine(arch->sharedMemoryLimit) + " bytes");
  return true;
}

bool Rules::checkStreamK() {
  if (!s.streamK)
    return true;
  // The blocks' shares of K follow from the problem's tiles and the grid,
  // which a launch knows: the workspace grows with the grid.
  if (p.m || p.n || p.k)
    return error(DirectiveKind::Persistent,
                 "'persistent stream-k' shares out the tiles' K steps at "
                 "launch, for sizes given at launch: write m, n and k as ?");
  if (s.cluster)
    return notYet(DirectiveKind::Persistent,
                  "'persistent stream-k' with 'cluster'");
  return true;
}

bool Rules::checkPingPong() {
  if (!s.pingPong)
    return true;
  // The consumers take turns at the tiles a block walks, and each finds
  // its next stage by counting the other's tile's K tiles: the same for
  // every tile of the walk.
  if (s.consumers.value_or(1) != 2)
    return error(DirectiveKind::WarpSpecialize,
                 "'ping-pong' alternates the tiles between two consumer "
                 "warpgroups: write 'warp-specialize 2 ping-pong'");
  if (!s.persistent)
    return error(DirectiveKind::WarpSpecialize,
                 "'ping-pong' consumers take turns at the tiles a block "
                 "walks: it needs 'persistent'");
  if (s.streamK)
    return notYet(DirectiveKind::Persistent,
                  "'persistent stream-k' with 'ping-pong'");
  if (s.splitsK())
    return notYet(DirectiveKind::SplitK, "'split-k' with 'ping-pong'");
  // Offsets' groups share K, and their tiles fill the walk's first slots:
  // the turns go as a single GEMM's. The general form's groups differ in
  // K: each consumer finds the K of the other's tiles in the table.
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

bool Rules::checkHopperGroups(const WarpgroupKernel &kernel) {
  // The general form's groups are matrices of their own, whose tiles start
  // at multiples of BM rows as a single GEMM's. (An operand the threads
  // copy in 2-byte pieces is realigned by where its runs lie in their
  // 16-byte windows, which differs from group to group: each tile's copies
  // are finished before the next's, WarpgroupKernel::finishesCopiesEachTile.)
  if (p.groupTable)
    return true;
  // A group's tiles start at its first row, anywhere in A and C. What
  // assumes tiles at multiples of 8 rows (found by the schedule fuzzer's
  // seed 36 on an H100: wrong results or faults) is not taken yet:
  // - a column-major A, whose groups' rows lie along its columns;
  if (p.aLayout == MatrixLayout::Col)
    return notYet(Part::Kind::AType, "a column-major A with 'groups' (the "
                                     "groups' rows are A's rows)");
  // - a column-major C stored by TMA.
  if (kernel.c && !kernel.c->rowMajor)
    return notYet(DirectiveKind::Tma,
                  "'tma c' with a column-major C and 'groups'");
  return true;
}

bool Rules::checkHopperBatch(
    const WarpgroupKernel &kernel,
    llvm::ArrayRef<std::pair<Operand, int64_t>> multiples) {
  // Each matrix of a batch starts where its rows may: its tensor map's
  // batch stride is a multiple of 16 bytes, and the threads' pieces are
  // aligned; a realigned operand's runs lie alike in every matrix only
  // where the matrices start 16 bytes apart. (Strides given at launch: the
  // contract's multiples.)
  for (auto [operand, multiple] : multiples) {
    std::optional<int64_t> stride = p.batchStride(operand);
    const TmaOperand *t = operand == Operand::A   ? &kernel.a
                          : operand == Operand::B ? &kernel.b
                                                  : nullptr;
    bool realigns = t && t->realignsInShared();
    int64_t needed = realigns ? 16 / kernel.elementBytes : multiple;
    if (!stride || *stride % needed == 0)
      continue;
    const char *names[] = {"A", "B", "C"};
    return error(Part::Kind::Batch,
                 Twine("the wgmma kernel needs the batch stride of ") +
                     names[int(operand)] + " (" + Twine(*stride) +
                     ") to be a multiple of " + Twine(needed) +
                     (realigns ? " (the producer realigns its 2-byte pieces "
                                 "alike in every matrix: 16 bytes)"
                               : ", as its leading dimension"));
  }
  // Pairs of a row-major C's columns are stored at once where an even
  // leading dimension and stride keep them aligned (or element by element,
  // StoreC.cpp): no rule.
  return true;
}
