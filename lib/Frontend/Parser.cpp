//===- Parser.cpp - the schedule language's parser -----------------------===//
//
// Recursive descent over the grammar in docs/dsl.md. The first error is
// reported through the SourceMgr and parsing stops.
//
//===----------------------------------------------------------------------===//

#include "ParserImpl.h"

using namespace gemmc;
using namespace gemmc::parser;


//===----------------------------------------------------------------------===//
// Common pieces
//===----------------------------------------------------------------------===//

bool Parser::parseClosingBrace(SMLoc open, StringRef what) {
  if (tok.is(Token::RBrace)) {
    consume();
    return true;
  }
  if (tok.is(Token::Eof)) {
    error("missing '}' at end of file");
    note(open, "to close the " + what + " opened here");
    return false;
  }
  return error("expected '}', got " + describe());
}

bool Parser::parseInteger(int64_t &value, StringRef what) {
  if (!tok.is(Token::Integer))
    return error("expected " + what + ", got " + describe());
  value = tok.intValue;
  consume();
  return true;
}

bool Parser::parsePositive(int64_t &value, const Twine &what) {
  SMLoc loc = tok.getLoc();
  if (!parseInteger(value, what.str()))
    return false;
  if (value == 0)
    return error(loc, what + " must be positive, got 0");
  return true;
}

bool Parser::parseSize(SizeDecl &size, StringRef name) {
  if (tok.is(Token::Question)) {
    size.value = std::nullopt;
    consume();
    return true;
  }
  SMLoc loc = tok.getLoc();
  int64_t value;
  if (!parseInteger(value, "a size or '?'"))
    return false;
  if (value == 0)
    return error(loc, "size '" + name + "' must be positive, got 0");
  size.value = value;
  return true;
}

bool Parser::parseShape(Directive &d, StringRef syntax, size_t minDims,
                        size_t maxDims) {
  do {
    if (!parsePositive(d.shape.emplace_back(), "a size of '" + syntax + "'"))
      return false;
  } while (tok.is(Token::Times) && (consume(), true));
  if (d.shape.size() < minDims || d.shape.size() > maxDims)
    return error(d.loc, "'" + stringify(d.kind) + "' takes " + syntax +
                            ", got " + Twine(d.shape.size()) + " sizes");
  return true;
}

bool Parser::parseElementType(ElementType &type, SMLoc &loc) {
  loc = tok.getLoc();
  std::optional<ElementType> parsed;
  if (tok.is(Token::Identifier))
    parsed = llvm::StringSwitch<std::optional<ElementType>>(tok.spelling)
                 .Case("f32", ElementType::F32)
                 .Case("f16", ElementType::F16)
                 .Case("bf16", ElementType::BF16)
                 .Case("e4m3", ElementType::E4M3)
                 .Case("e5m2", ElementType::E5M2)
                 .Default(std::nullopt);
  if (!parsed)
    return error("expected an element type (f32, f16, bf16, e4m3 or e5m2), "
                 "got " +
                 describe());
  type = *parsed;
  consume();
  return true;
}

//===----------------------------------------------------------------------===//
// Problem
//===----------------------------------------------------------------------===//

bool Parser::parseBatch(BatchDecl &batch) {
  batch.count.loc = tok.getLoc();
  if (!parseSize(batch.count, "batch"))
    return false;
  if (!consumeIf("strides"))
    return true;
  std::array<int64_t, 3> strides;
  for (int64_t &stride : strides)
    if (!parsePositive(stride, "a batch stride (of A, B, then C)"))
      return false;
  batch.strides = strides;
  return true;
}

