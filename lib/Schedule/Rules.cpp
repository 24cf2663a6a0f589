//===- Rules.cpp - the rules a schedule must satisfy ----------------------===//
//
// Every schedule that cannot work is refused here, with a diagnostic naming
// the part of the schedule file at fault; docs/dsl.md lists the rules. The
// front end reports them at their directive, the gemm dialect's verifiers
// at the op.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

using namespace gemmc;
using namespace gemmc::rules;

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
  // FP8 operands may mix e4m3 and e5m2 (wgmma takes each its own type).
  if (p.a != p.b && !(isFloat8(p.a) && isFloat8(p.b)))
    return error(Part::Kind::BType,
                 "A and B must have the same element type (or both be "
                 "e4m3 or e5m2), got " +
                     stringify(p.a) + " and " + stringify(p.b));
  if (!checkFloat8())
    return false;
  llvm::StringRef math = p.tf32x3 ? "math = tf32x3" : "math = tf32";
  if (p.tf32 && p.a != ElementType::F32)
    return error(Part::Kind::Math,
                 math + " needs f32 inputs, got " + stringify(p.a));
  // tf32 and tf32x3 permit tensor cores' rounding; a SIMT schedule (FMA
  // in f32, at least as accurate) honours either, so a family can mix both
  // kinds of variant, as cuBLAS's FAST_TF32 compute type and torch's
  // allow_tf32 let a GEMV run in f32.
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


bool Rules::checkFloat8() {
  bool fp8 = isFloat8(p.a);
  // The output scale is the FP8 cast's (cuBLASLt takes a D scale only
  // for an FP8 D); the amax stays that of the values before it.
  if (p.outputScale && !isFloat8(p.c))
    return error(Part::Kind::OutputScale,
                 "'output-scale' scales the values cast to an FP8 C: C must "
                 "be e4m3 or e5m2, got " +
                     stringify(p.c));
  // An FP8 C is written by wgmma's stores, saturated (cvt.satfinite); what
  // reads values of C's type (beta * C, a bias in C's type, R) does not
  // read FP8 yet.
  if (isFloat8(p.c)) {
    if (!s.hasWgmma())
      return error(Part::Kind::CType,
                   "a C of type " + stringify(p.c) +
                       " is stored by Hopper's wgmma kernels only: add "
                       "'wgmma' (and --arch=sm_90a)");
    if (p.alphaBeta || p.bias || p.residual)
      return notYet(Part::Kind::CType,
                    "an FP8 C with 'epilogue = alpha-beta', a bias or R "
                    "(each read in C's type)");
  }
  if (p.fastAccumulate && !fp8)
    return error(Part::Kind::Math,
                 "math = fast-accumulate is FP8's: A and B must be e4m3 or "
                 "e5m2, got " +
                     stringify(p.a));
  // Per tensor and per row and column the scales multiply the product in
  // the epilogue, on any kernel; block scales multiply each k tile's sum
  // in wgmma's consumers, FP8's.
  if (p.scales == ScaleKind::Block && !fp8)
    return error(Part::Kind::Scales,
                 "'scales = block' dequantise FP8 inputs: A and B must be "
                 "e4m3 or e5m2, got " +
                     stringify(p.a) + " ('tensor' and 'rowwise' take any)");
  if (!fp8)
    return true;
  if (!s.hasWgmma())
    return error(Part::Kind::AType,
                 stringify(p.a) +
                     " inputs run on Hopper's wgmma only: add 'wgmma "
                     "m64nNk32' (and --arch=sm_90a)");
  return p.scales != ScaleKind::Block || checkBlockScales();
}

bool Rules::checkBlockScales() {
  // Each k tile's sum of products, one block of the scales deep, is
  // multiplied by its block's scales as it is added to the accumulators.
  if (p.fastAccumulate)
    return error(Part::Kind::Math,
                 "block scales multiply each 128-deep sum of products in "
                 "f32: 'math = fast-accumulate' sums on the tensor cores "
                 "throughout and cannot take them");
  if (s.bk() != kScaleBlock)
    return error(DirectiveKind::Tile,
                 "with 'scales = block' a k tile is one block of the scales: "
                 "BK must be " +
                     Twine(kScaleBlock) + ", got " + Twine(s.bk()));
  if (s.transpose)
    return error(DirectiveKind::Transpose,
                 "block scales are A's 1 x 128 and B's 128 x 128: the "
                 "transposed kernel would read each as the other's");
  if (p.batched)
    return notYet(Part::Kind::Batch, "block scales of a batch");
  return true;
}

