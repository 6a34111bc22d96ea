// File: controller/cel/internal/standard_optional.cc
// CEL's standard definitions, part five: cel-go's optional types library (cel.OptionalTypes, in
// Kubernetes' CEL environment from 1.28): optional.of/ofNonZeroValue/none, hasValue(), value(),
// or(), orValue(), and the optional field selection and indexing forms `m.?f` and `l[?i]`, plus
// indexing into an optional, which chains (a none stays none).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/standard_library_internal.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int kOptionalMinor = 28;
constexpr char kOptionalLibrary[] = "cel.OptionalTypes";

void AddOptional(FunctionRegistry& r, absl::string_view name, std::string id,
                 std::vector<Type> params, Type result, FunctionImpl impl,
                 bool receiver_style = false) {
  Overload o = MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                            receiver_style);
  o.gate.introduced_minor = kOptionalMinor;
  o.gate.library = kOptionalLibrary;
  r.Add(name, std::move(o));
}

// cel-go's IsZeroValue: the default value of each type. A timestamp's zero is Go's zero time
// (0001-01-01T00:00:00Z), not the Unix epoch; type and opaque values are never zero.
bool IsZeroValue(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return !v.bool_value();
    case ValueKind::kInt:
      return v.int_value() == 0;
    case ValueKind::kUint:
      return v.uint_value() == 0;
    case ValueKind::kDouble:
      return v.double_value() == 0;
    case ValueKind::kString:
    case ValueKind::kBytes:
      return v.string_value().empty();
    case ValueKind::kList:
      return v.list_value().size() == 0;
    case ValueKind::kMap:
      return v.map_value().size() == 0;
    case ValueKind::kDuration:
      return v.duration_value() == absl::ZeroDuration();
    case ValueKind::kTimestamp:
      return v.timestamp_value() == absl::FromUnixSeconds(-62135596800);
    case ValueKind::kOptional:
      return !v.optional_has_value();
    default:
      return false;
  }
}

// m[?k]: the value under `key`, or none.
Value OptionalMapIndex(const MapValue& map, const Value& key) {
  std::optional<Value> v = map.Find(key);
  return v.has_value() ? Value::OptionalOf(*std::move(v)) : Value::OptionalNone();
}

// l[?i]: the element at `index`, or none when out of range; a non-integral index is an error.
Value OptionalListIndex(const ListValue& list, const Value& index) {
  Value error;
  std::optional<int64_t> i = ListIndex(index, &error);
  if (!i.has_value()) return error;
  if (*i < 0 || static_cast<uint64_t>(*i) >= list.size()) return Value::OptionalNone();
  return Value::OptionalOf(list.Get(static_cast<size_t>(*i)));
}

// Optional indexing of any container, as the runtime operand decides (list, map, optional).
Value OptionalIndex(const Value& container, const Value& key, absl::string_view function) {
  switch (container.kind()) {
    case ValueKind::kList:
      return OptionalListIndex(container.list_value(), key);
    case ValueKind::kMap:
      return OptionalMapIndex(container.map_value(), key);
    case ValueKind::kOptional:
      if (!container.optional_has_value()) return container;
      return OptionalIndex(container.optional_value(), key, function);
    default:
      return Value::NoSuchOverload(function);
  }
}

// m.?f: the field of a map, or of the value of an optional map (a none stays none).
Value OptionalSelect(const Value& operand, absl::string_view field) {
  switch (operand.kind()) {
    case ValueKind::kMap: {
      std::optional<Value> v = operand.map_value().FindString(field);
      return v.has_value() ? Value::OptionalOf(*std::move(v)) : Value::OptionalNone();
    }
    case ValueKind::kOptional:
      if (!operand.optional_has_value()) return operand;
      return OptionalSelect(operand.optional_value(), field);
    default:
      return Value::NoSuchOverload(op::kOptSelect);
  }
}

