// File: controller/cel/internal/semver_library.cc
// Kubernetes' CEL semver library (apiserver pkg/cel/library/semverlib.go): the same functions,
// overload ids, results and error texts (a parse error is blang/semver's message, unwrapped).
//
// Gates: the strict one-argument forms and the methods reached DRA selectors with the 1.31
// environment (a DRA-local copy of the library); the normalising `semver(s, true)` and
// `isSemver(s, true)` are library version 1, part of the 1.33 base environment.
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
#include "controller/core/semver.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr int kSemverIntroducedMinor = 31;
constexpr char kSemverLibraryName[] = "Semver";
constexpr int kNormalizeIntroducedMinor = 33;
constexpr char kNormalizeLibraryName[] = "normalising semver";

class SemverObject final : public OpaqueValue {
 public:
  explicit SemverObject(Semver v) : semver_(std::move(v)) {}
  absl::string_view TypeName() const override { return kSemverTypeName; }
  std::optional<bool> Equals(const OpaqueValue& other) const override {
    const auto* o = dynamic_cast<const SemverObject*>(&other);
    if (o == nullptr) return std::nullopt;
    return semver_ == o->semver_;  // precedence equality: build metadata ignored, as blang's EQ
  }
  // compareTo() below reads the same Compare: the evaluator's shortcut and the call agree.
  std::optional<int> CompareTo(const OpaqueValue& other) const override {
    // typeid of a final class: one comparison, where dynamic_cast walks the hierarchy.
    if (typeid(other) != typeid(*this)) return std::nullopt;
    return semver_.Compare(static_cast<const SemverObject&>(other).semver_);
  }
  std::string DebugString() const override {
    return absl::StrCat("semver(\"", semver_.ToString(), "\")");
  }
  const Semver& semver() const { return semver_; }

 private:
  Semver semver_;
};

void AddSemverOverload(FunctionRegistry& registry, absl::string_view function, Overload overload,
                 bool normalize = false) {
  overload.gate.introduced_minor = normalize ? kNormalizeIntroducedMinor : kSemverIntroducedMinor;
  overload.gate.library = normalize ? kNormalizeLibraryName : kSemverLibraryName;
  registry.Add(function, std::move(overload));
}

// Parses args[0], normalising when args[1] (if present) is true.
absl::StatusOr<Semver> ParseArgs(absl::Span<const Value> args) {
  const bool normalize = args.size() > 1 && args[1].IsTrue();
  return normalize ? Semver::ParseNormalized(args[0].string_value())
                   : Semver::ParseStrict(args[0].string_value());
}

bool ValidArgs(absl::Span<const Value> args) {
  return args[0].kind() == ValueKind::kString &&
         (args.size() < 2 || args[1].kind() == ValueKind::kBool);
}

Value ToSemver(absl::Span<const Value> args) {
  if (!ValidArgs(args)) return Value::NoSuchOverload("semver");
  absl::StatusOr<Semver> v = ParseArgs(args);
  if (!v.ok()) return Value::Error(std::string(v.status().message()));
  return MakeSemverValue(*std::move(v));
}

Value IsSemver(absl::Span<const Value> args) {
  if (!ValidArgs(args)) return Value::NoSuchOverload("isSemver");
  return Value::Bool(ParseArgs(args).ok());
}

template <typename Fn>
FunctionImpl SemverUnary(absl::string_view function, Fn fn) {
  return [function = std::string(function), fn](absl::Span<const Value> args) -> Value {
    const Semver* v = AsSemver(args[0]);
    if (v == nullptr) return Value::NoSuchOverload(function);
    return fn(*v);
  };
}

template <typename Fn>
FunctionImpl SemverBinary(absl::string_view function, Fn fn) {
  return [function = std::string(function), fn](absl::Span<const Value> args) -> Value {
    const Semver* a = AsSemver(args[0]);
    const Semver* b = AsSemver(args[1]);
    if (a == nullptr || b == nullptr) return Value::NoSuchOverload(function);
    return fn(*a, *b);
  };
}

}  // namespace
}  // namespace gpuprofile::cel::internal

// The public face of the type (library_values.h).
namespace gpuprofile::cel {

Value MakeSemverValue(Semver semver) {
  return Value::Opaque(std::make_shared<const internal::SemverObject>(std::move(semver)));
}

const Semver* AsSemver(const Value& value) {
  if (value.kind() != ValueKind::kOpaque) return nullptr;
  const auto* object = dynamic_cast<const internal::SemverObject*>(&value.opaque_value());
  return object == nullptr ? nullptr : &object->semver();
}

}  // namespace gpuprofile::cel

namespace gpuprofile::cel::internal {

void RegisterSemverLibrary(FunctionRegistry& registry) {
  const Type v = Type::Opaque(kSemverTypeName);

  AddSemverOverload(registry, "semver",
                    MakeOverload("string_to_semver", {Type::String()}, v, ToSemver));
  AddSemverOverload(registry, "isSemver",
              MakeOverload("is_semver_string", {Type::String()}, Type::Bool(), IsSemver));
  AddSemverOverload(registry, "semver",
              MakeOverload("string_bool_to_semver", {Type::String(), Type::Bool()}, v, ToSemver),
              /*normalize=*/true);
  AddSemverOverload(registry, "isSemver",
              MakeOverload("is_semver_string_bool", {Type::String(), Type::Bool()}, Type::Bool(),
                           IsSemver),
              /*normalize=*/true);

  AddSemverOverload(registry, "isGreaterThan",
              MakeOverload("semver_is_greater_than", {v, v}, Type::Bool(),
                           SemverBinary("isGreaterThan",
                                  [](const Semver& a, const Semver& b) {
                                    return Value::Bool(a.Compare(b) == 1);
                                  }),
                           /*receiver_style=*/true));
  AddSemverOverload(registry, "isLessThan",
              MakeOverload("semver_is_less_than", {v, v}, Type::Bool(),
                           SemverBinary("isLessThan",
                                  [](const Semver& a, const Semver& b) {
                                    return Value::Bool(a.Compare(b) == -1);
                                  }),
                           /*receiver_style=*/true));
  AddSemverOverload(registry, "compareTo",
              MakeOverload("semver_compare_to", {v, v}, Type::Int(),
                           SemverBinary("compareTo",
                                  [](const Semver& a, const Semver& b) {
                                    return Value::Int(a.Compare(b));
                                  }),
                           /*receiver_style=*/true));
  // Kubernetes converts the uint64 components with types.Int(...), i.e. a plain Go conversion.
  AddSemverOverload(registry, "major",
                    MakeOverload("semver_major", {v}, Type::Int(),
                                 SemverUnary("major",
                                             [](const Semver& x) {
                                               return Value::Int(static_cast<int64_t>(x.major()));
                                             }),
                                 /*receiver_style=*/true));
  AddSemverOverload(registry, "minor",
                    MakeOverload("semver_minor", {v}, Type::Int(),
                                 SemverUnary("minor",
                                             [](const Semver& x) {
                                               return Value::Int(static_cast<int64_t>(x.minor()));
                                             }),
                                 /*receiver_style=*/true));
  AddSemverOverload(registry, "patch",
                    MakeOverload("semver_patch", {v}, Type::Int(),
                                 SemverUnary("patch",
                                             [](const Semver& x) {
                                               return Value::Int(static_cast<int64_t>(x.patch()));
                                             }),
                                 /*receiver_style=*/true));
}

}  // namespace gpuprofile::cel::internal
