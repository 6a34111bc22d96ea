// File: test/explain/diagnosis_test.cc
// The diagnosis core: one test per cause (and per "not a DRA problem" answer), on a small fleet
// (node-1: two 40 GiB GPUs, node-2: one) with claims written as a scheduler would, plus the
// ranking, the claim and profile subjects, live-mode templates and the JSON and text shapes.
#include "controller/explain/diagnosis.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "controller/dra/manifest_reader.h"
#include "controller/explain/manifest_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::explain {
namespace diagnosis_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Slice(const std::string& node, int gpus, bool tainted, int slice_count = 1) {
  std::string out = absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: )",
                                 node, R"(-gpu}
spec:
  driver: gpu.nvidia.com
  nodeName: )",
                                 node, R"(
  pool: {name: )",
                                 node, R"(, generation: 1, resourceSliceCount: )", slice_count, R"(}
  devices:
)");
  for (int i = 0; i < gpus; ++i) {
    absl::StrAppend(&out, "  - name: gpu-", i, R"(
    attributes:
      type: {string: gpu}
      productName: {string: NVIDIA A100-SXM4-40GB}
    capacity:
      memory: {value: 40Gi}
)");
    if (tainted) {
      absl::StrAppend(&out,
                      "    taints: [{key: maintenance, value: \"true\", effect: NoSchedule}]\n");
    }
  }
  return out + "---\n";
}

constexpr char kProfiles[] = R"(
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: large-memory}
spec:
  selector: {memory: {min: 40Gi}}
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: pair}
spec:
  selector: {memory: {min: 40Gi}}
  count: 2
  claimTemplate: {namespaces: [batch]}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: h100}
spec:
  selector: {productNames: [NVIDIA H100 80GB HBM3]}
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: labelled}
spec:
  claimTemplate:
    namespaceSelector: {matchLabels: {gpu-profiles: enabled}}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: broken}
spec:
  selector: {cel: ["device.capacity['gpu.nvidia.com'].memory >"]}
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: big-share}
spec:
  capacityRequests: {memory: 80Gi}
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ml-train}
---
apiVersion: v1
kind: Namespace
metadata: {name: batch}
---
apiVersion: v1
kind: Namespace
metadata: {name: research}
---
)";

// A claim of `cls` made for pod `pod` (entry "gpu"), allocated to `devices` ("pool/device").
std::string Claim(const std::string& ns, const std::string& name, const std::string& cls,
                  const std::string& pod, std::vector<std::string> devices, int count = 1,
                  const std::string& capacity = "") {
  std::string out = absl::StrCat(
      R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: )",
      name, R"(
  namespace: )",
      ns, R"(
  creationTimestamp: "2026-12-01T10:00:00Z"
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: )",
      pod,
      R"(, uid: u-1, controller: true}]
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: )",
      cls, ", count: ", count,
      capacity.empty() ? "" : absl::StrCat(", capacity: {requests: {memory: ", capacity, "}}"),
      "}\n");
  if (!devices.empty()) {
    absl::StrAppend(&out, "status:\n  allocation:\n    devices:\n      results:\n");
    for (const std::string& d : devices) {
      const size_t slash = d.find('/');
      absl::StrAppend(&out,
                      "      - {request: gpu, driver: gpu.nvidia.com, pool: ", d.substr(0, slash),
                      ", device: ", d.substr(slash + 1), "}\n");
    }
  }
  return out + "---\n";
}

std::string PodYaml(const std::string& ns, const std::string& name, const std::string& entry_yaml) {
  return absl::StrCat(R"(
apiVersion: v1
kind: Pod
metadata: {name: )",
                      name, ", namespace: ", ns, R"(}
spec:
  containers: [{name: main, image: cuda}]
  resourceClaims: [)",
                      entry_yaml, R"(]
status:
  phase: Pending
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, message: "0/2 nodes are available: cannot allocate all claims."}
---
)");
}

