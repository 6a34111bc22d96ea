// File: test/cel/regex_library_test.cc
// Kubernetes regex library: find/findAll with Go regexp semantics, compile errors as values.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "controller/cel/environment.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace regex_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterRegexLibrary});
  return *lib;
}
Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  return Lib().Call(fn, id, std::move(args));
}
using testing::D;
using testing::Eval;
using testing::I;
using testing::L;
using testing::S;
using testing::Show;

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
  Lib().ExpectGates(0, "Kubernetes regex");
  EXPECT_EQ(Eval("'abc 123'.find('[0-9]+') == '123'"), "true");
  EXPECT_EQ(Eval("'1 2 3'.findAll('[0-9]', 2) == ['1', '2']"), "true");
}
}  // namespace
}  // namespace regex_library_test
}  // namespace gpuprofile::cel::internal
