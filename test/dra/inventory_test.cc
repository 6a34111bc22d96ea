// File: test/dra/inventory_test.cc
#include "controller/dra/inventory.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/dra/manifest_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::dra {
namespace inventory_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A v1 slice holding one GPU per name in `devices`.
std::string SliceYaml(const std::string& name, const std::string& driver, const std::string& pool,
                      int generation, int count, const std::vector<std::string>& devices,
                      const std::string& node = "") {
  std::string yaml = absl::StrCat(R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: )",
                                  name, "}\nspec:\n  driver: ", driver, "\n  nodeName: ",
                                  node.empty() ? pool : node, "\n  pool: {name: ", pool,
                                  ", generation: ", generation,
                                  ", resourceSliceCount: ", count, "}\n  devices:\n");
  for (const std::string& device : devices) {
    absl::StrAppend(&yaml, "  - name: ", device, "\n    attributes: {type: {string: gpu}}\n");
  }
  return yaml;
}

std::vector<ManifestObject> Parse(const std::vector<std::string>& documents,
                                  const std::string& file = "slices.yaml") {
  std::string text;
  for (const std::string& d : documents) text += "---\n" + d;
  absl::StatusOr<std::vector<ManifestObject>> objects = ParseManifests(text, file);
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? *objects : std::vector<ManifestObject>{};
}

std::vector<std::string> DeviceKeys(const Inventory& inventory) {
  std::vector<std::string> keys;
  for (const Device& d : inventory.devices()) {
    keys.push_back(absl::StrCat(d.node(), "/", d.pool(), "/", d.name(), "/", d.driver()));
  }
  return keys;
}

