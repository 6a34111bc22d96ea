// File: test/profile/node_groups_test.cc
#include "controller/profile/node_groups.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace node_groups_test {
namespace {

using ::gpuprofile::profile::testing::LoadInventory;
using ::testing::ElementsAre;
using ::testing::MatchesRegex;
using ::testing::SizeIs;

// A complete one-slice pool named after its node.
dra::ResourceSlice NodeSlice(std::string name, std::string driver, std::string node,
                             std::vector<dra::Device> devices) {
  dra::ResourceSlice slice =
      testing::PoolSlice(std::move(name), std::move(node), 1, std::move(driver));
  slice.devices = std::move(devices);
  return slice;
}

std::vector<std::string> Names(const NodeGroups& groups) {
  std::vector<std::string> names;
  for (const api::GpuNodeGroup& g : groups.groups) names.push_back(g.metadata.name);
  return names;
}

// SignatureIds compares SignatureViews before it builds a signature: equal views must mean
// equal signatures (what correctness needs) and, with no zero quantity about, unequal views
// unequal ones.
TEST(NodeGroupsTest, SignatureViewsAreEqualExactlyWhenSignaturesAre) {
  dra::DeviceBuilder builder("");
  builder.Driver("gpu.nvidia.com")
      .Attribute("type", dra::AttributeValue::String("gpu"))
      .Attribute("productName", dra::AttributeValue::String("NVIDIA A100"))
      .Attribute("driverVersion", dra::AttributeValue::Version("550.54.15"))
      .Attribute("uuid", dra::AttributeValue::String("GPU-1"))
      .Capacity("memory", *Quantity::Parse("40Gi"));
  std::vector<dra::Device> devices = {
      builder.Build(),
      dra::DeviceBuilder(builder).Attribute("uuid", dra::AttributeValue::String("GPU-2")).Build(),
      dra::DeviceBuilder(builder)
          .Attribute("driverVersion", dra::AttributeValue::Version("560.1.0"))
          .Build(),
      dra::DeviceBuilder(builder).Capacity("memory", *Quantity::Parse("42949672960")).Build(),
      dra::DeviceBuilder(builder).Capacity("memory", *Quantity::Parse("80Gi")).Build(),
      dra::DeviceBuilder(builder).Driver("dra.example.com").Build(),
      dra::DeviceBuilder(builder)
          .Driver("dra.example.com")
          .Attribute("model", dra::AttributeValue::String("NVIDIA A100"))
          .Build(),
  };
  dra::DeviceBuilder without_memory("");
  without_memory.Driver("gpu.nvidia.com")
      .Attribute("type", dra::AttributeValue::String("gpu"))
      .Attribute("productName", dra::AttributeValue::String("NVIDIA A100"))
      .Attribute("driverVersion", dra::AttributeValue::Version("550.54.15"));
  devices.push_back(without_memory.Build());
  devices.push_back(builder.Build());  // equal to the first, in storage of its own
  int equal_pairs = 0;
  for (const dra::Device& x : devices) {
    for (const dra::Device& y : devices) {
      const bool same_view = SignatureViewOf(x) == SignatureViewOf(y);
      EXPECT_EQ(same_view, SignatureOf(x) == SignatureOf(y))
          << x.DebugString() << " / " << y.DebugString();
      EXPECT_EQ(SignatureOf(SignatureViewOf(x)), SignatureOf(x));
      if (same_view) ++equal_pairs;
    }
  }
  // Each with itself; the first, the second (another uuid) and the last with each other; the
  // two of the other driver (productName and model are both its product).
  EXPECT_EQ(equal_pairs, static_cast<int>(devices.size()) + 6 + 2);
}

// SignatureIds reads a fleet through one SignatureReader and gives a device the signature of
// another of its storage when their tokens are equal. So: through a reader that has seen other
// devices, storages and drivers, every device's view is what SignatureViewOf gives, and two
// devices of one storage with equal tokens have equal views.
TEST(NodeGroupsTest, ASignatureReaderReadsWhatAFreshReadDoesAndEqualTokensMeanEqualViews) {
  std::vector<std::vector<dra::Device>> storages = {testing::VariedStorage("gpu.nvidia.com", 1),
                                                    testing::VariedStorage("dra.example.com", 2),
                                                    testing::VariedStorage("gpu.nvidia.com", 3)};
  SignatureReader reader;
  int equal_token_pairs = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::vector<dra::Device>& devices : storages) {
      std::vector<std::vector<uint64_t>> tokens(devices.size());
      std::vector<SignatureView> views;
      for (size_t i = 0; i < devices.size(); ++i) {
        reader.Tokens(devices[i], &tokens[i]);
        views.push_back(reader.View(devices[i], tokens[i]));
        ASSERT_EQ(SignatureOf(views[i]), SignatureOf(SignatureViewOf(devices[i])))
            << devices[i].DebugString();
      }
      for (size_t i = 0; i < devices.size(); ++i) {
        for (size_t j = 0; j < devices.size(); ++j) {
          if (tokens[i] != tokens[j]) continue;
          ++equal_token_pairs;
          EXPECT_EQ(views[i], views[j])
              << devices[i].DebugString() << " / " << devices[j].DebugString();
        }
      }
    }
  }
  EXPECT_GT(equal_token_pairs, 2 * (80 + 80 + 80));
}

