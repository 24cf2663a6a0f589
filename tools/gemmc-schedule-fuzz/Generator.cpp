//===- Generator.cpp - random schedules over the whole language ----------===//

#include "Draw.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <vector>

using namespace gemmc::fuzz;

namespace {

/// What the generator decided, as the checks will see it.
struct Plan {
  Kind kind = Kind::Simt;
  int64_t elementBytes = 4;
  bool mma = false;
  int64_t mmaK = 0;
  int64_t bm = 0, bn = 0, bk = 1, tm = 1, tn = 1, wm = 0, wn = 0;
  int64_t threads = 0;
  bool registerTile = false, warpTile = false, coalesce = false;
  bool promoteA = false, promoteB = false, transposeA = false;
  bool swizzle = false;
  int64_t pad = 0;
  bool aRow = true, bRow = true, cRow = true;
  int64_t globalLoad = 1, sharedLoad = 1, sharedStore = 1, globalStore = 1;
  /// B's global-load width where it differs (`global-load b W`), else 0.
  int64_t globalLoadB = 0;
  bool vectorize = false, vectorizeAll = false;
  int64_t stages = 0;
  bool cpAsync = false, registers = false;
  bool dynamic = false;

  /// A register tile without `promote`, which reads global memory itself
  /// (Schedule::readsGlobalInRegisterTile).
  bool readsGlobal() const {
    return registerTile && !warpTile && !mma && !promoteA && !promoteB;
  }
};
} // namespace

/// Block, warp and register tiles, and the threads they imply.
static void drawTiles(Draw &d, Plan &p) {
  if (p.mma) {
    p.wm = d.pick({16, 32, 64});
    p.wn = d.pick({8, 16, 32, 64});
    int64_t warpsM = d.pick({1, 2, 4}), warpsN = d.pick({1, 2, 4});
    p.bm = p.wm * warpsM;
    p.bn = p.wn * warpsN;
    p.threads = 32 * warpsM * warpsN;
    p.warpTile = true;
    return;
  }
  p.registerTile = d.chance(0.75);
  if (p.registerTile) {
    p.tm = d.pick({1, 2, 4, 8});
    p.tn = d.pick({1, 2, 4, 8});
  }
  p.threads = d.pick({32, 64, 128, 256, 256, 512, 1024});
  int64_t log2Threads = 0;
  while ((int64_t(1) << log2Threads) < p.threads)
    ++log2Threads;
  int64_t rows = int64_t(1) << d.uniform(0, log2Threads);
  p.bm = rows * p.tm;
  p.bn = (p.threads / rows) * p.tn;
  // A warp tile whose 32 lanes cover it exactly.
  if (p.registerTile && d.chance(0.35)) {
    int64_t laneRows = int64_t(1) << d.uniform(0, 5);
    int64_t wm = laneRows * p.tm, wn = (32 / laneRows) * p.tn;
    if (p.bm % wm == 0 && p.bn % wn == 0) {
      p.warpTile = true;
      p.wm = wm;
      p.wn = wn;
    }
  }
  p.coalesce = !p.registerTile && d.chance(0.5);
}

