// File: controller/cel/internal/parser.cc
// Recursive-descent CEL parser over the tokens of lexer.h. Grammar (CEL langdef.md):
//   Expr    = ConditionalOr ["?" ConditionalOr ":" Expr]
//   ConditionalOr/And, Relation, Addition, Multiplication: left-associative binary operators
//   Unary   = Member | "!" {"!"} Member | "-" {"-"} Member
//   Member  = Primary {"." ["?"] IDENT ["(" args ")"] | "[" ["?"] Expr "]"}
//   Primary = ["."] IDENT ["(" args ")"] | ["."] IDENT {"." IDENT} "{" fields "}" | "(" Expr ")"
//           | "[" elems "]" | "{" entries "}" | literal
// Stack safety: every recursion cycle goes through ParseExpr, which counts nesting; binary
// operators and member chains are built in loops, and ExprFactory bounds the height of every
// tree so that recursive passes over an accepted Ast (VisitExpr, destructors) stay shallow.
// Error recovery is deliberately simple: all lexical and semantic errors are collected, and the
// first syntax error stops parsing (what follows it would mostly be noise).
#include "controller/cel/internal/parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/cel/internal/lexer.h"
#include "controller/cel/internal/macros.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/literal.h"

namespace gpuprofile::cel::internal {
namespace {

// Reported errors beyond this many are dropped; a garbage input can otherwise produce one error
// per byte.
constexpr int kMaxErrors = 100;
// Headroom of tree height over max_recursion_depth: a leaf below the deepest nesting, plus the
// few levels a macro expansion adds around its arguments.
constexpr int kHeightSlack = 8;

constexpr char kExprStart[] =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

struct Error {
  int32_t offset;
  std::string message;
};

struct BinaryOp {
  TokenKind kind;
  int precedence;  // 3 relations, 4 additive, 5 multiplicative
  const char* function;
};

const BinaryOp* FindBinaryOp(TokenKind kind) {
  static constexpr BinaryOp kOps[] = {
      {TokenKind::kLt, 3, op::kLess},        {TokenKind::kLe, 3, op::kLessEquals},
      {TokenKind::kGt, 3, op::kGreater},     {TokenKind::kGe, 3, op::kGreaterEquals},
      {TokenKind::kEq, 3, op::kEquals},      {TokenKind::kNe, 3, op::kNotEquals},
      {TokenKind::kIn, 3, op::kIn},          {TokenKind::kPlus, 4, op::kAdd},
      {TokenKind::kMinus, 4, op::kSubtract}, {TokenKind::kStar, 5, op::kMultiply},
      {TokenKind::kSlash, 5, op::kDivide},   {TokenKind::kPercent, 5, op::kModulo},
  };
  for (const BinaryOp& o : kOps) {
    if (o.kind == kind) return &o;
  }
  return nullptr;
}

class Parser {
 public:
  Parser(absl::string_view text, const ParserOptions& options, std::vector<Token> tokens)
      : text_(text),
        options_(options),
        tokens_(std::move(tokens)),
        factory_(options.max_recursion_depth + kHeightSlack) {}

  ExprPtr ParseTop() {
    ExprPtr e = ParseExpr();
    if (e && Peek().kind != TokenKind::kEof) {
      SyntaxError(Peek(), "<EOF>");
      return nullptr;
    }
    return e;
  }

  std::vector<Error>& errors() { return errors_; }
  int64_t max_id() const { return factory_.max_id(); }

 private:
  // ---- tokens and errors ----
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool At(TokenKind kind) const { return Peek().kind == kind; }

  void AddError(int32_t offset, std::string message) {
    if (static_cast<int>(errors_.size()) < kMaxErrors) {
      errors_.push_back({offset, std::move(message)});
    }
  }

  std::string TokenText(const Token& t) const {
    if (t.kind == TokenKind::kEof) return "<EOF>";
    std::string out;
    for (char c : text_.substr(t.offset, t.end - t.offset)) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += c;
      }
    }
    return out;
  }

