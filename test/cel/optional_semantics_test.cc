// File: test/cel/optional_semantics_test.cc
// cel-go's optional types (cel.OptionalTypes) beyond the library functions: field selection,
// indexing and has() through an optional value, the optMap/optFlatMap macros, and the types the
// checker gives these forms.
#include <string>

#include "controller/cel/environment.h"
#include "controller/cel/internal/checker.h"
#include "controller/cel/internal/macros.h"
#include "controller/cel/internal/parser.h"
#include "controller/cel/program.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel::internal {
namespace optional_semantics_test {
namespace {

using ::testing::HasSubstr;

// `o` is optional.of({'a': {'b': 'c'}}), `none` is optional.none(), `m` is {'k': optional.none()}.
std::shared_ptr<const Environment> TestEnv() {
  return Environment::Standard({{"o", Type::Optional(Type::Map(Type::String(), Type::Dyn()))},
                                {"none", Type::Optional(Type::Dyn())},
                                {"m", Type::Map(Type::String(), Type::Dyn())}});
}

Value Eval(const std::string& expr, bool check) {
  CompileOptions options;
  options.type_check = check;
  auto program = Compile(expr, TestEnv(), options);
  if (!program.ok()) return Value::Error("COMPILE: " + std::string(program.status().message()));
  auto inner = std::make_shared<HashMapValue>();
  inner->Insert(Value::String("b"), Value::String("c"));
  auto outer = std::make_shared<HashMapValue>();
  outer->Insert(Value::String("a"), Value::Map(inner));
  auto m = std::make_shared<HashMapValue>();
  m->Insert(Value::String("k"), Value::OptionalNone());
  MapActivation activation;
  activation.Set("o", Value::OptionalOf(Value::Map(outer)));
  activation.Set("none", Value::OptionalNone());
  activation.Set("m", Value::Map(m));
  return (*program)->Evaluate(activation);
}

struct EvalCase {
  const char* expr;
  const char* want;  // Value::DebugString() of the result, or "error:<substring>"
};

class OptionalEvalTest : public ::testing::TestWithParam<EvalCase> {};

TEST_P(OptionalEvalTest, CheckedAndUncheckedAgree) {
  const EvalCase& c = GetParam();
  const std::string want = c.want;
  for (bool check : {true, false}) {
    Value v = Eval(c.expr, check);
    if (want.rfind("error:", 0) == 0) {
      ASSERT_TRUE(v.is_error()) << c.expr << " (check=" << check << ") = " << v.DebugString();
      EXPECT_THAT(std::string(v.error_message()), HasSubstr(want.substr(6))) << c.expr;
    } else {
      EXPECT_EQ(v.DebugString(), want) << c.expr << " (check=" << check << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    SelectThroughOptional, OptionalEvalTest,
    ::testing::Values(
        // A present value selects its field and stays optional; a missing key gives none.
        EvalCase{"o.a", "optional.of({\"b\": \"c\"})"},
        EvalCase{"o.a.b", "optional.of(\"c\")"},
        EvalCase{"o.missing", "optional.none()"},
        EvalCase{"o.missing.b", "optional.none()"},
        EvalCase{"o.a.b.orValue('d')", "\"c\""},
        EvalCase{"o.a.x.orValue('d')", "\"d\""},
        // None stays none.
        EvalCase{"none.a", "optional.none()"},
        EvalCase{"none.a.b.hasValue()", "false"},
        EvalCase{"{}.?x.y", "optional.none()"},
        EvalCase{"{'x': {'y': 1}}.?x.y", "optional.of(1)"},
        EvalCase{"optional.of({'c': {'index': 'goodbye'}}).c.index.orValue('default value')",
                 "\"goodbye\""},
        // A present value that has no fields is an error, as in cel-go.
        EvalCase{"{'k': dyn(null)}.?k.invalid", "error:no such key"},
        EvalCase{"{true: dyn(0)}[?true].absent", "error:no such key"},
        EvalCase{"{true: dyn(0)}[?false].absent.hasValue()", "false"}));

INSTANTIATE_TEST_SUITE_P(
    HasThroughOptional, OptionalEvalTest,
    ::testing::Values(EvalCase{"has(o.a)", "true"}, EvalCase{"has(o.missing)", "false"},
                      EvalCase{"has(o.a.b)", "true"}, EvalCase{"has(none.a)", "false"},
                      EvalCase{"has(m.k)", "true"}, EvalCase{"has(m.k.x)", "false"},
                      EvalCase{"has({'foo': optional.none()}.foo.bar)", "false"},
                      EvalCase{"has({}.?x.y)", "false"},
                      EvalCase{"has({'x': {'y': 'z'}}.?x.y)", "true"}));

INSTANTIATE_TEST_SUITE_P(
    IndexThroughOptional, OptionalEvalTest,
    ::testing::Values(EvalCase{"o['a']['b']", "optional.of(\"c\")"},
                      EvalCase{"o.a['missing']", "optional.none()"},
                      EvalCase{"optional.of([1, 2])[1]", "optional.of(2)"},
                      EvalCase{"optional.none()[0]", "optional.none()"},
                      EvalCase{"optional.of({'c': {}}).c['missing'].orValue('default')",
                               "\"default\""}));

INSTANTIATE_TEST_SUITE_P(
    OptMapAndOptFlatMap, OptionalEvalTest,
    ::testing::Values(
        EvalCase{"optional.of(42).optMap(y, y + 1)", "optional.of(43)"},
        EvalCase{"optional.none().optMap(y, y + 1)", "optional.none()"},
        EvalCase{"o.optMap(v, v.a.b)", "optional.of(\"c\")"},
        EvalCase{"o.a.optMap(v, v.size())", "optional.of(1)"},
        EvalCase{"none.optMap(v, v.a)", "optional.none()"},
        EvalCase{"{'key': {'subkey': 'v'}}.?key.optFlatMap(k, k.?subkey)", "optional.of(\"v\")"},
        EvalCase{"{'key': {}}.?key.optFlatMap(k, k.?subkey)", "optional.none()"},
        EvalCase{"{}.?key.optFlatMap(k, k.?subkey)", "optional.none()"},
        EvalCase{"optional.of(2).optFlatMap(x, optional.ofNonZeroValue(x - 2))",
                 "optional.none()"},
        // Nested, and the variable does not leak out of its expansion.
        EvalCase{"optional.of(1).optMap(x, optional.of(x + 1).optMap(y, x + y))",
                 "optional.of(optional.of(3))"},
        EvalCase{"[1, 2].map(x, optional.of(x).optMap(y, y * 10).value())", "[10, 20]"}));

struct TypeCase {
  const char* expr;
  const char* want;  // Type::ToString() of the checked result
};

class OptionalTypeTest : public ::testing::TestWithParam<TypeCase> {};

TEST_P(OptionalTypeTest, ChecksTo) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse(GetParam().expr));
  ASSERT_OK_AND_ASSIGN(CheckedAst checked, Check(std::move(ast), *TestEnv()));
  EXPECT_EQ(checked.result_type().ToString(), GetParam().want) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Types, OptionalTypeTest,
    ::testing::Values(
        TypeCase{"o.a", "optional_type(dyn)"},
        TypeCase{"optional.of({'c': {'index': 'x'}}).c", "optional_type(map(string, string))"},
        TypeCase{"optional.of({'c': {'index': 'x'}}).c.index", "optional_type(string)"},
        TypeCase{"{'c': 1}.?c", "optional_type(int)"},
        TypeCase{"optional.of({'c': 1}).?c", "optional_type(int)"},
        TypeCase{"has(o.a)", "bool"},
        TypeCase{"optional.of({'c': 'x'}).c.orValue('y')", "string"},
        TypeCase{"optional.of(42).optMap(y, y + 1).hasValue()", "bool"},
        TypeCase{"optional.of({'k': 'v'}).optFlatMap(m, m.?k).hasValue()", "bool"}));

TEST(OptionalCheckTest, SelectionOnAnOptionalOfANonContainerIsAnError) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("optional.of(1).x"));
  absl::StatusOr<CheckedAst> checked = Check(std::move(ast), *TestEnv());
  ASSERT_FALSE(checked.ok());
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("type 'int' does not support field selection"));
}