void RegisterConstructors(FunctionRegistry& r) {
  const Type v = Type::Param("V");
  AddOptional(r, "optional.of", "optional_of", {v}, Type::Optional(v),
      [](absl::Span<const Value> a) { return Value::OptionalOf(a[0]); });
  AddOptional(r, "optional.ofNonZeroValue", "optional_ofNonZeroValue", {v}, Type::Optional(v),
      [](absl::Span<const Value> a) {
        return IsZeroValue(a[0]) ? Value::OptionalNone() : Value::OptionalOf(a[0]);
      });
  AddOptional(r, "optional.none", "optional_none", {}, Type::Optional(v),
      [](absl::Span<const Value>) { return Value::OptionalNone(); });
}

void RegisterAccessors(FunctionRegistry& r) {
  const Type v = Type::Param("V");
  const Type opt_v = Type::Optional(v);
  AddOptional(
      r, "hasValue", "optional_hasValue", {opt_v}, Type::Bool(),
      [](absl::Span<const Value> a) { return Value::Bool(a[0].optional_has_value()); }, true);
  AddOptional(
      r, "value", "optional_value", {opt_v}, v,
      [](absl::Span<const Value> a) {
        if (!a[0].optional_has_value()) return Value::Error("optional.none() dereference");
        return a[0].optional_value();
      },
      true);
  // cel-go evaluates or()/orValue() lazily: the argument is not evaluated when the receiver has
  // a value. Here they are ordinary strict functions, so an error in an unused argument still
  // surfaces; that only matters for expressions whose fallback errs, which admission accepts
  // either way.
  AddOptional(
      r, "or", "optional_or_optional", {opt_v, opt_v}, opt_v,
      [](absl::Span<const Value> a) { return a[0].optional_has_value() ? a[0] : a[1]; }, true);
  AddOptional(
      r, "orValue", "optional_orValue_value", {opt_v, v}, v,
      [](absl::Span<const Value> a) {
        return a[0].optional_has_value() ? a[0].optional_value() : a[1];
      },
      true);
}

void RegisterSelectAndIndex(FunctionRegistry& r) {
  const Type k = Type::Param("K");
  const Type v = Type::Param("V");
  AddOptional(r, op::kOptSelect, "select_optional_field", {Type::Dyn(), Type::String()},
      Type::Optional(v),
      [](absl::Span<const Value> a) { return OptionalSelect(a[0], a[1].string_value()); });
  AddOptional(r, op::kOptIndex, "list_optindex_optional_int", {Type::List(v), Type::Int()},
      Type::Optional(v), [](absl::Span<const Value> a) {
        return OptionalListIndex(a[0].list_value(), a[1]);
      });
  AddOptional(r, op::kOptIndex, "optional_list_optindex_optional_int",
      {Type::Optional(Type::List(v)), Type::Int()}, Type::Optional(v),
      [](absl::Span<const Value> a) { return OptionalIndex(a[0], a[1], op::kOptIndex); });
  AddOptional(r, op::kOptIndex, "map_optindex_optional_value", {Type::Map(k, v), k},
              Type::Optional(v),
              [](absl::Span<const Value> a) { return OptionalMapIndex(a[0].map_value(), a[1]); });
  AddOptional(r, op::kOptIndex, "optional_map_optindex_optional_value",
      {Type::Optional(Type::Map(k, v)), k}, Type::Optional(v),
      [](absl::Span<const Value> a) { return OptionalIndex(a[0], a[1], op::kOptIndex); });
  // Plain indexing into an optional stays optional: optional.of(l)[i] is l[?i].
  AddOptional(r, op::kIndex, "optional_list_index_int",
              {Type::Optional(Type::List(v)), Type::Int()}, Type::Optional(v),
              [](absl::Span<const Value> a) { return OptionalIndex(a[0], a[1], op::kIndex); });
  AddOptional(r, op::kIndex, "optional_map_index_value", {Type::Optional(Type::Map(k, v)), k},
      Type::Optional(v),
      [](absl::Span<const Value> a) { return OptionalIndex(a[0], a[1], op::kIndex); });
}

}  // namespace

void RegisterStandardOptional(FunctionRegistry& registry) {
  RegisterConstructors(registry);
  RegisterAccessors(registry);
  RegisterSelectAndIndex(registry);
}

}  // namespace gpuprofile::cel::internal
