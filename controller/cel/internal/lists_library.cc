// File: controller/cel/internal/lists_library.cc
// Two list libraries:
//  - Kubernetes' lists library (k8s.io/apiserver/pkg/cel/library/lists.go), base environment:
//    isSorted, sum, min, max, indexOf, lastIndexOf;
//  - cel-go's ext.Lists at version 3 (Kubernetes 1.34 environment): slice, flatten, sort, the
//    sortBy macro's helper @sortByAssociatedKeys, lists.range, reverse, distinct.
//
// Overload ids, the per-type overload sets and error messages follow the Go sources, so that a
// checked expression resolves to the overload Kubernetes would pick and fails with its words.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller/cel/internal/function.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr char kK8sListsLibrary[] = "Kubernetes lists library";
constexpr char kExtListsLibrary[] = "ext.Lists v3";
constexpr int kExtListsIntroducedMinor = 34;
// lists.range(n) materialises n elements; beyond this an expression could exhaust memory.
constexpr int64_t kMaxRangeSize = 10'000'000;

struct NamedType {
  const char* name;  // as it appears in the overload id
  Type type;
};

// Kubernetes spells duration and timestamp ids with their short names.
std::vector<NamedType> K8sComparableTypes() {
  return {{"int", Type::Int()},           {"uint", Type::Uint()},
          {"double", Type::Double()},     {"bool", Type::Bool()},
          {"duration", Type::Duration()}, {"timestamp", Type::Timestamp()},
          {"string", Type::String()},     {"bytes", Type::Bytes()}};
}

// cel-go's ext.Lists uses the CEL type names (`list_google.protobuf.Duration_sort`).
std::vector<NamedType> ExtComparableTypes() {
  return {{"int", Type::Int()},
          {"uint", Type::Uint()},
          {"double", Type::Double()},
          {"bool", Type::Bool()},
          {"google.protobuf.Duration", Type::Duration()},
          {"google.protobuf.Timestamp", Type::Timestamp()},
          {"string", Type::String()},
          {"bytes", Type::Bytes()}};
}

// Kinds that implement cel-go's Comparer trait.
bool IsComparableKind(ValueKind k) {
  switch (k) {
    case ValueKind::kInt: case ValueKind::kUint: case ValueKind::kDouble: case ValueKind::kBool:
    case ValueKind::kString: case ValueKind::kBytes: case ValueKind::kDuration:
    case ValueKind::kTimestamp:
      return true;
    default:
      return false;
  }
}

// ---- Kubernetes lists ----

