// File: test/explain/node_offers_test.cc
// The migration view in explain (controller/explain/node_offers.cc): per node, who offers a
// profile's GPUs (Both / DRA / DevicePlugin) as the engine's node groups say, the
// NodesOfferedTwice finding, and what a pod that asks the device plugin for GPUs is told
// (DevicePluginRequest, DevicePluginNotOffered). The fleet: A100s published by DRA on node-1 (2),
// node-2 and node-3 (1 each); Nodes as each case gives them.
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/dra/manifest_reader.h"
#include "controller/explain/diagnosis.h"
#include "controller/explain/manifest_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/explain/explain_testing.h"

namespace gpuprofile::explain {
namespace node_offers_test {
namespace {

using ::gpuprofile::explain::testing::Codes;
using ::gpuprofile::explain::testing::FindingOf;

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Slice(const std::string& node, int gpus) {
  std::string out = absl::StrCat(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n", "metadata: {name: ", node,
      "-gpu}\nspec:\n", "  driver: gpu.nvidia.com\n  nodeName: ", node, "\n",
      "  pool: {name: ", node, ", generation: 1, resourceSliceCount: 1}\n  devices:\n");
  for (int i = 0; i < gpus; ++i) {
    absl::StrAppend(&out, "  - name: gpu-", i, R"(
    attributes:
      type: {string: gpu}
      productName: {string: NVIDIA A100-SXM4-40GB}
    capacity:
      memory: {value: 40Gi}
)");
  }
  return out + "---\n";
}

constexpr char kFleet[] = R"(
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: a100}
spec:
  selector: {memory: {min: 40Gi}}
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ml-train}
---
)";

// A Node; `gpus` > 0: the device plugin offers that many (allocatable nvidia.com/gpu);
// `product`: GPU Feature Discovery's label.
std::string Node(const std::string& name, int gpus, const std::string& product = "") {
  std::string out = absl::StrCat("apiVersion: v1\nkind: Node\nmetadata:\n  name: ", name, "\n");
  if (!product.empty()) {
    absl::StrAppend(&out, "  labels: {nvidia.com/gpu.product: ", product, "}\n");
  }
  absl::StrAppend(&out, "status: {allocatable: {cpu: \"32\"",
                  gpus > 0 ? absl::StrCat(", nvidia.com/gpu: \"", gpus, "\"") : "", "}}\n---\n");
  return out;
}

// A pending pod in ml-train asking the device plugin (`resources`: a container's resources) and,
// with `template_claim`, DRA for a claim from the a100 template.
std::string PodYaml(const std::string& name, const std::string& resources,
                    bool template_claim = false, const std::string& node_name = "") {
  return absl::StrCat("apiVersion: v1\nkind: Pod\nmetadata: {name: ", name,
                      ", namespace: ml-train}\nspec:\n",
                      node_name.empty() ? "" : absl::StrCat("  nodeName: ", node_name, "\n"),
                      "  containers: [{name: main, resources: ", resources, "}]\n",
                      template_claim ? "  resourceClaims: [{name: gpu, "
                                       "resourceClaimTemplateName: a100}]\n"
                                     : "",
                      "status: {phase: Pending}\n---\n");
}

// A claim of the a100 class made for pod `pod`; allocated to `device` of node-1 when given.
std::string Claim(const std::string& name, const std::string& pod, const std::string& device = "") {
  std::string out = absl::StrCat(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: ", name,
      "\n  namespace: ml-train\n  annotations: {resource.kubernetes.io/pod-claim-name: gpu}\n",
      "  ownerReferences: [{apiVersion: v1, kind: Pod, name: ", pod,
      ", uid: u-1, controller: true}]\n", "spec:\n  devices:\n    requests:\n    - name: gpu\n",
      "      exactly: {deviceClassName: a100, count: 1}\n");
  if (!device.empty()) {
    absl::StrAppend(&out, "status:\n  allocation:\n    devices:\n      results:\n",
                    "      - {request: gpu, driver: gpu.nvidia.com, pool: node-1, device: ", device,
                    "}\n");
  }
  return out + "---\n";
}

ClusterView View(const std::string& extra, bool slices = true) {
  const std::string text = absl::StrCat(
      slices ? absl::StrCat(Slice("node-1", 2), Slice("node-2", 1), Slice("node-3", 1)) : "",
      kFleet, extra);
  return testing::ViewOfManifests(text);
}

struct OffersCase {
  std::string name;
  std::string nodes;  // Node objects
  std::vector<std::string> both, dra, device_plugin;
  int64_t device_plugin_count = 0;
  // The node groups of the view: name -> offeredBy.
  std::vector<std::pair<std::string, std::string>> groups;
  bool offered_twice = false;  // NodesOfferedTwice among the findings
};

constexpr char kDraGroup[] = "nvidia-a100-sxm4-40gb";
constexpr char kPluginGroup[] = "nvidia-a100-sxm4-40gb-device-plugin";

void PrintTo(const OffersCase& c, std::ostream* os) { *os << c.name; }

class ProfileNodeOffersTest : public ::testing::TestWithParam<OffersCase> {};

TEST_P(ProfileNodeOffersTest, EachNodeIsOfferedAsTheNodeGroupsSay) {
  const OffersCase& c = GetParam();
  const ClusterView view = View(c.nodes);
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> d = explainer.ExplainProfile("a100");
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_TRUE(d->node_offers.has_value());
  const NodeOffers& o = *d->node_offers;
  EXPECT_THAT(o.both.names, ElementsAreArray(c.both));
  EXPECT_EQ(o.both.count, static_cast<int64_t>(c.both.size()));
  EXPECT_THAT(o.dra.names, ElementsAreArray(c.dra));
  EXPECT_EQ(o.dra.count, static_cast<int64_t>(c.dra.size()));
  EXPECT_THAT(o.device_plugin.names, ElementsAreArray(c.device_plugin));
  EXPECT_EQ(o.device_plugin.count, c.device_plugin_count);
  EXPECT_THAT(o.node_groups, ElementsAreArray(c.groups));
  EXPECT_EQ(FindingOf(*d, "NodesOfferedTwice") != nullptr, c.offered_twice);
  EXPECT_FALSE(d->HasCause());  // the profile serves: the view is evidence, not a cause

  // The same as the node groups `run` writes: each group's offeredBy, and the Both nodes are
  // the DRA groups' offeredTwiceNodes.
  std::set<std::string> twice;
  for (const api::GpuNodeGroup& g : explainer.state().node_groups) {
    twice.insert(g.status.offered_twice.begin(), g.status.offered_twice.end());
    for (const auto& [name, offered_by] : o.node_groups) {
      if (name == g.metadata.name) {
        EXPECT_EQ(offered_by, g.status.offered_by) << name;
      }
    }
  }
  EXPECT_THAT(twice, ElementsAreArray(c.both));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ProfileNodeOffersTest,
    ::testing::Values(OffersCase{"MidMigration",
                                 Node("node-1", 2) + Node("node-2", 0) +
                                     Node("old-1", 8, "NVIDIA-A100-SXM4-40GB") +
                                     Node("old-2", 8, "NVIDIA-A100-SXM4-40GB") +
                                     Node("v100-1", 8, "Tesla-V100-SXM2-16GB"),
                                 {"node-1"},
                                 {"node-2",
                                  "node-3"},  // node-3 has no Node object: DRA offers its GPUs
                                 {"old-1", "old-2"},
                                 2,
                                 {{kDraGroup, "Both"}, {kPluginGroup, "DevicePlugin"}},
                                 true},
                      OffersCase{"AllOnDra",
                                 Node("node-1", 0) + Node("node-2", 0) + Node("node-3", 0),
                                 {},
                                 {"node-1", "node-2", "node-3"},
                                 {},
                                 0,
                                 {{kDraGroup, "DRA"}},
                                 false},
                      OffersCase{"EveryDraNodeAlsoOnThePlugin",
                                 Node("node-1", 2) + Node("node-2", 1) + Node("node-3", 1),
                                 {"node-1", "node-2", "node-3"},
                                 {},
                                 {},
                                 0,
                                 {{kDraGroup, "Both"}},
                                 true},
                      OffersCase{"OtherProductsOnThePluginAreNotListed",
                                 Node("node-1", 0) + Node("v100-1", 8, "Tesla-V100-SXM2-16GB"),
                                 {},
                                 {"node-1", "node-2", "node-3"},
                                 {},
                                 0,
                                 {{kDraGroup, "DRA"}},
                                 false}),
    [](const ::testing::TestParamInfo<OffersCase>& param) { return param.param.name; });

// The DRA group's name carries the driver version when devices publish one; these do not.
TEST(ProfileNodeOffersTest, GroupNamesAreTheEngines) {
  const ClusterView view = View(Node("old-1", 8, "NVIDIA-A100-SXM4-40GB"));
  Explainer explainer(view);
  std::vector<std::string> names;
  for (const api::GpuNodeGroup& g : explainer.state().node_groups) names.push_back(g.metadata.name);
  EXPECT_THAT(names, ElementsAre(kDraGroup, kPluginGroup));
}

TEST(ProfileNodeOffersTest, NodesNotReadLeaveTheViewOut) {
  const ClusterView view = View("");
  ASSERT_FALSE(view.nodes_known);
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainProfile("a100");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->node_offers.has_value());
  EXPECT_THAT(Codes(*d), ElementsAre("ProfileServing"));
  EXPECT_FALSE(EncodeDiagnosis(*d).contains("nodeOffers"));
  EXPECT_THAT(FormatDiagnosis(*d), Not(HasSubstr("per node")));
}

