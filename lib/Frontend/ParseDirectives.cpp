//===- ParseDirectives.cpp - the schedule directives' arguments -----------===//
//
// Each directive of docs/dsl.md's grammar after its keyword (the keywords
// come from gemmc/Schedule/Directives.def): the arguments into the syntax
// tree's Directive, at most once a schedule.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

using namespace gemmc;
using namespace gemmc::parser;

bool Parser::parseOperands(Directive &d, StringRef what, StringRef verb,
                           bool withC) {
  while (tok.isKeyword("a") || tok.isKeyword("b") ||
         (withC && tok.isKeyword("c"))) {
    bool &operand = tok.spelling == "a"   ? d.operandA
                    : tok.spelling == "b" ? d.operandB
                                          : d.operandC;
    if (operand)
      return error("operand '" + tok.spelling + "' is " + verb + " twice");
    operand = true;
    consume();
  }
  if (!d.operandA && !d.operandB && !d.operandC)
    return error("expected the operands to " + what +
                 (withC ? " ('a', 'b', 'c')" : " ('a', 'b' or both)") +
                 ", got " + describe());
  return true;
}

bool Parser::parsePromote(Directive &d) {
  if (!parseOperands(d, "promote", "promoted"))
    return false;
  while (tok.is(Token::Identifier)) {
    if (consumeIf("pad")) {
      if (!parsePositive(d.pad, "a padding in elements"))
        return false;
    } else if (consumeIf("swizzle")) {
      d.swizzle = true;
    } else if (consumeIf("transpose-a")) {
      d.transposeA = true;
    } else {
      break;
    }
  }
  return true;
}

bool Parser::parseVectorize(Directive &d) {
  // `vectorize 4` sets every width; otherwise name them. `global-load W`
  // sets A's and B's, `global-load a W` (or `b`) one operand's.
  if (tok.is(Token::Integer)) {
    int64_t width;
    if (!parsePositive(width, "a vector width"))
      return false;
    d.globalLoadA = d.globalLoadB = d.sharedLoad = d.sharedStore =
        d.globalStore = width;
    return true;
  }
  bool any = false;
  while (tok.is(Token::Identifier)) {
    llvm::SmallVector<int64_t *, 2> widths;
    if (tok.spelling == "global-load")
      widths = {&d.globalLoadA, &d.globalLoadB};
    else if (tok.spelling == "shared-load")
      widths = {&d.sharedLoad};
    else if (tok.spelling == "shared-store")
      widths = {&d.sharedStore};
    else if (tok.spelling == "global-store")
      widths = {&d.globalStore};
    else
      break;
    bool globalLoad = tok.spelling == "global-load";
    consume();
    if (globalLoad && tok.is(Token::Identifier)) {
      if (tok.spelling == "a")
        widths = {&d.globalLoadA};
      else if (tok.spelling == "b")
        widths = {&d.globalLoadB};
      else
        return error("expected a vector width, or operand 'a' or 'b', "
                     "after global-load, got " +
                     describe());
      consume();
    }
    int64_t width;
    if (!parsePositive(width, "a vector width"))
      return false;
    for (int64_t *w : widths)
      *w = width;
    any = true;
  }
  if (!any)
    return error("expected a vector width, or global-load, shared-load, "
                 "shared-store or global-store and a width, got " +
                 describe());
  return true;
}

bool Parser::parseInstructionShape(Directive &d, StringRef expected) {
  SMLoc loc = tok.getLoc();
  // mMnNkK
  StringRef text = tok.is(Token::Identifier) ? tok.spelling : "";
  unsigned m = 0, n = 0, k = 0;
  bool ok = text.consume_front("m") && !text.consumeInteger(10, m) &&
            text.consume_front("n") && !text.consumeInteger(10, n) &&
            text.consume_front("k") && !text.consumeInteger(10, k) &&
            text.empty();
  if (!ok)
    return error(loc, "expected " + expected + ", got " + describe());
  d.shape = {m, n, k};
  return true;
}

bool Parser::parseWgmma(Directive &d) {
  // The model checks the shape against the element type.
  if (!parseInstructionShape(
          d, "a wgmma shape (m64nNk16, or m64nNk8 for tf32)"))
    return false;
  consume();
  d.registersA = consumeIf("registers");
  return true;
}

