// File: controller/cel/internal/ast.cc
// Source positions, cel-go style error snippets, and DebugString for the CEL AST.
#include "controller/cel/internal/ast.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/literal.h"

namespace gpuprofile::cel::internal {
namespace {

// Byte length of the UTF-8 sequence starting at `s[i]`; invalid bytes count as one so that every
// byte belongs to exactly one "code point" and columns stay monotonic on malformed input.
int Utf8Length(absl::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  int n = 1;
  if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
  } else if (c >= 0xE0) {
    n = c <= 0xEF ? 3 : 1;
  } else if (c >= 0xC2) {
    n = 2;
  }
  if (i + n > s.size()) return 1;
  for (int k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  }
  return n;
}

// cel-go marks columns under wide (multi-byte) characters with full-width dots and carets so
// that the caret lines up in terminals that render those characters double-width.
constexpr char kWideDot[] = "\xEF\xBC\x8E";    // U+FF0E
constexpr char kWideCaret[] = "\xEF\xBC\xBE";  // U+FF3E

}  // namespace

Source::Source(std::string text, std::string description)
    : text_(std::move(text)), description_(std::move(description)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(static_cast<int32_t>(i + 1));
  }
}

int Source::Line(int32_t offset) const {
  offset = std::clamp<int32_t>(offset, 0, static_cast<int32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<int>(it - line_starts_.begin());
}

int Source::Column(int32_t offset) const {
  offset = std::clamp<int32_t>(offset, 0, static_cast<int32_t>(text_.size()));
  size_t i = static_cast<size_t>(line_starts_[Line(offset) - 1]);
  int column = 1;
  while (i < static_cast<size_t>(offset)) {
    i += Utf8Length(text_, i);
    ++column;
  }
  return column;
}

std::string Source::FormatError(int32_t offset, absl::string_view message) const {
  if (offset < 0) {
    // cel-go prints errors without a location (e.g. the size limit) at -1:0 with no snippet.
    return absl::StrFormat("ERROR: %s:-1:0: %s", description_, message);
  }
  const int line = Line(offset);
  const int column = Column(offset);
  std::string out = absl::StrFormat("ERROR: %s:%d:%d: %s", description_, line, column, message);
  const size_t start = static_cast<size_t>(line_starts_[line - 1]);
  size_t end = text_.find('\n', start);
  if (end == std::string::npos) end = text_.size();
  std::string snippet = text_.substr(start, end - start);
  std::replace(snippet.begin(), snippet.end(), '\t', ' ');
  absl::StrAppend(&out, "\n | ", snippet, "\n | ");
  size_t i = 0;
  for (int c = 1; c < column && i < snippet.size(); ++c) {
    const int len = Utf8Length(snippet, i);
    out += len > 1 ? kWideDot : ".";
    i += len;
  }
  out += (i < snippet.size() && Utf8Length(snippet, i) > 1) ? kWideCaret : "^";
  return out;
}

namespace {

std::string ConstantString(const Constant& c) {
  switch (c.kind) {
    case Constant::Kind::kNull:
      return "null";
    case Constant::Kind::kBool:
      return c.bool_value ? "true" : "false";
    case Constant::Kind::kInt:
      return absl::StrCat(c.int_value);
    case Constant::Kind::kUint:
      return absl::StrCat(c.uint_value, "u");
    case Constant::Kind::kDouble: {
      if (std::isnan(c.double_value)) return "NaN";
      if (std::isinf(c.double_value)) return c.double_value > 0 ? "+Inf" : "-Inf";
      std::string s = absl::StrFormat("%.17g", c.double_value);
      // Prefer the shortest text that round-trips, so `1.5` does not print as 1.5000000000000000.
      for (int precision = 1; precision <= 17; ++precision) {
        std::string t = absl::StrFormat("%.*g", precision, c.double_value);
        if (std::strtod(t.c_str(), nullptr) == c.double_value) {
          s = t;
          break;
        }
      }
      // Whole numbers print as `1000.0` rather than `1e+03` while that is exact.
      if (s.find('e') != std::string::npos && c.double_value == std::trunc(c.double_value) &&
          std::fabs(c.double_value) < 1e16) {
        s = absl::StrFormat("%.0f", c.double_value);
      }
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
    case Constant::Kind::kString:
      return StringLiteral(c.string_value, '"');
    case Constant::Kind::kBytes:
      return BytesLiteral(c.string_value);
  }
  return "?";
}

const char* BinaryOperatorText(absl::string_view name) {
  static constexpr std::pair<const char*, const char*> kOps[] = {
      {op::kLogicalAnd, "&&"}, {op::kLogicalOr, "||"},
      {op::kEquals, "=="},     {op::kNotEquals, "!="},
      {op::kLess, "<"},        {op::kLessEquals, "<="},
      {op::kGreater, ">"},     {op::kGreaterEquals, ">="},
      {op::kAdd, "+"},         {op::kSubtract, "-"},
      {op::kMultiply, "*"},    {op::kDivide, "/"},
      {op::kModulo, "%"},      {op::kIn, "in"},
  };
  for (const auto& [fn, text] : kOps) {
    if (name == fn) return text;
  }
  return nullptr;
}

void Append(const Expr& e, std::string* out);

void AppendList(const std::vector<ExprPtr>& items, std::string* out) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) *out += ", ";
    Append(*items[i], out);
  }
}

