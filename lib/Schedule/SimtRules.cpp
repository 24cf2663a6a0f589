//===- SimtRules.cpp - SIMT and mma.sync kernels -------------------------===//
//
// The rules of the SIMT and mma.sync kernels: threads, promotion and
// pipelines, vector widths, cooperative copies, sizes, shared memory.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

using namespace gemmc;
using namespace gemmc::rules;

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
  if (s.sliceK)
    text += " in " + std::to_string(s.slices()) + " slices";
  if (threads > kMaxThreadsPerBlock)
    return error(threadsPart(),
                 text + " needs " + Twine(threads) +
                     " threads per block, more than the limit of 1024");
  if (threads % kWarpSize)
    return error(threadsPart(), text + " needs " + Twine(threads) +
                                    " threads per block, not a multiple of "
                                    "the warp size 32");
  if (s.blocksPerSM && *s.blocksPerSM * threads > kMaxThreadsPerSM)
    return error(DirectiveKind::BlocksPerSM,
                 Twine(*s.blocksPerSM) + " blocks of " + Twine(threads) +
                     " threads are more than the " + Twine(kMaxThreadsPerSM) +
                     " threads a multiprocessor holds");
  return true;
}

bool Rules::checkSliceK() {
  if (!s.sliceK)
    return true;
  if (*s.sliceK < 2)
    return error(DirectiveKind::SliceK,
                 "slice-k needs at least 2 slices, got " + Twine(*s.sliceK));
  // The slices split a loop over K that each thread steps itself.
  if (s.hasMma())
    return conflict(DirectiveKind::SliceK, DirectiveKind::Mma,
                    "slices split a register tile's own loop over K");
  if (s.warpTile)
    return conflict(DirectiveKind::SliceK, DirectiveKind::WarpTile,
                    "slices split a register tile's own loop over K, where "
                    "the block's threads are its register tiles");
  if (!s.registerTile)
    return error(DirectiveKind::SliceK,
                 "'slice-k' splits a register tile's loop over K: add "
                 "'register-tile'");
  if (s.hasPromotion())
    return conflict(DirectiveKind::SliceK, DirectiveKind::Promote,
                    "slices split the loop over K of a register tile that "
                    "reads global memory itself, not a block's staged "
                    "tiles");
  // A slice is whole warps, or a part of one warp that its other slices
  // fill: a warp's slices add their sums up by shuffles.
  int64_t perSlice = s.threadsPerSlice();
  std::string tile = "tile " + std::to_string(s.bm()) + "x" +
                     std::to_string(s.bn()) + " with register tile " +
                     std::to_string(s.tm()) + "x" + std::to_string(s.tn());
  if (perSlice % kWarpSize && kWarpSize % perSlice)
    return error(DirectiveKind::SliceK,
                 tile + " has " + Twine(perSlice) +
                     " threads per slice, neither a multiple of the warp "
                     "size 32 nor a divisor of it");
  if (s.slicesPerWarp() > 1) {
    if (*s.sliceK % s.slicesPerWarp())
      return error(DirectiveKind::SliceK,
                   tile + " has " + Twine(perSlice) +
                       " threads per slice, so slices fill whole warps in "
                       "multiples of " +
                       Twine(s.slicesPerWarp()) + ", got " + Twine(*s.sliceK));
    // Slice 0 alone goes on after the sums, part of a warp: split-K's
    // participants meet at a barrier that counts whole warps.
    if (s.splitsK())
      return notYet(DirectiveKind::SplitK,
                    "'split-k' with slices of fewer than 32 threads (" + tile +
                        ")");
  }
  SharedMemory shared = getSharedMemory(s, p.a, p.b);
  facts.sharedBytes = shared.totalBytes();
  if (facts.sharedBytes > kStaticSharedMemoryLimit)
    return error(DirectiveKind::SliceK,
                 Twine(s.sliceSums() - 1) + " slices' sums of the " +
                     Twine(s.bm()) + "x" + Twine(s.bn()) + " tile take " +
                     Twine(facts.sharedBytes) +
                     " bytes of shared memory, more than the static limit "
                     "of " +
                     Twine(kStaticSharedMemoryLimit));
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

  // A register tile without `promote` reads global memory itself, its
  // fragments at the global-load width.
  bool readsGlobal = s.readsGlobalInRegisterTile() && !perOperand;
  if (readsGlobal && (sharedLoad != 1 || sharedStore != 1))
    return error(DirectiveKind::Vectorize,
                 "shared-load and shared-store widths apply to tiles "
                 "staged in shared memory: add 'promote'");
  bool sharedWidths =
      loadA != 1 || loadB != 1 || sharedLoad != 1 || sharedStore != 1;
  if (sharedWidths && !s.hasPromotion() && !readsGlobal)
    return error(DirectiveKind::Vectorize,
                 "global-load, shared-load and shared-store widths apply "
                 "to tiles staged in shared memory: add 'promote'");
  if (readsGlobal && !checkRegisterLoads(loadA))
    return false;
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
    // A thread's columns of C come in chunks of the width it reads its
    // fragments of B in; stores are at most that wide.
    int64_t chunk = s.registerLoadWidth();
    if (!s.hasMma() && globalStore > chunk)
      return error(DirectiveKind::Vectorize,
                   "global-store width " + Twine(globalStore) +
                       " is wider than the chunks of C a thread owns (the " +
                       (readsGlobal ? "global-load" : "shared-load") +
                       " width, " + Twine(chunk) + ")");
    std::optional<int64_t> leading = p.leadingDimension(Operand::C);
    if (leading && *leading % globalStore)
      return error(DirectiveKind::Vectorize,
                   "global-store width " + Twine(globalStore) +
                       " needs the leading dimension of C (" + Twine(*leading) +
                       ") to be a multiple of it, for aligned stores");
    std::optional<int64_t> stride = p.batchStride(Operand::C);
    if (stride && *stride % globalStore)
      return error(Part::Kind::Batch,
                   "global-store width " + Twine(globalStore) +
                       " needs the batch stride of C (" + Twine(*stride) +
                       ") to be a multiple of it, for aligned stores");
  }
  return true;
}

