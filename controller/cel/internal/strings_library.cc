// File: controller/cel/internal/strings_library.cc
// cel-go's strings extension at version 2, the version in Kubernetes' base CEL environment
// (introduced to the environment at 1.29): charAt, indexOf, lastIndexOf, lowerAscii, upperAscii,
// replace, split, substring, trim, join, format and strings.quote.
//
// Indices count code points, as cel-go does by converting to []rune, and out-of-range errors use
// cel-go's words so that messages match what the API server reports. Version 2 keeps the
// locale-based `format` of version 1 (en_US): `%f` groups thousands and `%e` prints
// "1.052033 × 10⁰³"; the cel-spec formatter only arrives with version 4, which Kubernetes does not
// enable. `string.reverse` is version 3 and deliberately absent.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/go_text.h"
#include "controller/cel/internal/time_format.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int kStringsIntroducedMinor = 29;
constexpr char kStringsLibrary[] = "ext.Strings v2";
// A precision beyond this would only let an expression allocate without bound; Go would try.
constexpr int kMaxFormatPrecision = 1000;

std::vector<char32_t> ToRunes(absl::string_view s) {
  std::vector<char32_t> runes;
  runes.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    Decoded d = DecodeRune(s, i);
    runes.push_back(d.rune);
    i += d.width;
  }
  return runes;
}

std::string FromRunes(const std::vector<char32_t>& runes, size_t begin, size_t end) {
  std::string out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) AppendRune(out, runes[i]);
  return out;
}

bool IsValidUtf8(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    Decoded d = DecodeRune(s, i);
    if (d.rune == 0xFFFD && d.width == 1) return false;
    i += d.width;
  }
  return true;
}

// Go's unicode.IsSpace (what strings.TrimSpace trims).
bool IsGoSpace(char32_t r) {
  switch (r) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

Value IndexOutOfRange(int64_t index) {
  return Value::Error(absl::StrCat("index out of range: ", index));
}

// ---- The member functions, clause by clause as in cel-go's ext/strings.go (version 2). ----

Value CharAt(absl::string_view s, int64_t index) {
  std::vector<char32_t> runes = ToRunes(s);
  if (index < 0 || index > static_cast<int64_t>(runes.size())) return IndexOutOfRange(index);
  if (index == static_cast<int64_t>(runes.size())) return Value::String("");
  return Value::String(FromRunes(runes, index, index + 1));
}

bool RunesMatchAt(const std::vector<char32_t>& runes, const std::vector<char32_t>& sub,
                  size_t at) {
  for (size_t j = 0; j < sub.size(); ++j) {
    if (runes[at + j] != sub[j]) return false;
  }
  return true;
}

Value IndexOf(absl::string_view s, absl::string_view sub, int64_t offset) {
  // An empty needle is found wherever the search starts, even past the end (cel-go).
  if (sub.empty()) return Value::Int(offset);
  std::vector<char32_t> runes = ToRunes(s);
  std::vector<char32_t> subrunes = ToRunes(sub);
  const auto n = static_cast<int64_t>(runes.size());
  if (offset < 0 || offset >= n) return IndexOutOfRange(offset);
  const auto m = static_cast<int64_t>(subrunes.size());
  for (int64_t i = offset; i <= n - m; ++i) {
    if (RunesMatchAt(runes, subrunes, i)) return Value::Int(i);
  }
  return Value::Int(-1);
}

Value LastIndexOf(absl::string_view s, absl::string_view sub, int64_t offset) {
  if (sub.empty()) return Value::Int(offset);
  std::vector<char32_t> runes = ToRunes(s);
  std::vector<char32_t> subrunes = ToRunes(sub);
  const auto n = static_cast<int64_t>(runes.size());
  // Also reached by the one-argument form on an empty string (offset -1): cel-go reports it.
  if (offset < 0 || offset >= n) return IndexOutOfRange(offset);
  const auto m = static_cast<int64_t>(subrunes.size());
  int64_t start = std::min(offset, n - m);
  for (int64_t i = start; i >= 0; --i) {
    if (RunesMatchAt(runes, subrunes, i)) return Value::Int(i);
  }
  return Value::Int(-1);
}

std::string MapAscii(absl::string_view s, bool upper) {
  std::vector<char32_t> runes = ToRunes(s);
  for (char32_t& r : runes) {
    if (upper && r >= 'a' && r <= 'z') r -= 'a' - 'A';
    if (!upper && r >= 'A' && r <= 'Z') r += 'a' - 'A';
  }
  return FromRunes(runes, 0, runes.size());
}

// Go's strings.Replace, including the empty `old` case (insert around every rune).
std::string Replace(absl::string_view s, absl::string_view old_text, absl::string_view new_text,
                    int64_t n) {
  if (old_text == new_text || n == 0) return std::string(s);
  int64_t matches = 0;
  if (old_text.empty()) {
    matches = static_cast<int64_t>(ToRunes(s).size()) + 1;
  } else {
    for (size_t pos = s.find(old_text); pos != absl::string_view::npos;
         pos = s.find(old_text, pos + old_text.size())) {
      ++matches;
    }
  }
  if (matches == 0) return std::string(s);
  if (n < 0 || matches < n) n = matches;
  std::string out;
  size_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t j = start;
    if (old_text.empty()) {
      if (i > 0) j += DecodeRune(s, start).width;
    } else {
      j = s.find(old_text, start);
    }
    absl::StrAppend(&out, s.substr(start, j - start), new_text);
    start = j + old_text.size();
  }
  absl::StrAppend(&out, s.substr(std::min(start, s.size())));
  return out;
}