  // Reports a syntax error at `t` and stops the parse.
  void SyntaxError(const Token& t, absl::string_view expecting) {
    AddError(t.offset, absl::StrCat("Syntax error: mismatched input '", TokenText(t),
                                    "' expecting ", expecting));
    failed_ = true;
  }

  void RecursionError(int32_t offset) {
    if (!failed_) {
      AddError(offset,
               absl::StrCat("expression recursion limit exceeded: ", options_.max_recursion_depth));
    }
    failed_ = true;
  }

  // False once parsing must stop: a syntax error, or a tree grew too deep.
  bool Ok() {
    if (!failed_ && factory_.height_exceeded()) RecursionError(factory_.height_exceeded_offset());
    return !failed_;
  }

  bool Expect(TokenKind kind) {
    if (At(kind)) {
      Advance();
      return true;
    }
    SyntaxError(Peek(), TokenKindName(kind));
    return false;
  }

  // ---- grammar ----

  // Expr = ConditionalOr ["?" ConditionalOr ":" Expr]. Entering counts one nesting level.
  ExprPtr ParseExpr() {
    if (!Ok()) return nullptr;
    if (depth_ >= options_.max_recursion_depth) {
      RecursionError(Peek().offset);
      return nullptr;
    }
    ++depth_;
    ExprPtr e = ParseConditional();
    --depth_;
    return e;
  }

  ExprPtr ParseConditional() {
    ExprPtr cond = ParseLogical(TokenKind::kOr);
    if (!cond || !At(TokenKind::kQuestion)) return cond;
    const int32_t offset = Advance().offset;
    ExprPtr then_expr = ParseLogical(TokenKind::kOr);
    if (!then_expr || !Expect(TokenKind::kColon)) return nullptr;
    ExprPtr else_expr = ParseExpr();
    if (!else_expr) return nullptr;
    ExprPtr e =
        factory_.NewCall(offset, op::kConditional,
                         MakeArgs(std::move(cond), std::move(then_expr), std::move(else_expr)));
    return Ok() ? std::move(e) : nullptr;
  }

  // `||` over `&&` terms, or `&&` over relation terms. Like cel-go, a chain of the same logical
  // operator becomes a balanced tree, so long chains stay shallow.
  ExprPtr ParseLogical(TokenKind kind) {
    std::vector<ExprPtr> terms;
    std::vector<int32_t> offsets;
    ExprPtr first = kind == TokenKind::kOr ? ParseLogical(TokenKind::kAnd) : ParseRelations();
    if (!first) return nullptr;
    terms.push_back(std::move(first));
    while (At(kind)) {
      offsets.push_back(Advance().offset);
      ExprPtr next = kind == TokenKind::kOr ? ParseLogical(TokenKind::kAnd) : ParseRelations();
      if (!next) return nullptr;
      terms.push_back(std::move(next));
    }
    if (terms.size() == 1) return std::move(terms[0]);
    const char* function = kind == TokenKind::kOr ? op::kLogicalOr : op::kLogicalAnd;
    ExprPtr e = Balance(function, terms, offsets, 0, static_cast<int>(offsets.size()) - 1);
    return Ok() ? std::move(e) : nullptr;
  }

  // cel-go's balancer: the operator at `mid` joins the balanced halves on either side.
  ExprPtr Balance(const char* function, std::vector<ExprPtr>& terms,
                  const std::vector<int32_t>& offsets, int lo, int hi) {
    const int mid = (lo + hi + 1) / 2;
    ExprPtr left =
        mid == lo ? std::move(terms[mid]) : Balance(function, terms, offsets, lo, mid - 1);
    ExprPtr right =
        mid == hi ? std::move(terms[mid + 1]) : Balance(function, terms, offsets, mid + 1, hi);
    return factory_.NewCall(offsets[mid], function, MakeArgs(std::move(left), std::move(right)));
  }

