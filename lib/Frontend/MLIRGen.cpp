//===- MLIRGen.cpp - schedule file to gemm dialect -----------------------===//

#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/MathExtras.h"

using namespace gemmc;
using namespace mlir;

static Location getLocation(MLIRContext &ctx, const llvm::SourceMgr &sourceMgr,
                            llvm::SMLoc loc) {
  auto [line, col] = sourceMgr.getLineAndColumn(loc);
  StringRef file =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  return FileLineColLoc::get(&ctx, file, line, col);
}

static Type getType(MLIRContext &ctx, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return Float32Type::get(&ctx);
  case ElementType::F16:
    return Float16Type::get(&ctx);
  case ElementType::BF16:
    return BFloat16Type::get(&ctx);
  }
  llvm_unreachable("unknown element type");
}

static gemm::Layout getLayout(MatrixLayout layout) {
  return layout == MatrixLayout::Row ? gemm::Layout::RowMajor
                                     : gemm::Layout::ColMajor;
}

/// A matrix that the problem does not declare is f32, row-major.
static std::pair<Type, gemm::Layout>
getMatrix(MLIRContext &ctx, const std::optional<MatrixDecl> &decl) {
  if (!decl)
    return {Float32Type::get(&ctx), gemm::Layout::RowMajor};
  return {getType(ctx, decl->type), getLayout(decl->layout)};
}

/// The batch count and the strides between consecutive A, B and C (dense
/// by default); a count of 1 without a batch.
static std::array<int64_t, 4> getBatch(const ProblemDecl &p) {
  // Sizes given at launch: so are the strides.
  if (p.m->isDynamic() || p.n->isDynamic() || p.k->isDynamic())
    return {!p.batch                     ? 1
            : p.batch->count.isDynamic() ? ShapedType::kDynamic
                                         : *p.batch->count.value,
            ShapedType::kDynamic, ShapedType::kDynamic, ShapedType::kDynamic};
  int64_t m = *p.m->value, n = *p.n->value, k = *p.k->value;
  if (!p.batch)
    return {1, m * k, k * n, m * n};
  if (p.batch->strides)
    return {*p.batch->count.value, (*p.batch->strides)[0],
            (*p.batch->strides)[1], (*p.batch->strides)[2]};
  return {*p.batch->count.value, m * k, k * n, m * n};
}

/// Whether A or B is declared column-major.
static bool hasColumnMajorOperand(const ProblemDecl &problem) {
  for (const std::optional<MatrixDecl> *m : {&problem.a, &problem.b})
    if (*m && (*m)->layout == MatrixLayout::Col)
      return true;
  return false;
}

