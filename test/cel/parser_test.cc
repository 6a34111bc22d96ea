// File: test/cel/parser_test.cc
#include "controller/cel/internal/parser.h"

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cel/internal/ast.h"
#include "controller/cel/internal/operators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel::internal {
namespace parser_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// DebugString of the parse, or "ERROR: ..." text.
std::string Show(absl::string_view text, const ParserOptions& options = {}) {
  absl::StatusOr<Ast> ast = Parse(text, options);
  if (!ast.ok()) return std::string(ast.status().message());
  return DebugString(*ast->root);
}

std::string ErrorOf(absl::string_view text, const ParserOptions& options = {}) {
  absl::StatusOr<Ast> ast = Parse(text, options);
  EXPECT_FALSE(ast.ok()) << text << " parsed as " << DebugString(*ast->root);
  if (ast.ok()) return "";
  EXPECT_EQ(ast.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(ast.status().message());
}

Constant ConstantOf(absl::string_view text) {
  absl::StatusOr<Ast> ast = Parse(text);
  EXPECT_TRUE(ast.ok()) << text << ": " << ast.status();
  if (!ast.ok()) return {};
  EXPECT_EQ(ast->root->kind, Expr::Kind::kConstant) << text;
  return ast->root->constant;
}

int Height(const Expr& e) {
  int h = 0;
  auto see = [&](const ExprPtr& c) {
    if (c) h = std::max(h, Height(*c));
  };
  see(e.operand);
  for (const ExprPtr& a : e.args) see(a);
  for (const CreateEntry& en : e.entries) {
    see(en.map_key);
    see(en.value);
  }
  see(e.iter_range);
  see(e.accu_init);
  see(e.loop_condition);
  see(e.loop_step);
  see(e.result);
  return h + 1;
}

// ---- literals ----

struct ShowCase {
  const char* input;
  const char* expected;
};

class ParseShowTest : public ::testing::TestWithParam<ShowCase> {};

TEST_P(ParseShowTest, Renders) {
  EXPECT_EQ(Show(GetParam().input), GetParam().expected) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(Literals, ParseShowTest,
                         ::testing::Values(ShowCase{"1", "1"}, ShowCase{"0x1F", "31"},
                                           ShowCase{"1u", "1u"}, ShowCase{"0x1U", "1u"},
                                           ShowCase{"1.5", "1.5"}, ShowCase{".5", "0.5"},
                                           ShowCase{"1e3", "1000.0"}, ShowCase{"1.5E-3", "0.0015"},
                                           ShowCase{"true", "true"}, ShowCase{"false", "false"},
                                           ShowCase{"null", "null"}, ShowCase{"'a\\n'", "\"a\\n\""},
                                           ShowCase{"b'\\xff'", "b\"\\xff\""}, ShowCase{"-1", "-1"},
                                           ShowCase{"- 1", "-1"}, ShowCase{"-1.5", "-1.5"},
                                           ShowCase{"-(1)", "-(1)"}, ShowCase{"--1", "1"},
                                           ShowCase{"---1", "-(1)"}, ShowCase{"-a", "-(a)"},
                                           ShowCase{"--a", "a"}, ShowCase{"!a", "!(a)"},
                                           ShowCase{"!!a", "a"}, ShowCase{"!!!a", "!(a)"}));

TEST(ParserLiteralTest, NegatedUintIsANegateCall) {
  // The grammar gives uint literals no sign, so `-1u` is negation of a uint (a call).
  EXPECT_EQ(Show("-1u"), "-(1u)");
}

TEST(ParserLiteralTest, Int64Edges) {
  EXPECT_EQ(ConstantOf("9223372036854775807").int_value, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ConstantOf("-9223372036854775808").int_value, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ConstantOf("-0x8000000000000000").int_value, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ConstantOf("0x7fffffffffffffff").int_value, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ConstantOf("18446744073709551615u").uint_value, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ConstantOf("0xFFFFFFFFFFFFFFFFu").uint_value, std::numeric_limits<uint64_t>::max());
}

TEST(ParserLiteralTest, OutOfRangeNumbersAreErrors) {
  EXPECT_EQ(ErrorOf("9223372036854775808"),
            "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^");
  EXPECT_THAT(ErrorOf("-9223372036854775809"), HasSubstr("invalid int literal"));
  EXPECT_THAT(ErrorOf("0x8000000000000000"), HasSubstr("invalid int literal"));
  EXPECT_THAT(ErrorOf("18446744073709551616u"), HasSubstr("invalid uint literal"));
  EXPECT_THAT(ErrorOf("0x1FFFFFFFFFFFFFFFFu"), HasSubstr("invalid uint literal"));
  EXPECT_THAT(ErrorOf("1.99e90000009"), HasSubstr("invalid double literal"));
  EXPECT_THAT(ErrorOf("--9223372036854775808"), HasSubstr("invalid int literal"));
}

TEST(ParserLiteralTest, NegativeLiteralOffsetIsTheMinusSign) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("  - 7"));
  EXPECT_EQ(ast.root->offset, 2);
  EXPECT_EQ(ast.root->constant.int_value, -7);
}

