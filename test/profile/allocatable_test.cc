// File: test/profile/allocatable_test.cc
#include "controller/profile/allocatable.h"

#include <string>
#include <vector>

#include "controller/core/quantity.h"
#include "controller/dra/device.h"
#include "controller/dra/device_toleration.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_slice.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace allocatable_test {
namespace {

using dra::DeviceSetBuilder;
using dra::ResourceSlice;
using testing::PoolSlice;

Quantity Q(const char* text) { return *Quantity::Parse(text); }

// One GPU as NVIDIA publishes it on 1.35+ with DynamicMIG: a counters-only slice (memory slices
// 0..7) and a devices slice with the full GPU (all 8 slices) and MIG placements.
std::vector<ResourceSlice> Gpu(int mig_1g, int mig_3g, int64_t slice_count = 2) {
  ResourceSlice counters = PoolSlice("node-a-counters", "node-a", slice_count);
  dra::CounterSet set;
  set.name = "gpu-0-counter-set";
  set.counters = {{"memory", Q("40Gi")}, {"multiprocessors", Q("98")}};
  counters.shared_counters.push_back(set);

  ResourceSlice devices = PoolSlice("node-a-gpu-0", "node-a", slice_count);
  DeviceSetBuilder b("gpu.nvidia.com", "node-a", 1, devices.name);
  b.AddDevice("gpu-0", "node-a");
  b.AddCounterUse("gpu-0-counter-set", "memory", Q("40Gi"));
  b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("98"));
  for (int i = 0; i < mig_1g; ++i) {
    b.AddDevice("gpu-0-mig-1g.5gb-19-" + std::to_string(i), "node-a");
    b.AddCounterUse("gpu-0-counter-set", "memory", Q("5Gi"));
    b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("14"));
  }
  for (int i = 0; i < mig_3g; ++i) {
    b.AddDevice("gpu-0-mig-3g.20gb-9-" + std::to_string(4 * i), "node-a");
    b.AddCounterUse("gpu-0-counter-set", "memory", Q("20Gi"));
    b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("42"));
  }
  devices.devices = std::move(b).Build();
  return {counters, devices};
}

std::vector<bool> All(const dra::Inventory& inventory) {
  return std::vector<bool>(inventory.devices().size(), true);
}

TEST(AllocatableTest, DevicesWithoutTaintsOrCountersAreAllSchedulable) {
  ResourceSlice s = PoolSlice("plain", "node-b", 1);
  DeviceSetBuilder b("gpu.nvidia.com", "node-b", 1, "plain");
  b.AddDevice("gpu-0", "node-b");
  b.AddDevice("gpu-1", "node-b");
  s.devices = std::move(b).Build();
  dra::Inventory inventory = dra::Inventory::FromSlices(std::vector<ResourceSlice>{s});
  AllocationModel model(inventory);
  EXPECT_TRUE(model.AllSchedulable());
  const std::vector<bool> matched = {true, false};
  AllocatableCount c = model.Count(matched);
  EXPECT_EQ(c.schedulable_count, 1);
  EXPECT_EQ(c.Of(0, matched), DeviceOutcome::kSchedulable);
  EXPECT_EQ(c.Of(1, matched), DeviceOutcome::kNotMatched);
}

// The full GPU and its seven 1g placements share one counter set: at most seven 1g placements,
// or the full GPU, can run at once; never eight devices.
TEST(AllocatableTest, SharedCountersBoundWhatRunsAtOnce) {
  dra::Inventory inventory = dra::Inventory::FromSlices(Gpu(7, 0));
  ASSERT_EQ(inventory.devices().size(), 8u);
  AllocationModel model(inventory);
  AllocatableCount c = model.Count(All(inventory));
  EXPECT_EQ(c.schedulable_count, 7);
  EXPECT_EQ(c.counter_limited_count(), 1);
  // Only the full GPU selected: it fits.
  std::vector<bool> full(inventory.devices().size(), false);
  for (size_t d = 0; d < inventory.devices().size(); ++d) {
    full[d] = inventory.devices()[d].name() == "gpu-0";
  }
  EXPECT_EQ(model.Count(full).schedulable_count, 1);
}

