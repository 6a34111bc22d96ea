// File: test/cel/library_test_util.h
// Shared harness for the CEL library tests: a registry holding only the libraries under test,
// calling one overload by id (with the evaluator's parameter-kind check), and rendering results.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "controller/cel/environment.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel::testing {

class LibraryUnderTest {
 public:
  using Registration = void (*)(internal::FunctionRegistry&);
  LibraryUnderTest(std::initializer_list<Registration> registrations) {
    for (Registration r : registrations) r(registry_);
  }

  const internal::FunctionRegistry& registry() const { return registry_; }

  // The overload `id` of function `fn`, or null.
  const internal::Overload* Find(absl::string_view fn, absl::string_view id) const {
    const std::vector<internal::Overload>* overloads = registry_.Find(fn);
    if (overloads == nullptr) return nullptr;
    for (const internal::Overload& o : *overloads) {
      if (o.id == id) return &o;
    }
    return nullptr;
  }

  // Calls overload `id` of `fn` after checking, as the evaluator does, that the arguments fit
  // its parameter kinds; problems of the call itself come back as "test: ..." errors.
  Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) const {
    const internal::Overload* o = Find(fn, id);
    if (o == nullptr) return Value::Error("test: overload not found");
    if (o->params.size() != args.size()) return Value::Error("test: arity");
    for (size_t i = 0; i < args.size(); ++i) {
      if (!o->params[i].AcceptsRuntime(args[i])) return Value::Error("test: kind");
    }
    return o->impl(args);
  }

  // Like Call, but a missing overload or an argument that does not fit fails the test.
  Value CallOrFail(absl::string_view fn, absl::string_view id, std::vector<Value> args) const {
    EXPECT_NE(Find(fn, id), nullptr) << fn << "/" << id;
    Value v = Call(fn, id, std::move(args));
    EXPECT_FALSE(v.is_error() && v.error_message().substr(0, 6) == "test: ")
        << fn << "/" << id << ": " << v.error_message();
    return v;
  }

  // Every overload is gated at `minor` under a library name starting with `library_prefix`.
  void ExpectGates(int minor, absl::string_view library_prefix) const {
    for (const auto& [name, overloads] : registry_.functions()) {
      for (const internal::Overload& o : overloads) {
        EXPECT_EQ(o.gate.introduced_minor, minor) << o.id;
        EXPECT_EQ(o.gate.library.rfind(std::string(library_prefix), 0), 0u) << o.id;
      }
    }
  }

 private:
  internal::FunctionRegistry registry_;
};

inline Value S(std::string s) { return Value::String(std::move(s)); }
inline Value I(int64_t i) { return Value::Int(i); }
inline Value D(double d) { return Value::Double(d); }
inline Value L(std::vector<Value> v) { return Value::List(std::move(v)); }

// Strings raw, errors as "error: <msg>", everything else as DebugString.
inline std::string Show(const Value& v) {
  if (v.is_error()) return "error: " + std::string(v.error_message());
  if (v.kind() == ValueKind::kString) return std::string(v.string_value());
  return v.DebugString();
}

// Compiles with every library and evaluates without variables.
inline std::string Eval(const std::string& expr) {
  auto program = Compile(expr, Environment::Standard());
  if (!program.ok()) return "compile error: " + std::string(program.status().message());
  return Show((*program)->Evaluate(absl::Span<const Value>()));
}

}  // namespace gpuprofile::cel::testing