TEST(InventoryTest, DevicesAreSortedByNodePoolNameThenDriver) {
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({SliceYaml("b", "gpu.nvidia.com", "node-b", 1, 1, {"gpu-1", "gpu-0"}),
                            SliceYaml("a", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-0"})})));
  EXPECT_THAT(DeviceKeys(inventory),
              ElementsAre("node-a/node-a/gpu-0/gpu.nvidia.com", "node-b/node-b/gpu-0/gpu.nvidia.com",
                          "node-b/node-b/gpu-1/gpu.nvidia.com"));
  EXPECT_EQ(inventory.stale_slices_ignored(), 0);
  ASSERT_EQ(inventory.pools().size(), 2u);
  EXPECT_EQ(inventory.pools()[0].name, "node-a");
  EXPECT_FALSE(inventory.pools()[0].incomplete);
  EXPECT_EQ(inventory.pools()[1].device_count, 2);
}

// In node and pool order already (slices named after their nodes), only the runs of one node and
// pool that are out of name order are sorted: two slices of one pool interleaving their names,
// and a slice that appended "gpu-10" after "gpu-9". Out of node and pool order (a node whose two
// pools come in reverse; slice names against node order), the whole fleet is sorted.
TEST(InventoryTest, RunsOutOfNameOrderWithinANodeAreSortedLikeTheWholeFleet) {
  ASSERT_OK_AND_ASSIGN(
      Inventory runs,
      BuildInventory(Parse(
          {SliceYaml("a-1", "gpu.nvidia.com", "pool-a", 1, 2, {"gpu-2", "gpu-0"}, "node-a"),
           SliceYaml("a-2", "gpu.nvidia.com", "pool-a", 1, 2, {"gpu-1", "gpu-3"}, "node-a"),
           SliceYaml("b", "gpu.nvidia.com", "node-b", 1, 1, {"gpu-8", "gpu-9", "gpu-10"})})));
  EXPECT_THAT(DeviceKeys(runs),
              ElementsAre("node-a/pool-a/gpu-0/gpu.nvidia.com", "node-a/pool-a/gpu-1/gpu.nvidia.com",
                          "node-a/pool-a/gpu-2/gpu.nvidia.com", "node-a/pool-a/gpu-3/gpu.nvidia.com",
                          "node-b/node-b/gpu-10/gpu.nvidia.com",
                          "node-b/node-b/gpu-8/gpu.nvidia.com",
                          "node-b/node-b/gpu-9/gpu.nvidia.com"));
  ASSERT_OK_AND_ASSIGN(
      Inventory whole,
      BuildInventory(Parse(
          {SliceYaml("c-1", "gpu.nvidia.com", "pool-z", 1, 1, {"gpu-0"}, "node-c"),
           SliceYaml("c-2", "gpu.nvidia.com", "pool-y", 1, 1, {"gpu-1"}, "node-c"),
           SliceYaml("z-first", "gpu.nvidia.com", "pool-a", 1, 1, {"gpu-2", "gpu-0"}, "node-a")})));
  EXPECT_THAT(DeviceKeys(whole),
              ElementsAre("node-a/pool-a/gpu-0/gpu.nvidia.com", "node-a/pool-a/gpu-2/gpu.nvidia.com",
                          "node-c/pool-y/gpu-1/gpu.nvidia.com",
                          "node-c/pool-z/gpu-0/gpu.nvidia.com"));
}

// One slice per node and pool, named after its node (the usual fleet), takes the short way: each
// slice's devices in turn, sorted by name within the slice. Renaming the slices against node
// order sends the same fleet the general way; both give one order.
TEST(InventoryTest, SlicesInNodeOrderGiveTheSameOrderAsTheGeneralWay) {
  const auto fleet = [](const std::string& first, const std::string& second,
                        const std::string& third) {
    return Parse({SliceYaml(first, "gpu.nvidia.com", "node-a", 1, 1, {"gpu-1", "gpu-0"}),
                  SliceYaml(second, "gpu.nvidia.com", "node-b", 1, 1,
                            {"gpu-8", "gpu-9", "gpu-10", "gpu-x9", "gpu-x10"}),
                  SliceYaml(third, "gpu.nvidia.com", "node-c", 1, 1, {"gpu-0"})});
  };
  ASSERT_OK_AND_ASSIGN(Inventory in_order, BuildInventory(fleet("node-a", "node-b", "node-c")));
  ASSERT_OK_AND_ASSIGN(Inventory against, BuildInventory(fleet("s-3", "s-2", "s-1")));
  const std::vector<std::string> expected = {
      "node-a/node-a/gpu-0/gpu.nvidia.com",   "node-a/node-a/gpu-1/gpu.nvidia.com",
      "node-b/node-b/gpu-10/gpu.nvidia.com",  "node-b/node-b/gpu-8/gpu.nvidia.com",
      "node-b/node-b/gpu-9/gpu.nvidia.com",   "node-b/node-b/gpu-x10/gpu.nvidia.com",
      "node-b/node-b/gpu-x9/gpu.nvidia.com",  "node-c/node-c/gpu-0/gpu.nvidia.com"};
  EXPECT_EQ(DeviceKeys(in_order), expected);
  EXPECT_EQ(DeviceKeys(against), expected);
  EXPECT_EQ(in_order.node_index(), against.node_index());
}

// The slices of `documents`, decoded as the operator's cache holds them.
std::vector<std::shared_ptr<const ResourceSlice>> Slices(const std::vector<std::string>& documents) {
  std::vector<std::shared_ptr<const ResourceSlice>> slices;
  for (const ManifestObject& m : Parse(documents)) {
    absl::StatusOr<ResourceSlice> slice = DecodeSlice(m.object);
    EXPECT_TRUE(slice.ok()) << slice.status();
    if (slice.ok()) slices.push_back(std::make_shared<const ResourceSlice>(*std::move(slice)));
  }
  return slices;
}

// The operator rebuilds one inventory in place on every slice change: the result is what
// building anew gives, every table included, and a copy taken before keeps its own devices.
TEST(InventoryTest, ARebuiltInventoryIsTheOneBuiltAnew) {
  const std::vector<std::shared_ptr<const ResourceSlice>> before =
      Slices({SliceYaml("a", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-0", "gpu-1"}),
              SliceYaml("b-old", "gpu.nvidia.com", "node-b", 1, 1, {"gpu-9"}),
              SliceYaml("b", "gpu.nvidia.com", "node-b", 2, 2, {"gpu-0"}),
              SliceYaml("c", "gpu.nvidia.com", "node-c", 1, 1, {"gpu-0", "gpu-1", "gpu-2"})});
  const std::vector<std::shared_ptr<const ResourceSlice>> after =
      Slices({SliceYaml("b", "gpu.nvidia.com", "node-b", 3, 1, {"gpu-0", "gpu-1"}),
              SliceYaml("d", "dra.example.com", "node-d", 1, 1, {"gpu-5"})});
  Inventory rebuilt = Inventory::FromSlices(before, {{"x", "spec.devices: broken"}});
  const Inventory copy = rebuilt;  // shares the devices
  const std::vector<std::string> copy_keys = DeviceKeys(copy);
  rebuilt.Rebuild(after);
  const Inventory anew = Inventory::FromSlices(after);

  EXPECT_EQ(DeviceKeys(rebuilt), DeviceKeys(anew));
  EXPECT_THAT(DeviceKeys(rebuilt), ElementsAre("node-b/node-b/gpu-0/gpu.nvidia.com",
                                               "node-b/node-b/gpu-1/gpu.nvidia.com",
                                               "node-d/node-d/gpu-5/dra.example.com"));
  EXPECT_EQ(rebuilt.node_index(), anew.node_index());
  EXPECT_EQ(rebuilt.node_count(), 2u);
  ASSERT_EQ(rebuilt.pools().size(), 2u);
  EXPECT_EQ(rebuilt.pools()[0].name, "node-d");
  EXPECT_EQ(rebuilt.pools()[1].generation, 3);
  EXPECT_EQ(rebuilt.pools()[1].slice_count_seen, 1);
  EXPECT_FALSE(rebuilt.pools()[1].incomplete);
  EXPECT_EQ(rebuilt.stale_slices_ignored(), 0);
  EXPECT_TRUE(rebuilt.undecodable_slices().empty());
  EXPECT_TRUE(rebuilt.IncompletePools().empty());

  EXPECT_EQ(DeviceKeys(copy), copy_keys);
  EXPECT_EQ(copy.devices().size(), 6u);
  EXPECT_EQ(copy.stale_slices_ignored(), 1);
  EXPECT_EQ(copy.undecodable_slices().size(), 1u);

  rebuilt.Rebuild({});
  EXPECT_TRUE(rebuilt.devices().empty());
  EXPECT_TRUE(rebuilt.pools().empty());
  EXPECT_EQ(rebuilt.node_count(), 0u);
}

// Rebuilding on every slice change moves the runs of unchanged slices from the last build
// (Inventory::ConcatenateSlices): whatever changes between builds, each one must be the
// inventory built anew, and a copy taken in between must keep its own devices.
TEST(InventoryTest, RebuildsUnderChurnMatchTheInventoryBuiltAnew) {
  std::map<std::string, std::shared_ptr<const ResourceSlice>> fleet;
  const auto put = [&fleet](const std::string& node, const std::vector<std::string>& devices) {
    fleet[node] = Slices({SliceYaml(node, "gpu.nvidia.com", node, 1, 1, devices)}).front();
  };
  const auto list = [&fleet] {
    std::vector<std::shared_ptr<const ResourceSlice>> slices;
    for (const auto& [name, slice] : fleet) slices.push_back(slice);
    return slices;
  };
  const auto expect_anew = [&](const Inventory& rebuilt, const std::string& step) {
    const Inventory anew = Inventory::FromSlices(list());
    EXPECT_EQ(DeviceKeys(rebuilt), DeviceKeys(anew)) << step;
    EXPECT_EQ(rebuilt.node_index(), anew.node_index()) << step;
    EXPECT_EQ(rebuilt.node_count(), anew.node_count()) << step;
    for (const Device& d : rebuilt.devices()) EXPECT_NE(d.storage_id(), nullptr) << step;
  };
  for (const std::string node : {"node-a", "node-b", "node-c", "node-d"}) {
    put(node, {"gpu-0", "gpu-1", "gpu-2"});
  }
  Inventory inventory;
  inventory.Rebuild(list());
  expect_anew(inventory, "first build");

  put("node-b", {"gpu-0", "gpu-1", "gpu-2", "gpu-3"});  // a device more
  inventory.Rebuild(list());
  expect_anew(inventory, "a slice grew");

  put("node-c", {"gpu-9", "gpu-1", "gpu-5"});  // as many devices, new names, out of order
  inventory.Rebuild(list());
  expect_anew(inventory, "a slice replaced by one as large");

  const Inventory copy = inventory;  // shares the devices: nothing may move from them
  const std::vector<std::string> copy_keys = DeviceKeys(copy);
  put("node-a", {"gpu-7"});
  inventory.Rebuild(list());
  expect_anew(inventory, "after a copy");
  EXPECT_EQ(DeviceKeys(copy), copy_keys);

  fleet.erase("node-d");
  put("node-e", {"gpu-0", "gpu-1"});
  inventory.Rebuild(list());
  expect_anew(inventory, "a slice gone, one new");

  // One slice object listed twice under two names: its storage's run is taken once.
  auto twin = std::make_shared<ResourceSlice>(*fleet["node-e"]);
  twin->name = "node-f";
  twin->node_name = "node-f";
  twin->pool = "node-f";
  fleet["node-f"] = twin;
  inventory.Rebuild(list());
  inventory.Rebuild(list());
  expect_anew(inventory, "two slices sharing one storage");

  inventory.Rebuild(list());
  expect_anew(inventory, "nothing changed");
}

TEST(InventoryTest, OnlyTheNewestGenerationOfAPoolCounts) {
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({SliceYaml("old-1", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-0"}),
                            SliceYaml("new", "gpu.nvidia.com", "node-a", 2, 1, {"gpu-7"}),
                            SliceYaml("old-2", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-1"})})));
  EXPECT_THAT(DeviceKeys(inventory), ElementsAre("node-a/node-a/gpu-7/gpu.nvidia.com"));
  EXPECT_EQ(inventory.stale_slices_ignored(), 2);
  ASSERT_EQ(inventory.pools().size(), 1u);
  EXPECT_EQ(inventory.pools()[0].generation, 2);
  EXPECT_EQ(inventory.pools()[0].slice_count_seen, 1);
  EXPECT_FALSE(inventory.pools()[0].incomplete);
}

TEST(InventoryTest, PoolWithFewerSlicesThanAnnouncedIsIncompleteButCounts) {
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({SliceYaml("s1", "gpu.nvidia.com", "node-a", 4, 3, {"gpu-0"}),
                            SliceYaml("s2", "gpu.nvidia.com", "node-a", 4, 3, {"gpu-1"})})));
  EXPECT_EQ(inventory.devices().size(), 2u);
  ASSERT_EQ(inventory.pools().size(), 1u);
  const PoolInfo& pool = inventory.pools()[0];
  EXPECT_EQ(pool.driver, "gpu.nvidia.com");
  EXPECT_EQ(pool.name, "node-a");
  EXPECT_EQ(pool.generation, 4);
  EXPECT_EQ(pool.slice_count_seen, 2);
  EXPECT_EQ(pool.resource_slice_count, 3);
  EXPECT_TRUE(pool.incomplete);
  EXPECT_EQ(inventory.IncompletePools().size(), 1u);
}

TEST(InventoryTest, CounterOnlySliceCompletesItsPool) {
  // NVIDIA DynamicMIG: one counters slice plus one slice per GPU, all in the node's pool.
  const std::string counters = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 3}
  sharedCounters:
  - name: gpu-0
    counters: {memory: {value: 40Gi}}
)";
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({counters,
                            SliceYaml("g0", "gpu.nvidia.com", "node-a", 1, 3, {"gpu-0"}),
                            SliceYaml("g1", "gpu.nvidia.com", "node-a", 1, 3, {"gpu-1"})})));
  ASSERT_EQ(inventory.pools().size(), 1u);
  EXPECT_EQ(inventory.pools()[0].slice_count_seen, 3);
  EXPECT_FALSE(inventory.pools()[0].incomplete);
  EXPECT_EQ(inventory.devices().size(), 2u);
}

TEST(InventoryTest, TwoDriversNamingPoolsAfterTheSameNodeAreDifferentPools) {
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({SliceYaml("gpu", "gpu.nvidia.com", "node-a", 5, 1, {"gpu-0"}),
                            SliceYaml("cd", "compute-domain.nvidia.com", "node-a", 1, 1,
                                      {"channel-0"})})));
  // Generation 5 of one driver's pool does not make the other driver's generation 1 stale.
  EXPECT_EQ(inventory.stale_slices_ignored(), 0);
  ASSERT_EQ(inventory.pools().size(), 2u);
  EXPECT_EQ(inventory.pools()[0].driver, "compute-domain.nvidia.com");
  EXPECT_EQ(inventory.pools()[1].driver, "gpu.nvidia.com");
  EXPECT_THAT(DeviceKeys(inventory),
              ElementsAre("node-a/node-a/channel-0/compute-domain.nvidia.com",
                          "node-a/node-a/gpu-0/gpu.nvidia.com"));
}