// `slice_count`: what each pool's slices say the pool has (more than 1: incomplete pools).
ClusterView View(const std::string& extra, bool tainted = false, int slice_count = 1) {
  const std::string text = absl::StrCat(Slice("node-1", 2, tainted, slice_count),
                                        Slice("node-2", 1, tainted, slice_count), kProfiles, extra);
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ParseManifests(text, "test.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  dra::LoadedManifests loaded;
  loaded.objects = *std::move(objects);
  const KubeVersion kube = KubeVersion::Newest();
  absl::StatusOr<ManifestView> view =
      ViewFromManifests(std::move(loaded), kube, FeatureGates(kube));
  EXPECT_TRUE(view.ok()) << view.status();
  return view.ok() ? view->view : ClusterView{};
}

std::vector<std::string> Codes(const Diagnosis& d) {
  std::vector<std::string> out;
  for (const Finding& f : d.findings) out.push_back(f.code);
  return out;
}

Diagnosis ExplainPod(const ClusterView& view, const std::string& ns, const std::string& name) {
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> d = explainer.ExplainPod(ns, name);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : Diagnosis{};
}

TEST(DiagnosisTest, TemplateMissingNamesTheProfileAndTheLabelThatWouldPutItThere) {
  const ClusterView view =
      View(PodYaml("research", "p", "{name: gpu, resourceClaimTemplateName: labelled}"));
  const Diagnosis d = ExplainPod(view, "research", "p");
  ASSERT_THAT(Codes(d), ElementsAre("TemplateMissing"));
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kCause);
  EXPECT_EQ(f.profile, "labelled");
  EXPECT_EQ(f.pod_claim, "gpu");
  EXPECT_THAT(f.message, HasSubstr("\"labelled\" does not exist in namespace \"research\""));
  EXPECT_THAT(f.remedy, HasSubstr("kubectl label namespace research gpu-profiles=enabled"));
  EXPECT_THAT(f.remedy, HasSubstr("add \"research\" to its spec.claimTemplate.namespaces"));
  EXPECT_EQ(f.evidence["schedulerReason"], "Unschedulable");
  EXPECT_TRUE(d.HasCause());
}

TEST(DiagnosisTest, TemplateMissingOfAListingProfileSaysToListTheNamespace) {
  const ClusterView view =
      View(PodYaml("research", "p", "{name: gpu, resourceClaimTemplateName: large-memory}"));
  const Diagnosis d = ExplainPod(view, "research", "p");
  ASSERT_THAT(Codes(d), ElementsAre("TemplateMissing"));
  EXPECT_THAT(d.findings[0].remedy,
              HasSubstr("GpuProfile \"large-memory\" would put it there: add \"research\""));
  EXPECT_THAT(d.findings[0].remedy, Not(HasSubstr("kubectl label")));
}

TEST(DiagnosisTest, TemplateNoProfileGenerates) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: nobody}"));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("TemplateMissing"));
  EXPECT_THAT(d.findings[0].message, HasSubstr("no GpuProfile generates a template"));
}

TEST(DiagnosisTest, LiveTemplateTheOperatorHasNotCreatedYet) {
  ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: large-memory}"));
  view.live = true;  // no template exists in the cluster
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("TemplateMissing"));
  EXPECT_THAT(d.findings[0].remedy, HasSubstr("has not been created yet"));
  // Offline the operator's desired state counts: the template exists, the claim does not.
  view.live = false;
  EXPECT_THAT(Codes(ExplainPod(view, "ml-train", "p")), ElementsAre("ClaimNotCreated"));
}

TEST(DiagnosisTest, LiveClassTheOperatorHasNotCreatedYet) {
  ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: large-memory}") +
           Claim("ml-train", "p-gpu", "large-memory", "p", {}));
  view.live = true;  // no DeviceClass exists in the cluster
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("ClassMissing"));
  EXPECT_EQ(d.findings[0].profile, "large-memory");
  view.live = false;
  EXPECT_THAT(Codes(ExplainPod(view, "ml-train", "p")), ElementsAre("NoDraCauseFound"));
}

