//===- HopperSchedule.cpp - random warpgroup schedules (sm_90a) -----------===//

#include "Draw.h"

using namespace gemmc::fuzz;

/// A schedule for Hopper's warpgroup kernel (sm_90a): wgmma, tma (of C
/// too), warp-specialize, a pipeline, persistent (stream-k), raster,
/// clusters and split-K, over the types, layouts, sizes (static or `?`),
/// epilogues and batches. Mostly within the rules; sometimes not, so that
/// the refusals are exercised too. `side` draws which operands the
/// producer's threads copy instead of TMA, and in what pieces, and
/// `batchSide` the batch (streams of their own, so that the rest of each
/// schedule is what earlier seeds drew), `fp8` a fifth of them with
/// e4m3 and e5m2 operands (their scales, fast accumulation), and `groups`
/// a fifth of the others grouped GEMMs (A row-major, A copied by TMA or in
/// pieces of 4 bytes or more, a column-major C by the threads: mostly),
/// and `registers` a third of tf32's with wgmma's A from registers (A
/// column-major then, or B row-major under `transpose`: mostly).
std::string gemmc::fuzz::generateHopper(Draw &d, SideDraws sides,
                                        const std::string &name,
                                        const GeneratorOptions &options) {
  Draw &side = sides.side, &deepSide = sides.deep, &batchSide = sides.batch;
  Draw &fp8Side = sides.extra, &groupSide = sides.groups;
  Kind kind = d.pick({Kind::F16, Kind::BF16, Kind::TF32});
  // FP8: K-major operands (a few not, to be refused), mostly copied by TMA,
  // k32 wgmma on 128-byte rows of K; by default each k tile's sums are
  // added in f32, which doubles the consumers' values (tiles of 192
  // columns at most, mostly), and a third accumulate fast.
  bool fp8 = fp8Side.chance(0.2);
  const char *fp8Types[2] = {fp8Side.pick({"e4m3", "e4m3", "e5m2"}),
                             fp8Side.pick({"e4m3", "e5m2"})};
  bool fastAccumulate = fp8 && fp8Side.chance(0.3);
  int64_t bytes = fp8 ? 1 : kind == Kind::TF32 ? 4 : 2;
  int64_t consumers = d.chance(0.95) ? d.pick({1, 2, 2}) : 3;
  int64_t n =
      d.chance(0.8) ? d.pick({64, 128, 128, 256}) : 8 * d.uniform(1, 32);
  int64_t bn = n * d.pick({1, 1, 2});
  int64_t bm = 64 * consumers * d.pick({1, 1, 2});
  // A fifth of two consumers take turns at whole tiles (`ping-pong`), of
  // 64 or 128 rows each, mostly (from a stream of their own, as below).
  Draw &pingPongSide = sides.pingPong;
  bool pingPong = consumers == 2 && pingPongSide.chance(0.2);
  if (pingPong && pingPongSide.chance(0.9))
    bm = 64 * pingPongSide.pick({1, 2, 2});
  int64_t bk = 128 / bytes * d.pick({1, 1, 2});
  // Now and then a deep K step (BK of 256 bytes or 512), as the tuner's
  // decode tiles take, and a deep pipeline (below), mostly on a tile 8 to
  // 32 wide, where many stages fit (from a stream of their own: the other
  // draws, the side stream's too, are what earlier seeds drew).
  if (deepSide.chance(0.1))
    bk *= 2;
  bool deep = deepSide.chance(0.25);
  if (deep && deepSide.chance(0.7)) {
    n = 8 * deepSide.pick({1, 2, 4});
    bn = n;
  }
  bool aRow = kind == Kind::TF32 ? d.chance(0.97) : d.chance(0.75);
  bool bRow = kind == Kind::TF32 ? d.chance(0.03) : d.chance(0.6);
  if (fp8) {
    aRow = fp8Side.chance(0.97);
    bRow = fp8Side.chance(0.03);
    if (!fastAccumulate && bn > 192 && fp8Side.chance(0.9)) {
      n = std::min<int64_t>(n, 192);
      bn = n;
    }
  }
  // f32 copied by the producer's threads (the side stream): with tf32x3,
  // which splits every element as it is copied, or M- or N-major operands
  // the threads transpose for tf32 wgmma.
  bool f32Threads = kind == Kind::TF32 && side.chance(0.4) && !fp8;
  bool x3 = f32Threads && side.chance(0.6);
  if (f32Threads) {
    aRow = side.chance(0.7);
    bRow = side.chance(0.6);
  }
  // wgmma's A from registers (`registers`): a third of tf32's schedules,
  // half of them transposed with B row-major (x @ W, as the tuner's `_wfr`
  // and `_wxr` candidates: wgmma's A is B^T), the others with A
  // column-major, M-major as it takes it (a few not, and a few with other
  // types, to be refused); half of tf32x3's, whose A then goes by TMA half
  // the time (the consumers split its fragments). It changes those
  // problems; the other streams' draws stay as earlier seeds drew them.
  Draw &registersSide = sides.registers;
  bool registers =
      registersSide.chance(kind == Kind::TF32 && !fp8 ? 0.3 : 0.01);
  if (registers && x3)
    registers = registersSide.chance(0.5);
  bool splitInRegisters = registers && x3 && registersSide.chance(0.5);
  bool registersTransposed = false;
  if (registers && kind == Kind::TF32 && !fp8) {
    registersTransposed = registersSide.chance(0.5);
    if (registersTransposed)
      bRow = registersSide.chance(0.95);
    else
      aRow = registersSide.chance(0.05);
  }
  // tf32x3's sums double the consumers' accumulators: tiles of 128 columns
  // at most, mostly.
  if (x3 && bn > 128 && side.chance(0.9)) {
    n = std::min<int64_t>(n, 128);
    bn = n;
  }
  bool cRow = d.chance(0.75);
  std::string problem;
  auto statement = [&](const std::string &text) {
    problem += "    " + text + "\n";
  };
  bool dynamic = d.chance(0.5);
  const char *dims[3] = {"m", "n", "k"};
  int64_t sizes[3];
  for (int i = 0; i < 3; ++i) {
    // Static sizes mostly keep rows at 16-byte multiples for TMA.
    int64_t size = d.uniform(1, options.maxSize);
    if (d.chance(0.85))
      size = (size + 7) / 8 * 8;
    sizes[i] = size;
    statement(std::string(dims[i]) + " = " +
              (dynamic ? std::string("?") : std::to_string(size)));
  }
  // A quarter batched (from a stream of their own): `batch = ?` with
  // sizes given at launch, else 1 to 3 matrices, now and then strides past
  // the matrices by multiples of 8 elements (a few by 4, which TMA's
  // 16-byte rows refuse for 2-byte elements).
  bool batched = batchSide.chance(0.25);
  if (batched) {
    if (dynamic) {
      statement("batch = ?");
    } else {
      std::string batch = "batch = " + std::to_string(batchSide.uniform(1, 3));
      if (batchSide.chance(0.4)) {
        int64_t step = batchSide.chance(0.9) ? 8 : 4;
        // One draw a statement: the order of a call's operands is
        // unspecified, and the schedules must not depend on the compiler.
        int64_t padA = step * batchSide.uniform(0, 4);
        int64_t padB = step * batchSide.uniform(0, 4);
        int64_t padC = step * batchSide.uniform(0, 4);
        batch += " strides " + std::to_string(sizes[0] * sizes[2] + padA) +
                 " " + std::to_string(sizes[2] * sizes[1] + padB) + " " +
                 std::to_string(sizes[0] * sizes[1] + padC);
      }
      statement(batch);
    }
  }
  // A fifth of the others grouped (from a stream of their own): `groups =
  // ?` with sizes given at launch, else 1 to 4 groups; mostly without what
  // groups do not take yet (below), now and then with it, to be refused.
  bool grouped = !batched && groupSide.chance(0.2);
  // Two in five grouped kernels of sizes given at launch take the general
  // form (`ptr-array`, a stream of its own).
  Draw &tableSide = sides.table;
  bool ptrArray = grouped && dynamic && tableSide.chance(0.4);
  if (grouped)
    statement(ptrArray ? "groups = ? ptr-array"
              : dynamic || groupSide.chance(0.05)
                  ? "groups = ?"
                  : "groups = " + std::to_string(groupSide.uniform(1, 4)));
  auto keep = [&](bool drawn) {
    return drawn && (!grouped || groupSide.chance(0.05));
  };
  // A grouped kernel's groups are A's rows, starting at any row: A
  // row-major, mostly (Rules::checkHopperGroups).
  if (grouped && !aRow)
    aRow = groupSide.chance(0.05);
  std::string element = elementName(kind);
  std::string cElement =
      kind != Kind::TF32 && d.chance(0.3) ? std::string("f32") : element;
  auto layout = [](bool row) { return row ? " row" : " col"; };
  std::string aElement = fp8 ? fp8Types[0] : element;
  std::string bElement = fp8 ? fp8Types[1] : element;
  if (fp8)
    cElement = fp8Side.pick({"bf16", "bf16", "f16", "f32"});
  // An FP8 C (saturated; the epilogue's stream): nothing then reads C's
  // type (beta, a bias, R), whose draws are still made and dropped.
  bool fp8Out = fp8 && sides.epilogue.chance(0.25);
  if (fp8Out)
    cElement = sides.epilogue.pick({"e4m3", "e4m3", "e5m2"});
  statement("a = " + aElement + layout(aRow));
  statement("b = " + bElement + layout(bRow));
  statement("c = " + cElement + layout(cRow));
  if (fp8 && fp8Side.chance(0.7)) {
    // Block scales take a k tile one block (128) deep and promoted sums:
    // now and then not, to be refused.
    std::string scales = fp8Side.pick({"tensor", "rowwise", "block"});
    if (scales == "block" && fastAccumulate && fp8Side.chance(0.9))
      scales = "rowwise";
    if (scales == "block" && fp8Side.chance(0.95))
      bk = 128;
    statement("scales = " + scales);
  }
  if (fastAccumulate)
    statement("math = fast-accumulate");
  if (kind == Kind::TF32 && d.chance(0.97) && !fp8)
    statement(x3 ? "math = tf32x3" : "math = tf32");
  if (d.chance(0.4) && !fp8Out)
    statement("epilogue = alpha-beta");
  if (keep(d.chance(0.3))) {
    std::string bias = d.chance(0.5) ? "row" : "col";
    if (!fp8Out)
      statement("bias = " + bias);
  }
  if (d.chance(0.25))
    statement(std::string("activation = ") + drawActivation(fp8Side));
  if (sides.epilogue.chance(0.2) && !fp8Out)
    statement("residual = add");
  // The amax of C, a tenth of the kernels (not grouped ones).
  if (sides.amax.chance(0.1) && !grouped)
    statement("amax = c");
  // C's scale, half of the FP8 Cs (the amax's stream, drawn after it).
  if (fp8Out && sides.amax.chance(0.5) && !grouped)
    statement("output-scale = tensor");
  // Scales of 16- and 32-bit inputs, applied in the epilogue (a grouped
  // problem's B's a group).
  if (!fp8 && sides.epilogue.chance(0.15))
    statement(std::string("scales = ") +
              (sides.epilogue.chance(0.5) ? "tensor" : "rowwise"));

  std::string schedule;
  auto directive = [&](const std::string &text) {
    schedule += "    " + text + "\n";
  };
  directive("tile " + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
            std::to_string(bk));
  directive("wgmma m64n" + std::to_string(n) + "k" +
            std::to_string(fp8 ? 32 : kind == Kind::TF32 ? 8 : 16));
  // Where `registers` goes, once `transpose` is drawn (below).
  size_t wgmmaEnd = schedule.size() - 1;
  bool tma = d.chance(0.98);
  bool tmaC = tma && d.chance(0.4);
  // A grouped kernel's A by TMA or in pieces of 4 bytes or more (2-byte
  // pieces, refused until 2026-12-02, in 5%), and a column-major C by the
  // threads, mostly (Rules::checkHopperGroups).
  if (grouped && !tma)
    tma = !groupSide.chance(0.05);
  if (grouped && tmaC && !cRow)
    tmaC = groupSide.chance(0.05);
  // The general form: C by the consumers, A and B by TMA (each group's
  // maps made on the device) in half, by the threads in the rest; now and
  // then `tma c`, or one operand by TMA, to be refused.
  bool tableKeepsRules = ptrArray && tableSide.chance(0.95);
  if (tableKeepsRules) {
    tmaC = false;
    tma = tma && tableSide.chance(0.5);
  }
  // A third of the schedules copy A, B or both with the producer's threads,
  // in pieces of 1 to 8 elements (cp.async from 4 bytes on; 2-byte pieces
  // through registers); a few ask for pieces TMA copies or of 32 bytes.
  bool tmaA = tma, tmaB = tma;
  std::string widths;
  if (tma && !tableKeepsRules && side.chance(0.35)) {
    int which = side.pick({0, 1, 2});
    tmaA = which == 1;
    tmaB = which == 0;
    for (auto [byTma, name] :
         {std::pair<bool, const char *>{tmaA, "a"}, {tmaB, "b"}}) {
      int64_t width = side.pick({1, 2, 4, 8, 8});
      if (byTma && side.chance(0.97))
        continue;
      if (width * bytes > 16 && side.chance(0.9))
        width = 16 / bytes;
      if (grouped && !byTma && *name == 'a' && width * bytes < 4 &&
          !groupSide.chance(0.05))
        width = 4 / bytes;
      widths +=
          std::string(" global-load ") + name + " " + std::to_string(width);
    }
  }
  if (f32Threads) {
    // The operands tf32x3 splits, or that lie M- or N-major, are left to
    // the threads (a few stay with TMA, to be refused), in pieces of 1, 2
    // or 4 elements.
    widths.clear();
    auto leave = [&](bool &byTma, bool needsThreads, const char *name) {
      if (needsThreads)
        byTma = side.chance(0.03);
      if (!byTma)
        widths += std::string(" global-load ") + name + " " +
                  std::to_string(side.pick({1, 2, 4, 4}));
    };
    leave(tmaA, !splitInRegisters && (x3 || !aRow), "a");
    leave(tmaB, x3 || bRow, "b");
  }
  // FP8 is copied by TMA (a few schedules leave an operand to the
  // threads, to be refused).
  if (fp8 && tma && fp8Side.chance(0.97)) {
    tmaA = tmaB = true;
    widths.clear();
  }
  if (tmaA || tmaB || tmaC)
    directive(std::string("tma") + (tmaA ? " a" : "") + (tmaB ? " b" : "") +
              (tmaC ? " c" : ""));
  if (!widths.empty())
    directive("vectorize" + widths);
  int64_t stages = d.pick({1, 2, 3, 4, 4, 5, 6});
  // Deep pipelines: mostly as many stages as shared memory holds past the
  // 6 above, up to the rule's 32; a few that it refuses (past 32, or past
  // shared memory).
  if (deep) {
    int64_t stageBytes = (bm + bn) * bk * bytes;
    int64_t fit = std::min<int64_t>(32, 200 * 1024 / stageBytes);
    stages = fit > 6 && deepSide.chance(0.9) ? deepSide.uniform(7, fit)
                                             : deepSide.pick({8, 16, 33});
  }
  if (stages > 1)
    directive("pipeline stages " + std::to_string(stages));
  if (d.chance(0.98))
    directive("warp-specialize " + std::to_string(consumers) +
              (pingPong ? " ping-pong" : ""));
  // A persistent grid, a third of them stream-K (refused with static sizes
  // and in a cluster).
  bool persistent = d.chance(0.5);
  // A grouped kernel's blocks walk every group's tiles: persistent, mostly.
  if (grouped)
    persistent = groupSide.chance(0.95);
  // Ping-pong walks a persistent grid's tiles (a few not, to be refused).
  if (pingPong && !persistent)
    persistent = pingPongSide.chance(0.9);
  if (persistent) {
    bool streamK = keep(d.chance(0.35));
    if (pingPong && streamK)
      streamK = pingPongSide.chance(0.05);
    directive(streamK ? "persistent stream-k" : "persistent");
  }
  if (d.chance(0.4))
    directive("raster " + std::to_string(d.pick({1, 2, 4, 8})));
  // Clusters need a persistent grid (mostly given) and sizes of powers of
  // two up to 8 blocks (a few are not).
  if (keep(d.chance(persistent ? 0.4 : 0.03)))
    directive("cluster " +
              std::string(d.pick({"2x1", "2x1", "1x2", "2x2", "4x1", "1x4",
                                  "4x2", "1x1", "3x1"})));
  // Split-K: on a grid of tiles (a persistent one is refused), counts from
  // 2 to 64, or chosen at launch (`?`, refused with a static K); a static
  // K that is no multiple of S x BK is refused.
  if (d.chance(persistent ? 0.03 : 0.3))
    directive("split-k " +
              std::string(d.pick({"2", "3", "4", "8", "16", "64", "?"})));
  // A fifth transposed (C^T = B^T * A^T), from the side stream: the draws
  // above stay as earlier seeds drew them.
  bool transposed = keep(side.chance(0.2));
  transposed = transposed || registersTransposed;
  if (transposed)
    directive("transpose");
  // Transposed, wgmma's A is B^T: M-major where B is row-major.
  if (registers && transposed && !bRow)
    registers = registersSide.chance(0.05);
  if (registers)
    schedule.insert(wgmmaEnd, " registers");
  return "kernel " + name + " {\n  problem {\n" + problem +
         "  }\n  schedule {\n" + schedule + "  }\n}\n";
}