TEST(NodeGroupsTest, SampleFleetHasOneGroupPerProductAndDriver) {
  NodeGroups groups = BuildNodeGroups(LoadInventory({testing::kSampleFleet}));
  ASSERT_THAT(Names(groups),
              ElementsAre("nvidia-a100-sxm4-40gb-550.127.8", "nvidia-l40s-570.133.20"));
  const api::GpuNodeGroupStatus& a100 = groups.groups[0].status;
  EXPECT_EQ(a100.signature.driver, "gpu.nvidia.com");
  EXPECT_EQ(a100.signature.device_type, "gpu");
  EXPECT_EQ(a100.signature.product, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(a100.signature.memory, "40Gi");
  EXPECT_EQ(a100.signature.architecture, "Ampere");
  EXPECT_EQ(a100.signature.compute_capability, "8.0.0");
  EXPECT_EQ(a100.signature.cuda_driver_version, "12.4.0");
  EXPECT_EQ(a100.devices, 12);
  EXPECT_EQ(a100.node_count, 3);
  EXPECT_THAT(a100.nodes, ElementsAre("a100-node-1", "a100-node-2", "a100-node-3"));
  EXPECT_THAT(a100.incomplete_pools, SizeIs(0));
  EXPECT_EQ(groups.groups[1].status.signature.memory, "46068Mi");
}

TEST(NodeGroupsTest, MixedFleetCollisionsDriversAndIncompletePools) {
  dra::Inventory inventory = LoadInventory({testing::kMixedFleet});
  NodeGroups groups = BuildNodeGroups(inventory);
  const std::vector<std::string> names = Names(groups);
  ASSERT_THAT(names, SizeIs(9));
  EXPECT_EQ(names[0], "amd-instinct-mi300x-6.8.5");
  EXPECT_EQ(names[1], "flex-170");
  EXPECT_EQ(names[2], "latest-gpu-model-1.0.0");
  // The MIG node: the parent GPU and two MIG sizes share product and driver version, so all
  // three names carry their signature's hash.
  for (int i = 3; i < 6; ++i) {
    EXPECT_THAT(names[i], MatchesRegex("nvidia-a100-sxm4-40gb-535\\.161\\.8-[0-9a-f]{8}"));
    EXPECT_EQ(groups.groups[i].status.incomplete_pools.size(), 1u);
    EXPECT_EQ(groups.groups[i].status.incomplete_pools[0].pool, "mig-node-1");
    EXPECT_EQ(groups.groups[i].status.incomplete_pools[0].resource_slice_count, 2);
  }
  EXPECT_EQ(names[6], "nvidia-a100-sxm4-40gb-550.127.8");
  EXPECT_EQ(names[7], "nvidia-l40s-570.133.20");  // the stale H100 generation is not a group
  EXPECT_EQ(names[8], "tesla-t4-535.54.3");
  // Two drivers naming their pools after one node: separate groups, one node each.
  EXPECT_EQ(groups.groups[0].status.nodes, std::vector<std::string>{"mixed-node-1"});
  EXPECT_EQ(groups.groups[1].status.nodes, std::vector<std::string>{"mixed-node-1"});
  // Every device maps to the group of its signature.
  ASSERT_EQ(groups.group_of_device.size(), inventory.devices().size());
  for (size_t d = 0; d < inventory.devices().size(); ++d) {
    EXPECT_EQ(groups.groups[groups.group_of_device[d]].status.signature,
              SignatureOf(inventory.devices()[d]));
  }
}

// Devices of two groups interleaved on one node (by name: a100, t4, t4, a100), so that a group's
// devices come after another group was seen: counts and signatures stay with their group.
TEST(NodeGroupsTest, InterleavedGroupsOnOneNodeKeepTheirSignatures) {
  const auto gpu = [](const char* name, const char* product, const char* memory) {
    return dra::DeviceBuilder(name)
        .Driver("gpu.nvidia.com")
        .Pool("node-1")
        .Slice("node-1-slice")
        .Node("node-1")
        .Attribute("type", dra::AttributeValue::String("gpu"))
        .Attribute("productName", dra::AttributeValue::String(product))
        .Capacity("memory", *Quantity::Parse(memory));
  };
  const dra::Inventory inventory = dra::Inventory::FromSlices({NodeSlice(
      "node-1-slice", "gpu.nvidia.com", "node-1",
      {gpu("gpu-0", "NVIDIA A100-SXM4-40GB", "40Gi").Build(),
       gpu("gpu-1", "Tesla T4", "15Gi").Build(), gpu("gpu-2", "Tesla T4", "15Gi").Build(),
       gpu("gpu-3", "NVIDIA A100-SXM4-40GB", "40Gi").Build()})});
  FleetMemo memo;
  for (FleetMemo* m : {static_cast<FleetMemo*>(nullptr), &memo, &memo}) {
    const NodeGroups groups = BuildNodeGroups(inventory, m);
    EXPECT_THAT(Names(groups), ElementsAre("nvidia-a100-sxm4-40gb", "tesla-t4"));
    for (const api::GpuNodeGroup& g : groups.groups) {
      EXPECT_EQ(g.status.devices, 2) << g.metadata.name;
      EXPECT_EQ(g.status.node_count, 1) << g.metadata.name;
    }
    EXPECT_EQ(groups.groups[0].status.signature.memory, "40Gi");
    EXPECT_EQ(groups.groups[1].status.signature.memory, "15Gi");
    for (size_t d = 0; d < inventory.devices().size(); ++d) {
      EXPECT_EQ(groups.groups[groups.group_of_device[d]].status.signature,
                SignatureOf(inventory.devices()[d]));
    }
  }
}

TEST(NodeGroupsTest, NamesAreSlugsShortenedWithAHashWhenTooLong) {
  api::DeviceSignature s;
  s.driver = "gpu.nvidia.com";
  s.product = "NVIDIA  GeForce RTX (TM) 4090 / Founders_Edition";
  s.driver_version = "580.95.5";
  EXPECT_EQ(BaseNodeGroupName(s), "nvidia-geforce-rtx-tm-4090-founders-edition-580.95.5");
  s.product = std::string(80, 'x');
  const dra::Device device =
      dra::DeviceBuilder("gpu-0")
          .Driver("gpu.example.com")
          .Node("n1")
          .Attribute("model", dra::AttributeValue::String(std::string(80, 'X')))
          .Build();
  NodeGroups groups = BuildNodeGroups(
      dra::Inventory::FromSlices({NodeSlice("s", "gpu.example.com", "n1", {device})}));
  ASSERT_THAT(groups.groups, SizeIs(1));
  const std::string& name = groups.groups[0].metadata.name;
  EXPECT_LE(name.size(), kMaxNodeGroupNameLength);
  EXPECT_THAT(name, MatchesRegex("x{54}-[0-9a-f]{8}"));
  // Stable: the hash depends only on the signature.
  EXPECT_EQ(SignatureHash(groups.groups[0].status.signature), SignatureHash(SignatureOf(device)));
}

}  // namespace
}  // namespace node_groups_test
}  // namespace gpuprofile::profile
