//===- Sema.cpp - checks on a schedule before any IR is built ------------===//
//
// Every schedule that cannot work is rejected here, before MLIR, with the
// directive named and pointed at. docs/dsl.md lists the rules.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Frontend/Sema.h"
#include "gemmc/Schedule/Registers.h"
#include "llvm/ADT/StringSwitch.h"

using namespace gemmc;
using llvm::SMLoc;
using llvm::SourceMgr;
using llvm::StringRef;
using llvm::Twine;

std::optional<int64_t> gemmc::getSharedMemoryLimit(StringRef arch) {
  return llvm::StringSwitch<std::optional<int64_t>>(arch)
      .Cases({"sm_90", "sm_90a"}, 227 * 1024)
      .Case("sm_80", 163 * 1024)
      .Cases({"sm_86", "sm_89"}, 99 * 1024)
      .Default(std::nullopt);
}

/// Products and sums of sizes saturate instead of overflowing: sizes reach
/// 2^31 - 1, and the checks only compare the results with limits.
static int64_t satMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

namespace {
/// The schedule with defaults filled in, as the checks see it.
struct Config {
  int64_t bm = 1, bn = 1, bk = 1;
  int64_t tm = 1, tn = 1;
  int64_t wm = 0, wn = 0;
  ElementType a = ElementType::F32, b = ElementType::F32,
              c = ElementType::F32;
  MatrixLayout aLayout = MatrixLayout::Row, bLayout = MatrixLayout::Row,
               cLayout = MatrixLayout::Row;
  std::optional<int64_t> m, n, k;
  const Directive *tile = nullptr, *coalesce = nullptr, *promote = nullptr,
                  *registerTile = nullptr, *warpTile = nullptr,
                  *vectorize = nullptr, *mma = nullptr, *pipeline = nullptr,
                  *raster = nullptr, *splitK = nullptr, *unroll = nullptr;
  int64_t stages = 1;
};

class Checker {
public:
  Checker(const KernelDecl &kernel, SourceMgr &sourceMgr, StringRef arch)
      : kernel(kernel), sourceMgr(sourceMgr), arch(arch) {}

  std::optional<ScheduleFacts> run();

private:
  bool error(SMLoc loc, const Twine &message) {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, message);
    return false;
  }
  bool error(const Directive *d, const Twine &message) {
    return error(d->loc, message);
  }
  void warning(SMLoc loc, const Twine &message) {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Warning, message);
  }
  void note(SMLoc loc, const Twine &message) {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Note, message);
  }
  bool conflict(const Directive *d, const Directive *other,
                const Twine &why) {
    error(d, "'" + stringify(d->kind) + "' cannot be combined with '" +
                 stringify(other->kind) + "': " + why);
    note(other->loc, "'" + stringify(other->kind) + "' is given here");
    return false;
  }

  bool collect();
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
  void warnOfSpills(const Directive *at, int64_t acc, int64_t fragments);

  const KernelDecl &kernel;
  SourceMgr &sourceMgr;
  StringRef arch;
  Config cfg;
  ScheduleFacts facts;
};
} // namespace

bool Checker::collect() {
  const ProblemDecl &p = *kernel.problem;
  cfg.m = p.m->value;
  cfg.n = p.n->value;
  cfg.k = p.k->value;
  if (p.a) {
    cfg.a = p.a->type;
    cfg.aLayout = p.a->layout;
  }
  if (p.b) {
    cfg.b = p.b->type;
    cfg.bLayout = p.b->layout;
  }
  if (p.c) {
    cfg.c = p.c->type;
    cfg.cLayout = p.c->layout;
  }

  const ScheduleDecl &s = *kernel.schedule;
  cfg.tile = s.find(DirectiveKind::Tile);
  cfg.coalesce = s.find(DirectiveKind::Coalesce);
  cfg.promote = s.find(DirectiveKind::Promote);
  cfg.registerTile = s.find(DirectiveKind::RegisterTile);
  cfg.warpTile = s.find(DirectiveKind::WarpTile);
  cfg.vectorize = s.find(DirectiveKind::Vectorize);
  cfg.mma = s.find(DirectiveKind::Mma);
  cfg.pipeline = s.find(DirectiveKind::Pipeline);
  cfg.raster = s.find(DirectiveKind::Raster);
  cfg.splitK = s.find(DirectiveKind::SplitK);
  cfg.unroll = s.find(DirectiveKind::Unroll);
  if (!cfg.tile)
    return error(s.loc, "schedule has no 'tile' directive");
  cfg.bm = cfg.tile->shape[0];
  cfg.bn = cfg.tile->shape[1];
  if (cfg.tile->shape.size() == 3)
    cfg.bk = cfg.tile->shape[2];
  if (cfg.registerTile) {
    cfg.tm = cfg.registerTile->shape[0];
    cfg.tn = cfg.registerTile->shape[1];
  }
  if (cfg.warpTile) {
    cfg.wm = cfg.warpTile->shape[0];
    cfg.wn = cfg.warpTile->shape[1];
  }
  if (cfg.pipeline)
    cfg.stages = cfg.pipeline->stages;
  return true;
}

