// File: controller/cel/internal/quantity_library.cc
// Kubernetes' CEL quantity library (apiserver pkg/cel/library/quantity.go), part of the CEL
// environment since Kubernetes 1.28: the same functions, overload ids, results and error texts.
//
// Two details that differ from the library's doc comment but match its code: `sign` is a global
// function (`sign(q)`, not `q.sign()`), and `add`/`sub` with an int treat the int as a plain
// number. The later `mul`/`div`/`divInt` additions are not part of this library yet.
//
// One divergence: Kubernetes' asInteger()/isInteger() depend on how the value happens to be
// stored (quantity("1000m").isInteger() is false there although it is 1); here they depend only
// on the value: whole and within int64.
#include <memory>
#include <typeinfo>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/library_values.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"
#include "controller/core/quantity.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int kQuantityIntroducedMinor = 28;
constexpr char kQuantityLibraryName[] = "Quantity";

class QuantityObject final : public OpaqueValue {
 public:
  explicit QuantityObject(Quantity q) : quantity_(std::move(q)) {}
  absl::string_view TypeName() const override { return kQuantityTypeName; }
  std::optional<bool> Equals(const OpaqueValue& other) const override {
    const auto* o = dynamic_cast<const QuantityObject*>(&other);
    if (o == nullptr) return std::nullopt;
    return quantity_ == o->quantity_;
  }
  // compareTo() below reads the same Compare: the evaluator's shortcut and the call agree.
  std::optional<int> CompareTo(const OpaqueValue& other) const override {
    // typeid of a final class: one comparison, where dynamic_cast walks the hierarchy.
    if (typeid(other) != typeid(*this)) return std::nullopt;
    return quantity_.Compare(static_cast<const QuantityObject&>(other).quantity_);
  }
  std::string DebugString() const override {
    return absl::StrCat("quantity(\"", quantity_.ToString(), "\")");
  }
  const Quantity& quantity() const { return quantity_; }

 private:
  Quantity quantity_;
};

Type QuantityType() { return Type::Opaque(kQuantityTypeName); }

Value FromStatusOr(const absl::StatusOr<Quantity>& q) {
  if (!q.ok()) return Value::Error(std::string(q.status().message()));
  return MakeQuantityValue(*q);
}

void AddQuantityOverload(FunctionRegistry& registry, absl::string_view function,
                         Overload overload) {
  overload.gate.introduced_minor = kQuantityIntroducedMinor;
  overload.gate.library = kQuantityLibraryName;
  registry.Add(function, std::move(overload));
}

// `q.f(other)` where both are quantities.
template <typename Fn>
FunctionImpl QuantityBinary(absl::string_view function, Fn fn) {
  return [function = std::string(function), fn](absl::Span<const Value> args) -> Value {
    const Quantity* a = AsQuantity(args[0]);
    const Quantity* b = AsQuantity(args[1]);
    if (a == nullptr || b == nullptr) return Value::NoSuchOverload(function);
    return fn(*a, *b);
  };
}

// `q.f()`.
template <typename Fn>
FunctionImpl QuantityUnary(absl::string_view function, Fn fn) {
  return [function = std::string(function), fn](absl::Span<const Value> args) -> Value {
    const Quantity* q = AsQuantity(args[0]);
    if (q == nullptr) return Value::NoSuchOverload(function);
    return fn(*q);
  };
}

// `q.f(int)`: Kubernetes wraps the int as a DecimalExponent quantity.
template <typename Fn>
FunctionImpl WithInt(absl::string_view function, Fn fn) {
  return [function = std::string(function), fn](absl::Span<const Value> args) -> Value {
    const Quantity* q = AsQuantity(args[0]);
    if (q == nullptr || args[1].kind() != ValueKind::kInt) return Value::NoSuchOverload(function);
    return fn(*q, Quantity::FromInt(args[1].int_value(), Quantity::Format::kDecimalExponent));
  };
}

}  // namespace
}  // namespace gpuprofile::cel::internal

// The public face of the type (library_values.h).
namespace gpuprofile::cel {

Value MakeQuantityValue(Quantity quantity) {
  return Value::Opaque(std::make_shared<const internal::QuantityObject>(std::move(quantity)));
}

const Quantity* AsQuantity(const Value& value) {
  if (value.kind() != ValueKind::kOpaque) return nullptr;
  const auto* object = dynamic_cast<const internal::QuantityObject*>(&value.opaque_value());
  return object == nullptr ? nullptr : &object->quantity();
}

}  // namespace gpuprofile::cel

