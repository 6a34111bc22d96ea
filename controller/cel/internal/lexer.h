// File: controller/cel/internal/lexer.h
// CEL text -> tokens, following the lexical grammar of the CEL specification (langdef.md) and
// cel-go's ANTLR lexer: identifiers, keywords, int/uint/double literals, quoted, triple-quoted,
// raw and bytes literals with every escape, operators and punctuation, `//` comments.
//
// String and bytes literals are decoded here (escapes resolved); numeric literals keep their text
// because the parser folds a leading `-` into them before range checking.
// Unrecognized input is reported as "Syntax error: token recognition error at: '...'" and
// skipped, as ANTLR does, so the parser can still report later problems.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace gpuprofile::cel::internal {

enum class TokenKind {
  kEof,
  kIdent,
  kInt,     // decimal or 0x hex, without sign; text in Token::text
  kUint,    // as kInt with a u/U suffix (the suffix is not in Token::text)
  kDouble,  // text in Token::text
  kString,  // decoded value in Token::text
  kBytes,   // decoded value in Token::text
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kNot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  int32_t offset = 0;  // byte offset of the first character
  int32_t end = 0;     // byte offset one past the last character
  // kIdent: the name; numbers: the digits (with 0x prefix for hex); kString/kBytes: the value.
  std::string text;
};

// A problem found while tokenizing, at a byte offset.
struct LexError {
  int32_t offset = 0;
  std::string message;
};

// Tokenizes all of `input`. The result always ends with one kEof token. At most `max_errors`
// problems are appended to `errors`; tokenizing continues past them.
std::vector<Token> Tokenize(absl::string_view input, std::vector<LexError>* errors,
                            int max_errors = 100);

// How a token kind is shown in syntax errors ("')'", "IDENTIFIER", ...).
std::string TokenKindName(TokenKind kind);

}  // namespace gpuprofile::cel::internal