bool Checker::checkProblem() {
  const ProblemDecl &p = *kernel.problem;
  const std::pair<const std::optional<SizeDecl> *, const char *> sizes[] = {
      {&p.m, "m"}, {&p.n, "n"}, {&p.k, "k"}};
  for (auto [size, name] : sizes)
    if (!*size)
      return error(p.loc,
                   Twine("problem does not give the size '") + name + "'");
  if (p.acc && p.acc->type != ElementType::F32)
    return error(p.acc->loc,
                 "the accumulator must be f32, got " + stringify(p.acc->type));
  if (p.batch && p.batch->strides) {
    const auto &strides = *p.batch->strides;
    const std::optional<int64_t> dims[3][2] = {
        {p.m->value, p.k->value}, {p.k->value, p.n->value},
        {p.m->value, p.n->value}};
    const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; ++i) {
      if (!dims[i][0] || !dims[i][1])
        continue;
      int64_t size = satMul(*dims[i][0], *dims[i][1]);
      if (strides[i] < size)
        return error(p.batch->loc,
                     Twine("the batch stride of ") + names[i] + " (" +
                         Twine(strides[i]) + ") is smaller than " + names[i] +
                         " (" + Twine(size) +
                         " elements): consecutive matrices would overlap");
    }
  }
  return true;
}

bool Checker::checkTypes() {
  const ProblemDecl &p = *kernel.problem;
  if (cfg.a != cfg.b)
    return error(p.b ? p.b->typeLoc : p.loc,
                 "A and B must have the same element type, got " +
                     stringify(cfg.a) + " and " + stringify(cfg.b));
  bool tf32 = p.math && p.math->mode == MathMode::TF32;
  if (tf32 && cfg.a != ElementType::F32)
    return error(p.math->loc, "math = tf32 needs f32 inputs, got " +
                                  stringify(cfg.a));
  if (tf32 && !cfg.mma)
    return error(p.math->loc, "math = tf32 runs on tensor cores: add the "
                              "directive 'mma m16n8k8'");
  if (!cfg.mma)
    return true;

  int64_t mmaK = cfg.mma->shape[2];
  if (mmaK == 16 && cfg.a == ElementType::F32)
    return error(cfg.mma, "mma m16n8k16 takes f16 or bf16 inputs, got f32 "
                          "(f32 inputs use m16n8k8 with math = tf32)");
  if (mmaK == 8 && cfg.a != ElementType::F32)
    return error(cfg.mma, "mma m16n8k8 is the tf32 shape: it takes f32 "
                          "inputs, got " +
                              stringify(cfg.a) + " (use m16n8k16)");
  if (mmaK == 8 && !tf32)
    return error(cfg.mma, "mma m16n8k8 computes in tf32: opt in with "
                          "'math = tf32' in the problem");
  return true;
}

