// File: test/dra/device_health_test.cc
#include "controller/dra/device_health.h"

#include <optional>
#include <string>

#include "controller/dra/device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::dra {
namespace device_health_test {
namespace {

using ::testing::HasSubstr;

TEST(DeviceHealthTest, NoTaintIsHealthy) {
  EXPECT_EQ(HealthOf(DeviceBuilder().Build()), DeviceHealth::kHealthy);
}

TEST(DeviceHealthTest, FatalXidAndLostGpuAreUnhealthy) {
  EXPECT_EQ(HealthOf(DeviceBuilder().Taint("gpu.nvidia.com/xid", "79", "NoSchedule").Build()),
            DeviceHealth::kUnhealthy);
  EXPECT_EQ(HealthOf(DeviceBuilder().Taint("gpu.nvidia.com/gpu-lost", "", "NoSchedule").Build()),
            DeviceHealth::kUnhealthy);
}

TEST(DeviceHealthTest, NonFatalXidIsHealthyAndUnmonitoredIsUnknown) {
  EXPECT_EQ(HealthOf(DeviceBuilder().Taint("gpu.nvidia.com/xid", "13", "None").Build()),
            DeviceHealth::kHealthy);
  EXPECT_EQ(HealthOf(DeviceBuilder().Taint("gpu.nvidia.com/unmonitored", "", "None").Build()),
            DeviceHealth::kUnmonitored);
  // The worst taint wins.
  EXPECT_EQ(HealthOf(DeviceBuilder()
                         .Taint("gpu.nvidia.com/unmonitored", "", "None")
                         .Taint("gpu.nvidia.com/xid", "48", "NoSchedule")
                         .Build()),
            DeviceHealth::kUnhealthy);
}

TEST(DeviceHealthTest, AnAdminTaintIsNotAHealthReport) {
  Device device = DeviceBuilder().Taint("example.com/maintenance", "", "NoSchedule").Build();
  EXPECT_EQ(HealthOf(device), DeviceHealth::kHealthy);
  ASSERT_EQ(device.taints().size(), 1u);
  EXPECT_FALSE(IsHealthTaint(device.taints()[0]));
  EXPECT_EQ(DescribeHealthTaint(device.taints()[0]), std::nullopt);
}

TEST(DeviceHealthTest, DescribesXidsInWords) {
  Device device = DeviceBuilder().Taint("gpu.nvidia.com/xid", "79", "NoSchedule").Build();
  std::optional<std::string> words = DescribeHealthTaint(device.taints()[0]);
  ASSERT_TRUE(words.has_value());
  EXPECT_THAT(*words, HasSubstr("XID 79 (the GPU has fallen off the bus)"));
  EXPECT_THAT(*words, HasSubstr("fatal"));
  Device unknown = DeviceBuilder().Taint("gpu.nvidia.com/xid", "999", "None").Build();
  words = DescribeHealthTaint(unknown.taints()[0]);
  ASSERT_TRUE(words.has_value());
  EXPECT_THAT(*words, HasSubstr("XID 999, a non-fatal GPU error"));
  EXPECT_EQ(XidMeaning("999"), "");
}

}  // namespace
}  // namespace device_health_test
}  // namespace gpuprofile::dra
