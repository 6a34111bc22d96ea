// Reading Kueue's Configuration (controller/kueue/kueue_config.h): the mappings from YAML and
// JSON, the ConfigMap's key, --kueue-config, and errors naming the ConfigMap and the field.
#include "controller/kueue/kueue_config.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::kueue {
namespace kueue_config_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr char kSource[] = "configmap kueue-system/kueue-manager-config";

// Kueue's default Configuration (config/components/manager) with two mappings added.
constexpr char kMapped[] = R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
health:
  healthProbeBindAddress: :8081
controller:
  groupKindConcurrency:
    Job.batch: 5
resources:
  deviceClassMappings:
  - name: gpuprofile.io/large-memory
    deviceClassNames:
    - large-memory
  - name: example.com/gpu
    deviceClassNames: [gpu.example.com, light-inference]
)";

json ConfigMap(const std::string& text) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "kueue-manager-config"}, {"namespace", "kueue-system"}}},
          {"data", {{"controller_manager_config.yaml", text}}}};
}

TEST(KueueConfigTest, ReadsTheMappingsAndIgnoresTheRest) {
  absl::StatusOr<KueueConfig> config = ParseKueueConfiguration(kMapped, kSource);
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->mappings.size(), 2u);
  EXPECT_EQ(config->mappings[0].name, "gpuprofile.io/large-memory");
  EXPECT_THAT(config->mappings[1].device_class_names,
              ElementsAre("gpu.example.com", "light-inference"));
  EXPECT_EQ(config->ResourceOf("light-inference"), "example.com/gpu");
  EXPECT_EQ(config->ResourceOf("large-memory"), "gpuprofile.io/large-memory");
  EXPECT_EQ(config->ResourceOf("h100"), "");
}

TEST(KueueConfigTest, NoResourcesMeansNoMapping) {
  absl::StatusOr<KueueConfig> config = ParseKueueConfiguration(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n", kSource);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->mappings.empty());
}

TEST(KueueConfigTest, ReadsJson) {
  absl::StatusOr<KueueConfig> config = ParseKueueConfiguration(
      R"({"apiVersion":"config.kueue.x-k8s.io/v1beta2","kind":"Configuration",)"
      R"("resources":{"deviceClassMappings":[{"name":"r","deviceClassNames":["a"]}]}})",
      kSource);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ResourceOf("a"), "r");
}

TEST(KueueConfigTest, ReadsTheConfigMapKey) {
  absl::StatusOr<KueueConfig> config = ParseKueueConfigMap(ConfigMap(kMapped), ConfigMapRef{});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->mappings.size(), 2u);
}

struct BadInput {
  std::string what;
  json configmap;
  std::string want;  // a substring of the error
};

TEST(KueueConfigTest, ErrorsNameTheConfigMapAndTheField) {
  const std::string head = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n";
  const std::vector<BadInput> cases = {
      {"no data", {{"metadata", json::object()}}, "kueue-manager-config: data: has no key"},
      {"another key",
       {{"data", {{"config.yaml", head}}}},
       "data: has no key controller_manager_config.yaml"},
      {"not YAML", ConfigMap("resources: [unclosed\n"), "data.controller_manager_config.yaml"},
      {"another kind", ConfigMap("apiVersion: v1\nkind: ConfigMap\n"),
       "apiVersion/kind: want config.kueue.x-k8s.io/<version> Configuration"},
      {"resources a list", ConfigMap(head + "resources: []\n"),
       "resources: must be an object, not a list"},
      {"mappings an object", ConfigMap(head + "resources:\n  deviceClassMappings: {}\n"),
       "resources.deviceClassMappings: must be a list, not an object"},
      {"no name",
       ConfigMap(head + "resources:\n  deviceClassMappings:\n  - deviceClassNames: [a]\n"),
       "resources.deviceClassMappings[0].name: required"},
      {"classes a string",
       ConfigMap(head +
                 "resources:\n  deviceClassMappings:\n  - name: r\n    deviceClassNames: a\n"),
       "resources.deviceClassMappings[0].deviceClassNames: must be a list, not a string"},
      {"class a number",
       ConfigMap(head +
                 "resources:\n  deviceClassMappings:\n  - name: r\n    deviceClassNames: [a, 7]\n"),
       "resources.deviceClassMappings[0].deviceClassNames[1]: must be a string, not a number"},
      {"two documents", ConfigMap(head + "---\n" + head), "holds 2 objects"},
  };
  for (const BadInput& c : cases) {
    absl::StatusOr<KueueConfig> config = ParseKueueConfigMap(c.configmap, ConfigMapRef{});
    ASSERT_FALSE(config.ok()) << c.what;
    EXPECT_THAT(std::string(config.status().message()), HasSubstr(kSource)) << c.what;
    EXPECT_THAT(std::string(config.status().message()), HasSubstr(c.want)) << c.what;
  }
}

TEST(KueueConfigTest, ParsesTheFlag) {
  absl::StatusOr<ConfigMapRef> ref =
      ParseConfigMapRef("configmap/kueue-system/kueue-manager-config");
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->namespace_name, "kueue-system");
  EXPECT_EQ(ref->name, "kueue-manager-config");
  EXPECT_EQ(ref->key, "controller_manager_config.yaml");
  ref = ParseConfigMapRef("configmap/ops/kueue:config.yaml");
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->key, "config.yaml");
  EXPECT_EQ(ref->Describe(), "configmap ops/kueue");
  for (const char* bad : {"kueue-system/kueue-manager-config", "secret/a/b", "configmap/a",
                          "configmap/A/b", "configmap/a/b:", "configmap/a/b/c"}) {
    EXPECT_FALSE(ParseConfigMapRef(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace kueue_config_test
}  // namespace gpuprofile::kueue