  // Relations, additive and multiplicative operators by precedence climbing with explicit
  // stacks: left-associative, and no recursion however long the chain.
  ExprPtr ParseRelations() {
    struct Pending {
      const BinaryOp* op;
      int32_t offset;
    };
    std::vector<ExprPtr> operands;
    std::vector<Pending> ops;
    auto reduce = [&]() {
      ExprPtr rhs = std::move(operands.back());
      operands.pop_back();
      ExprPtr lhs = std::move(operands.back());
      operands.pop_back();
      operands.push_back(factory_.NewCall(ops.back().offset, ops.back().op->function,
                                          MakeArgs(std::move(lhs), std::move(rhs))));
      ops.pop_back();
    };
    ExprPtr first = ParseUnary();
    if (!first) return nullptr;
    operands.push_back(std::move(first));
    while (const BinaryOp* o = FindBinaryOp(Peek().kind)) {
      while (!ops.empty() && ops.back().op->precedence >= o->precedence) reduce();
      if (!Ok()) return nullptr;
      ops.push_back({o, Advance().offset});
      ExprPtr next = ParseUnary();
      if (!next) return nullptr;
      operands.push_back(std::move(next));
    }
    while (!ops.empty()) reduce();
    if (!Ok()) return nullptr;
    return std::move(operands.back());
  }

  ExprPtr ParseUnary() {
    const TokenKind kind = Peek().kind;
    if (kind != TokenKind::kNot && kind != TokenKind::kMinus) return ParseMember();
    const int32_t offset = Peek().offset;
    int count = 0;
    while (At(kind)) {
      ++count;
      Advance();
    }
    // `-1` is the literal -1 (cel-go's grammar lets a literal carry its sign); with more minus
    // signs ANTLR's greedy loop takes them all as operators.
    const bool is_number = At(TokenKind::kInt) || At(TokenKind::kDouble);
    if (kind == TokenKind::kMinus && count == 1 && is_number) return ParseMember(offset);
    // Each operator counts as a nesting level (the contract in parser.h).
    if (depth_ + count > options_.max_recursion_depth) {
      RecursionError(offset);
      return nullptr;
    }
    depth_ += count;
    ExprPtr operand = ParseMember();
    depth_ -= count;
    if (!operand) return nullptr;
    // cel-go drops operator pairs: `!!a` is `a`, `--a` is `a`.
    if (count % 2 == 0) return operand;
    ExprPtr e = factory_.NewCall(offset, kind == TokenKind::kNot ? op::kLogicalNot : op::kNegate,
                                 MakeArgs(std::move(operand)));
    return Ok() ? std::move(e) : nullptr;
  }

  // `negative_offset` >= 0: a '-' at that offset was consumed and belongs to a number literal.
  ExprPtr ParseMember(int32_t negative_offset = -1) {
    ExprPtr e = negative_offset >= 0 ? ParseNumber(negative_offset) : ParsePrimary();
    while (e && Ok()) {
      if (At(TokenKind::kDot)) {
        e = ParseSelect(std::move(e));
      } else if (At(TokenKind::kLBracket)) {
        const int32_t offset = Advance().offset;
        const bool optional = ParseOptionalMarker("[?");
        if (!Ok()) return nullptr;
        ExprPtr index = ParseExpr();
        if (!index || !Expect(TokenKind::kRBracket)) return nullptr;
        e = factory_.NewCall(offset, optional ? op::kOptIndex : op::kIndex,
                             MakeArgs(std::move(e), std::move(index)));
      } else {
        break;
      }
    }
    return Ok() ? std::move(e) : nullptr;
  }

  // Consumes a `?` after '[', '.', or before a list element / map or field entry.
  bool ParseOptionalMarker(absl::string_view syntax) {
    if (!At(TokenKind::kQuestion)) return false;
    if (!options_.enable_optional_syntax) {
      AddError(Peek().offset, absl::StrCat("Syntax error: unsupported syntax '", syntax, "'"));
      failed_ = true;
      return false;
    }
    Advance();
    return true;
  }