TEST(InventoryTest, SameDeviceNameInTwoDriversSortsByDriver) {
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({SliceYaml("z", "z.example.com", "node-a", 1, 1, {"dev-0"}),
                            SliceYaml("a", "a.example.com", "node-a", 1, 1, {"dev-0"})})));
  EXPECT_THAT(DeviceKeys(inventory), ElementsAre("node-a/node-a/dev-0/a.example.com",
                                                 "node-a/node-a/dev-0/z.example.com"));
}

TEST(InventoryTest, OtherKindsAreIgnored) {
  ASSERT_OK_AND_ASSIGN(
      Inventory inventory,
      BuildInventory(Parse({"apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n",
                            "apiVersion: example.com/v1\nkind: ResourceSlice\nmetadata: {name: "
                            "x}\nspec: 7\n",
                            SliceYaml("a", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-0"})})));
  EXPECT_EQ(inventory.devices().size(), 1u);
}

TEST(InventoryTest, EveryProblemIsReportedWithFileObjectAndField) {
  const std::string bad_generation = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: bad-gen}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: one, resourceSliceCount: 1}
)";
  const std::string bad_quantity = R"(apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: bad-q}
spec:
  driver: gpu.nvidia.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {memory: {}}
      capacity: {memory: {value: lots}}
)";
  std::vector<ManifestObject> objects = Parse({bad_generation}, "a.yaml");
  std::vector<ManifestObject> more = Parse({SliceYaml("ok", "d", "p", 1, 1, {"x"}), bad_quantity},
                                           "dir/b.yaml");
  objects.insert(objects.end(), more.begin(), more.end());
  auto result = BuildInventory(objects);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(result.status().message());
  EXPECT_THAT(message, HasSubstr("a.yaml (document 1): ResourceSlice \"bad-gen\": "
                                 "spec.pool.generation: must be an integer, got string"));
  EXPECT_THAT(message, HasSubstr("dir/b.yaml (document 2): ResourceSlice \"bad-q\": "
                                 "spec.devices[0].basic.attributes.memory: attribute must have "
                                 "exactly one of int, bool, string, version"));
  EXPECT_THAT(message, HasSubstr("dir/b.yaml (document 2): ResourceSlice \"bad-q\": "
                                 "spec.devices[0].basic.capacity.memory.value: invalid quantity "
                                 "\"lots\""));
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 2) << message;
}