// Go's strings.SplitN (n < 0: all; n == 0: none; empty separator: one piece per rune).
std::vector<Value> Split(absl::string_view s, absl::string_view sep, int64_t n) {
  std::vector<Value> parts;
  if (n == 0) return parts;
  if (sep.empty()) {
    size_t i = 0;
    while (i < s.size()) {
      if (n > 0 && static_cast<int64_t>(parts.size()) == n - 1) {
        parts.push_back(Value::String(std::string(s.substr(i))));
        return parts;
      }
      int width = DecodeRune(s, i).width;
      parts.push_back(Value::String(std::string(s.substr(i, width))));
      i += width;
    }
    return parts;
  }
  size_t start = 0;
  while (n < 0 || static_cast<int64_t>(parts.size()) < n - 1) {
    size_t pos = s.find(sep, start);
    if (pos == absl::string_view::npos) break;
    parts.push_back(Value::String(std::string(s.substr(start, pos - start))));
    start = pos + sep.size();
  }
  parts.push_back(Value::String(std::string(s.substr(start))));
  return parts;
}

Value Substring(absl::string_view s, int64_t start, std::optional<int64_t> end) {
  std::vector<char32_t> runes = ToRunes(s);
  const auto n = static_cast<int64_t>(runes.size());
  if (!end.has_value()) {
    if (start < 0 || start > n) return IndexOutOfRange(start);
    return Value::String(FromRunes(runes, start, n));
  }
  if (start > *end) {
    return Value::Error(
        absl::StrCat("invalid substring range. start: ", start, ", end: ", *end));
  }
  if (start < 0 || start > n) return IndexOutOfRange(start);
  if (*end < 0 || *end > n) return IndexOutOfRange(*end);
  return Value::String(FromRunes(runes, start, *end));
}

