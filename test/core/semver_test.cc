// File: test/core/semver_test.cc
#include "controller/core/semver.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile {
namespace semver_test {
namespace {

using ::testing::ElementsAre;

Semver V(const std::string& text) {
  absl::StatusOr<Semver> v = Semver::ParseStrict(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : Semver();
}

struct ValidCase {
  const char* input;
  uint64_t major, minor, patch;
  const char* printed;
};

class SemverStrictValidTest : public ::testing::TestWithParam<ValidCase> {};

TEST_P(SemverStrictValidTest, Parses) {
  const ValidCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(Semver v, Semver::ParseStrict(c.input));
  EXPECT_EQ(v.major(), c.major);
  EXPECT_EQ(v.minor(), c.minor);
  EXPECT_EQ(v.patch(), c.patch);
  EXPECT_EQ(v.ToString(), c.printed);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SemverStrictValidTest,
    ::testing::Values(
        ValidCase{"0.0.0", 0, 0, 0, "0.0.0"}, ValidCase{"1.2.3", 1, 2, 3, "1.2.3"},
        ValidCase{"8.0.0", 8, 0, 0, "8.0.0"}, ValidCase{"550.54.15", 550, 54, 15, "550.54.15"},
        ValidCase{"1.0.0-alpha", 1, 0, 0, "1.0.0-alpha"},
        ValidCase{"1.0.0-alpha.1", 1, 0, 0, "1.0.0-alpha.1"},
        ValidCase{"1.0.0-0.3.7", 1, 0, 0, "1.0.0-0.3.7"},
        ValidCase{"1.0.0-x.7.z.92", 1, 0, 0, "1.0.0-x.7.z.92"},
        ValidCase{"1.0.0-rc-1", 1, 0, 0, "1.0.0-rc-1"},
        ValidCase{"1.0.0--", 1, 0, 0, "1.0.0--"},
        ValidCase{"1.0.0-01a", 1, 0, 0, "1.0.0-01a"},  // alphanumeric: leading zero allowed
        ValidCase{"1.0.0+20130313144700", 1, 0, 0, "1.0.0+20130313144700"},
        ValidCase{"1.0.0-beta+exp.sha.5114f85", 1, 0, 0, "1.0.0-beta+exp.sha.5114f85"},
        ValidCase{"1.0.0+001", 1, 0, 0, "1.0.0+001"},  // build ids may have leading zeros
        ValidCase{"18446744073709551615.0.0", 18446744073709551615u, 0, 0,
                  "18446744073709551615.0.0"}));

struct ErrorCase {
  const char* input;
  const char* message;
};

class SemverStrictErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SemverStrictErrorTest, RejectsAsBlang) {
  absl::StatusOr<Semver> v = Semver::ParseStrict(GetParam().input);
  ASSERT_FALSE(v.ok()) << GetParam().input;
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(v.status().message(), GetParam().message) << GetParam().input;
}

INSTANTIATE_TEST_SUITE_P(
    Table, SemverStrictErrorTest,
    ::testing::Values(
        ErrorCase{"", "Version string empty"},
        ErrorCase{"8.0", "No Major.Minor.Patch elements found"},
        ErrorCase{"1", "No Major.Minor.Patch elements found"},
        ErrorCase{"550.54.05", "Patch number must not contain leading zeroes \"05\""},
        ErrorCase{"01.0.0", "Major number must not contain leading zeroes \"01\""},
        ErrorCase{"1.00.0", "Minor number must not contain leading zeroes \"00\""},
        ErrorCase{"v1.0.0", "Invalid character(s) found in major number \"v1\""},
        ErrorCase{"1.x.0", "Invalid character(s) found in minor number \"x\""},
        ErrorCase{"1.2.3.4", "Invalid character(s) found in patch number \"3.4\""},
        ErrorCase{"1.2.3 ", "Invalid character(s) found in patch number \"3 \""},
        ErrorCase{" 1.2.3", "Invalid character(s) found in major number \" 1\""},
        ErrorCase{"1..3", "strconv.ParseUint: parsing \"\": invalid syntax"},
        ErrorCase{"1.2.", "strconv.ParseUint: parsing \"\": invalid syntax"},
        ErrorCase{"18446744073709551616.0.0",
                  "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"},
        ErrorCase{"1.0.0-", "Prerelease is empty"},
        ErrorCase{"1.0.0-a..b", "Prerelease is empty"},
        ErrorCase{"1.0.0-01", "Numeric PreRelease version must not contain leading zeroes \"01\""},
        ErrorCase{"1.0.0-a_b", "Invalid character(s) found in prerelease \"a_b\""},
        ErrorCase{"1.0.0+", "Build meta data is empty"},
        ErrorCase{"1.0.0+a+b", "Invalid character(s) found in build meta data \"a+b\""},
        ErrorCase{"1.0.0-99999999999999999999",
                  "strconv.ParseUint: parsing \"99999999999999999999\": value out of range"},
        ErrorCase{"200K", "No Major.Minor.Patch elements found"},
        ErrorCase{"Three", "No Major.Minor.Patch elements found"}));

TEST(SemverTest, PrereleaseAndBuildParts) {
  Semver v = V("1.0.0-rc.1+build.5");
  EXPECT_THAT(v.prerelease(), ElementsAre("rc", "1"));
  EXPECT_THAT(v.build(), ElementsAre("build", "5"));
  EXPECT_EQ(v.ToString(), "1.0.0-rc.1+build.5");
}

struct NormalizedCase {
  const char* input;
  const char* normalized;  // nullptr: an error
};

class SemverNormalizedTest : public ::testing::TestWithParam<NormalizedCase> {};

TEST_P(SemverNormalizedTest, NormalizesAsKubernetes) {
  const NormalizedCase& c = GetParam();
  absl::StatusOr<Semver> v = Semver::ParseNormalized(c.input);
  if (c.normalized == nullptr) {
    EXPECT_FALSE(v.ok()) << c.input << " -> " << v->ToString();
    return;
  }
  ASSERT_TRUE(v.ok()) << c.input << ": " << v.status();
  EXPECT_EQ(v->ToString(), c.normalized);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SemverNormalizedTest,
    ::testing::Values(NormalizedCase{"550.54.05", "550.54.5"}, NormalizedCase{"8.0", "8.0.0"},
                      NormalizedCase{"8", "8.0.0"}, NormalizedCase{"v1.0.0", "1.0.0"},
                      NormalizedCase{"v1.0", "1.0.0"}, NormalizedCase{"01.01.01", "1.1.1"},
                      NormalizedCase{"1.0.0", "1.0.0"}, NormalizedCase{"00.000.0", "0.0.0"},
                      NormalizedCase{"1.2.03-rc.1", "1.2.3-rc.1"},
                      NormalizedCase{"1.2.0-rc", "1.2.0-rc"},
                      NormalizedCase{"1.2.00-rc", "1.2.0-rc"},  // "-rc" gets its 0 back
                      NormalizedCase{"1.2.3+001", "1.2.3+001"},
                      NormalizedCase{"1.0-rc", nullptr},  // short version with prerelease
                      NormalizedCase{"1+b", nullptr}, NormalizedCase{"vv1.0.0", nullptr},
                      NormalizedCase{"V1.0.0", nullptr}, NormalizedCase{" 1.0.0", nullptr},
                      NormalizedCase{"1.0.0-01", nullptr}, NormalizedCase{"", nullptr},
                      NormalizedCase{"v", nullptr}, NormalizedCase{"Three", nullptr}));

TEST(SemverTest, NormalizedShortVersionMessage) {
  absl::StatusOr<Semver> v = Semver::ParseNormalized("1.0-rc");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "short version cannot contain PreRelease/Build meta data");
}

// Each list is in ascending precedence (semver.org §11).
TEST(SemverTest, PrecedenceOrder) {
  const std::vector<std::string> ordered = {
      "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",  "1.0.0-beta.2",
      "1.0.0-beta.11", "1.0.0-rc.1",  "1.0.0",            "1.0.1",       "1.1.0",
      "1.10.0",      "2.0.0",         "8.0.0",            "550.54.5",    "550.54.15",
      "560.0.0"};
  for (size_t i = 0; i < ordered.size(); ++i) {
    for (size_t j = 0; j < ordered.size(); ++j) {
      const int want = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(V(ordered[i]).Compare(V(ordered[j])), want) << ordered[i] << " vs " << ordered[j];
    }
  }
}

TEST(SemverTest, PrereleaseIdentifierRules) {
  EXPECT_LT(V("1.0.0-2"), V("1.0.0-10"));        // numeric compare numerically
  EXPECT_LT(V("1.0.0-10"), V("1.0.0-a"));        // numeric before alphanumeric
  EXPECT_LT(V("1.0.0-B"), V("1.0.0-a"));         // ASCII order
  EXPECT_LT(V("1.0.0-a"), V("1.0.0-a.0"));       // longer set is greater
  EXPECT_LT(V("1.0.0-18446744073709551614"), V("1.0.0-18446744073709551615"));
}

TEST(SemverTest, BuildMetadataIsIgnored) {
  EXPECT_EQ(V("1.0.0+a"), V("1.0.0+b"));
  EXPECT_EQ(V("1.0.0-rc.1+a"), V("1.0.0-rc.1"));
  EXPECT_NE(V("1.0.0-rc.1"), V("1.0.0"));
}

TEST(SemverTest, NvidiaFacts) {
  ASSERT_OK_AND_ASSIGN(Semver driver, Semver::ParseNormalized("550.54.05"));
  EXPECT_EQ(driver, V("550.54.5"));
  EXPECT_GT(driver.Compare(V("550.0.0")), 0);
  ASSERT_OK_AND_ASSIGN(Semver cc, Semver::ParseNormalized("8.0"));
  EXPECT_EQ(cc, V("8.0.0"));
  EXPECT_LT(V("7.5.0"), cc);
  EXPECT_LT(cc, V("9.0.0"));
  EXPECT_FALSE(Semver::ParseStrict("8.0").ok());
  EXPECT_FALSE(Semver::ParseStrict("550.54.05").ok());
}

}  // namespace
}  // namespace semver_test
}  // namespace gpuprofile