bool Rules::checkLoadAlignment(Operand operand, const char *name,
                               int64_t width, DirectiveKind at) {
  std::optional<int64_t> leading = p.leadingDimension(operand);
  if (leading && *leading % width)
    return error(at, "global-load width " + Twine(width) +
                         " needs the leading dimension of " + name + " (" +
                         Twine(*leading) +
                         ") to be a multiple of it, for aligned loads");
  std::optional<int64_t> stride = p.batchStride(operand);
  if (stride && *stride % width)
    return error(Part::Kind::Batch,
                 "global-load width " + Twine(width) +
                     " needs the batch stride of " + name + " (" +
                     Twine(*stride) +
                     ") to be a multiple of it, for aligned loads");
  return true;
}

bool Rules::readsWideFromGlobal(Operand operand) const {
  int64_t width = s.registerLoadWidth();
  if (!s.readsGlobalInRegisterTile() || width == 1)
    return false;
  if (operand == Operand::A)
    return p.aLayout == MatrixLayout::Col && s.tm() % width == 0;
  return operand == Operand::B && p.bLayout == MatrixLayout::Row &&
         s.tn() % width == 0;
}

bool Rules::checkRegisterLoads(int64_t width) {
  // Each thread reads its TN columns of B as W-wide pieces along B's rows,
  // and its TM rows of A as W-wide pieces down A's columns where W divides
  // TM (else an element at a time); a piece along a matrix's contiguous
  // side is one aligned load.
  if (width == 1)
    return true;
  if (s.tn() % width)
    return error(DirectiveKind::Vectorize,
                 "global-load width " + Twine(width) +
                     " must divide the register tile's columns (" +
                     Twine(s.tn()) +
                     "): each thread reads its columns of B in pieces "
                     "that wide");
  bool wideA = readsWideFromGlobal(Operand::A),
       wideB = readsWideFromGlobal(Operand::B);
  // A width that no read can use (a column-major B's rows, a row-major
  // A's columns: element by element, each its own load) asks for nothing.
  if (!wideA && !wideB) {
    std::string whyNotA =
        p.aLayout == MatrixLayout::Col
            ? "TM (" + std::to_string(s.tm()) + ") not a multiple of it"
            : std::string("A row-major");
    return error(DirectiveKind::Vectorize,
                 "global-load width " + Twine(width) +
                     " without 'promote' reads along a row-major B's rows "
                     "or a column-major A's columns (a multiple of the "
                     "width of them); here neither: B is column-major and " +
                     whyNotA);
  }
  return (!wideA || checkLoadAlignment(Operand::A, "A", width,
                                       DirectiveKind::Vectorize)) &&
         (!wideB || checkLoadAlignment(Operand::B, "B", width,
                                       DirectiveKind::Vectorize));
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
    if (!checkLoadAlignment(t.operand, t.name, width, at))
      return false;
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
  // Without `promote` a register tile's loop over K steps K itself: a
  // factor unrolls it (the steps past a multiple of it run one at a time).
  bool unrollsK = s.unroll && s.readsGlobalInRegisterTile();
  if (unrollsK && *s.unroll == 0)
    return error(DirectiveKind::Unroll,
                 "'unroll full' needs a loop of known steps; without "
                 "'promote' the loop runs over K: give a factor");
  if (s.unroll && !unrollsK && *s.unroll > 0 && s.innerSteps() % *s.unroll)
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