TEST(AllocatableTest, MixedPlacementsAreCountedSmallestFirst) {
  // 2 × 3g (20Gi, 42 SMs each) + 7 × 1g (5Gi, 14 SMs): smallest first takes seven 1g
  // placements (35Gi, 98 SMs), then nothing else fits.
  dra::Inventory inventory = dra::Inventory::FromSlices(Gpu(7, 2));
  AllocationModel model(inventory);
  AllocatableCount c = model.Count(All(inventory));
  EXPECT_EQ(c.schedulable_count, 7);
  // Only 3g placements: two fit (40Gi, 84 SMs).
  std::vector<bool> three_g(inventory.devices().size(), false);
  for (size_t d = 0; d < inventory.devices().size(); ++d) {
    three_g[d] = inventory.devices()[d].name().find("3g") != absl::string_view::npos;
  }
  EXPECT_EQ(model.Count(three_g).schedulable_count, 2);
}

TEST(AllocatableTest, MissingCounterSetMeansNotSchedulable) {
  std::vector<ResourceSlice> slices = Gpu(1, 0, /*slice_count=*/1);
  slices.erase(slices.begin());  // no counters-only slice; the pool is complete with one slice
  dra::Inventory inventory = dra::Inventory::FromSlices(std::move(slices));
  AllocationModel model(inventory);
  AllocatableCount c = model.Count(All(inventory));
  EXPECT_EQ(c.schedulable_count, 0);
  EXPECT_EQ(c.counter_limited_count(), 2);
}

TEST(AllocatableTest, IncompletePoolIsNotSchedulable) {
  std::vector<ResourceSlice> slices = Gpu(1, 0, /*slice_count=*/3);  // one slice still missing
  dra::Inventory inventory = dra::Inventory::FromSlices(std::move(slices));
  AllocationModel model(inventory);
  AllocatableCount c = model.Count(All(inventory));
  EXPECT_EQ(c.schedulable_count, 0);
  EXPECT_EQ(c.incomplete_pool_count, 2);
}

TEST(AllocatableTest, TaintsAndTolerations) {
  ResourceSlice s = PoolSlice("tainted", "node-c", 1);
  DeviceSetBuilder b("gpu.nvidia.com", "node-c", 1, "tainted");
  b.AddDevice("gpu-0", "node-c");
  b.AddTaint("gpu.nvidia.com/xid", "79", "NoSchedule");
  b.AddDevice("gpu-1", "node-c");
  b.AddTaint("gpu.nvidia.com/unmonitored", "", "None");
  b.AddDevice("gpu-2", "node-c");
  b.AddTaint("gpu.nvidia.com/gpu-lost", "", "NoExecute");
  b.AddDevice("gpu-3", "node-c");
  b.AddTaint("example.com/future", "", "PreferNoSchedule");
  s.devices = std::move(b).Build();
  dra::Inventory inventory = dra::Inventory::FromSlices(std::vector<ResourceSlice>{s});
  AllocationModel model(inventory);
  AllocatableCount c = model.Count(All(inventory));
  // None, and an effect this project does not know (treated like None, as the API says), do not
  // keep claims off.
  EXPECT_EQ(c.schedulable_count, 2);
  EXPECT_EQ(c.tainted_count, 2);
  EXPECT_EQ(c.outcome[0], DeviceOutcome::kTainted);
  EXPECT_EQ(c.outcome[1], DeviceOutcome::kSchedulable);
  EXPECT_EQ(c.outcome[3], DeviceOutcome::kSchedulable);

  std::vector<dra::DeviceToleration> xid = {{"gpu.nvidia.com/xid", "Exists", "", "", std::nullopt}};
  EXPECT_EQ(model.Count(All(inventory), xid).schedulable_count, 3);
  std::vector<dra::DeviceToleration> wrong_value = {
      {"gpu.nvidia.com/xid", "Equal", "48", "NoSchedule", std::nullopt}};
  EXPECT_EQ(model.Count(All(inventory), wrong_value).schedulable_count, 2);
  std::vector<dra::DeviceToleration> right_value = {
      {"gpu.nvidia.com/xid", "Equal", "79", "NoSchedule", std::nullopt}};
  EXPECT_EQ(model.Count(All(inventory), right_value).schedulable_count, 3);
  std::vector<dra::DeviceToleration> everything = {{"", "Exists", "", "", std::nullopt}};
  EXPECT_EQ(model.Count(All(inventory), everything).schedulable_count, 4);
  std::vector<dra::DeviceToleration> only_no_execute = {
      {"", "Exists", "", "NoExecute", std::nullopt}};
  EXPECT_EQ(model.Count(All(inventory), only_no_execute).schedulable_count, 3);
}