  ExprPtr ParseSelect(ExprPtr operand) {
    const int32_t offset = Advance().offset;  // '.'
    const bool optional = ParseOptionalMarker(".?");
    if (!Ok()) return nullptr;
    if (!At(TokenKind::kIdent)) {
      SyntaxError(Peek(), "IDENTIFIER");
      return nullptr;
    }
    const Token& id = Advance();
    if (optional) {
      ExprPtr field = factory_.NewString(id.offset, id.text);
      return factory_.NewCall(offset, op::kOptSelect,
                              MakeArgs(std::move(operand), std::move(field)));
    }
    if (At(TokenKind::kLParen)) {
      const int32_t call_offset = Peek().offset;
      std::vector<ExprPtr> args;
      if (!ParseArgs(&args)) return nullptr;
      return CallOrMacro(call_offset, id.text, std::move(operand), std::move(args));
    }
    return factory_.NewSelect(offset, std::move(operand), id.text);
  }

  // "(" [Expr {"," Expr}] ")"; the current token is '('.
  bool ParseArgs(std::vector<ExprPtr>* args) {
    Advance();
    if (At(TokenKind::kRParen)) {
      Advance();
      return true;
    }
    while (true) {
      ExprPtr arg = ParseExpr();
      if (!arg) return false;
      args->push_back(std::move(arg));
      if (At(TokenKind::kComma)) {
        Advance();
        continue;
      }
      return Expect(TokenKind::kRParen);
    }
  }

  ExprPtr CallOrMacro(int32_t offset, const std::string& function, ExprPtr target,
                      std::vector<ExprPtr> args) {
    ExprPtr expansion;
    MacroError error;
    switch (ExpandMacro(factory_, options_, offset, function, target, args, &expansion, &error)) {
      case MacroOutcome::kExpanded:
        return expansion;
      case MacroOutcome::kError:
        // A semantic error: keep parsing (as a plain call) to find further problems.
        AddError(error.offset, error.message);
        break;
      case MacroOutcome::kNotMacro:
        break;
    }
    if (target) {
      return factory_.NewMemberCall(offset, function, std::move(target), std::move(args));
    }
    return factory_.NewCall(offset, function, std::move(args));
  }

