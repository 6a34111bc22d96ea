// File: test/core/quantity_test.cc
#include "controller/core/quantity.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile {
namespace quantity_test {
namespace {

using ::testing::HasSubstr;

Quantity Q(const std::string& text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? *q : Quantity();
}

struct CanonicalCase {
  const char* input;
  const char* canonical;
  Quantity::Format format;
};

class QuantityCanonicalTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(QuantityCanonicalTest, PrintsAsKubernetes) {
  const CanonicalCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::Parse(c.input));
  EXPECT_EQ(q.ToString(), c.canonical) << c.input;
  EXPECT_EQ(q.format(), c.format) << c.input;
  // The canonical form parses back to the same value.
  ASSERT_OK_AND_ASSIGN(Quantity again, Quantity::Parse(q.ToString()));
  EXPECT_EQ(again, q) << c.input;
}

using F = Quantity::Format;
INSTANTIATE_TEST_SUITE_P(
    Table, QuantityCanonicalTest,
    ::testing::Values(
        // Decimal SI: exponent moved to a multiple of three, trailing zeros folded.
        CanonicalCase{"0", "0", F::kDecimalSI}, CanonicalCase{"1", "1", F::kDecimalSI},
        CanonicalCase{"1000m", "1", F::kDecimalSI}, CanonicalCase{"0.5", "500m", F::kDecimalSI},
        CanonicalCase{"1.5", "1500m", F::kDecimalSI}, CanonicalCase{"100m", "100m", F::kDecimalSI},
        CanonicalCase{"1000", "1k", F::kDecimalSI}, CanonicalCase{"1500", "1500", F::kDecimalSI},
        CanonicalCase{"1.5k", "1500", F::kDecimalSI}, CanonicalCase{"200M", "200M", F::kDecimalSI},
        CanonicalCase{"0.2G", "200M", F::kDecimalSI}, CanonicalCase{"12E", "12E", F::kDecimalSI},
        CanonicalCase{"1u", "1u", F::kDecimalSI}, CanonicalCase{"1n", "1n", F::kDecimalSI},
        CanonicalCase{"-1.5", "-1500m", F::kDecimalSI}, CanonicalCase{"+5", "5", F::kDecimalSI},
        CanonicalCase{"007", "7", F::kDecimalSI}, CanonicalCase{".5", "500m", F::kDecimalSI},
        CanonicalCase{"5.", "5", F::kDecimalSI}, CanonicalCase{"1.G", "1G", F::kDecimalSI},
        CanonicalCase{".001", "1m", F::kDecimalSI}, CanonicalCase{".0001k", "100m", F::kDecimalSI},
        CanonicalCase{"2000E", "2000E", F::kDecimalSI},
        // Below nano: rounded up (away from zero) to the next nano.
        CanonicalCase{"0.1n", "1n", F::kDecimalSI}, CanonicalCase{"3.001n", "4n", F::kDecimalSI},
        CanonicalCase{"1.1E-9", "2e-9", F::kDecimalExponent},
        CanonicalCase{"0.0000000001", "1n", F::kDecimalSI},
        CanonicalCase{"-0.1n", "-1n", F::kDecimalSI},
        CanonicalCase{"0.00000012345", "124n", F::kDecimalSI},
        // Binary SI: the largest power of 1024 that keeps an integer.
        CanonicalCase{"1Ki", "1Ki", F::kBinarySI}, CanonicalCase{"1024Ki", "1Mi", F::kBinarySI},
        CanonicalCase{"1536Mi", "1536Mi", F::kBinarySI},
        CanonicalCase{"1.5Gi", "1536Mi", F::kBinarySI},
        CanonicalCase{"100Mi", "100Mi", F::kBinarySI}, CanonicalCase{"40Gi", "40Gi", F::kBinarySI},
        CanonicalCase{"40960Mi", "40Gi", F::kBinarySI},
        CanonicalCase{"46068Mi", "46068Mi", F::kBinarySI},
        CanonicalCase{"0.5Gi", "512Mi", F::kBinarySI},
        CanonicalCase{"-1.5Gi", "-1536Mi", F::kBinarySI},
        CanonicalCase{"7Ei", "7Ei", F::kBinarySI}, CanonicalCase{"1Ei", "1Ei", F::kBinarySI},
        // |q| < 1024 and fractions print as DecimalSI.
        CanonicalCase{"0.5Ki", "512", F::kBinarySI},
        CanonicalCase{"100.035Ki", "102435840m", F::kBinarySI},
        CanonicalCase{"0.05Gi", "53687091200m", F::kBinarySI},
        // Binary values below one become DecimalSI when parsed.
        CanonicalCase{"0.000000000001Ki", "2n", F::kDecimalSI},
        // 2^63 - 1 is the cap for binary quantities (also for negative ones).
        CanonicalCase{"8Ei", "9223372036854775807", F::kBinarySI},
        CanonicalCase{"-8Ei", "-9223372036854775807", F::kBinarySI},
        CanonicalCase{"16Ei", "9223372036854775807", F::kBinarySI},
        CanonicalCase{"9223372036854775807Ki", "9223372036854775807", F::kBinarySI},
        // Decimal exponents keep the exponent form.
        CanonicalCase{"1e3", "1e3", F::kDecimalExponent},
        CanonicalCase{"1E3", "1e3", F::kDecimalExponent},
        CanonicalCase{"1e4", "10e3", F::kDecimalExponent},
        CanonicalCase{"1.5e3", "1500", F::kDecimalExponent},
        CanonicalCase{"12e6", "12e6", F::kDecimalExponent},
        CanonicalCase{"1e-3", "1e-3", F::kDecimalExponent},
        CanonicalCase{"1e+3", "1e3", F::kDecimalExponent},
        CanonicalCase{"5e-1", "500e-3", F::kDecimalExponent},
        // Kubernetes reads a number without digits as zero on its fast path.
        CanonicalCase{"Mi", "0", F::kBinarySI}, CanonicalCase{"k", "0", F::kDecimalSI},
        CanonicalCase{".", "0", F::kDecimalSI}, CanonicalCase{"-", "0", F::kDecimalSI},
        CanonicalCase{"0Ki", "0", F::kBinarySI}, CanonicalCase{"-0", "0", F::kDecimalSI},
        CanonicalCase{"0.0", "0", F::kDecimalSI}));

struct ErrorCase {
  const char* input;
  const char* message;
};

class QuantityErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(QuantityErrorTest, RejectsAsKubernetes) {
  absl::StatusOr<Quantity> q = Quantity::Parse(GetParam().input);
  ASSERT_FALSE(q.ok()) << GetParam().input << " parsed as " << q->ToString();
  EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(q.status().message()), HasSubstr(GetParam().message));
}

