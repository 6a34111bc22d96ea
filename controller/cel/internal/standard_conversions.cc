// File: controller/cel/internal/standard_conversions.cc
// CEL's standard definitions, part three: the type conversion functions int(), uint(), double(),
// string(), bytes(), bool(), duration() and timestamp(). Parsing and formatting follow Go's
// strconv and time packages, which is what cel-go (and so the API server) uses: the same input
// converts, or fails, the same way here.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/standard_library_internal.h"
#include "controller/cel/internal/time_format.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr double kTwoTo63Double = 9223372036854775808.0;
constexpr double kTwoTo64 = 18446744073709551616.0;

Value ConversionError(absl::string_view from, absl::string_view to) {
  return Value::Error(absl::StrCat("type conversion error from '", from, "' to '", to, "'"));
}

// Go's strconv.ParseUint(s, 10, 64): decimal digits only, no sign, no underscores.
std::optional<uint64_t> ParseDecimalUint(absl::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

// Go's strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits.
std::optional<int64_t> ParseDecimalInt(absl::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::optional<uint64_t> magnitude = ParseDecimalUint(s);
  if (!magnitude.has_value()) return std::nullopt;
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  if (negative) {
    if (*magnitude > kLimit) return std::nullopt;
    return *magnitude == kLimit ? std::numeric_limits<int64_t>::min()
                                : -static_cast<int64_t>(*magnitude);
  }
  if (*magnitude >= kLimit) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

// Go's underscoreOK: underscores only between digits (or after a base prefix).
bool UnderscoresOk(absl::string_view s) {
  char saw = '^';  // start
  size_t i = 0;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) ++i;
  bool hex = false;
  if (s.size() - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    i += 2;
    saw = '0';
    hex = true;
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (absl::ascii_isdigit(c) || (hex && absl::ascii_isxdigit(c))) {
      saw = '0';
    } else if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
    } else {
      if (saw == '_') return false;
      saw = '!';
    }
  }
  return saw != '_';
}