TEST(DiagnosisTest, ClaimNotFound) {
  const ClusterView view = View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimName: shared}"));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("ClaimNotFound"));
  EXPECT_EQ(d.findings[0].resource_claim, "ml-train/shared");
}

TEST(DiagnosisTest, ClassSelectsNoDevice) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: h100}") +
           Claim("ml-train", "p-gpu", "h100", "p", {}));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("NoMatchingDevice"));
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.device_class, "h100");
  EXPECT_EQ(f.resource_claim, "ml-train/p-gpu");
  EXPECT_EQ(f.evidence["matchedDevices"], 0);
  EXPECT_THAT(f.message, HasSubstr("none of the 3 devices"));
}

TEST(DiagnosisTest, AllMatchingDevicesAllocatedListsTheHolders) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: large-memory}") +
           Claim("ml-train", "p-gpu", "large-memory", "p", {}) +
           Claim("ml-train", "a", "large-memory", "a", {"node-1/gpu-0", "node-1/gpu-1"}, 2) +
           Claim("batch", "b", "pair", "b", {"node-2/gpu-0"}));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("AllDevicesAllocated"));
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.evidence["allocatedDevices"], 3);
  EXPECT_EQ(f.evidence["freeDevices"], 0);
  EXPECT_EQ(f.evidence["holders"], nlohmann::ordered_json({"batch/b", "ml-train/a"}));
  EXPECT_EQ(f.evidence["holderCount"], 2);
}

TEST(DiagnosisTest, FreeDevicesAreTainted) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: large-memory}") +
               Claim("ml-train", "p-gpu", "large-memory", "p", {}),
           /*tainted=*/true);
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("DevicesTainted"));
  EXPECT_EQ(d.findings[0].evidence["taints"],
            nlohmann::ordered_json({"maintenance=true:NoSchedule"}));
  EXPECT_EQ(d.findings[0].evidence["taintedDevices"], 3);
  EXPECT_THAT(d.findings[0].remedy, HasSubstr("spec.tolerations"));
}

TEST(DiagnosisTest, NoSingleNodeHasCountFreeDevices) {
  const ClusterView view =
      View(PodYaml("batch", "p", "{name: gpu, resourceClaimTemplateName: pair}") +
           Claim("batch", "p-gpu", "pair", "p", {}, 2) +
           Claim("ml-train", "a", "large-memory", "a", {"node-1/gpu-0"}));
  const Diagnosis d = ExplainPod(view, "batch", "p");
  ASSERT_THAT(Codes(d), ElementsAre("NotEnoughDevicesOnOneNode"));
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.evidence["count"], 2);
  EXPECT_EQ(f.evidence["maxFreeOnOneNode"], 1);
  EXPECT_EQ(f.evidence["freeDevices"], 2);
  // With node-1 free, the same claim fits: no cause.
  const ClusterView fits =
      View(PodYaml("batch", "p", "{name: gpu, resourceClaimTemplateName: pair}") +
           Claim("batch", "p-gpu", "pair", "p", {}, 2));
  EXPECT_THAT(Codes(ExplainPod(fits, "batch", "p")), ElementsAre("NoDraCauseFound"));
}

TEST(DiagnosisTest, CapacityNoDeviceAdmits) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: big-share}") +
           Claim("ml-train", "p-gpu", "big-share", "p", {}, 1, "80Gi"));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("CapacityNotAdmitted"));
  EXPECT_THAT(d.findings[0].message, HasSubstr("memory=80Gi"));
  EXPECT_EQ(d.findings[0].evidence["devicesMatchingWithoutCapacity"], 3);
  EXPECT_EQ(d.findings[0].evidence["allowingMultipleAllocations"], 0);
}