constexpr char kFormat[] = "quantities must match the regular expression";
constexpr char kSuffix[] = "unable to parse quantity's suffix";
constexpr char kNumeric[] = "unable to parse numeric part of quantity";
constexpr char kRange[] = "out of";

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityErrorTest,
    ::testing::Values(
        ErrorCase{"", kFormat}, ErrorCase{" 1", kFormat}, ErrorCase{"1 ", kFormat},
        ErrorCase{"1.2.3", kFormat}, ErrorCase{"1.1.M", kFormat}, ErrorCase{"1+1.0M", kFormat},
        ErrorCase{"aoeu", kFormat}, ErrorCase{"Three", kFormat}, ErrorCase{"1,3G", kFormat},
        ErrorCase{"1e3k", kFormat}, ErrorCase{"1E3Ki", kFormat}, ErrorCase{"1e+-3", kFormat},
        ErrorCase{"1e1.5", kFormat}, ErrorCase{"--1", kSuffix}, ErrorCase{"0x10", kFormat},
        ErrorCase{"1K", kSuffix}, ErrorCase{"200K", kSuffix}, ErrorCase{"1ki", kSuffix},
        ErrorCase{"1KiB", kFormat}, ErrorCase{"0.1mi", kSuffix}, ErrorCase{"0.1am", kFormat},
        ErrorCase{".5i", kSuffix}, ErrorCase{"1i", kSuffix}, ErrorCase{"-3.01i", kSuffix},
        ErrorCase{"-3.01e-", kSuffix}, ErrorCase{"1e", kSuffix}, ErrorCase{"1e+", kSuffix},
        ErrorCase{"1Ee3", kSuffix}, ErrorCase{"1e99999999999999999999", kSuffix},
        // Digit-less numbers on Kubernetes' slow path.
        ErrorCase{"Ei", kNumeric}, ErrorCase{"Pi", kNumeric}, ErrorCase{"e-10", kNumeric},
        // Beyond what we represent exactly (Kubernetes truncates such exponents to 32 bits).
        ErrorCase{"1e4294967296", kRange}, ErrorCase{"1e9223372036854775807", kRange},
        ErrorCase{"123456789012345678901234567890123456789", kRange},
        ErrorCase{"100e2147483647", kRange}));

