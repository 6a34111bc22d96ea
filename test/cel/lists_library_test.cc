// File: test/cel/lists_library_test.cc
// Kubernetes lists library and cel-go ext.Lists v3.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "controller/cel/environment.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/program.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace lists_library_test {
namespace {

const testing::LibraryUnderTest& Lib() {
  static const auto* lib = new testing::LibraryUnderTest({RegisterKubernetesListsLibrary, RegisterExtListsLibrary});
  return *lib;
}
const FunctionRegistry& Registry() { return Lib().registry(); }
Value Call(absl::string_view fn, absl::string_view id, std::vector<Value> args) {
  return Lib().Call(fn, id, std::move(args));
}
using testing::D;
using testing::Eval;
using testing::I;
using testing::L;
using testing::S;
using testing::Show;

TEST(KubernetesListsTest, IsSorted) {
  EXPECT_TRUE(Call("isSorted", "list_int_is_sorted_bool", {L({I(1), I(2), I(3)})}).IsTrue());
  EXPECT_TRUE(Call("isSorted", "list_string_is_sorted_bool", {L({S("a"), S("b"), S("b"), S("c")})})
                  .IsTrue());
  EXPECT_TRUE(Call("isSorted", "list_double_is_sorted_bool", {L({D(2.0), D(1.0)})}).IsFalse());
  EXPECT_TRUE(Call("isSorted", "list_int_is_sorted_bool", {L({})}).IsTrue());
  EXPECT_TRUE(
      Call("isSorted", "list_bool_is_sorted_bool", {L({Value::Bool(false), Value::Bool(true)})})
          .IsTrue());
}

TEST(KubernetesListsTest, Sum) {
  EXPECT_EQ(Show(Call("sum", "list_int_sum_int", {L({I(1), I(3)})})), "4");
  EXPECT_EQ(Show(Call("sum", "list_int_sum_int", {L({})})), "0");
  EXPECT_EQ(Show(Call("sum", "list_uint_sum_uint", {L({})})), Value::Uint(0).DebugString());
  EXPECT_EQ(Show(Call("sum", "list_double_sum_double", {L({D(1.5), D(3.0)})})),
            D(4.5).DebugString());
  EXPECT_EQ(Show(Call("sum", "list_duration_sum_duration",
                      {L({Value::Duration(absl::Minutes(1)), Value::Duration(absl::Seconds(1))})})),
            Value::Duration(absl::Seconds(61)).DebugString());
  EXPECT_EQ(Show(Call("sum", "list_int_sum_int",
                      {L({I(std::numeric_limits<int64_t>::max()), I(1)})})),
            "error: integer overflow");
  EXPECT_EQ(Show(Call("sum", "list_uint_sum_uint",
                      {L({Value::Uint(std::numeric_limits<uint64_t>::max()), Value::Uint(1)})})),
            "error: unsigned integer overflow");
}

TEST(KubernetesListsTest, MinMax) {
  EXPECT_EQ(Show(Call("min", "list_int_min_int", {L({I(3), I(1), I(2)})})), "1");
  EXPECT_EQ(Show(Call("max", "list_int_max_int", {L({I(3), I(1), I(2)})})), "3");
  EXPECT_EQ(Show(Call("max", "list_string_max_string", {L({S("a"), S("c"), S("b")})})), "c");
  EXPECT_EQ(Show(Call("min", "list_int_min_int", {L({})})), "error: min called on empty list");
  EXPECT_EQ(Show(Call("max", "list_int_max_int", {L({})})), "error: max called on empty list");
  // Mixed numbers in a dyn list compare numerically.
  EXPECT_EQ(Show(Call("max", "list_double_max_double", {L({I(1), D(2.5), Value::Uint(2)})})),
            D(2.5).DebugString());
}

TEST(KubernetesListsTest, IndexOf) {
  Value list = L({I(1), I(2), I(2), I(3)});
  EXPECT_EQ(Show(Call("indexOf", "list_a_index_of_int", {list, I(2)})), "1");
  EXPECT_EQ(Show(Call("lastIndexOf", "list_a_last_index_of_int", {list, I(2)})), "2");
  EXPECT_EQ(Show(Call("indexOf", "list_a_index_of_int", {list, D(3.0)})), "3");
  EXPECT_EQ(Show(Call("indexOf", "list_a_index_of_int", {L({D(1.0)}), D(1.1)})), "-1");
  EXPECT_EQ(Show(Call("lastIndexOf", "list_a_last_index_of_int", {L({}), S("x")})), "-1");
}

TEST(ExtListsTest, SliceFlattenReverseDistinctRange) {
  Value list = L({I(1), I(2), I(3), I(4)});
  EXPECT_EQ(Show(Call("slice", "list_slice", {list, I(1), I(3)})), "[2, 3]");
  EXPECT_EQ(Show(Call("slice", "list_slice", {list, I(-1), I(3)})),
            "error: cannot slice(-1, 3), negative indexes not supported");
  EXPECT_EQ(Show(Call("slice", "list_slice", {list, I(3), I(1)})),
            "error: cannot slice(3, 1), start index must be less than or equal to end index");
  EXPECT_EQ(Show(Call("slice", "list_slice", {list, I(0), I(5)})),
            "error: cannot slice(0, 5), list is length 4");
  Value nested = L({I(1), L({I(2), L({I(3), L({I(4)})})})});
  EXPECT_EQ(Show(Call("flatten", "list_flatten", {nested})), "[1, 2, [3, [4]]]");
  EXPECT_EQ(Show(Call("flatten", "list_flatten_int", {nested, I(2)})), "[1, 2, 3, [4]]");
  EXPECT_EQ(Show(Call("flatten", "list_flatten_int", {nested, I(0)})), nested.DebugString());
  EXPECT_EQ(Show(Call("flatten", "list_flatten_int", {nested, I(-1)})),
            "error: level must be non-negative");
  EXPECT_EQ(Show(Call("reverse", "list_reverse", {list})), "[4, 3, 2, 1]");
  EXPECT_EQ(Show(Call("distinct", "list_distinct", {L({I(1), D(1.0), I(2), I(1)})})), "[1, 2]");
  EXPECT_EQ(Show(Call("lists.range", "lists_range", {I(3)})), "[0, 1, 2]");
  EXPECT_EQ(Show(Call("lists.range", "lists_range", {I(-2)})), "[]");
}

TEST(ExtListsTest, Sort) {
  EXPECT_EQ(Show(Call("sort", "list_int_sort", {L({I(3), I(1), I(2)})})), "[1, 2, 3]");
  EXPECT_EQ(Show(Call("sort", "list_string_sort", {L({S("b"), S("a")})})),
            L({S("a"), S("b")}).DebugString());
  EXPECT_EQ(Show(Call("sort", "list_int_sort", {L({I(3), D(1.0)})})),
            "error: list elements must have the same type");
  EXPECT_EQ(Show(Call("@sortByAssociatedKeys", "list_int_sortByAssociatedKeys",
                      {L({S("foo"), S("bar"), S("baz")}), L({I(3), I(1), I(2)})})),
            L({S("bar"), S("baz"), S("foo")}).DebugString());
  EXPECT_EQ(Show(Call("@sortByAssociatedKeys", "list_int_sortByAssociatedKeys",
                      {L({S("foo")}), L({I(3), I(1)})})),
            "error: @sortByAssociatedKeys() expected a list of the same size as the associated "
            "keys list, but got 1 and 2 elements respectively");
  EXPECT_NE(Registry().Find("sort"), nullptr);
  bool has_duration_sort = false;
  for (const Overload& o : *Registry().Find("sort")) {
    has_duration_sort |= o.id == "list_google.protobuf.Duration_sort";
  }
  EXPECT_TRUE(has_duration_sort);
}

TEST(ListsLibrariesTest, Gates) {
  for (const auto& [name, overloads] : Registry().functions()) {
    for (const Overload& o : overloads) {
      if (o.gate.library == "ext.Lists v3") {
        EXPECT_EQ(o.gate.introduced_minor, 34) << o.id;
      } else {
        EXPECT_EQ(o.gate.library, "Kubernetes lists library") << o.id;
        EXPECT_EQ(o.gate.introduced_minor, 0) << o.id;
      }
    }
  }
}

TEST(ListsLibrariesTest, Expressions) {
  EXPECT_EQ(Eval("[1, 2, 3].sum() == 6 && [3, 1].min() == 1 && [1, 2].isSorted()"), "true");
  EXPECT_EQ(Eval("['a', 'b', 'b'].lastIndexOf('b') == 2"), "true");
  EXPECT_EQ(Eval("[3, 1, 2].sort() == [1, 2, 3]"), "true");
  EXPECT_EQ(Eval("lists.range(3).reverse() == [2, 1, 0]"), "true");
  EXPECT_EQ(Eval("['bb', 'a', 'ccc'].sortBy(s, -size(s)) == ['ccc', 'bb', 'a']"), "true");
}
}  // namespace
}  // namespace lists_library_test
}  // namespace gpuprofile::cel::internal