TEST(ProfileNodeOffersTest, ListsAreCappedAndCountsAreNot) {
  std::string nodes = Node("node-1", 0);
  for (int i = 0; i < 12; ++i) {
    nodes += Node(absl::StrCat("old-", 10 + i), 4, "NVIDIA-A100-SXM4-40GB");
  }
  const ClusterView view = View(nodes);
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainProfile("a100");
  ASSERT_TRUE(d.ok() && d->node_offers.has_value());
  EXPECT_EQ(d->node_offers->device_plugin.count, 12);
  EXPECT_EQ(d->node_offers->device_plugin.names.size(), kMaxListedNodes);
  EXPECT_EQ(d->node_offers->device_plugin.names.front(), "old-10");
  EXPECT_THAT(FormatDiagnosis(*d),
              HasSubstr("   DevicePlugin (same GPU product, not on DRA yet): 12 (old-10, old-11, "
                        "old-12, old-13, old-14, old-15, old-16, old-17, old-18, old-19, ...)\n"));
}

// A group's status keeps the first 100 offeredTwiceNodes; past them, the Node's allocatable
// says it (the engine's rule), so the counts stay exact at fleet scale.
TEST(ProfileNodeOffersTest, BothPastTheNamesAStatusKeeps) {
  constexpr int kNodes = api::kMaxNodeNamesInStatus + 5;
  std::string text;
  for (int i = 0; i < kNodes; ++i) {
    const std::string name = absl::StrCat("n-", 1000 + i);
    text += Slice(name, 1) + Node(name, 1);
  }
  ClusterView view = View(text, /*slices=*/false);
  Explainer explainer(view);
  ASSERT_EQ(explainer.state().node_groups.size(), 1u);
  const api::GpuNodeGroupStatus& group = explainer.state().node_groups[0].status;
  EXPECT_EQ(group.device_plugin_nodes, kNodes);
  EXPECT_EQ(group.offered_twice.size(), static_cast<size_t>(api::kMaxNodeNamesInStatus));
  absl::StatusOr<Diagnosis> d = explainer.ExplainProfile("a100");
  ASSERT_TRUE(d.ok() && d->node_offers.has_value());
  EXPECT_EQ(d->node_offers->both.count, kNodes);
  EXPECT_EQ(d->node_offers->dra.count, 0);
  const Finding* twice = FindingOf(*d, "NodesOfferedTwice");
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(twice->evidence["nodeCount"], kNodes);
  EXPECT_EQ(twice->evidence["nodes"].size(), kMaxListedClaims);
}