TEST(InventoryTest, ListItemsAreLocatedByIndex) {
  auto objects = ParseManifests(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList",
  "items": [{"metadata": {"name": "x"}, "spec": {"driver": "d", "nodeName": "n",
             "pool": {"name": "n", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "capacity": {"memory": {"value": "1 Gi"}}}]}}]})",
                                "list.json");
  ASSERT_OK(objects);
  auto result = BuildInventory(*objects);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("list.json (document 1, items[0]): ResourceSlice \"x\": "
                        "spec.devices[0].capacity.memory.value: invalid quantity"));
}

TEST(InventoryTest, SameSliceReadTwiceCountsOnceButConflictingCopiesAreAnError) {
  const std::string slice = SliceYaml("s", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-0"});
  ASSERT_OK_AND_ASSIGN(Inventory twice, BuildInventory(Parse({slice, slice})));
  EXPECT_EQ(twice.devices().size(), 1u);
  EXPECT_EQ(twice.pools()[0].slice_count_seen, 1);

  auto conflict = BuildInventory(
      Parse({slice, SliceYaml("s", "gpu.nvidia.com", "node-a", 1, 1, {"gpu-9"})}));
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(std::string(conflict.status().message()),
              HasSubstr("slices.yaml (document 2): ResourceSlice \"s\": metadata.name: another, "
                        "different ResourceSlice with this name was read from slices.yaml "
                        "(document 1)"));
}

TEST(InventoryTest, EmptyInputGivesAnEmptyInventory) {
  ASSERT_OK_AND_ASSIGN(Inventory inventory, BuildInventory({}));
  EXPECT_TRUE(inventory.devices().empty());
  EXPECT_TRUE(inventory.pools().empty());
}

// The example fleet shipped in config/samples: both variants describe the same hardware.
TEST(InventoryTest, ExampleFleetInBothApiVersions) {
  std::map<std::string, std::vector<std::tuple<std::string, std::string, std::string>>> seen;
  for (const std::string dir : {"fleet", "fleet-v1beta1"}) {
    ASSERT_OK_AND_ASSIGN(auto objects,
                         ReadManifests({::gpuprofile::testing::SourceDir() + "/config/samples/" + dir}));
    ASSERT_OK_AND_ASSIGN(Inventory inventory, BuildInventory(objects));
    EXPECT_EQ(inventory.devices().size(), 16u) << dir;
    EXPECT_EQ(inventory.pools().size(), 5u) << dir;
    EXPECT_TRUE(inventory.IncompletePools().empty()) << dir;
    std::set<std::string> uuids;
    std::set<std::string> nodes;
    for (const Device& d : inventory.devices()) {
      const std::string uuid(d.FindAttribute("uuid").value().string_value());
      uuids.insert(uuid);
      nodes.insert(std::string(d.node()));
      ASSERT_TRUE(d.FindAttribute("driverVersion").value().ParseVersion().has_value()) << d.name();
      ASSERT_TRUE(d.FindAttribute("cudaDriverVersion").value().ParseVersion().has_value())
          << d.name();
      seen[dir].emplace_back(d.node(), d.name(), uuid);
      const Quantity* memory = d.FindCapacity("memory");
      ASSERT_NE(memory, nullptr) << d.name();
      if (absl::StartsWith(d.node(), "a100")) {
        EXPECT_EQ(d.FindAttribute("productName").value().string_value(), "NVIDIA A100-SXM4-40GB");
        EXPECT_EQ(d.FindAttribute("driverVersion").value().string_value(), "550.127.8");
        EXPECT_EQ(d.FindAttribute("cudaDriverVersion").value().string_value(), "12.4.0");
        EXPECT_EQ(memory->ToString(), "40Gi");
      } else {
        EXPECT_EQ(d.FindAttribute("productName").value().string_value(), "NVIDIA L40S");
        EXPECT_EQ(d.FindAttribute("driverVersion").value().string_value(), "570.133.20");
        EXPECT_EQ(d.FindAttribute("cudaDriverVersion").value().string_value(), "12.8.0");
        EXPECT_EQ(memory->ToString(), "46068Mi");
      }
      if (std::string(dir) == "fleet") {
        EXPECT_TRUE(d.FindAttribute("resource.kubernetes.io/pciBusID").has_value());
        EXPECT_FALSE(d.FindAttribute("minor").has_value());
      } else {
        EXPECT_FALSE(d.FindAttribute("resource.kubernetes.io/pciBusID").has_value());
        EXPECT_TRUE(d.FindAttribute("pcieBusID").has_value());
        EXPECT_TRUE(d.FindAttribute("index").has_value());
      }
    }
    EXPECT_EQ(uuids.size(), 16u) << dir;
    EXPECT_THAT(nodes, ElementsAre("a100-node-1", "a100-node-2", "a100-node-3", "l40s-node-1",
                                   "l40s-node-2"));
  }
  EXPECT_EQ(seen["fleet"], seen["fleet-v1beta1"]);
}

}  // namespace
}  // namespace inventory_test
}  // namespace gpuprofile::dra