TEST(ParserLiteralTest, StringAndBytesValues) {
  Constant s = ConstantOf(R"('\u00e9\x41\101')");
  EXPECT_EQ(s.kind, Constant::Kind::kString);
  EXPECT_EQ(s.string_value,
            "\xC3\xA9"
            "AA");
  Constant b = ConstantOf(R"(b'\xe9\377')");
  EXPECT_EQ(b.kind, Constant::Kind::kBytes);
  EXPECT_EQ(b.string_value, "\xE9\xFF");
  EXPECT_EQ(ConstantOf("r'\\d+'").string_value, "\\d+");
  EXPECT_EQ(ConstantOf("'''two\nlines'''").string_value, "two\nlines");
}

TEST(ParserLiteralTest, DoubleValues) {
  EXPECT_DOUBLE_EQ(ConstantOf("1.5E-3").double_value, 0.0015);
  EXPECT_DOUBLE_EQ(ConstantOf("-.5").double_value, -0.5);
  EXPECT_EQ(ConstantOf("1e3").kind, Constant::Kind::kDouble);
}

// ---- precedence and associativity ----

INSTANTIATE_TEST_SUITE_P(
    Precedence, ParseShowTest,
    ::testing::Values(
        ShowCase{"a + b * c", "(a + (b * c))"}, ShowCase{"a * b + c", "((a * b) + c)"},
        ShowCase{"a - b - c", "((a - b) - c)"}, ShowCase{"a / b % c", "((a / b) % c)"},
        ShowCase{"a < b == c", "((a < b) == c)"}, ShowCase{"a == b < c", "((a == b) < c)"},
        ShowCase{"a in b in c", "((a in b) in c)"}, ShowCase{"a + 1 in b", "((a + 1) in b)"},
        ShowCase{"a && b || c && d", "((a && b) || (c && d))"},
        ShowCase{"a || b && c", "(a || (b && c))"}, ShowCase{"a && b && c", "((a && b) && c)"},
        ShowCase{"a && b && c && d", "((a && b) && (c && d))"},
        ShowCase{"a || b || c || d || e", "(((a || b) || c) || (d || e))"},
        ShowCase{"!a && b", "(!(a) && b)"}, ShowCase{"-a * b", "(-(a) * b)"},
        ShowCase{"a ? b : c ? d : e", "(a ? b : (c ? d : e))"},
        ShowCase{"a || b ? c + 1 : d", "((a || b) ? (c + 1) : d)"},
        ShowCase{"(a ? b : c) ? d : e", "((a ? b : c) ? d : e)"}, ShowCase{"a.b.c", "a.b.c"},
        ShowCase{".a.b", ".a.b"}, ShowCase{"a[0][1]", "a[0][1]"}, ShowCase{"a.b[c].d", "a.b[c].d"},
        ShowCase{"-a.b", "-(a.b)"}, ShowCase{"!a[0]", "!(a[0])"}, ShowCase{"-1.x", "-1.x"},
        ShowCase{"f(a, b)", "f(a, b)"}, ShowCase{"a.f(b)", "a.f(b)"}, ShowCase{".f(a)", ".f(a)"},
        ShowCase{"a.b.f()", "a.b.f()"}, ShowCase{"(a + b) * c", "((a + b) * c)"},
        ShowCase{"1 -1", "(1 - 1)"}, ShowCase{"1--1", "(1 - -1)"},
        ShowCase{"a<=b>=c!=d>e", "((((a <= b) >= c) != d) > e)"}));

