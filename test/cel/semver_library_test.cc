// File: test/cel/semver_library_test.cc
// Calls the registered overloads the way the evaluator does: looked up by function name and
// overload id, arguments already matched to the declared parameter types.
#include <string>
#include <vector>

#include "controller/cel/internal/function.h"
#include "controller/cel/library_values.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"
#include "controller/core/semver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/cel/library_test_util.h"

namespace gpuprofile::cel::internal {
namespace semver_library_test {
namespace {

class SemverLibraryTest : public ::testing::Test {
 protected:
  const Overload* Find(const std::string& function, const std::string& id) const {
    return lib_.Find(function, id);
  }

  Value Call(const std::string& function, const std::string& id, std::vector<Value> args) const {
    return lib_.CallOrFail(function, id, std::move(args));
  }

  Value V(const std::string& text) const {
    Value v = Call("semver", "string_to_semver", {Value::String(text)});
    EXPECT_FALSE(v.is_error()) << text << ": " << v.DebugString();
    return v;
  }

  Value Normalized(const std::string& text) const {
    return Call("semver", "string_bool_to_semver", {Value::String(text), Value::Bool(true)});
  }

  testing::LibraryUnderTest lib_{RegisterSemverLibrary};
};

TEST_F(SemverLibraryTest, DeclaresKubernetesOverloads) {
  struct Decl {
    const char* function;
    const char* id;
    bool receiver_style;
    size_t arity;
    int introduced_minor;
  };
  const Decl decls[] = {
      {"semver", "string_to_semver", false, 1, 31},
      {"isSemver", "is_semver_string", false, 1, 31},
      {"semver", "string_bool_to_semver", false, 2, 33},
      {"isSemver", "is_semver_string_bool", false, 2, 33},
      {"isGreaterThan", "semver_is_greater_than", true, 2, 31},
      {"isLessThan", "semver_is_less_than", true, 2, 31},
      {"compareTo", "semver_compare_to", true, 2, 31},
      {"major", "semver_major", true, 1, 31},
      {"minor", "semver_minor", true, 1, 31},
      {"patch", "semver_patch", true, 1, 31},
  };
  for (const Decl& d : decls) {
    const Overload* o = Find(d.function, d.id);
    ASSERT_NE(o, nullptr) << d.id;
    EXPECT_EQ(o->receiver_style, d.receiver_style) << d.id;
    EXPECT_EQ(o->params.size(), d.arity) << d.id;
    EXPECT_EQ(o->gate.introduced_minor, d.introduced_minor) << d.id;
    EXPECT_EQ(o->gate.library, d.introduced_minor == 33 ? "normalising semver" : "Semver")
        << d.id;
  }
  EXPECT_EQ(Find("semver", "string_to_semver")->result, Type::Opaque(kSemverTypeName));
  EXPECT_EQ(Find("major", "semver_major")->result, Type::Int());
}

TEST_F(SemverLibraryTest, StrictParseErrorsAreBlangMessages) {
  Value v = Call("semver", "string_to_semver", {Value::String("8.0")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "No Major.Minor.Patch elements found");
  v = Call("semver", "string_to_semver", {Value::String("550.54.05")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "Patch number must not contain leading zeroes \"05\"");
  v = Call("semver", "string_to_semver", {Value::String("v1.0.0")});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "Invalid character(s) found in major number \"v1\"");
  // The two-argument form with false is the strict parse.
  v = Call("semver", "string_bool_to_semver", {Value::String("8.0"), Value::Bool(false)});
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "No Major.Minor.Patch elements found");
}

TEST_F(SemverLibraryTest, NormalizingForms) {
  EXPECT_TRUE(Equal(Normalized("550.54.05"), V("550.54.5")).IsTrue());
  EXPECT_TRUE(Equal(Normalized("8.0"), V("8.0.0")).IsTrue());
  EXPECT_TRUE(Equal(Normalized("v1.0.0"), V("1.0.0")).IsTrue());
  EXPECT_TRUE(Equal(Normalized("01.01.01"), V("1.1.1")).IsTrue());
  Value v = Normalized("1.0-rc");
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(), "short version cannot contain PreRelease/Build meta data");
}

TEST_F(SemverLibraryTest, IsSemver) {
  const struct {
    const char* text;
    bool strict;
    bool normalized;
  } cases[] = {
      {"1.0.0", true, true},     {"hello", false, false},      {"v1.0", false, true},
      {"8.0", false, true},      {"550.54.05", false, true},   {"1.0.0-rc.1+b", true, true},
      {"", false, false},        {"1.0-rc", false, false},     {"1.0.0-01", false, false},
  };
  for (const auto& c : cases) {
    Value strict = Call("isSemver", "is_semver_string", {Value::String(c.text)});
    ASSERT_TRUE(strict.is_bool());
    EXPECT_EQ(strict.bool_value(), c.strict) << c.text;
    Value normalized =
        Call("isSemver", "is_semver_string_bool", {Value::String(c.text), Value::Bool(true)});
    ASSERT_TRUE(normalized.is_bool());
    EXPECT_EQ(normalized.bool_value(), c.normalized) << c.text;
    Value strict2 =
        Call("isSemver", "is_semver_string_bool", {Value::String(c.text), Value::Bool(false)});
    EXPECT_EQ(strict2.bool_value(), c.strict) << c.text;
  }
}

TEST_F(SemverLibraryTest, ComponentsAndComparisons) {
  const Value v = V("1.2.3");
  EXPECT_EQ(Call("major", "semver_major", {v}).int_value(), 1);
  EXPECT_EQ(Call("minor", "semver_minor", {v}).int_value(), 2);
  EXPECT_EQ(Call("patch", "semver_patch", {v}).int_value(), 3);
  EXPECT_EQ(Call("compareTo", "semver_compare_to", {v, V("1.2.3")}).int_value(), 0);
  EXPECT_EQ(Call("compareTo", "semver_compare_to", {v, V("2.0.0")}).int_value(), -1);
  EXPECT_EQ(Call("compareTo", "semver_compare_to", {v, V("0.1.2")}).int_value(), 1);
  EXPECT_TRUE(Call("isGreaterThan", "semver_is_greater_than", {V("550.54.15"), V("550.0.0")})
                  .IsTrue());
  EXPECT_TRUE(Call("isLessThan", "semver_is_less_than", {V("1.0.0-rc.1"), V("1.0.0")}).IsTrue());
  EXPECT_TRUE(Call("isLessThan", "semver_is_less_than", {V("1.0.0"), V("1.0.0")}).IsFalse());
  // Compute capability 8.6 >= 8.0.
  EXPECT_GE(Call("compareTo", "semver_compare_to", {V("8.6.0"), V("8.0.0")}).int_value(), 0);
}

TEST_F(SemverLibraryTest, EqualityIgnoresBuildAndRejectsOtherTypes) {
  EXPECT_TRUE(Equal(V("1.0.0+a"), V("1.0.0+b")).IsTrue());
  EXPECT_TRUE(Equal(V("1.0.0"), V("1.0.1")).IsFalse());
  const Value v = V("8.0.0");
  EXPECT_TRUE(Equal(v, Value::String("8.0.0")).is_error());
  EXPECT_EQ(v.TypeName(), kSemverTypeName);
  EXPECT_EQ(v.DebugString(), "semver(\"8.0.0\")");
}

TEST_F(SemverLibraryTest, ValueHelpers) {
  absl::StatusOr<Semver> parsed = Semver::ParseStrict("1.2.3-rc.1");
  ASSERT_TRUE(parsed.ok());
  Value v = MakeSemverValue(*parsed);
  ASSERT_NE(AsSemver(v), nullptr);
  EXPECT_EQ(AsSemver(v)->ToString(), "1.2.3-rc.1");
  EXPECT_EQ(AsSemver(Value::String("1.2.3")), nullptr);
}

}  // namespace
}  // namespace semver_library_test
}  // namespace gpuprofile::cel::internal
