// File: test/cel/sets_library_test.cc
// ext.Sets: containment, equivalence and intersection with CEL (numeric) equality.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel {
namespace {

const FunctionRegistry& Registry() {
  static const FunctionRegistry* r = [] {
    auto* reg = new FunctionRegistry();
    RegisterSetsLibrary(*reg);
    return reg;
  }();
  return *r;
}

Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  const std::vector<Overload>* overloads = Registry().Find(fn);
  if (overloads == nullptr) return Value::Error("test: function not found");
  for (const Overload& o : *overloads) {
    if (o.id != id) continue;
    if (o.params.size() != args.size()) return Value::Error("test: arity");
    for (size_t i = 0; i < args.size(); ++i) {
      if (!o.params[i].AcceptsRuntime(args[i])) return Value::Error("test: kind");
    }
    return o.impl(args);
  }
  return Value::Error("test: overload not found");
}

Value S(std::string s) { return Value::String(std::move(s)); }
Value I(int64_t i) { return Value::Int(i); }

// Strings raw, errors as "error: <msg>", everything else as DebugString.
std::string Show(const Value& v) {
  if (v.is_error()) return "error: " + std::string(v.error_message());
  if (v.kind() == ValueKind::kString) return std::string(v.string_value());
  return v.DebugString();
}

// Compiles with every library and evaluates without variables.
std::string Eval(const std::string& expr) {
  auto program = Compile(expr, Environment::Standard());
  if (!program.ok()) return "compile error: " + std::string(program.status().message());
  return Show((*program)->Evaluate(absl::Span<const Value>()));
}

void ExpectGates(int minor, absl::string_view library_prefix) {
  for (const auto& [name, overloads] : Registry().functions()) {
    for (const Overload& o : overloads) {
      EXPECT_EQ(o.gate.introduced_minor, minor) << o.id;
      EXPECT_EQ(o.gate.library.rfind(std::string(library_prefix), 0), 0u) << o.id;
    }
  }
}

Value L(std::vector<Value> v) { return Value::List(std::move(v)); }

TEST(SetsLibraryTest, Contains) {
  const std::vector<std::pair<std::pair<Value, Value>, bool>> cases = {
      {{L({}), L({})}, true},
      {{L({I(1)}), L({})}, true},
      {{L({}), L({I(1)})}, false},
      {{L({I(1), I(2), I(3)}), L({I(3), I(1)})}, true},
      {{L({I(1), I(2)}), L({I(2), I(3)})}, false},
      {{L({I(1)}), L({Value::Double(1.0), Value::Uint(1)})}, true},
      {{L({S("a")}), L({S("a"), S("a")})}, true},
      {{L({L({I(1)})}), L({L({Value::Double(1)})})}, true},
      {{L({S("1")}), L({I(1)})}, false},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_EQ(Call("sets.contains", "list_sets_contains_list", {args.first, args.second}).IsTrue(),
              want);
  }
}

TEST(SetsLibraryTest, EquivalentAndIntersects) {
  EXPECT_TRUE(Call("sets.equivalent", "list_sets_equivalent_list",
                   {L({I(1), I(2), I(2)}), L({I(2), Value::Double(1)})})
                  .IsTrue());
  EXPECT_FALSE(Call("sets.equivalent", "list_sets_equivalent_list", {L({I(1)}), L({I(1), I(2)})})
                   .IsTrue());
  EXPECT_TRUE(Call("sets.equivalent", "list_sets_equivalent_list", {L({}), L({})}).IsTrue());
  EXPECT_TRUE(Call("sets.intersects", "list_sets_intersects_list", {L({I(1), I(2)}), L({I(2)})})
                  .IsTrue());
  EXPECT_FALSE(Call("sets.intersects", "list_sets_intersects_list", {L({I(1)}), L({})}).IsTrue());
  EXPECT_FALSE(Call("sets.intersects", "list_sets_intersects_list", {L({}), L({})}).IsTrue());
  EXPECT_TRUE(Call("sets.intersects", "list_sets_intersects_list",
                   {L({Value::Uint(7)}), L({Value::Double(7)})})
                  .IsTrue());
}

TEST(SetsLibraryTest, GatesAndExpressions) {
  ExpectGates(29, "ext.Sets");
  EXPECT_EQ(Eval("sets.contains([1, 2, 3], [3, 1])"), "true");
  EXPECT_EQ(Eval("sets.intersects(['a'], ['b'])"), "false");
  EXPECT_EQ(Eval("sets.equivalent([1, 1.0], [1u])"), "true");
}
}  // namespace
}  // namespace gpuprofile::cel