TEST(ProfileNodeOffersTest, JsonAndText) {
  const ClusterView view =
      View(Node("node-1", 2) + Node("node-2", 0) + Node("old-1", 8, "NVIDIA-A100-SXM4-40GB"));
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainProfile("a100");
  ASSERT_TRUE(d.ok());
  const nlohmann::ordered_json j = EncodeDiagnosis(*d);
  EXPECT_EQ(j["nodeOffers"], nlohmann::ordered_json::parse(R"({
    "nodeCount": 4,
    "offeredBy": {
      "Both": {"count": 1, "nodes": ["node-1"]},
      "DRA": {"count": 2, "nodes": ["node-2", "node-3"]},
      "DevicePlugin": {"count": 1, "nodes": ["old-1"]}},
    "nodeGroups": [{"name": "nvidia-a100-sxm4-40gb", "offeredBy": "Both"},
                   {"name": "nvidia-a100-sxm4-40gb-device-plugin", "offeredBy": "DevicePlugin"}]
  })"));
  EXPECT_EQ(j["findings"][0]["code"], "NodesOfferedTwice");
  EXPECT_EQ(j["findings"][0]["evidence"]["nodes"], nlohmann::ordered_json({"node-1"}));
  EXPECT_EQ(j["findings"][0]["evidence"]["nodeGroups"],
            nlohmann::ordered_json({"nvidia-a100-sxm4-40gb"}));
  const std::string text = FormatDiagnosis(*d);
  EXPECT_THAT(text, HasSubstr("1. NodesOfferedTwice (Info) [profile a100]\n"
                              "   1 node of the 3 with devices DeviceClass \"a100\" selects offers "
                              "its GPUs through both the device plugin"));
  EXPECT_THAT(text, HasSubstr("\nWho offers the GPUs, per node (4 nodes):\n"
                              "   Both (device plugin and DRA): 1 (node-1)\n"
                              "   DRA: 2 (node-2, node-3)\n"
                              "   DevicePlugin (same GPU product, not on DRA yet): 1 (old-1)\n"
                              "   node groups: nvidia-a100-sxm4-40gb (Both), "
                              "nvidia-a100-sxm4-40gb-device-plugin (DevicePlugin)\n"));
}

