// File: test/cel/regex_library_test.cc
// Kubernetes regex library: find/findAll with Go regexp semantics, compile errors as values.
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
    RegisterRegexLibrary(*reg);
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

TEST(RegexLibraryTest, Find) {
  EXPECT_EQ(Show(Call("find", "string_find_string", {S("abc 123"), S("[0-9]+")})), "123");
  EXPECT_EQ(Show(Call("find", "string_find_string", {S("abc 123"), S("xyz")})), "");
  // Leftmost-first, like Go: the empty match at 0 wins for '[0-9]*'.
  EXPECT_EQ(Show(Call("find", "string_find_string", {S("abc 123"), S("[0-9]*")})), "");
  EXPECT_EQ(Show(Call("find", "string_find_string", {S("GPU-A100"), S("(?i)a\\d+")})), "A100");
}

TEST(RegexLibraryTest, FindAllFollowsGoEmptyMatchRules) {
  const std::vector<std::pair<std::vector<Value>, std::string>> cases = {
      {{S("123 abc 456"), S("[0-9]+")}, "[\"123\", \"456\"]"},
      {{S("123 abc 456"), S("xyz")}, "[]"},
      // Go's FindAllString: empty matches between matches count, except right after a match.
      {{S("123 abc 456"), S("[0-9]*")}, "[\"123\", \"\", \"\", \"\", \"\", \"456\"]"},
      {{S("ab"), S("")}, "[\"\", \"\", \"\"]"},
      {{S("a€b"), S("")}, "[\"\", \"\", \"\", \"\"]"},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_EQ(Show(Call("findAll", "string_find_all_string", args)), want);
  }
  EXPECT_EQ(Show(Call("findAll", "string_find_all_string_int",
                      {S("123 abc 456"), S("[0-9]+"), I(1)})),
            "[\"123\"]");
  EXPECT_EQ(Show(Call("findAll", "string_find_all_string_int",
                      {S("123 abc 456"), S("[0-9]+"), I(0)})),
            "[]");
  EXPECT_EQ(Show(Call("findAll", "string_find_all_string_int",
                      {S("123 abc 456"), S("[0-9]+"), I(-1)})),
            "[\"123\", \"456\"]");
  // '^' matches only at the start of the text, not at each search position.
  EXPECT_EQ(Show(Call("findAll", "string_find_all_string", {S("aaa"), S("^a")})), "[\"a\"]");
}

TEST(RegexLibraryTest, InvalidPatternIsAnErrorValue) {
  EXPECT_EQ(Show(Call("find", "string_find_string", {S("x"), S("(")})),
            "error: Illegal regex: error parsing regexp: missing closing ): `(`");
  EXPECT_EQ(Show(Call("findAll", "string_find_all_string", {S("x"), S("a**")})),
            "error: Illegal regex: error parsing regexp: invalid nested repetition operator: `**`");
  // Cached patterns give the same answers again.
  EXPECT_EQ(Show(Call("find", "string_find_string", {S("x"), S("(")})),
            "error: Illegal regex: error parsing regexp: missing closing ): `(`");
}

TEST(RegexLibraryTest, GatesAndExpressions) {
  ExpectGates(0, "Kubernetes regex");
  EXPECT_EQ(Eval("'abc 123'.find('[0-9]+') == '123'"), "true");
  EXPECT_EQ(Eval("'1 2 3'.findAll('[0-9]', 2) == ['1', '2']"), "true");
}
}  // namespace
}  // namespace gpuprofile::cel