std::string Trim(absl::string_view s) {
  // Trim whole runes from both ends; invalid bytes are not spaces and stay as they are.
  size_t begin = 0;
  while (begin < s.size()) {
    Decoded d = DecodeRune(s, begin);
    if (!IsGoSpace(d.rune) || (d.rune == 0xFFFD && d.width == 1)) break;
    begin += d.width;
  }
  size_t end = s.size();
  while (end > begin) {
    // Step back to the start of the last rune.
    size_t k = end - 1;
    while (k > begin && end - k < 4 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    Decoded d = DecodeRune(s, k);
    if (k + d.width != end) {
      d = {0xFFFD, 1};
      k = end - 1;
    }
    if (!IsGoSpace(d.rune) || (d.rune == 0xFFFD && d.width == 1)) break;
    end = k;
  }
  return std::string(s.substr(begin, end - begin));
}

Value JoinStrings(const ListValue& list, absl::string_view separator) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    Value e = list.Get(i);
    if (e.kind() != ValueKind::kString) {
      return Value::Error(absl::StrCat("join: invalid input: ", e.DebugString()));
    }
    if (i > 0) absl::StrAppend(&out, separator);
    absl::StrAppend(&out, e.string_value());
  }
  return Value::String(std::move(out));
}

std::string QuoteString(absl::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    Decoded d = DecodeRune(s, i);
    i += d.width;
    switch (d.rune) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: AppendRune(out, d.rune);  // invalid bytes became U+FFFD
    }
  }
  out += "\"";
  return out;
}

// ---- string.format (cel-go ext/formatting.go, the locale formatter of versions 1-3). ----


// Go's fmt %g for float64 (shortest round-trip digits; exponent form below 1e-4 or from 1e21
// the Go way: exponent with at least two digits).
std::string FormatGoG(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  int exp = std::stoi(sci.substr(e + 1));
  std::string out = negative ? "-" : "";
  // strconv's 'g' with shortest digits switches to exponent form outside [1e-4, 1e6).
  constexpr int eprec = 6;
  if (exp < -4 || exp >= eprec) {
    out += digits[0];
    if (digits.size() > 1) absl::StrAppend(&out, ".", digits.substr(1));
    absl::StrAppend(&out, "e", exp < 0 ? "-" : "+", exp < 10 && exp > -10 ? "0" : "",
                    std::abs(exp));
    return out;
  }
  if (exp < 0) {
    absl::StrAppend(&out, "0.", std::string(-exp - 1, '0'), digits);
  } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
    absl::StrAppend(&out, digits, std::string(exp + 1 - digits.size(), '0'));
  } else {
    absl::StrAppend(&out, digits.substr(0, exp + 1), ".", digits.substr(exp + 1));
  }
  return out;
}

