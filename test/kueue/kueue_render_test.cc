// `render --kueue`'s conversion (controller/kueue/kueue_render.h), from the engine's desired
// state of profiles on the example fleet (config/samples/fleet: 12 A100-40GB, 4 L40S).
#include "controller/kueue/kueue_render.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::kueue {
namespace kueue_render_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using json = nlohmann::json;
using profile::testing::DefaultSpec;
using profile::testing::MakeProfile;
using profile::testing::Ns;
using profile::testing::Q;

api::GpuProfile Profile(const std::string& name, std::vector<std::string> namespaces,
                        std::optional<int64_t> quota = std::nullopt,
                        std::vector<std::string> fallback = {}) {
  api::GpuProfileSpec spec = DefaultSpec(name);
  spec.claim_template.namespaces = std::move(namespaces);
  if (quota.has_value()) spec.quota = api::QuotaSpec{*quota};
  spec.fallback = std::move(fallback);
  return MakeProfile(name, std::move(spec));
}

profile::DesiredState Compute(std::vector<api::GpuProfile> profiles) {
  profile::EngineInput input;
  input.kube_version = KubeVersion::Newest();
  input.profiles = std::move(profiles);
  input.namespaces = {Ns("ml-train"), Ns("ml-eval"), Ns("ml-serve")};
  static const dra::Inventory* fleet =
      new dra::Inventory(profile::testing::LoadInventory({"config/samples/fleet"}));
  return profile::ComputeDesiredState(input, *fleet);
}

// The story: large-memory (>= 40Gi) with a quota of 2 per namespace in two namespaces, light
// (any GPU) without quota, and preferred (>= 80Gi: none on this fleet) falling back to
// large-memory.
std::vector<api::GpuProfile> StoryProfiles() {
  api::GpuProfile large = Profile("large-memory", {"ml-train", "ml-eval"}, 2);
  large.spec.selector.memory = api::QuantityRange{Q("40Gi"), std::nullopt};
  api::GpuProfile preferred = Profile("preferred", {"ml-train"}, 1, {"large-memory"});
  preferred.spec.selector.memory = api::QuantityRange{Q("80Gi"), std::nullopt};
  return {preferred, Profile("light", {"ml-serve"}), large};
}

TEST(KueueRenderTest, StoryDocuments) {
  absl::StatusOr<KueueRender> render = RenderKueue(Compute(StoryProfiles()));
  ASSERT_TRUE(render.ok()) << render.status();
  ASSERT_EQ(render->documents.size(), 3u);
  const json configuration = json::parse(render->documents[0].dump());
  EXPECT_EQ(configuration, json::parse(R"({
    "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
    "resources": {"deviceClassMappings": [
      {"name": "gpuprofile.io/large-memory", "deviceClassNames": ["large-memory"]},
      {"name": "gpuprofile.io/light", "deviceClassNames": ["light"]},
      {"name": "gpuprofile.io/preferred", "deviceClassNames": ["preferred"]}]}})"));
  EXPECT_EQ(json::parse(render->documents[1].dump()), json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
    "metadata": {"name": "gpu-profiles"}, "spec": {}})"));
  // large-memory: 2 x 2 namespaces; light: the 16 devices it matches; preferred: 1 x 1.
  EXPECT_EQ(json::parse(render->documents[2].dump()), json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
    "metadata": {"name": "gpu-profiles"},
    "spec": {
      "namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name",
        "operator": "In", "values": ["ml-eval", "ml-serve", "ml-train"]}]},
      "resourceGroups": [{
        "coveredResources": ["gpuprofile.io/large-memory", "gpuprofile.io/light",
                             "gpuprofile.io/preferred"],
        "flavors": [{"name": "gpu-profiles", "resources": [
          {"name": "gpuprofile.io/large-memory", "nominalQuota": 4},
          {"name": "gpuprofile.io/light", "nominalQuota": 16},
          {"name": "gpuprofile.io/preferred", "nominalQuota": 1}]}]}]}})"));
  // What a reader must know: light's quota is the fleet's, preferred's request is firstAvailable.
  ASSERT_EQ(render->notes.size(), 2u);
  EXPECT_THAT(render->notes[0], HasSubstr("GpuProfile light: no spec.quota; nominalQuota of "
                                          "gpuprofile.io/light is the 16 devices"));
  EXPECT_THAT(render->notes[1], HasSubstr("GpuProfile preferred: its template's request is "
                                          "firstAvailable"));
}