TEST(QuantityTest, NvidiaMemoryFacts) {
  EXPECT_LT(Q("46068Mi"), Q("48Gi"));
  EXPECT_EQ(Q("40Gi"), Q("40960Mi"));
  EXPECT_EQ(Q("80Gi").Compare(Q("40Gi")), 1);
  EXPECT_EQ(Q("40Gi").Compare(Q("42949672960")), 0);
  EXPECT_EQ(Q("48Gi").Compare(Q("46068Mi")), 1);
}

struct CompareCase {
  const char* a;
  const char* b;
  int want;
};

class QuantityCompareTest : public ::testing::TestWithParam<CompareCase> {};

TEST_P(QuantityCompareTest, ComparesExactly) {
  const CompareCase& c = GetParam();
  EXPECT_EQ(Q(c.a).Compare(Q(c.b)), c.want) << c.a << " vs " << c.b;
  EXPECT_EQ(Q(c.b).Compare(Q(c.a)), -c.want) << c.b << " vs " << c.a;
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityCompareTest,
    ::testing::Values(CompareCase{"200M", "0.2G", 0}, CompareCase{"50M", "50Mi", -1},
                      CompareCase{"1", "1000m", 0}, CompareCase{"1k", "1e3", 0},
                      CompareCase{"1Ki", "1024", 0}, CompareCase{"1Ki", "1.024k", 0},
                      CompareCase{"-1", "1", -1}, CompareCase{"0", "-0", 0},
                      CompareCase{"-2", "-1", -1}, CompareCase{"1n", "0", 1},
                      CompareCase{"1e2147483647", "9Ei", 1},
                      CompareCase{"-1e2147483647", "-9Ei", -1},
                      CompareCase{"1e-2147483648", "1n", 0},
                      CompareCase{"99999999999999999999999999999999999999", "1e38", -1},
                      CompareCase{"1.000000001", "1", 1}, CompareCase{"999m", "1", -1}));

// Equal values may print differently. PrintsSameAs (same value, same format) promises the same
// printed form, which the memos rely on instead of printing (profile/fleet_memo.cc); the
// converse holds but for zero, which prints "0" in every format.
TEST(QuantityTest, PrintsSameAsPromisesThePrintedForm) {
  const std::vector<std::string> texts = {"40Gi",  "42949672960", "40Gi", "43e9", "43G",
                                          "1500m", "1.5",         "0",    "0Gi"};
  for (const std::string& a : texts) {
    for (const std::string& b : texts) {
      const Quantity qa = *Quantity::Parse(a), qb = *Quantity::Parse(b);
      const bool printed_same = qa.ToString() == qb.ToString();
      if (qa.PrintsSameAs(qb)) {
        EXPECT_TRUE(printed_same) << a << " / " << b;
      }
      if (qa.Sign() != 0) {
        EXPECT_EQ(qa.PrintsSameAs(qb), printed_same) << a << " / " << b;
      }
    }
  }
  EXPECT_TRUE(*Quantity::Parse("40Gi") == *Quantity::Parse("42949672960"));
  EXPECT_FALSE(Quantity::Parse("40Gi")->PrintsSameAs(*Quantity::Parse("42949672960")));
}

TEST(QuantityTest, Sign) {
  EXPECT_EQ(Q("-1Ki").Sign(), -1);
  EXPECT_EQ(Q("0Mi").Sign(), 0);
  EXPECT_EQ(Q("1n").Sign(), 1);
}

TEST(QuantityTest, IntegerConversion) {
  EXPECT_TRUE(Q("50k").IsInteger());
  EXPECT_TRUE(Q("1.5Gi").IsInteger());
  EXPECT_TRUE(Q("1000m").IsInteger());
  EXPECT_FALSE(Q("1500m").IsInteger());
  EXPECT_TRUE(Q("9999999999999999999999999999999999999G").IsInteger());

  ASSERT_OK_AND_ASSIGN(int64_t v, Q("50k").AsInt64());
  EXPECT_EQ(v, 50000);
  ASSERT_OK_AND_ASSIGN(v, Q("1.5Gi").AsInt64());
  EXPECT_EQ(v, 1610612736);
  ASSERT_OK_AND_ASSIGN(v, Q("-7Ei").AsInt64());
  EXPECT_EQ(v, -7 * (int64_t{1} << 60));
  ASSERT_OK_AND_ASSIGN(v, Q("16Ei").AsInt64());  // clamped when parsed
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());

  EXPECT_EQ(Q("1500m").AsInt64().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Q("9999999999999999999999999999999999999G").AsInt64().status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Q("9223372036854775808").AsInt64().status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Q("1e2147483647").AsInt64().status().code(), absl::StatusCode::kOutOfRange);
}

