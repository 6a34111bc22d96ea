// File: test/profile/request_policy_test.cc
// status.schedulableClaims and status.allocation.freeClaims follow each capacity's
// requestPolicy as the scheduler does: requests round up (validValues, validRange min/step), a
// request above the range's max fits nowhere, and a capacity the claim does not request consumes
// the policy's default, or the whole capacity without a policy.
#include <optional>
#include <string>
#include <vector>

#include "controller/dra/device.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_slice.h"
#include "controller/profile/engine.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace request_policy_test {
namespace {

using ::gpuprofile::profile::testing::DefaultSpec;
using ::gpuprofile::profile::testing::MakeProfile;
using ::gpuprofile::profile::testing::Q;

dra::CapacityRequestPolicy Range(const char* min, std::optional<const char*> max,
                                 std::optional<const char*> step) {
  dra::CapacityRequestPolicy p;
  p.valid_range = dra::CapacityRequestPolicy::Range{Q(min), std::nullopt, std::nullopt};
  if (max) p.valid_range->max = Q(*max);
  if (step) p.valid_range->step = Q(*step);
  return p;
}

// One shared GPU (allowMultipleAllocations) with 48Gi of memory under `memory_policy`, and a
// `shares` capacity of 4 under `shares_policy` when `with_shares`.
struct SharedGpu {
  std::optional<dra::CapacityRequestPolicy> memory_policy;
  bool with_shares = false;
  std::optional<dra::CapacityRequestPolicy> shares_policy;
};

SharedGpu Memory(dra::CapacityRequestPolicy policy) {
  SharedGpu gpu;
  gpu.memory_policy = std::move(policy);
  return gpu;
}

dra::Inventory InventoryOf(const SharedGpu& gpu) {
  dra::ResourceSlice slice = testing::PoolSlice("node-a-gpu", "node-a");
  dra::DeviceSetBuilder b("gpu.nvidia.com", "node-a", 1, slice.name);
  b.AddDevice("gpu-0", "node-a");
  b.SetAllowMultipleAllocations(true);
  b.AddAttribute("type", dra::AttributeValue::String("gpu"));
  b.AddCapacity("memory", Q("48Gi"), gpu.memory_policy ? &*gpu.memory_policy : nullptr);
  if (gpu.with_shares) {
    b.AddCapacity("shares", Q("4"), gpu.shares_policy ? &*gpu.shares_policy : nullptr);
  }
  slice.devices = std::move(b).Build();
  return dra::Inventory::FromSlices(std::vector<dra::ResourceSlice>{slice});
}

// status.schedulableClaims of a profile requesting `memory` of the GPU.
int64_t ClaimsFor(const SharedGpu& gpu, const char* memory) {
  EngineInput input;
  input.kube_version = *KubeVersion::Parse("1.36");
  api::GpuProfileSpec spec = DefaultSpec("shared");
  spec.capacity_requests = {{"memory", Q(memory)}};
  input.profiles.push_back(MakeProfile("shared", spec));
  const dra::Inventory inventory = InventoryOf(gpu);
  const DesiredState state = ComputeDesiredState(input, inventory);
  const api::GpuProfileStatus& status = state.profiles.at(0).profile.status;
  EXPECT_TRUE(status.schedulable_claims.has_value());
  EXPECT_EQ(status.allocation.free_claims, status.schedulable_claims);  // no claims
  return status.schedulable_claims.value_or(-1);
}

TEST(RequestPolicyTest, WithoutAPolicyTheRequestIsTaken) {
  EXPECT_EQ(ClaimsFor(SharedGpu(), "9Gi"), 5);
  EXPECT_EQ(ClaimsFor(SharedGpu(), "48Gi"), 1);
  EXPECT_EQ(ClaimsFor(SharedGpu(), "49Gi"), 0);  // not even matched: the selector asks for 49Gi
}

TEST(RequestPolicyTest, StepsRoundTheRequestUp) {
  // 9Gi rounds to min + 1 step = 16Gi: three claims fit in 48Gi, not five.
  EXPECT_EQ(ClaimsFor(Memory(Range("8Gi", std::nullopt, "8Gi")), "9Gi"), 3);
  EXPECT_EQ(ClaimsFor(Memory(Range("8Gi", std::nullopt, "8Gi")), "8Gi"), 6);
}

TEST(RequestPolicyTest, BelowTheRangeTheMinimumIsTaken) {
  EXPECT_EQ(ClaimsFor(Memory(Range("8Gi", std::nullopt, std::nullopt)), "1Gi"), 6);
}

TEST(RequestPolicyTest, AboveTheRangeTheDeviceTakesNoClaim) {
  EXPECT_EQ(ClaimsFor(Memory(Range("8Gi", "16Gi", "8Gi")), "20Gi"), 0);
  EXPECT_EQ(ClaimsFor(Memory(Range("8Gi", "16Gi", "8Gi")), "16Gi"), 3);
}

TEST(RequestPolicyTest, ValidValuesRoundUp) {
  dra::CapacityRequestPolicy values;
  values.valid_values = {Q("12Gi"), Q("24Gi")};
  EXPECT_EQ(ClaimsFor(Memory(values), "11Gi"), 4);
  EXPECT_EQ(ClaimsFor(Memory(values), "13Gi"), 2);
  EXPECT_EQ(ClaimsFor(Memory(values), "25Gi"), 0);
}

TEST(RequestPolicyTest, AnUnrequestedCapacityConsumesItsDefault) {
  dra::CapacityRequestPolicy shares = Range("1", "4", "1");
  shares.default_value = Q("1");
  // memory alone would allow 48 claims of 1Gi; each also takes one of the four shares.
  EXPECT_EQ(ClaimsFor({std::nullopt, true, shares}, "1Gi"), 4);
  shares.default_value = Q("2");
  EXPECT_EQ(ClaimsFor({std::nullopt, true, shares}, "1Gi"), 2);
  shares.default_value = Q("0");  // a claim that does not ask takes none
  EXPECT_EQ(ClaimsFor({std::nullopt, true, shares}, "1Gi"), 48);
}

TEST(RequestPolicyTest, AnUnrequestedCapacityWithoutPolicyIsTakenWhole) {
  EXPECT_EQ(ClaimsFor({std::nullopt, true, std::nullopt}, "1Gi"), 1);
  // A policy without a default: the whole capacity too.
  EXPECT_EQ(ClaimsFor({std::nullopt, true, Range("1", "4", "1")}, "1Gi"), 1);
}

}  // namespace
}  // namespace request_policy_test
}  // namespace gpuprofile::profile