// --- Counter outcomes: why a device that draws counters is left out ---------------------------

// The index of the device named `name`.
size_t IndexOf(const dra::Inventory& inventory, absl::string_view name) {
  for (size_t d = 0; d < inventory.devices().size(); ++d) {
    if (inventory.devices()[d].name() == name) return d;
  }
  ADD_FAILURE() << "no device " << name;
  return 0;
}

// Only the devices named.
std::vector<bool> Only(const dra::Inventory& inventory, std::vector<absl::string_view> names) {
  std::vector<bool> out(inventory.devices().size(), false);
  for (absl::string_view name : names) out[IndexOf(inventory, name)] = true;
  return out;
}

TEST(AllocatableTest, WholeGpuIsBlockedByItsAllocatedMigPlacements) {
  dra::Inventory inventory = dra::Inventory::FromSlices(Gpu(7, 0));
  const std::vector<bool> allocated = Only(inventory, {"gpu-0-mig-1g.5gb-19-0"});
  AllocationModel model(inventory, allocated);
  const size_t whole = IndexOf(inventory, "gpu-0");

  const std::vector<bool> gpu = Only(inventory, {"gpu-0"});
  AllocatableCount c = model.Count(gpu);
  EXPECT_EQ(c.Of(whole, gpu), DeviceOutcome::kCounterBlocked);
  EXPECT_EQ(c.counter_blocked_count, 1);
  EXPECT_EQ(c.schedulable_count, 0);

  // Everything matched: the held placement is allocated, the other six are free, and the whole
  // GPU is blocked by the held one (not merely overlapping the free ones).
  AllocatableCount all = model.Count(All(inventory));
  EXPECT_EQ(all.allocated_count, 1);
  EXPECT_EQ(all.schedulable_count, 6);
  EXPECT_EQ(all.counter_blocked_count, 1);
  EXPECT_EQ(all.overlapping_count, 0);
  EXPECT_EQ(all.Of(whole, All(inventory)), DeviceOutcome::kCounterBlocked);

  // Without the claim the same GPU is merely overlapping its free placements.
  AllocationModel free_model(inventory);
  AllocatableCount none = free_model.Count(All(inventory));
  EXPECT_EQ(none.Of(whole, All(inventory)), DeviceOutcome::kOverlapping);
  EXPECT_EQ(none.overlapping_count, 1);
  EXPECT_EQ(none.schedulable_count, 7);
  EXPECT_EQ(none.counter_blocked_count, 0);
  EXPECT_EQ(free_model.Count(gpu).schedulable_count, 1);
}