bool Checker::checkThreads() {
  const Directive *at = cfg.tile;
  if (cfg.mma) {
    if (cfg.registerTile)
      return conflict(cfg.registerTile, cfg.mma,
                      "an mma warp tile is made of mma fragments, not of "
                      "per-thread register tiles");
    if (cfg.coalesce)
      return conflict(cfg.coalesce, cfg.mma,
                      "mma fixes which lane owns which element");
    if (!cfg.warpTile)
      return error(cfg.mma, "'mma' needs a 'warp-tile' (WMxWN per warp)");
    int64_t fm = cfg.mma->shape[0], fn = cfg.mma->shape[1];
    if (cfg.wm % fm || cfg.wn % fn)
      return error(cfg.warpTile,
                   "warp tile " + Twine(cfg.wm) + "x" + Twine(cfg.wn) +
                       " is not a multiple of the mma shape " + Twine(fm) +
                       "x" + Twine(fn));
    if (cfg.bk % cfg.mma->shape[2])
      return error(cfg.tile, "BK = " + Twine(cfg.bk) +
                                 " is not a multiple of the mma K = " +
                                 Twine(cfg.mma->shape[2]));
  }
  if (cfg.bm % cfg.tm || cfg.bn % cfg.tn)
    return error(cfg.registerTile,
                 "block tile " + Twine(cfg.bm) + "x" + Twine(cfg.bn) +
                     " is not a multiple of the register tile " +
                     Twine(cfg.tm) + "x" + Twine(cfg.tn));
  if (cfg.warpTile) {
    if (cfg.bm % cfg.wm || cfg.bn % cfg.wn)
      return error(cfg.warpTile,
                   "block tile " + Twine(cfg.bm) + "x" + Twine(cfg.bn) +
                       " is not a multiple of the warp tile " + Twine(cfg.wm) +
                       "x" + Twine(cfg.wn));
    if (!cfg.mma) {
      if (cfg.wm % cfg.tm || cfg.wn % cfg.tn)
        return error(cfg.warpTile,
                     "warp tile " + Twine(cfg.wm) + "x" + Twine(cfg.wn) +
                         " is not a multiple of the register tile " +
                         Twine(cfg.tm) + "x" + Twine(cfg.tn));
      int64_t lanes = (cfg.wm / cfg.tm) * (cfg.wn / cfg.tn);
      if (lanes != 32)
        return error(cfg.warpTile,
                     "warp tile " + Twine(cfg.wm) + "x" + Twine(cfg.wn) +
                         " with register tile " + Twine(cfg.tm) + "x" +
                         Twine(cfg.tn) + " gives " + Twine(lanes) +
                         " threads per warp, not 32");
    }
  }

  int64_t threads;
  if (cfg.mma) {
    threads = satMul(32, satMul(cfg.bm / cfg.wm, cfg.bn / cfg.wn));
    at = cfg.warpTile;
  } else {
    threads = satMul(cfg.bm / cfg.tm, cfg.bn / cfg.tn);
    if (cfg.registerTile)
      at = cfg.registerTile;
  }
  facts.threadsPerBlock = threads;
  auto describe = [&]() -> std::string {
    std::string text = "tile " + std::to_string(cfg.bm) + "x" +
                       std::to_string(cfg.bn);
    if (cfg.mma)
      text += " with warp tile " + std::to_string(cfg.wm) + "x" +
              std::to_string(cfg.wn);
    else if (cfg.registerTile)
      text += " with register tile " + std::to_string(cfg.tm) + "x" +
              std::to_string(cfg.tn);
    return text;
  };
  if (threads > 1024)
    return error(at, describe() + " needs " + Twine(threads) +
                         " threads per block, more than the limit of 1024");
  if (threads % 32)
    return error(at, describe() + " needs " + Twine(threads) +
                         " threads per block, not a multiple of the warp "
                         "size 32");
  return true;
}