TEST(KueueRenderTest, OrderDoesNotDependOnInput) {
  std::vector<api::GpuProfile> profiles = StoryProfiles();
  absl::StatusOr<KueueRender> a = RenderKueue(Compute(profiles));
  std::reverse(profiles.begin(), profiles.end());
  absl::StatusOr<KueueRender> b = RenderKueue(Compute(profiles));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->documents.size(), b->documents.size());
  for (size_t i = 0; i < a->documents.size(); ++i) {
    EXPECT_EQ(a->documents[i].dump(), b->documents[i].dump());
  }
}

TEST(KueueRenderTest, QueueNameAndNoNamespaces) {
  KueueRenderOptions options;
  options.queue_name = "team-a";
  options.flavor_name = "team-a";
  absl::StatusOr<KueueRender> render = RenderKueue(Compute({Profile("light", {})}), options);
  ASSERT_TRUE(render.ok()) << render.status();
  const json queue = json::parse(render->documents[2].dump());
  EXPECT_EQ(queue["metadata"]["name"], "team-a");
  EXPECT_EQ(queue["spec"]["resourceGroups"][0]["flavors"][0]["name"], "team-a");
  // No template namespace: no selector, which Kueue reads as "no namespace".
  EXPECT_FALSE(queue["spec"].contains("namespaceSelector"));
}

TEST(KueueRenderTest, StalledProfilesAreNotedNotMapped) {
  api::GpuProfile broken = Profile("broken", {"ml-train"}, std::nullopt, {"missing"});
  absl::StatusOr<KueueRender> render = RenderKueue(Compute({broken, Profile("light", {})}));
  ASSERT_TRUE(render.ok()) << render.status();
  const json configuration = json::parse(render->documents[0].dump());
  ASSERT_EQ(configuration["resources"]["deviceClassMappings"].size(), 1u);
  EXPECT_EQ(configuration["resources"]["deviceClassMappings"][0]["name"], "gpuprofile.io/light");
  EXPECT_THAT(render->notes[0], HasSubstr("GpuProfile broken: generates no DeviceClass here "
                                          "(Stalled)"));
}

TEST(KueueRenderTest, NameKueueRefuses) {
  const std::string long_name(64, 'a');
  EXPECT_TRUE(QuotaResourceName(std::string(63, 'a')).ok());
  absl::StatusOr<std::string> resource = QuotaResourceName(long_name);
  ASSERT_FALSE(resource.ok());
  EXPECT_THAT(std::string(resource.status().message()),
              HasSubstr(absl::StrCat("GpuProfile ", long_name)));
  absl::StatusOr<KueueRender> render = RenderKueue(Compute({Profile(long_name, {})}));
  ASSERT_FALSE(render.ok());
  EXPECT_THAT(std::string(render.status().message()), HasSubstr("at most 63 characters"));
}

TEST(KueueRenderTest, KueueLimitOfSixteenMappings) {
  std::vector<api::GpuProfile> profiles;
  for (int i = 0; i < 16; ++i) profiles.push_back(Profile(absl::StrCat("p", i), {}));
  ASSERT_TRUE(RenderKueue(Compute(profiles)).ok());
  profiles.push_back(Profile("p16", {}));
  absl::StatusOr<KueueRender> render = RenderKueue(Compute(profiles));
  ASSERT_FALSE(render.ok());
  EXPECT_THAT(std::string(render.status().message()),
              HasSubstr("17 profiles generate DeviceClasses, and Kueue accepts at most 16"));
}

TEST(KueueRenderTest, NothingToMap) {
  absl::StatusOr<KueueRender> render = RenderKueue(Compute({}));
  ASSERT_FALSE(render.ok());
  EXPECT_THAT(std::string(render.status().message()), HasSubstr("nothing to map"));
}

}  // namespace
}  // namespace kueue_render_test
}  // namespace gpuprofile::kueue