INSTANTIATE_TEST_SUITE_P(Aggregates, ParseShowTest,
                         ::testing::Values(ShowCase{"[]", "[]"}, ShowCase{"[1, 2,]", "[1, 2]"},
                                           ShowCase{"[,]", "[]"}, ShowCase{"{}", "{}"},
                                           ShowCase{"{'a': 1, 2: b,}", "{\"a\": 1, 2: b}"},
                                           ShowCase{"T{}", "T{}"},
                                           ShowCase{"a.b.T{f: 1, g: [x]}", "a.b.T{f: 1, g: [x]}"},
                                           ShowCase{".a.T{f: 1,}", ".a.T{f: 1}"},
                                           ShowCase{"[[1], {2: [3]}]", "[[1], {2: [3]}]"}));

// ---- ids and offsets ----

TEST(ParserIdTest, IdsAreUniquePositiveAndBoundedByMaxId) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("a.all(x, x > 1) && {1: [2, ?c]}[k] + T{f: -3}.f"));
  std::set<int64_t> ids;
  VisitExpr(*ast.root, [&](const Expr& e) {
    EXPECT_GT(e.id, 0);
    EXPECT_LE(e.id, ast.max_id);
    EXPECT_TRUE(ids.insert(e.id).second) << "duplicate id " << e.id;
    for (const CreateEntry& entry : e.entries) {
      EXPECT_TRUE(ids.insert(entry.id).second) << "duplicate entry id " << entry.id;
    }
  });
  // Macro variables are parsed as identifiers and then dropped, leaving gaps (as in cel-go).
  EXPECT_LE(static_cast<int64_t>(ids.size()), ast.max_id);
}

TEST(ParserIdTest, ChildrenAreCreatedBeforeParents) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("f(a + b, c[d])"));
  VisitExpr(*ast.root, [](const Expr& e) {
    for (const ExprPtr& a : e.args) EXPECT_LT(a->id, e.id);
  });
  EXPECT_EQ(ast.root->id, ast.max_id);
}

struct OffsetCase {
  const char* input;
  int32_t offset;
};

class ParserOffsetTest : public ::testing::TestWithParam<OffsetCase> {};

TEST_P(ParserOffsetTest, RootOffset) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse(GetParam().input));
  EXPECT_EQ(ast.root->offset, GetParam().offset) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(Offsets, ParserOffsetTest,
                         ::testing::Values(OffsetCase{"a + b", 2}, OffsetCase{"a.b", 1},
                                           OffsetCase{"a[0]", 1}, OffsetCase{"f(1)", 1},
                                           OffsetCase{"x.f(1)", 3}, OffsetCase{"a ? b : c", 2},
                                           OffsetCase{"!a", 0}, OffsetCase{" [1]", 1},
                                           OffsetCase{"  {}", 2}, OffsetCase{"a.T{}", 3},
                                           OffsetCase{"xs.all(x, x)", 6}, OffsetCase{"has(a.b)", 3},
                                           OffsetCase{"a in b", 2}));

TEST(ParserOffsetTest, EntryOffsetIsTheColon) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("{'k' : v}"));
  ASSERT_EQ(ast.root->entries.size(), 1u);
  EXPECT_EQ(ast.root->entries[0].offset, 5);
}

TEST(ParserAstTest, SourceAndDescriptionAreKept) {
  ParserOptions options;
  options.description = "selector";
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("a\n + b", options));
  EXPECT_EQ(ast.source->text(), "a\n + b");
  EXPECT_EQ(ast.source->description(), "selector");
  EXPECT_EQ(ast.source->Line(ast.root->offset), 2);
  EXPECT_EQ(ast.source->Column(ast.root->offset), 2);
}