bool gemmc::checkSupported(const KernelDecl &kernel,
                           const ScheduleFacts &facts,
                           llvm::SourceMgr &sourceMgr) {
  auto notYet = [&](llvm::SMLoc loc, const llvm::Twine &what) {
    sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error,
                           what + " is not implemented yet");
    return false;
  };
  const Directive *mma = kernel.schedule->find(DirectiveKind::Mma);
  // The pieces the block-cooperative copies move (global-load wide).
  const Directive *v = kernel.schedule->find(DirectiveKind::Vectorize);
  int64_t elementBytes = sizeInBytes(
      kernel.problem->a ? kernel.problem->a->type : ElementType::F32);
  int64_t pieceBytes = (v ? v->globalLoad : 1) * elementBytes;
  for (const Directive &d : kernel.schedule->directives) {
    if (d.kind == DirectiveKind::SplitK)
      return notYet(d.loc, "directive 'split-k'");
    if (d.kind == DirectiveKind::Pipeline && d.cpAsync) {
      // cp.async moves 4, 8 or 16 bytes.
      if (pieceBytes < 4)
        return notYet(d.loc, "'pipeline ... cp-async' with " +
                                 llvm::Twine(pieceBytes) +
                                 "-byte pieces (raise the global-load width)");
      if (hasColumnMajorOperand(*kernel.problem))
        return notYet(d.loc,
                      "'pipeline ... cp-async' with a column-major operand");
    }
    // Fragments are double-buffered for mma.sync with cp.async only.
    if (d.kind == DirectiveKind::Pipeline && d.registerDoubleBuffer &&
        (!mma || !d.cpAsync))
      return notYet(d.loc, "'pipeline ... registers' without 'mma' and "
                           "'cp-async'");
    if (d.kind == DirectiveKind::Promote && d.swizzle) {
      // The swizzle permutes 16-byte chunks: copies move whole chunks.
      if (pieceBytes != 16)
        return notYet(d.loc, "'promote ... swizzle' with copies of " +
                                 llvm::Twine(pieceBytes) +
                                 " bytes (vectorize global-load to 16 bytes)");
      // Rows of a power-of-two number of 16-byte chunks, along rows.
      const Directive *tile = kernel.schedule->find(DirectiveKind::Tile);
      for (int64_t cols : {tile->shape[2], tile->shape[1]})
        if (!llvm::isPowerOf2_64(cols * elementBytes / 16) ||
            cols * elementBytes % 16)
          return notYet(d.loc, "'promote ... swizzle' with tile rows of " +
                                   llvm::Twine(cols * elementBytes) +
                                   " bytes (not a power-of-two number of "
                                   "16-byte chunks)");
      if (hasColumnMajorOperand(*kernel.problem))
        return notYet(d.loc,
                      "'promote ... swizzle' with a column-major operand");
    }
    if (mma && d.kind == DirectiveKind::Promote && d.transposeA)
      return notYet(d.loc, "'promote ... transpose-a' with 'mma'");
  }
  if (mma) {
    const Directive *promote = kernel.schedule->find(DirectiveKind::Promote);
    if (!promote || !promote->promoteA || !promote->promoteB)
      return notYet(mma->loc, "'mma' without 'promote a b'");
  }

  const ProblemDecl &p = *kernel.problem;
  bool dynamic = p.m->isDynamic() || p.n->isDynamic() || p.k->isDynamic();
  // f16 and bf16 run on tensor cores only.
  for (const std::optional<MatrixDecl> *matrix : {&p.a, &p.b, &p.c})
    if (!mma && *matrix && (*matrix)->type != ElementType::F32)
      return notYet((*matrix)->typeLoc, "element type '" +
                                            stringify((*matrix)->type) +
                                            "' without 'mma'");
  if (p.batch && p.batch->count.isDynamic() && !dynamic)
    return notYet(p.batch->count.loc,
                  "a batch count given at launch ('?') with static sizes");
  if (dynamic) {
    // The leading dimensions and a batch's strides come with the sizes, at
    // launch; the runtime checks the extent of each matrix.
    if (p.batch && p.batch->strides) {
      sourceMgr.PrintMessage(p.batch->loc, llvm::SourceMgr::DK_Error,
                             "batch strides in a problem with sizes given at "
                             "launch: its strides are given at launch too");
      return false;
    }
    return true;
  }
  // Kernels index with 32-bit arithmetic, across a batch too.
  std::array<int64_t, 4> batch = getBatch(p);
  const std::pair<const std::optional<SizeDecl> *,
                  const std::optional<SizeDecl> *>
      matrices[] = {{&p.m, &p.k}, {&p.k, &p.n}, {&p.m, &p.n}};
  for (auto [i, matrix] : llvm::enumerate(matrices)) {
    auto [rows, cols] = matrix;
    if ((batch[0] - 1) * batch[i + 1] + *(*rows)->value * *(*cols)->value >=
        (int64_t(1) << 31))
      return notYet(p.loc, "a matrix (or batch of them) of 2^31 elements or "
                           "more");
  }
  return true;
}

