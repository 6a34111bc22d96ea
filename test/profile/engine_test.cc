// File: test/profile/engine_test.cc
#include "controller/profile/engine.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/dra/resource_claim.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace engine_test {
namespace {

using ::gpuprofile::profile::testing::Cond;
using ::gpuprofile::profile::testing::DefaultSpec;
using ::gpuprofile::profile::testing::LoadInventory;
using ::gpuprofile::profile::testing::MakeProfile;
using ::gpuprofile::profile::testing::Ns;
using ::gpuprofile::profile::testing::Q;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> TemplateKeys(const DesiredState& state) {
  std::vector<std::string> keys;
  for (const dra::ResourceClaimTemplate& t : state.ClaimTemplates()) {
    keys.push_back(t.metadata.namespace_name + "/" + t.metadata.name);
  }
  return keys;
}

class EngineTest : public ::testing::Test {
 protected:
  EngineTest() : inventory_(LoadInventory({testing::kSampleFleet})) {
    input_.kube_version = *KubeVersion::Parse("1.34");
  }
  DesiredState Run() { return ComputeDesiredState(input_, inventory_); }

  dra::Inventory inventory_;
  EngineInput input_;
};

TEST_F(EngineTest, StoryProfileGeneratesClassTemplatesAndStatus) {
  api::GpuProfileSpec spec = DefaultSpec("large-memory");
  spec.selector.memory = api::QuantityRange{Q("40Gi"), std::nullopt};
  spec.claim_template.namespaces = {"ml-train"};
  spec.claim_template.namespace_selector = meta::LabelSelector{{{"gpu-profiles", "enabled"}}, {}};
  spec.count = 2;
  input_.profiles.push_back(MakeProfile("large-memory", spec));
  input_.profiles[0].metadata.generation = 3;
  input_.namespaces = {Ns("ml-train"), Ns("ml-inference", {{"gpu-profiles", "enabled"}}),
                       Ns("batch", {{"gpu-profiles", "enabled"}}, /*terminating=*/true),
                       Ns("default")};
  const DesiredState state = Run();

  ASSERT_EQ(state.device_classes.size(), 1u);
  const dra::DeviceClass& cls = state.device_classes[0];
  EXPECT_EQ(cls.metadata.name, "large-memory");
  EXPECT_THAT(
      cls.metadata.labels,
      ElementsAre(std::make_pair(std::string(kManagedByLabel), std::string(kManagedByValue)),
                  std::make_pair(std::string(kProfileLabel), std::string("large-memory"))));
  ASSERT_EQ(cls.metadata.owner_references.size(), 1u);
  EXPECT_TRUE(cls.metadata.owner_references[0].controller);
  EXPECT_EQ(cls.selectors.size(), 2u);

  EXPECT_THAT(TemplateKeys(state),
              ElementsAre("ml-inference/large-memory", "ml-train/large-memory"));
  // One set for the profile, however many namespaces: the prototype has no namespace.
  ASSERT_EQ(state.template_sets.size(), 1u);
  EXPECT_EQ(state.template_sets[0].prototype.metadata.namespace_name, "");
  EXPECT_THAT(state.template_sets[0].namespaces, ElementsAre("ml-inference", "ml-train"));
  EXPECT_EQ(state.ClaimTemplates()[1].metadata.namespace_name, "ml-train");
  EXPECT_EQ(state.ClaimTemplates()[1].metadata.owner_references.size(), 1u);
  const dra::ExactDeviceRequest request = state.ClaimTemplates()[0].requests.at(0);
  EXPECT_EQ(request.name, "gpu");
  EXPECT_EQ(request.device_class_name, "large-memory");
  EXPECT_EQ(request.allocation_mode, "ExactCount");
  EXPECT_EQ(request.count, 2);

  ASSERT_EQ(state.profiles.size(), 1u);
  const ProfileOutcome& p = state.profiles[0];
  const api::GpuProfileStatus& status = p.profile.status;
  EXPECT_EQ(status.observed_generation, 3);
  EXPECT_EQ(status.selectors, cls.selectors);
  EXPECT_EQ(status.matched_devices, 16);  // 12 A100 (40Gi) + 4 L40S (46068Mi)
  EXPECT_EQ(status.matched_nodes, 5);
  ASSERT_EQ(status.node_groups.size(), 2u);
  EXPECT_EQ(status.node_groups[0].name, "nvidia-a100-sxm4-40gb-550.127.8");
  EXPECT_EQ(status.node_groups[0].devices, 12);
  EXPECT_EQ(status.node_groups[0].nodes, 3);
  EXPECT_EQ(status.claim_templates.desired, 2);
  EXPECT_EQ(status.claim_templates.ready, 2);
  EXPECT_EQ(Cond(p, meta::kConditionReady).status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(Cond(p, meta::kConditionSatisfiable).status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(Cond(p, meta::kConditionSatisfiable).message, "16 devices on 5 nodes in 2 node groups");
  EXPECT_EQ(Cond(p, meta::kConditionStalled).status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(Cond(p, meta::kConditionReady).observed_generation, 3);
  EXPECT_THAT(state.node_groups[0].status.profiles, ElementsAre("large-memory"));
}

TEST_F(EngineTest, FortyEightGiExcludesTheL40SAndAnEmptyMatchIsUnsatisfiableButReady) {
  api::GpuProfileSpec xl = DefaultSpec("xl");
  xl.selector.memory = api::QuantityRange{Q("48Gi"), std::nullopt};
  input_.profiles.push_back(MakeProfile("xl", xl));
  const DesiredState state = Run();
  const ProfileOutcome& p = state.profiles[0];
  EXPECT_EQ(p.profile.status.matched_devices, 0);
  EXPECT_EQ(p.profile.status.matched_nodes, 0);
  EXPECT_THAT(p.profile.status.node_groups, IsEmpty());
  EXPECT_EQ(Cond(p, meta::kConditionSatisfiable).status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(Cond(p, meta::kConditionSatisfiable).reason, "NoMatchingDevices");
  EXPECT_EQ(Cond(p, meta::kConditionReady).status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(state.device_classes.size(), 1u);   // declared before its nodes arrive
  EXPECT_THAT(state.template_sets, IsEmpty());  // no namespaces selected
}

TEST_F(EngineTest, InvalidProfileIsStalledAndGeneratesNothing) {
  api::GpuProfileSpec amd = DefaultSpec("amd");
  amd.driver = "gpu.amd.com";
  amd.selector.compute_capability = api::VersionRange{testing::V("8.0"), std::nullopt};
  amd.claim_template.namespaces = {"ml-train"};
  input_.profiles.push_back(MakeProfile("amd", amd));
  const DesiredState state = Run();
  const ProfileOutcome& p = state.profiles[0];
  EXPECT_FALSE(p.valid);
  EXPECT_THAT(p.problems, HasSubstr("spec.selector.computeCapability: driver gpu.amd.com"));
  EXPECT_EQ(Cond(p, meta::kConditionStalled).status, meta::ConditionStatus::kTrue);
  EXPECT_THAT(Cond(p, meta::kConditionStalled).message,
              HasSubstr("spec.selector.computeCapability"));
  EXPECT_EQ(Cond(p, meta::kConditionReady).status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(Cond(p, meta::kConditionReady).reason, "InvalidSpec");
  EXPECT_THAT(state.device_classes, IsEmpty());
  EXPECT_THAT(state.template_sets, IsEmpty());
}

TEST_F(EngineTest, TheOlderProfileWinsANameAndTheOtherReportsConflict) {
  api::GpuProfile older = MakeProfile("b-older", DefaultSpec("shared"));
  older.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  older.spec.claim_template.namespaces = {"ml-train"};
  api::GpuProfile newer = MakeProfile("a-newer", DefaultSpec("shared"));
  newer.metadata.creation_timestamp = "2026-02-01T00:00:00Z";
  newer.spec.claim_template.namespaces = {"ml-train", "batch"};
  input_.profiles = {newer, older};
  const DesiredState state = Run();
  ASSERT_EQ(state.device_classes.size(), 1u);
  EXPECT_EQ(state.device_classes[0].metadata.labels.at(kProfileLabel), "b-older");
  EXPECT_THAT(TemplateKeys(state), ElementsAre("batch/shared", "ml-train/shared"));
  const std::vector<dra::ResourceClaimTemplate> templates = state.ClaimTemplates();
  EXPECT_EQ(templates[0].metadata.labels.at(kProfileLabel), "a-newer");
  EXPECT_EQ(templates[1].metadata.labels.at(kProfileLabel), "b-older");
  const ProfileOutcome& loser = state.profiles[0];
  ASSERT_EQ(loser.profile.metadata.name, "a-newer");
  EXPECT_EQ(Cond(loser, meta::kConditionConflict).status, meta::ConditionStatus::kTrue);
  EXPECT_THAT(Cond(loser, meta::kConditionConflict).message,
              HasSubstr("DeviceClass shared is claimed by the older GpuProfile b-older"));
  EXPECT_THAT(Cond(loser, meta::kConditionConflict).message,
              HasSubstr("ResourceClaimTemplate ml-train/shared is claimed by the older"));
  EXPECT_EQ(Cond(loser, meta::kConditionReady).status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(loser.profile.status.claim_templates.desired, 2);
  EXPECT_EQ(loser.profile.status.claim_templates.ready, 1);
  EXPECT_EQ(Cond(state.profiles[1], meta::kConditionConflict).status,
            meta::ConditionStatus::kFalse);
}

TEST_F(EngineTest, ExistingObjectsAreAdoptedOnlyWhenTheOperatorManagesThem) {
  input_.profiles.push_back(MakeProfile("p", DefaultSpec("p")));
  input_.profiles[0].spec.claim_template.namespaces = {"a", "b", "c"};
  input_.profiles.push_back(MakeProfile("q", DefaultSpec("q")));
  // Class "p" was created by hand: never touched.
  dra::DeviceClass foreign;
  foreign.metadata.name = "p";
  input_.existing_classes.push_back(std::make_shared<const dra::DeviceClass>(foreign));
  // Template a/p belongs to a profile that no longer exists: adopted.
  dra::ResourceClaimTemplate orphan;
  orphan.metadata.name = "p";
  orphan.metadata.namespace_name = "a";
  orphan.metadata.labels = {{kManagedByLabel, kManagedByValue}, {kProfileLabel, "deleted"}};
  // Template b/p belongs to living profile q (which does not claim it): left alone.
  dra::ResourceClaimTemplate of_q = orphan;
  of_q.metadata.namespace_name = "b";
  of_q.metadata.labels[kProfileLabel] = "q";
  input_.existing_templates = {
      ExistingTemplate::Of(std::make_shared<const dra::ResourceClaimTemplate>(orphan)),
      ExistingTemplate::Of(std::make_shared<const dra::ResourceClaimTemplate>(of_q))};
  const DesiredState state = Run();
  ASSERT_EQ(state.device_classes.size(), 1u);
  EXPECT_EQ(state.device_classes[0].metadata.name, "q");
  EXPECT_THAT(TemplateKeys(state), ElementsAre("a/p", "c/p"));
  const ProfileOutcome& p = state.profiles[0];
  EXPECT_THAT(Cond(p, meta::kConditionConflict).message,
              HasSubstr("DeviceClass p exists and is not managed by gpu-profile-operator"));
  EXPECT_THAT(Cond(p, meta::kConditionConflict).message,
              HasSubstr("ResourceClaimTemplate b/p belongs to GpuProfile q"));
}

TEST_F(EngineTest, NamespaceSelection) {
  input_.namespaces = {Ns("x", {{"team", "ml"}}), Ns("y", {{"team", "web"}}), Ns("z"),
                       Ns("gone", {{"team", "ml"}}, /*terminating=*/true)};
  api::GpuProfileSpec all = DefaultSpec("all");
  all.claim_template.namespace_selector = meta::LabelSelector{};  // {} selects every namespace
  api::GpuProfileSpec none = DefaultSpec("none");                 // absent selects none
  api::GpuProfileSpec expr = DefaultSpec("expr");
  expr.claim_template.namespace_selector = meta::LabelSelector{
      {}, {{"team", meta::LabelSelectorRequirement::Operator::kNotIn, {"web"}}}};
  expr.claim_template.namespaces = {"not-in-files"};
  input_.profiles = {MakeProfile("all", all), MakeProfile("none", none), MakeProfile("expr", expr)};
  // The namespaces each profile targets, whether or not a template can be written there.
  auto targeted = [&](const std::string& profile) {
    for (const ProfilePlan& w : PlanProfiles(input_).profiles) {
      if (w.profile.metadata.name == profile) return w.namespaces;
    }
    return std::vector<std::string>{"<no such profile>"};
  };
  EXPECT_THAT(targeted("all"), ElementsAre("x", "y", "z"));
  // NotIn selects namespaces without the label; explicit names are trusted offline.
  EXPECT_THAT(targeted("expr"), ElementsAre("not-in-files", "x", "z"));
  EXPECT_THAT(targeted("none"), IsEmpty());
  input_.namespaces_complete = true;  // a live cluster: a missing namespace gets nothing
  EXPECT_THAT(targeted("expr"), ElementsAre("x", "z"));
  EXPECT_THAT(TemplateKeys(Run()), ElementsAre("x/all", "x/expr", "y/all", "z/all", "z/expr"));
}

TEST_F(EngineTest, OutputIsSortedAndIndependentOfInputOrder) {
  for (const char* name : {"zeta", "alpha", "mid"}) {
    api::GpuProfileSpec spec = DefaultSpec(name);
    spec.claim_template.namespaces = {"b", "a"};
    input_.profiles.push_back(MakeProfile(name, spec));
  }
  const DesiredState forward = Run();
  std::reverse(input_.profiles.begin(), input_.profiles.end());
  const DesiredState backward = Run();
  ASSERT_EQ(forward.profiles.size(), 3u);
  EXPECT_EQ(forward.profiles[0].profile.metadata.name, "alpha");
  EXPECT_EQ(forward.device_classes[2].metadata.name, "zeta");
  EXPECT_THAT(TemplateKeys(forward),
              ElementsAre("a/alpha", "a/mid", "a/zeta", "b/alpha", "b/mid", "b/zeta"));
  EXPECT_EQ(TemplateKeys(forward), TemplateKeys(backward));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(forward.profiles[i].profile.metadata.name,
              backward.profiles[i].profile.metadata.name);
  }
}

// Allocation truth: claims of the profile's class count as allocated; any claim's device is no
// longer free, whichever class it came from; pending claims and the oldest one's time.
TEST_F(EngineTest, ClaimsGiveAllocatedFreeAndPendingCounts) {
  api::GpuProfileSpec spec = DefaultSpec("large-memory");
  spec.selector.memory = api::QuantityRange{Q("40Gi"), std::nullopt};
  input_.profiles.push_back(MakeProfile("large-memory", spec));

  dra::ResourceClaim two;  // allocated from the profile's class: two A100s
  two.namespace_name = "ml";
  two.strings = dra::ClaimStrings("ml", "two", "", "");
  two.requests.push_back({"gpu", {"large-memory"}, {}, 2, false, false});
  two.allocated = true;
  two.results = {{"gpu", "gpu.nvidia.com", "a100-node-1", "gpu-0"},
                 {"gpu", "gpu.nvidia.com", "a100-node-1", "gpu-1"}};
  dra::ResourceClaim other = two;  // another class, holding one of the profile's L40S
  other.strings = dra::ClaimStrings("ml", "other", "", "");
  other.requests = {{"gpu", {"hand-written"}, {}, 1, false, false}};
  other.results = {{"gpu", "gpu.nvidia.com", "l40s-node-1", "gpu-0"}};
  dra::ResourceClaim pending;
  pending.namespace_name = "ml";
  pending.strings = dra::ClaimStrings("ml", "pending", "", "");
  pending.requests = {{"gpu", {"large-memory"}, {}, 1, false, false}};
  pending.set_created(absl::FromUnixSeconds(1796032800));
  const std::vector<const dra::ResourceClaim*> claims = {&two, &other, &pending};
  const DesiredState state = ComputeDesiredState(input_, inventory_, nullptr, claims);

  const api::GpuProfileStatus& status = state.profiles[0].profile.status;
  EXPECT_EQ(status.schedulable_devices, 16);  // claims do not make a profile less satisfiable
  EXPECT_EQ(status.allocation.allocated_devices, 2);
  EXPECT_EQ(status.allocation.allocated_claims, 1);
  EXPECT_EQ(status.allocation.free_devices, 13);
  EXPECT_EQ(status.allocation.pending_claims, 1);
  EXPECT_EQ(status.allocation.oldest_pending_claim_time, "2026-11-30T10:00:00Z");
  int64_t allocated = 0, free = 0, devices = 0;
  for (const api::GpuNodeGroup& group : state.node_groups) {
    allocated += group.status.allocated_devices;
    free += group.status.free_devices;
    devices += group.status.devices;
  }
  EXPECT_EQ(allocated, 3);
  EXPECT_EQ(free, devices - 3);

  // Without claims every schedulable device is free.
  const DesiredState none = Run();
  EXPECT_EQ(none.profiles[0].profile.status.allocation.free_devices, 16);
  EXPECT_EQ(none.profiles[0].profile.status.allocation.allocated_devices, 0);
  EXPECT_EQ(none.node_groups[0].status.free_devices, none.node_groups[0].status.devices);
}

// The migration view: a DRA node that also offers device-plugin GPUs makes its group Both with
// the OfferedTwice condition; nodes only the plugin serves form a DevicePlugin group per product.
TEST_F(EngineTest, NodeGroupsShowWhoOffersTheGpus) {
  std::vector<meta::NodeGpus> nodes = {
      {"a100-node-1", "1", 4, "NVIDIA-A100-SXM4-40GB", "40960"},  // DRA and the plugin
      {"a100-node-2", "1", 0, "NVIDIA-A100-SXM4-40GB", "40960"},  // DRA only
      {"v100-node-2", "1", 8, "Tesla-V100-SXM2-16GB", "16384"},   // the plugin only
      {"v100-node-1", "1", 8, "Tesla-V100-SXM2-16GB", "16384"},  {"cpu-node-1", "1", 0, "", ""},
  };
  const DesiredState state = ComputeDesiredState(input_, inventory_, nullptr, {}, nodes);
  std::map<std::string, const api::GpuNodeGroup*> by_name;
  for (const api::GpuNodeGroup& g : state.node_groups) by_name[g.metadata.name] = &g;
  ASSERT_EQ(by_name.count("nvidia-a100-sxm4-40gb-550.127.8"), 1u);
  const api::GpuNodeGroupStatus& a100 = by_name["nvidia-a100-sxm4-40gb-550.127.8"]->status;
  EXPECT_EQ(a100.offered_by, "Both");
  EXPECT_EQ(a100.device_plugin_nodes, 1);
  EXPECT_THAT(a100.offered_twice, ElementsAre("a100-node-1"));
  ASSERT_EQ(a100.conditions.size(), 1u);
  EXPECT_EQ(a100.conditions[0].type, "OfferedTwice");
  EXPECT_EQ(a100.conditions[0].status, meta::ConditionStatus::kTrue);
  EXPECT_THAT(a100.conditions[0].message, HasSubstr("1 node offers these GPUs through both"));
  EXPECT_THAT(a100.conditions[0].message, HasSubstr(": a100-node-1."));
  const api::GpuNodeGroupStatus& l40s = by_name["nvidia-l40s-570.133.20"]->status;
  EXPECT_EQ(l40s.offered_by, "DRA");
  EXPECT_THAT(l40s.conditions, IsEmpty());
  ASSERT_EQ(by_name.count("tesla-v100-sxm2-16gb-device-plugin"), 1u);
  const api::GpuNodeGroupStatus& v100 = by_name["tesla-v100-sxm2-16gb-device-plugin"]->status;
  EXPECT_EQ(v100.offered_by, "DevicePlugin");
  EXPECT_EQ(v100.devices, 16);
  EXPECT_EQ(v100.node_count, 2);
  EXPECT_THAT(v100.nodes, ElementsAre("v100-node-1", "v100-node-2"));
  EXPECT_EQ(v100.signature.memory, "16Gi");
  EXPECT_THAT(v100.profiles, IsEmpty());
  EXPECT_EQ(state.node_groups.size(), 3u);  // the CPU node forms no group
  EXPECT_TRUE(std::is_sorted(state.node_groups.begin(), state.node_groups.end(),
                             [](const api::GpuNodeGroup& a, const api::GpuNodeGroup& b) {
                               return a.metadata.name < b.metadata.name;
                             }));
}

}  // namespace
}  // namespace engine_test
}  // namespace gpuprofile::profile
