// File: test/cel/macros_test.cc
// Macro expansion shapes (compared with cel-go's expansions) and macro errors, via Parse.
#include "controller/cel/internal/macros.h"

#include <algorithm>
#include <string>
#include <vector>

#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel::internal {
namespace macros_test {
namespace {

using ::testing::HasSubstr;

std::string Show(absl::string_view text, const ParserOptions& options = {}) {
  absl::StatusOr<Ast> ast = Parse(text, options);
  if (!ast.ok()) return std::string(ast.status().message());
  return DebugString(*ast->root);
}

struct MacroCase {
  const char* input;
  const char* expected;
};

class MacroExpansionTest : public ::testing::TestWithParam<MacroCase> {};

TEST_P(MacroExpansionTest, Expands) {
  EXPECT_EQ(Show(GetParam().input), GetParam().expected) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Standard, MacroExpansionTest,
    ::testing::Values(
        MacroCase{"has(a.b)", "has(a.b)"}, MacroCase{"has(a.b.c)", "has(a.b.c)"},
        MacroCase{"xs.all(x, x > 0)",
                  "__comprehension__(x, xs, @result, true, @not_strictly_false(@result), "
                  "(@result && (x > 0)), @result)"},
        MacroCase{"xs.exists(x, p)",
                  "__comprehension__(x, xs, @result, false, "
                  "@not_strictly_false(!(@result)), (@result || p), @result)"},
        MacroCase{"xs.exists_one(x, p)",
                  "__comprehension__(x, xs, @result, 0, true, (p ? (@result + 1) : @result), "
                  "(@result == 1))"},
        MacroCase{"xs.existsOne(x, p)",
                  "__comprehension__(x, xs, @result, 0, true, (p ? (@result + 1) : @result), "
                  "(@result == 1))"},
        MacroCase{"xs.map(x, t)",
                  "__comprehension__(x, xs, @result, [], true, (@result + [t]), @result)"},
        MacroCase{"xs.map(x, p, t)",
                  "__comprehension__(x, xs, @result, [], true, "
                  "(p ? (@result + [t]) : @result), @result)"},
        MacroCase{"xs.filter(x, p)",
                  "__comprehension__(x, xs, @result, [], true, "
                  "(p ? (@result + [x]) : @result), @result)"},
        MacroCase{"a.b.all(x, x)",
                  "__comprehension__(x, a.b, @result, true, @not_strictly_false(@result), "
                  "(@result && x), @result)"}));

INSTANTIATE_TEST_SUITE_P(
    TwoVar, MacroExpansionTest,
    ::testing::Values(
        MacroCase{"m.all(k, v, p)",
                  "__comprehension__(k, v, m, @result, true, @not_strictly_false(@result), "
                  "(@result && p), @result)"},
        MacroCase{"m.exists(k, v, p)",
                  "__comprehension__(k, v, m, @result, false, "
                  "@not_strictly_false(!(@result)), (@result || p), @result)"},
        MacroCase{"m.existsOne(k, v, p)",
                  "__comprehension__(k, v, m, @result, 0, true, "
                  "(p ? (@result + 1) : @result), (@result == 1))"},
        MacroCase{"m.exists_one(k, v, p)",
                  "__comprehension__(k, v, m, @result, 0, true, "
                  "(p ? (@result + 1) : @result), (@result == 1))"},
        MacroCase{"l.transformList(i, v, t)",
                  "__comprehension__(i, v, l, @result, [], true, (@result + [t]), @result)"},
        MacroCase{"l.transformList(i, v, p, t)",
                  "__comprehension__(i, v, l, @result, [], true, "
                  "(p ? (@result + [t]) : @result), @result)"},
        MacroCase{"m.transformMap(k, v, t)",
                  "__comprehension__(k, v, m, @result, {}, true, "
                  "cel.@mapInsert(@result, k, t), @result)"},
        MacroCase{"m.transformMap(k, v, p, t)",
                  "__comprehension__(k, v, m, @result, {}, true, "
                  "(p ? cel.@mapInsert(@result, k, t) : @result), @result)"},
        MacroCase{"m.transformMapEntry(k, v, {v: k})",
                  "__comprehension__(k, v, m, @result, {}, true, "
                  "cel.@mapInsert(@result, {v: k}), @result)"},
        MacroCase{"m.transformMapEntry(k, v, p, {v: k})",
                  "__comprehension__(k, v, m, @result, {}, true, "
                  "(p ? cel.@mapInsert(@result, {v: k}) : @result), @result)"}));

INSTANTIATE_TEST_SUITE_P(
    Extensions, MacroExpansionTest,
    ::testing::Values(MacroCase{"cel.bind(x, 1, x + 1)",
                                "__comprehension__(#unused, [], x, 1, false, x, (x + 1))"},
                      MacroCase{"other.bind(x, 1, x)", "other.bind(x, 1, x)"},
                      MacroCase{"xs.sortBy(e, -e)",
                                "__comprehension__(#unused, [], @__sortBy_input__, xs, false, "
                                "@__sortBy_input__, @__sortBy_input__.@sortByAssociatedKeys("
                                "__comprehension__(e, @__sortBy_input__, @result, [], true, "
                                "(@result + [-(e)]), @result)))"},
                      MacroCase{"[3, 1].sortBy(e, e)",
                                "__comprehension__(#unused, [], @__sortBy_input__, [3, 1], false, "
                                "@__sortBy_input__, @__sortBy_input__.@sortByAssociatedKeys("
                                "__comprehension__(e, @__sortBy_input__, @result, [], true, "
                                "(@result + [e]), @result)))"}));

INSTANTIATE_TEST_SUITE_P(
    NotMacros, MacroExpansionTest,
    ::testing::Values(MacroCase{"has(a.b, c)", "has(a.b, c)"},
                      MacroCase{"a.has(b.c)", "a.has(b.c)"}, MacroCase{"all(x, p)", "all(x, p)"},
                      MacroCase{"xs.map(x)", "xs.map(x)"}, MacroCase{".has(a.b)", ".has(a.b)"},
                      MacroCase{"xs.transformList(i, v)", "xs.transformList(i, v)"}));

TEST(MacroOptionsTest, TwoVarMacrosCanBeDisabled) {
  ParserOptions options;
  options.enable_two_var_macros = false;
  EXPECT_EQ(Show("m.all(k, v, p)", options), "m.all(k, v, p)");
  EXPECT_EQ(Show("m.transformMap(k, v, t)", options), "m.transformMap(k, v, t)");
  EXPECT_THAT(Show("m.all(k, p)", options), HasSubstr("__comprehension__"));
}

TEST(MacroOptionsTest, BindCanBeDisabled) {
  ParserOptions options;
  options.enable_bind_macro = false;
  EXPECT_EQ(Show("cel.bind(x, 1, x)", options), "cel.bind(x, 1, x)");
}

TEST(MacroOptionsTest, ListsMacrosCanBeDisabled) {
  ParserOptions options;
  options.enable_lists_macros = false;
  EXPECT_EQ(Show("xs.sortBy(e, e)", options), "xs.sortBy(e, e)");
}

TEST(MacroExpansionTest, HasIsATestOnlySelect) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("has(a.b)"));
  EXPECT_EQ(ast.root->kind, Expr::Kind::kSelect);
  EXPECT_TRUE(ast.root->test_only);
  EXPECT_EQ(ast.root->name, "b");
  EXPECT_EQ(ast.root->operand->name, "a");
}

