// File: test/profile/device_reads_test.cc
// Devices decoded with only the attributes AttributesRead(plan) names must give the engine's
// exact result on whole devices. Checked over the test fleets with attributes nobody reads
// added (a per-device string, an int in another domain, a list and an unknown kind, which must
// be kept), for each varied spec alone and for them all, on a release that reads list
// attributes and on one that does not.
#include "controller/profile/device_reads.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/dra/slice_fast_decoder.h"
#include "controller/profile/engine.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace device_reads_test {
namespace {

using ::gpuprofile::profile::testing::DescribeState;

// The test fleets as one JSON list, every device given attributes that no spec reads.
std::string FleetListText() {
  nlohmann::json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::json::array()}};
  int n = 0;
  for (nlohmann::json slice : testing::FleetJson()) {
    for (nlohmann::json& device : slice["spec"]["devices"]) {
      nlohmann::json& body = device.contains("basic") ? device["basic"] : device;
      nlohmann::json& attributes = body["attributes"];
      ++n;
      attributes["serial"] = {{"string", absl::StrCat("S-", n)}};
      attributes["example.com/rack"] = {{"int", n % 7}};
      if (n % 5 == 0) attributes["lanes"] = {{"ints", {1, 2}}};
      if (n % 9 == 0) attributes["blob"] = {{"bytes", "AAA="}};
    }
    list["items"].push_back(std::move(slice));
  }
  return list.dump();
}

struct Decoded {
  dra::Inventory inventory;
  int attributes = 0;  // over every device
  int serials = 0;     // devices that kept "serial"
};

Decoded Decode(const std::string& text, const dra::AttributeDemand& demand) {
  std::string copy = text;
  dra::FastDecodeResult result = dra::FastDecodeSliceJson(&copy, demand);
  EXPECT_TRUE(result.handled);
  std::vector<dra::ResourceSlice> slices;
  Decoded out;
  for (dra::FastDecodedSlice& d : result.slices) {
    for (const dra::Device& device : d.slice.devices) {
      for (const dra::NamedAttribute& a : device.attributes()) {
        ++out.attributes;
        if (a.name == "serial") ++out.serials;
      }
    }
    slices.push_back(std::move(d.slice));
  }
  out.inventory = dra::Inventory::FromSlices(std::move(slices));
  return out;
}

TEST(DeviceReadsTest, DevicesWithOnlyTheAttributesReadGiveTheSameState) {
  const std::string text = FleetListText();
  const Decoded whole = Decode(text, dra::AttributeDemand());
  ASSERT_GE(whole.serials, 20);
  const std::vector<api::GpuProfileSpec> varied = testing::VariedSpecs();
  std::vector<std::vector<api::GpuProfileSpec>> spec_sets;
  std::vector<api::GpuProfileSpec> reducible;
  for (const api::GpuProfileSpec& spec : varied) {
    spec_sets.push_back({spec});
    // The one spec that reads a whole attribute map makes every attribute read.
    if (spec.selector.cel.empty() || spec.selector.cel[0].find(".exists(") == std::string::npos) {
      reducible.push_back(spec);
    }
  }
  ASSERT_EQ(reducible.size() + 1, varied.size());
  spec_sets.push_back(reducible);
  spec_sets.push_back(varied);
  for (const char* kube : {"1.34", "1.37"}) {
    for (size_t i = 0; i < spec_sets.size(); ++i) {
      const SpecPlan plan = PlanProfiles(testing::ProfilesInput(spec_sets[i], kube));
      const dra::AttributeDemand demand = AttributesRead(plan);
      const Decoded part = Decode(text, demand);
      if (!demand.everything()) {
        EXPECT_EQ(part.serials, 0) << "set " << i;
        EXPECT_LT(part.attributes, whole.attributes) << "set " << i;
      }
      EXPECT_EQ(DescribeState(AssembleDesiredState(plan, part.inventory)),
                DescribeState(AssembleDesiredState(plan, whole.inventory)))
          << "release " << kube << ", spec set " << i;
    }
  }
}

TEST(DeviceReadsTest, NamesWhatSelectorsAndNodeGroupsRead) {
  api::GpuProfileSpec spec = testing::DefaultSpec();
  spec.selector.cel = {"device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0'",
                       "'uuid' in device.attributes['gpu.nvidia.com']"};
  const dra::AttributeDemand demand =
      AttributesRead(PlanProfiles(testing::ProfilesInput({spec}, "1.34")));
  ASSERT_FALSE(demand.everything());
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "resource.kubernetes.io/pcieRoot"));
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "uuid"));  // tested for presence
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "gpu.nvidia.com/uuid"));
  EXPECT_FALSE(demand.Wants("dra.example.com", "uuid"));  // another driver's domain
  // The node groups' signature, of any driver.
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "productName"));
  EXPECT_TRUE(demand.Wants("gpu.nvidia.com", "driverVersion"));
  EXPECT_TRUE(demand.Wants("dra.example.com", "model"));
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "resource.kubernetes.io/pciBusID"));
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "serial"));
}

TEST(DeviceReadsTest, ASelectorReadingAWholeMapReadsEverything) {
  api::GpuProfileSpec spec = testing::DefaultSpec();
  spec.selector.cel = {"device.attributes['gpu.nvidia.com'].exists(k, k == 'uuid')"};
  EXPECT_TRUE(AttributesRead(PlanProfiles(testing::ProfilesInput({spec}, "1.34"))).everything());
}

TEST(DeviceReadsTest, AStalledProfileReadsNothing) {
  api::GpuProfileSpec spec = testing::DefaultSpec();
  spec.selector.cel = {"device.attributes['gpu.nvidia.com'].serial == "};  // does not compile
  const dra::AttributeDemand demand =
      AttributesRead(PlanProfiles(testing::ProfilesInput({spec}, "1.34")));
  ASSERT_FALSE(demand.everything());
  EXPECT_FALSE(demand.Wants("gpu.nvidia.com", "serial"));
}

}  // namespace
}  // namespace device_reads_test
}  // namespace gpuprofile::profile