/// The widths of `vectorize`, mostly ones the tiles allow; B's own
/// global-load width from `side` (draws apart from the schedule's own, so
/// that a seed's other schedules stay as they were drawn before it).
static void drawVectorize(Draw &d, Draw &side, Plan &p) {
  bool promoted = p.promoteA || p.promoteB;
  p.vectorize = (p.swizzle && d.chance(0.95)) || d.chance(p.mma ? 0.8 : 0.6);
  if (!p.vectorize)
    return;
  std::vector<int64_t> widths;
  for (int64_t w : {1, 2, 4, 8})
    if (w * p.elementBytes <= 16)
      widths.push_back(w);
  if (!p.mma && d.chance(0.2)) {
    p.vectorizeAll = true;
    p.globalLoad = p.sharedLoad = p.sharedStore = p.globalStore =
        d.pick(widths);
    return;
  }
  // A register tile without `promote` reads global memory itself, at the
  // global-load width: mostly one that divides its columns (TN).
  bool readsGlobal = p.readsGlobal();
  if (readsGlobal) {
    std::vector<int64_t> fits;
    for (int64_t w : widths)
      if (p.tn % w == 0)
        fits.push_back(w);
    p.globalLoad = d.chance(0.9) ? d.pick(fits) : d.pick(widths);
  }
  if (promoted) {
    // The widest copies most of the time: cp.async and swizzle want them.
    p.globalLoad =
        d.chance(p.swizzle ? 0.95 : 0.5) ? widths.back() : d.pick(widths);
    std::vector<int64_t> narrower;
    for (int64_t w : widths)
      if (w <= p.globalLoad)
        narrower.push_back(w);
    p.sharedStore = d.chance(0.6) ? p.globalLoad : d.pick(narrower);
    // Now and then B's copies narrower than A's (a GEMV's B of one
    // column); the shared store stays within A's.
    if (p.promoteA && p.promoteB && side.chance(0.25)) {
      int64_t b = side.pick(narrower);
      if (b != p.globalLoad)
        p.globalLoadB = b;
    }
  }
  if (p.mma) {
    p.globalStore = d.pick({1, 2});
    return;
  }
  std::vector<int64_t> loads;
  for (int64_t w : widths)
    if (p.tm % w == 0 && p.tn % w == 0)
      loads.push_back(w);
  if (promoted)
    p.sharedLoad = d.pick(loads);
  std::vector<int64_t> stores;
  int64_t run = p.cRow ? p.tn : p.tm;
  int64_t chunk = readsGlobal ? p.globalLoad : p.sharedLoad;
  for (int64_t w : widths)
    if (run % w == 0 && w <= chunk)
      stores.push_back(w);
  p.globalStore = d.pick(stores);
}

/// BK: a multiple of the mma K, and mostly one that lets the tiles' copies
/// split evenly over the threads.
static void drawBK(Draw &d, Plan &p) {
  std::vector<int64_t> candidates;
  if (p.mma) {
    for (int64_t f : {1, 2, 4})
      candidates.push_back(p.mmaK * f);
  } else {
    candidates = {1, 2, 4, 8, 16, 32};
  }
  auto fits = [&](int64_t bk) {
    int64_t g = p.globalLoad, gb = p.globalLoadB ? p.globalLoadB : g;
    if (p.promoteA && ((p.aRow ? bk : p.bm) % g || (p.bm * bk / g) % p.threads))
      return false;
    if (p.promoteB &&
        ((p.bRow ? p.bn : bk) % gb || (bk * p.bn / gb) % p.threads))
      return false;
    return true;
  };
  std::vector<int64_t> good;
  for (int64_t bk : candidates)
    if (fits(bk))
      good.push_back(bk);
  p.bk = !good.empty() && d.chance(0.9) ? d.pick(good) : d.pick(candidates);
}

/// A static size along a dimension tiled by `tile`: whole tiles, or any
/// size (tails), mostly a multiple of 8 so that vector widths divide the
/// leading dimensions.
static int64_t drawSize(Draw &d, int64_t tile, int64_t maxSize) {
  if (d.chance(0.4) && tile <= maxSize)
    return tile * d.uniform(1, std::max<int64_t>(1, maxSize / tile));
  int64_t size = d.uniform(1, maxSize);
  if (d.chance(0.5))
    size = (size + 7) / 8 * 8;
  return size;
}

/// A stream seeded from `rng`'s state (which it leaves as it is) and `tag`.
static std::mt19937_64 sideStream(const std::mt19937_64 &rng, uint64_t tag) {
  std::mt19937_64 copy = rng;
  std::seed_seq seed{copy(), copy(), tag};
  return std::mt19937_64(seed);
}

