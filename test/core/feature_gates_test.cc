// File: test/core/feature_gates_test.cc
#include "controller/core/feature_gates.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile {
namespace feature_gates_test {
namespace {

using ::testing::HasSubstr;

KubeVersion V(int minor) { return KubeVersion{minor}; }

struct DefaultCase {
  const char* gate;
  int minor;
  bool enabled;
};

class GateDefaultTest : public ::testing::TestWithParam<DefaultCase> {};

TEST_P(GateDefaultTest, ReleaseDefault) {
  const DefaultCase& c = GetParam();
  EXPECT_EQ(FeatureGates(V(c.minor)).Enabled(c.gate), c.enabled) << c.gate << " on 1." << c.minor;
}

INSTANTIATE_TEST_SUITE_P(
    Table, GateDefaultTest,
    ::testing::Values(DefaultCase{kDRAConsumableCapacity, 34, false},
                      DefaultCase{kDRAConsumableCapacity, 35, false},
                      DefaultCase{kDRAConsumableCapacity, 36, true},
                      DefaultCase{kDRAConsumableCapacity, 37, true},
                      DefaultCase{kDRAConsumableCapacity, 33, false},  // not yet a gate
                      DefaultCase{kDRAListTypeAttributes, 36, false},
                      DefaultCase{kDRAListTypeAttributes, 37, false},
                      DefaultCase{kDRADeviceTaints, 35, false},
                      DefaultCase{kDRADeviceTaints, 36, true},
                      DefaultCase{kDRAPartitionableDevices, 35, false},
                      DefaultCase{kDRAPartitionableDevices, 36, true},
                      DefaultCase{kDRAPrioritizedList, 33, false},
                      DefaultCase{kDRAPrioritizedList, 34, true},
                      DefaultCase{kDRAAdminAccess, 33, false},
                      DefaultCase{kDRAAdminAccess, 34, true},
                      DefaultCase{kDRAExtendedResource, 35, false},
                      DefaultCase{kDRAExtendedResource, 37, true},
                      DefaultCase{kDRADeviceTaintRules, 36, false},
                      DefaultCase{kDRADeviceTaintRules, 37, true},
                      DefaultCase{"NoSuchGate", 37, false}));

TEST(FeatureGatesTest, ParseOverridesDefaults) {
  absl::StatusOr<FeatureGates> gates =
      FeatureGates::Parse(V(36), " DRAListTypeAttributes=true , DRAConsumableCapacity=false");
  ASSERT_TRUE(gates.ok()) << gates.status();
  EXPECT_TRUE(gates->Enabled(kDRAListTypeAttributes));
  EXPECT_FALSE(gates->Enabled(kDRAConsumableCapacity));
  EXPECT_TRUE(gates->Overridden(kDRAListTypeAttributes));
  EXPECT_FALSE(gates->Overridden(kDRADeviceTaints));
  EXPECT_TRUE(gates->Enabled(kDRADeviceTaints));
  EXPECT_EQ(gates->OverridesString(), "DRAConsumableCapacity=false,DRAListTypeAttributes=true");
}

TEST(FeatureGatesTest, EmptyTextMeansDefaults) {
  absl::StatusOr<FeatureGates> gates = FeatureGates::Parse(V(35), "");
  ASSERT_TRUE(gates.ok());
  EXPECT_EQ(gates->OverridesString(), "");
}

struct BadCase {
  int minor;
  const char* text;
  const char* message;
};

class GateParseErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(GateParseErrorTest, NamesTheItem) {
  const BadCase& c = GetParam();
  absl::StatusOr<FeatureGates> gates = FeatureGates::Parse(V(c.minor), c.text);
  ASSERT_FALSE(gates.ok()) << c.text;
  EXPECT_EQ(gates.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(gates.status().message(), HasSubstr(c.message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, GateParseErrorTest,
    ::testing::Values(
        BadCase{36, "DRAFoo=true", "unrecognized feature gate \"DRAFoo\""},
        BadCase{35, "DRAListTypeAttributes=true",
                "DRAListTypeAttributes is not a feature gate of Kubernetes 1.35; it exists from "
                "1.36"},
        BadCase{36, "DRAConsumableCapacity=yes", "the value must be true or false"},
        BadCase{36, "DRAConsumableCapacity", "expected NAME=true or NAME=false"},
        BadCase{37, "DRAExtendedResource=false",
                "cannot set feature gate DRAExtendedResource to false, feature is locked to "
                "true"},
        BadCase{36, "DRAAdminAccess=false", "locked to true in Kubernetes 1.36"}));

TEST(KubeVersionTest, AcceptsEveryModelledMinor) {
  for (int minor = KubeVersion::kOldestMinor; minor <= KubeVersion::kNewestMinor; ++minor) {
    std::string text = "1." + std::to_string(minor);
    absl::StatusOr<KubeVersion> v = KubeVersion::Parse(text);
    ASSERT_TRUE(v.ok()) << text << ": " << v.status();
    EXPECT_EQ(v->minor, minor);
  }
  EXPECT_EQ(KubeVersion::kNewestMinor, 37);
}

TEST(KubeVersionTest, NewerThanNewestNamesTheNewest) {
  absl::StatusOr<KubeVersion> v = KubeVersion::Parse("1.38");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("newer than Kubernetes 1.37"));
  EXPECT_FALSE(KubeVersion::Parse("1.31").ok());
}

}  // namespace
}  // namespace feature_gates_test
}  // namespace gpuprofile