bool Checker::checkPromoteAndPipeline() {
  if (cfg.tile->shape.size() == 3 && cfg.bk != 1 && !cfg.promote &&
      !cfg.mma)
    return error(cfg.tile, "a K step (BK = " + Twine(cfg.bk) +
                               ") only applies with 'promote'; write 'tile " +
                               Twine(cfg.bm) + "x" + Twine(cfg.bn) + "'");
  if (cfg.promote) {
    const Directive *p = cfg.promote;
    if (cfg.tile->shape.size() != 3)
      return error(cfg.tile, "'promote' needs the K step of the tile: write "
                             "'tile " +
                                 Twine(cfg.bm) + "x" + Twine(cfg.bn) +
                                 "xBK'");
    if (p->pad && p->swizzle)
      return error(p, "'pad' and 'swizzle' are two answers to bank "
                      "conflicts: choose one");
    if (p->transposeA && !p->promoteA)
      return error(p, "'transpose-a' needs A in shared memory: promote 'a'");
    if (p->pad > 32)
      return error(p, "a padding of " + Twine(p->pad) +
                          " elements is more than one row of banks (32)");
    if (p->swizzle && !cfg.mma)
      return error(p, "'swizzle' lays shared memory out for ldmatrix and "
                      "needs 'mma'; SIMT schedules use 'pad'");
  }
  if (!cfg.pipeline)
    return true;
  const Directive *pl = cfg.pipeline;
  if (!cfg.promote)
    return error(pl, "'pipeline' needs 'promote': its stages are "
                     "shared-memory buffers");
  if (pl->stages > 8)
    return error(pl, "at most 8 pipeline stages, got " + Twine(pl->stages));
  if (pl->cpAsync && pl->stages < 2)
    return error(pl, "'cp-async' overlaps copies with compute and needs at "
                     "least 2 stages");
  if (pl->cpAsync && cfg.promote->transposeA)
    return conflict(pl, cfg.promote,
                    "cp.async copies global memory to shared memory as is "
                    "and cannot transpose A");
  if (pl->registerDoubleBuffer && !cfg.registerTile && !cfg.mma)
    return error(pl, "'registers' double-buffers register tiles: add "
                     "'register-tile' or 'mma'");
  if (pl->stages == 1 && !pl->registerDoubleBuffer)
    return error(pl, "a pipeline of 1 stage without 'registers' does "
                     "nothing: use 2 or more stages");
  return true;
}

/// The dimension of each operand's block tile along which memory is
/// contiguous, and the leading dimension of the whole matrix.
static int64_t contiguousTileExtent(MatrixLayout layout, int64_t rows,
                                    int64_t cols) {
  return layout == MatrixLayout::Row ? cols : rows;
}

bool Checker::checkVectorize() {
  if (!cfg.vectorize)
    return true;
  const Directive *v = cfg.vectorize;
  const std::pair<int64_t, const char *> widths[] = {
      {v->globalLoad, "global-load"},
      {v->sharedLoad, "shared-load"},
      {v->sharedStore, "shared-store"},
      {v->globalStore, "global-store"}};
  for (auto [width, name] : widths)
    if (width != 1 && width != 2 && width != 4 && width != 8)
      return error(v, Twine(name) + " width must be 1, 2, 4 or 8, got " +
                          Twine(width));
  auto tooWide = [&](int64_t width, ElementType type, const char *name) {
    if (width * sizeInBytes(type) <= 16)
      return false;
    error(v, Twine(name) + " width " + Twine(width) + " of " +
                 stringify(type) + " is " +
                 Twine(width * sizeInBytes(type)) +
                 " bytes, more than the widest (16-byte) access");
    return true;
  };
  if (tooWide(v->globalLoad, cfg.a, "global-load") ||
      tooWide(v->sharedLoad, cfg.a, "shared-load") ||
      tooWide(v->sharedStore, cfg.a, "shared-store") ||
      tooWide(v->globalStore, cfg.c, "global-store"))
    return false;

  bool sharedWidths =
      v->globalLoad != 1 || v->sharedLoad != 1 || v->sharedStore != 1;
  if (sharedWidths && !cfg.promote)
    return error(v, "global-load, shared-load and shared-store widths apply "
                    "to tiles staged in shared memory: add 'promote'");
  if (v->sharedStore > v->globalLoad)
    return error(v, "shared-store width " + Twine(v->sharedStore) +
                        " is wider than the global-load width " +
                        Twine(v->globalLoad) + " that feeds it");
  if (v->sharedLoad != 1 && cfg.mma)
    return error(v, "mma fragments are read with ldmatrix: leave "
                    "shared-load at 1");
  if (v->sharedLoad != 1 && (cfg.tm % v->sharedLoad || cfg.tn % v->sharedLoad))
    return error(v, "shared-load width " + Twine(v->sharedLoad) +
                        " must divide the register tile " + Twine(cfg.tm) +
                        "x" + Twine(cfg.tn));

  if (v->globalStore != 1) {
    int64_t run = cfg.cLayout == MatrixLayout::Row ? cfg.tn : cfg.tm;
    if (!cfg.mma && run % v->globalStore)
      return error(v, "global-store width " + Twine(v->globalStore) +
                          " must divide each thread's contiguous run of C (" +
                          Twine(run) + "): set the register tile");
    // A thread's columns of C come in chunks of the shared-load width (its
    // fragments of B); stores are at most that wide.
    if (!cfg.mma && v->globalStore > v->sharedLoad)
      return error(v, "global-store width " + Twine(v->globalStore) +
                          " is wider than the chunks of C a thread owns (the "
                          "shared-load width, " +
                          Twine(v->sharedLoad) + ")");
    std::optional<int64_t> leading =
        cfg.cLayout == MatrixLayout::Row ? cfg.n : cfg.m;
    if (leading && *leading % v->globalStore)
      return error(v, "global-store width " + Twine(v->globalStore) +
                          " needs the leading dimension of C (" +
                          Twine(*leading) +
                          ") to be a multiple of it, for aligned stores");
  }
  return true;
}