std::string gemmc::fuzz::generateSchedule(std::mt19937_64 &rng,
                                          const std::string &name,
                                          const GeneratorOptions &options) {
  // Each later addition draws from a stream of its own, seeded from the
  // generator's state before this schedule's draws and its tag, so that
  // what earlier seeds drew stays.
  std::mt19937_64 sideRng = sideStream(rng, 0x5eed),
                  deepRng = sideStream(rng, 0xdee9),
                  batchRng = sideStream(rng, 0xba7c),
                  extraRng = sideStream(rng, 0xf8f8),
                  groupsRng = sideStream(rng, 0x6e0c),
                  epilogueRng = sideStream(rng, 0x7e51),
                  registersRng = sideStream(rng, 0x8e95),
                  tableRng = sideStream(rng, 0x7ab1),
                  pingPongRng = sideStream(rng, 0x9090),
                  slicesRng = sideStream(rng, 0x511c),
                  amaxRng = sideStream(rng, 0xa3a8);
  Draw d(rng), side(sideRng), deepSide(deepRng), batchSide(batchRng),
      extra(extraRng), groupsSide(groupsRng), epilogueSide(epilogueRng),
      registersSide(registersRng), slices(slicesRng), tableSide(tableRng),
      pingPongSide(pingPongRng), amaxSide(amaxRng);
  if (options.hopper && (d.chance(0.2) || options.hopperOnly))
    return generateHopper(d,
                          {side, deepSide, batchSide, extra, groupsSide,
                           epilogueSide, registersSide, tableSide, pingPongSide,
                           amaxSide},
                          name, options);
  Plan p;
  p.kind = d.pick({Kind::Simt, Kind::Simt, Kind::F16, Kind::BF16, Kind::TF32});
  p.mma = p.kind != Kind::Simt;
  p.elementBytes = p.kind == Kind::F16 || p.kind == Kind::BF16 ? 2 : 4;
  p.mmaK = p.kind == Kind::TF32 ? 8 : 16;

  drawTiles(d, p);

  // Staging in shared memory: mma needs A and B there.
  if (p.mma) {
    p.promoteA = p.promoteB = d.chance(0.97);
  } else if (d.chance(0.65)) {
    int which = int(d.uniform(0, 3));
    p.promoteA = which != 1;
    p.promoteB = which != 2;
  }
  bool promoted = p.promoteA || p.promoteB;
  // Now and then a register tile that reads global memory of fewer threads
  // than a warp (a tile of 32 or 64 shrunk), whose slices (`slice-k`, then
  // always drawn) share warps: from the slices' stream.
  if (p.readsGlobal() && p.threads <= 64 && slices.chance(0.25)) {
    int64_t f = slices.pick({2, 4, 8, 16, 32});
    int64_t rows = p.bm / p.tm, cols = p.bn / p.tn;
    if (f < p.threads && (cols % f == 0 || rows % f == 0)) {
      if (cols % f == 0)
        p.bn /= f;
      else
        p.bm /= f;
      p.threads /= f;
    }
  }
  if (promoted) {
    p.transposeA = !p.mma && p.promoteA && d.chance(0.3);
    p.swizzle = p.mma && d.chance(0.35);
    if (!p.swizzle && d.chance(0.35))
      p.pad = d.pick({1, 2, 4, 8, 8, 16});
    if (d.chance(0.55)) {
      p.stages = d.pick({1, 2, 2, 3, 4});
      p.cpAsync = p.stages >= 2 && !p.transposeA && d.chance(0.6);
      p.registers = p.mma ? p.cpAsync && d.chance(0.5) : d.chance(0.05);
      // One stage is a pipeline only through registers.
      if (p.stages == 1 && !p.registers && d.chance(0.9))
        p.stages = 2;
    }
  }

  // Layouts: cp.async and swizzle copy row-major A and B.
  double rowMajor = p.cpAsync || p.swizzle ? 0.9 : 0.65;
  p.aRow = d.chance(rowMajor);
  p.bRow = d.chance(rowMajor);
  p.cRow = d.chance(0.65);

  drawVectorize(d, side, p);
  if (promoted || p.mma)
    drawBK(d, p);

  // The problem.
  std::string problem;
  auto statement = [&](const std::string &text) {
    problem += "    " + text + "\n";
  };
  p.dynamic = d.chance(0.35);
  bool dynamicDims[3] = {false, false, false};
  if (p.dynamic) {
    for (bool &dyn : dynamicDims)
      dyn = d.chance(0.7);
    if (!dynamicDims[0] && !dynamicDims[1] && !dynamicDims[2])
      dynamicDims[d.uniform(0, 2)] = true;
  }
  int64_t tiles[3] = {p.bm, p.bn, p.bk};
  int64_t sizes[3];
  const char *dims[3] = {"m", "n", "k"};
  for (int i = 0; i < 3; ++i) {
    sizes[i] = drawSize(d, tiles[i], options.maxSize);
    statement(std::string(dims[i]) + " = " +
              (dynamicDims[i] ? "?" : std::to_string(sizes[i])));
  }
  std::string element = elementName(p.kind);
  std::string cElement = p.mma && p.kind != Kind::TF32 && d.chance(0.5)
                             ? std::string("f32")
                             : element;
  auto layout = [](bool row) { return row ? " row" : " col"; };
  statement("a = " + element + layout(p.aRow));
  statement("b = " + element + layout(p.bRow));
  statement("c = " + cElement + layout(p.cRow));
  if (d.chance(0.1))
    statement("accumulate = f32");
  // tf32x3 from the side stream: a seed's other draws stay as they were.
  if (p.kind == Kind::TF32)
    statement(side.chance(0.3) ? "math = tf32x3" : "math = tf32");
  else if (d.chance(0.05))
    statement("math = exact");
  if (d.chance(0.5))
    statement("epilogue = alpha-beta");
  else if (d.chance(0.1))
    statement("epilogue = store");
  if (d.chance(0.4))
    statement(std::string("bias = ") + (d.chance(0.5) ? "row" : "col"));
  // The activation's kind from a stream of its own (ReLU, as earlier seeds
  // drew, half the time).
  if (d.chance(0.3))
    statement(std::string("activation = ") +
              (d.chance(0.85) ? drawActivation(extra) : "none"));
  // R and the scales from a stream of their own: a fifth of the kernels
  // add R, a sixth take scales.
  if (epilogueSide.chance(0.2))
    statement("residual = add");
  if (epilogueSide.chance(0.15))
    statement(std::string("scales = ") +
              (epilogueSide.chance(0.5) ? "tensor" : "rowwise"));
  if (d.chance(0.25)) {
    if (p.dynamic && d.chance(0.6)) {
      statement("batch = ?");
    } else {
      std::string batch = "batch = " + std::to_string(d.uniform(1, 3));
      if (!p.dynamic && d.chance(0.4)) {
        // Strides at least the matrices, padded by multiples of 8.
        // One draw a statement: the order of a call's operands is
        // unspecified, and the schedules must not depend on the compiler.
        int64_t m = sizes[0], n = sizes[1], k = sizes[2];
        int64_t strideA = m * k + 8 * d.uniform(0, 4);
        int64_t strideB = k * n + 8 * d.uniform(0, 4);
        int64_t strideC = m * n + 8 * d.uniform(0, 4);
        batch += " strides " + std::to_string(strideA) + " " +
                 std::to_string(strideB) + " " + std::to_string(strideC);
      }
      statement(batch);
    }
  }

  // The schedule.
  std::string schedule;
  auto directive = [&](const std::string &text) {
    schedule += "    " + text + "\n";
  };
  auto shape = [](std::initializer_list<int64_t> dims) {
    std::string text;
    for (int64_t dim : dims)
      text += (text.empty() ? "" : "x") + std::to_string(dim);
    return text;
  };
  directive("tile " + (promoted || p.mma ? shape({p.bm, p.bn, p.bk})
                                         : shape({p.bm, p.bn})));
  if (p.coalesce)
    directive("coalesce");
  if (p.registerTile)
    directive("register-tile " + shape({p.tm, p.tn}));
  if (p.warpTile)
    directive("warp-tile " + shape({p.wm, p.wn}));
  if (p.mma)
    directive(p.kind == Kind::TF32 ? "mma m16n8k8" : "mma m16n8k16");
  if (promoted) {
    std::string text = "promote";
    if (p.promoteA)
      text += " a";
    if (p.promoteB)
      text += " b";
    if (p.pad)
      text += " pad " + std::to_string(p.pad);
    if (p.swizzle)
      text += " swizzle";
    if (p.transposeA)
      text += " transpose-a";
    directive(text);
  }
  if (p.vectorize) {
    if (p.vectorizeAll) {
      directive("vectorize " + std::to_string(p.globalLoad));
    } else {
      std::string text = "vectorize";
      if (p.globalLoadB)
        text += " global-load b " + std::to_string(p.globalLoadB);
      const std::pair<const char *, int64_t> items[] = {
          {p.globalLoadB ? "global-load a" : "global-load", p.globalLoad},
          {"shared-load", p.sharedLoad},
          {"shared-store", p.sharedStore},
          {"global-store", p.globalStore}};
      for (auto [item, width] : items)
        if (width != 1 || d.chance(0.1))
          text += std::string(" ") + item + " " + std::to_string(width);
      if (text == "vectorize")
        text = "vectorize 1";
      directive(text);
    }
  }
  if (p.stages) {
    std::string text = "pipeline stages " + std::to_string(p.stages);
    if (p.registers)
      text += " registers";
    if (p.cpAsync)
      text += " cp-async";
    directive(text);
  }
  if (d.chance(0.3))
    directive("raster " + std::to_string(d.pick({1, 2, 4, 8})));
  if (p.readsGlobal() && d.chance(0.5)) {
    // Its loop over K unrolled by a factor (`unroll full` is refused).
    directive(d.chance(0.05) ? std::string("unroll full")
                             : "unroll " + std::to_string(d.pick({2, 3, 4, 8})));
  } else if (d.chance(0.3)) {
    int64_t steps = p.mma ? p.bk / p.mmaK : p.bk;
    std::vector<int64_t> divisors;
    for (int64_t f = 1; f <= steps; ++f)
      if (steps % f == 0)
        divisors.push_back(f);
    directive(d.chance(0.3) ? std::string("unroll full")
                            : "unroll " + std::to_string(d.pick(divisors)));
  }
  if (d.chance(0.25))
    directive(std::string("edges ") + (d.chance(0.6) ? "split" : "guard"));
  // Split-K: with a static K, mostly counts that split it into multiples
  // of BK (the rule; other counts are refused, and drawn now and then).
  if (d.chance(0.15)) {
    std::vector<std::string> counts;
    for (int64_t count : {2, 3, 4, 8, 16})
      if (dynamicDims[2] || sizes[2] % (count * p.bk) == 0 || d.chance(0.1))
        counts.push_back(std::to_string(count));
    // Chosen at launch: for a K given at launch (refused otherwise).
    if (dynamicDims[2] || d.chance(0.1))
      counts.push_back("?");
    if (!counts.empty())
      directive("split-k " + d.pick(counts));
  }
  // A tenth transposed (C^T = B^T * A^T), from the side stream.
  if (side.chance(0.1))
    directive("transpose");
  // The loop over K of a register tile from global memory split among
  // slices of the block, from a stream of its own; now and then a schedule
  // that cannot take slices, which must be refused.
  if (p.threads < 32)
    directive("slice-k " + std::to_string(32 / p.threads *
                                          slices.pick({1, 2, 4, 8})));
  else if ((p.readsGlobal() && slices.chance(0.4)) || slices.chance(0.01))
    directive("slice-k " + std::to_string(slices.pick({2, 4, 8, 16, 32})));
  // The register cap of 1, 2 or 3 blocks a multiprocessor, from the same
  // stream (more threads than a multiprocessor holds must be refused).
  if (slices.chance(0.1))
    directive("blocks-per-sm " + std::to_string(slices.pick({1, 2, 3})));

  return "kernel " + name + " {\n  problem {\n" + problem +
         "  }\n  schedule {\n" + schedule + "  }\n}\n";
}

