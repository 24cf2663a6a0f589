//===- Lexer.cpp - the schedule language's lexer -------------------------===//

#include "gemmc/Frontend/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <string>

using namespace gemmc;

Lexer::Lexer(llvm::SourceMgr &sourceMgr, unsigned bufferId)
    : sourceMgr(sourceMgr) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  cur = buffer->getBufferStart();
  end = buffer->getBufferEnd();
}

Token Lexer::makeToken(Token::Kind kind, const char *start) {
  Token token;
  token.kind = kind;
  token.spelling = llvm::StringRef(start, cur - start);
  return token;
}

Token Lexer::emitError(const char *loc, const llvm::Twine &message) {
  sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(loc),
                         llvm::SourceMgr::DK_Error, message);
  Token token;
  token.kind = Token::Error;
  token.spelling = llvm::StringRef(loc, 0);
  return token;
}

void Lexer::skipWhitespaceAndComments() {
  while (cur != end) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++cur;
      continue;
    }
    bool lineComment =
        c == '#' || (c == '/' && cur + 1 != end && cur[1] == '/');
    if (!lineComment)
      return;
    while (cur != end && *cur != '\n')
      ++cur;
  }
}

static bool isIdentifierStart(char c) { return llvm::isAlpha(c) || c == '_'; }

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '-';
}

Token Lexer::lexIdentifier(const char *start) {
  while (cur != end && isIdentifierChar(*cur))
    ++cur;
  return makeToken(Token::Identifier, start);
}

Token Lexer::lexInteger(const char *start) {
  int64_t value = 0;
  bool overflow = false;
  cur = start;
  while (cur != end && llvm::isDigit(*cur)) {
    if (!overflow) {
      value = value * 10 + (*cur - '0');
      overflow = value > kMaxInteger;
    }
    ++cur;
  }
  // A decimal number (a variant's cost constants): digits, '.', digits.
  if (cur != end && *cur == '.' && cur + 1 != end && llvm::isDigit(cur[1])) {
    ++cur;
    while (cur != end && llvm::isDigit(*cur))
      ++cur;
    if (cur != end && (isIdentifierStart(*cur) || *cur == '.'))
      return emitError(cur, "expected whitespace or punctuation after number");
    Token token = makeToken(Token::Decimal, start);
    // Parsed in the C locale, as strtod does without setlocale: the same
    // value from every build.
    token.decimalValue = std::strtod(std::string(start, cur).c_str(), nullptr);
    return token;
  }
  if (overflow)
    return emitError(start, "integer '" + llvm::StringRef(start, cur - start) +
                                "' is too large (the limit is " +
                                llvm::Twine(kMaxInteger) + ")");
  if (cur != end && isIdentifierStart(*cur) &&
      !(*cur == 'x' && cur + 1 != end && llvm::isDigit(cur[1])))
    return emitError(cur, "expected whitespace or punctuation after integer");
  Token token = makeToken(Token::Integer, start);
  token.intValue = value;
  integerEnd = cur;
  return token;
}

Token Lexer::lex() {
  skipWhitespaceAndComments();
  const char *start = cur;
  bool afterInteger = integerEnd == start;
  integerEnd = nullptr;
  if (cur == end)
    return makeToken(Token::Eof, start);

  char c = *cur++;
  if (afterInteger && c == 'x' && cur != end && llvm::isDigit(*cur))
    return makeToken(Token::Times, start);
  if (isIdentifierStart(c))
    return lexIdentifier(start);
  if (llvm::isDigit(c))
    return lexInteger(start);

  switch (c) {
  case '{':
    return makeToken(Token::LBrace, start);
  case '}':
    return makeToken(Token::RBrace, start);
  case '=':
    return makeToken(Token::Equal, start);
  case ';':
    return makeToken(Token::Semicolon, start);
  case ',':
    return makeToken(Token::Comma, start);
  case '?':
    return makeToken(Token::Question, start);
  case '<':
  case '>':
    if (cur != end && *cur == '=') {
      ++cur;
      return makeToken(c == '<' ? Token::LessEqual : Token::GreaterEqual,
                       start);
    }
    return emitError(start, llvm::Twine("unexpected character '") + llvm::Twine(c) +
                                "' (a variant's condition is 'm <= 64' or "
                                "'m >= 64')");
  case '-':
    if (cur != end && llvm::isDigit(*cur))
      return emitError(start, "negative numbers are not allowed here");
    break;
  default:
    break;
  }

  std::string shown;
  llvm::raw_string_ostream os(shown);
  auto byte = static_cast<unsigned char>(c);
  if (llvm::isPrint(c))
    os << "character '" << c << "'";
  else
    os << "byte 0x" << llvm::format_hex_no_prefix(byte, 2);
  return emitError(start, "unexpected " + shown);
}
