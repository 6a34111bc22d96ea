// File: test/cel/compare_to_shortcut_test.cc
// The evaluator orders `x.compareTo(c) op k` (c a constant quantity or semver, k a constant int)
// without dispatching the call. Each case here is evaluated twice: as written (the shortcut) and
// with k read from a variable (the general call and comparison), and both must give the same
// value or the same error, for receivers of the right type, of the other opaque type, of plain
// types and errors, for every operator, on either side.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "controller/cel/environment.h"
#include "controller/cel/library_values.h"
#include "controller/cel/program.h"
#include "controller/core/quantity.h"
#include "controller/core/semver.h"
#include "gtest/gtest.h"

namespace gpuprofile::cel {
namespace compare_to_shortcut_test {
namespace {

Value Evaluate(const std::string& expr, const Value& x, int64_t k, bool check) {
  CompileOptions options;
  options.type_check = check;
  auto program = Compile(expr, Environment::Standard({{"x", Type::Dyn()}, {"k", Type::Int()}}),
                         options);
  if (!program.ok()) return Value::Error("COMPILE: " + std::string(program.status().message()));
  MapActivation activation;
  activation.Set("x", x);
  activation.Set("k", Value::Int(k));
  return (*program)->Evaluate(activation);
}

std::vector<std::pair<std::string, Value>> Receivers() {
  return {
      {"quantity 1Gi", MakeQuantityValue(*Quantity::Parse("1Gi"))},
      {"quantity 1024Mi", MakeQuantityValue(*Quantity::Parse("1024Mi"))},
      {"quantity 40Gi", MakeQuantityValue(*Quantity::Parse("40Gi"))},
      {"quantity 1m", MakeQuantityValue(*Quantity::Parse("1m"))},
      {"semver 1.0.0", MakeSemverValue(*Semver::ParseStrict("1.0.0"))},
      {"semver 8.9.0", MakeSemverValue(*Semver::ParseStrict("8.9.0"))},
      {"string", Value::String("1Gi")},
      {"int", Value::Int(1)},
      {"null", Value::Null()},
      {"error", Value::Error("boom")},
  };
}

TEST(CompareToShortcutTest, AgreesWithTheDispatchedCall) {
  const std::vector<std::string> constants = {"quantity('1Gi')", "semver('8.0.0')"};
  const std::vector<std::string> ops = {"==", "!=", "<", "<=", ">", ">="};
  int compared = 0;
  for (const auto& [what, x] : Receivers()) {
    for (const std::string& c : constants) {
      for (const std::string& op : ops) {
        for (int64_t k : {-2, -1, 0, 1, 2}) {
          for (bool constant_left : {false, true}) {
            const std::string call = absl::StrCat("x.compareTo(", c, ")");
            const std::string shortcut = constant_left
                                             ? absl::StrCat("(", k, ") ", op, " ", call)
                                             : absl::StrCat(call, " ", op, " (", k, ")");
            const std::string general = absl::StrReplaceAll(
                shortcut, {{absl::StrCat("(", k, ")"), "k"}});
            for (bool check : {true, false}) {
              const Value fast = Evaluate(shortcut, x, k, check);
              const Value slow = Evaluate(general, x, k, check);
              EXPECT_EQ(fast.DebugString(), slow.DebugString())
                  << shortcut << " with x = " << what << " (check=" << check << ")";
              ++compared;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 10 * 2 * 6 * 5 * 2 * 2);
}

TEST(CompareToShortcutTest, OrdersLikeTheCall) {
  // A few results spelled out, so that agreement of two wrong paths cannot pass.
  const Value forty = MakeQuantityValue(*Quantity::Parse("40Gi"));
  EXPECT_TRUE(Evaluate("x.compareTo(quantity('40Gi')) >= 0", forty, 0, true).IsTrue());
  EXPECT_TRUE(Evaluate("x.compareTo(quantity('40960Mi')) == 0", forty, 0, true).IsTrue());
  EXPECT_TRUE(Evaluate("x.compareTo(quantity('41Gi')) == -1", forty, 0, true).IsTrue());
  EXPECT_TRUE(Evaluate("1 == x.compareTo(quantity('39Gi'))", forty, 0, true).IsTrue());
  const Value v = MakeSemverValue(*Semver::ParseStrict("8.9.0"));
  EXPECT_TRUE(Evaluate("x.compareTo(semver('8.0.0')) > 0", v, 0, true).IsTrue());
  EXPECT_TRUE(Evaluate("x.compareTo(quantity('1')) >= 0", v, 0, false).is_error());
}

}  // namespace
}  // namespace compare_to_shortcut_test
}  // namespace gpuprofile::cel