bool Rules::checkGroups() {
  if (!p.grouped)
    return true;
  if (p.batched)
    return error(Part::Kind::Groups,
                 "a problem cannot have both 'groups' and 'batch' (a batch "
                 "is groups of one size)");
  if (!s.hasWgmma())
    return notYet(Part::Kind::Groups,
                  "a grouped problem without 'wgmma' (--arch=sm_90a)");
  if (!s.persistent)
    return error(Part::Kind::Groups,
                 "the groups' sizes are known only on the device, where the "
                 "blocks walk every group's tiles: add 'persistent'");
  if (s.streamK)
    return notYet(DirectiveKind::Persistent,
                  "'persistent stream-k' with 'groups'");
  if (s.cluster)
    return notYet(DirectiveKind::Cluster, "'cluster' with 'groups'");
  if (s.transpose)
    return notYet(DirectiveKind::Transpose, "'transpose' with 'groups'");
  if (p.bias)
    return notYet(Part::Kind::Groups, "a bias with 'groups'");
  return !p.groupTable || checkGroupTable();
}

bool Rules::checkGroupTable() {
  // The general form: each group's sizes, matrices and leading dimensions
  // come from the group table on the device.
  if (!p.isDynamic() || p.m || p.n || p.k)
    return error(Part::Kind::Groups,
                 "with 'ptr-array' each group has its own sizes, read from "
                 "the group table: write 'm = ?', 'n = ?' and 'k = ?'");
  // The groups' matrices lie at addresses read on the device: the
  // producer's issuer makes A's and B's tensor maps there (GroupMaps.cpp),
  // or its threads copy them; the consumers store C.
  if (s.tmaC)
    return notYet(DirectiveKind::Tma,
                  "'tma c' with 'ptr-array' (the consumers store each "
                  "group's C)");
  // The issuer waits for the copies that read a map before it rewrites
  // it, which no thread's copies may hold back: TMA copies both operands,
  // as the 16-bit types' tiles lie in the matrix.
  if (s.hasTma() && !(s.tmaA && s.tmaB))
    return error(DirectiveKind::Tma,
                 "with 'ptr-array', 'tma' copies A and B together: write "
                 "'tma a b', or leave out 'tma'");
  if (s.hasTma() && (sizeInBytes(p.a) != 2 || sizeInBytes(p.b) != 2))
    return notYet(DirectiveKind::Tma,
                  "'tma' with 'ptr-array' on other than f16 and bf16 "
                  "operands");
  if (isFloat8(p.a) || isFloat8(p.b))
    return notYet(Part::Kind::AType, "FP8 inputs with 'ptr-array' (TMA "
                                     "copies FP8)");
  if (p.scales)
    return notYet(Part::Kind::Scales, "'scales' with 'ptr-array'");
  if (p.residual)
    return notYet(Part::Kind::Groups, "'residual' with 'ptr-array'");
  return true;
}

std::optional<ScheduleFacts> Rules::run() {
  if (!checkHopperDirectives() || !checkGroups())
    return std::nullopt;
  if (s.hasWgmma()) {
    if (!checkProblem() || !checkTypes() || !checkWarpgroup())
      return std::nullopt;
    return facts;
  }
  if (!checkProblem() || !checkTypes() || !checkSliceK() || !checkThreads() ||
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
  if (p.grouped && !p.groupCount && !p.isDynamic())
    return notYet(Part::Kind::Groups,
                  "a group count given at launch ('?') with static sizes");
  // The amax is raised by the wgmma consumers' stores of C, each warp's
  // largest magnitude at the kernel's end.
  if (p.amax && !s.hasWgmma())
    return notYet(Part::Kind::Amax,
                  "'amax' without 'wgmma' (Hopper's kernels, --arch=sm_90a)");
  if (p.amax && p.grouped)
    return notYet(Part::Kind::Amax, "'amax' with 'groups'");
  if (p.outputScale && p.grouped)
    return notYet(Part::Kind::OutputScale, "'output-scale' with 'groups'");
  if (s.hasWgmma()) {
    if (!s.consumers)
      return notYet(DirectiveKind::Wgmma, "'wgmma' without 'warp-specialize'");
    // Stream-K's shares of the last round count one matrix's tiles.
    if (p.batched && s.streamK)
      return notYet(Part::Kind::Batch,
                    "a batch with 'persistent stream-k'");
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
    // A grouped problem's B holds a matrix a group.
    if (p.grouped)
      count = Operand(i) == Operand::B ? *p.groupCount : 1;
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
                      s.bm() % (64 * (s.pingPong ? 1 : *s.consumers))))
    return error("warp_specialize must be 1 or 2 dividing the tile's rows in "
                 "64s");
  if (s.pingPong && (s.consumers != 2 || !s.persistent || s.streamK ||
                     s.splitsK()))
    return error("ping_pong needs warp_specialize 2 and persistent, without "
                 "stream_k or split_k");
  if (!s.wgmma &&
      (s.hasTma() || s.tmaC || s.consumers || s.persistent || s.cluster))
    return error("tma, warp_specialize, persistent and cluster need wgmma");
  if (s.cluster && ((*s.cluster)[0] < 1 || (*s.cluster)[1] < 1 ||
                    !s.persistent))
    return error("cluster sizes must be positive, with persistent");
  return true;
}