TEST(DiagnosisTest, DevicesOfIncompletePoolsAreUnavailable) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: large-memory}") +
               Claim("ml-train", "p-gpu", "large-memory", "p", {}),
           /*tainted=*/false, /*slice_count=*/2);
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("DevicesUnavailable"));
  EXPECT_EQ(d.findings[0].evidence["deviceStates"]["incompletePool"], 3);
  EXPECT_EQ(d.findings[0].evidence["incompletePools"],
            nlohmann::ordered_json({"node-1", "node-2"}));
  EXPECT_THAT(d.findings[0].message,
              HasSubstr("3 of the 3 devices DeviceClass \"large-memory\" selects cannot be "
                        "allocated: 3 are in incomplete pools"));
}

TEST(DiagnosisTest, ClassHeldByAForeignObject) {
  // An unmanaged DeviceClass holds the profile's class name: the profile does not generate it.
  const ClusterView view = View(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: large-memory}
spec: {}
---
)" + Claim("ml-train", "c", "large-memory", "p", {}));
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> d = explainer.ExplainClaim("ml-train", "c");
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_THAT(Codes(*d), ElementsAre("ClassNotGenerated"));
  EXPECT_EQ(d->findings[0].profile, "large-memory");
  absl::StatusOr<Diagnosis> profile = explainer.ExplainProfile("large-memory");
  ASSERT_TRUE(profile.ok());
  EXPECT_THAT(Codes(*profile), ElementsAre("ClassNotGenerated"));
}

TEST(DiagnosisTest, ClaimBeingDeleted) {
  std::string claim = Claim("ml-train", "c", "large-memory", "p", {});
  claim.replace(claim.find("  creationTimestamp:"), 0,
                "  deletionTimestamp: \"2026-12-01T11:00:00Z\"\n  finalizers: [x]\n");
  const ClusterView view = View(claim);
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> d = explainer.ExplainClaim("ml-train", "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Codes(*d), ElementsAre("ClaimBeingDeleted"));
}

// firstAvailable: blocked only when every alternative is; then each alternative's cause, in the
// request's order.
TEST(DiagnosisTest, FirstAvailableIsBlockedOnlyWhenEveryClassIs) {
  auto claim = [](const std::string& second) {
    return absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml-train}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - {name: h100, deviceClassName: h100}
      - {name: other, deviceClassName: )",
                        second, R"(}
---
)");
  };
  const ClusterView feasible = View(claim("large-memory"));
  Explainer a(feasible);
  absl::StatusOr<Diagnosis> d = a.ExplainClaim("ml-train", "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Codes(*d), ElementsAre("NoDraCauseFound"));

  const ClusterView blocked =
      View(claim("large-memory") +
           Claim("batch", "cx", "pair", "cx", {"node-1/gpu-0", "node-1/gpu-1"}, 2) +
           Claim("batch", "cy", "large-memory", "cy", {"node-2/gpu-0"}));
  Explainer b(blocked);
  d = b.ExplainClaim("ml-train", "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Codes(*d), ElementsAre("NoMatchingDevice", "AllDevicesAllocated"));
  EXPECT_EQ(d->findings[0].device_class, "h100");
  EXPECT_EQ(d->findings[1].device_class, "large-memory");
}

TEST(DiagnosisTest, DraNotServedComesFirst) {
  ClusterView view =
      View(PodYaml("research", "p", "{name: gpu, resourceClaimTemplateName: labelled}"));
  view.dra_served = false;
  view.dra_not_served_reason = "resource.k8s.io is not served.";
  const Diagnosis d = ExplainPod(view, "research", "p");
  EXPECT_THAT(Codes(d), ElementsAre("DraNotServed", "TemplateMissing"));
}

TEST(DiagnosisTest, StalledProfileWithItsReasonAndProblems) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: broken}") +
           Claim("ml-train", "p-gpu", "broken", "p", {}));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("ProfileStalled"));
  EXPECT_EQ(d.findings[0].profile, "broken");
  EXPECT_EQ(d.findings[0].evidence["reason"], "InvalidSpec");
  EXPECT_THAT(d.findings[0].evidence["problems"].dump(), HasSubstr("spec.selector.cel[0]"));
  // A pod whose template the Stalled profile would generate: the template is missing because
  // the profile is Stalled, and that is said first.
  const ClusterView no_claim =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: broken}"));
  EXPECT_THAT(Codes(ExplainPod(no_claim, "ml-train", "p")), ElementsAre("ProfileStalled"));
}

