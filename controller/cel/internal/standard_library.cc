// File: controller/cel/internal/standard_library.cc
// CEL's standard definitions, part one: the entry point, logical not, equality, ordering,
// indexing, membership, size, the string predicates, matches, type() and dyn(), and the map
// insertion helper of the two-variable macros. Arithmetic, conversions, time and optionals live
// in the other standard_*.cc files. Overload ids are cel-go's, so that cost models and messages
// that name overloads line up with the API server's.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/standard_library_internal.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"
#include "re2/re2.h"

namespace gpuprofile::cel::internal {

std::string FormatDoubleGo(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  if (ec != std::errc()) return absl::StrCat(d);
  // Shortest round-trip digits as "[-]d[.ddd]e(+|-)xx"; re-lay them out as Go's %g does.
  std::string sci(buf, static_cast<size_t>(end - buf));
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t e = sci.find('e');
  const std::string mantissa = sci.substr(0, e);
  int exp = 0;
  const char* exp_begin = sci.data() + e + 1;
  if (*exp_begin == '+') ++exp_begin;
  std::from_chars(exp_begin, sci.data() + sci.size(), exp);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  // Go's 'g' with the shortest precision switches to an exponent below 1e-4 and from 1e6 on.
  if (exp < -4 || exp >= 6) {
    return absl::StrFormat("%s%se%c%02d", sign, mantissa, exp < 0 ? '-' : '+', std::abs(exp));
  }
  const int point = exp + 1;  // digits before the decimal point
  const int nd = static_cast<int>(digits.size());
  if (point <= 0) return absl::StrCat(sign, "0.", std::string(-point, '0'), digits);
  if (point >= nd) return absl::StrCat(sign, digits, std::string(point - nd, '0'));
  return absl::StrCat(sign, digits.substr(0, point), ".", digits.substr(point));
}

std::string GoValueText(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
      return std::string(v.string_value());
    case ValueKind::kInt:
      return absl::StrCat(v.int_value());
    case ValueKind::kUint:
      return absl::StrCat(v.uint_value());
    case ValueKind::kDouble:
      return FormatDoubleGo(v.double_value());
    case ValueKind::kBool:
      return v.bool_value() ? "true" : "false";
    default:
      return v.DebugString();
  }
}

std::optional<int64_t> ListIndex(const Value& index, Value* error) {
  switch (index.kind()) {
    case ValueKind::kInt:
      return index.int_value();
    case ValueKind::kUint:
      if (index.uint_value() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return static_cast<int64_t>(index.uint_value());
      }
      break;
    case ValueKind::kDouble: {
      // Lossless only: the same range check as int(double), then no fractional part.
      const double d = index.double_value();
      if (std::isfinite(d) && d > -9223372036854775808.0 && d < 9223372036854775808.0) {
        const auto i = static_cast<int64_t>(d);
        if (static_cast<double>(i) == d) return i;
      }
      break;
    }
    default:
      *error = Value::Error(absl::StrCat("unsupported index type '", index.TypeName(), "' in list"));
      return std::nullopt;
  }
  *error = Value::Error(absl::StrCat("unsupported index value ", GoValueText(index), " in list"));
  return std::nullopt;
}

Value ListGet(const ListValue& list, int64_t index) {
  if (index < 0 || static_cast<uint64_t>(index) >= list.size()) {
    return Value::Error(
        absl::StrCat("index '", index, "' out of range in list size '", list.size(), "'"));
  }
  return list.Get(static_cast<size_t>(index));
}

std::shared_ptr<HashMapValue> CopyMap(const MapValue& map) {
  auto copy = std::make_shared<HashMapValue>();
  for (Value& key : map.Keys()) {
    std::optional<Value> value = map.Find(key);
    copy->Insert(std::move(key), value.has_value() ? *std::move(value) : Value::Null());
  }
  return copy;
}

namespace {

void AddStandard(FunctionRegistry& r, absl::string_view name, std::string id,
                 std::vector<Type> params, Type result, FunctionImpl impl,
                 bool receiver_style = false) {
  r.Add(name, MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                           receiver_style));
}

