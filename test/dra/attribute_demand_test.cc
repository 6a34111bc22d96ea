// File: test/dra/attribute_demand_test.cc
#include "controller/dra/attribute_demand.h"

#include "gtest/gtest.h"

namespace gpuprofile::dra {
namespace attribute_demand_test {
namespace {

TEST(AttributeDemandTest, WantsEverythingByDefault) {
  const AttributeDemand demand;
  EXPECT_TRUE(demand.everything());
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "uuid"));
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "example.com/anything"));
}

TEST(AttributeDemandTest, UnqualifiedNamesAreInTheDriversDomain) {
  AttributeDemand demand = AttributeDemand::Nothing();
  EXPECT_FALSE(demand.everything());
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "productName"));
  demand.Want("gpu.nvidia.com", "productName");
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "productName"));
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "gpu.nvidia.com/productName"));
  // Another driver's unqualified name is in its own domain; a qualified one names the domain.
  EXPECT_FALSE(demand.Wants("gpu.amd.com", "productName"));
  EXPECT_TRUE(demand.Wants("gpu.amd.com", "gpu.nvidia.com/productName"));
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "productname"));
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "example.com/productName"));
}

TEST(AttributeDemandTest, QualifiedNamesOfOtherDomains) {
  AttributeDemand demand = AttributeDemand::Nothing();
  demand.Want("resource.kubernetes.io", "pcieRoot");
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "resource.kubernetes.io/pcieRoot"));
  EXPECT_TRUE(demand.Wants("gpu.amd.com", "resource.kubernetes.io/pcieRoot"));
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "pcieRoot"));
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "resource.kubernetes.io/pciBusID"));
}

TEST(AttributeDemandTest, AnIdOfEveryDriverIsInEachDriversOwnDomainOnly) {
  AttributeDemand demand = AttributeDemand::Nothing();
  demand.WantOfEveryDriver("driverVersion");
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "driverVersion"));
  EXPECT_TRUE(demand.Wants("dra.example.com", "driverVersion"));
  EXPECT_TRUE(demand.Wants("dra.example.com", "dra.example.com/driverVersion"));
  EXPECT_FALSE(demand.Wants("dra.example.com", "gpu.nvidia.com/driverVersion"));
}

}  // namespace
}  // namespace attribute_demand_test
}  // namespace gpuprofile::dra