// Signed integers in another base, as Go's fmt prints them ("-ff", not two's complement).
template <typename T>
std::string FormatInBase(T v, int base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  bool negative = false;
  uint64_t u;
  if constexpr (std::is_signed_v<T>) {
    negative = v < 0;
    u = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  } else {
    u = v;
  }
  std::string out;
  do {
    out.push_back(digits[u % base]);
    u /= base;
  } while (u != 0);
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

std::string GroupThousands(absl::string_view fixed) {
  // `fixed` is printf %f output: [-]digits[.digits]
  std::string sign;
  if (!fixed.empty() && fixed[0] == '-') {
    sign = "-";
    fixed.remove_prefix(1);
  }
  size_t dot = fixed.find('.');
  absl::string_view int_part = fixed.substr(0, dot);
  absl::string_view frac = dot == absl::string_view::npos ? "" : fixed.substr(dot);
  std::string grouped;
  for (size_t i = 0; i < int_part.size(); ++i) {
    if (i > 0 && (int_part.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(int_part[i]);
  }
  return absl::StrCat(sign, grouped, frac);
}

std::string Superscript(absl::string_view digits) {
  static const char* const kSup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out;
  for (char c : digits) out += kSup[c - '0'];
  return out;
}

struct FormatError {
  std::string message;
};

using ClauseResult = std::variant<std::string, FormatError>;

FormatError ClauseError(absl::string_view what, const Value& arg) {
  return {absl::StrCat(what, arg.TypeName())};
}

constexpr char kStringClauseError[] =
    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
    "durations, and timestamps, was given ";

ClauseResult FormatString(const Value& arg);

// How a value is spelled inside a formatted list or map (cel-go clauseForType + quoteForCEL).
ClauseResult FormatNested(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt: return absl::StrCat(v.int_value());
    case ValueKind::kUint: return absl::StrCat(v.uint_value());
    case ValueKind::kString: return GoQuote(v.string_value());
    case ValueKind::kBytes: {
      ClauseResult s = FormatString(v);
      if (auto* e = std::get_if<FormatError>(&s)) return *e;
      return absl::StrCat("b", GoQuote(std::get<std::string>(s)));
    }
    case ValueKind::kBool:
    case ValueKind::kNull:
    case ValueKind::kType:
    case ValueKind::kList:
    case ValueKind::kMap:
      return FormatString(v);
    case ValueKind::kTimestamp:
      return absl::StrCat("timestamp(", GoQuote(FormatRfc3339Nano(v.timestamp_value())), ")");
    case ValueKind::kDuration:
      return absl::StrCat("duration(", GoQuote(FormatDurationSeconds(v.duration_value())), ")");
    case ValueKind::kDouble: {
      std::string s = absl::StrFormat("%.6f", v.double_value());
      if (std::isnan(v.double_value())) s = "NaN";
      if (std::isinf(v.double_value())) s = v.double_value() > 0 ? "+Inf" : "-Inf";
      if (!std::isfinite(v.double_value())) return GoQuote(s);
      return s;
    }
    default:
      return FormatError{absl::StrCat("no formatting function for ", v.TypeName())};
  }
}

ClauseResult FormatList(const ListValue& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    ClauseResult r = FormatNested(list.Get(i));
    if (auto* e = std::get_if<FormatError>(&r)) return *e;
    if (i > 0) out += ", ";
    out += std::get<std::string>(r);
  }
  out += "]";
  return out;
}

ClauseResult FormatMap(const MapValue& map) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const Value& key : map.Keys()) {
    std::string key_text;
    switch (key.kind()) {
      case ValueKind::kString: key_text = GoQuote(key.string_value()); break;
      case ValueKind::kBool: key_text = key.bool_value() ? "true" : "false"; break;
      case ValueKind::kInt: key_text = absl::StrCat(key.int_value()); break;
      case ValueKind::kUint: key_text = absl::StrCat(key.uint_value()); break;
      default:
        return FormatError{
            absl::StrCat("no formatting function for map key of type ", key.TypeName())};
    }
    std::optional<Value> value = map.Find(key);
    if (!value.has_value()) return FormatError{absl::StrCat("could not find key: ", key_text)};
    ClauseResult r = FormatNested(*value);
    if (auto* e = std::get_if<FormatError>(&r)) return *e;
    entries.emplace_back(std::move(key_text), std::get<std::string>(std::move(r)));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ", ";
    absl::StrAppend(&out, entries[i].first, ":", entries[i].second);
  }
  out += "}";
  return out;
}

// %s
ClauseResult FormatString(const Value& arg) {
  switch (arg.kind()) {
    case ValueKind::kList: return FormatList(arg.list_value());
    case ValueKind::kMap: return FormatMap(arg.map_value());
    case ValueKind::kInt: return absl::StrCat(arg.int_value());
    case ValueKind::kUint: return absl::StrCat(arg.uint_value());
    case ValueKind::kDouble: return FormatGoG(arg.double_value());
    case ValueKind::kBool: return std::string(arg.bool_value() ? "true" : "false");
    case ValueKind::kString: return std::string(arg.string_value());
    case ValueKind::kBytes:
      if (!IsValidUtf8(arg.string_value())) {
        return FormatError{
            "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to "
            "string"};
      }
      return std::string(arg.string_value());
    case ValueKind::kTimestamp: return FormatRfc3339Nano(arg.timestamp_value());
    case ValueKind::kDuration: return FormatDurationSeconds(arg.duration_value());
    case ValueKind::kType: return std::string(arg.string_value());
    case ValueKind::kNull: return std::string("null");
    default: return ClauseError(kStringClauseError, arg);
  }
}