// ---- pods
// ----------------------------------------------------------------------------------------

struct PodCase {
  std::string name;
  std::string objects;  // Nodes, the pod "p" and its claims
  bool slices = true;
  std::vector<std::string> codes;  // ranked
  bool cause = false;
};

void PrintTo(const PodCase& c, std::ostream* os) { *os << c.name; }

class PodNodeOffersTest : public ::testing::TestWithParam<PodCase> {};

TEST_P(PodNodeOffersTest, Findings) {
  const PodCase& c = GetParam();
  const ClusterView view = View(c.objects, c.slices);
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainPod("ml-train", "p");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Codes(*d), ElementsAreArray(c.codes));
  EXPECT_EQ(d->HasCause(), c.cause);
  EXPECT_FALSE(d->node_offers.has_value());  // the per-node section is the profile's
}

constexpr char kGpu1[] = "{limits: {nvidia.com/gpu: 1}}";

INSTANTIATE_TEST_SUITE_P(
    Cases, PodNodeOffersTest,
    ::testing::Values(
        PodCase{"AsksThePluginWhileSomeNodesStillRunIt",
                Node("node-1", 0) + Node("old-1", 8, "NVIDIA-A100-SXM4-40GB") + PodYaml("p", kGpu1),
                true,
                {"DevicePluginRequest", "PodPendingNotDra", "NoResourceClaims"},
                false},
        PodCase{"AsksThePluginWhenNoNodeRunsIt",
                Node("node-1", 0) + Node("node-2", 0) + PodYaml("p", kGpu1),
                true,
                {"DevicePluginNotOffered", "NoResourceClaims"},
                true},
        PodCase{"ScheduledPodIsToldNotBlamed",
                Node("node-1", 0) + PodYaml("p", kGpu1, false, "node-1"),
                true,
                {"DevicePluginRequest", "NoResourceClaims"},
                false},
        PodCase{"NodesNotReadIsInfoOnly",
                PodYaml("p", kGpu1),
                true,
                {"DevicePluginRequest", "PodPendingNotDra", "NoResourceClaims"},
                false},
        PodCase{"NoDraDevicesIsNoMigration",
                Node("old-1", 8, "NVIDIA-A100-SXM4-40GB") + PodYaml("p", kGpu1),
                false,
                {"PodPendingNotDra", "NoResourceClaims"},
                false},
        PodCase{"AClassServesTheResourceThroughDra",
                Node("node-1", 0) + PodYaml("p", kGpu1) +
                    "apiVersion: gpuprofile.io/v1alpha1\nkind: GpuProfile\n"
                    "metadata: {name: compat}\nspec:\n  extendedResourceName: nvidia.com/gpu\n"
                    "  claimTemplate: {namespaces: [ml-train]}\n---\n",
                true,
                {"PodPendingNotDra", "NoResourceClaims"},
                false},
        PodCase{"ZeroGpusIsNoRequest",
                Node("node-1", 0) + PodYaml("p", "{limits: {nvidia.com/gpu: 0, cpu: 1}}"),
                true,
                {"PodPendingNotDra", "NoResourceClaims"},
                false},
        PodCase{"PendingClaimOnNodesOfferedTwice",
                Node("node-1", 2) + PodYaml("p", "{}", true) + Claim("p-gpu", "p"),
                true,
                {"NoDraCauseFound", "NodesOfferedTwice"},
                false},
        PodCase{"PendingClaimOnDraOnlyNodes",
                Node("node-1", 0) + PodYaml("p", "{}", true) + Claim("p-gpu", "p"),
                true,
                {"NoDraCauseFound"},
                false},
        PodCase{"BothAsksAndPendingClaim",
                Node("node-1", 2) + PodYaml("p", kGpu1, true) + Claim("p-gpu", "p"),
                true,
                {"DevicePluginRequest", "NoDraCauseFound", "NodesOfferedTwice"},
                false}),
    [](const ::testing::TestParamInfo<PodCase>& param) { return param.param.name; });

