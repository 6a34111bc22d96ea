// File: test/profile/claim_allocations_test.cc
// Allocation truth: which devices claims hold, what that leaves free (with MIG counters), and
// the per-class summary of allocated and pending claims.
#include "controller/profile/claim_allocations.h"

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/core/quantity.h"
#include "controller/dra/device.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_slice.h"
#include "controller/profile/allocatable.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace claim_allocations_test {
namespace {

using dra::ClaimDeviceResult;
using dra::ClaimRequest;
using dra::DeviceSetBuilder;
using dra::ResourceClaim;
using dra::ResourceSlice;

Quantity Q(const char* text) { return *Quantity::Parse(text); }

// node-a: one A100 published with DynamicMIG (the full GPU and two 3g.20gb placements, all
// drawing from one counter set of 40Gi); node-b: two plain GPUs.
std::vector<ResourceSlice> FleetSlices() {
  ResourceSlice counters = testing::PoolSlice("node-a-counters", "node-a", 2);
  dra::CounterSet set;
  set.name = "gpu-0-set";
  set.counters = {{"memory", Q("40Gi")}};
  counters.shared_counters.push_back(set);
  ResourceSlice mig = testing::PoolSlice("node-a-gpu-0", "node-a", 2);
  DeviceSetBuilder a("gpu.nvidia.com", "node-a", 1, mig.name);
  a.AddDevice("gpu-0", "node-a");
  a.AddCounterUse("gpu-0-set", "memory", Q("40Gi"));
  for (const char* name : {"gpu-0-mig-3g-0", "gpu-0-mig-3g-4"}) {
    a.AddDevice(name, "node-a");
    a.AddCounterUse("gpu-0-set", "memory", Q("20Gi"));
  }
  mig.devices = std::move(a).Build();
  ResourceSlice plain = testing::PoolSlice("node-b", "node-b");
  DeviceSetBuilder b("gpu.nvidia.com", "node-b", 1, plain.name);
  b.AddDevice("gpu-0", "node-b");
  b.AddDevice("gpu-1", "node-b");
  plain.devices = std::move(b).Build();
  return {counters, mig, plain};
}

dra::Inventory Fleet() { return dra::Inventory::FromSlices(FleetSlices()); }

size_t IndexOf(const dra::Inventory& inventory, const std::string& pool, const std::string& name) {
  for (size_t d = 0; d < inventory.devices().size(); ++d) {
    if (inventory.devices()[d].pool() == pool && inventory.devices()[d].name() == name) return d;
  }
  ADD_FAILURE() << pool << "/" << name << " not in the inventory";
  return 0;
}

ResourceClaim Claim(const std::string& name, std::vector<std::string> classes,
                    std::vector<ClaimDeviceResult> results = {}) {
  ResourceClaim claim;
  claim.namespace_name = "ml";
  claim.strings = dra::ClaimStrings("ml", name, "", "");
  ClaimRequest request;
  request.name = "gpu";
  request.device_classes.assign(classes.begin(), classes.end());
  if (request.device_classes.size() > 1) {
    for (size_t i = 0; i < request.device_classes.size(); ++i) {
      request.subrequests.push_back("s" + std::to_string(i));
    }
  }
  claim.requests.push_back(request);
  claim.allocated = !results.empty();
  claim.results.assign(results.begin(), results.end());
  return claim;
}

ClaimDeviceResult Result(const std::string& request, const std::string& pool,
                         const std::string& device) {
  return {request, "gpu.nvidia.com", pool, device};
}

TEST(ClaimAllocationsTest, IndexesTheDevicesClaimsHold) {
  dra::Inventory inventory = Fleet();
  ResourceClaim a = Claim("a", {"plain"}, {Result("gpu", "node-b", "gpu-1")});
  ResourceClaim b = Claim("b", {"plain"}, {Result("gpu", "node-b", "gpu-1")});  // shared
  ResourceClaim gone = Claim("gone", {"plain"}, {Result("gpu", "node-c", "gpu-0")});
  std::vector<const ResourceClaim*> claims = {&a, &b, &gone};
  DeviceClaims held = IndexAllocatedDevices(inventory, claims);
  EXPECT_EQ(held.allocated_devices, 1);
  EXPECT_EQ(held.results_outside_inventory, 1);
  EXPECT_TRUE(held.allocated[IndexOf(inventory, "node-b", "gpu-1")]);
  EXPECT_FALSE(held.allocated[IndexOf(inventory, "node-b", "gpu-0")]);
}

// The operator keeps one ledger while the claims stay and matches it to each new inventory.
TEST(ClaimAllocationsTest, OneLedgerMatchesEachInventoryAsAFreshIndexWould) {
  ResourceClaim mig = Claim("mig", {"mig"}, {Result("gpu", "node-a", "gpu-0-mig-3g-4")});
  ResourceClaim two =
      Claim("two", {"plain"}, {Result("gpu", "node-b", "gpu-1"), Result("gpu", "node-b", "gpu-0")});
  std::vector<const ResourceClaim*> claims = {&two, &mig};
  const ClaimLedger ledger(claims);
  EXPECT_EQ(ledger.results(), 3);

  const dra::Inventory full = Fleet();
  DeviceClaims held = ledger.Held(full);
  EXPECT_EQ(held.allocated_devices, 3);
  EXPECT_EQ(held.results_outside_inventory, 0);
  for (size_t d = 0; d < full.devices().size(); ++d) {
    const bool want = d == IndexOf(full, "node-a", "gpu-0-mig-3g-4") ||
                      d == IndexOf(full, "node-b", "gpu-0") ||
                      d == IndexOf(full, "node-b", "gpu-1");
    EXPECT_EQ(held.allocated[d], want) << full.devices()[d].name();
  }

  // node-a's slices gone: its result names no device of this inventory.
  std::vector<ResourceSlice> only_b;
  for (const ResourceSlice& slice : FleetSlices()) {
    if (slice.pool == "node-b") only_b.push_back(slice);
  }
  const dra::Inventory partial = dra::Inventory::FromSlices(only_b);
  held = ledger.Held(partial);
  EXPECT_EQ(held.allocated_devices, 2);
  EXPECT_EQ(held.results_outside_inventory, 1);
  EXPECT_EQ(held.allocated, IndexAllocatedDevices(partial, claims).allocated);

  // Counting without per-device outcomes agrees with Count, on a fleet where only claims keep
  // devices back (node-b alone) and on one with counters (the whole fleet).
  for (const dra::Inventory* inventory : {&partial, &full}) {
    const AllocationModel model(*inventory, ledger.Held(*inventory).allocated);
    for (int drop = -1; drop < static_cast<int>(inventory->devices().size()); ++drop) {
      std::vector<bool> matched(inventory->devices().size(), true);
      if (drop >= 0) matched[drop] = false;
      EXPECT_EQ(model.SchedulableCount(matched), model.Count(matched).schedulable_count);
    }
  }
  {
    std::vector<bool> both(partial.devices().size(), true);
    const AllocationModel model(partial, ledger.Held(partial).allocated);
    EXPECT_EQ(model.SchedulableCount(both), 0);
    EXPECT_EQ(AllocationModel(partial).SchedulableCount(both), 2);
  }

  ASSERT_NE(ledger.ForClass("plain"), nullptr);
  EXPECT_EQ(ledger.ForClass("plain")->allocated_devices, 2);
  EXPECT_EQ(ledger.ForClass("plain")->allocated_claims, 1);
  EXPECT_EQ(ledger.ForClass("absent"), nullptr);
  EXPECT_EQ(ClaimLedger().Held(full).allocated_devices, 0);
}

// The operator keeps a HeldMemo across computations: whatever it remembers (slices gone and
// back, a ledger refolded), each answer is the one Held gives without it.
TEST(ClaimAllocationsTest, AMemoNeverChangesWhatHeldAnswers) {
  ResourceClaim mig = Claim("mig", {"mig"}, {Result("gpu", "node-a", "gpu-0-mig-3g-4")});
  ResourceClaim two =
      Claim("two", {"plain"}, {Result("gpu", "node-b", "gpu-1"), Result("gpu", "node-b", "gpu-0")});
  ResourceClaim one = Claim("one", {"plain"}, {Result("gpu", "node-a", "gpu-0")});
  const std::vector<ResourceSlice> slices = FleetSlices();  // copies share the devices' storage
  std::vector<ResourceSlice> only_b;
  for (const ResourceSlice& slice : slices) {
    if (slice.pool == "node-b") only_b.push_back(slice);
  }
  const dra::Inventory full = dra::Inventory::FromSlices(slices);
  const dra::Inventory partial = dra::Inventory::FromSlices(only_b);
  const dra::Inventory other = Fleet();  // the same fleet, decoded anew: other storage

  ClaimLedger ledger;
  HeldMemo memo;
  const auto expect_same = [&](const dra::Inventory& inventory, const std::string& step) {
    const DeviceClaims with = ledger.Held(inventory, &memo);
    const DeviceClaims without = ledger.Held(inventory);
    EXPECT_EQ(with.allocated, without.allocated) << step;
    EXPECT_EQ(with.allocated_devices, without.allocated_devices) << step;
    EXPECT_EQ(with.results_outside_inventory, without.results_outside_inventory) << step;
  };
  for (const ResourceClaim* claim : {&mig, &two}) ledger.Add(*claim);
  ledger.Finish();
  expect_same(full, "full");
  const size_t full_entries = memo.storage_entries();
  EXPECT_GT(full_entries, 0u);
  expect_same(partial, "node-b alone");
  EXPECT_LT(memo.storage_entries(), full_entries);  // node-a's storage forgotten
  expect_same(full, "node-a back");
  expect_same(other, "decoded anew");

  // Refolded with other claims: what the memo kept for the old ledger no longer holds.
  ledger.Clear();
  ledger.Add(one);
  ledger.Finish();
  expect_same(other, "refolded");
  EXPECT_EQ(ledger.Held(other, &memo).allocated_devices, 1);
  expect_same(partial, "refolded, node-b alone");
  EXPECT_EQ(ledger.Held(partial, &memo).allocated_devices, 0);
}

// The operator refolds one ledger in place on every claim change: cleared and built again, it
// answers as a fresh ledger of the new claims does, nothing of the old ones left.
TEST(ClaimAllocationsTest, AClearedLedgerBuiltAgainIsAFreshOne) {
  ResourceClaim mig = Claim("mig", {"mig"}, {Result("gpu", "node-a", "gpu-0-mig-3g-4")});
  ResourceClaim two =
      Claim("two", {"plain"}, {Result("gpu", "node-b", "gpu-1"), Result("gpu", "node-b", "gpu-0")});
  ResourceClaim one = Claim("one", {"plain"}, {Result("gpu", "node-b", "gpu-1")});
  ResourceClaim pending = Claim("pending", {"mig"});
  ClaimLedger reused;
  for (const ResourceClaim* claim : {&mig, &two}) reused.Add(*claim);
  reused.Finish();
  reused.Clear();
  for (const ResourceClaim* claim : {&one, &pending}) reused.Add(*claim);
  reused.Finish();
  std::vector<const ResourceClaim*> now = {&one, &pending};
  const ClaimLedger fresh(now);

  const dra::Inventory full = Fleet();
  EXPECT_EQ(reused.results(), fresh.results());
  EXPECT_EQ(reused.results(), 1);
  EXPECT_EQ(reused.Held(full).allocated, fresh.Held(full).allocated);
  EXPECT_EQ(reused.Held(full).allocated_devices, 1);
  ASSERT_NE(reused.ForClass("plain"), nullptr);
  EXPECT_EQ(reused.ForClass("plain")->allocated_devices, 1);
  ASSERT_NE(reused.ForClass("mig"), nullptr);
  EXPECT_EQ(reused.ForClass("mig")->allocated_devices, 0);
  EXPECT_EQ(reused.ForClass("mig")->pending_claims, 1);
  EXPECT_EQ(reused.by_class().size(), fresh.by_class().size());
}

TEST(ClaimAllocationsTest, AllocatedDevicesAreNotFreeAndPlainOnesCountOnce) {
  dra::Inventory inventory = Fleet();
  ResourceClaim a = Claim("a", {"plain"}, {Result("gpu", "node-b", "gpu-1")});
  std::vector<const ResourceClaim*> claims = {&a};
  DeviceClaims held = IndexAllocatedDevices(inventory, claims);
  std::vector<bool> matched(inventory.devices().size(), false);
  matched[IndexOf(inventory, "node-b", "gpu-0")] = true;
  matched[IndexOf(inventory, "node-b", "gpu-1")] = true;
  EXPECT_EQ(AllocationModel(inventory).Count(matched).schedulable_count, 2);
  AllocatableCount count = AllocationModel(inventory, held.allocated).Count(matched);
  EXPECT_EQ(count.schedulable_count, 1);
  EXPECT_EQ(count.allocated_count, 1);
  EXPECT_EQ(count.Of(IndexOf(inventory, "node-b", "gpu-1"), matched), DeviceOutcome::kAllocated);
}

TEST(ClaimAllocationsTest, AnAllocatedMigPlacementTakesItsCountersFromTheOthers) {
  dra::Inventory inventory = Fleet();
  std::vector<bool> mig(inventory.devices().size(), false);
  mig[IndexOf(inventory, "node-a", "gpu-0-mig-3g-0")] = true;
  mig[IndexOf(inventory, "node-a", "gpu-0-mig-3g-4")] = true;
  std::vector<bool> whole(inventory.devices().size(), false);
  whole[IndexOf(inventory, "node-a", "gpu-0")] = true;

  // Free: two 3g placements fit (20Gi + 20Gi of 40Gi), or the whole GPU.
  EXPECT_EQ(AllocationModel(inventory).Count(mig).schedulable_count, 2);
  EXPECT_EQ(AllocationModel(inventory).Count(whole).schedulable_count, 1);

  // One placement allocated by a MIG profile's claim: one placement left, and the whole GPU
  // (a different profile, not matching the placement) no longer fits.
  ResourceClaim c = Claim("c", {"mig"}, {Result("gpu", "node-a", "gpu-0-mig-3g-0")});
  std::vector<const ResourceClaim*> claims = {&c};
  DeviceClaims held = IndexAllocatedDevices(inventory, claims);
  AllocationModel model(inventory, held.allocated);
  AllocatableCount for_mig = model.Count(mig);
  EXPECT_EQ(for_mig.allocated_count, 1);
  EXPECT_EQ(for_mig.schedulable_count, 1);
  AllocatableCount for_whole = model.Count(whole);
  EXPECT_EQ(for_whole.allocated_count, 0);
  EXPECT_EQ(for_whole.schedulable_count, 0);
  EXPECT_EQ(for_whole.counter_limited_count(), 1);
}

TEST(ClaimAllocationsTest, SummarisesAllocatedAndPendingClaimsPerClass) {
  ResourceClaim two =
      Claim("two", {"large"}, {Result("gpu", "node-b", "gpu-0"), Result("gpu", "node-b", "gpu-1")});
  ResourceClaim fallback = Claim("fb", {"h100", "a100"}, {Result("gpu/s1", "node-b", "gpu-0")});
  ResourceClaim old_pending = Claim("p1", {"h100", "a100"});
  old_pending.set_created(absl::FromUnixSeconds(1000));
  ResourceClaim new_pending = Claim("p2", {"a100"});
  new_pending.set_created(absl::FromUnixSeconds(2000));
  ResourceClaim deleting = Claim("d", {"a100"});
  deleting.deleting = true;
  deleting.set_created(absl::FromUnixSeconds(10));
  std::vector<const ResourceClaim*> claims = {&two, &fallback, &old_pending, &new_pending,
                                              &deleting};
  absl::flat_hash_map<std::string, ClassClaims> by_class = SummariseClaimsByClass(claims);
  EXPECT_EQ(by_class["large"].allocated_devices, 2);
  EXPECT_EQ(by_class["large"].allocated_claims, 1);
  EXPECT_EQ(by_class["large"].pending_claims, 0);
  EXPECT_EQ(by_class["a100"].allocated_devices, 1);  // the fallback's second choice
  EXPECT_EQ(by_class["a100"].allocated_claims, 1);
  EXPECT_EQ(by_class["a100"].pending_claims, 2);
  EXPECT_EQ(by_class["a100"].oldest_pending, absl::FromUnixSeconds(1000));
  EXPECT_EQ(by_class["h100"].allocated_devices, 0);
  EXPECT_EQ(by_class["h100"].pending_claims, 1);
  EXPECT_EQ(by_class["h100"].oldest_pending, absl::FromUnixSeconds(1000));
}

}  // namespace
}  // namespace claim_allocations_test
}  // namespace gpuprofile::profile