TEST(QuantityTest, ApproximateDouble) {
  EXPECT_DOUBLE_EQ(Q("1.5Gi").AsApproximateDouble(), 1610612736.0);
  EXPECT_DOUBLE_EQ(Q("500m").AsApproximateDouble(), 0.5);
  EXPECT_DOUBLE_EQ(Q("-1e3").AsApproximateDouble(), -1000.0);
  EXPECT_DOUBLE_EQ(Q("1n").AsApproximateDouble(), 1e-9);
  EXPECT_TRUE(std::isinf(Q("1e400").AsApproximateDouble()));
}

TEST(QuantityTest, FromInt) {
  EXPECT_EQ(Quantity::FromInt(1000).ToString(), "1k");
  EXPECT_EQ(Quantity::FromInt(1024, Quantity::Format::kBinarySI).ToString(), "1Ki");
  EXPECT_EQ(Quantity::FromInt(-5, Quantity::Format::kDecimalExponent).ToString(), "-5");
  EXPECT_EQ(Quantity::FromInt(0), Q("0"));
  EXPECT_EQ(Quantity::FromInt(std::numeric_limits<int64_t>::min()).ToString(),
            "-9223372036854775808");
}

struct ArithmeticCase {
  const char* a;
  const char* b;
  const char* sum;
  const char* difference;
};

class QuantityArithmeticTest : public ::testing::TestWithParam<ArithmeticCase> {};

TEST_P(QuantityArithmeticTest, AddsAndSubtractsExactly) {
  const ArithmeticCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(Quantity sum, Q(c.a).Add(Q(c.b)));
  EXPECT_EQ(sum.ToString(), c.sum) << c.a << " + " << c.b;
  ASSERT_OK_AND_ASSIGN(Quantity difference, Q(c.a).Sub(Q(c.b)));
  EXPECT_EQ(difference.ToString(), c.difference) << c.a << " - " << c.b;
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityArithmeticTest,
    ::testing::Values(ArithmeticCase{"50k", "20k", "70k", "30k"},
                      ArithmeticCase{"1Gi", "512Mi", "1536Mi", "512Mi"},
                      ArithmeticCase{"1", "1m", "1001m", "999m"},
                      ArithmeticCase{"1Ki", "1", "1025", "1023"},
                      ArithmeticCase{"1k", "1Ki", "2024", "-24"},
                      ArithmeticCase{"1e3", "1e3", "2e3", "0"},
                      ArithmeticCase{"0", "1Ki", "1Ki", "-1Ki"},  // zero takes the other format
                      ArithmeticCase{"1n", "1n", "2n", "0"},
                      ArithmeticCase{"4Ei", "4Ei", "8Ei", "0"}));

TEST(QuantityTest, ArithmeticKeepsReceiverFormat) {
  ASSERT_OK_AND_ASSIGN(Quantity q, Q("1Gi").Add(Quantity::FromInt(1024 * 1024 * 1024)));
  EXPECT_EQ(q.format(), Quantity::Format::kBinarySI);
  EXPECT_EQ(q.ToString(), "2Gi");
  ASSERT_OK_AND_ASSIGN(q, Q("50k").Add(Quantity::FromInt(20, Quantity::Format::kDecimalExponent)));
  EXPECT_EQ(q.ToString(), "50020");
  EXPECT_EQ(q.format(), Quantity::Format::kDecimalSI);
}

TEST(QuantityTest, ArithmeticOutOfRangeIsAnError) {
  absl::StatusOr<Quantity> q = Q("1e2147483647").Add(Q("1"));
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), absl::StatusCode::kOutOfRange);
  q = Q("99999999999999999999999999999999999999").Add(Q("99999999999999999999999999999999999999"));
  EXPECT_FALSE(q.ok());
  // Far apart but one operand is zero: fine.
  ASSERT_OK_AND_ASSIGN(Quantity big, Q("1e2147483647").Add(Q("0")));
  EXPECT_EQ(big, Q("1e2147483647"));
}

}  // namespace
}  // namespace quantity_test
}  // namespace gpuprofile
