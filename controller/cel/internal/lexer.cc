// File: controller/cel/internal/lexer.cc
// Hand-written CEL tokenizer; see lexer.h. Works on bytes, decoding UTF-8 only inside literals
// and for error text, so that malformed UTF-8 can never make it read past the end of the input.
#include "controller/cel/internal/lexer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr uint32_t kReplacementChar = 0xFFFD;

// Decodes the UTF-8 sequence at `s[i]` into `*cp` and returns its length. Invalid or truncated
// sequences decode as U+FFFD of length 1, as Go's []rune conversion does for cel-go's input.
int DecodeUtf8(absl::string_view s, size_t i, uint32_t* cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  int n = 0;
  uint32_t v = 0;
  uint32_t min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    *cp = kReplacementChar;
    return 1;
  }
  if (i + n > s.size()) {
    *cp = kReplacementChar;
    return 1;
  }
  for (int k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) {
      *cp = kReplacementChar;
      return 1;
    }
    v = (v << 6) | (cc & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
    *cp = kReplacementChar;
    return 1;
  }
  *cp = v;
  return n;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool IsHexDigit(char c) {
  return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentPart(char c) { return IsIdentStart(c) || absl::ascii_isdigit(c); }
int HexValue(char c) {
  if (absl::ascii_isdigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

class Lexer {
 public:
  Lexer(absl::string_view in, std::vector<LexError>* errors, int max_errors)
      : in_(in), errors_(errors), max_errors_(max_errors) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpaceAndComments();
      if (pos_ >= in_.size()) break;
      Token token;
      if (Next(&token)) tokens.push_back(std::move(token));
    }
    Token eof;
    eof.kind = TokenKind::kEof;
    eof.offset = eof.end = static_cast<int32_t>(in_.size());
    tokens.push_back(std::move(eof));
    return tokens;
  }

 private:
  void Error(size_t offset, std::string message) {
    if (static_cast<int>(errors_->size()) >= max_errors_) return;
    errors_->push_back({static_cast<int32_t>(offset), std::move(message)});
  }

  // ANTLR's wording for input no token rule matches; `end` is exclusive.
  void RecognitionError(size_t start, size_t end) {
    std::string text;
    for (char c : in_.substr(start, end - start)) {
      // Keep the message on one line, as ANTLR escapes control characters.
      if (c == '\n') {
        text += "\\n";
      } else if (c == '\r') {
        text += "\\r";
      } else if (c == '\t') {
        text += "\\t";
      } else {
        text += c;
      }
    }
    Error(start, absl::StrCat("Syntax error: token recognition error at: '", text, "'"));
  }

  char At(size_t i) const { return i < in_.size() ? in_[i] : '\0'; }

  void SkipSpaceAndComments() {
    while (pos_ < in_.size()) {
      const char c = in_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
        ++pos_;
      } else if (c == '/' && At(pos_ + 1) == '/') {
        while (pos_ < in_.size() && in_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  // Lexes one token at pos_. Returns false (after reporting) when the input there is not a token.
  bool Next(Token* token) {
    const size_t start = pos_;
    token->offset = static_cast<int32_t>(start);
    const char c = in_[pos_];
    const char c1 = At(pos_ + 1);
    const auto is_quote = [](char q) { return q == '"' || q == '\''; };
    bool ok = true;
    if ((c == 'r' || c == 'R') && is_quote(c1)) {
      ok = LexQuoted(start, pos_ + 1, /*raw=*/true, /*bytes=*/false, token);
    } else if ((c == 'b' || c == 'B') && is_quote(c1)) {
      ok = LexQuoted(start, pos_ + 1, /*raw=*/false, /*bytes=*/true, token);
    } else if ((c == 'b' || c == 'B') && (c1 == 'r' || c1 == 'R') && is_quote(At(pos_ + 2))) {
      ok = LexQuoted(start, pos_ + 2, /*raw=*/true, /*bytes=*/true, token);
    } else if (is_quote(c)) {
      ok = LexQuoted(start, pos_, /*raw=*/false, /*bytes=*/false, token);
    } else if (IsIdentStart(c)) {
      while (pos_ < in_.size() && IsIdentPart(in_[pos_])) ++pos_;
      token->text = std::string(in_.substr(start, pos_ - start));
      token->kind = TokenKind::kIdent;
      if (token->text == "true") token->kind = TokenKind::kTrue;
      if (token->text == "false") token->kind = TokenKind::kFalse;
      if (token->text == "null") token->kind = TokenKind::kNull;
      if (token->text == "in") token->kind = TokenKind::kIn;
    } else if (absl::ascii_isdigit(c) || (c == '.' && absl::ascii_isdigit(c1))) {
      LexNumber(token);
    } else {
      ok = LexPunctuation(token);
    }
    token->end = static_cast<int32_t>(pos_);
    return ok;
  }

  bool LexPunctuation(Token* token) {
    const char c = in_[pos_];
    const char c1 = At(pos_ + 1);
    TokenKind kind = TokenKind::kEof;
    int len = 1;
    switch (c) {
      case '(':
        kind = TokenKind::kLParen;
        break;
      case ')':
        kind = TokenKind::kRParen;
        break;
      case '[':
        kind = TokenKind::kLBracket;
        break;
      case ']':
        kind = TokenKind::kRBracket;
        break;
      case '{':
        kind = TokenKind::kLBrace;
        break;
      case '}':
        kind = TokenKind::kRBrace;
        break;
      case '.':
        kind = TokenKind::kDot;
        break;
      case ',':
        kind = TokenKind::kComma;
        break;
      case ':':
        kind = TokenKind::kColon;
        break;
      case '?':
        kind = TokenKind::kQuestion;
        break;
      case '+':
        kind = TokenKind::kPlus;
        break;
      case '-':
        kind = TokenKind::kMinus;
        break;
      case '*':
        kind = TokenKind::kStar;
        break;
      case '/':
        kind = TokenKind::kSlash;
        break;
      case '%':
        kind = TokenKind::kPercent;
        break;
      case '!':
        kind = c1 == '=' ? TokenKind::kNe : TokenKind::kNot;
        len = c1 == '=' ? 2 : 1;
        break;
      case '<':
        kind = c1 == '=' ? TokenKind::kLe : TokenKind::kLt;
        len = c1 == '=' ? 2 : 1;
        break;
      case '>':
        kind = c1 == '=' ? TokenKind::kGe : TokenKind::kGt;
        len = c1 == '=' ? 2 : 1;
        break;
      case '=':
        if (c1 == '=') kind = TokenKind::kEq, len = 2;
        break;
      case '&':
        if (c1 == '&') kind = TokenKind::kAnd, len = 2;
        break;
      case '|':
        if (c1 == '|') kind = TokenKind::kOr, len = 2;
        break;
      default:
        break;
    }
    if (kind == TokenKind::kEof) {
      uint32_t cp;
      const int n = DecodeUtf8(in_, pos_, &cp);
      RecognitionError(pos_, pos_ + n);
      pos_ += n;
      return false;
    }
    token->kind = kind;
    pos_ += len;
    return true;
  }

  // NUM_INT, NUM_UINT and NUM_FLOAT of the CEL grammar. Range checks happen in the parser.
  void LexNumber(Token* token) {
    const size_t start = pos_;
    if (in_[pos_] == '0' && (At(pos_ + 1) == 'x' || At(pos_ + 1) == 'X') &&
        IsHexDigit(At(pos_ + 2))) {
      pos_ += 2;
      while (IsHexDigit(At(pos_))) ++pos_;
      token->text = std::string(in_.substr(start, pos_ - start));
      token->kind = TokenKind::kInt;
      if (At(pos_) == 'u' || At(pos_) == 'U') {
        token->kind = TokenKind::kUint;
        ++pos_;
      }
      return;
    }
    bool is_float = false;
    while (absl::ascii_isdigit(At(pos_))) ++pos_;
    if (At(pos_) == '.' && absl::ascii_isdigit(At(pos_ + 1))) {
      is_float = true;
      ++pos_;
      while (absl::ascii_isdigit(At(pos_))) ++pos_;
    }
    if (At(pos_) == 'e' || At(pos_) == 'E') {
      size_t p = pos_ + 1;
      if (At(p) == '+' || At(p) == '-') ++p;
      if (absl::ascii_isdigit(At(p))) {
        is_float = true;
        while (absl::ascii_isdigit(At(p))) ++p;
        pos_ = p;
      }
    }
    token->text = std::string(in_.substr(start, pos_ - start));
    if (is_float) {
      token->kind = TokenKind::kDouble;
      return;
    }
    token->kind = TokenKind::kInt;
    if (At(pos_) == 'u' || At(pos_) == 'U') {
      token->kind = TokenKind::kUint;
      ++pos_;
    }
  }

  // A quoted literal whose opening quote is at `quote`; `start` includes any r/b prefix.
  // On a lexical problem the error is reported and scanning continues to the closing quote, so
  // that one bad escape yields one error rather than a cascade.
  bool LexQuoted(size_t start, size_t quote, bool raw, bool bytes, Token* token) {
    const char q = in_[quote];
    const bool triple = At(quote + 1) == q && At(quote + 2) == q;
    size_t i = quote + (triple ? 3 : 1);
    std::string value;
    while (true) {
      if (i >= in_.size()) {
        RecognitionError(start, in_.size());
        pos_ = in_.size();
        return false;
      }
      const char c = in_[i];
      if (triple) {
        if (c == q && At(i + 1) == q && At(i + 2) == q) {
          i += 3;
          break;
        }
      } else {
        if (c == q) {
          ++i;
          break;
        }
        if (c == '\n' || c == '\r') {
          RecognitionError(start, i);
          pos_ = i;
          return false;
        }
      }
      if (c == '\\' && !raw) {
        Escape(start, &i, bytes, &value);
        continue;
      }
      uint32_t cp;
      const int n = DecodeUtf8(in_, i, &cp);
      AppendUtf8(cp, &value);
      i += n;
    }
    pos_ = i;
    token->kind = bytes ? TokenKind::kBytes : TokenKind::kString;
    token->text = std::move(value);
    // A literal with a bad escape still becomes a token (the error is already recorded) so that
    // the parser does not add a second, misleading error for the same text.
    return true;
  }

  // Decodes the escape at `*i` (a backslash) into `value`, advancing `*i` past it. Returns
  // false after reporting an invalid escape.
  bool Escape(size_t start, size_t* i, bool bytes, std::string* value) {
    const size_t at = *i;
    const char e = At(at + 1);
    auto put_code_point = [&](uint32_t cp) {
      if (bytes) {
        *value += static_cast<char>(cp);
      } else {
        AppendUtf8(cp, value);
      }
    };
    auto read_hex = [&](size_t from, int digits, uint32_t* out) {
      uint32_t v = 0;
      for (int k = 0; k < digits; ++k) {
        const char h = At(from + k);
        if (!IsHexDigit(h)) return false;
        v = v * 16 + static_cast<uint32_t>(HexValue(h));
      }
      *out = v;
      return true;
    };
    switch (e) {
      case 'a':
        *value += '\a';
        *i += 2;
        return true;
      case 'b':
        *value += '\b';
        *i += 2;
        return true;
      case 'f':
        *value += '\f';
        *i += 2;
        return true;
      case 'n':
        *value += '\n';
        *i += 2;
        return true;
      case 'r':
        *value += '\r';
        *i += 2;
        return true;
      case 't':
        *value += '\t';
        *i += 2;
        return true;
      case 'v':
        *value += '\v';
        *i += 2;
        return true;
      case '\\':
      case '\'':
      case '"':
      case '?':
      case '`':
        *value += e;
        *i += 2;
        return true;
      case 'x':
      case 'X': {
        uint32_t v;
        if (!read_hex(at + 2, 2, &v)) break;
        put_code_point(v);
        *i += 4;
        return true;
      }
      case 'u':
      case 'U': {
        const int digits = e == 'u' ? 4 : 8;
        uint32_t v;
        if (!read_hex(at + 2, digits, &v)) break;
        *i += 2 + digits;
        const std::string text(in_.substr(at, 2 + digits));
        if (bytes) {
          Error(at, absl::StrCat("invalid escape sequence '", text,
                                 "': unicode escapes are not allowed in bytes literals"));
          return false;
        }
        if (v >= 0xD800 && v <= 0xDFFF) {
          Error(at, absl::StrCat("invalid escape sequence '", text,
                                 "': surrogate code points are not allowed"));
          return false;
        }
        if (v > 0x10FFFF) {
          Error(at, absl::StrCat("invalid escape sequence '", text, "': code point out of range"));
          return false;
        }
        AppendUtf8(v, value);
        return true;
      }
      default:
        if (e >= '0' && e <= '3' && At(at + 2) >= '0' && At(at + 2) <= '7' && At(at + 3) >= '0' &&
            At(at + 3) <= '7') {
          put_code_point(
              static_cast<uint32_t>((e - '0') * 64 + (At(at + 2) - '0') * 8 + (At(at + 3) - '0')));
          *i += 4;
          return true;
        }
        break;
    }
    // Not an escape the grammar knows: report the literal up to and including the bad character
    // and skip the backslash and that character.
    size_t bad_end = std::min(at + 2, in_.size());
    RecognitionError(start, bad_end);
    *i = bad_end;
    return false;
  }

  absl::string_view in_;
  std::vector<LexError>* errors_;
  int max_errors_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(absl::string_view input, std::vector<LexError>* errors,
                            int max_errors) {
  return Lexer(input, errors, max_errors).Run();
}

std::string TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof:
      return "<EOF>";
    case TokenKind::kIdent:
      return "IDENTIFIER";
    case TokenKind::kInt:
      return "NUM_INT";
    case TokenKind::kUint:
      return "NUM_UINT";
    case TokenKind::kDouble:
      return "NUM_FLOAT";
    case TokenKind::kString:
      return "STRING";
    case TokenKind::kBytes:
      return "BYTES";
    case TokenKind::kTrue:
      return "'true'";
    case TokenKind::kFalse:
      return "'false'";
    case TokenKind::kNull:
      return "'null'";
    case TokenKind::kIn:
      return "'in'";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kDot:
      return "'.'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kQuestion:
      return "'?'";
    case TokenKind::kPlus:
      return "'+'";
    case TokenKind::kMinus:
      return "'-'";
    case TokenKind::kStar:
      return "'*'";
    case TokenKind::kSlash:
      return "'/'";
    case TokenKind::kPercent:
      return "'%'";
    case TokenKind::kNot:
      return "'!'";
    case TokenKind::kEq:
      return "'=='";
    case TokenKind::kNe:
      return "'!='";
    case TokenKind::kLt:
      return "'<'";
    case TokenKind::kLe:
      return "'<='";
    case TokenKind::kGt:
      return "'>'";
    case TokenKind::kGe:
      return "'>='";
    case TokenKind::kAnd:
      return "'&&'";
    case TokenKind::kOr:
      return "'||'";
  }
  return "?";
}

}  // namespace gpuprofile::cel::internal