// %f and %e accept doubles and the three strings that name non-finite doubles.
std::optional<double> FloatArg(const Value& arg) {
  if (arg.kind() == ValueKind::kDouble) return arg.double_value();
  if (arg.kind() == ValueKind::kString) {
    absl::string_view s = arg.string_value();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

std::string NonFiniteEnUs(double d) {
  if (std::isnan(d)) return "NaN";
  return d > 0 ? "∞" : "-∞";
}

ClauseResult FormatFixed(const Value& arg, int precision) {
  std::optional<double> d = FloatArg(arg);
  if (!d) return ClauseError("fixed-point clause can only be used on doubles, was given ", arg);
  if (!std::isfinite(*d)) return NonFiniteEnUs(*d);
  // golang.org/x/text's en_US printer groups the integer part by thousands.
  return GroupThousands(absl::StrFormat("%.*f", precision, *d));
}

ClauseResult FormatScientific(const Value& arg, int width) {
  std::optional<double> d = FloatArg(arg);
  if (!d) return ClauseError("scientific clause can only be used on doubles, was given ", arg);
  if (!std::isfinite(*d)) return NonFiniteEnUs(*d);
  // cel-go builds "%<precision>e", so the precision acts as a width and the mantissa always has
  // six decimals; x/text spells the exponent as "× 10" with superscript digits (at least two).
  std::string e = absl::StrFormat("%.6e", *d);
  size_t pos = e.find('e');
  std::string mantissa = e.substr(0, pos);
  int exp = std::stoi(e.substr(pos + 1));
  std::string exp_digits = absl::StrFormat("%02d", std::abs(exp));
  std::string out = absl::StrCat(mantissa, "\u202f\u00d7\u202f10", exp < 0 ? "⁻" : "",
                                 Superscript(exp_digits));
  int runes = static_cast<int>(ToRunes(out).size());
  if (width > runes) out.insert(0, std::string(width - runes, ' '));
  return out;
}

ClauseResult FormatDecimal(const Value& arg) {
  if (arg.kind() == ValueKind::kInt) return absl::StrCat(arg.int_value());
  if (arg.kind() == ValueKind::kUint) return absl::StrCat(arg.uint_value());
  return ClauseError("decimal clause can only be used on integers, was given ", arg);
}

ClauseResult FormatBinary(const Value& arg) {
  if (arg.kind() == ValueKind::kInt) return FormatInBase(arg.int_value(), 2, false);
  if (arg.kind() == ValueKind::kUint) return FormatInBase(arg.uint_value(), 2, false);
  if (arg.kind() == ValueKind::kBool) return std::string(arg.bool_value() ? "1" : "0");
  return ClauseError("only integers and bools can be formatted as binary, was given ", arg);
}

ClauseResult FormatHex(const Value& arg, bool upper) {
  switch (arg.kind()) {
    case ValueKind::kInt: return FormatInBase(arg.int_value(), 16, upper);
    case ValueKind::kUint: return FormatInBase(arg.uint_value(), 16, upper);
    case ValueKind::kString:
    case ValueKind::kBytes: {
      std::string out;
      for (char c : arg.string_value()) {
        absl::StrAppend(&out, FormatInBase<uint64_t>(static_cast<unsigned char>(c) >> 4, 16, upper),
                        FormatInBase<uint64_t>(static_cast<unsigned char>(c) & 0xF, 16, upper));
      }
      return out;
    }
    default:
      return ClauseError(
          "only integers, byte buffers, and strings can be formatted as hex, was given ", arg);
  }
}

ClauseResult FormatOctal(const Value& arg) {
  if (arg.kind() == ValueKind::kInt) return FormatInBase(arg.int_value(), 8, false);
  if (arg.kind() == ValueKind::kUint) return FormatInBase(arg.uint_value(), 8, false);
  return ClauseError("octal clause can only be used on integers, was given ", arg);
}

Value Format(absl::string_view format, const ListValue& args) {
  std::string out;
  size_t arg_index = 0;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out.push_back(format[i++]);
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out.push_back('%');
      i += 2;
      continue;
    }
    // cel-go fetches the argument before looking at the clause.
    if (arg_index >= args.size()) {
      return Value::Error(absl::StrCat("index ", arg_index, " out of range"));
    }
    if (i + 1 >= format.size()) return Value::Error("unexpected end of string");
    Value arg = args.Get(arg_index);
    size_t j = i + 1;
    std::optional<int> precision;
    if (format[j] == '.') {
      ++j;
      size_t digits_start = j;
      while (j < format.size() && format[j] >= '0' && format[j] <= '9') ++j;
      if (j >= format.size()) {
        return Value::Error(
            "could not parse formatting clause: error while parsing precision: could not find "
            "end of precision specifier");
      }
      absl::string_view digits = format.substr(digits_start, j - digits_start);
      int64_t p = 0;
      bool overflow = false;
      for (char c : digits) {
        p = p * 10 + (c - '0');
        if (p > std::numeric_limits<int32_t>::max()) overflow = true, p = 0;
      }
      if (digits.empty() || overflow) {
        return Value::Error(absl::StrCat(
            "could not parse formatting clause: error while parsing precision: error while "
            "converting precision to integer: strconv.Atoi: parsing ",
            GoQuote(digits), digits.empty() ? ": invalid syntax" : ": value out of range"));
      }
      if (p > kMaxFormatPrecision) {
        return Value::Error(absl::StrCat("could not parse formatting clause: precision ", p,
                                         " exceeds the maximum of ", kMaxFormatPrecision));
      }
      precision = static_cast<int>(p);
    }
    const char clause = format[j];
    ClauseResult r;
    switch (clause) {
      case 's': r = FormatString(arg); break;
      case 'd': r = FormatDecimal(arg); break;
      case 'f': r = FormatFixed(arg, precision.value_or(6)); break;
      case 'e': r = FormatScientific(arg, precision.value_or(6)); break;
      case 'b': r = FormatBinary(arg); break;
      case 'x': r = FormatHex(arg, false); break;
      case 'X': r = FormatHex(arg, true); break;
      case 'o': r = FormatOctal(arg); break;
      default: {
        // Go prints the byte as a rune (%c of rune(byte)).
        std::string c;
        AppendRune(c, static_cast<unsigned char>(clause));
        return Value::Error(absl::StrCat(
            "could not parse formatting clause: unrecognized formatting clause \"", c, "\""));
      }
    }
    if (auto* e = std::get_if<FormatError>(&r)) {
      return Value::Error(absl::StrCat("error during formatting: ", e->message));
    }
    out += std::get<std::string>(r);
    i = j + 1;
    ++arg_index;
  }
  return Value::String(std::move(out));
}

