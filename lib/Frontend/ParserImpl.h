//===- ParserImpl.h - the schedule language's parser ------------*- C++ -*-===//
//
// The recursive-descent parser of docs/dsl.md, one class in two parts:
// Parser.cpp (tokens, the problem section, schedules, variants, the file)
// and ParseDirectives.cpp (each directive's arguments).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_FRONTEND_PARSERIMPL_H
#define GEMMC_LIB_FRONTEND_PARSERIMPL_H

#include "gemmc/Frontend/Lexer.h"
#include "gemmc/Frontend/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace gemmc::parser {

using llvm::SMLoc;
using llvm::SourceMgr;
using llvm::StringRef;
using llvm::Twine;

class Parser {
public:
  Parser(SourceMgr &sourceMgr)
      : sourceMgr(sourceMgr), lexer(sourceMgr, sourceMgr.getMainFileID()) {
    consume();
  }

  std::optional<KernelDecl> parseFile();

private:
  void consume() { tok = lexer.lex(); }

  /// Reports an error at `loc` unless the lexer already reported one.
  bool error(SMLoc loc, const Twine &message) {
    if (!tok.is(Token::Error))
      sourceMgr.PrintMessage(loc, SourceMgr::DK_Error, message);
    return false;
  }
  bool error(const Twine &message) { return error(tok.getLoc(), message); }
  void note(SMLoc loc, const Twine &message) {
    sourceMgr.PrintMessage(loc, SourceMgr::DK_Note, message);
  }

  /// The current token, for "expected X, got Y" messages.
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
  bool consumeIf(StringRef keyword) {
    if (!tok.isKeyword(keyword))
      return false;
    consume();
    return true;
  }

  /// Consumes `first` or `second` (`isSecond` says which), else reports
  /// "expected 'first' or 'second'[ after 'context'], got ...".
  bool parseEitherOf(StringRef first, StringRef second, bool &isSecond,
                     StringRef context = "") {
    isSecond = consumeIf(second);
    if (isSecond || consumeIf(first))
      return true;
    std::string after =
        context.empty() ? "" : (" after '" + context + "'").str();
    return error("expected '" + first + "' or '" + second + "'" + after +
                 ", got " + describe());
  }

  template <typename T>
  bool checkUnique(const std::optional<T> &previous, StringRef name,
                   SMLoc loc) {
    if (!previous)
      return true;
    error(loc, "'" + name + "' is given twice");
    note(previous->loc, "first given here");
    return false;
  }

  bool parseClosingBrace(SMLoc open, StringRef what);
  bool parseInteger(int64_t &value, StringRef what);
  bool parsePositive(int64_t &value, const Twine &what);
  bool parseSize(SizeDecl &size, StringRef name);
  bool parseShape(Directive &d, StringRef syntax, size_t minDims,
                  size_t maxDims);
  bool parseElementType(ElementType &type, SMLoc &loc);
  bool parseProblem(ProblemDecl &problem);
  bool parseProblemStatement(ProblemDecl &problem);
  bool parseBatch(BatchDecl &batch);
  bool parseSchedule(ScheduleDecl &schedule, StringRef what);
  bool parseCost(VariantDecl &variant);
  bool parseName(std::string &name, StringRef what);
  bool parseVariant(KernelDecl &kernel);
  bool parseCondition(VariantDecl &variant);
  bool parseDirective(ScheduleDecl &schedule);
  bool parsePromote(Directive &d);
  bool parseVectorize(Directive &d);
  bool parseMma(Directive &d);
  bool parseWgmma(Directive &d);
  bool parseOperands(Directive &d, StringRef what, StringRef verb,
                     bool withC = false);
  bool parseInstructionShape(Directive &d, StringRef expected);
  bool parsePipeline(Directive &d);
  bool parseUnroll(Directive &d);
  bool parseEdges(Directive &d);

  SourceMgr &sourceMgr;
  Lexer lexer;
  Token tok;
};

} // namespace gemmc::parser

#endif // GEMMC_LIB_FRONTEND_PARSERIMPL_H
