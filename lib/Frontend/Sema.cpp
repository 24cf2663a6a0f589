//===- Sema.cpp - checks on a schedule before any IR is built ------------===//

#include "gemmc/Frontend/Parser.h"

using namespace gemmc;
using llvm::SMLoc;
using llvm::SourceMgr;
using llvm::Twine;

static bool error(SourceMgr &sourceMgr, SMLoc loc, const Twine &message) {
  sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, message);
  return false;
}

static const Directive *findDirective(const ScheduleDecl &schedule,
                                      DirectiveKind kind) {
  for (const Directive &directive : schedule.directives)
    if (directive.kind == kind)
      return &directive;
  return nullptr;
}

static bool checkProblem(const ProblemDecl &problem, SourceMgr &sourceMgr) {
  const std::pair<const std::optional<SizeDecl> *, const char *> sizes[] = {
      {&problem.m, "m"}, {&problem.n, "n"}, {&problem.k, "k"}};
  for (auto [size, name] : sizes)
    if (!*size)
      return error(sourceMgr, problem.loc,
                   Twine("problem does not give the size '") + name + "'");

  for (const std::optional<MatrixDecl> *matrix :
       {&problem.a, &problem.b, &problem.c}) {
    if (!*matrix || (*matrix)->type == ElementType::F32)
      continue;
    return error(sourceMgr, (*matrix)->typeLoc,
                 "element type '" + stringify((*matrix)->type) +
                     "' is not implemented yet (only f32 is)");
  }
  if (problem.acc && problem.acc->type != ElementType::F32)
    return error(sourceMgr, problem.acc->loc,
                 "the accumulator must be f32, got " +
                     stringify(problem.acc->type));
  return true;
}

static bool checkTile(const Directive &tile, const ProblemDecl &problem,
                      SourceMgr &sourceMgr) {
  int64_t bm = tile.args[0], bn = tile.args[1];
  if (tile.args.size() == 3 && tile.args[2] != 1)
    return error(sourceMgr, tile.loc,
                 "a K step BK of " + Twine(tile.args[2]) +
                     " needs 'promote', which is not implemented yet; "
                     "write 'tile " +
                     Twine(bm) + "x" + Twine(bn) + "'");

  // One thread per element of the block tile of C.
  int64_t threads = bm * bn;
  if (threads > 1024)
    return error(sourceMgr, tile.loc,
                 "tile " + Twine(bm) + "x" + Twine(bn) + " needs " +
                     Twine(threads) +
                     " threads per block, more than the limit of 1024");
  if (threads % 32 != 0)
    return error(sourceMgr, tile.loc,
                 "tile " + Twine(bm) + "x" + Twine(bn) + " needs " +
                     Twine(threads) +
                     " threads per block, not a multiple of the warp size 32");

  const std::tuple<const SizeDecl &, int64_t, const char *, const char *>
      dims[] = {{*problem.m, bm, "M", "BM"}, {*problem.n, bn, "N", "BN"}};
  for (auto [size, tileSize, dim, tileDim] : dims)
    if (size.value % tileSize != 0)
      return error(sourceMgr, tile.loc,
                   Twine(dim) + " = " + Twine(size.value) +
                       " is not a multiple of " + tileDim + " = " +
                       Twine(tileSize) + " (tails are not implemented yet)");
  return true;
}

bool gemmc::checkSchedule(const KernelDecl &kernel, SourceMgr &sourceMgr) {
  if (!kernel.problem)
    return error(sourceMgr, kernel.loc,
                 "kernel '" + kernel.name + "' has no 'problem' section");
  if (!kernel.schedule)
    return error(sourceMgr, kernel.loc,
                 "kernel '" + kernel.name + "' has no 'schedule' section");
  if (!checkProblem(*kernel.problem, sourceMgr))
    return false;
  const Directive *tile =
      findDirective(*kernel.schedule, DirectiveKind::Tile);
  if (!tile)
    return error(sourceMgr, kernel.schedule->loc,
                 "schedule has no 'tile' directive");
  return checkTile(*tile, *kernel.problem, sourceMgr);
}