TEST(PodNodeOffersTest, DevicePluginRequestEvidenceAndRemedy) {
  const ClusterView view = View(Node("node-1", 2) + Node("old-1", 8, "NVIDIA-A100-SXM4-40GB") +
                                PodYaml("p", "{limits: {nvidia.com/gpu: 2}}"));
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainPod("ml-train", "p");
  ASSERT_TRUE(d.ok());
  const Finding* f = FindingOf(*d, "DevicePluginRequest");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_THAT(f->message, HasSubstr("asks the device plugin for 2 nvidia.com/gpu, not DRA, while "
                                    "DRA offers GPUs on 3 nodes"));
  EXPECT_THAT(f->remedy, HasSubstr("resourceClaimTemplateName one of a100"));
  EXPECT_EQ(f->evidence["requests"], nlohmann::ordered_json::parse(R"({"nvidia.com/gpu": 2})"));
  EXPECT_EQ(f->evidence["devicePluginNodes"], nlohmann::ordered_json({"node-1", "old-1"}));
  EXPECT_EQ(f->evidence["devicePluginNodeCount"], 2);
  EXPECT_EQ(f->evidence["draNodeCount"], 3);
  EXPECT_EQ(f->evidence["templates"], nlohmann::ordered_json({"a100"}));
}

TEST(PodNodeOffersTest, TwoPendingClaimsOfOneProfileSayItOnce) {
  const ClusterView view =
      View(Node("node-1", 2) +
           absl::StrCat("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml-train}\n",
                        "spec:\n  containers: [{name: main}]\n  resourceClaims:\n",
                        "  - {name: gpu, resourceClaimName: c1}\n",
                        "  - {name: gpu2, resourceClaimName: c2}\n---\n") +
           Claim("c1", "p") + Claim("c2", "p"));
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainPod("ml-train", "p");
  ASSERT_TRUE(d.ok());
  EXPECT_THAT(Codes(*d), ElementsAre("NoDraCauseFound", "NoDraCauseFound", "NodesOfferedTwice"));
}

TEST(PodNodeOffersTest, AllocatedClaimIsNotWarnedAbout) {
  const ClusterView view =
      View(Node("node-1", 2) + PodYaml("p", "{}", true, "node-1") + Claim("p-gpu", "p", "gpu-0"));
  absl::StatusOr<Diagnosis> d = Explainer(view).ExplainPod("ml-train", "p");
  ASSERT_TRUE(d.ok());
  EXPECT_THAT(Codes(*d), ElementsAre("ClaimAllocated"));
}

}  // namespace
}  // namespace node_offers_test
}  // namespace gpuprofile::explain
