//===- Parser.cpp - the schedule language's parser -----------------------===//
//
//   file        ::= 'kernel' IDENT '{' section* '}'
//   section     ::= 'problem' '{' problem-stmt* '}'
//                 | 'schedule' '{' directive* '}'
//   problem-stmt::= ('m' | 'n' | 'k') '=' INT
//                 | ('a' | 'b' | 'c') '=' TYPE LAYOUT?
//                 | 'accumulate' '=' TYPE
//   directive   ::= 'tile' shape | 'coalesce'
//   shape       ::= INT ('x' INT)*
//
// Statements may end with ';'. The first error is reported and parsing stops.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Frontend/Lexer.h"
#include "gemmc/Frontend/Parser.h"
#include "llvm/ADT/StringSwitch.h"

using namespace gemmc;
using llvm::SMLoc;
using llvm::SourceMgr;
using llvm::StringRef;
using llvm::Twine;

StringRef gemmc::stringify(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  }
  llvm_unreachable("unknown element type");
}

StringRef gemmc::stringify(MatrixLayout layout) {
  return layout == MatrixLayout::Row ? "row" : "col";
}

StringRef gemmc::stringify(DirectiveKind kind) {
  switch (kind) {
  case DirectiveKind::Tile:
    return "tile";
  case DirectiveKind::Coalesce:
    return "coalesce";
  }
  llvm_unreachable("unknown directive");
}

/// Directives of the schedule language that have no code generation yet.
static bool isUnimplementedDirective(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"promote", "register-tile", "warp-tile", "vectorize", "mma",
              "pipeline", "raster", "split-k", "unroll"},
             true)
      .Default(false);
}

namespace {
class Parser {
public:
  Parser(SourceMgr &sourceMgr)
      : sourceMgr(sourceMgr), lexer(sourceMgr, sourceMgr.getMainFileID()) {
    consume();
  }

  std::optional<KernelDecl> parseFile();

private:
  void consume() { tok = lexer.lex(); }

  /// Reports an error at `loc` unless the lexer already reported one here.
  bool error(SMLoc loc, const Twine &message) {
    if (!tok.is(Token::Error))
      sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, message);
    return false;
  }
  bool error(const Twine &message) { return error(tok.getLoc(), message); }
  void note(SMLoc loc, const Twine &message) {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Note, message);
  }

  /// Describes the current token for "expected X, got Y" messages.
  std::string describe() const {
    switch (tok.kind) {
    case Token::Eof:
      return "end of file";
    case Token::Error:
      return "an error";
    default:
      return "'" + tok.spelling.str() + "'";
    }
  }

  bool expect(Token::Kind kind, StringRef what) {
    if (!tok.is(kind))
      return error("expected " + what + ", got " + describe());
    consume();
    return true;
  }
  void skipSemicolon() {
    if (tok.is(Token::Semicolon))
      consume();
  }

  bool parseClosingBrace(SMLoc open, StringRef what);
  bool parseInteger(int64_t &value, StringRef what);
  bool parseElementType(ElementType &type, SMLoc &loc);
  bool parseProblem(ProblemDecl &problem);
  bool parseProblemStatement(ProblemDecl &problem);
  bool parseSchedule(ScheduleDecl &schedule);
  bool parseDirective(ScheduleDecl &schedule);

  template <typename T>
  bool checkUnique(const std::optional<T> &previous, StringRef name,
                   SMLoc loc) {
    if (!previous)
      return true;
    error(loc, "'" + name + "' is given twice");
    note(previous->loc, "first given here");
    return false;
  }

  SourceMgr &sourceMgr;
  Lexer lexer;
  Token tok;
};
} // namespace

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

bool Parser::parseElementType(ElementType &type, SMLoc &loc) {
  loc = tok.getLoc();
  std::optional<ElementType> parsed;
  if (tok.is(Token::Identifier))
    parsed = llvm::StringSwitch<std::optional<ElementType>>(tok.spelling)
                 .Case("f32", ElementType::F32)
                 .Case("f16", ElementType::F16)
                 .Case("bf16", ElementType::BF16)
                 .Default(std::nullopt);
  if (!parsed)
    return error("expected an element type (f32, f16 or bf16), got " +
                 describe());
  type = *parsed;
  consume();
  return true;
}