// ---- optional syntax ----

INSTANTIATE_TEST_SUITE_P(Optional, ParseShowTest,
                         ::testing::Values(ShowCase{"a.?b", "a.?b"}, ShowCase{"a.?b.c", "a.?b.c"},
                                           ShowCase{"a[?b]", "a[?b]"},
                                           ShowCase{"[?a, b]", "[?a, b]"},
                                           ShowCase{"{?'k': v}", "{?\"k\": v}"},
                                           ShowCase{"T{?f: v}", "T{?f: v}"}));

TEST(ParserOptionalTest, OptionalSelectIsCallWithStringField) {
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("a.?b"));
  EXPECT_EQ(ast.root->kind, Expr::Kind::kCall);
  EXPECT_EQ(ast.root->name, op::kOptSelect);
  ASSERT_EQ(ast.root->args.size(), 2u);
  EXPECT_EQ(ast.root->args[1]->constant.kind, Constant::Kind::kString);
  EXPECT_EQ(ast.root->args[1]->constant.string_value, "b");
}

TEST(ParserOptionalTest, OptionalIndicesAndEntries) {
  ASSERT_OK_AND_ASSIGN(Ast list, Parse("[a, ?b, c, ?d]"));
  EXPECT_EQ(list.root->optional_indices, (std::vector<int32_t>{1, 3}));
  ASSERT_OK_AND_ASSIGN(Ast map, Parse("{1: a, ?2: b}"));
  EXPECT_FALSE(map.root->entries[0].optional);
  EXPECT_TRUE(map.root->entries[1].optional);
  ASSERT_OK_AND_ASSIGN(Ast msg, Parse("T{?f: a}"));
  EXPECT_TRUE(msg.root->entries[0].optional);
  EXPECT_EQ(msg.root->entries[0].field_name, "f");
}

class ParserOptionalDisabledTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ParserOptionalDisabledTest, IsASyntaxError) {
  ParserOptions options;
  options.enable_optional_syntax = false;
  EXPECT_THAT(ErrorOf(GetParam(), options), StartsWith("ERROR: <input>:1:")) << GetParam();
  EXPECT_THAT(ErrorOf(GetParam(), options), HasSubstr("Syntax error:")) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Optional, ParserOptionalDisabledTest,
                         ::testing::Values("a.?b", "a[?b]", "[?a]", "{?1: a}", "T{?f: a}"));

// ---- errors ----

struct ErrorCase {
  const char* input;
  const char* expected;
};

class ParserErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrorTest, Message) {
  EXPECT_EQ(ErrorOf(GetParam().input), GetParam().expected) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ParserErrorTest,
    ::testing::Values(
        ErrorCase{"as", "ERROR: <input>:1:1: reserved identifier: as\n | as\n | ^"},
        ErrorCase{".as", "ERROR: <input>:1:2: reserved identifier: as\n | .as\n | .^"},
        ErrorCase{"1{}",
                  "ERROR: <input>:1:2: Syntax error: mismatched input '{' expecting <EOF>\n"
                  " | 1{}\n | .^"},
        ErrorCase{"a +",
                  "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting "
                  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
                  "NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a +\n | ...^"},
        ErrorCase{"(a",
                  "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting "
                  "')'\n | (a\n | ..^"},
        ErrorCase{"a.",
                  "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting "
                  "IDENTIFIER\n | a.\n | ..^"},
        ErrorCase{"{'k' 'v'}",
                  "ERROR: <input>:1:6: Syntax error: mismatched input ''v'' "
                  "expecting ':'\n | {'k' 'v'}\n | .....^"},
        ErrorCase{"has(m)",
                  "ERROR: <input>:1:5: invalid argument to has() macro\n | has(m)\n | ....^"},
        ErrorCase{"[1, 2].all(1 + 2, true)",
                  "ERROR: <input>:1:14: argument must be a simple name\n"
                  " | [1, 2].all(1 + 2, true)\n | .............^"},
        ErrorCase{"[1, 2].all(__result__, true)",
                  "ERROR: <input>:1:12: iteration variable overwrites accumulator variable\n"
                  " | [1, 2].all(__result__, true)\n | ...........^"},
        // The unrecognized character is dropped, so `b` is then unexpected (as with ANTLR).
        ErrorCase{"a @ b",
                  "ERROR: <input>:1:3: Syntax error: token recognition error at: '@'\n"
                  " | a @ b\n | ..^\n"
                  "ERROR: <input>:1:5: Syntax error: mismatched input 'b' expecting "
                  "<EOF>\n | a @ b\n | ....^"},
        ErrorCase{"a\n  && in.b",
                  "ERROR: <input>:2:6: Syntax error: mismatched input 'in' expecting "
                  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
                  "NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   && in.b\n | .....^"},
        ErrorCase{"'\xF0\x9F\x98\x81' + @",
                  "ERROR: <input>:1:7: Syntax error: token recognition error at: '@'\n"
                  " | '\xF0\x9F\x98\x81' + @\n | .\xEF\xBC\x8E....^\n"
                  "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting "
                  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
                  "NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
                  " | '\xF0\x9F\x98\x81' + @\n | .\xEF\xBC\x8E.....^"},
        ErrorCase{"\xF0\x9F\x98\x81",
                  "ERROR: <input>:1:1: Syntax error: token recognition error at: "
                  "'\xF0\x9F\x98\x81'\n | \xF0\x9F\x98\x81\n | \xEF\xBC\xBE"
                  "\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting "
                  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
                  "NUM_UINT, STRING, BYTES, IDENTIFIER}\n | \xF0\x9F\x98\x81\n | \xEF\xBC\x8E^"},
        ErrorCase{"\ta b",
                  "ERROR: <input>:1:4: Syntax error: mismatched input 'b' expecting "
                  "<EOF>\n |  a b\n | ...^"},
        ErrorCase{"",
                  "ERROR: <input>:1:1: Syntax error: mismatched input '<EOF>' expecting "
                  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
                  "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | \n | ^"}));

TEST(ParserErrorTest, ReservedWordsAreErrorsAsIdentifiers) {
  for (const char* word :
       {"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
        "loop", "package", "namespace", "return", "var", "void", "while"}) {
    EXPECT_THAT(ErrorOf(word), HasSubstr(absl::StrCat("reserved identifier: ", word))) << word;
    EXPECT_THAT(ErrorOf(absl::StrCat(word, "(1)")), HasSubstr("reserved identifier")) << word;
  }
}

TEST(ParserErrorTest, ReservedWordsAreFineAsFieldNames) {
  EXPECT_EQ(Show("a.package.if"), "a.package.if");
}

TEST(ParserErrorTest, InIsAnOperatorNotAnIdentifier) {
  EXPECT_THAT(ErrorOf("in"), HasSubstr("Syntax error: mismatched input 'in'"));
}

TEST(ParserErrorTest, SeveralSemanticErrorsAreAllReportedInOrder) {
  std::string err = ErrorOf("if + 9223372036854775808 + as");
  EXPECT_THAT(err, HasSubstr("1:1: reserved identifier: if"));
  EXPECT_THAT(err, HasSubstr("1:6: invalid int literal"));
  EXPECT_THAT(err, HasSubstr("1:28: reserved identifier: as"));
  EXPECT_LT(err.find("1:1:"), err.find("1:6:"));
}

TEST(ParserErrorTest, ErrorCountIsCapped) {
  std::string err = ErrorOf(std::string(10000, '#'));
  int count = 0;
  for (size_t p = err.find("ERROR:"); p != std::string::npos; p = err.find("ERROR:", p + 1)) {
    ++count;
  }
  EXPECT_LE(count, 100);
  EXPECT_GT(count, 1);
}

TEST(ParserErrorTest, UnaryOperatorsDoNotMix) {
  EXPECT_THAT(ErrorOf("-!a"), HasSubstr("Syntax error: mismatched input '!'"));
  EXPECT_THAT(ErrorOf("!-a"), HasSubstr("Syntax error: mismatched input '-'"));
}