// ---- Equality and ordering ----

void RegisterEquality(FunctionRegistry& r) {
  // Declared over one type parameter as in cel-go; at runtime equality is heterogeneous (1 == 1.0).
  AddStandard(r, op::kEquals, "equals", {ParamA(), ParamA()}, Type::Bool(),
      [](absl::Span<const Value> a) { return Equal(a[0], a[1]); });
  AddStandard(r, op::kNotEquals, "not_equals", {ParamA(), ParamA()}, Type::Bool(),
      [](absl::Span<const Value> a) {
        Value eq = Equal(a[0], a[1]);
        return eq.is_bool() ? Value::Bool(!eq.bool_value()) : eq;
      });
}

bool IsNaN(const Value& v) { return v.kind() == ValueKind::kDouble && std::isnan(v.double_value()); }

// One relational operator over every comparable pair, including Kubernetes'
// CrossTypeNumericComparisons (int/uint/double mixed). `accept` maps Compare's -1/0/1 to the
// result; NaN makes every relation false.
template <typename Accept>
void RegisterRelation(FunctionRegistry& r, absl::string_view name, absl::string_view id_prefix,
                      Accept accept) {
  struct Pair {
    const char* suffix;
    Type lhs;
    Type rhs;
  };
  const std::vector<Pair> pairs = {
      {"bool", Type::Bool(), Type::Bool()},
      {"int64", Type::Int(), Type::Int()},
      {"int64_double", Type::Int(), Type::Double()},
      {"int64_uint64", Type::Int(), Type::Uint()},
      {"uint64", Type::Uint(), Type::Uint()},
      {"uint64_double", Type::Uint(), Type::Double()},
      {"uint64_int64", Type::Uint(), Type::Int()},
      {"double", Type::Double(), Type::Double()},
      {"double_int64", Type::Double(), Type::Int()},
      {"double_uint64", Type::Double(), Type::Uint()},
      {"string", Type::String(), Type::String()},
      {"bytes", Type::Bytes(), Type::Bytes()},
      {"timestamp", Type::Timestamp(), Type::Timestamp()},
      {"duration", Type::Duration(), Type::Duration()},
  };
  const std::string fn(name);
  for (const Pair& p : pairs) {
    AddStandard(r, name, absl::StrCat(id_prefix, "_", p.suffix), {p.lhs, p.rhs}, Type::Bool(),
        [accept, fn](absl::Span<const Value> a) {
          if (IsNaN(a[0]) || IsNaN(a[1])) return Value::Bool(false);
          std::optional<int> c = Compare(a[0], a[1]);
          if (!c.has_value()) return Value::NoSuchOverload(fn);
          return Value::Bool(accept(*c));
        });
  }
}

void RegisterOrdering(FunctionRegistry& r) {
  RegisterRelation(r, op::kLess, "less", [](int c) { return c < 0; });
  RegisterRelation(r, op::kLessEquals, "less_equals", [](int c) { return c <= 0; });
  RegisterRelation(r, op::kGreater, "greater", [](int c) { return c > 0; });
  RegisterRelation(r, op::kGreaterEquals, "greater_equals", [](int c) { return c >= 0; });
}

// ---- Indexing and membership ----