  ExprPtr ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kDot:
      case TokenKind::kIdent:
        return ParseIdentOrCall();
      case TokenKind::kLParen: {
        Advance();
        ExprPtr e = ParseExpr();
        if (!e || !Expect(TokenKind::kRParen)) return nullptr;
        return e;
      }
      case TokenKind::kLBracket:
        return ParseList();
      case TokenKind::kLBrace:
        return ParseMap();
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble:
        return ParseNumber(-1);
      case TokenKind::kString:
      case TokenKind::kBytes: {
        Constant c;
        c.kind = t.kind == TokenKind::kString ? Constant::Kind::kString : Constant::Kind::kBytes;
        c.string_value = t.text;
        Advance();
        return factory_.NewConstant(t.offset, std::move(c));
      }
      case TokenKind::kTrue:
      case TokenKind::kFalse:
        Advance();
        return factory_.NewBool(t.offset, t.kind == TokenKind::kTrue);
      case TokenKind::kNull:
        Advance();
        return factory_.NewConstant(t.offset, Constant{});
      default:
        SyntaxError(t, kExprStart);
        return nullptr;
    }
  }

  // Int, uint or double literal at the current token; `negative_offset` >= 0 when a '-' at that
  // offset was folded into it. Range errors are semantic: reported, and parsing goes on.
  ExprPtr ParseNumber(int32_t negative_offset) {
    const Token& t = Advance();
    const bool negative = negative_offset >= 0;
    const int32_t offset = negative ? negative_offset : t.offset;
    Constant c;
    if (t.kind == TokenKind::kDouble) {
      c.kind = Constant::Kind::kDouble;
      errno = 0;
      const std::string text = (negative ? "-" : "") + t.text;
      c.double_value = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(c.double_value)) {
        AddError(offset, "invalid double literal");
      }
      return factory_.NewConstant(offset, std::move(c));
    }
    const bool hex = t.text.size() > 2 && (t.text[1] == 'x' || t.text[1] == 'X');
    absl::string_view digits = t.text;
    if (hex) digits.remove_prefix(2);
    // Parse the magnitude as uint64, then range-check for the literal's type and sign.
    uint64_t magnitude = 0;
    bool ok = hex ? absl::SimpleHexAtoi(digits, &magnitude) : absl::SimpleAtoi(digits, &magnitude);
    if (t.kind == TokenKind::kUint) {
      c.kind = Constant::Kind::kUint;
      c.uint_value = magnitude;
      if (!ok) AddError(offset, "invalid uint literal");
      return factory_.NewConstant(offset, std::move(c));
    }
    c.kind = Constant::Kind::kInt;
    constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;
    if (ok && negative && magnitude <= kMaxMagnitude) {
      c.int_value = magnitude == kMaxMagnitude ? std::numeric_limits<int64_t>::min()
                                               : -static_cast<int64_t>(magnitude);
    } else if (ok && !negative && magnitude < kMaxMagnitude) {
      c.int_value = static_cast<int64_t>(magnitude);
    } else {
      AddError(offset, "invalid int literal");
    }
    return factory_.NewConstant(offset, std::move(c));
  }

  // ["."] IDENT: an identifier, a global call (maybe a macro), or a message construction
  // `[.]a.b.C{...}` when a dotted name is followed by '{'.
  ExprPtr ParseIdentOrCall() {
    std::string prefix;
    if (At(TokenKind::kDot)) {
      Advance();
      prefix = ".";
      if (!At(TokenKind::kIdent)) {
        SyntaxError(Peek(), "IDENTIFIER");
        return nullptr;
      }
    }
    const Token& id = Advance();
    if (IsReservedWord(id.text)) {
      AddError(id.offset, absl::StrCat("reserved identifier: ", id.text));
    }
    // Message construction: scan `{"." IDENT} "{"` ahead without consuming.
    size_t k = 0;
    while (Peek(k).kind == TokenKind::kDot && Peek(k + 1).kind == TokenKind::kIdent) k += 2;
    if (Peek(k).kind == TokenKind::kLBrace) {
      std::string name = prefix + id.text;
      for (size_t i = 0; i < k; i += 2) {
        Advance();
        absl::StrAppend(&name, ".", Advance().text);
      }
      return ParseMessage(std::move(name));
    }
    if (At(TokenKind::kLParen)) {
      const int32_t call_offset = Peek().offset;
      std::vector<ExprPtr> args;
      if (!ParseArgs(&args)) return nullptr;
      return CallOrMacro(call_offset, prefix + id.text, nullptr, std::move(args));
    }
    return factory_.NewIdent(id.offset, prefix + id.text);
  }

  ExprPtr ParseMessage(std::string name) {
    const int32_t offset = Advance().offset;  // '{'
    std::vector<CreateEntry> entries;
    if (At(TokenKind::kComma) && Peek(1).kind == TokenKind::kRBrace) Advance();
    while (!At(TokenKind::kRBrace)) {
      const bool optional = ParseOptionalMarker("?");
      if (!Ok()) return nullptr;
      if (!At(TokenKind::kIdent)) {
        SyntaxError(Peek(), "IDENTIFIER");
        return nullptr;
      }
      std::string field = Advance().text;
      if (!At(TokenKind::kColon)) {
        SyntaxError(Peek(), "':'");
        return nullptr;
      }
      CreateEntry entry = factory_.NewEntry(Advance().offset);
      entry.field_name = std::move(field);
      entry.optional = optional;
      entry.value = ParseExpr();
      if (!entry.value) return nullptr;
      entries.push_back(std::move(entry));
      if (!At(TokenKind::kComma)) break;
      Advance();
    }
    if (!Expect(TokenKind::kRBrace)) return nullptr;
    return factory_.NewMessage(offset, std::move(name), std::move(entries));
  }

  ExprPtr ParseList() {
    const int32_t offset = Advance().offset;  // '['
    std::vector<ExprPtr> elements;
    std::vector<int32_t> optional_indices;
    // The grammar's `"[" [elems] [","] "]"` accepts `[,]`.
    if (At(TokenKind::kComma) && Peek(1).kind == TokenKind::kRBracket) Advance();
    while (!At(TokenKind::kRBracket)) {
      if (ParseOptionalMarker("?")) {
        optional_indices.push_back(static_cast<int32_t>(elements.size()));
      }
      if (!Ok()) return nullptr;
      ExprPtr e = ParseExpr();
      if (!e) return nullptr;
      elements.push_back(std::move(e));
      if (!At(TokenKind::kComma)) break;
      Advance();
    }
    if (!Expect(TokenKind::kRBracket)) return nullptr;
    return factory_.NewList(offset, std::move(elements), std::move(optional_indices));
  }

  ExprPtr ParseMap() {
    const int32_t offset = Advance().offset;  // '{'
    std::vector<CreateEntry> entries;
    if (At(TokenKind::kComma) && Peek(1).kind == TokenKind::kRBrace) Advance();
    while (!At(TokenKind::kRBrace)) {
      const bool optional = ParseOptionalMarker("?");
      if (!Ok()) return nullptr;
      ExprPtr key = ParseExpr();
      if (!key) return nullptr;
      if (!At(TokenKind::kColon)) {
        SyntaxError(Peek(), "':'");
        return nullptr;
      }
      CreateEntry entry = factory_.NewEntry(Advance().offset);
      entry.map_key = std::move(key);
      entry.optional = optional;
      entry.value = ParseExpr();
      if (!entry.value) return nullptr;
      entries.push_back(std::move(entry));
      if (!At(TokenKind::kComma)) break;
      Advance();
    }
    if (!Expect(TokenKind::kRBrace)) return nullptr;
    return factory_.NewMap(offset, std::move(entries));
  }

  absl::string_view text_;
  const ParserOptions& options_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = -1;  // the top-level expression is nesting level 0
  bool failed_ = false;
  ExprFactory factory_;
  std::vector<Error> errors_;
};

