// File: test/profile/device_matcher_test.cc
#include "controller/profile/device_matcher.h"

#include <string>
#include <vector>

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
}

}  // namespace
}  // namespace device_matcher_test
}  // namespace gpuprofile::profile
