// File: test/cel/quantity_library_test.cc
// Calls the registered overloads the way the evaluator does: looked up by function name and
// overload id, arguments already matched to the declared parameter types.
#include <string>
#include <vector>

#include "controller/cel/internal/function.h"
#include "controller/cel/library_values.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"
#include "controller/core/quantity.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace quantity_library_test {
namespace {

class QuantityLibraryTest : public ::testing::Test {
 protected:
  const Overload* Find(const std::string& function, const std::string& id) const {
    return lib_.Find(function, id);
  }

  Value Call(const std::string& function, const std::string& id, std::vector<Value> args) const {
    return lib_.CallOrFail(function, id, std::move(args));
  }

  Value Q(const std::string& text) const {
    Value v = Call("quantity", "string_to_quantity", {Value::String(text)});
    EXPECT_FALSE(v.is_error()) << text << ": " << v.DebugString();
    return v;
  }

  std::string Str(const Value& v) const {
    const Quantity* q = AsQuantity(v);
    return q == nullptr ? "<not a quantity: " + v.DebugString() + ">" : q->ToString();
  }

  testing::LibraryUnderTest lib_{RegisterQuantityLibrary};
};

TEST_F(QuantityLibraryTest, DeclaresKubernetesOverloads) {
  struct Decl {
    const char* function;
    const char* id;
    bool receiver_style;
    size_t arity;
  };
  const Decl decls[] = {
      {"quantity", "string_to_quantity", false, 1},
      {"isQuantity", "is_quantity_string", false, 1},
      {"sign", "quantity_sign", false, 1},
      {"isGreaterThan", "quantity_is_greater_than", true, 2},
      {"isLessThan", "quantity_is_less_than", true, 2},
      {"compareTo", "quantity_compare_to", true, 2},
      {"asApproximateFloat", "quantity_get_float", true, 1},
      {"asInteger", "quantity_get_int", true, 1},
      {"isInteger", "quantity_is_integer", true, 1},
      {"add", "quantity_add", true, 2},
      {"add", "quantity_add_int", true, 2},
      {"sub", "quantity_sub", true, 2},
      {"sub", "quantity_sub_int", true, 2},
  };
  for (const Decl& d : decls) {
    const Overload* o = Find(d.function, d.id);
    ASSERT_NE(o, nullptr) << d.id;
    EXPECT_EQ(o->receiver_style, d.receiver_style) << d.id;
    EXPECT_EQ(o->params.size(), d.arity) << d.id;
    EXPECT_EQ(o->gate.introduced_minor, 28) << d.id;
    EXPECT_EQ(o->gate.library, "Quantity") << d.id;
    EXPECT_FALSE(o->non_strict) << d.id;
  }
  EXPECT_EQ(Find("quantity", "string_to_quantity")->result, Type::Opaque(kQuantityTypeName));
  EXPECT_EQ(Find("compareTo", "quantity_compare_to")->result, Type::Int());
  EXPECT_EQ(Find("asApproximateFloat", "quantity_get_float")->result, Type::Double());
}

TEST_F(QuantityLibraryTest, ParseErrorsUseKubernetesMessages) {
  Value v = Call("quantity", "string_to_quantity", {Value::String("200K")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "unable to parse quantity's suffix");
  v = Call("quantity", "string_to_quantity", {Value::String("1,3G")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(),
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

TEST_F(QuantityLibraryTest, IsQuantity) {
  const std::pair<const char*, bool> cases[] = {
      {"1.3G", true},  {"1.3Gi", true},  {"1,3G", false}, {"10000k", true},
      {"200K", false}, {"Three", false}, {"", false},     {"40Gi", true},
  };
  for (const auto& [text, want] : cases) {
    Value v = Call("isQuantity", "is_quantity_string", {Value::String(text)});
    ASSERT_TRUE(v.is_bool()) << text;
    EXPECT_EQ(v.bool_value(), want) << text;
  }
}

TEST_F(QuantityLibraryTest, ComparisonsMatchKubernetesExamples) {
  EXPECT_EQ(Call("compareTo", "quantity_compare_to", {Q("200M"), Q("0.2G")}).int_value(), 0);
  EXPECT_EQ(Call("compareTo", "quantity_compare_to", {Q("50M"), Q("50Mi")}).int_value(), -1);
  EXPECT_EQ(Call("compareTo", "quantity_compare_to", {Q("50Mi"), Q("50M")}).int_value(), 1);
  EXPECT_TRUE(
      Call("isGreaterThan", "quantity_is_greater_than", {Q("150Mi"), Q("100Mi")}).IsTrue());
  EXPECT_TRUE(
      Call("isGreaterThan", "quantity_is_greater_than", {Q("50Mi"), Q("100Mi")}).IsFalse());
  EXPECT_TRUE(Call("isLessThan", "quantity_is_less_than", {Q("50M"), Q("100M")}).IsTrue());
  EXPECT_TRUE(Call("isLessThan", "quantity_is_less_than", {Q("100M"), Q("50M")}).IsFalse());
  // NVIDIA memory capacities.
  EXPECT_TRUE(Call("isLessThan", "quantity_is_less_than", {Q("46068Mi"), Q("48Gi")}).IsTrue());
  EXPECT_EQ(Call("compareTo", "quantity_compare_to", {Q("40Gi"), Q("40960Mi")}).int_value(), 0);
}

TEST_F(QuantityLibraryTest, Sign) {
  EXPECT_EQ(Call("sign", "quantity_sign", {Q("50k")}).int_value(), 1);
  EXPECT_EQ(Call("sign", "quantity_sign", {Q("-50k")}).int_value(), -1);
  EXPECT_EQ(Call("sign", "quantity_sign", {Q("0")}).int_value(), 0);
}

TEST_F(QuantityLibraryTest, IntegerAndFloatConversions) {
  EXPECT_TRUE(Call("isInteger", "quantity_is_integer", {Q("50000000G")}).IsTrue());
  EXPECT_TRUE(Call("isInteger", "quantity_is_integer", {Q("50k")}).IsTrue());
  EXPECT_TRUE(Call("isInteger", "quantity_is_integer",
                   {Q("9999999999999999999999999999999999999G")})
                  .IsFalse());
  EXPECT_TRUE(Call("isInteger", "quantity_is_integer", {Q("1500m")}).IsFalse());

  Value v = Call("asInteger", "quantity_get_int", {Q("50k")});
  ASSERT_EQ(v.kind(), ValueKind::kInt);
  EXPECT_EQ(v.int_value(), 50000);
  v = Call("asInteger", "quantity_get_int", {Q("9999999999999999999999999999999999999G")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "cannot convert value to integer");
  v = Call("asInteger", "quantity_get_int", {Q("1500m")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "cannot convert value to integer");

  v = Call("asApproximateFloat", "quantity_get_float", {Q("1.5Gi")});
  ASSERT_EQ(v.kind(), ValueKind::kDouble);
  EXPECT_DOUBLE_EQ(v.double_value(), 1610612736.0);
}

TEST_F(QuantityLibraryTest, Arithmetic) {
  EXPECT_EQ(Str(Call("add", "quantity_add", {Q("50k"), Q("20k")})), "70k");
  EXPECT_EQ(Str(Call("add", "quantity_add_int", {Q("50k"), Value::Int(20)})), "50020");
  EXPECT_EQ(Str(Call("sub", "quantity_sub", {Q("50k"), Q("20k")})), "30k");
  EXPECT_EQ(Str(Call("sub", "quantity_sub_int", {Q("50k"), Value::Int(20000)})), "30k");
  // quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20")
  Value v = Call("add", "quantity_add_int", {Q("50k"), Value::Int(20)});
  v = Call("sub", "quantity_sub", {v, Q("100k")});
  v = Call("sub", "quantity_sub_int", {v, Value::Int(-50000)});
  EXPECT_TRUE(Equal(v, Q("20")).IsTrue());
  // quantity("50k").sub(20000).asApproximateFloat() == 30000
  v = Call("sub", "quantity_sub_int", {Q("50k"), Value::Int(20000)});
  EXPECT_DOUBLE_EQ(Call("asApproximateFloat", "quantity_get_float", {v}).double_value(), 30000);
  // A zero receiver takes the int's format (DecimalExponent), which prints plainly.
  EXPECT_EQ(Str(Call("add", "quantity_add_int", {Q("0"), Value::Int(1024)})), "1024");
  // Out of our exact range: an error value, never a wrong number.
  v = Call("add", "quantity_add_int", {Q("1e2147483647"), Value::Int(1)});
  EXPECT_TRUE(v.is_error());
}

TEST_F(QuantityLibraryTest, EqualityIsByValue) {
  EXPECT_TRUE(Equal(Q("40Gi"), Q("40960Mi")).IsTrue());
  EXPECT_TRUE(Equal(Q("1"), Q("1000m")).IsTrue());
  EXPECT_TRUE(Equal(Q("1Gi"), Q("1G")).IsFalse());
  const Value q = Q("1");
  EXPECT_EQ(q.opaque_value().Equals(Q("1").opaque_value()), std::optional<bool>(true));
  EXPECT_EQ(q.TypeName(), kQuantityTypeName);
  EXPECT_EQ(q.DebugString(), "quantity(\"1\")");
  // Against other types: no such overload.
  EXPECT_TRUE(Equal(q, Value::Int(1)).is_error());
}

TEST_F(QuantityLibraryTest, ValueHelpers) {
  Value v = MakeQuantityValue(Quantity::FromInt(5));
  ASSERT_NE(AsQuantity(v), nullptr);
  EXPECT_EQ(AsQuantity(v)->ToString(), "5");
  EXPECT_EQ(AsQuantity(Value::String("5")), nullptr);
  EXPECT_EQ(AsQuantity(Value::Int(5)), nullptr);
}

}  // namespace
}  // namespace quantity_library_test
}  // namespace gpuprofile::cel::internal
