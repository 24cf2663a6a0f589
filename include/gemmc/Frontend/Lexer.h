//===- Lexer.h - the schedule language's lexer ------------------*- C++ -*-===//

#ifndef GEMMC_FRONTEND_LEXER_H
#define GEMMC_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdint>

namespace gemmc {

struct Token {
  enum Kind {
    Eof,
    Error,      ///< A lexical error, already reported.
    Identifier, ///< [A-Za-z_][A-Za-z0-9_-]*
    Integer,    ///< [0-9]+, value in `intValue`
    Decimal,    ///< [0-9]+.[0-9]+, value in `decimalValue`
    Times,      ///< The `x` between the sizes of a shape: 32x32.
    LBrace,
    RBrace,
    Equal,
    Semicolon,
    Comma,
    Question,  ///< `?`: a size given at launch.
    LessEqual,    ///< `<=` in a variant's condition.
    GreaterEqual, ///< `>=` in a variant's condition.
  };

  Kind kind = Eof;
  llvm::StringRef spelling;
  int64_t intValue = 0;
  double decimalValue = 0;

  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  bool is(Kind k) const { return kind == k; }
  bool isKeyword(llvm::StringRef word) const {
    return kind == Identifier && spelling == word;
  }
};

/// Splits one buffer of a SourceMgr into tokens. Comments run from `#` or
/// `//` to the end of the line. Lexical errors are reported through the
/// SourceMgr and produce an `Error` token.
class Lexer {
public:
  Lexer(llvm::SourceMgr &sourceMgr, unsigned bufferId);

  Token lex();

  /// Largest integer literal accepted: sizes and tile sizes fit in 32 bits.
  static constexpr int64_t kMaxInteger = (int64_t(1) << 31) - 1;

private:
  Token makeToken(Token::Kind kind, const char *start);
  Token emitError(const char *loc, const llvm::Twine &message);
  void skipWhitespaceAndComments();
  Token lexIdentifier(const char *start);
  Token lexInteger(const char *start);

  llvm::SourceMgr &sourceMgr;
  const char *cur;
  const char *end;
  /// The previous token was an integer ending right here: an `x` followed by
  /// a digit separates the sizes of a shape.
  const char *integerEnd = nullptr;
};

} // namespace gemmc

#endif // GEMMC_FRONTEND_LEXER_H