// ---- Registration ----

void AddStringsFunction(FunctionRegistry& registry, absl::string_view name, std::string id,
         std::vector<Type> params, Type result, FunctionImpl impl, bool member = true) {
  Overload o = MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                            member);
  o.gate = Gate{kStringsIntroducedMinor, kStringsLibrary};
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterStringsLibrary(FunctionRegistry& registry) {
  const Type s = Type::String();
  const Type i = Type::Int();
  AddStringsFunction(
      registry, "charAt", "string_char_at_int", {s, i}, s,
      [](absl::Span<const Value> a) { return CharAt(a[0].string_value(), a[1].int_value()); });
  AddStringsFunction(registry, "indexOf", "string_index_of_string", {s, s}, i,
                     [](absl::Span<const Value> a) {
                       return IndexOf(a[0].string_value(), a[1].string_value(), 0);
                     });
  AddStringsFunction(registry, "indexOf", "string_index_of_string_int", {s, s, i}, i,
      [](absl::Span<const Value> a) {
        return IndexOf(a[0].string_value(), a[1].string_value(), a[2].int_value());
      });
  AddStringsFunction(registry, "lastIndexOf", "string_last_index_of_string", {s, s}, i,
      [](absl::Span<const Value> a) {
        if (a[1].string_value().empty()) {
          return Value::Int(static_cast<int64_t>(ToRunes(a[0].string_value()).size()));
        }
        int64_t last = static_cast<int64_t>(ToRunes(a[0].string_value()).size()) - 1;
        return LastIndexOf(a[0].string_value(), a[1].string_value(), last);
      });
  AddStringsFunction(registry, "lastIndexOf", "string_last_index_of_string_int", {s, s, i}, i,
      [](absl::Span<const Value> a) {
        return LastIndexOf(a[0].string_value(), a[1].string_value(), a[2].int_value());
      });
  AddStringsFunction(registry, "lowerAscii", "string_lower_ascii", {s}, s,
                     [](absl::Span<const Value> a) {
                       return Value::String(MapAscii(a[0].string_value(), false));
                     });
  AddStringsFunction(
      registry, "upperAscii", "string_upper_ascii", {s}, s,
      [](absl::Span<const Value> a) { return Value::String(MapAscii(a[0].string_value(), true)); });
  AddStringsFunction(registry, "replace", "string_replace_string_string", {s, s, s}, s,
      [](absl::Span<const Value> a) {
        return Value::String(
            Replace(a[0].string_value(), a[1].string_value(), a[2].string_value(), -1));
      });
  AddStringsFunction(registry, "replace", "string_replace_string_string_int", {s, s, s, i}, s,
      [](absl::Span<const Value> a) {
        return Value::String(Replace(a[0].string_value(), a[1].string_value(),
                                     a[2].string_value(), a[3].int_value()));
      });
  AddStringsFunction(registry, "split", "string_split_string", {s, s}, Type::List(s),
      [](absl::Span<const Value> a) {
        return Value::List(Split(a[0].string_value(), a[1].string_value(), -1));
      });
  AddStringsFunction(registry, "split", "string_split_string_int", {s, s, i}, Type::List(s),
      [](absl::Span<const Value> a) {
        return Value::List(Split(a[0].string_value(), a[1].string_value(), a[2].int_value()));
      });
  AddStringsFunction(registry, "substring", "string_substring_int", {s, i}, s,
                     [](absl::Span<const Value> a) {
                       return Substring(a[0].string_value(), a[1].int_value(), std::nullopt);
                     });
  AddStringsFunction(registry, "substring", "string_substring_int_int", {s, i, i}, s,
      [](absl::Span<const Value> a) {
        return Substring(a[0].string_value(), a[1].int_value(), a[2].int_value());
      });
  AddStringsFunction(registry, "trim", "string_trim", {s}, s, [](absl::Span<const Value> a) {
    return Value::String(Trim(a[0].string_value()));
  });
  AddStringsFunction(registry, "join", "list_join", {Type::List(s)}, s,
                     [](absl::Span<const Value> a) { return JoinStrings(a[0].list_value(), ""); });
  AddStringsFunction(registry, "join", "list_join_string", {Type::List(s), s}, s,
                     [](absl::Span<const Value> a) {
                       return JoinStrings(a[0].list_value(), a[1].string_value());
                     });
  AddStringsFunction(registry, "format", "string_format", {s, Type::List(Type::Dyn())}, s,
      [](absl::Span<const Value> a) { return Format(a[0].string_value(), a[1].list_value()); });
  AddStringsFunction(
      registry, "strings.quote", "strings_quote", {s}, s,
      [](absl::Span<const Value> a) { return Value::String(QuoteString(a[0].string_value())); },
      /*member=*/false);
}

}  // namespace gpuprofile::cel::internal