bool Parser::parseProblemStatement(ProblemDecl &problem) {
  SMLoc loc = tok.getLoc();
  if (!tok.is(Token::Identifier))
    return error("expected a problem statement (m, n, k, a, b, c or "
                 "accumulate), got " +
                 describe());
  StringRef name = tok.spelling;
  consume();

  if (name == "m" || name == "n" || name == "k") {
    std::optional<SizeDecl> &size =
        name == "m" ? problem.m : (name == "n" ? problem.n : problem.k);
    if (!checkUnique(size, name, loc) || !expect(Token::Equal, "'='"))
      return false;
    SizeDecl decl;
    decl.loc = tok.getLoc();
    if (!parseInteger(decl.value, "a size"))
      return false;
    if (decl.value == 0)
      return error(decl.loc, "size '" + name + "' must be positive, got 0");
    decl.loc = loc;
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
      decl.layout = tok.spelling == "row" ? MatrixLayout::Row
                                          : MatrixLayout::Col;
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

  return error(loc, "unknown problem statement '" + name +
                        "' (expected m, n, k, a, b, c or accumulate)");
}

bool Parser::parseProblem(ProblemDecl &problem) {
  SMLoc open = tok.getLoc();
  if (!expect(Token::LBrace, "'{' after 'problem'"))
    return false;
  while (!tok.is(Token::RBrace) && !tok.is(Token::Eof)) {
    if (!parseProblemStatement(problem))
      return false;
    skipSemicolon();
  }
  return parseClosingBrace(open, "'problem' section");
}

bool Parser::parseDirective(ScheduleDecl &schedule) {
  SMLoc loc = tok.getLoc();
  if (!tok.is(Token::Identifier))
    return error("expected a schedule directive, got " + describe());
  StringRef name = tok.spelling;

  std::optional<DirectiveKind> kind =
      llvm::StringSwitch<std::optional<DirectiveKind>>(name)
          .Case("tile", DirectiveKind::Tile)
          .Case("coalesce", DirectiveKind::Coalesce)
          .Default(std::nullopt);
  if (!kind) {
    if (isUnimplementedDirective(name))
      return error(loc, "directive '" + name + "' is not implemented yet");
    return error(loc, "unknown directive '" + name + "'");
  }
  for (const Directive &previous : schedule.directives) {
    if (previous.kind != *kind)
      continue;
    error(loc, "directive '" + name + "' is given twice");
    note(previous.loc, "first given here");
    return false;
  }
  consume();

  Directive directive{*kind, loc, {}};
  if (*kind == DirectiveKind::Tile) {
    do {
      SMLoc sizeLoc = tok.getLoc();
      if (!parseInteger(directive.args.emplace_back(),
                        "a tile size (BMxBN or BMxBNxBK)"))
        return false;
      if (directive.args.back() == 0)
        return error(sizeLoc, "tile sizes must be positive, got 0");
    } while (tok.is(Token::Times) && (consume(), true));
    if (directive.args.size() != 2 && directive.args.size() != 3)
      return error(loc, "'tile' takes BMxBN or BMxBNxBK, got " +
                            Twine(directive.args.size()) + " sizes");
  }
  schedule.directives.push_back(std::move(directive));
  return true;
}

bool Parser::parseSchedule(ScheduleDecl &schedule) {
  SMLoc open = tok.getLoc();
  if (!expect(Token::LBrace, "'{' after 'schedule'"))
    return false;
  while (!tok.is(Token::RBrace) && !tok.is(Token::Eof)) {
    if (!parseDirective(schedule))
      return false;
    skipSemicolon();
  }
  return parseClosingBrace(open, "'schedule' section");
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
  if (!tok.is(Token::Identifier)) {
    error("expected the kernel's name after 'kernel', got " + describe());
    return std::nullopt;
  }
  kernel.name = tok.spelling.str();
  if (kernel.name.find('-') != std::string::npos) {
    error("kernel name '" + kernel.name +
          "' is not a valid PTX identifier (use letters, digits and '_')");
    return std::nullopt;
  }
  kernel.loc = tok.getLoc();
  consume();

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
    if (tok.isKeyword("schedule")) {
      if (!checkUnique(kernel.schedule, "schedule", loc))
        return std::nullopt;
      consume();
      ScheduleDecl schedule;
      schedule.loc = loc;
      if (!parseSchedule(schedule))
        return std::nullopt;
      kernel.schedule = std::move(schedule);
      continue;
    }
    error("expected 'problem' or 'schedule', got " + describe());
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