bool Parser::parseMma(Directive &d) {
  SMLoc loc = tok.getLoc();
  if (!parseInstructionShape(d, "an mma shape (m16n8k16 or m16n8k8)"))
    return false;
  int64_t m = d.shape[0], n = d.shape[1], k = d.shape[2];
  if (!((m == 16 && n == 8 && k == 16) || (m == 16 && n == 8 && k == 8)))
    return error(loc, "unsupported mma shape '" + tok.spelling +
                          "' (supported: m16n8k16 for f16 and bf16, m16n8k8 "
                          "for tf32)");
  consume();
  return true;
}

bool Parser::parsePipeline(Directive &d) {
  if (!consumeIf("stages"))
    return error("expected 'stages' after 'pipeline', got " + describe());
  if (!parsePositive(d.stages, "a number of stages"))
    return false;
  while (tok.is(Token::Identifier)) {
    if (consumeIf("registers"))
      d.registerDoubleBuffer = true;
    else if (consumeIf("cp-async"))
      d.cpAsync = true;
    else
      break;
  }
  return true;
}

bool Parser::parseUnroll(Directive &d) {
  if (consumeIf("full")) {
    d.count = 0;
    return true;
  }
  return parsePositive(d.count, "an unroll factor or 'full'");
}

bool Parser::parseEdges(Directive &d) {
  bool guard;
  if (!parseEitherOf("split", "guard", guard, "edges"))
    return false;
  d.splitEdges = !guard;
  return true;
}

bool Parser::parseDirective(ScheduleDecl &schedule) {
  SMLoc loc = tok.getLoc();
  if (!tok.is(Token::Identifier))
    return error("expected a schedule directive, got " + describe());
  StringRef name = tok.spelling;
  std::optional<DirectiveKind> kind = directiveNamed(name);
  if (!kind)
    return error(loc, "unknown directive '" + name + "'");
  if (const Directive *previous = schedule.find(*kind)) {
    error(loc, "directive '" + name + "' is given twice");
    note(previous->loc, "first given here");
    return false;
  }
  consume();

  Directive d;
  d.kind = *kind;
  d.loc = loc;
  bool ok = true;
  switch (*kind) {
  case DirectiveKind::Tile:
    ok = parseShape(d, "BMxBN or BMxBNxBK", 2, 3);
    break;
  case DirectiveKind::Coalesce:
    break;
  case DirectiveKind::Promote:
    ok = parsePromote(d);
    break;
  case DirectiveKind::RegisterTile:
    ok = parseShape(d, "TMxTN", 2, 2);
    break;
  case DirectiveKind::WarpTile:
    ok = parseShape(d, "WMxWN", 2, 2);
    break;
  case DirectiveKind::Vectorize:
    ok = parseVectorize(d);
    break;
  case DirectiveKind::Mma:
    ok = parseMma(d);
    break;
  case DirectiveKind::Pipeline:
    ok = parsePipeline(d);
    break;
  case DirectiveKind::Raster:
    ok = parsePositive(d.count, "a raster group size");
    break;
  case DirectiveKind::SplitK:
    // `?`: the splits are chosen at launch (count 0).
    if (tok.is(Token::Question)) {
      d.count = 0;
      consume();
      break;
    }
    ok = parsePositive(d.count, "a number of K splits or '?'");
    break;
  case DirectiveKind::SliceK:
    ok = parsePositive(d.count, "a number of K slices");
    break;
  case DirectiveKind::Unroll:
    ok = parseUnroll(d);
    break;
  case DirectiveKind::BlocksPerSM:
    ok = parsePositive(d.count, "a number of blocks a multiprocessor");
    break;
  case DirectiveKind::Edges:
    ok = parseEdges(d);
    break;
  case DirectiveKind::Wgmma:
    ok = parseWgmma(d);
    break;
  case DirectiveKind::Tma:
    ok = parseOperands(d, "copy with TMA", "copied", /*withC=*/true);
    break;
  case DirectiveKind::WarpSpecialize:
    ok = parsePositive(d.count, "a number of consumer warpgroups");
    d.pingPong = ok && consumeIf("ping-pong");
    break;
  case DirectiveKind::Persistent:
    d.streamK = consumeIf("stream-k");
    break;
  case DirectiveKind::Cluster:
    ok = parseShape(d, "CMxCN", 2, 2);
    break;
  case DirectiveKind::Transpose:
    break;
  }
  if (!ok)
    return false;
  schedule.directives.push_back(std::move(d));
  return true;
}