bool Parser::parseProblemStatement(ProblemDecl &problem) {
  SMLoc loc = tok.getLoc();
  if (!tok.is(Token::Identifier))
    return error("expected a problem statement, got " + describe());
  StringRef name = tok.spelling;
  consume();

  if (name == "m" || name == "n" || name == "k") {
    std::optional<SizeDecl> &size =
        name == "m" ? problem.m : (name == "n" ? problem.n : problem.k);
    if (!checkUnique(size, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    SizeDecl decl;
    decl.loc = loc;
    if (!parseSize(decl, name))
      return false;
    size = decl;
    return true;
  }

  if (name == "a" || name == "b" || name == "c") {
    std::optional<MatrixDecl> &matrix =
        name == "a" ? problem.a : (name == "b" ? problem.b : problem.c);
    if (!checkUnique(matrix, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    MatrixDecl decl;
    decl.loc = loc;
    if (!parseElementType(decl.type, decl.typeLoc))
      return false;
    if (tok.isKeyword("row") || tok.isKeyword("col")) {
      decl.layout =
          tok.spelling == "row" ? MatrixLayout::Row : MatrixLayout::Col;
      consume();
    }
    matrix = decl;
    return true;
  }

  if (name == "accumulate") {
    if (!checkUnique(problem.acc, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    AccumulateDecl decl;
    decl.loc = loc;
    SMLoc typeLoc;
    if (!parseElementType(decl.type, typeLoc))
      return false;
    problem.acc = decl;
    return true;
  }

  if (name == "math") {
    if (!checkUnique(problem.math, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    MathDecl decl;
    decl.loc = loc;
    if (consumeIf("tf32x3"))
      decl.mode = MathMode::TF32x3;
    else if (consumeIf("fast-accumulate"))
      decl.mode = MathMode::FastAccumulate;
    else if (consumeIf("tf32"))
      decl.mode = MathMode::TF32;
    else if (consumeIf("exact"))
      decl.mode = MathMode::Exact;
    else
      return error("expected 'exact', 'tf32', 'tf32x3' or 'fast-accumulate', "
                   "got " +
                   describe());
    problem.math = decl;
    return true;
  }

  if (name == "epilogue") {
    if (!checkUnique(problem.epilogue, name, loc) ||
        !expect(Token::Equal, "'='"))
      return false;
    EpilogueDecl decl;
    decl.loc = loc;
    bool alphaBeta;
    if (!parseEitherOf("store", "alpha-beta", alphaBeta))
      return false;
    decl.kind = alphaBeta ? Epilogue::AlphaBeta : Epilogue::Store;
    problem.epilogue = decl;
    return true;
  }

  if (name == "bias") {
    if (!checkUnique(problem.bias, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    BiasDecl decl;
    decl.loc = loc;
    bool col;
    if (!parseEitherOf("row", "col", col))
      return false;
    decl.kind = col ? BiasKind::Col : BiasKind::Row;
    problem.bias = decl;
    return true;
  }

  if (name == "scales") {
    if (!checkUnique(problem.scales, name, loc) ||
        !expect(Token::Equal, "'='"))
      return false;
    ScalesDecl decl;
    decl.loc = loc;
    std::optional<ScaleKind> kind;
    if (tok.is(Token::Identifier))
      kind = scaleKindNamed(tok.spelling);
    if (!kind)
      return error("expected 'tensor', 'rowwise' or 'block', got " +
                   describe());
    consume();
    decl.kind = *kind;
    problem.scales = decl;
    return true;
  }

  if (name == "activation") {
    if (!checkUnique(problem.activation, name, loc) ||
        !expect(Token::Equal, "'='"))
      return false;
    ActivationDecl decl;
    decl.loc = loc;
    std::optional<Activation> kind;
    if (tok.is(Token::Identifier))
      kind = activationNamed(tok.spelling);
    if (!kind)
      return error("expected 'none', 'relu', 'gelu', 'gelu-tanh' or 'silu', "
                   "got " +
                   describe());
    consume();
    decl.kind = *kind;
    problem.activation = decl;
    return true;
  }

  if (name == "residual") {
    if (!checkUnique(problem.residual, name, loc) ||
        !expect(Token::Equal, "'='"))
      return false;
    if (!consumeIf("add"))
      return error("expected 'add', got " + describe());
    problem.residual = ResidualDecl{loc};
    return true;
  }

  if (name == "amax") {
    if (!checkUnique(problem.amax, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    if (!consumeIf("c"))
      return error("expected 'c' (the amax of C), got " + describe());
    problem.amax = AmaxDecl{loc};
    return true;
  }

  if (name == "output-scale") {
    if (!checkUnique(problem.outputScale, name, loc) ||
        !expect(Token::Equal, "'='"))
      return false;
    if (!consumeIf("tensor"))
      return error("expected 'tensor' (one scale for all of C), got " +
                   describe());
    problem.outputScale = OutputScaleDecl{loc};
    return true;
  }

  if (name == "batch") {
    if (!checkUnique(problem.batch, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    BatchDecl decl;
    decl.loc = loc;
    if (!parseBatch(decl))
      return false;
    problem.batch = decl;
    return true;
  }

  if (name == "groups") {
    if (!checkUnique(problem.groups, name, loc) ||
        !expect(Token::Equal, "'='"))
      return false;
    GroupsDecl decl;
    decl.loc = loc;
    decl.count.loc = tok.getLoc();
    if (!parseSize(decl.count, "groups"))
      return false;
    SMLoc form = tok.getLoc();
    if (consumeIf("ptr-array"))
      decl.ptrArray = form;
    problem.groups = decl;
    return true;
  }

  return error(loc, "unknown problem statement '" + name +
                        "' (expected m, n, k, a, b, c, accumulate, math, "
                        "epilogue, bias, scales, activation, residual, "
                        "amax, output-scale, batch or groups)");
}

bool Parser::parseProblem(ProblemDecl &problem) {
  SMLoc open = tok.getLoc();
  if (!expect(Token::LBrace, "'{' after 'problem'"))
    return false;
  while (!tok.is(Token::RBrace) && !tok.is(Token::Eof)) {
    if (!parseProblemStatement(problem))
      return false;
    if (tok.is(Token::Semicolon))
      consume();
  }
  return parseClosingBrace(open, "'problem' section");
}

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

bool Parser::parseSchedule(ScheduleDecl &schedule, StringRef what) {
  SMLoc open = tok.getLoc();
  if (!expect(Token::LBrace, ("'{' after " + what).str()))
    return false;
  while (!tok.is(Token::RBrace) && !tok.is(Token::Eof)) {
    if (!parseDirective(schedule))
      return false;
    if (tok.is(Token::Semicolon))
      consume();
  }
  return parseClosingBrace(open, (what + " section").str());
}

//===----------------------------------------------------------------------===//
// Kernel families
//===----------------------------------------------------------------------===//

/// `m <= 64`, `k >= 4096` or `group-rows <= 128`.
bool Parser::parseCondition(VariantDecl &variant) {
  ConditionDecl condition;
  condition.loc = tok.getLoc();
  if (!tok.is(Token::Identifier) ||
      contract::SizeRange::dimension(tok.spelling.str()) < 0)
    return error("expected 'm', 'n', 'k' or 'group-rows' in a condition, "
                 "got " +
                 describe());
  condition.dim = tok.spelling.str();
  consume();
  if (!tok.is(Token::LessEqual) && !tok.is(Token::GreaterEqual))
    return error(Twine("expected '<=' or '>=' after '") + Twine(condition.dim) +
                 "', got " + describe());
  condition.atMost = tok.is(Token::LessEqual);
  consume();
  if (!parsePositive(condition.value,
                     Twine("the bound of '") + Twine(condition.dim) + "'"))
    return false;
  variant.conditions.push_back(condition);
  return true;
}

/// `cost fixed F latency L compute C memory M reduce R`: each constant
/// once, in any order, a number (integer or decimal) at least 0.
bool Parser::parseCost(VariantDecl &variant) {
  CostDecl cost;
  cost.loc = tok.getLoc();
  consume();
  bool given[5] = {false, false, false, false, false};
  for (int i = 0; i < 5; ++i) {
    auto *name = llvm::find(CostDecl::kNames, tok.spelling);
    if (!tok.is(Token::Identifier) || name == std::end(CostDecl::kNames))
      return error("expected one of 'fixed', 'latency', 'compute', 'memory' "
                   "or 'reduce' in 'cost', got " +
                   describe());
    size_t which = size_t(name - std::begin(CostDecl::kNames));
    if (given[which])
      return error("'" + tok.spelling + "' is given twice in 'cost'");
    given[which] = true;
    consume();
    if (tok.is(Token::Integer))
      cost.values[which] = double(tok.intValue);
    else if (tok.is(Token::Decimal))
      cost.values[which] = tok.decimalValue;
    else
      return error(Twine("expected a number after '") + *name +
                   "', got " + describe());
    consume();
  }
  variant.cost = cost;
  return true;
}

/// `variant NAME [when COND {, COND}] [cost ...] { DIRECTIVE ... }`.
bool Parser::parseVariant(KernelDecl &kernel) {
  VariantDecl variant;
  consume();
  variant.loc = tok.getLoc();
  if (!parseName(variant.name, "variant"))
    return false;
  for (const VariantDecl &other : kernel.variants)
    if (other.name == variant.name) {
      error(variant.loc, "variant '" + variant.name + "' is given twice");
      note(other.loc, "first given here");
      return false;
    }
  if (consumeIf("when")) {
    if (!parseCondition(variant))
      return false;
    while (tok.is(Token::Comma)) {
      consume();
      if (!parseCondition(variant))
        return false;
    }
  }
  if (tok.isKeyword("cost") && !parseCost(variant))
    return false;
  variant.schedule.loc = variant.loc;
  if (!parseSchedule(variant.schedule, "variant '" + variant.name + "'"))
    return false;
  kernel.variants.push_back(std::move(variant));
  return true;
}

//===----------------------------------------------------------------------===//
// File
//===----------------------------------------------------------------------===//

/// A kernel's or a variant's name: a PTX identifier.
bool Parser::parseName(std::string &name, StringRef what) {
  if (!tok.is(Token::Identifier))
    return error("expected the " + what + "'s name after '" + what +
                 "', got " + describe());
  name = tok.spelling.str();
  if (name.find('-') != std::string::npos)
    return error(what + " name '" + name +
                 "' is not a valid PTX identifier (use letters, digits and "
                 "'_')");
  consume();
  return true;
}

std::optional<KernelDecl> Parser::parseFile() {
  if (tok.is(Token::Eof)) {
    error("schedule file is empty (expected 'kernel NAME { ... }')");
    return std::nullopt;
  }
  KernelDecl kernel;
  kernel.loc = tok.getLoc();
  if (!tok.isKeyword("kernel")) {
    error("expected 'kernel' at the start of the schedule file, got " +
          describe());
    return std::nullopt;
  }
  consume();
  kernel.loc = tok.getLoc();
  if (!parseName(kernel.name, "kernel"))
    return std::nullopt;

  SMLoc open = tok.getLoc();
  if (!expect(Token::LBrace, "'{' after the kernel's name"))
    return std::nullopt;
  while (!tok.is(Token::RBrace) && !tok.is(Token::Eof)) {
    SMLoc loc = tok.getLoc();
    if (tok.isKeyword("problem")) {
      if (!checkUnique(kernel.problem, "problem", loc))
        return std::nullopt;
      consume();
      ProblemDecl problem;
      problem.loc = loc;
      if (!parseProblem(problem))
        return std::nullopt;
      kernel.problem = std::move(problem);
      continue;
    }
    bool isSchedule = tok.isKeyword("schedule");
    if ((isSchedule && kernel.isFamily()) ||
        (tok.isKeyword("variant") && kernel.schedule)) {
      error("a kernel has a 'schedule' section or 'variant' sections, not "
            "both");
      return std::nullopt;
    }
    if (isSchedule) {
      if (!checkUnique(kernel.schedule, "schedule", loc))
        return std::nullopt;
      consume();
      ScheduleDecl schedule;
      schedule.loc = loc;
      if (!parseSchedule(schedule, "'schedule'"))
        return std::nullopt;
      kernel.schedule = std::move(schedule);
      continue;
    }
    if (tok.isKeyword("variant")) {
      if (!parseVariant(kernel))
        return std::nullopt;
      continue;
    }
    error("expected 'problem', 'schedule' or 'variant', got " + describe());
    return std::nullopt;
  }
  if (!parseClosingBrace(open, "kernel"))
    return std::nullopt;
  if (!tok.is(Token::Eof)) {
    error("expected end of file after the kernel, got " + describe());
    return std::nullopt;
  }
  return kernel;
}

std::optional<KernelDecl> gemmc::parseScheduleFile(SourceMgr &sourceMgr) {
  return Parser(sourceMgr).parseFile();
}