namespace gpuprofile::cel::internal {

void RegisterQuantityLibrary(FunctionRegistry& registry) {
  const Type q = QuantityType();

  AddQuantityOverload(registry, "quantity",
              MakeOverload("string_to_quantity", {Type::String()}, q,
                           [](absl::Span<const Value> args) -> Value {
                             if (args[0].kind() != ValueKind::kString) {
                               return Value::NoSuchOverload("quantity");
                             }
                             return FromStatusOr(Quantity::Parse(args[0].string_value()));
                           }));
  AddQuantityOverload(registry, "isQuantity",
              MakeOverload("is_quantity_string", {Type::String()}, Type::Bool(),
                           [](absl::Span<const Value> args) -> Value {
                             if (args[0].kind() != ValueKind::kString) {
                               return Value::NoSuchOverload("isQuantity");
                             }
                             return Value::Bool(Quantity::Parse(args[0].string_value()).ok());
                           }));
  // A global function in Kubernetes (cel.Overload, not cel.MemberOverload): `sign(q)`.
  AddQuantityOverload(
      registry, "sign",
      MakeOverload("quantity_sign", {q}, Type::Int(),
                   QuantityUnary("sign", [](const Quantity& x) { return Value::Int(x.Sign()); })));
  AddQuantityOverload(registry, "isGreaterThan",
              MakeOverload("quantity_is_greater_than", {q, q}, Type::Bool(),
                           QuantityBinary("isGreaterThan",
                                  [](const Quantity& a, const Quantity& b) {
                                    return Value::Bool(a.Compare(b) == 1);
                                  }),
                           /*receiver_style=*/true));
  AddQuantityOverload(registry, "isLessThan",
              MakeOverload("quantity_is_less_than", {q, q}, Type::Bool(),
                           QuantityBinary("isLessThan",
                                  [](const Quantity& a, const Quantity& b) {
                                    return Value::Bool(a.Compare(b) == -1);
                                  }),
                           /*receiver_style=*/true));
  AddQuantityOverload(registry, "compareTo",
              MakeOverload("quantity_compare_to", {q, q}, Type::Int(),
                           QuantityBinary("compareTo",
                                  [](const Quantity& a, const Quantity& b) {
                                    return Value::Int(a.Compare(b));
                                  }),
                           /*receiver_style=*/true));
  AddQuantityOverload(registry, "asApproximateFloat",
              MakeOverload("quantity_get_float", {q}, Type::Double(),
                           QuantityUnary("asApproximateFloat",
                                 [](const Quantity& x) {
                                   return Value::Double(x.AsApproximateDouble());
                                 }),
                           /*receiver_style=*/true));
  AddQuantityOverload(registry, "asInteger",
              MakeOverload("quantity_get_int", {q}, Type::Int(),
                           QuantityUnary("asInteger",
                                 [](const Quantity& x) {
                                   absl::StatusOr<int64_t> v = x.AsInt64();
                                   // Kubernetes' wording, whatever the reason.
                                   if (!v.ok()) {
                                     return Value::Error("cannot convert value to integer");
                                   }
                                   return Value::Int(*v);
                                 }),
                           /*receiver_style=*/true));
  AddQuantityOverload(registry, "isInteger",
              MakeOverload("quantity_is_integer", {q}, Type::Bool(),
                           QuantityUnary("isInteger",
                                 [](const Quantity& x) { return Value::Bool(x.AsInt64().ok()); }),
                           /*receiver_style=*/true));

  const auto add = [](const Quantity& a, const Quantity& b) { return FromStatusOr(a.Add(b)); };
  const auto sub = [](const Quantity& a, const Quantity& b) { return FromStatusOr(a.Sub(b)); };
  AddQuantityOverload(
      registry, "add",
      MakeOverload("quantity_add", {q, q}, q, QuantityBinary("add", add), /*receiver_style=*/true));
  AddQuantityOverload(registry, "add",
              MakeOverload("quantity_add_int", {q, Type::Int()}, q, WithInt("add", add),
                           /*receiver_style=*/true));
  AddQuantityOverload(
      registry, "sub",
      MakeOverload("quantity_sub", {q, q}, q, QuantityBinary("sub", sub), /*receiver_style=*/true));
  AddQuantityOverload(registry, "sub",
              MakeOverload("quantity_sub_int", {q, Type::Int()}, q, WithInt("sub", sub),
                           /*receiver_style=*/true));
}

}  // namespace gpuprofile::cel::internal