/// Every other variant's cost constants (the rule of choice's input, which
/// changes which variant runs a problem, not what one computes), derived
/// from its directives by FNV-1a rather than drawn: the random stream, and
/// so every schedule after it, stays as it was.
static std::string costOf(const std::string &directives) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : directives)
    h = (h ^ c) * 0x100000001b3ull;
  if (h % 2)
    return "";
  std::string text = " cost";
  const char *names[] = {"fixed", "latency", "compute", "memory", "reduce"};
  for (const char *name : names) {
    h = (h ^ 0x9e3779b97f4a7c15ull) * 0x100000001b3ull;
    char value[32];
    std::snprintf(value, sizeof(value), " %s %u.%03u", name,
                  unsigned(h >> 40) % 20, unsigned(h >> 20) % 1000);
    text += value;
  }
  return text;
}

std::string
gemmc::fuzz::composeFamily(std::mt19937_64 &rng, const std::string &name,
                           const std::vector<std::string> &schedules) {
  Draw d(rng);
  auto between = [](const std::string &text, const std::string &from,
                    const std::string &to) {
    size_t begin = text.find(from) + from.size();
    return text.substr(begin, text.find(to, begin) - begin);
  };
  const std::string problemOpen = "  problem {\n",
                    scheduleOpen = "  schedule {\n";
  std::string family = "kernel " + name + " {\n" + problemOpen +
                       between(schedules.front(), problemOpen, "  }\n") +
                       "  }\n";
  auto variant = [&](const std::string &variantName, const std::string &when,
                     const std::string &directives) {
    family += "  variant " + variantName + when + " {\n" + directives + "  }\n";
  };
  // A grouped GEMM's variants may bound the rows a group too; its general
  // form's (`ptr-array`, each group its own sizes), the rows a group alone.
  bool grouped = family.find("groups = ?") != std::string::npos;
  bool ptrArray = family.find("ptr-array") != std::string::npos;
  for (size_t i = 0; i < schedules.size(); ++i) {
    std::string when;
    for (const char *dim : {"m", "n", "k", "group-rows"}) {
      bool rows = std::string(dim) == "group-rows";
      if ((!grouped && rows) || (ptrArray && !rows))
        continue;
      if (!d.chance(0.5))
        continue;
      // One draw per statement: the same text from every host compiler.
      bool atMost = d.chance(0.5);
      int64_t bound = d.pick<int64_t>({16, 64, 100, 256, 1000});
      when += (when.empty() ? " when " : ", ") + std::string(dim) +
              (atMost ? " <= " : " >= ") + std::to_string(bound);
    }
    std::string directives = between(schedules[i], scheduleOpen, "  }\n}");
    variant("v" + std::to_string(i), when + costOf(directives), directives);
  }
  // The fallback: the first's directives without `vectorize`, unless it
  // copies in pieces that need vectors (TMA, cp.async, the swizzle); then
  // a plain schedule of the problem's kind. A grouped GEMM's kernels are
  // wgmma's, which read A and B at their multiples: its first schedule
  // whole.
  std::string directives = between(schedules.front(), scheduleOpen, "  }\n}");
  if (grouped) {
    variant("any", "", directives);
    return family + "}\n";
  }
  std::string scalar;
  auto has = [&](const char *word) {
    return directives.find(word) != std::string::npos;
  };
  if (has("wgmma") || has("tma") || has("cp-async") || has("swizzle")) {
    const std::string &problem = family;
    if (problem.find("= f16") != std::string::npos ||
        problem.find("= bf16") != std::string::npos)
      scalar = "    tile 64x64x16\n    warp-tile 32x32\n    mma m16n8k16\n"
               "    promote a b pad 8\n";
    else if (problem.find("math = tf32") != std::string::npos)
      scalar = "    tile 64x64x16\n    warp-tile 32x32\n    mma m16n8k8\n"
               "    promote a b pad 4\n";
    else
      scalar = "    tile 64x64x16\n    register-tile 4x4\n    promote a b\n";
  } else {
    for (size_t at = 0; at < directives.size();) {
      size_t end = directives.find('\n', at);
      std::string line = directives.substr(at, end + 1 - at);
      if (line.rfind("    vectorize", 0) != 0)
        scalar += line;
      at = end + 1;
    }
  }
  variant("any", "", scalar);
  return family + "}\n";
}
