// File: test/profile/device_states_test.cc
// status.allocation.deviceStates and status.nodeGroups[].deviceStates: every matched device is
// in exactly one state, so the states add up to the matched devices, and `free` is
// allocation.freeDevices. Checked on fixed fleets and over randomised ones (seeded) with MIG
// counters, taints, incomplete pools and claims.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "controller/api/gpu_profile.h"
#include "controller/dra/device.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_slice.h"
#include "controller/profile/engine.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace device_states_test {
namespace {

using ::gpuprofile::profile::testing::DefaultSpec;
using ::gpuprofile::profile::testing::MakeProfile;
using ::gpuprofile::profile::testing::Q;

constexpr char kDriver[] = "gpu.nvidia.com";

// One node's GPU as the NVIDIA driver publishes it with DynamicMIG: a counters slice and a
// devices slice with the whole GPU and `migs` 1g placements (5Gi, 14 SMs each of 40Gi, 98).
struct NodeShape {
  int migs = 7;
  bool taint_whole = false;  // an XID 79 NoSchedule taint on the whole GPU
  bool taint_first = false;  // the same on the first placement
  bool incomplete = false;   // the pool announces a slice that is missing
  bool no_counters = false;  // the counters slice is missing (and not announced)
  bool plain = false;        // a GPU without counters (no MIG)
};

void AddNode(const std::string& node, const NodeShape& shape,
             std::vector<dra::ResourceSlice>* out) {
  const int64_t announced = (shape.plain || shape.no_counters ? 1 : 2) + (shape.incomplete ? 1 : 0);
  if (!shape.plain && !shape.no_counters) {
    dra::ResourceSlice counters = testing::PoolSlice(node + "-counters", node, announced, kDriver);
    dra::CounterSet set;
    set.name = "gpu-0-counter-set";
    set.counters = {{"memory", Q("40Gi")}, {"multiprocessors", Q("98")}};
    counters.shared_counters.push_back(set);
    out->push_back(std::move(counters));
  }
  dra::ResourceSlice devices = testing::PoolSlice(node + "-gpu-0", node, announced, kDriver);
  dra::DeviceSetBuilder b(kDriver, node, 1, devices.name);
  b.AddDevice("gpu-0", node);
  b.AddAttribute("type", dra::AttributeValue::String("gpu"));
  b.AddAttribute("productName", dra::AttributeValue::String("NVIDIA A100-SXM4-40GB"));
  b.AddCapacity("memory", Q("40Gi"));
  if (shape.taint_whole) b.AddTaint("gpu.nvidia.com/xid", "79", "NoSchedule");
  if (!shape.plain) {
    b.AddCounterUse("gpu-0-counter-set", "memory", Q("40Gi"));
    b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("98"));
    for (int i = 0; i < shape.migs; ++i) {
      b.AddDevice("gpu-0-mig-1g.5gb-" + std::to_string(i), node);
      b.AddAttribute("type", dra::AttributeValue::String("mig"));
      b.AddAttribute("productName", dra::AttributeValue::String("NVIDIA A100-SXM4-40GB"));
      b.AddAttribute("profile", dra::AttributeValue::String("1g.5gb"));
      b.AddCapacity("memory", Q("5Gi"));
      if (shape.taint_first && i == 0) b.AddTaint("gpu.nvidia.com/xid", "79", "NoSchedule");
      b.AddCounterUse("gpu-0-counter-set", "memory", Q("5Gi"));
      b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("14"));
    }
  }
  devices.devices = std::move(b).Build();
  out->push_back(std::move(devices));
}

// An allocated claim of `device_class` holding `devices` (pool/name).
dra::ResourceClaim Held(const std::string& name, const std::string& device_class,
                        const std::vector<std::pair<std::string, std::string>>& devices) {
  dra::ResourceClaim claim;
  claim.namespace_name = "ml";
  claim.strings = dra::ClaimStrings("ml", name, "", "");
  claim.requests.push_back({"gpu", {device_class}, {}, 1, false, false});
  claim.allocated = true;
  for (const auto& [pool, device] : devices)
    claim.results.push_back({"gpu", kDriver, pool, device});
  return claim;
}

