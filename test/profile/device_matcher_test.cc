// File: test/profile/device_matcher_test.cc
#include "controller/profile/device_matcher.h"

#include <string>
#include <tuple>
#include <vector>

#include "controller/dra/device.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_slice.h"
#include "controller/profile/fleet_memo.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::profile {
namespace device_matcher_test {
namespace {

using ::gpuprofile::profile::testing::DefaultSpec;
using ::gpuprofile::profile::testing::LoadInventory;
using ::gpuprofile::profile::testing::Q;
using ::gpuprofile::profile::testing::V;
using ::testing::HasSubstr;

std::vector<CompiledSelectors> CompileAll(const std::vector<api::GpuProfileSpec>& specs) {
  std::vector<CompiledSelectors> out;
  for (const api::GpuProfileSpec& spec : specs) {
    absl::StatusOr<CompiledSelectors> compiled =
        CompileSelectors(spec, *KubeVersion::Parse("1.34"));
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    if (compiled.ok()) out.push_back(*std::move(compiled));
  }
  return out;
}

TEST(DeviceMatcherTest, SharedEvaluationAgreesWithPerDeviceEvaluation) {
  for (const char* path : {testing::kMixedFleet, testing::kSampleFleet}) {
    dra::Inventory inventory = LoadInventory({path});
    std::vector<CompiledSelectors> compiled = CompileAll(testing::VariedSpecs());
    std::vector<const CompiledSelectors*> pointers;
    for (const CompiledSelectors& c : compiled) pointers.push_back(&c);
    pointers.push_back(nullptr);  // an invalid profile
    const std::vector<ProfileMatches> shared = MatchDevices(inventory, pointers);
    const std::vector<ProfileMatches> reference =
        MatchDevices(inventory, pointers, MatchOptions{/*per_device=*/true});
    ASSERT_EQ(shared.size(), reference.size());
    for (size_t p = 0; p < shared.size(); ++p) {
      EXPECT_EQ(shared[p].matched, reference[p].matched) << path << " profile " << p;
      EXPECT_EQ(shared[p].matched_count, reference[p].matched_count);
      EXPECT_EQ(shared[p].error_count, reference[p].error_count);
    }
    EXPECT_EQ(shared.back().matched_count, 0);
  }
}

TEST(DeviceMatcherTest, CountsOnTheMixedFleet) {
  dra::Inventory inventory = LoadInventory({testing::kMixedFleet});
  std::vector<CompiledSelectors> compiled = CompileAll(testing::VariedSpecs());
  std::vector<const CompiledSelectors*> pointers;
  for (const CompiledSelectors& c : compiled) pointers.push_back(&c);
  const std::vector<ProfileMatches> m = MatchDevices(inventory, pointers);
  // Full NVIDIA GPUs (the stale generation's H100 does not count; MIG devices are not gpus).
  EXPECT_EQ(m[0].matched_count, 5);
  // >= 40Gi: two A100 on a100-node-1, the MIG node's parent A100, the L40S (46068Mi).
  EXPECT_EQ(m[1].matched_count, 4);
  // >= 48Gi excludes the L40S.
  EXPECT_EQ(m[2].matched_count, 0);
  EXPECT_EQ(m[3].matched_count, 2);  // the two MIG devices
  // cc >= 8.0 and CUDA >= 12.4: the MIG parent and the T4 lack cudaDriverVersion / cc 7.5.
  EXPECT_EQ(m[4].matched_count, 3);
  EXPECT_EQ(m[5].matched_count, 3);  // full GPUs that publish a uuid
  EXPECT_EQ(m[6].matched_count, 2);  // uuids ending in 1
  // Devices without uuid raise "no such key"; they do not match and are reported.
  EXPECT_EQ(m[7].matched_count, 3);
  EXPECT_EQ(m[7].error_count, 2);
  EXPECT_THAT(m[7].first_error, HasSubstr("spec.selector.cel[0]: no such key: uuid"));
  EXPECT_EQ(m[8].matched_count, 1);  // the AMD GPU
  // Full GPUs that publish a uuid, as the comprehension over the map finds them.
  EXPECT_EQ(m[9].matched_count, m[5].matched_count);
  EXPECT_EQ(m[9].matched, m[5].matched);
}

// A selector that asks only whether a device has an attribute whose value is each device's own
// (a UUID) is evaluated once per class of devices alike in what it reads, not once per device:
// 60 devices of one node, 50 with a UUID each and 10 without, make two evaluations. Reading the
// UUID's value makes one per device with it, and one for those without.
TEST(DeviceMatcherTest, APresenceTestOfAPerDeviceValueIsEvaluatedOncePerClass) {
  dra::ResourceSlice slice = testing::PoolSlice("node-a-gpus", "node-a");
  dra::DeviceSetBuilder builder("gpu.nvidia.com", "node-a", 1, slice.name);
  for (int i = 0; i < 60; ++i) {
    builder.AddDevice("gpu-" + std::to_string(i), "node-a");
    builder.AddAttribute("type", dra::AttributeValue::String("gpu"));
    const std::string uuid = "GPU-" + std::to_string(1000 + i);
    if (i < 50) builder.AddAttribute("uuid", dra::AttributeValue::String(uuid));
  }
  slice.devices = std::move(builder).Build();
  const dra::Inventory inventory =
      dra::Inventory::FromSlices(std::vector<dra::ResourceSlice>{slice});

  api::GpuProfileSpec presence = DefaultSpec();
  presence.selector.cel = {"'uuid' in device.attributes['gpu.nvidia.com']"};
  api::GpuProfileSpec value = DefaultSpec();
  value.selector.cel = {"device.attributes['gpu.nvidia.com'].?uuid.orValue('') != 'GPU-1007'"};
  for (const auto& [spec, evaluations, matched] :
       {std::tuple{presence, 2, 50}, std::tuple{value, 51, 59}}) {
    std::vector<CompiledSelectors> compiled = CompileAll({spec});
    ASSERT_EQ(compiled.size(), 1u);
    FleetMemo memo;
    const std::vector<ProfileMatches> m = MatchDevices(inventory, {&compiled[0]}, {}, &memo);
    EXPECT_EQ(memo.counters().evaluations, evaluations) << spec.selector.cel[0];
    EXPECT_EQ(m[0].matched_count, matched) << spec.selector.cel[0];
  }
}

}  // namespace
}  // namespace device_matcher_test
}  // namespace gpuprofile::profile