void RegisterIndexing(FunctionRegistry& r) {
  // Statically the index is an int; at runtime cel-go also takes a lossless uint or double.
  AddStandard(r, op::kIndex, "index_list", {Type::List(ParamA()), Type::Int()}, ParamA(),
      [](absl::Span<const Value> a) {
        Value error;
        std::optional<int64_t> index = ListIndex(a[1], &error);
        if (!index.has_value()) return error;
        return ListGet(a[0].list_value(), *index);
      });
  // Hidden from the checker: a dyn index that is a uint or an integral double at runtime.
  for (auto [id, type] : {std::pair<const char*, Type>{"index_list_uint", Type::Uint()},
                          std::pair<const char*, Type>{"index_list_double", Type::Double()}}) {
    Overload o = MakeOverload(id, {Type::List(ParamA()), type}, ParamA(),
                              [](absl::Span<const Value> a) {
                                Value error;
                                std::optional<int64_t> index = ListIndex(a[1], &error);
                                if (!index.has_value()) return error;
                                return ListGet(a[0].list_value(), *index);
                              });
    o.runtime_only = true;
    r.Add(op::kIndex, std::move(o));
  }
  AddStandard(r, op::kIndex, "index_map", {Type::Map(ParamA(), ParamB()), ParamA()}, ParamB(),
      [](absl::Span<const Value> a) {
        std::optional<Value> v = a[0].map_value().Find(a[1]);
        if (!v.has_value()) return Value::NoSuchKey(GoValueText(a[1]));
        return *std::move(v);
      });
  AddStandard(r, op::kIn, "in_list", {ParamA(), Type::List(ParamA())}, Type::Bool(),
      [](absl::Span<const Value> a) {
        // As cel-go: an element whose comparison errs (opaque types) just does not match.
        const ListValue& list = a[1].list_value();
        for (size_t i = 0; i < list.size(); ++i) {
          if (Equal(a[0], list.Get(i)).IsTrue()) return Value::Bool(true);
        }
        return Value::Bool(false);
      });
  AddStandard(r, op::kIn, "in_map", {ParamA(), Type::Map(ParamA(), ParamB())}, Type::Bool(),
      [](absl::Span<const Value> a) {
        return Value::Bool(a[1].map_value().Contains(a[0]));
      });
}

// ---- size, string predicates, matches ----

// Code points of UTF-8 text; a stray byte of invalid text counts as one, as Go's []rune does.
int64_t StringCodePoints(absl::string_view s) {
  int64_t n = 0;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (i + len > s.size()) len = 1;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
        len = 1;
        break;
      }
    }
    i += len;
    ++n;
  }
  return n;
}

void RegisterSize(FunctionRegistry& r) {
  auto size_string = [](absl::Span<const Value> a) {
    return Value::Int(StringCodePoints(a[0].string_value()));
  };
  auto size_bytes = [](absl::Span<const Value> a) {
    return Value::Int(static_cast<int64_t>(a[0].string_value().size()));
  };
  auto size_list = [](absl::Span<const Value> a) {
    return Value::Int(static_cast<int64_t>(a[0].list_value().size()));
  };
  auto size_map = [](absl::Span<const Value> a) {
    return Value::Int(static_cast<int64_t>(a[0].map_value().size()));
  };
  const Type list_a = Type::List(ParamA());
  const Type map_ab = Type::Map(ParamA(), ParamB());
  AddStandard(r, "size", "size_string", {Type::String()}, Type::Int(), size_string);
  AddStandard(r, "size", "string_size", {Type::String()}, Type::Int(), size_string, true);
  AddStandard(r, "size", "size_bytes", {Type::Bytes()}, Type::Int(), size_bytes);
  AddStandard(r, "size", "bytes_size", {Type::Bytes()}, Type::Int(), size_bytes, true);
  AddStandard(r, "size", "size_list", {list_a}, Type::Int(), size_list);
  AddStandard(r, "size", "list_size", {list_a}, Type::Int(), size_list, true);
  AddStandard(r, "size", "size_map", {map_ab}, Type::Int(), size_map);
  AddStandard(r, "size", "map_size", {map_ab}, Type::Int(), size_map, true);
}

Value Matches(absl::string_view text, absl::string_view pattern) {
  // Compiled per call: constant patterns are the common case and an evaluator may hoist them;
  // a shared cache would need locking in this otherwise lock-free library.
  RE2::Options options;
  options.set_log_errors(false);
  RE2 re(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re.ok()) return Value::Error(absl::StrCat("error parsing regexp: ", re.error()));
  // Go's regexp.MatchString: the pattern may match anywhere in the text.
  return Value::Bool(RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re));
}