Value IsSorted(absl::Span<const Value> args) {
  const ListValue& list = args[0].list_value();
  for (size_t i = 0; i < list.size(); ++i) {
    Value next = list.Get(i);
    if (!IsComparableKind(next.kind())) return Value::NoSuchOverload("isSorted");
    // Pairs that cannot be ordered (mixed kinds in a dyn list) do not count as out of order,
    // as in Kubernetes where Compare yields an error rather than 1.
    if (i > 0 && Compare(list.Get(i - 1), next) == 1) return Value::Bool(false);
  }
  return Value::Bool(true);
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Adds `next` to `acc` the way cel-go's Adder does for the summable kinds.
Value AddForSum(const Value& acc, const Value& next) {
  if (acc.kind() != next.kind()) return Value::NoSuchOverload("sum");
  switch (acc.kind()) {
    case ValueKind::kInt: {
      auto r = CheckedAdd(acc.int_value(), next.int_value());
      return r ? Value::Int(*r) : Value::Error("integer overflow");
    }
    case ValueKind::kUint: {
      uint64_t r;
      if (__builtin_add_overflow(acc.uint_value(), next.uint_value(), &r)) {
        return Value::Error("unsigned integer overflow");
      }
      return Value::Uint(r);
    }
    case ValueKind::kDouble:
      return Value::Double(acc.double_value() + next.double_value());
    case ValueKind::kDuration: {
      auto r = CheckedAdd(absl::ToInt64Nanoseconds(acc.duration_value()),
                          absl::ToInt64Nanoseconds(next.duration_value()));
      return r ? Value::Duration(absl::Nanoseconds(*r)) : Value::Error("integer overflow");
    }
    default:
      return Value::NoSuchOverload("sum");
  }
}

FunctionImpl SumImpl(Value zero) {
  return [zero](absl::Span<const Value> args) {
    const ListValue& list = args[0].list_value();
    Value acc = zero;
    for (size_t i = 0; i < list.size(); ++i) {
      acc = AddForSum(acc, list.Get(i));
      if (acc.is_error()) return acc;
    }
    return acc;
  };
}

// min (prefer = 1: replace when the current result is greater) and max (prefer = -1).
FunctionImpl ExtremeImpl(absl::string_view op, int prefer) {
  return [op = std::string(op), prefer](absl::Span<const Value> args) {
    const ListValue& list = args[0].list_value();
    std::optional<Value> result;
    for (size_t i = 0; i < list.size(); ++i) {
      Value next = list.Get(i);
      if (!IsComparableKind(next.kind())) return Value::NoSuchOverload(op);
      if (!result.has_value()) {
        result = std::move(next);
      } else if (Compare(*result, next) == prefer) {
        result = std::move(next);
      }
    }
    if (!result.has_value()) return Value::Error(absl::StrCat(op, " called on empty list"));
    return *result;
  };
}

Value IndexOfImpl(absl::Span<const Value> args) {
  const ListValue& list = args[0].list_value();
  for (size_t i = 0; i < list.size(); ++i) {
    if (Equal(list.Get(i), args[1]).IsTrue()) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}

Value LastIndexOfImpl(absl::Span<const Value> args) {
  const ListValue& list = args[0].list_value();
  for (size_t i = list.size(); i > 0; --i) {
    if (Equal(list.Get(i - 1), args[1]).IsTrue()) return Value::Int(static_cast<int64_t>(i - 1));
  }
  return Value::Int(-1);
}

// ---- cel-go ext.Lists ----

std::vector<Value> Elements(const ListValue& list) {
  std::vector<Value> out;
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) out.push_back(list.Get(i));
  return out;
}

Value Slice(absl::Span<const Value> args) {
  const ListValue& list = args[0].list_value();
  const int64_t start = args[1].int_value();
  const int64_t end = args[2].int_value();
  const auto length = static_cast<int64_t>(list.size());
  if (start < 0 || end < 0) {
    return Value::Error(
        absl::StrCat("cannot slice(", start, ", ", end, "), negative indexes not supported"));
  }
  if (start > end) {
    return Value::Error(absl::StrCat("cannot slice(", start, ", ", end,
                                     "), start index must be less than or equal to end index"));
  }
  if (length < end) {
    return Value::Error(
        absl::StrCat("cannot slice(", start, ", ", end, "), list is length ", length));
  }
  std::vector<Value> out;
  for (int64_t i = start; i < end; ++i) out.push_back(list.Get(static_cast<size_t>(i)));
  return Value::List(std::move(out));
}

void FlattenInto(const ListValue& list, int64_t depth, std::vector<Value>& out) {
  for (size_t i = 0; i < list.size(); ++i) {
    Value v = list.Get(i);
    if (v.kind() != ValueKind::kList || depth == 0) {
      out.push_back(std::move(v));
    } else {
      FlattenInto(v.list_value(), depth - 1, out);
    }
  }
}

Value Flatten(const ListValue& list, int64_t depth) {
  if (depth < 0) return Value::Error("level must be non-negative");
  std::vector<Value> out;
  FlattenInto(list, depth, out);
  return Value::List(std::move(out));
}

// Sorts `list` by the order of `keys` (sort() passes the list as its own keys).
Value SortByAssociatedKeys(const Value& list_value, const ListValue& keys) {
  const ListValue& list = list_value.list_value();
  if (list.size() != keys.size()) {
    return Value::Error(absl::StrCat(
        "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
        "but got ",
        list.size(), " and ", keys.size(), " elements respectively"));
  }
  if (list.size() == 0) return list_value;
  const Value first = keys.Get(0);
  if (!IsComparableKind(first.kind())) return Value::Error("list elements must be comparable");
  std::vector<Value> key_values = Elements(keys);
  for (const Value& k : key_values) {
    if (k.kind() != first.kind()) return Value::Error("list elements must have the same type");
  }
  std::vector<size_t> order(list.size());
  std::iota(order.begin(), order.end(), 0);
  // A merge sort tolerates the inconsistent answers NaN keys give; cel-go's order for them is
  // unspecified as well.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return Compare(key_values[a], key_values[b]) == -1;
  });
  std::vector<Value> out;
  out.reserve(order.size());
  for (size_t i : order) out.push_back(list.Get(i));
  return Value::List(std::move(out));
}

Value ListRange(int64_t n) {
  if (n > kMaxRangeSize) {
    return Value::Error(
        absl::StrCat("lists.range(", n, ") exceeds the supported size of ", kMaxRangeSize));
  }
  std::vector<Value> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(Value::Int(i));
  return Value::List(std::move(out));
}

Value Reverse(const ListValue& list) {
  std::vector<Value> out = Elements(list);
  std::reverse(out.begin(), out.end());
  return Value::List(std::move(out));
}

