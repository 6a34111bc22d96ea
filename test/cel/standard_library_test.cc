// File: test/cel/standard_library_test.cc
// The standard library's operators, collections, strings, type(), dyn(), cel.@mapInsert and
// optionals, called through the registry by cel-go overload id.
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "controller/cel/internal/function.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/program.h"
#include "controller/cel/value.h"
#include "gtest/gtest.h"
#include "test/cel/standard_library_test_util.h"

namespace gpuprofile::cel::internal {
namespace standard_library_test {
namespace {

using testing::Call;
using testing::Case;
using testing::FindOverload;
using testing::ListOf;
using testing::MapOf;
using testing::RunCases;
using testing::SameValue;
using testing::StandardRegistry;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr uint64_t kUMax = std::numeric_limits<uint64_t>::max();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Value I(int64_t v) { return Value::Int(v); }
Value U(uint64_t v) { return Value::Uint(v); }
Value D(double v) { return Value::Double(v); }
Value S(std::string v) { return Value::String(std::move(v)); }
Value B(bool v) { return Value::Bool(v); }
Value E(std::string m) { return Value::Error(std::move(m)); }

TEST(StandardLibraryRegistrationTest, OverloadIdsAreUniquePerFunction) {
  for (const auto& [name, overloads] : StandardRegistry().functions()) {
    std::set<std::string> ids;
    for (const Overload& o : overloads) {
      EXPECT_TRUE(ids.insert(o.id).second) << name << " repeats " << o.id;
      EXPECT_TRUE(o.impl) << o.id;
    }
  }
}

TEST(StandardLibraryRegistrationTest, EvaluatorSpecialFormsAreNotRegistered) {
  for (const char* name : {op::kLogicalAnd, op::kLogicalOr, op::kConditional,
                           op::kNotStrictlyFalse}) {
    EXPECT_EQ(StandardRegistry().Find(name), nullptr) << name;
  }
}

TEST(StandardLibraryRegistrationTest, GatesBaseAndOptionals) {
  for (const auto& [name, overloads] : StandardRegistry().functions()) {
    for (const Overload& o : overloads) {
      const bool optional = o.id.find("optional") != std::string::npos;
      EXPECT_EQ(o.gate.introduced_minor, optional ? 28 : 0) << o.id;
      EXPECT_EQ(o.gate.library, optional ? "cel.OptionalTypes" : "") << o.id;
    }
  }
}

TEST(StandardLibraryRegistrationTest, ReceiverStyleWhereCelGoDeclaresMembers) {
  ASSERT_NE(FindOverload("size", "string_size"), nullptr);
  EXPECT_TRUE(FindOverload("size", "string_size")->receiver_style);
  EXPECT_FALSE(FindOverload("size", "size_string")->receiver_style);
  EXPECT_TRUE(FindOverload("contains", "contains_string")->receiver_style);
  EXPECT_FALSE(FindOverload("matches", "matches")->receiver_style);
  EXPECT_TRUE(FindOverload("matches", "matches_string")->receiver_style);
  EXPECT_TRUE(FindOverload("getHours", "duration_to_hours")->receiver_style);
  EXPECT_TRUE(FindOverload("value", "optional_value")->receiver_style);
  EXPECT_FALSE(FindOverload("optional.of", "optional_of")->receiver_style);
}

TEST(StandardLibraryTest, LogicalNotAndNegation) {
  RunCases({
      {op::kLogicalNot, "logical_not", {B(true)}, B(false)},
      {op::kLogicalNot, "logical_not", {B(false)}, B(true)},
      {op::kNegate, "negate_int64", {I(5)}, I(-5)},
      {op::kNegate, "negate_int64", {I(kMax)}, I(-kMax)},
      {op::kNegate, "negate_int64", {I(kMin)}, E("integer overflow")},
      {op::kNegate, "negate_double", {D(2.5)}, D(-2.5)},
      {op::kNegate, "negate_double", {D(kNaN)}, D(kNaN)},
  });
}

TEST(StandardLibraryTest, Equality) {
  RunCases({
      {op::kEquals, "equals", {I(1), D(1.0)}, B(true)},
      {op::kEquals, "equals", {U(1), I(1)}, B(true)},
      {op::kEquals, "equals", {S("a"), I(1)}, B(false)},
      {op::kEquals, "equals", {D(kNaN), D(kNaN)}, B(false)},
      {op::kEquals, "equals", {ListOf({I(1), S("x")}), ListOf({D(1), S("x")})}, B(true)},
      {op::kNotEquals, "not_equals", {I(1), I(2)}, B(true)},
      {op::kNotEquals, "not_equals", {D(kNaN), D(kNaN)}, B(true)},
      {op::kNotEquals, "not_equals", {S("a"), S("a")}, B(false)},
  });
}

TEST(StandardLibraryTest, Ordering) {
  RunCases({
      {op::kLess, "less_int64", {I(1), I(2)}, B(true)},
      {op::kLess, "less_bool", {B(false), B(true)}, B(true)},
      {op::kLess, "less_string", {S("a"), S("b")}, B(true)},
      {op::kLess, "less_bytes", {Value::Bytes("b"), Value::Bytes("a")}, B(false)},
      {op::kLess, "less_int64_double", {I(1), D(1.5)}, B(true)},
      {op::kLess, "less_int64_uint64", {I(-1), U(0)}, B(true)},
      {op::kLess, "less_uint64_int64", {U(kUMax), I(kMax)}, B(false)},
      {op::kLess, "less_double_uint64", {D(-0.5), U(0)}, B(true)},
      {op::kLess, "less_double", {D(kNaN), D(1)}, B(false)},
      {op::kLessEquals, "less_equals_int64", {I(2), I(2)}, B(true)},
      {op::kLessEquals, "less_equals_double_int64", {D(kNaN), I(1)}, B(false)},
      {op::kGreater, "greater_uint64_double", {U(2), D(1.5)}, B(true)},
      {op::kGreater, "greater_double", {D(kInf), D(1e308)}, B(true)},
      {op::kGreater, "greater_double", {D(1), D(kNaN)}, B(false)},
      {op::kGreaterEquals, "greater_equals_string", {S("b"), S("b")}, B(true)},
      {op::kGreaterEquals, "greater_equals_double_int64", {D(kNaN), I(1)}, B(false)},
      {op::kGreaterEquals, "greater_equals_duration",
       {Value::Duration(absl::Seconds(1)), Value::Duration(absl::Seconds(2))}, B(false)},
      {op::kLess, "less_timestamp",
       {Value::Timestamp(absl::FromUnixSeconds(1)), Value::Timestamp(absl::FromUnixSeconds(2))},
       B(true)},
  });
}

TEST(StandardLibraryTest, IntArithmetic) {
  RunCases({
      {op::kAdd, "add_int64", {I(2), I(3)}, I(5)},
      {op::kAdd, "add_int64", {I(kMax), I(1)}, E("integer overflow")},
      {op::kAdd, "add_int64", {I(kMin), I(-1)}, E("integer overflow")},
      {op::kSubtract, "subtract_int64", {I(kMin), I(1)}, E("integer overflow")},
      {op::kSubtract, "subtract_int64", {I(0), I(kMin)}, E("integer overflow")},
      {op::kSubtract, "subtract_int64", {I(-1), I(kMax)}, I(kMin)},
      {op::kMultiply, "multiply_int64", {I(kMin), I(-1)}, E("integer overflow")},
      {op::kMultiply, "multiply_int64", {I(1LL << 32), I(1LL << 31)}, E("integer overflow")},
      {op::kMultiply, "multiply_int64", {I(-3), I(4)}, I(-12)},
      {op::kDivide, "divide_int64", {I(7), I(-2)}, I(-3)},
      {op::kDivide, "divide_int64", {I(1), I(0)}, E("division by zero")},
      {op::kDivide, "divide_int64", {I(kMin), I(-1)}, E("integer overflow")},
      {op::kModulo, "modulo_int64", {I(-7), I(2)}, I(-1)},
      {op::kModulo, "modulo_int64", {I(7), I(0)}, E("modulus by zero")},
      {op::kModulo, "modulo_int64", {I(kMin), I(-1)}, E("integer overflow")},
  });
}

TEST(StandardLibraryTest, UintArithmetic) {
  RunCases({
      {op::kAdd, "add_uint64", {U(kUMax), U(1)}, E("unsigned integer overflow")},
      {op::kSubtract, "subtract_uint64", {U(1), U(2)}, E("unsigned integer overflow")},
      {op::kSubtract, "subtract_uint64", {U(2), U(2)}, U(0)},
      {op::kMultiply, "multiply_uint64", {U(1ULL << 32), U(1ULL << 32)},
       E("unsigned integer overflow")},
      {op::kDivide, "divide_uint64", {U(7), U(2)}, U(3)},
      {op::kDivide, "divide_uint64", {U(7), U(0)}, E("division by zero")},
      {op::kModulo, "modulo_uint64", {U(7), U(0)}, E("modulus by zero")},
      {op::kModulo, "modulo_uint64", {U(7), U(4)}, U(3)},
  });
}

TEST(StandardLibraryTest, DoubleArithmeticIsIeee) {
  RunCases({
      {op::kAdd, "add_double", {D(0.5), D(0.25)}, D(0.75)},
      {op::kSubtract, "subtract_double", {D(kInf), D(kInf)}, D(kNaN)},
      {op::kMultiply, "multiply_double", {D(1e308), D(10)}, D(kInf)},
      {op::kDivide, "divide_double", {D(1), D(0)}, D(kInf)},
      {op::kDivide, "divide_double", {D(-1), D(0)}, D(-kInf)},
      {op::kDivide, "divide_double", {D(0), D(0)}, D(kNaN)},
  });
}

TEST(StandardLibraryTest, Concatenation) {
  RunCases({
      {op::kAdd, "add_string", {S("ab"), S("cd")}, S("abcd")},
      {op::kAdd, "add_bytes", {Value::Bytes("a\xff"), Value::Bytes("b")},
       Value::Bytes("a\xff" "b")},
      {op::kAdd, "add_list", {ListOf({I(1)}), ListOf({S("x"), I(2)})},
       ListOf({I(1), S("x"), I(2)})},
      {op::kAdd, "add_list", {ListOf({}), ListOf({I(1)})}, ListOf({I(1)})},
      {op::kAdd, "add_list", {ListOf({I(1)}), ListOf({})}, ListOf({I(1)})},
  });
}

TEST(StandardLibraryTest, ListIndex) {
  const Value list = ListOf({I(10), I(20), I(30)});
  RunCases({
      {op::kIndex, "index_list", {list, I(0)}, I(10)},
      {op::kIndex, "index_list", {list, I(2)}, I(30)},
      {op::kIndex, "index_list", {list, I(3)}, E("index '3' out of range in list size '3'")},
      {op::kIndex, "index_list", {list, I(-1)}, E("index '-1' out of range in list size '3'")},
      {op::kIndex, "index_list", {list, I(kMin)},
       E("index '-9223372036854775808' out of range in list size '3'")},
  });
}

TEST(StandardLibraryTest, ListIndexTakesLosslessUintAndDoubleAtRuntime) {
  // The declaration says int; cel-go's runtime also accepts these through dyn, so the impl does.
  const Overload* o = FindOverload(op::kIndex, "index_list");
  ASSERT_NE(o, nullptr);
  const Value list = ListOf({I(10), I(20)});
  EXPECT_TRUE(SameValue(o->impl({list, U(1)}), I(20)));
  EXPECT_TRUE(SameValue(o->impl({list, D(1.0)}), I(20)));
  EXPECT_TRUE(SameValue(o->impl({list, D(1.5)}), E("unsupported index value 1.5 in list")));
  EXPECT_TRUE(SameValue(o->impl({list, D(kNaN)}), E("unsupported index value NaN in list")));
  EXPECT_TRUE(SameValue(o->impl({list, U(kUMax)}),
                        E("unsupported index value 18446744073709551615 in list")));
  EXPECT_TRUE(SameValue(o->impl({list, S("0")}), E("unsupported index type 'string' in list")));
}

TEST(StandardLibraryTest, MapIndexAndMembership) {
  const Value m = MapOf({{S("a"), I(1)}, {I(2), S("two")}, {U(3), S("three")}});
  RunCases({
      {op::kIndex, "index_map", {m, S("a")}, I(1)},
      {op::kIndex, "index_map", {m, D(2.0)}, S("two")},
      {op::kIndex, "index_map", {m, I(3)}, S("three")},
      {op::kIndex, "index_map", {m, S("b")}, E("no such key: b")},
      {op::kIndex, "index_map", {m, D(2.5)}, E("no such key: 2.5")},
      {op::kIn, "in_map", {S("a"), m}, B(true)},
      {op::kIn, "in_map", {U(2), m}, B(true)},
      {op::kIn, "in_map", {S("z"), m}, B(false)},
      {op::kIn, "in_map", {ListOf({}), m}, B(false)},
      {op::kIn, "in_list", {D(2.0), ListOf({I(1), I(2)})}, B(true)},
      {op::kIn, "in_list", {S("x"), ListOf({I(1), S("y")})}, B(false)},
      {op::kIn, "in_list", {D(kNaN), ListOf({D(kNaN)})}, B(false)},
  });
}

TEST(StandardLibraryTest, Size) {
  const Value m = MapOf({{S("a"), I(1)}});
  RunCases({
      {"size", "size_string", {S("h\xc3\xa9llo")}, I(5)},
      {"size", "string_size", {S("\xf0\x9f\x98\x80")}, I(1)},
      {"size", "string_size", {S("\xff\xfe")}, I(2)},  // invalid bytes count one each
      {"size", "size_bytes", {Value::Bytes("h\xc3\xa9")}, I(3)},
      {"size", "bytes_size", {Value::Bytes("")}, I(0)},
      {"size", "size_list", {ListOf({I(1), I(2)})}, I(2)},
      {"size", "list_size", {ListOf({})}, I(0)},
      {"size", "size_map", {m}, I(1)},
      {"size", "map_size", {m}, I(1)},
  });
}

TEST(StandardLibraryTest, StringPredicates) {
  RunCases({
      {"contains", "contains_string", {S("nvidia.com"), S("dia.")}, B(true)},
      {"contains", "contains_string", {S("abc"), S("")}, B(true)},
      {"startsWith", "starts_with_string", {S("gpu-a100"), S("gpu-")}, B(true)},
      {"startsWith", "starts_with_string", {S("gp"), S("gpu")}, B(false)},
      {"endsWith", "ends_with_string", {S("a100-80gb"), S("80gb")}, B(true)},
      {"endsWith", "ends_with_string", {S("x"), S("xx")}, B(false)},
  });
}

TEST(StandardLibraryTest, Matches) {
  RunCases({
      {"matches", "matches", {S("NVIDIA A100-SXM4-80GB"), S("A100")}, B(true)},
      {"matches", "matches", {S("abc"), S("^b")}, B(false)},
      {"matches", "matches_string", {S("abc"), S("^a.c$")}, B(true)},
      {"matches", "matches_string", {S("h\xc3\xa9"), S("^h.$")}, B(true)},  // . is a code point
      {"matches", "matches_string", {S(""), S("")}, B(true)},
  });
  Value bad = Call("matches", "matches_string", {S("abc"), S("(")});
  ASSERT_TRUE(bad.is_error());
  EXPECT_EQ(bad.error_message().rfind("error parsing regexp: ", 0), 0u) << bad.error_message();
}

TEST(StandardLibraryTest, TypeAndDyn) {
  EXPECT_EQ(Call("type", "type", {I(1)}).string_value(), "int");
  EXPECT_EQ(Call("type", "type", {U(1)}).string_value(), "uint");
  EXPECT_EQ(Call("type", "type", {S("")}).string_value(), "string");
  EXPECT_EQ(Call("type", "type", {ListOf({})}).string_value(), "list");
  EXPECT_EQ(Call("type", "type", {Value::Duration(absl::Seconds(1))}).string_value(),
            "google.protobuf.Duration");
  const Value type_of_int = Call("type", "type", {I(1)});
  EXPECT_EQ(type_of_int.kind(), ValueKind::kType);
  EXPECT_EQ(Call("type", "type", {type_of_int}).string_value(), "type");
  EXPECT_TRUE(SameValue(Call("dyn", "to_dyn", {S("x")}), S("x")));
}

TEST(StandardLibraryTest, MapInsert) {
  const Value m = MapOf({{S("a"), I(1)}});
  Value inserted = Call("cel.@mapInsert", "@mapInsert_map_key_value", {m, S("b"), I(2)});
  EXPECT_TRUE(SameValue(inserted, MapOf({{S("a"), I(1)}, {S("b"), I(2)}})));
  EXPECT_TRUE(SameValue(m, MapOf({{S("a"), I(1)}})));  // the input is unchanged
  EXPECT_TRUE(SameValue(Call("cel.@mapInsert", "@mapInsert_map_key_value", {m, S("a"), I(2)}),
                        E("insert failed: key a already exists")));
  EXPECT_TRUE(SameValue(
      Call("cel.@mapInsert", "@mapInsert_map_map", {m, MapOf({{I(2), I(3)}, {S("c"), I(4)}})}),
      MapOf({{S("a"), I(1)}, {I(2), I(3)}, {S("c"), I(4)}})));
  EXPECT_TRUE(SameValue(Call("cel.@mapInsert", "@mapInsert_map_map", {m, MapOf({{S("a"), I(9)}})}),
                        E("insert failed: key a already exists")));
}

TEST(StandardOptionalTest, Constructors) {
  RunCases({
      {"optional.of", "optional_of", {I(0)}, Value::OptionalOf(I(0))},
      {"optional.none", "optional_none", {}, Value::OptionalNone()},
      {"optional.ofNonZeroValue", "optional_ofNonZeroValue", {I(0)}, Value::OptionalNone()},
      {"optional.ofNonZeroValue", "optional_ofNonZeroValue", {S("")}, Value::OptionalNone()},
      {"optional.ofNonZeroValue", "optional_ofNonZeroValue", {ListOf({})},
       Value::OptionalNone()},
      {"optional.ofNonZeroValue", "optional_ofNonZeroValue", {Value::Null()},
       Value::OptionalNone()},
      {"optional.ofNonZeroValue", "optional_ofNonZeroValue",
       {Value::Timestamp(absl::FromUnixSeconds(0))},
       Value::OptionalOf(Value::Timestamp(absl::FromUnixSeconds(0)))},
      {"optional.ofNonZeroValue", "optional_ofNonZeroValue", {D(-0.5)},
       Value::OptionalOf(D(-0.5))},
  });
}

TEST(StandardOptionalTest, Accessors) {
  const Value some = Value::OptionalOf(I(7));
  const Value none = Value::OptionalNone();
  RunCases({
      {"hasValue", "optional_hasValue", {some}, B(true)},
      {"hasValue", "optional_hasValue", {none}, B(false)},
      {"value", "optional_value", {some}, I(7)},
      {"value", "optional_value", {none}, E("optional.none() dereference")},
      {"or", "optional_or_optional", {none, some}, some},
      {"or", "optional_or_optional", {Value::OptionalOf(I(1)), some}, Value::OptionalOf(I(1))},
      {"orValue", "optional_orValue_value", {none, I(3)}, I(3)},
      {"orValue", "optional_orValue_value", {some, I(3)}, I(7)},
  });
}

TEST(StandardOptionalTest, SelectAndIndex) {
  const Value m = MapOf({{S("a"), I(1)}, {I(1), S("one")}});
  const Value list = ListOf({S("x"), S("y")});
  const Value none = Value::OptionalNone();
  RunCases({
      {op::kOptSelect, "select_optional_field", {m, S("a")}, Value::OptionalOf(I(1))},
      {op::kOptSelect, "select_optional_field", {m, S("b")}, none},
      {op::kOptSelect, "select_optional_field", {Value::OptionalOf(m), S("a")},
       Value::OptionalOf(I(1))},
      {op::kOptSelect, "select_optional_field", {none, S("a")}, none},
      {op::kOptSelect, "select_optional_field", {I(1), S("a")}, E("no such overload: _?._")},
      {op::kOptIndex, "list_optindex_optional_int", {list, I(1)}, Value::OptionalOf(S("y"))},
      {op::kOptIndex, "list_optindex_optional_int", {list, I(2)}, none},
      {op::kOptIndex, "list_optindex_optional_int", {list, I(-1)}, none},
      {op::kOptIndex, "optional_list_optindex_optional_int", {Value::OptionalOf(list), I(0)},
       Value::OptionalOf(S("x"))},
      {op::kOptIndex, "optional_list_optindex_optional_int", {none, I(0)}, none},
      {op::kOptIndex, "map_optindex_optional_value", {m, D(1.0)}, Value::OptionalOf(S("one"))},
      {op::kOptIndex, "map_optindex_optional_value", {m, S("zz")}, none},
      {op::kOptIndex, "optional_map_optindex_optional_value", {Value::OptionalOf(m), S("a")},
       Value::OptionalOf(I(1))},
      {op::kIndex, "optional_list_index_int", {Value::OptionalOf(list), I(5)}, none},
      {op::kIndex, "optional_map_index_value", {Value::OptionalOf(m), S("a")},
       Value::OptionalOf(I(1))},
      {op::kIndex, "optional_map_index_value", {none, S("a")}, none},
  });
}

// End to end through Compile(): the library as expressions reach it (parser, checker, dispatch).
Value Eval(const std::string& expr) {
  auto program = Compile(expr, Environment::Standard());
  if (!program.ok()) return E("COMPILE: " + std::string(program.status().message()));
  MapActivation activation;
  return (*program)->Evaluate(activation);
}

TEST(StandardLibraryExpressionTest, EvaluatesThroughCompile) {
  struct Row {
    const char* expr;
    Value want;
  };
  for (const Row& r : std::vector<Row>{
           {"1 + 2 * 3 - 4 / 2 % 3", I(5)},
           {"9223372036854775807 + 1", E("integer overflow")},
           {"1u - 2u", E("unsigned integer overflow")},
           {"1 / 0", E("division by zero")},
           {"[1, 2] + [3]", ListOf({I(1), I(2), I(3)})},
           {"[1, 2, 3][1]", I(2)},
           {"[1][5]", E("index '5' out of range in list size '1'")},
           {"{'a': 1}['b']", E("no such key: b")},
           {"dyn(2.0) in [1, 2]", B(true)},
           {"1 < 1.5 && 2u > 1 && 1.0 <= 1u", B(true)},
           {"size('héllo') == 5 && 'abc'.size() == 3", B(true)},
           {"'nvidia.com/gpu'.startsWith('nvidia') && 'A100'.matches('^A[0-9]+$')", B(true)},
           {"int('42') + int(2.9) + int(-2.9)", I(42)},
           {"string(1.5) + ' ' + string(1e6) + ' ' + string(duration('1m30s'))",
            S("1.5 1e+06 90s")},
           {"string(timestamp('2009-02-13T23:31:30Z') + duration('1.5s'))",
            S("2009-02-13T23:31:31.5Z")},
           {"timestamp('2009-02-13T23:31:30Z').getHours('Asia/Kolkata')", I(5)},
           {"duration('2h30m').getMinutes()", I(150)},
           {"type(1) == int && type(type(1)) == type", B(true)},
           {"bool('True') && !bool('0')", B(true)},
           {"optional.of(1).orValue(2) + optional.none().orValue(3)", I(4)},
           {"{'a': 1}[?'b'].hasValue()", B(false)},
           {"optional.none().value()", E("optional.none() dereference")},
       }) {
    EXPECT_TRUE(SameValue(Eval(r.expr), r.want)) << r.expr;
  }
}

}  // namespace
}  // namespace standard_library_test
}  // namespace gpuprofile::cel::internal
