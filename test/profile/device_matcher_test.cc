// File: test/profile/device_matcher_test.cc
#include "controller/profile/device_matcher.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::profile {
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

std::vector<api::GpuProfileSpec> Specs() {
  std::vector<api::GpuProfileSpec> specs;
  specs.push_back(DefaultSpec());
  api::GpuProfileSpec large = DefaultSpec();
  large.selector.memory = api::QuantityRange{Q("40Gi"), std::nullopt};
  specs.push_back(large);
  api::GpuProfileSpec xl = DefaultSpec();
  xl.selector.memory = api::QuantityRange{Q("48Gi"), std::nullopt};
  specs.push_back(xl);
  api::GpuProfileSpec mig = DefaultSpec();
  mig.device_type = "mig";
  specs.push_back(mig);
  api::GpuProfileSpec cc = DefaultSpec();
  cc.selector.compute_capability = api::VersionRange{V("8.0"), std::nullopt};
  cc.selector.cuda_driver_version = api::VersionRange{V("12.4"), std::nullopt};
  specs.push_back(cc);
  // Not reducible to named reads: evaluated per device.
  api::GpuProfileSpec whole_map = DefaultSpec();
  whole_map.selector.cel = {"device.attributes['gpu.nvidia.com'].exists(k, k == 'uuid')"};
  specs.push_back(whole_map);
  // Reads a per-device value: reducible, but every device is its own class.
  api::GpuProfileSpec by_uuid = DefaultSpec();
  by_uuid.selector.cel = {
      "'uuid' in device.attributes['gpu.nvidia.com'] && "
      "device.attributes['gpu.nvidia.com'].uuid.endsWith('1')"};
  specs.push_back(by_uuid);
  // Raises "no such key" on devices without uuid.
  api::GpuProfileSpec raising = DefaultSpec();
  raising.selector.cel = {"device.attributes['gpu.nvidia.com'].uuid.startsWith('GPU-')"};
  specs.push_back(raising);
  api::GpuProfileSpec amd = DefaultSpec();
  amd.driver = "gpu.amd.com";
  specs.push_back(amd);
  return specs;
}

TEST(DeviceMatcherTest, SharedEvaluationAgreesWithPerDeviceEvaluation) {
  for (const char* path : {testing::kMixedFleet, testing::kSampleFleet}) {
    dra::Inventory inventory = LoadInventory({path});
    std::vector<CompiledSelectors> compiled = CompileAll(Specs());
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
  std::vector<CompiledSelectors> compiled = CompileAll(Specs());
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
}

}  // namespace
}  // namespace gpuprofile::profile
