// File: test/cel/sets_library_test.cc
// ext.Sets: containment, equivalence and intersection with CEL (numeric) equality.
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
namespace sets_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterSetsLibrary});
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
  Lib().ExpectGates(29, "ext.Sets");
  EXPECT_EQ(Eval("sets.contains([1, 2, 3], [3, 1])"), "true");
  EXPECT_EQ(Eval("sets.intersects(['a'], ['b'])"), "false");
  EXPECT_EQ(Eval("sets.equivalent([1, 1.0], [1u])"), "true");
}
}  // namespace
}  // namespace sets_library_test
}  // namespace gpuprofile::cel::internal
