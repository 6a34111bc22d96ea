// File: test/cel/standard_library_test_util.h
// Helpers for the standard library tests: call an overload by its id through a registry, and
// compare results by kind, CEL equality and (for errors) message.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/internal/function.h"
#include "controller/cel/value.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel::testing {

inline const internal::FunctionRegistry& StandardRegistry() {
  static const internal::FunctionRegistry* registry = [] {
    auto* r = new internal::FunctionRegistry();
    internal::RegisterStandardLibrary(*r);
    return r;
  }();
  return *registry;
}

// The overload `id` of function `name`, or null.
inline const internal::Overload* FindOverload(const std::string& name, const std::string& id) {
  const std::vector<internal::Overload>* overloads = StandardRegistry().Find(name);
  if (overloads == nullptr) return nullptr;
  for (const internal::Overload& o : *overloads) {
    if (o.id == id) return &o;
  }
  return nullptr;
}

// Calls overload `id` of `name`; an error value names the missing overload when there is none.
// Also checks, as the evaluator would, that the arguments fit the declared parameter kinds.
inline Value Call(const std::string& name, const std::string& id, std::vector<Value> args) {
  const internal::Overload* o = FindOverload(name, id);
  if (o == nullptr) return Value::Error("test: no overload " + name + "/" + id);
  if (o->params.size() != args.size()) return Value::Error("test: arity mismatch for " + id);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!o->params[i].AcceptsRuntime(args[i])) {
      return Value::Error("test: argument " + std::to_string(i) + " rejected by " + id);
    }
  }
  return o->impl(args);
}

inline Value MapOf(std::vector<std::pair<Value, Value>> entries) {
  auto m = std::make_shared<HashMapValue>();
  for (auto& [k, v] : entries) m->Insert(std::move(k), std::move(v));
  return Value::Map(std::move(m));
}

inline Value ListOf(std::vector<Value> elements) { return Value::List(std::move(elements)); }

// Same kind and CEL-equal (NaN matches NaN), or both errors with the same message.
inline ::testing::AssertionResult SameValue(const Value& got, const Value& want) {
  if (want.is_error()) {
    if (got.is_error() && got.error_message() == want.error_message()) {
      return ::testing::AssertionSuccess();
    }
  } else if (got.kind() == want.kind()) {
    if (want.kind() == ValueKind::kDouble && std::isnan(want.double_value()) &&
        std::isnan(got.double_value())) {
      return ::testing::AssertionSuccess();
    }
    if (want.kind() == ValueKind::kType) {
      if (got.string_value() == want.string_value()) return ::testing::AssertionSuccess();
    } else if (want.kind() == ValueKind::kOptional) {
      if (got.optional_has_value() == want.optional_has_value() &&
          (!want.optional_has_value() ||
           SameValue(got.optional_value(), want.optional_value()))) {
        return ::testing::AssertionSuccess();
      }
    } else if (Equal(got, want).IsTrue()) {
      return ::testing::AssertionSuccess();
    }
  }
  return ::testing::AssertionFailure()
         << "got " << got.DebugString() << " (" << got.TypeName() << "), want "
         << want.DebugString() << " (" << want.TypeName() << ")";
}

// One row of a table: call `id` of `name` with `args`, expect `want`.
struct Case {
  std::string name;
  std::string id;
  std::vector<Value> args;
  Value want;
};

inline void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    EXPECT_TRUE(SameValue(Call(c.name, c.id, c.args), c.want));
  }
}

}  // namespace gpuprofile::cel::testing