TEST(AllocatableTest, MigPlacementIsBlockedByTheAllocatedWholeGpu) {
  dra::Inventory inventory = dra::Inventory::FromSlices(Gpu(7, 0));
  AllocationModel model(inventory, Only(inventory, {"gpu-0"}));
  const std::vector<bool> placement = Only(inventory, {"gpu-0-mig-1g.5gb-19-3"});
  AllocatableCount c = model.Count(placement);
  EXPECT_EQ(c.Of(IndexOf(inventory, "gpu-0-mig-1g.5gb-19-3"), placement),
            DeviceOutcome::kCounterBlocked);
  EXPECT_EQ(c.counter_blocked_count, 1);
  EXPECT_EQ(c.counter_limited_count(), 1);
  EXPECT_EQ(model.Count(All(inventory)).counter_blocked_count, 7);
}

// Two placements over memory slices 0-3 and 2-3 of one GPU (one counter per slice).
std::vector<ResourceSlice> OverlappingPlacements() {
  ResourceSlice counters = PoolSlice("node-d-counters", "node-d", 2);
  dra::CounterSet set;
  set.name = "gpu-0-counter-set";
  for (int i = 0; i < 8; ++i) set.counters.push_back({"memorySlice" + std::to_string(i), Q("1")});
  counters.shared_counters.push_back(set);
  ResourceSlice devices = PoolSlice("node-d-gpu-0", "node-d", 2);
  DeviceSetBuilder b("gpu.nvidia.com", "node-d", 1, devices.name);
  b.AddDevice("mig-4g-0", "node-d");
  for (int i = 0; i < 4; ++i) b.AddCounterUse(set.name, "memorySlice" + std::to_string(i), Q("1"));
  b.AddDevice("mig-2g-2", "node-d");
  for (int i = 2; i < 4; ++i) b.AddCounterUse(set.name, "memorySlice" + std::to_string(i), Q("1"));
  devices.devices = std::move(b).Build();
  return {counters, devices};
}

TEST(AllocatableTest, PlacementsOverlappingOnMemorySlices) {
  dra::Inventory inventory = dra::Inventory::FromSlices(OverlappingPlacements());
  const size_t big = IndexOf(inventory, "mig-4g-0"), small = IndexOf(inventory, "mig-2g-2");
  const std::vector<bool> both = All(inventory);

  // Both free: one is counted free (the smaller share first), the other overlaps it.
  AllocatableCount free = AllocationModel(inventory).Count(both);
  EXPECT_EQ(free.schedulable_count, 1);
  EXPECT_EQ(free.overlapping_count, 1);
  EXPECT_EQ(free.Of(small, both), DeviceOutcome::kSchedulable);
  EXPECT_EQ(free.Of(big, both), DeviceOutcome::kOverlapping);

  // One allocated: the other is blocked by it, whichever it is.
  AllocatableCount small_held =
      AllocationModel(inventory, Only(inventory, {"mig-2g-2"})).Count(both);
  EXPECT_EQ(small_held.Of(small, both), DeviceOutcome::kAllocated);
  EXPECT_EQ(small_held.Of(big, both), DeviceOutcome::kCounterBlocked);
  AllocatableCount big_held = AllocationModel(inventory, Only(inventory, {"mig-4g-0"})).Count(both);
  EXPECT_EQ(big_held.Of(big, both), DeviceOutcome::kAllocated);
  EXPECT_EQ(big_held.Of(small, both), DeviceOutcome::kCounterBlocked);
  EXPECT_EQ(big_held.counter_blocked_count, 1);
  EXPECT_EQ(big_held.allocated_count, 1);
}

TEST(AllocatableTest, MissingOrTooSmallCountersMakeDevicesUnavailable) {
  std::vector<ResourceSlice> slices = Gpu(1, 0, /*slice_count=*/1);
  slices.erase(slices.begin());  // no counter set at all
  dra::Inventory missing = dra::Inventory::FromSlices(std::move(slices));
  AllocatableCount c = AllocationModel(missing).Count(All(missing));
  EXPECT_EQ(c.unavailable_count, 2);
  EXPECT_EQ(c.Of(0, All(missing)), DeviceOutcome::kUnavailable);

  // A counter smaller than the device's need: never allocatable, claims or not.
  std::vector<ResourceSlice> small = Gpu(0, 0);
  small[0].shared_counters[0].counters = {{"memory", Q("20Gi")}, {"multiprocessors", Q("98")}};
  dra::Inventory too_small = dra::Inventory::FromSlices(std::move(small));
  EXPECT_EQ(AllocationModel(too_small).Count(All(too_small)).unavailable_count, 1);
}