// Go's strconv.ParseFloat(s, 64): decimal or hexadecimal (with a p exponent) floating point,
// "inf"/"infinity"/"nan" in any case with an optional sign, underscores between digits. Values
// beyond the double range fail (Go reports ErrRange); underflow rounds to zero or a subnormal.
std::optional<double> ParseGoFloat(absl::string_view s) {
  absl::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (absl::EqualsIgnoreCase(body, "inf") || absl::EqualsIgnoreCase(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (absl::EqualsIgnoreCase(body, "nan") && body.size() == s.size()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (!UnderscoresOk(s)) return std::nullopt;
  std::string clean;
  for (char c : body) {
    if (c != '_') clean.push_back(c);
  }
  // Validate the grammar ourselves: strtod accepts more than Go (leading spaces, "0x1" without
  // exponent, "nan(...)").
  size_t i = 0;
  const bool hex = clean.size() >= 2 && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'X');
  if (hex) i = 2;
  auto is_mantissa_digit = [hex](char c) {
    return hex ? absl::ascii_isxdigit(c) : absl::ascii_isdigit(c);
  };
  size_t digits = 0;
  for (; i < clean.size() && is_mantissa_digit(clean[i]); ++i) ++digits;
  if (i < clean.size() && clean[i] == '.') {
    for (++i; i < clean.size() && is_mantissa_digit(clean[i]); ++i) ++digits;
  }
  if (digits == 0) return std::nullopt;
  const char exp_char = hex ? 'p' : 'e';
  if (i < clean.size() && absl::ascii_tolower(clean[i]) == exp_char) {
    ++i;
    if (i < clean.size() && (clean[i] == '+' || clean[i] == '-')) ++i;
    size_t exp_digits = 0;
    for (; i < clean.size() && absl::ascii_isdigit(clean[i]); ++i) ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  } else if (hex) {
    return std::nullopt;  // Go requires the p exponent of a hexadecimal float
  }
  if (i != clean.size()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size()) return std::nullopt;
  if (std::isinf(v)) return std::nullopt;  // overflow: Go's ErrRange
  return negative ? -v : v;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(absl::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") {
    return false;
  }
  return std::nullopt;
}

// RFC 3629 UTF-8 validity (no surrogates, no overlong forms), as Go's utf8.Valid.
bool ValidUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

void AddConversion(FunctionRegistry& r, absl::string_view name, std::string id, Type param,
                   Type result, FunctionImpl impl) {
  r.Add(name, MakeOverload(std::move(id), {std::move(param)}, std::move(result), std::move(impl)));
}

Value Identity(absl::Span<const Value> a) { return a[0]; }

void RegisterIntConversions(FunctionRegistry& r) {
  const Type i = Type::Int();
  AddConversion(r, "int", "int64_to_int64", i, i, Identity);
  AddConversion(r, "int", "uint64_to_int64", Type::Uint(), i, [](absl::Span<const Value> a) {
    if (a[0].uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Value::Error(kIntOverflow);
    }
    return Value::Int(static_cast<int64_t>(a[0].uint_value()));
  });
  AddConversion(r, "int", "double_to_int64", Type::Double(), i, [](absl::Span<const Value> a) {
    // Truncates toward zero; both range ends are exclusive, as in cel-go.
    const double d = a[0].double_value();
    if (!(d > -kTwoTo63Double && d < kTwoTo63Double))
      return Value::Error(kIntOverflow);  // also NaN
    return Value::Int(static_cast<int64_t>(d));
  });
  AddConversion(r, "int", "string_to_int64", Type::String(), i, [](absl::Span<const Value> a) {
    std::optional<int64_t> v = ParseDecimalInt(a[0].string_value());
    if (!v.has_value()) return ConversionError("string", "int");
    return Value::Int(*v);
  });
  AddConversion(
      r, "int", "timestamp_to_int64", Type::Timestamp(), i, [](absl::Span<const Value> a) {
        return Value::Int(absl::ToUnixSeconds(a[0].timestamp_value()));  // floor, as Go's Unix()
      });
  AddConversion(r, "int", "duration_to_int64", Type::Duration(), i, [](absl::Span<const Value> a) {
    std::optional<int64_t> n = DurationToNanos(a[0].duration_value());
    if (!n.has_value()) return Value::Error(kIntOverflow);
    return Value::Int(*n);
  });
}

void RegisterUintConversions(FunctionRegistry& r) {
  const Type u = Type::Uint();
  AddConversion(r, "uint", "uint64_to_uint64", u, u, Identity);
  AddConversion(r, "uint", "int64_to_uint64", Type::Int(), u, [](absl::Span<const Value> a) {
    if (a[0].int_value() < 0) return Value::Error(kUintOverflow);
    return Value::Uint(static_cast<uint64_t>(a[0].int_value()));
  });
  AddConversion(r, "uint", "double_to_uint64", Type::Double(), u, [](absl::Span<const Value> a) {
    const double d = a[0].double_value();
    if (!(d >= 0 && d < kTwoTo64)) return Value::Error(kUintOverflow);  // also NaN
    return Value::Uint(static_cast<uint64_t>(d));
  });
  AddConversion(r, "uint", "string_to_uint64", Type::String(), u, [](absl::Span<const Value> a) {
    std::optional<uint64_t> v = ParseDecimalUint(a[0].string_value());
    if (!v.has_value()) return ConversionError("string", "uint");
    return Value::Uint(*v);
  });
}

void RegisterDoubleConversions(FunctionRegistry& r) {
  const Type d = Type::Double();
  AddConversion(r, "double", "double_to_double", d, d, Identity);
  AddConversion(r, "double", "int64_to_double", Type::Int(), d, [](absl::Span<const Value> a) {
    return Value::Double(static_cast<double>(a[0].int_value()));
  });
  AddConversion(r, "double", "uint64_to_double", Type::Uint(), d, [](absl::Span<const Value> a) {
    return Value::Double(static_cast<double>(a[0].uint_value()));
  });
  AddConversion(r, "double", "string_to_double", Type::String(), d, [](absl::Span<const Value> a) {
    std::optional<double> v = ParseGoFloat(a[0].string_value());
    if (!v.has_value()) return ConversionError("string", "double");
    return Value::Double(*v);
  });
}

void RegisterStringConversions(FunctionRegistry& r) {
  const Type s = Type::String();
  AddConversion(r, "string", "string_to_string", s, s, Identity);
  AddConversion(r, "string", "bool_to_string", Type::Bool(), s, [](absl::Span<const Value> a) {
    return Value::String(a[0].bool_value() ? "true" : "false");
  });
  AddConversion(r, "string", "int64_to_string", Type::Int(), s, [](absl::Span<const Value> a) {
    return Value::String(absl::StrCat(a[0].int_value()));
  });
  AddConversion(r, "string", "uint64_to_string", Type::Uint(), s, [](absl::Span<const Value> a) {
    return Value::String(absl::StrCat(a[0].uint_value()));
  });
  AddConversion(r, "string", "double_to_string", Type::Double(), s, [](absl::Span<const Value> a) {
    return Value::String(FormatDoubleGo(a[0].double_value()));
  });
  AddConversion(r, "string", "bytes_to_string", Type::Bytes(), s, [](absl::Span<const Value> a) {
    if (!ValidUtf8(a[0].string_value())) {
      return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
    }
    return Value::String(std::string(a[0].string_value()));
  });
  AddConversion(r, "string", "timestamp_to_string", Type::Timestamp(), s,
                [](absl::Span<const Value> a) {
                  return Value::String(FormatRfc3339Nano(a[0].timestamp_value()));
                });
  AddConversion(r, "string", "duration_to_string", Type::Duration(), s,
                [](absl::Span<const Value> a) {
                  return Value::String(FormatDurationSeconds(a[0].duration_value()));
                });
}

void RegisterOtherConversions(FunctionRegistry& r) {
  AddConversion(r, "bytes", "bytes_to_bytes", Type::Bytes(), Type::Bytes(), Identity);
  AddConversion(r, "bytes", "string_to_bytes", Type::String(), Type::Bytes(),
      [](absl::Span<const Value> a) { return Value::Bytes(std::string(a[0].string_value())); });

  AddConversion(r, "bool", "bool_to_bool", Type::Bool(), Type::Bool(), Identity);
  AddConversion(r, "bool", "string_to_bool", Type::String(), Type::Bool(),
                [](absl::Span<const Value> a) {
                  std::optional<bool> v = ParseGoBool(a[0].string_value());
                  if (!v.has_value()) return ConversionError("string", "bool");
                  return Value::Bool(*v);
                });

  const Type du = Type::Duration();
  AddConversion(r, "duration", "duration_to_duration", du, du, Identity);
  AddConversion(r, "duration", "int64_to_duration", Type::Int(), du, [](absl::Span<const Value> a) {
    return Value::Duration(absl::Nanoseconds(a[0].int_value()));
  });
  AddConversion(r, "duration", "string_to_duration", Type::String(), du,
                [](absl::Span<const Value> a) {
                  absl::StatusOr<absl::Duration> d = ParseGoDuration(a[0].string_value());
                  if (!d.ok()) return ConversionError("string", "google.protobuf.Duration");
                  return Value::Duration(*d);
                });

  const Type ts = Type::Timestamp();
  AddConversion(r, "timestamp", "timestamp_to_timestamp", ts, ts, Identity);
  AddConversion(r, "timestamp", "int64_to_timestamp", Type::Int(), ts,
                [](absl::Span<const Value> a) {
                  const int64_t s = a[0].int_value();
                  if (s < kMinTimestampSeconds || s > kMaxTimestampSeconds) {
                    return Value::Error(kTimestampOverflow);
                  }
                  return Value::Timestamp(absl::FromUnixSeconds(s));
                });
  AddConversion(r, "timestamp", "string_to_timestamp", Type::String(), ts,
                [](absl::Span<const Value> a) {
                  absl::StatusOr<absl::Time> t = ParseRfc3339(a[0].string_value());
                  if (!t.ok()) return ConversionError("string", "google.protobuf.Timestamp");
                  // A year-0001 time with a positive offset, or year 0000, lies outside CEL's
                  // range.
                  if (!TimestampInRange(*t)) return Value::Error(kTimestampOverflow);
                  return Value::Timestamp(*t);
                });
}

}  // namespace

void RegisterStandardConversions(FunctionRegistry& registry) {
  RegisterIntConversions(registry);
  RegisterUintConversions(registry);
  RegisterDoubleConversions(registry);
  RegisterStringConversions(registry);
  RegisterOtherConversions(registry);
}

}  // namespace gpuprofile::cel::internal