TEST(MacroExpansionTest, ComprehensionFieldsAndFreshIds) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("xs.map(x, x * 2)"));
  const Expr& c = *ast.root;
  ASSERT_EQ(c.kind, Expr::Kind::kComprehension);
  EXPECT_EQ(c.iter_var, "x");
  EXPECT_TRUE(c.iter_var2.empty());
  EXPECT_EQ(c.accu_var, op::kAccumulatorVar);
  EXPECT_EQ(c.offset, 6);  // the '('
  // Every node of the expansion is newer than the arguments it wraps.
  EXPECT_GT(c.accu_init->id, c.iter_range->id);
  EXPECT_GT(c.loop_step->id, c.accu_init->id);
  EXPECT_EQ(c.id, ast.max_id);
  std::vector<int64_t> ids;
  VisitExpr(c, [&](const Expr& e) { ids.push_back(e.id); });
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST(MacroExpansionTest, TwoVarSetsBothVariables) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("m.all(k, v, k < v)"));
  EXPECT_EQ(ast.root->iter_var, "k");
  EXPECT_EQ(ast.root->iter_var2, "v");
}

TEST(MacroExpansionTest, NestedMacrosExpand) {
  EXPECT_EQ(Show("xs.all(x, x.exists(y, y))"),
            "__comprehension__(x, xs, @result, true, @not_strictly_false(@result), "
            "(@result && __comprehension__(y, x, @result, false, "
            "@not_strictly_false(!(@result)), (@result || y), @result)), @result)");
}

struct MacroErrorCase {
  const char* input;
  const char* message;
};

class MacroErrorTest : public ::testing::TestWithParam<MacroErrorCase> {};