void AppendCall(const Expr& e, std::string* out) {
  const size_t n = e.args.size();
  if (!e.operand) {
    if (const char* text = BinaryOperatorText(e.name); text != nullptr && n == 2) {
      *out += "(";
      Append(*e.args[0], out);
      absl::StrAppend(out, " ", text, " ");
      Append(*e.args[1], out);
      *out += ")";
      return;
    }
    if (e.name == op::kConditional && n == 3) {
      *out += "(";
      Append(*e.args[0], out);
      *out += " ? ";
      Append(*e.args[1], out);
      *out += " : ";
      Append(*e.args[2], out);
      *out += ")";
      return;
    }
    if ((e.name == op::kLogicalNot || e.name == op::kNegate) && n == 1) {
      // Parenthesized so that `-(1)` (a call) reads differently from the constant `-1`.
      *out += e.name == op::kLogicalNot ? "!(" : "-(";
      Append(*e.args[0], out);
      *out += ")";
      return;
    }
    if ((e.name == op::kIndex || e.name == op::kOptIndex) && n == 2) {
      Append(*e.args[0], out);
      *out += e.name == op::kIndex ? "[" : "[?";
      Append(*e.args[1], out);
      *out += "]";
      return;
    }
    if (e.name == op::kOptSelect && n == 2 && e.args[1]->kind == Expr::Kind::kConstant) {
      Append(*e.args[0], out);
      absl::StrAppend(out, ".?", e.args[1]->constant.string_value);
      return;
    }
  } else {
    Append(*e.operand, out);
    *out += ".";
  }
  absl::StrAppend(out, e.name, "(");
  AppendList(e.args, out);
  *out += ")";
}

void AppendEntries(const Expr& e, std::string* out) {
  for (size_t i = 0; i < e.entries.size(); ++i) {
    const CreateEntry& entry = e.entries[i];
    if (i > 0) *out += ", ";
    if (entry.optional) *out += "?";
    if (entry.map_key) {
      Append(*entry.map_key, out);
    } else {
      *out += entry.field_name;
    }
    *out += ": ";
    if (entry.value) Append(*entry.value, out);
  }
}

void Append(const Expr& e, std::string* out) {
  switch (e.kind) {
    case Expr::Kind::kConstant:
      *out += ConstantString(e.constant);
      return;
    case Expr::Kind::kIdent:
      *out += e.name;
      return;
    case Expr::Kind::kSelect:
      if (e.test_only) *out += "has(";
      if (e.operand) Append(*e.operand, out);
      absl::StrAppend(out, ".", e.name);
      if (e.test_only) *out += ")";
      return;
    case Expr::Kind::kCall:
      AppendCall(e, out);
      return;
    case Expr::Kind::kList:
      *out += "[";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) *out += ", ";
        if (std::find(e.optional_indices.begin(), e.optional_indices.end(),
                      static_cast<int32_t>(i)) != e.optional_indices.end()) {
          *out += "?";
        }
        Append(*e.args[i], out);
      }
      *out += "]";
      return;
    case Expr::Kind::kMap:
      *out += "{";
      AppendEntries(e, out);
      *out += "}";
      return;
    case Expr::Kind::kMessage:
      absl::StrAppend(out, e.name, "{");
      AppendEntries(e, out);
      *out += "}";
      return;
    case Expr::Kind::kComprehension: {
      absl::StrAppend(out, "__comprehension__(", e.iter_var, ", ");
      if (!e.iter_var2.empty()) absl::StrAppend(out, e.iter_var2, ", ");
      const ExprPtr* parts[] = {&e.iter_range, &e.accu_init, &e.loop_condition, &e.loop_step,
                                &e.result};
      for (int i = 0; i < 5; ++i) {
        if (i == 1) absl::StrAppend(out, e.accu_var, ", ");
        if (*parts[i]) Append(**parts[i], out);
        if (i < 4) *out += ", ";
      }
      *out += ")";
      return;
    }
  }
}

}  // namespace

std::string DebugString(const Expr& expr) {
  std::string out;
  Append(expr, &out);
  return out;
}

}  // namespace gpuprofile::cel::internal