std::vector<api::GpuProfile> Profiles() {
  api::GpuProfileSpec whole = DefaultSpec("whole");  // type gpu
  api::GpuProfileSpec mig = DefaultSpec("mig");
  mig.device_type = "mig";
  api::GpuProfileSpec tolerant = DefaultSpec("tolerant");
  tolerant.device_type = "mig";
  tolerant.tolerations = {{"gpu.nvidia.com/xid", "Exists", "", "NoSchedule", std::nullopt}};
  return {MakeProfile("mig", mig), MakeProfile("tolerant", tolerant), MakeProfile("whole", whole)};
}

DesiredState Compute(const dra::Inventory& inventory,
                     const std::vector<dra::ResourceClaim>& claims) {
  EngineInput input;
  input.kube_version = *KubeVersion::Parse("1.36");
  input.profiles = Profiles();
  std::vector<const dra::ResourceClaim*> pointers;
  for (const dra::ResourceClaim& c : claims) pointers.push_back(&c);
  return ComputeDesiredState(input, inventory, nullptr, pointers);
}

const api::GpuProfileStatus& StatusOf(const DesiredState& state, const std::string& name) {
  for (const ProfileOutcome& p : state.profiles) {
    if (p.profile.metadata.name == name) return p.profile.status;
  }
  ADD_FAILURE() << "no profile " << name;
  static const api::GpuProfileStatus kNone;
  return kNone;
}

// The invariants of one desired state: per profile, the states add up to the matched devices,
// free is freeDevices, and the node groups' states add up to the profile's; per node group,
// blocked and unhealthy devices are among its devices.
void ExpectInvariants(const DesiredState& state) {
  for (const ProfileOutcome& p : state.profiles) {
    SCOPED_TRACE(p.profile.metadata.name);
    const api::GpuProfileStatus& s = p.profile.status;
    const api::DeviceStates& states = s.allocation.device_states;
    EXPECT_EQ(states.Total(), s.matched_devices);
    EXPECT_EQ(states.free, s.allocation.free_devices);
    api::DeviceStates sum;
    for (const api::NodeGroupMatch& g : s.node_groups) {
      EXPECT_EQ(g.device_states.Total(), g.devices) << g.name;
      sum.free += g.device_states.free;
      sum.overlapping += g.device_states.overlapping;
      sum.allocated += g.device_states.allocated;
      sum.blocked_by_counters += g.device_states.blocked_by_counters;
      sum.tainted += g.device_states.tainted;
      sum.incomplete_pool += g.device_states.incomplete_pool;
      sum.unavailable += g.device_states.unavailable;
    }
    EXPECT_EQ(sum, states);
    // A tainted device a claim holds is allocated (allocated comes first); taintedDevices
    // ignores claims.
    EXPECT_LE(states.tainted, s.tainted_devices);
    if (states.allocated == 0) {
      EXPECT_EQ(states.tainted, s.tainted_devices);
    }
  }
  for (const api::GpuNodeGroup& g : state.node_groups) {
    EXPECT_GE(g.status.blocked_devices, 0);
    EXPECT_LE(g.status.blocked_devices + g.status.free_devices + g.status.allocated_devices,
              g.status.devices)
        << g.metadata.name;
    EXPECT_LE(g.status.unhealthy_devices, g.status.devices) << g.metadata.name;
  }
}

// The fleet: an A100 whose MIG placements claims hold. The whole GPU is blocked by
// them, not left unaccounted for.
TEST(DeviceStatesTest, WholeGpuUnderAllocatedPlacementsIsBlockedByCounters) {
  std::vector<dra::ResourceSlice> slices;
  AddNode("node-a", NodeShape{}, &slices);
  AddNode("node-b", NodeShape{}, &slices);
  const dra::Inventory inventory = dra::Inventory::FromSlices(slices);
  const std::vector<dra::ResourceClaim> claims = {
      Held("one", "mig", {{"node-a", "gpu-0-mig-1g.5gb-0"}}),
      Held("two", "mig", {{"node-b", "gpu-0-mig-1g.5gb-3"}})};
  const DesiredState state = Compute(inventory, claims);
  ExpectInvariants(state);

  const api::GpuProfileStatus& whole = StatusOf(state, "whole");
  EXPECT_EQ(whole.matched_devices, 2);
  EXPECT_EQ(whole.allocation.device_states.blocked_by_counters, 2);
  EXPECT_EQ(whole.allocation.device_states.free, 0);
  const api::GpuProfileStatus& mig = StatusOf(state, "mig");
  EXPECT_EQ(mig.allocation.device_states.allocated, 2);
  EXPECT_EQ(mig.allocation.device_states.free, 12);
  int64_t blocked = 0;
  for (const api::GpuNodeGroup& g : state.node_groups) blocked += g.status.blocked_devices;
  EXPECT_EQ(blocked, 2);  // the two whole GPUs, in their group

  // Without claims nothing is allocated or blocked: each whole GPU is free for the profile that
  // matches whole GPUs only.
  const DesiredState none = Compute(inventory, {});
  ExpectInvariants(none);
  EXPECT_EQ(StatusOf(none, "whole").allocation.device_states.free, 2);
  EXPECT_EQ(StatusOf(none, "mig").allocation.device_states.allocated, 0);
  EXPECT_EQ(StatusOf(none, "mig").allocation.device_states.blocked_by_counters, 0);
}

