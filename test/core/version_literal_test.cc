// File: test/core/version_literal_test.cc
#include "controller/core/version_literal.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile {
namespace version_literal_test {
namespace {

struct Case {
  std::string in;
  std::string want;  // empty: an error
};

class VersionLiteralTest : public ::testing::TestWithParam<Case> {};

TEST_P(VersionLiteralTest, Normalises) {
  absl::StatusOr<Semver> got = NormalizeVersionLiteral(GetParam().in);
  if (GetParam().want.empty()) {
    EXPECT_FALSE(got.ok()) << got->ToString();
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->ToString(), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Literals, VersionLiteralTest,
    ::testing::Values(Case{"8.0", "8.0.0"}, Case{"12", "12.0.0"}, Case{"550.54.05", "550.54.5"},
                      Case{"580.95.05", "580.95.5"}, Case{"v12.4", "12.4.0"},
                      Case{"8.9.0", "8.9.0"}, Case{"1.2.3-rc.1", "1.2.3-rc.1"},
                      Case{"007.01", "7.1.0"}, Case{"", ""}, Case{" 8.0", ""},
                      Case{"8.0 ", ""}, Case{"eight", ""}, Case{"8.x", ""},
                      Case{"1.2-rc.1", ""}, Case{"1.2.3.4", ""}));

}  // namespace
}  // namespace version_literal_test
}  // namespace gpuprofile