TEST(DiagnosisTest, AllocatedClaimIsNotADraProblem) {
  const ClusterView view =
      View(PodYaml("ml-train", "p", "{name: gpu, resourceClaimTemplateName: large-memory}") +
           Claim("ml-train", "p-gpu", "large-memory", "p", {"node-2/gpu-0"}));
  const Diagnosis d = ExplainPod(view, "ml-train", "p");
  EXPECT_THAT(Codes(d), ElementsAre("PodPendingNotDra", "ClaimAllocated"));
  EXPECT_FALSE(d.HasCause());
  EXPECT_EQ(d.findings[0].evidence["schedulerMessage"],
            "0/2 nodes are available: cannot allocate all claims.");
  EXPECT_EQ(d.findings[1].evidence["devices"],
            nlohmann::ordered_json({"gpu.nvidia.com/node-2/gpu-0"}));
}

TEST(DiagnosisTest, PodWithoutClaims) {
  const ClusterView view = View(PodYaml("ml-train", "p", ""));
  EXPECT_THAT(Codes(ExplainPod(view, "ml-train", "p")),
              ElementsAre("PodPendingNotDra", "NoResourceClaims"));
}

TEST(DiagnosisTest, TwoClaimsRankedMostLikelyFirst) {
  const ClusterView view =
      View(PodYaml("ml-train", "p",
                   "{name: gpu, resourceClaimTemplateName: large-memory}, "
                   "{name: b, resourceClaimTemplateName: nobody}") +
           Claim("ml-train", "p-gpu", "large-memory", "p", {}) +
           Claim("batch", "cx", "pair", "cx", {"node-1/gpu-0", "node-1/gpu-1"}, 2) +
           Claim("batch", "cy", "pair", "cy", {"node-2/gpu-0"}));
  EXPECT_THAT(Codes(ExplainPod(view, "ml-train", "p")),
              ElementsAre("TemplateMissing", "AllDevicesAllocated"));
}

