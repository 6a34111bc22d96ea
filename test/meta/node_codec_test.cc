// File: test/meta/node_codec_test.cc
#include "controller/meta/node_codec.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::meta {
namespace node_codec_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

TEST(NodeCodecTest, ReadsTheDevicePluginResourcesAndTheGpuLabels) {
  json node = json::parse(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "a100-node-9", "resourceVersion": "7",
                 "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
                            "nvidia.com/gpu.memory": "40960", "kubernetes.io/os": "linux"}},
    "status": {"allocatable": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "4",
                               "nvidia.com/mig-1g.5gb": 7, "example.com/fpga": "2"}}
  })");
  ASSERT_OK_AND_ASSIGN(NodeGpus gpus, DecodeNodeGpus(node));
  EXPECT_EQ(gpus.name, "a100-node-9");
  EXPECT_EQ(gpus.resource_version, "7");
  EXPECT_EQ(gpus.device_plugin_devices, 11);
  EXPECT_EQ(gpus.product, "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(gpus.memory_mib, "40960");
}

TEST(NodeCodecTest, ANodeWithoutThePluginOffersNothing) {
  ASSERT_OK_AND_ASSIGN(NodeGpus gpus,
                       DecodeNodeGpus(json::parse(R"({"metadata": {"name": "cpu-1"}})")));
  EXPECT_EQ(gpus.device_plugin_devices, 0);
  EXPECT_EQ(gpus.product, "");
}

TEST(NodeCodecTest, BadQuantitiesNameTheNodeAndTheResource) {
  for (const char* allocatable : {R"({"nvidia.com/gpu": "1500m"})", R"({"nvidia.com/gpu": "x"})",
                                  R"({"nvidia.com/gpu": true})"}) {
    json node = {{"metadata", {{"name", "n"}}},
                 {"status", {{"allocatable", json::parse(allocatable)}}}};
    absl::StatusOr<NodeGpus> gpus = DecodeNodeGpus(node);
    ASSERT_FALSE(gpus.ok()) << allocatable;
    EXPECT_THAT(std::string(gpus.status().message()),
                HasSubstr("Node \"n\": status.allocatable[nvidia.com/gpu]"));
  }
  absl::StatusOr<NodeGpus> not_object = DecodeNodeGpus(json::array());
  ASSERT_FALSE(not_object.ok());
  EXPECT_THAT(std::string(not_object.status().message()), HasSubstr("Node <unnamed>"));
}

}  // namespace
}  // namespace node_codec_test
}  // namespace gpuprofile::meta