void RegisterStrings(FunctionRegistry& r) {
  const Type s = Type::String();
  AddStandard(r, "contains", "contains_string", {s, s}, Type::Bool(),
      [](absl::Span<const Value> a) {
        return Value::Bool(absl::StrContains(a[0].string_value(), a[1].string_value()));
      },
      true);
  AddStandard(r, "startsWith", "starts_with_string", {s, s}, Type::Bool(),
      [](absl::Span<const Value> a) {
        return Value::Bool(absl::StartsWith(a[0].string_value(), a[1].string_value()));
      },
      true);
  AddStandard(r, "endsWith", "ends_with_string", {s, s}, Type::Bool(),
      [](absl::Span<const Value> a) {
        return Value::Bool(absl::EndsWith(a[0].string_value(), a[1].string_value()));
      },
      true);
  auto matches = [](absl::Span<const Value> a) {
    return Matches(a[0].string_value(), a[1].string_value());
  };
  AddStandard(r, "matches", "matches", {s, s}, Type::Bool(), matches);
  AddStandard(r, "matches", "matches_string", {s, s}, Type::Bool(), matches, true);
}

// ---- !_, type(), dyn(), cel.@mapInsert ----

void RegisterMisc(FunctionRegistry& r) {
  AddStandard(r, op::kLogicalNot, "logical_not", {Type::Bool()}, Type::Bool(),
      [](absl::Span<const Value> a) { return Value::Bool(!a[0].bool_value()); });
  // type(x) of a type value is `type` (Value::TypeName() of a kType value).
  AddStandard(r, "type", "type", {ParamA()}, Type::TypeOf(ParamA()),
      [](absl::Span<const Value> a) { return Value::Type(a[0].TypeName()); });
  AddStandard(r, "dyn", "to_dyn", {ParamA()}, Type::Dyn(),
      [](absl::Span<const Value> a) { return a[0]; });

  // The two-variable macros (transformMap, transformMapEntry) accumulate through this helper.
  // Each call copies the map, so a macro over n entries costs O(n^2); the maps are small.
  const Type map_kv = Type::Map(Type::Param("K"), Type::Param("V"));
  AddStandard(
      r, "cel.@mapInsert", "@mapInsert_map_key_value", {map_kv, Type::Param("K"), Type::Param("V")},
      map_kv, [](absl::Span<const Value> a) {
        std::shared_ptr<HashMapValue> out = CopyMap(a[0].map_value());
        if (!out->Insert(a[1], a[2])) {
          return Value::Error(
              absl::StrCat("insert failed: key ", GoValueText(a[1]), " already exists"));
        }
        return Value::Map(std::move(out));
      });
  AddStandard(r, "cel.@mapInsert", "@mapInsert_map_map", {map_kv, map_kv}, map_kv,
      [](absl::Span<const Value> a) {
        std::shared_ptr<HashMapValue> out = CopyMap(a[0].map_value());
        const MapValue& extra = a[1].map_value();
        for (Value& key : extra.Keys()) {
          std::optional<Value> value = extra.Find(key);
          const std::string key_text = GoValueText(key);
          if (!out->Insert(std::move(key), value.has_value() ? *std::move(value) : Value::Null())) {
            return Value::Error(absl::StrCat("insert failed: key ", key_text, " already exists"));
          }
        }
        return Value::Map(std::move(out));
      });
}

}  // namespace

void RegisterStandardOperators(FunctionRegistry& registry) {
  RegisterMisc(registry);
  RegisterEquality(registry);
  RegisterOrdering(registry);
  RegisterIndexing(registry);
  RegisterSize(registry);
  RegisterStrings(registry);
}

void RegisterStandardLibrary(FunctionRegistry& registry) {
  RegisterStandardOperators(registry);
  RegisterStandardArithmetic(registry);
  RegisterStandardConversions(registry);
  RegisterStandardTime(registry);
  RegisterStandardOptional(registry);
}

}  // namespace gpuprofile::cel::internal