/// The schedule directives as the gemm dialect's attribute. Only what
/// checkSupported lets through reaches here.
static gemm::ScheduleAttr getSchedule(MLIRContext &ctx,
                                      const ScheduleDecl &schedule) {
  SmallVector<int64_t, 3> tile = {1, 1, 1};
  SmallVector<int64_t, 3> registerTile, warpTile, mma;
  SmallVector<int64_t, 4> vectorize;
  bool coalesce = false, promoteA = false, promoteB = false, transposeA = false,
       registers = false, cpAsync = false, swizzle = false, splitEdges = false;
  int64_t pad = 0, stages = 1, raster = 0, unroll = -1;
  for (const Directive &d : schedule.directives) {
    switch (d.kind) {
    case DirectiveKind::Tile:
      llvm::copy(d.shape, tile.begin());
      break;
    case DirectiveKind::Coalesce:
      coalesce = true;
      break;
    case DirectiveKind::RegisterTile:
      registerTile.assign(d.shape.begin(), d.shape.end());
      break;
    case DirectiveKind::WarpTile:
      warpTile.assign(d.shape.begin(), d.shape.end());
      break;
    case DirectiveKind::Promote:
      promoteA = d.promoteA;
      promoteB = d.promoteB;
      pad = d.pad;
      transposeA = d.transposeA;
      swizzle = d.swizzle;
      break;
    case DirectiveKind::Vectorize:
      vectorize = {d.globalLoad, d.sharedLoad, d.sharedStore, d.globalStore};
      break;
    case DirectiveKind::Pipeline:
      stages = d.stages;
      registers = d.registerDoubleBuffer;
      cpAsync = d.cpAsync;
      break;
    case DirectiveKind::Raster:
      raster = d.count;
      break;
    case DirectiveKind::Unroll:
      unroll = d.count;
      break;
    case DirectiveKind::Edges:
      splitEdges = d.splitEdges;
      break;
    case DirectiveKind::Mma:
      mma.assign(d.shape.begin(), d.shape.end());
      break;
    case DirectiveKind::SplitK:
      llvm_unreachable("rejected by checkSupported");
    }
  }
  return gemm::ScheduleAttr::get(&ctx, tile, coalesce, registerTile, warpTile,
                                 promoteA, promoteB, pad, transposeA, vectorize,
                                 stages, registers, raster, unroll, mma,
                                 cpAsync, swizzle, splitEdges);
}

OwningOpRef<ModuleOp> gemmc::mlirGen(MLIRContext &ctx,
                                     const KernelDecl &kernel,
                                     const llvm::SourceMgr &sourceMgr) {
  ctx.getOrLoadDialect<gemm::GemmDialect>();
  Location loc = getLocation(ctx, sourceMgr, kernel.loc);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder(module->getBodyRegion());

  const ProblemDecl &p = *kernel.problem;
  auto size = [](const std::optional<SizeDecl> &decl) {
    return decl->isDynamic() ? ShapedType::kDynamic : *decl->value;
  };
  auto [aType, aLayout] = getMatrix(ctx, p.a);
  auto [bType, bLayout] = getMatrix(ctx, p.b);
  auto [cType, cLayout] = getMatrix(ctx, p.c);
  Type accType = p.acc ? getType(ctx, p.acc->type) : Float32Type::get(&ctx);
  auto problem =
      gemm::ProblemAttr::get(&ctx, size(p.m), size(p.n), size(p.k), aType,
                             aLayout, bType, bLayout, cType, cLayout, accType);

  gemm::ScheduleAttr schedule = getSchedule(ctx, *kernel.schedule);
  bool alphaBeta = p.epilogue && p.epilogue->kind == Epilogue::AlphaBeta;
  StringAttr bias;
  if (p.bias)
    bias = builder.getStringAttr(p.bias->kind == BiasKind::Row ? "row" : "col");
  bool relu = p.activation && p.activation->relu;
  DenseI64ArrayAttr batch;
  if (p.batch)
    batch = builder.getDenseI64ArrayAttr(getBatch(p));
  gemm::KernelOp::create(builder, loc, kernel.name, problem, schedule,
                         alphaBeta, bias, relu, batch);
  return module;
}