// The states before the counters settle a device first: a tainted device or one of an
// incomplete pool keeps that outcome whatever its counters, and a held device is allocated.
TEST(AllocatableTest, TaintsAndIncompletePoolsComeBeforeCounters) {
  std::vector<ResourceSlice> slices = Gpu(7, 0);
  {
    // Rebuild the devices slice with the whole GPU tainted.
    DeviceSetBuilder b("gpu.nvidia.com", "node-a", 1, slices[1].name);
    b.AddDevice("gpu-0", "node-a");
    b.AddTaint("gpu.nvidia.com/xid", "79", "NoSchedule");
    b.AddCounterUse("gpu-0-counter-set", "memory", Q("40Gi"));
    b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("98"));
    b.AddDevice("gpu-0-mig-1g.5gb-19-0", "node-a");
    b.AddCounterUse("gpu-0-counter-set", "memory", Q("5Gi"));
    b.AddCounterUse("gpu-0-counter-set", "multiprocessors", Q("14"));
    slices[1].devices = std::move(b).Build();
  }
  dra::Inventory inventory = dra::Inventory::FromSlices(slices);
  const size_t whole = IndexOf(inventory, "gpu-0"),
               mig = IndexOf(inventory, "gpu-0-mig-1g.5gb-19-0");
  AllocatableCount c =
      AllocationModel(inventory, Only(inventory, {"gpu-0-mig-1g.5gb-19-0"})).Count(All(inventory));
  EXPECT_EQ(c.Of(whole, All(inventory)), DeviceOutcome::kTainted);  // not kCounterBlocked
  EXPECT_EQ(c.Of(mig, All(inventory)), DeviceOutcome::kAllocated);
  EXPECT_EQ(c.counter_limited_count(), 0);

  std::vector<ResourceSlice> incomplete = Gpu(7, 0, /*slice_count=*/3);
  dra::Inventory pool = dra::Inventory::FromSlices(std::move(incomplete));
  AllocatableCount p =
      AllocationModel(pool, Only(pool, {"gpu-0-mig-1g.5gb-19-0"})).Count(All(pool));
  EXPECT_EQ(p.Of(IndexOf(pool, "gpu-0"), All(pool)), DeviceOutcome::kIncompletePool);
  EXPECT_EQ(p.incomplete_pool_count, 7);
  EXPECT_EQ(p.allocated_count, 1);
  EXPECT_EQ(p.counter_limited_count(), 0);
}

// AddDeviceState puts each outcome in its own state.
TEST(AllocatableTest, EveryOutcomeHasItsOwnState) {
  const std::vector<DeviceOutcome> outcomes = {
      DeviceOutcome::kSchedulable,    DeviceOutcome::kOverlapping, DeviceOutcome::kAllocated,
      DeviceOutcome::kCounterBlocked, DeviceOutcome::kTainted,     DeviceOutcome::kIncompletePool,
      DeviceOutcome::kUnavailable,    DeviceOutcome::kNotMatched};
  api::DeviceStates states;
  int64_t want = 0;
  for (DeviceOutcome o : outcomes) {
    AddDeviceState(o, &states);
    if (o != DeviceOutcome::kNotMatched) ++want;
    EXPECT_EQ(states.Total(), want);
  }
  const int64_t each[] = {
      states.free,    states.overlapping,     states.allocated,  states.blocked_by_counters,
      states.tainted, states.incomplete_pool, states.unavailable};
  for (int64_t n : each) EXPECT_EQ(n, 1);
}

}  // namespace
}  // namespace allocatable_test
}  // namespace gpuprofile::profile