int64_t CountCodePoints(absl::string_view text) {
  int64_t n = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace

absl::StatusOr<Ast> Parse(absl::string_view text, const ParserOptions& options) {
  auto source = std::make_shared<const Source>(std::string(text), options.description);
  const int64_t size = CountCodePoints(text);
  if (size > options.max_expression_code_points) {
    return absl::InvalidArgumentError(source->FormatError(
        -1, absl::StrCat("expression code point size exceeds limit: size: ", size, ", limit ",
                         options.max_expression_code_points)));
  }
  std::vector<LexError> lex_errors;
  std::vector<Token> tokens = Tokenize(text, &lex_errors, kMaxErrors);
  Parser parser(text, options, std::move(tokens));
  ExprPtr root = parser.ParseTop();

  std::vector<Error> errors;
  for (LexError& e : lex_errors) errors.push_back({e.offset, std::move(e.message)});
  for (Error& e : parser.errors()) errors.push_back(std::move(e));
  if (errors.empty() && root == nullptr) errors.push_back({0, "Syntax error: invalid input"});
  if (!errors.empty()) {
    std::stable_sort(errors.begin(), errors.end(),
                     [](const Error& a, const Error& b) { return a.offset < b.offset; });
    std::vector<std::string> lines;
    for (const Error& e : errors) {
      if (static_cast<int>(lines.size()) == kMaxErrors) break;
      std::string line = source->FormatError(e.offset, e.message);
      if (!lines.empty() && lines.back() == line) continue;
      lines.push_back(std::move(line));
    }
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }
  Ast ast;
  ast.root = std::move(root);
  ast.source = std::move(source);
  ast.max_id = parser.max_id();
  return ast;
}

}  // namespace gpuprofile::cel::internal