TEST(ParserErrorTest, TernaryThenBranchNeedsParentheses) {
  EXPECT_THAT(ErrorOf("a ? b ? c : d : e"), HasSubstr("Syntax error: mismatched input '?'"));
  EXPECT_EQ(Show("a ? (b ? c : d) : e"), "(a ? (b ? c : d) : e)");
}

TEST(ParserErrorTest, CallArgumentsTakeNoTrailingComma) {
  EXPECT_THAT(ErrorOf("f(a,)"), HasSubstr("Syntax error: mismatched input ')'"));
}

// ---- limits ----

TEST(ParserLimitTest, CodePointLimit) {
  ParserOptions options;
  options.max_expression_code_points = 5;
  EXPECT_OK(Parse("'\xC3\xA9\xC3\xA9\xC3\xA9'", options));  // 5 code points, 8 bytes
  EXPECT_EQ(ErrorOf("123456", options),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 6, limit 5");
}

TEST(ParserLimitTest, NestingUpToTheLimitParses) {
  ParserOptions options;
  options.max_recursion_depth = 20;
  EXPECT_OK(Parse(std::string(20, '(') + "1" + std::string(20, ')'), options));
  EXPECT_OK(Parse(std::string(20, '[') + std::string(20, ']'), options));
}

struct DeepCase {
  std::string name;
  std::string input;
};

class ParserDeepInputTest : public ::testing::TestWithParam<DeepCase> {};

TEST_P(ParserDeepInputTest, FailsWithRecursionLimitWithoutCrashing) {
  ParserOptions options;
  options.max_expression_code_points = 1000000;  // let the parser itself meet the input
  absl::StatusOr<Ast> ast = Parse(GetParam().input, options);
  ASSERT_FALSE(ast.ok());
  EXPECT_THAT(std::string(ast.status().message()),
              HasSubstr("expression recursion limit exceeded: 250"));
}

std::string Repeat(absl::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(s.data(), s.size());
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Limits, ParserDeepInputTest,
    ::testing::Values(
        DeepCase{"Parens", Repeat("(", 100000)},
        DeepCase{"ClosedParens", Repeat("(", 300) + "1" + Repeat(")", 300)},
        DeepCase{"Lists", Repeat("[", 100000)}, DeepCase{"Maps", Repeat("{1:", 30000)},
        DeepCase{"Nots", Repeat("!", 100000) + "a"}, DeepCase{"Minus", Repeat("-", 99999) + "1"},
        DeepCase{"Members", "a" + Repeat(".b", 49999)},
        DeepCase{"Indexes", "a" + Repeat("[0]", 33000)},
        DeepCase{"Calls", "a" + Repeat(".f()", 25000)},
        DeepCase{"AddChain", "1" + Repeat("+1", 49999)},
        DeepCase{"RelationChain", "1" + Repeat("<1", 49999)},
        DeepCase{"Ternaries", Repeat("a?b:", 25000) + "c"},
        DeepCase{"NestedCalls", Repeat("f(", 50000)},
        DeepCase{"NestedMacros", Repeat("a.map(x,", 12000) + "x" + Repeat(")", 12000)},
        DeepCase{"ListOfChain", Repeat("[", 200) + "1" + Repeat("+1", 200) + Repeat("]", 200)}),
    [](const ::testing::TestParamInfo<DeepCase>& param) { return param.param.name; });

TEST(ParserLimitTest, LongLogicalChainsAreBalanced) {
  ParserOptions options;
  options.max_expression_code_points = 1000000;
  ASSERT_OK_AND_ASSIGN(Ast ast, Parse("a" + Repeat(" && a", 49999), options));
  EXPECT_LE(Height(*ast.root), 20);
  ASSERT_OK_AND_ASSIGN(Ast ors, Parse("a" + Repeat(" || a", 49999), options));
  EXPECT_LE(Height(*ors.root), 20);
}

TEST(ParserLimitTest, AcceptedTreesStayWithinTheDepthLimit) {
  for (const std::string& input :
       {"1" + Repeat("+1", 240), "a" + Repeat(".b", 240), Repeat("[", 240) + Repeat("]", 240),
        Repeat("a.map(x,", 50) + "x" + Repeat(")", 50)}) {
    absl::StatusOr<Ast> ast = Parse(input);
    if (ast.ok()) {
      EXPECT_LE(Height(*ast->root), 250 + 10);
    }
  }
}

TEST(ParserLimitTest, DepthLimitIsConfigurable) {
  ParserOptions options;
  options.max_recursion_depth = 10;
  EXPECT_THAT(ErrorOf("1" + Repeat("+1", 30), options),
              HasSubstr("expression recursion limit exceeded: 10"));
  EXPECT_OK(Parse("1" + Repeat("+1", 5), options));
}

// ---- robustness ----

TEST(ParserFuzzTest, RandomTokenSoupNeverCrashes) {
  static const char* kPieces[] = {"a",
                                  "b",
                                  "1",
                                  "2u",
                                  "1.5",
                                  "'s'",
                                  "b'x'",
                                  "r'r'",
                                  "(",
                                  ")",
                                  "[",
                                  "]",
                                  "{",
                                  "}",
                                  ".",
                                  ",",
                                  ":",
                                  "?",
                                  "!",
                                  "-",
                                  "+",
                                  "*",
                                  "/",
                                  "%",
                                  "==",
                                  "!=",
                                  "<",
                                  "<=",
                                  ">",
                                  ">=",
                                  "&&",
                                  "||",
                                  "in",
                                  "true",
                                  "null",
                                  "has",
                                  "all",
                                  "map",
                                  "cel",
                                  "bind",
                                  "exists_one",
                                  "filter",
                                  "transformMap",
                                  "sortBy",
                                  "T",
                                  " ",
                                  "\n",
                                  "//c\n",
                                  "@",
                                  "\"",
                                  "'''",
                                  "\\",
                                  "9223372036854775808",
                                  "-"};
  std::mt19937 rng(12345);
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string input;
    const int n = static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) input += kPieces[rng() % (sizeof(kPieces) / sizeof(kPieces[0]))];
    absl::StatusOr<Ast> ast = Parse(input);
    if (!ast.ok()) {
      EXPECT_THAT(std::string(ast.status().message()), StartsWith("ERROR: <input>:")) << input;
      continue;
    }
    ++parsed;
    std::set<int64_t> ids;
    VisitExpr(*ast->root, [&](const Expr& e) {
      EXPECT_TRUE(ids.insert(e.id).second) << input;
      EXPECT_LE(e.id, ast->max_id) << input;
    });
    EXPECT_FALSE(DebugString(*ast->root).empty());
  }
  EXPECT_GT(parsed, 0);
}