bool Checker::checkCooperativeLoads() {
  // Each promoted tile, cut into global-load-wide pieces along its
  // contiguous side, must split evenly over the block's threads.
  if (!cfg.promote)
    return true;
  int64_t width = cfg.vectorize ? cfg.vectorize->globalLoad : 1;
  const Directive *at = cfg.vectorize ? cfg.vectorize : cfg.promote;
  struct Operand {
    bool promoted;
    const char *name;
    int64_t rows, cols;
    MatrixLayout layout;
    std::optional<int64_t> leading;
  };
  const Operand operands[] = {
      {cfg.promote->promoteA, "A", cfg.bm, cfg.bk, cfg.aLayout,
       cfg.aLayout == MatrixLayout::Row ? cfg.k : cfg.m},
      {cfg.promote->promoteB, "B", cfg.bk, cfg.bn, cfg.bLayout,
       cfg.bLayout == MatrixLayout::Row ? cfg.n : cfg.k}};
  for (const Operand &o : operands) {
    if (!o.promoted)
      continue;
    int64_t extent = contiguousTileExtent(o.layout, o.rows, o.cols);
    if (extent % width)
      return error(at, Twine("global-load width ") + Twine(width) +
                           " does not divide the contiguous side (" +
                           Twine(extent) + ") of the " + o.name + " tile " +
                           Twine(o.rows) + "x" + Twine(o.cols));
    if (o.leading && *o.leading % width)
      return error(at, Twine("global-load width ") + Twine(width) +
                           " needs the leading dimension of " + o.name +
                           " (" + Twine(*o.leading) +
                           ") to be a multiple of it, for aligned loads");
    int64_t loads = satMul(o.rows, o.cols) / width;
    if (loads % facts.threadsPerBlock)
      return error(at, Twine("the ") + o.name + " tile " + Twine(o.rows) +
                           "x" + Twine(o.cols) + " in " + Twine(width) +
                           "-wide loads (" + Twine(loads) +
                           ") does not split evenly over " +
                           Twine(facts.threadsPerBlock) + " threads");
  }
  return true;
}

bool Checker::checkSizes() {
  if (cfg.raster && cfg.raster->count < 1)
    return error(cfg.raster, "raster group size must be positive");
  if (cfg.splitK && cfg.splitK->count < 2)
    return error(cfg.splitK, "split-k needs at least 2 splits, got " +
                                 Twine(cfg.splitK->count));
  if (cfg.unroll && cfg.unroll->count > 0) {
    int64_t steps = cfg.mma ? cfg.bk / cfg.mma->shape[2] : cfg.bk;
    if (steps % cfg.unroll->count)
      return error(cfg.unroll, "unroll factor " + Twine(cfg.unroll->count) +
                                   " does not divide the number of steps (" +
                                   Twine(steps) +
                                   ") of the inner loop over BK");
  }

  if (cfg.splitK && cfg.k && *cfg.k % satMul(cfg.splitK->count, cfg.bk))
    return error(cfg.splitK, "K = " + Twine(*cfg.k) + " does not split into " +
                                 Twine(cfg.splitK->count) +
                                 " parts that are multiples of BK = " +
                                 Twine(cfg.bk));
  return true;
}

