// File: test/api/gpu_node_group_codec_test.cc
// GpuNodeGroup encoding (the field names the CRD is written from), decoding, and the ordering of
// DeviceSignature.
#include "controller/api/gpu_node_group_codec.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::api {
namespace gpu_node_group_codec_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

DeviceSignature A100() {
  return {"gpu.nvidia.com", "gpu",   "NVIDIA A100-SXM4-40GB", "40Gi", "535.161.8", "Ampere",
          "8.0.0",          "12.2.0"};
}

GpuNodeGroup Group() {
  GpuNodeGroup g;
  g.metadata.name = "nvidia-a100-sxm4-40gb-535.161.8";
  g.metadata.uid = "u-1";
  g.status.signature = A100();
  g.status.node_count = 3;
  g.status.nodes = {"node-a", "node-b", "node-c"};
  g.status.devices = 12;
  g.status.profiles = {"large-memory"};
  return g;
}

TEST(GpuNodeGroupCodecTest, EncodesInDocumentedOrder) {
  EXPECT_EQ(EncodeGpuNodeGroup(Group(), false).dump(2), R"({
  "apiVersion": "gpuprofile.io/v1alpha1",
  "kind": "GpuNodeGroup",
  "metadata": {
    "name": "nvidia-a100-sxm4-40gb-535.161.8"
  },
  "status": {
    "driver": "gpu.nvidia.com",
    "deviceType": "gpu",
    "productName": "NVIDIA A100-SXM4-40GB",
    "memory": "40Gi",
    "driverVersion": "535.161.8",
    "architecture": "Ampere",
    "computeCapability": "8.0.0",
    "cudaDriverVersion": "12.2.0",
    "nodeCount": 3,
    "nodes": [
      "node-a",
      "node-b",
      "node-c"
    ],
    "devices": 12,
    "schedulableDevices": 0,
    "taintedDevices": 0,
    "allocatedDevices": 0,
    "freeDevices": 0,
    "blockedDevices": 0,
    "unhealthyDevices": 0,
    "profiles": [
      "large-memory"
    ],
    "devicePluginNodes": 0
  }
})");
}

TEST(GpuNodeGroupCodecTest, OmitsEmptySignatureFieldsAndWritesIncompletePools) {
  GpuNodeGroup g;
  g.metadata.name = "example-model";
  g.status.signature.driver = "gpu.example.com";
  g.status.signature.product = "model-x";
  g.status.incomplete_pools.push_back({"gpu.example.com", "node-a", 4, 1, 2});
  EXPECT_EQ(EncodeGpuNodeGroupStatus(g.status).dump(),
            R"({"driver":"gpu.example.com","productName":"model-x","nodeCount":0,"nodes":[],)"
            R"("devices":0,"schedulableDevices":0,"taintedDevices":0,)"
            R"("allocatedDevices":0,"freeDevices":0,"blockedDevices":0,"unhealthyDevices":0,)"
            R"("incompletePools":[{"driver":"gpu.example.com","pool":"node-a",)"
            R"("generation":4,"slicesSeen":1,"resourceSliceCount":2}],"profiles":[],)"
            R"("devicePluginNodes":0})");
}

TEST(GpuNodeGroupCodecTest, RoundTrips) {
  GpuNodeGroup g = Group();
  g.status.incomplete_pools.push_back({"gpu.nvidia.com", "node-c", 2, 1, 3});
  g.status.allocated_devices = 5;
  g.status.free_devices = 7;
  g.status.blocked_devices = 2;
  g.status.unhealthy_devices = 1;
  g.status.offered_by = "Both";
  g.status.device_plugin_nodes = 1;
  g.status.offered_twice = {"node-a"};
  g.status.conditions.push_back({"OfferedTwice", meta::ConditionStatus::kTrue, 0,
                                 "2026-12-02T03:00:00Z", "DevicePluginAndDRA", "1 node offers"});
  const std::string encoded = EncodeGpuNodeGroup(g, true).dump();
  ASSERT_OK_AND_ASSIGN(GpuNodeGroup decoded, DecodeGpuNodeGroup(json::parse(encoded)));
  EXPECT_EQ(decoded.status.signature, g.status.signature);
  EXPECT_EQ(decoded.metadata.uid, "u-1");
  EXPECT_EQ(decoded.status.allocated_devices, 5);
  EXPECT_EQ(decoded.status.free_devices, 7);
  EXPECT_EQ(decoded.status.blocked_devices, 2);
  EXPECT_EQ(decoded.status.unhealthy_devices, 1);
  EXPECT_EQ(decoded.status.offered_by, "Both");
  EXPECT_EQ(decoded.status.offered_twice, std::vector<std::string>{"node-a"});
  ASSERT_EQ(decoded.status.conditions.size(), 1u);
  EXPECT_EQ(decoded.status.conditions[0], g.status.conditions[0]);
  EXPECT_EQ(EncodeGpuNodeGroup(decoded, true).dump(), encoded);
  EXPECT_TRUE(IsGpuNodeGroup(json::parse(encoded)));
}

TEST(GpuNodeGroupCodecTest, DecodeRejectsWrongKindAndTypes) {
  json object = json::parse(EncodeGpuNodeGroup(Group(), false).dump());
  object["kind"] = "GpuProfile";
  object["status"]["nodeCount"] = "3";
  object["status"]["incompletePools"] = json::array({"x"});
  absl::StatusOr<GpuNodeGroup> g = DecodeGpuNodeGroup(object);
  ASSERT_FALSE(g.ok());
  const std::string message(g.status().message());
  EXPECT_THAT(message, HasSubstr("kind: unsupported value \"GpuProfile\""));
  EXPECT_THAT(message, HasSubstr("status.nodeCount: must be an integer, got string"));
  EXPECT_THAT(message, HasSubstr("status.incompletePools[0]: must be an object, got string"));
  EXPECT_FALSE(IsGpuNodeGroup(object));
}

TEST(DeviceSignatureTest, EqualityAndLexicographicOrderInDeclarationOrder) {
  const DeviceSignature a = A100();
  DeviceSignature b = a;
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a < b);
  b.cuda_driver_version = "12.3.0";  // the last field decides when all others are equal
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a < b);
  DeviceSignature c = a;
  c.driver = "gpu.amd.com";  // the first field dominates every later one
  c.cuda_driver_version = "99";
  EXPECT_TRUE(c < a);
  DeviceSignature d = a;
  d.memory = "80Gi";
  d.driver_version = "1";  // memory is compared before driver_version
  EXPECT_TRUE(a < d);
  std::vector<DeviceSignature> sorted = {d, b, c, a};
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(sorted[0] == c);
  EXPECT_TRUE(sorted[1] == a);
  EXPECT_TRUE(sorted[2] == b);
  EXPECT_TRUE(sorted[3] == d);
}

}  // namespace
}  // namespace gpu_node_group_codec_test
}  // namespace gpuprofile::api