TEST_P(MacroErrorTest, Reports) {
  absl::StatusOr<Ast> ast = Parse(GetParam().input);
  ASSERT_FALSE(ast.ok()) << GetParam().input;
  EXPECT_EQ(std::string(ast.status().message()), GetParam().message) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, MacroErrorTest,
    ::testing::Values(
        MacroErrorCase{"has(a)",
                       "ERROR: <input>:1:5: invalid argument to has() macro\n | has(a)\n | ....^"},
        MacroErrorCase{"has(a[0])",
                       "ERROR: <input>:1:6: invalid argument to has() macro\n"
                       " | has(a[0])\n | .....^"},
        MacroErrorCase{"has(a.?b)",
                       "ERROR: <input>:1:6: invalid argument to has() macro\n"
                       " | has(a.?b)\n | .....^"},
        MacroErrorCase{"xs.all(x.y, true)",
                       "ERROR: <input>:1:9: argument must be a simple "
                       "name\n | xs.all(x.y, true)\n | ........^"},
        MacroErrorCase{"xs.map(1, x)",
                       "ERROR: <input>:1:8: argument must be a simple name\n"
                       " | xs.map(1, x)\n | .......^"},
        MacroErrorCase{"xs.filter(__result__, true)",
                       "ERROR: <input>:1:11: iteration variable overwrites accumulator "
                       "variable\n | xs.filter(__result__, true)\n | ..........^"},
        MacroErrorCase{"m.all(k, k, true)",
                       "ERROR: <input>:1:10: duplicate variable name: k\n"
                       " | m.all(k, k, true)\n | .........^"},
        MacroErrorCase{"m.exists(k, __result__, true)",
                       "ERROR: <input>:1:13: iteration variable overwrites accumulator "
                       "variable\n | m.exists(k, __result__, true)\n | ............^"},
        MacroErrorCase{"m.transformMap(k.a, v, t)",
                       "ERROR: <input>:1:17: argument must be a simple name\n"
                       " | m.transformMap(k.a, v, t)\n | ................^"},
        MacroErrorCase{"cel.bind(a.b, 1, 2)",
                       "ERROR: <input>:1:11: cel.bind() variable names must be simple "
                       "identifiers\n | cel.bind(a.b, 1, 2)\n | ..........^"},
        MacroErrorCase{"1.sortBy(e, e)",
                       "ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, "
                       "comprehension, call or select expression\n | 1.sortBy(e, e)\n | ^"},
        MacroErrorCase{"xs.sortBy(e.f, e)",
                       "ERROR: <input>:1:12: argument must be a simple "
                       "name\n | xs.sortBy(e.f, e)\n | ...........^"}));

TEST(MacroErrorTest, ErrorsInSeveralMacrosAreAllReported) {
  absl::StatusOr<Ast> ast = Parse("has(a) && xs.all(1, true)");
  ASSERT_FALSE(ast.ok());
  EXPECT_THAT(std::string(ast.status().message()), HasSubstr("invalid argument to has() macro"));
  EXPECT_THAT(std::string(ast.status().message()), HasSubstr("argument must be a simple name"));
}

TEST(FindMacroTest, HonoursOptionsArityAndStyle) {
  ParserOptions options;
  EXPECT_NE(FindMacro("has", 1, false, options), nullptr);
  EXPECT_EQ(FindMacro("has", 1, true, options), nullptr);
  EXPECT_EQ(FindMacro("map", 4, true, options), nullptr);
  EXPECT_NE(FindMacro("transformMapEntry", 4, true, options), nullptr);
  options.enable_two_var_macros = false;
  EXPECT_EQ(FindMacro("transformMapEntry", 4, true, options), nullptr);
  EXPECT_NE(FindMacro("exists_one", 2, true, options), nullptr);
}

TEST(ExprFactoryTest, IdsIncreaseAndHeightsAreTracked) {
  ExprFactory f(3);
  ExprPtr a = f.NewIdent(0, "a");
  ExprPtr b = f.NewInt(2, 1);
  EXPECT_EQ(a->id, 1);
  EXPECT_EQ(b->id, 2);
  ExprPtr sum = f.NewCall(1, op::kAdd, MakeArgs(std::move(a), std::move(b)));
  EXPECT_EQ(sum->id, 3);
  EXPECT_EQ(f.Height(*sum), 2);
  EXPECT_FALSE(f.height_exceeded());
  ExprPtr neg = f.NewCall(5, op::kNegate, MakeArgs(f.NewList(4, MakeArgs(std::move(sum)))));
  EXPECT_EQ(f.Height(*neg), 4);
  EXPECT_TRUE(f.height_exceeded());
  EXPECT_EQ(f.height_exceeded_offset(), 5);
  EXPECT_EQ(f.max_id(), 5);
}

TEST(ExprFactoryTest, CopyRenumbers) {
  ExprFactory f(100);
  ExprPtr e = f.NewSelect(1, f.NewIdent(0, "a"), "b");
  ExprPtr c = f.Copy(*e);
  EXPECT_EQ(DebugString(*c), "a.b");
  EXPECT_GT(c->id, e->id);
  EXPECT_GT(c->operand->id, e->id);
}

}  // namespace
}  // namespace macros_test
}  // namespace gpuprofile::cel::internal
