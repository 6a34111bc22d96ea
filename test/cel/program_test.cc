// File: test/cel/program_test.cc
// End-to-end behaviour of Compile + Evaluate: CEL semantics (errors as values, commutative
// logic, overflow, heterogeneous equality), macros and comprehensions, qualified names, and
// compile-once/evaluate-concurrently.
#include "controller/cel/program.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::cel {
namespace program_test {
namespace {

using ::testing::HasSubstr;

Value Eval(const std::string& expr, bool check = true) {
  CompileOptions options;
  options.type_check = check;
  auto program = Compile(expr, Environment::Standard({{"x", Type::Dyn()}}), options);
  if (!program.ok()) return Value::Error("COMPILE: " + std::string(program.status().message()));
  MapActivation activation;
  activation.Set("x", Value::Int(7));
  return (*program)->Evaluate(activation);
}

struct Case {
  std::string expr;
  std::string want;  // Value::DebugString() of the result; errors as error("...") substrings
};

class EvaluateTest : public ::testing::TestWithParam<Case> {};

TEST_P(EvaluateTest, CheckedAndUncheckedAgree) {
  const Case& c = GetParam();
  for (bool check : {true, false}) {
    Value v = Eval(c.expr, check);
    if (c.want.rfind("error:", 0) == 0) {
      ASSERT_TRUE(v.is_error()) << c.expr << " (check=" << check << ") = " << v.DebugString();
      EXPECT_THAT(std::string(v.error_message()), HasSubstr(c.want.substr(6))) << c.expr;
    } else {
      EXPECT_EQ(v.DebugString(), c.want) << c.expr << " (check=" << check << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Semantics, EvaluateTest,
    ::testing::Values(
        // A string compared with a constant string (x is the int 7), either side, == and !=;
        // other kinds never equal a string.
        Case{"string(x) == '7'", "true"}, Case{"'7' == string(x)", "true"},
        Case{"string(x) != '7'", "false"}, Case{"'8' != string(x)", "true"},
        Case{"string(x) == '70'", "false"}, Case{"dyn(bytes(string(x))) == '7'", "false"},
        Case{"dyn(bytes(string(x))) != '7'", "true"},
        // Logic absorbs errors when the other side decides.
        Case{"false && (1 / 0 == 1)", "false"}, Case{"(1 / 0 == 1) && false", "false"},
        Case{"true || (1 / 0 == 1)", "true"}, Case{"(1 / 0 == 1) || true", "true"},
        Case{"(1 / 0 == 1) && true", "error:division by zero"},
        // Chains of one operator (evaluated as one step) keep the binary tree's results: any
        // deciding term decides; otherwise the error the balanced tree returns (x is the int 7).
        Case{"true && x && false", "false"}, Case{"x || false || true", "true"},
        Case{"(1 / 0 == 1) && x && true", "error:division by zero"},
        Case{"x && true && (1 / 0 == 1)", "error:no such overload"},
        Case{"true && true && (1 / 0 == 1) && true", "error:division by zero"},
        Case{"true && true && true && true", "true"}, Case{"false || false || false", "false"},
        Case{"(1 / 0 == 1) || false || true || (2 / 0 == 1)", "true"},
        Case{"true ? 1 : 1 / 0", "1"}, Case{"false ? 1 / 0 : 2", "2"},
        // Integer overflow is an error, never a wrap.
        Case{"9223372036854775807 + 1", "error:overflow"},
        Case{"-9223372036854775808 - 1", "error:overflow"},
        Case{"0u - 1u", "error:overflow"},
        // Heterogeneous numeric equality and ordering.
        Case{"dyn(1) == 1u", "true"}, Case{"dyn(1) == 1.0", "true"},
        Case{"dyn(1) < 1.5", "true"}, Case{"dyn('a') == 1", "false"},
        Case{"[1, 2] == [1, 2]", "true"}, Case{"{'a': 1} == {'a': 1}", "true"},
        // Macros.
        Case{"[1, 2, 3].all(i, i > 0)", "true"}, Case{"[1, 2, 3].exists(i, i > 2)", "true"},
        Case{"[1, 2, 3].exists_one(i, i > 1)", "false"},
        Case{"[1, 2, 3].map(i, i * 2)", "[2, 4, 6]"},
        Case{"[1, 2, 3].filter(i, i % 2 == 1)", "[1, 3]"},
        Case{"[1, 2, 3].map(i, i > 1, i * 10)", "[20, 30]"},
        Case{"{'a': 1, 'b': 2}.all(k, k != 'c')", "true"},
        Case{"[0, 1].all(i, 1 / i > 0)", "error:division by zero"},
        Case{"[0, 1].exists(i, 1 / i > 0)", "true"},
        Case{"has({'a': 1}.a)", "true"}, Case{"has({'a': 1}.b)", "false"},
        Case{"cel.bind(y, x * 2, y + y)", "28"},
        Case{"[[1, 2], [3]].map(l, l.map(i, i + 1))", "[[2, 3], [4]]"},
        // Variables and missing keys.
        Case{"x + 1", "8"}, Case{"{'a': 1}.b", "error:no such key: b"},
        Case{"{'a': 1}['b']", "error:no such key"}));

TEST(ProgramTest, MapLiteralRejectsRepeatedKeys) {
  Value v = Eval("{'a': 1, 'a': 2}", false);
  ASSERT_TRUE(v.is_error());
  EXPECT_THAT(std::string(v.error_message()), HasSubstr("repeated key"));
}

TEST(ProgramTest, EvaluatesConcurrently) {
  auto program = Compile("[1, 2, 3].map(i, i * x).exists(v, v == 21)",
                         Environment::Standard({{"x", Type::Int()}}));
  ASSERT_OK(program);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        int64_t x = (i + t) % 2 == 0 ? 7 : 8;
        Value v = (*program)->Evaluate({Value::Int(x)});
        if (v.IsTrue() != (x == 7)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ProgramTest, QualifiedVariableNames) {
  auto program = Compile("a.b.c + 1", Environment::Standard({{"a.b.c", Type::Int()}}));
  ASSERT_OK(program);
  EXPECT_EQ((*program)->Evaluate({Value::Int(41)}).DebugString(), "42");
}

TEST(ProgramTest, ContainerResolvesNames) {
  auto program = Compile("y", Environment::Standard({{"pkg.y", Type::String()}}, "pkg"));
  ASSERT_OK(program);
  EXPECT_EQ((*program)->Evaluate({Value::String("hi")}).DebugString(), "\"hi\"");
}

TEST(ProgramTest, UncheckedNamesComeFromTheActivation) {
  CompileOptions options;
  options.type_check = false;
  auto program = Compile("z * 2", Environment::Standard(), options);
  ASSERT_OK(program);
  MapActivation act;
  act.Set("z", Value::Int(21));
  EXPECT_EQ((*program)->Evaluate(act).DebugString(), "42");
}

TEST(ProgramTest, DeepNestingIsRejectedNotCrashing) {
  std::string expr(5000, '(');
  expr += "1";
  expr += std::string(5000, ')');
  auto program = Compile(expr, Environment::Standard());
  EXPECT_FALSE(program.ok());
}

TEST(ProgramTest, LongLeftAssociativeChainDoesNotOverflow) {
  std::string expr = "1";
  for (int i = 0; i < 20000; ++i) expr += " + 1";
  auto program = Compile(expr, Environment::Standard());
  if (program.ok()) {
    EXPECT_EQ((*program)->Evaluate(absl::Span<const Value>{}).DebugString(), "20001");
  } else {
    EXPECT_THAT(std::string(program.status().message()), HasSubstr("recursion"));
  }
}

}  // namespace
}  // namespace program_test
}  // namespace gpuprofile::cel
