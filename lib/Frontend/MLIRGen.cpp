//===- MLIRGen.cpp - schedule file to gemm dialect -----------------------===//

#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

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

bool gemmc::checkSupported(const KernelDecl &kernel,
                           llvm::SourceMgr &sourceMgr) {
  auto notYet = [&](llvm::SMLoc loc, const llvm::Twine &what) {
    sourceMgr.PrintMessage(loc, llvm::SourceMgr::DK_Error,
                           what + " is not implemented yet");
    return false;
  };
  for (const Directive &d : kernel.schedule->directives)
    if (d.kind != DirectiveKind::Tile && d.kind != DirectiveKind::Coalesce)
      return notYet(d.loc, "directive '" + stringify(d.kind) + "'");

  const ProblemDecl &p = *kernel.problem;
  for (const std::optional<SizeDecl> *size : {&p.m, &p.n, &p.k})
    if ((*size)->isDynamic())
      return notYet((*size)->loc, "a size given at launch ('?')");
  for (const std::optional<MatrixDecl> *matrix : {&p.a, &p.b, &p.c})
    if (*matrix && (*matrix)->type != ElementType::F32)
      return notYet((*matrix)->typeLoc,
                    "element type '" + stringify((*matrix)->type) + "'");
  if (p.epilogue && p.epilogue->kind != Epilogue::Store)
    return notYet(p.epilogue->loc,
                  "epilogue '" + stringify(p.epilogue->kind) + "'");
  if (p.batch)
    return notYet(p.batch->loc, "a batched GEMM");
  return true;
}

OwningOpRef<ModuleOp> gemmc::mlirGen(MLIRContext &ctx,
                                     const KernelDecl &kernel,
                                     const llvm::SourceMgr &sourceMgr) {
  ctx.getOrLoadDialect<gemm::GemmDialect>();
  Location loc = getLocation(ctx, sourceMgr, kernel.loc);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder(module->getBodyRegion());

  const ProblemDecl &p = *kernel.problem;
  assert(!p.m->isDynamic() && !p.n->isDynamic() && !p.k->isDynamic() &&
         "checkSupported rejects sizes given at launch");
  auto [aType, aLayout] = getMatrix(ctx, p.a);
  auto [bType, bLayout] = getMatrix(ctx, p.b);
  auto [cType, cLayout] = getMatrix(ctx, p.c);
  Type accType = p.acc ? getType(ctx, p.acc->type) : Float32Type::get(&ctx);
  auto problem = gemm::ProblemAttr::get(&ctx, *p.m->value, *p.n->value,
                                        *p.k->value, aType, aLayout, bType,
                                        bLayout, cType, cLayout, accType);

  SmallVector<int64_t, 3> tile = {1, 1, 1};
  bool coalesce = false;
  for (const Directive &directive : kernel.schedule->directives) {
    if (directive.kind == DirectiveKind::Tile)
      llvm::copy(directive.shape, tile.begin());
    coalesce |= directive.kind == DirectiveKind::Coalesce;
  }
  auto schedule = gemm::ScheduleAttr::get(&ctx, tile, coalesce);

  gemm::KernelOp::create(builder, loc, kernel.name, problem, schedule);
  return module;
}