bool Checker::checkSharedMemory() {
  if (!cfg.promote)
    return true;
  const Directive *p = cfg.promote;
  int64_t perStage = 0;
  if (p->promoteA) {
    int64_t rows = p->transposeA ? cfg.bk : cfg.bm;
    int64_t cols = (p->transposeA ? cfg.bm : cfg.bk) + p->pad;
    perStage = satMul(satMul(rows, cols), sizeInBytes(cfg.a));
  }
  if (p->promoteB)
    perStage = satAdd(perStage, satMul(satMul(cfg.bk, cfg.bn + p->pad),
                                       sizeInBytes(cfg.b)));
  facts.sharedBytes = satMul(perStage, cfg.stages);
  std::optional<int64_t> limit = getSharedMemoryLimit(arch);
  if (limit && facts.sharedBytes > *limit)
    return error(cfg.pipeline ? cfg.pipeline : p,
                 "the schedule needs " + Twine(facts.sharedBytes) +
                     " bytes of shared memory per block (" +
                     Twine(perStage) + " per stage x " + Twine(cfg.stages) +
                     " stages), more than the " + arch + " limit of " +
                     Twine(*limit) + " bytes");
  return true;
}

/// Every access to a shared-memory row must be aligned to its width: a
/// vector of N bytes needs an N-byte-aligned address (ldmatrix 16 bytes per
/// row), so each row of a staged tile, padding included, must be a multiple
/// of the widest access to it. Without this, `pad 4` on f16 tiles makes rows
/// 8-byte aligned and ldmatrix faults with a misaligned address.
bool Checker::checkSharedRows() {
  if (!cfg.promote)
    return true;
  const Directive *p = cfg.promote;
  const Directive *v = cfg.vectorize;
  int64_t bytes = sizeInBytes(cfg.a);
  struct Operand {
    bool promoted;
    const char *name;
    int64_t cols; ///< elements of a shared-memory row, before padding
    bool ldmatrix;
  };
  bool tf32 = cfg.a == ElementType::F32;
  const Operand operands[] = {
      {p->promoteA, "A", p->transposeA ? cfg.bm : cfg.bk, cfg.mma != nullptr},
      // tf32 B fragments are read with 32-bit loads (ldmatrix transposes
      // only 16-bit elements).
      {p->promoteB, "B", cfg.bn, cfg.mma != nullptr && !tf32}};
  for (const Operand &o : operands) {
    if (!o.promoted)
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
    if (o.ldmatrix)
      require(16, "ldmatrix reads per row");
    if (cfg.pipeline && cfg.pipeline->cpAsync)
      require((v ? v->globalLoad : 1) * bytes, "a cp.async copy writes");
    if (v) {
      require(v->sharedStore * bytes,
              "a shared-store of " + Twine(v->sharedStore) + " writes");
      require(v->sharedLoad * bytes,
              "a shared-load of " + Twine(v->sharedLoad) + " reads");
    }
    int64_t rowBytes = satMul(o.cols + p->pad, bytes);
    if (need <= bytes || rowBytes % need == 0)
      continue;
    error(p, Twine("shared-memory rows of the ") + o.name + " tile are " +
                 Twine(rowBytes) + " bytes (" + Twine(o.cols) + " + pad " +
                 Twine(p->pad) + " " + stringify(cfg.a) +
                 " elements), not a multiple of the " + Twine(need) +
                 " bytes " + what + ": the accesses would be misaligned");
    if (o.cols * bytes % need == 0)
      note(p->loc, "a pad that is a multiple of " + Twine(need / bytes) +
                       " elements keeps the rows aligned");
    return false;
  }
  return true;
}