Value Distinct(const Value& list_value) {
  const ListValue& list = list_value.list_value();
  if (list.size() == 0) return list_value;
  std::vector<Value> unique;
  for (size_t i = 0; i < list.size(); ++i) {
    Value v = list.Get(i);
    bool seen = std::any_of(unique.begin(), unique.end(),
                            [&](const Value& u) { return Equal(v, u).IsTrue(); });
    if (!seen) unique.push_back(std::move(v));
  }
  return Value::List(std::move(unique));
}

void AddListsOverload(FunctionRegistry& registry, absl::string_view name, std::string id,
                 std::vector<Type> params, Type result, FunctionImpl impl, const Gate& gate,
                 bool member = true) {
  Overload o = MakeOverload(std::move(id), std::move(params), std::move(result), std::move(impl),
                            member);
  o.gate = gate;
  registry.Add(name, std::move(o));
}

}  // namespace

void RegisterKubernetesListsLibrary(FunctionRegistry& registry) {
  const Gate gate{0, kK8sListsLibrary};
  for (const NamedType& t : K8sComparableTypes()) {
    const std::string n = t.name;
    AddListsOverload(registry, "isSorted", absl::StrCat("list_", n, "_is_sorted_bool"),
                {Type::List(t.type)}, Type::Bool(), IsSorted, gate);
    AddListsOverload(registry, "max", absl::StrCat("list_", n, "_max_", n), {Type::List(t.type)},
                t.type, ExtremeImpl("max", -1), gate);
    AddListsOverload(registry, "min", absl::StrCat("list_", n, "_min_", n), {Type::List(t.type)},
                t.type, ExtremeImpl("min", 1), gate);
  }
  const std::vector<std::pair<NamedType, Value>> summable = {
      {{"int", Type::Int()}, Value::Int(0)},
      {{"uint", Type::Uint()}, Value::Uint(0)},
      {{"double", Type::Double()}, Value::Double(0)},
      {{"duration", Type::Duration()}, Value::Duration(absl::ZeroDuration())}};
  for (const auto& [t, zero] : summable) {
    AddListsOverload(registry, "sum", absl::StrCat("list_", t.name, "_sum_", t.name),
                {Type::List(t.type)}, t.type, SumImpl(zero), gate);
  }
  const Type a = Type::Param("A");
  AddListsOverload(registry, "indexOf", "list_a_index_of_int", {Type::List(a), a}, Type::Int(),
              IndexOfImpl, gate);
  AddListsOverload(registry, "lastIndexOf", "list_a_last_index_of_int", {Type::List(a), a},
              Type::Int(), LastIndexOfImpl, gate);
}

void RegisterExtListsLibrary(FunctionRegistry& registry) {
  const Gate gate{kExtListsIntroducedMinor, kExtListsLibrary};
  const Type t = Type::Param("T");
  const Type list_t = Type::List(t);
  const Type list_dyn = Type::List(Type::Dyn());
  AddListsOverload(registry, "slice", "list_slice", {list_t, Type::Int(), Type::Int()}, list_t,
                   Slice, gate);
  AddListsOverload(
      registry, "flatten", "list_flatten", {Type::List(list_t)}, list_t,
      [](absl::Span<const Value> args) { return Flatten(args[0].list_value(), 1); }, gate);
  AddListsOverload(
      registry, "flatten", "list_flatten_int", {list_dyn, Type::Int()}, list_dyn,
      [](absl::Span<const Value> args) {
        return Flatten(args[0].list_value(), args[1].int_value());
      },
      gate);
  for (const NamedType& k : ExtComparableTypes()) {
    AddListsOverload(
        registry, "sort", absl::StrCat("list_", k.name, "_sort"), {Type::List(k.type)},
        Type::List(k.type),
        [](absl::Span<const Value> args) {
          return SortByAssociatedKeys(args[0], args[0].list_value());
        },
        gate);
    AddListsOverload(
        registry, "@sortByAssociatedKeys", absl::StrCat("list_", k.name, "_sortByAssociatedKeys"),
        {list_t, Type::List(k.type)}, list_t,
        [](absl::Span<const Value> args) {
          return SortByAssociatedKeys(args[0], args[1].list_value());
        },
        gate);
  }
  AddListsOverload(
      registry, "lists.range", "lists_range", {Type::Int()}, Type::List(Type::Int()),
      [](absl::Span<const Value> args) { return ListRange(args[0].int_value()); }, gate,
      /*member=*/false);
  AddListsOverload(
      registry, "reverse", "list_reverse", {list_t}, list_t,
      [](absl::Span<const Value> args) { return Reverse(args[0].list_value()); }, gate);
  AddListsOverload(
      registry, "distinct", "list_distinct", {list_t}, list_t,
      [](absl::Span<const Value> args) { return Distinct(args[0]); }, gate);
}

}  // namespace gpuprofile::cel::internal