TEST(OptionalCheckTest, OptFlatMapNeedsAnOptionalResult) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("optional.of(1).optFlatMap(x, x + 1)"));
  absl::StatusOr<CheckedAst> checked = Check(std::move(ast), *TestEnv());
  ASSERT_FALSE(checked.ok());
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("found no matching overload for '_?_:_'"));
}

TEST(OptionalMacroTest, OptMapExpandsLikeCelGo) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("o.optMap(v, v + 1)"));
  EXPECT_EQ(DebugString(*ast.root),
            "(o.hasValue() ? optional.of(__comprehension__(#unused, [], v, o.value(), false, v, "
            "(v + 1))) : optional.none())");
}

TEST(OptionalMacroTest, OptFlatMapExpandsLikeCelGo) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("o.optFlatMap(v, v.?f)"));
  EXPECT_EQ(DebugString(*ast.root),
            "(o.hasValue() ? __comprehension__(#unused, [], v, o.value(), false, v, v.?f) : "
            "optional.none())");
}

TEST(OptionalMacroTest, VariableMustBeASimpleName) {
  absl::StatusOr<Ast> ast = Parse("o.optMap(v.w, v)");
  ASSERT_FALSE(ast.ok());
  EXPECT_EQ(std::string(ast.status().message()),
            "ERROR: <input>:1:11: optMap() variable name must be a simple identifier\n"
            " | o.optMap(v.w, v)\n | ..........^");
  ast = Parse("o.optFlatMap(1, v)");
  ASSERT_FALSE(ast.ok());
  EXPECT_THAT(std::string(ast.status().message()),
              HasSubstr("optFlatMap() variable name must be a simple identifier"));
}

TEST(OptionalMacroTest, OffWithoutOptionalSyntax) {
  ParserOptions options;
  options.enable_optional_syntax = false;
  EXPECT_EQ(FindMacro("optMap", 2, true, options), nullptr);
  EXPECT_EQ(FindMacro("optFlatMap", 2, true, options), nullptr);
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("o.optMap(v, v)", options));
  EXPECT_EQ(DebugString(*ast.root), "o.optMap(v, v)");
  EXPECT_NE(FindMacro("optMap", 2, true, ParserOptions{}), nullptr);
  EXPECT_EQ(FindMacro("optMap", 2, false, ParserOptions{}), nullptr);
}

}  // namespace
}  // namespace optional_semantics_test
}  // namespace gpuprofile::cel::internal