TEST(ParserFuzzTest, RandomBytesNeverCrash) {
  std::mt19937 rng(777);
  for (int i = 0; i < 3000; ++i) {
    std::string input;
    const int n = static_cast<int>(rng() % 64);
    for (int k = 0; k < n; ++k) input += static_cast<char>(rng() % 256);
    absl::StatusOr<Ast> ast = Parse(input);
    if (!ast.ok()) {
      EXPECT_EQ(ast.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(ParserFuzzTest, ValidExpressionsSurviveMutation) {
  const std::string base =
      "a.b.exists(x, x.c > 1u && x.d in ['p', \"q\"]) ? {1: b'z'}[?k] : T{f: -2.5e3}.f + "
      "cel.bind(v, [1, 2].map(y, y * 2), v.size()) - xs.sortBy(e, -e)[0]";
  ASSERT_OK(Parse(base));
  std::mt19937 rng(4242);
  for (int i = 0; i < 3000; ++i) {
    std::string input = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % input.size();
      switch (rng() % 3) {
        case 0:
          input.erase(at, 1);
          break;
        case 1:
          input.insert(at, 1, base[rng() % base.size()]);
          break;
        default:
          input[at] = base[rng() % base.size()];
          break;
      }
      if (input.empty()) input = "x";
    }
    absl::StatusOr<Ast> ast = Parse(input);
    if (ast.ok()) {
      EXPECT_LE(Height(*ast->root), 260) << input;
    }
  }
}

}  // namespace
}  // namespace parser_test
}  // namespace gpuprofile::cel::internal