TEST(DiagnosisTest, ClaimSubject) {
  const ClusterView view = View(Claim("ml-train", "c", "h100", "p", {}));
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> d = explainer.ExplainClaim("ml-train", "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->kind, "ResourceClaim");
  EXPECT_THAT(Codes(*d), ElementsAre("NoMatchingDevice"));
  EXPECT_EQ(d->findings[0].evidence["ownerPod"], "p");
  EXPECT_EQ(explainer.ExplainClaim("ml-train", "nope").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(explainer.ExplainPod("ml-train", "nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(DiagnosisTest, ProfileSubject) {
  const ClusterView view = View(Claim("ml-train", "p-gpu", "large-memory", "p", {}) +
                                Claim("ml-train", "a", "large-memory", "a",
                                      {"node-1/gpu-0", "node-1/gpu-1", "node-2/gpu-0"}, 3));
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> full = explainer.ExplainProfile("large-memory");
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_THAT(Codes(*full), ElementsAre("AllDevicesAllocated", "PendingClaims"));
  EXPECT_EQ(full->findings[1].evidence["claims"], nlohmann::ordered_json({"ml-train/p-gpu"}));
  absl::StatusOr<Diagnosis> h100 = explainer.ExplainProfile("h100");
  ASSERT_TRUE(h100.ok());
  EXPECT_THAT(Codes(*h100), ElementsAre("NoMatchingDevice"));
  absl::StatusOr<Diagnosis> broken = explainer.ExplainProfile("broken");
  ASSERT_TRUE(broken.ok());
  EXPECT_THAT(Codes(*broken), ElementsAre("ProfileStalled"));

  const ClusterView empty = View("");
  Explainer idle(empty);
  absl::StatusOr<Diagnosis> serving = idle.ExplainProfile("large-memory");
  ASSERT_TRUE(serving.ok());
  EXPECT_THAT(Codes(*serving), ElementsAre("ProfileServing"));
  EXPECT_EQ(serving->findings[0].evidence["freeDevices"], 3);
  EXPECT_FALSE(serving->HasCause());
  EXPECT_EQ(idle.ExplainProfile("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(DiagnosisTest, JsonShape) {
  const ClusterView view =
      View(PodYaml("research", "p", "{name: gpu, resourceClaimTemplateName: labelled}"));
  const nlohmann::ordered_json j = EncodeDiagnosis(ExplainPod(view, "research", "p"));
  EXPECT_EQ(j["apiVersion"], "gpuprofile.io/v1alpha1");
  EXPECT_EQ(j["kind"], "Explanation");
  EXPECT_EQ(j["subject"],
            nlohmann::ordered_json::parse(R"({"kind":"Pod","namespace":"research","name":"p"})"));
  EXPECT_EQ(j["result"], "CauseFound");
  ASSERT_EQ(j["findings"].size(), 1u);
  const nlohmann::ordered_json& f = j["findings"][0];
  EXPECT_EQ(f["code"], "TemplateMissing");
  EXPECT_EQ(f["severity"], "Cause");
  EXPECT_EQ(f["podClaim"], "gpu");
  EXPECT_EQ(f["profile"], "labelled");
  EXPECT_TRUE(f["message"].is_string());
  EXPECT_TRUE(f["remedy"].is_string());
  EXPECT_EQ(f["evidence"]["template"], "labelled");
}

TEST(DiagnosisTest, TextNamesTheCauseFixAndEvidence) {
  const ClusterView view =
      View(PodYaml("research", "p", "{name: gpu, resourceClaimTemplateName: labelled}"));
  const std::string text = FormatDiagnosis(ExplainPod(view, "research", "p"));
  EXPECT_THAT(text, HasSubstr("Pod research/p: 1 cause found, most likely first\n"));
  EXPECT_THAT(text, HasSubstr("1. TemplateMissing (Cause) [pod claim gpu, profile labelled]\n"));
  EXPECT_THAT(text, HasSubstr("   Fix: GpuProfile \"labelled\" would put it there"));
  EXPECT_THAT(text, HasSubstr("     profileNamespaces: labelled: (none)\n"));
}

TEST(PodTest, DecodeErrorsNameTheField) {
  absl::StatusOr<Pod> pod = DecodePod(nlohmann::json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
    "spec": {"resourceClaims": [{"name": "a"}, {"name": "b", "resourceClaimName": 3}]}})"));
  ASSERT_FALSE(pod.ok());
  EXPECT_THAT(pod.status().message(),
              HasSubstr("Pod \"ns/p\": spec.resourceClaims[0]: exactly one of"));
  EXPECT_THAT(pod.status().message(),
              HasSubstr("spec.resourceClaims[1].resourceClaimName: must be a string"));
}

TEST(PodTest, DecodesClaimsStatusesAndScheduledCondition) {
  absl::StatusOr<Pod> pod = DecodePod(nlohmann::json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
    "spec": {"resourceClaims": [{"name": "a", "resourceClaimTemplateName": "t"}]},
    "status": {"phase": "Pending",
               "resourceClaimStatuses": [{"name": "a", "resourceClaimName": "p-a-x"}],
               "conditions": [{"type": "Ready", "status": "False"},
                              {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                               "message": "m"}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  ASSERT_EQ(pod->claims.size(), 1u);
  EXPECT_EQ(pod->claims[0].template_name, "t");
  ASSERT_NE(pod->StatusOf("a"), nullptr);
  EXPECT_EQ(*pod->StatusOf("a")->claim_name, "p-a-x");
  ASSERT_TRUE(pod->scheduled.has_value());
  EXPECT_EQ(pod->scheduled->reason, "Unschedulable");
  EXPECT_EQ(pod->phase, "Pending");
}

}  // namespace
}  // namespace diagnosis_test
}  // namespace gpuprofile::explain