TEST(DeviceStatesTest, TaintedIncompleteAndUnavailableDevicesAreAccountedFor) {
  std::vector<dra::ResourceSlice> slices;
  AddNode("node-a", NodeShape{7, true, true, false, false, false}, &slices);
  AddNode("node-b", NodeShape{7, false, false, true, false, false}, &slices);
  AddNode("node-c", NodeShape{7, false, false, false, true, false}, &slices);
  AddNode("node-d", NodeShape{0, true, false, false, false, true}, &slices);
  const dra::Inventory inventory = dra::Inventory::FromSlices(slices);
  const DesiredState state = Compute(inventory, {});
  ExpectInvariants(state);
  const api::DeviceStates& whole = StatusOf(state, "whole").allocation.device_states;
  EXPECT_EQ(whole.tainted, 2);          // node-a, node-d
  EXPECT_EQ(whole.incomplete_pool, 1);  // node-b
  EXPECT_EQ(whole.unavailable, 1);      // node-c
  const api::DeviceStates& mig = StatusOf(state, "mig").allocation.device_states;
  EXPECT_EQ(mig.tainted, 1);
  EXPECT_EQ(mig.free, 6);
  EXPECT_EQ(mig.incomplete_pool, 7);
  EXPECT_EQ(mig.unavailable, 7);
  EXPECT_EQ(StatusOf(state, "tolerant").allocation.device_states.free, 7);
  int64_t unhealthy = 0;
  for (const api::GpuNodeGroup& g : state.node_groups) unhealthy += g.status.unhealthy_devices;
  EXPECT_EQ(unhealthy, 3);
}

TEST(DeviceStatesTest, StatesAddUpOverRandomFleets) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 random(seed);
    const auto chance = [&random](int percent) {
      return std::uniform_int_distribution<int>(0, 99)(random) < percent;
    };
    std::vector<dra::ResourceSlice> slices;
    std::vector<std::pair<std::string, std::string>> devices;  // pool, name
    const int nodes = std::uniform_int_distribution<int>(1, 6)(random);
    for (int n = 0; n < nodes; ++n) {
      NodeShape shape;
      shape.migs = std::uniform_int_distribution<int>(0, 7)(random);
      shape.taint_whole = chance(20);
      shape.taint_first = chance(20);
      shape.incomplete = chance(15);
      shape.no_counters = chance(10);
      shape.plain = chance(15);
      const std::string node = "node-" + std::to_string(n);
      AddNode(node, shape, &slices);
      devices.emplace_back(node, "gpu-0");
      for (int i = 0; i < (shape.plain ? 0 : shape.migs); ++i) {
        devices.emplace_back(node, "gpu-0-mig-1g.5gb-" + std::to_string(i));
      }
    }
    std::vector<dra::ResourceClaim> claims;
    for (size_t d = 0; d < devices.size(); ++d) {
      if (!chance(25)) continue;
      const bool mig = devices[d].second != "gpu-0";
      claims.push_back(Held("c" + std::to_string(d), chance(50) ? (mig ? "mig" : "whole") : "other",
                            {devices[d]}));
    }
    const dra::Inventory inventory = dra::Inventory::FromSlices(slices);
    const DesiredState state = Compute(inventory, claims);
    ExpectInvariants(state);
    int64_t held = 0;
    for (const ProfileOutcome& p : state.profiles) {
      if (p.profile.metadata.name == "tolerant") continue;
      held += p.profile.status.allocation.device_states.allocated;
    }
    EXPECT_EQ(held, static_cast<int64_t>(claims.size()));  // every held device, once
  }
}

}  // namespace
}  // namespace device_states_test
}  // namespace gpuprofile::profile