bool Checker::checkRegisters() {
  int64_t acc, fragments;
  const Directive *at;
  bool doubleBuffer = cfg.pipeline && cfg.pipeline->registerDoubleBuffer;
  if (cfg.mma) {
    // f32 accumulators of the warp tile spread over 32 lanes; A fragments of
    // 16xK and B fragments of Kx8 in 32-bit registers.
    acc = satMul(cfg.wm, cfg.wn) / 32;
    int64_t mmaK = cfg.mma->shape[2];
    int64_t perReg = 4 / sizeInBytes(cfg.a);
    fragments = satAdd(satMul(cfg.wm, mmaK), satMul(cfg.wn, mmaK)) /
                (32 * perReg);
    at = cfg.warpTile;
  } else {
    acc = satMul(cfg.tm, cfg.tn);
    fragments = satAdd(cfg.tm, cfg.tn);
    at = cfg.registerTile ? cfg.registerTile : cfg.tile;
  }
  if (doubleBuffer)
    fragments = satMul(fragments, 2);
  // Staging registers: a pipeline through registers holds the next tiles
  // while the current ones are computed.
  int64_t staging = 0;
  if (cfg.promote && cfg.pipeline && !cfg.pipeline->cpAsync) {
    int64_t elements = 0;
    if (cfg.promote->promoteA)
      elements = satMul(satMul(cfg.bm, cfg.bk), sizeInBytes(cfg.a));
    if (cfg.promote->promoteB)
      elements = satAdd(elements,
                        satMul(satMul(cfg.bk, cfg.bn), sizeInBytes(cfg.b)));
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
/// (registerCap, the nvvm.maxnreg gemm-tile-blocks sets): ptxas then spills
/// to local memory. Besides the accumulators and fragments, a thread holds
/// the pieces of a tile copy in flight: the values loaded before they are
/// stored (an element a register where a piece is scattered across the
/// shared tile's rows), a predicate a piece where copies are guarded, plus
/// two addresses a piece where a pipeline through registers keeps its S - 1
/// tiles ahead across the compute (cp.async holds no values, a 64-bit
/// address a piece), half as much again where `edges split` lowers each
/// copy twice; what an unrolled loop reads ahead; and
/// the epilogue's reads of C and the bias. ptxas's allocation is not this
/// arithmetic, so the warning comes within an eighth of the cap (a quarter
/// before sm_90). Checked on
/// the schedule fuzzer's kernels (docs/fuzzing.md): a kernel that ptxas
/// makes spill more than 64 bytes has been warned of.
void Checker::warnOfSpills(const Directive *at, int64_t acc,
                           int64_t fragments) {
  bool cpAsync = cfg.pipeline && cfg.pipeline->cpAsync;
  bool throughRegisters = cfg.pipeline && !cpAsync && cfg.stages >= 2;
  const Directive *edges = kernel.schedule->find(DirectiveKind::Edges);
  bool edgesSplit = edges && edges->splitEdges;
  // Per operand: its pieces per thread, each loaded into words of 32 bits,
  // or into one register an element where the piece is stored across the
  // shared tile's rows (a column-major operand, or A transposed).
  int64_t width = cfg.vectorize ? cfg.vectorize->globalLoad : 1;
  // Copies guarded by the matrix bounds (tails, sizes given at launch) hold
  // a predicate or clamped address a piece more.
  bool guarded = !cfg.m || !cfg.n || !cfg.k || *cfg.m % cfg.bm ||
                 *cfg.n % cfg.bn || *cfg.k % cfg.bk;
  int64_t copies = 0;
  auto copy = [&](bool promoted, int64_t elements, bool acrossRows) {
    if (!promoted)
      return;
    int64_t pieces = elements / width / facts.threadsPerBlock;
    if (cpAsync) { // a 64-bit source address a piece, no values
      copies = satAdd(copies, satMul(pieces, 2));
      return;
    }
    int64_t words =
        acrossRows ? width
                   : std::max<int64_t>(1, width * sizeInBytes(cfg.a) / 4);
    int64_t perPiece =
        words + (throughRegisters ? 2 : 0) + (guarded ? 1 : 0);
    // A pipeline of S stages through registers holds S - 1 tiles ahead.
    if (throughRegisters)
      perPiece = satMul(perPiece, cfg.stages - 1);
    copies = satAdd(copies, satMul(pieces, perPiece));
  };
  const Directive *pr = cfg.promote;
  copy(pr && pr->promoteA, satMul(cfg.bm, cfg.bk),
       (cfg.aLayout == MatrixLayout::Col) != (pr && pr->transposeA));
  copy(pr && pr->promoteB, satMul(cfg.bk, cfg.bn),
       cfg.bLayout == MatrixLayout::Col);
  if (edgesSplit)
    copies = satAdd(copies, copies / 2);
  // An unrolled loop over BK lets ptxas read ahead: half as many fragments
  // again, and where an operand is read from global memory in the loop (it
  // is not promoted), a value and an address for each unrolled step.
  int64_t steps = cfg.mma ? cfg.bk / cfg.mma->shape[2] : cfg.bk;
  int64_t unrolled = 1;
  if (cfg.unroll)
    unrolled = cfg.unroll->count > 0 ? cfg.unroll->count : steps;
  if (unrolled > 1)
    fragments = satAdd(fragments, fragments / 2);
  if (!cfg.promote || !cfg.promote->promoteA)
    copies = satAdd(copies, satMul(unrolled, 2 * cfg.tm));
  if (!cfg.promote || !cfg.promote->promoteB)
    copies = satAdd(copies, satMul(unrolled, 2 * cfg.tn));
  // tf32 reads B's fragments with two 32-bit loads each, an address each.
  if (cfg.mma && cfg.a == ElementType::F32)
    fragments = satAdd(fragments, cfg.wn / 4);
  // The epilogue with beta reads a row of the thread's C (a row of mma
  // fragments: WN / 8 pairs of each of 2 rows, or TN values) into registers
  // beside the accumulators, with alpha and beta.
  const ProblemDecl &p = *kernel.problem;
  int64_t epilogue = 0;
  if (p.epilogue && p.epilogue->kind == Epilogue::AlphaBeta)
    epilogue = (cfg.mma ? cfg.wn / 2 : cfg.tn) + 2;
  // A bias along the row: WN / 4 values (mma), or TN.
  if (p.bias)
    epilogue = satAdd(epilogue, cfg.mma ? cfg.wn / 4 : cfg.tn);
  int64_t pressure =
      satAdd(satAdd(satAdd(acc, fragments), satAdd(copies, epilogue)),
             kAddressingRegisters);
  int64_t tiles = tileRegisters(cfg.mma != nullptr, cfg.tm, cfg.tn, cfg.wm,
                                cfg.wn);
  int64_t cap = registerCap(facts.threadsPerBlock, tiles);
  facts.registerPressure = pressure;
  facts.registerCap = cap;
  // ptxas for sm_80 (and the other Ampere targets) has spilled kernels
  // that it fits in their cap for sm_90: a wider margin there.
  bool hopper = arch.starts_with("sm_90");
  if (pressure <= cap - cap / (hopper ? 8 : 4))
    return;
  warning(at->loc, "the kernel may spill registers to local memory: it "
                   "needs about " +
                       Twine(pressure) + " per thread (" + Twine(acc) +
                       " accumulators, " + Twine(fragments) +
                       " for fragments, " + Twine(copies) +
                       " for tile copies in flight, " + Twine(epilogue) +
                       " for the epilogue, " + Twine(kAddressingRegisters) +
                       " for addressing), close to or over the " + Twine(cap) +
                       " a block of " + Twine(facts.threadsPerBlock) +
                       " threads gets (ptxas -v tells)");
}

std::optional<ScheduleFacts> Checker::run() {
  if (!kernel.problem) {
    error(kernel.loc, "kernel '" + kernel.name + "' has no 'problem' section");
    return std::nullopt;
  }
  if (!kernel.schedule) {
    error(kernel.loc,
          "kernel '" + kernel.name + "' has no 'schedule' section");
    return std::nullopt;
  }
  if (!checkProblem() || !collect() || !checkTypes() || !checkThreads() ||
      !checkPromoteAndPipeline() || !checkVectorize() ||
      !checkCooperativeLoads() || !checkSizes() ||
      !checkSharedMemory() || !checkSharedRows() || !checkRegisters())
    return std::nullopt;
  return facts;
}

std::optional<ScheduleFacts> gemmc::checkSchedule(const KernelDecl &kernel,
                                                  SourceMgr &sourceMgr,
                                                  StringRef arch) {
  return Checker(kernel, sourceMgr, arch).run();
}
