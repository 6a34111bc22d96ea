// File: test/profile/fleet_memo_test.cc
// A long-lived FleetMemo must never change what the engine computes: after every step of a
// random sequence of slice and profile changes, the desired state computed with the memo equals
// the one computed from scratch. And it must save the work it exists to save: after one slice
// changes, only that slice's devices get signatures and projections.
#include "controller/profile/fleet_memo.h"

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/dra/resource_slice.h"
#include "controller/profile/engine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace fleet_memo_test {
namespace {

using Slices = std::vector<std::shared_ptr<const dra::ResourceSlice>>;

using ::gpuprofile::profile::testing::DescribeState;
using ::gpuprofile::profile::testing::FleetJson;

std::shared_ptr<const dra::ResourceSlice> Decode(const nlohmann::json& object) {
  absl::StatusOr<dra::ResourceSlice> slice = dra::DecodeSlice(object);
  EXPECT_TRUE(slice.ok()) << slice.status();
  return std::make_shared<const dra::ResourceSlice>(slice.ok() ? *std::move(slice)
                                                               : dra::ResourceSlice{});
}

EngineInput Input(size_t profiles) {
  std::vector<api::GpuProfileSpec> specs = testing::VariedSpecs();
  specs.resize(std::min(profiles, specs.size()));
  return testing::ProfilesInput(specs);
}

TEST(FleetMemoTest, ALongLivedMemoComputesWhatAFreshOneDoes) {
  const std::vector<nlohmann::json> fleet = FleetJson();
  ASSERT_GT(fleet.size(), 3u);
  std::mt19937 random(20261130);
  // The slices in play by index into `fleet` (nullptr: removed), each as last changed.
  Slices slices;
  std::vector<nlohmann::json> current = fleet;
  for (const nlohmann::json& object : fleet) slices.push_back(Decode(object));
  size_t profiles = testing::VariedSpecs().size();
  FleetMemo memo;
  for (int step = 0; step < 150; ++step) {
    const size_t s = random() % fleet.size();
    std::string change;
    switch (random() % 7) {
      case 0:  // removed, or back as it was
        change = absl::StrCat("toggle slice ", s);
        slices[s] = slices[s] == nullptr ? Decode(current[s]) : nullptr;
        break;
      case 1: {  // one device more (a copy of its first, renamed)
        nlohmann::json& devices = current[s]["spec"]["devices"];
        if (devices.empty()) break;
        nlohmann::json extra = devices[0];
        extra["name"] = absl::StrCat("extra-", step);
        devices.push_back(extra);
        change = absl::StrCat("add a device to slice ", s);
        slices[s] = Decode(current[s]);
        break;
      }
      case 2: {  // its last device gone
        nlohmann::json& devices = current[s]["spec"]["devices"];
        if (devices.empty()) break;
        devices.erase(devices.size() - 1);
        change = absl::StrCat("drop a device of slice ", s);
        slices[s] = Decode(current[s]);
        break;
      }
      case 3: {  // a newer driver version on every device: new signatures, new classes
        for (nlohmann::json& device : current[s]["spec"]["devices"]) {
          nlohmann::json& attributes =
              device.contains("basic") ? device["basic"]["attributes"] : device["attributes"];
          attributes["driverVersion"] = {{"version", absl::StrCat("580.", step, ".0")}};
        }
        change = absl::StrCat("new driver version on slice ", s);
        slices[s] = Decode(current[s]);
        break;
      }
      case 4:  // a newer pool generation: the pool's other slices become stale
        current[s]["spec"]["pool"]["generation"] =
            current[s]["spec"]["pool"].value("generation", 0) + 1;
        change = absl::StrCat("new pool generation for slice ", s);
        slices[s] = Decode(current[s]);
        break;
      case 5:  // the same object decoded again: equal content, new storage
        change = absl::StrCat("slice ", s, " decoded again");
        if (slices[s] != nullptr) slices[s] = Decode(current[s]);
        break;
      case 6:  // profiles come and go
        profiles = 1 + random() % testing::VariedSpecs().size();
        change = absl::StrCat(profiles, " profiles");
        break;
    }
    Slices present;
    for (const auto& slice : slices) {
      if (slice != nullptr) present.push_back(slice);
    }
    const EngineInput input = Input(profiles);
    const dra::Inventory inventory = dra::Inventory::FromSlices(present);
    const std::string with_memo = DescribeState(ComputeDesiredState(input, inventory, &memo));
    const std::string fresh = DescribeState(ComputeDesiredState(input, inventory));
    ASSERT_EQ(with_memo, fresh) << "step " << step << ": " << change;
    EXPECT_LE(memo.storage_entries(), present.size()) << "step " << step;
  }
}

TEST(FleetMemoTest, OneChangedSliceIsTheOnlyOneWorkedOutAgain) {
  const std::vector<nlohmann::json> fleet = FleetJson();
  Slices slices;
  for (const nlohmann::json& object : fleet) slices.push_back(Decode(object));
  // The inventory's devices (some slices are stale or have none), and the slices they are in.
  const auto in_inventory = [&] {
    std::set<const void*> storage;
    const dra::Inventory inventory = dra::Inventory::FromSlices(slices);
    for (const dra::Device& d : inventory.devices()) storage.insert(d.storage_id());
    return std::make_pair(static_cast<int64_t>(inventory.devices().size()), storage.size());
  };
  const EngineInput input = Input(testing::VariedSpecs().size());
  FleetMemo memo;
  ComputeDesiredState(input, dra::Inventory::FromSlices(slices), &memo);
  const FleetMemo::Counters first = memo.counters();
  EXPECT_EQ(first.signatures_computed, in_inventory().first);
  EXPECT_EQ(first.projections_computed, in_inventory().first);
  EXPECT_EQ(memo.storage_entries(), in_inventory().second);

  // Nothing changed: nothing is worked out.
  ComputeDesiredState(input, dra::Inventory::FromSlices(slices), &memo);
  EXPECT_EQ(memo.counters().signatures_computed, first.signatures_computed);
  EXPECT_EQ(memo.counters().projections_computed, first.projections_computed);
  EXPECT_EQ(memo.counters().evaluations, first.evaluations);

  // One slice replaced by an equal one in new storage: its devices only. Their projections fall
  // into known classes, so no shared evaluation runs; per-device selectors run on them only.
  size_t changed = slices.size() / 2;
  while (slices[changed]->devices.empty()) ++changed;
  slices[changed] = Decode(fleet[changed]);
  const int64_t changed_devices = static_cast<int64_t>(slices[changed]->devices.size());
  ASSERT_GT(changed_devices, 0);
  ComputeDesiredState(input, dra::Inventory::FromSlices(slices), &memo);
  EXPECT_EQ(memo.counters().signatures_computed - first.signatures_computed, changed_devices);
  EXPECT_EQ(memo.counters().projections_computed - first.projections_computed, changed_devices);
  // VariedSpecs has one per-device profile.
  EXPECT_EQ(memo.counters().evaluations - first.evaluations, changed_devices);
  EXPECT_EQ(memo.storage_entries(), in_inventory().second);  // the old storage was swept
}

}  // namespace
}  // namespace fleet_memo_test
}  // namespace gpuprofile::profile
