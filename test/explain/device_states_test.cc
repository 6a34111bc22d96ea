// File: test/explain/device_states_test.cc
// Every matched device in one state, with its evidence (issue 26): a fleet with dynamic MIG (two
// A100s published whole and as one MIG placement each, sharing a counter set per GPU), an H100
// with the NVIDIA driver's fatal XID 79 health taint and an L40S; claims hold the MIG placements
// and the L40S. Then the drivers' and the kubelet's device health on claims and pods.
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
namespace device_states_test {
namespace {

using ::gpuprofile::explain::testing::Codes;
using ::gpuprofile::explain::testing::FindingOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// One device of a slice: `type` gpu or mig; draws `slices` of `counter_set` when not empty.
std::string Device(const std::string& name, const std::string& type, const std::string& product,
                   const std::string& counter_set = "", int slices = 0,
                   const std::string& taint = "") {
  std::string out = absl::StrCat("  - name: ", name, R"(
    attributes:
      type: {string: )",
                                 type, R"(}
      productName: {string: ")",
                                 product, R"("}
    capacity:
      memory: {value: 40Gi}
)");
  if (!counter_set.empty()) {
    absl::StrAppend(&out, "    consumesCounters:\n    - counterSet: ", counter_set,
                    "\n      counters: {slices: {value: \"", slices, "\"}}\n");
  }
  if (!taint.empty()) absl::StrAppend(&out, "    taints: [", taint, "]\n");
  return out;
}

// A pool of one node: a slice of counter sets (when `counter_sets` is not empty) and a slice of
// devices (DRAPartitionableDevices keeps them apart).
std::string Pool(const std::string& node, const std::vector<std::string>& counter_sets,
                 const std::string& devices) {
  const int slices = counter_sets.empty() ? 1 : 2;
  auto header = [&](const std::string& name) {
    return absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: )",
                        name, R"(}
spec:
  driver: gpu.nvidia.com
  nodeName: )",
                        node, R"(
  pool: {name: )",
                        node, ", generation: 1, resourceSliceCount: ", slices, "}\n");
  };
  std::string out;
  if (!counter_sets.empty()) {
    out = header(node + "-counters") + "  sharedCounters:\n";
    for (const std::string& set : counter_sets) {
      absl::StrAppend(&out, "  - name: ", set, "\n    counters: {slices: {value: \"7\"}}\n");
    }
    out += "---\n";
  }
  return absl::StrCat(out, header(node + "-devices"), "  devices:\n", devices, "---\n");
}

constexpr char kA100[] = "NVIDIA A100-SXM4-40GB";
constexpr char kXid79[] = "{key: gpu.nvidia.com/xid, value: \"79\", effect: NoSchedule}";

std::string Fleet(const std::string& extra_a100_device = "") {
  return Pool("a100-node-1", {"gpu-0-counter-set", "gpu-1-counter-set"},
              Device("gpu-0", "gpu", kA100, "gpu-0-counter-set", 7) +
                  Device("gpu-1", "gpu", kA100, "gpu-1-counter-set", 7) +
                  Device("gpu-0-mig-1g-0", "mig", kA100, "gpu-0-counter-set", 1) +
                  Device("gpu-1-mig-1g-0", "mig", kA100, "gpu-1-counter-set", 1) +
                  extra_a100_device) +
         Pool("h100-node-1", {}, Device("gpu-0", "gpu", "NVIDIA H100 80GB HBM3", "", 0, kXid79)) +
         Pool("l40s-node-1", {}, Device("gpu-0", "gpu", "NVIDIA L40S"));
}

constexpr char kProfiles[] = R"(
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: whole}
spec:
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: a100-any}
spec:
  deviceType: mig
  selector: {productNames: [NVIDIA A100-SXM4-40GB]}
  claimTemplate: {namespaces: [ml-train]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ml-train}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
)";

// A claim of class `cls` for pod `pod`'s entry "gpu", holding `devices` ("pool/device") of
// gpu.nvidia.com; `status_devices` is put under status.devices as is.
std::string Claim(const std::string& ns, const std::string& name, const std::string& cls,
                  const std::vector<std::string>& devices, const std::string& status_devices = "") {
  std::string out = absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: )",
                                 name, "\n  namespace: ", ns, R"(
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: )",
                                 cls, "}\n");
  if (!devices.empty()) {
    absl::StrAppend(&out, "status:\n  allocation:\n    devices:\n      results:\n");
    for (const std::string& d : devices) {
      const size_t slash = d.find('/');
      absl::StrAppend(&out,
                      "      - {request: gpu, driver: gpu.nvidia.com, pool: ", d.substr(0, slash),
                      ", device: ", d.substr(slash + 1), "}\n");
    }
    if (!status_devices.empty()) absl::StrAppend(&out, "  devices:\n", status_devices);
  }
  return out + "---\n";
}

// The story's holders: a MIG placement of each A100 and the L40S.
std::string Holders() {
  return Claim("team-a", "infer-abc", "a100-any", {"a100-node-1/gpu-0-mig-1g-0"}) +
         Claim("team-a", "infer-def", "a100-any", {"a100-node-1/gpu-1-mig-1g-0"}) +
         Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"});
}

std::string PendingPod() {
  return R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml-train}
spec:
  containers: [{name: main, image: cuda}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: whole}]
status:
  phase: Pending
  resourceClaimStatuses: [{name: gpu, resourceClaimName: p-gpu}]
---
)" + Claim("ml-train", "p-gpu", "whole", {});
}

ClusterView View(const std::string& objects) {
  return testing::ViewOfManifests(absl::StrCat(kProfiles, objects));
}

Diagnosis Explain(const ClusterView& view, const std::string& kind, const std::string& ns,
                  const std::string& name) {
  Explainer explainer(view);
  absl::StatusOr<Diagnosis> d = kind == "pod"     ? explainer.ExplainPod(ns, name)
                                : kind == "claim" ? explainer.ExplainClaim(ns, name)
                                                  : explainer.ExplainProfile(name);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : Diagnosis{};
}

int64_t Sum(const nlohmann::ordered_json& states) {
  int64_t sum = 0;
  for (const auto& [state, n] : states.items()) sum += n.get<int64_t>();
  return sum;
}

// The story: 4 whole GPUs match, none free. The old text said "All 1 allocatable devices ...
// are allocated" and never mentioned the two A100s whose MIG placements are allocated.
TEST(DeviceStatesTest, PendingPodNamesEveryStateInTheSchedulersOrder) {
  const ClusterView view = View(Fleet() + Holders() + PendingPod());
  const Diagnosis d = Explain(view, "pod", "ml-train", "p");
  ASSERT_THAT(Codes(d),
              ElementsAre("AllDevicesAllocated", "DevicesTainted", "DevicesBlockedByCounters"));
  const std::string account =
      "4 devices match: 0 free, 1 allocated, 2 blocked by counters, "
      "1 tainted";
  for (const Finding& f : d.findings) {
    SCOPED_TRACE(f.code);
    EXPECT_EQ(f.resource_claim, "ml-train/p-gpu");
    EXPECT_EQ(f.evidence["deviceStates"],
              nlohmann::ordered_json::parse(
                  R"({"free":0,"overlapping":0,"allocated":1,"blockedByCounters":2,"tainted":1,
                      "incompletePool":0,"unavailable":0})"));
    EXPECT_EQ(Sum(f.evidence["deviceStates"]), f.evidence["matchedDevices"].get<int64_t>());
  }
  const Finding& allocated = d.findings[0];
  EXPECT_THAT(allocated.message, Not(HasSubstr("All ")));
  EXPECT_THAT(allocated.message, HasSubstr("1 of the 4 devices DeviceClass \"whole\" selects are "
                                           "allocated to other claims, and none of the others is "
                                           "free (" +
                                           account + ")"));
  EXPECT_EQ(allocated.evidence["holders"], nlohmann::ordered_json({"team-a/train"}));
}

TEST(DeviceStatesTest, BlockedDevicesNameTheirCounterSetAndTheClaimsHoldingIt) {
  const ClusterView view = View(Fleet() + Holders() + PendingPod());
  const Diagnosis d = Explain(view, "claim", "ml-train", "p-gpu");
  const Finding* f = FindingOf(d, "DevicesBlockedByCounters");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCause);
  EXPECT_THAT(f->message, HasSubstr("2 of the 4 devices DeviceClass \"whole\" selects are held by "
                                    "no claim but blocked by counters"));
  EXPECT_EQ(f->evidence["blockedDevices"],
            nlohmann::ordered_json(
                {"a100-node-1/gpu-0: counter set gpu-0-counter-set is used by gpu-0-mig-1g-0, "
                 "held by claim team-a/infer-abc",
                 "a100-node-1/gpu-1: counter set gpu-1-counter-set is used by gpu-1-mig-1g-0, "
                 "held by claim team-a/infer-def"}));
  EXPECT_EQ(f->evidence["blockingClaims"],
            nlohmann::ordered_json({"team-a/infer-abc", "team-a/infer-def"}));
  EXPECT_EQ(f->evidence["blockingClaimCount"], 2);
  // Text for people: each blocked device on a line of its own.
  EXPECT_THAT(FormatDiagnosis(d),
              HasSubstr("     blockedDevices:\n       - a100-node-1/gpu-0: counter set "
                        "gpu-0-counter-set is used by gpu-0-mig-1g-0, held by claim "
                        "team-a/infer-abc\n"));
}

// Only blocked devices: the cause the scheduler meets is the counters, and nothing claims that
// the devices are allocated.
TEST(DeviceStatesTest, BlockedByCountersAloneIsTheCause) {
  const std::string only_a100 =
      Pool("a100-node-1", {"gpu-0-counter-set"},
           Device("gpu-0", "gpu", kA100, "gpu-0-counter-set", 7) +
               Device("gpu-0-mig-1g-0", "mig", kA100, "gpu-0-counter-set", 1));
  const ClusterView view =
      View(only_a100 + Claim("team-a", "infer-abc", "a100-any", {"a100-node-1/gpu-0-mig-1g-0"}) +
           PendingPod());
  const Diagnosis d = Explain(view, "pod", "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("DevicesBlockedByCounters"));
  EXPECT_THAT(d.findings[0].message,
              HasSubstr("(1 device matches: 0 free, 1 blocked by counters)"));
  // With the MIG placement released, the GPU is free again.
  const ClusterView released = View(only_a100 + PendingPod());
  EXPECT_THAT(Codes(Explain(released, "pod", "ml-train", "p")), ElementsAre("NoDraCauseFound"));
}

TEST(DeviceStatesTest, RankedAfterNoMatchAndAfterAllocatedAndTainted) {
  // A firstAvailable claim whose first class selects nothing: NoMatchingDevice first, then the
  // second class's causes in the allocator's order (taints before counters).
  const std::string claim = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml-train}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - {name: nothing, deviceClassName: nothing}
      - {name: whole, deviceClassName: whole}
---
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: nothing}
spec:
  selector: {productNames: [NVIDIA B200]}
  claimTemplate: {namespaces: [ml-train]}
---
)";
  const Diagnosis d = Explain(View(Fleet() + Holders() + claim), "claim", "ml-train", "c");
  EXPECT_THAT(Codes(d), ElementsAre("NoMatchingDevice", "AllDevicesAllocated", "DevicesTainted",
                                    "DevicesBlockedByCounters"));
}

TEST(DeviceStatesTest, HealthTaintIsSaidInWords) {
  const ClusterView view = View(Fleet() + Holders() + PendingPod());
  const Diagnosis d = Explain(view, "pod", "ml-train", "p");
  const Finding* f = FindingOf(d, "DevicesTainted");
  ASSERT_NE(f, nullptr);
  const std::string words =
      "gpu.nvidia.com/xid=79:NoSchedule is a health report: XID 79 (the GPU has fallen off the "
      "bus), a fatal GPU error, reported by the NVIDIA driver's health monitor";
  EXPECT_THAT(f->message,
              HasSubstr("1 of the 4 devices DeviceClass \"whole\" selects carry taints"));
  EXPECT_THAT(f->message, HasSubstr(words));
  EXPECT_EQ(f->evidence["healthReports"], nlohmann::ordered_json({words}));
  EXPECT_EQ(f->evidence["taints"], nlohmann::ordered_json({"gpu.nvidia.com/xid=79:NoSchedule"}));
  EXPECT_EQ(f->evidence["taintedSample"], nlohmann::ordered_json({"h100-node-1/gpu-0"}));
  EXPECT_THAT(f->remedy, HasSubstr("reset or replace it"));
}

TEST(DeviceStatesTest, AMaintenanceTaintIsNoHealthReport) {
  const ClusterView view =
      View(Pool("h100-node-1", {},
                Device("gpu-0", "gpu", "NVIDIA H100 80GB HBM3", "", 0,
                       "{key: maintenance, value: \"true\", effect: NoSchedule}")) +
           PendingPod());
  const Diagnosis d = Explain(view, "pod", "ml-train", "p");
  const Finding* f = FindingOf(d, "DevicesTainted");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->evidence.contains("healthReports"));
  EXPECT_THAT(f->message, Not(HasSubstr("health report")));
}

TEST(DeviceStatesTest, UnavailableDevicesNameTheMissingCounter) {
  const ClusterView view =
      View(Fleet(Device("gpu-2", "gpu", kA100, "gpu-2-counter-set", 7)) + Holders() + PendingPod());
  const Diagnosis d = Explain(view, "pod", "ml-train", "p");
  ASSERT_THAT(Codes(d), ElementsAre("AllDevicesAllocated", "DevicesTainted",
                                    "DevicesBlockedByCounters", "DevicesUnavailable"));
  const Finding& f = d.findings[3];
  EXPECT_THAT(f.message,
              HasSubstr("1 of the 5 devices DeviceClass \"whole\" selects cannot be allocated: 1 "
                        "draw a counter their pool does not have"));
  EXPECT_EQ(f.evidence["missingCounters"],
            nlohmann::ordered_json(
                {"a100-node-1/gpu-2: counter set gpu-2-counter-set is not in pool a100-node-1"}));
  EXPECT_EQ(f.evidence["deviceStates"]["unavailable"], 1);
  EXPECT_EQ(Sum(f.evidence["deviceStates"]), 5);
}

// The profile's summary: only "free" when every device is.
TEST(DeviceStatesTest, ProfileSummaryOfFreeDevices) {
  const ClusterView view = View(Fleet() + R"(
apiVersion: gpuprofile.io/v1alpha1
kind: GpuProfile
metadata: {name: a100-all}
spec:
  deviceType: gpu
  selector:
    cel: ["device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-40GB'"]
  claimTemplate: {namespaces: [ml-train]}
---
)");
  // a100-all selects the whole GPUs only (deviceType gpu): both free.
  Diagnosis d = Explain(view, "profile", "", "a100-all");
  ASSERT_THAT(Codes(d), ElementsAre("ProfileServing"));
  EXPECT_THAT(d.findings[0].message, HasSubstr("is serving: 2 devices match: 2 free."));
  EXPECT_EQ(d.findings[0].evidence["deviceStates"]["free"], 2);
}

TEST(DeviceStatesTest, ProfileSummaryWithMigPlacementsNamesOverlapping) {
  // The MIG profile and the whole GPUs of a100-node-1 through one class: the placements are
  // counted free first (smallest share), the whole GPUs overlap them.
  const ClusterView view =
      View(Pool("a100-node-1", {"gpu-0-counter-set"},
                Device("gpu-0", "mig", kA100, "gpu-0-counter-set", 7) +
                    Device("gpu-0-mig-1g-0", "mig", kA100, "gpu-0-counter-set", 1)));
  const Diagnosis d = Explain(view, "profile", "", "a100-any");
  ASSERT_THAT(Codes(d), ElementsAre("ProfileServing"));
  const Finding& f = d.findings[0];
  EXPECT_THAT(f.message, HasSubstr("is serving: 2 devices match: 1 free, 1 overlapping."));
  EXPECT_THAT(f.message, HasSubstr("The 1 overlapping devices are free, but share counters with "
                                   "other free devices (a whole GPU and its MIG placements "
                                   "cannot be allocated together)."));
  EXPECT_EQ(f.evidence["overlappingDevices"], nlohmann::ordered_json({"a100-node-1/gpu-0"}));
  EXPECT_EQ(f.evidence["deviceStates"]["overlapping"], 1);
}

TEST(DeviceStatesTest, ProfileWithoutFreeDevicesShowsTheAccountInEachCause) {
  const Diagnosis d = Explain(View(Fleet() + Holders()), "profile", "", "whole");
  EXPECT_THAT(Codes(d),
              ElementsAre("AllDevicesAllocated", "DevicesTainted", "DevicesBlockedByCounters"));
  for (const Finding& f : d.findings) {
    EXPECT_THAT(f.message, HasSubstr("(4 devices match: 0 free, 1 allocated, 2 blocked by "
                                     "counters, 1 tainted)"));
  }
}

// --- Device health from claims (status.devices) and pods (allocatedResourcesStatus).

constexpr char kUnhealthyStatus[] = R"(  - driver: gpu.nvidia.com
    pool: l40s-node-1
    device: gpu-0
    data: {anything: [1, 2]}
    networkData: {interfaceName: eth1}
    conditions:
    - {type: Ready, status: "True", reason: Prepared, message: ok, lastTransitionTime: "2026-12-01T10:00:00Z"}
    - {type: Healthy, status: "False", reason: XidError, message: "XID 79 on the GPU", lastTransitionTime: "2026-12-01T10:05:00Z"}
)";

std::string RunningPod(const std::string& container_statuses) {
  return absl::StrCat(R"(
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team-a}
spec:
  nodeName: l40s-node-1
  containers: [{name: main, image: cuda}]
  resourceClaims: [{name: gpu, resourceClaimName: train}]
status:
  phase: Running
  conditions: [{type: PodScheduled, status: "True"}]
)",
                      container_statuses, "---\n");
}

TEST(DeviceHealthTest, ClaimStatusConditionsOfAllocatedDevices) {
  const ClusterView view =
      View(Fleet() + Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}, kUnhealthyStatus));
  const Diagnosis d = Explain(view, "claim", "team-a", "train");
  ASSERT_THAT(Codes(d), ElementsAre("ClaimDeviceCondition", "ClaimAllocated"));
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.resource_claim, "team-a/train");
  EXPECT_EQ(f.evidence["device"], "gpu.nvidia.com/l40s-node-1/gpu-0");
  EXPECT_EQ(f.evidence["conditions"],
            nlohmann::ordered_json({"Healthy is False (XidError): XID 79 on the GPU"}));
  EXPECT_THAT(f.message, HasSubstr("The DRA driver reports a problem with device "
                                   "gpu.nvidia.com/l40s-node-1/gpu-0 of ResourceClaim "
                                   "\"team-a/train\""));
  EXPECT_FALSE(d.HasCause());
  // The same through the pod that uses the claim.
  const ClusterView with_pod =
      View(Fleet() + Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}, kUnhealthyStatus) +
           RunningPod(""));
  EXPECT_THAT(Codes(Explain(with_pod, "pod", "team-a", "trainer")),
              ElementsAre("ClaimDeviceCondition", "ClaimAllocated"));
}

// A condition named for a fault (Unhealthy) is a problem when True; one named for what is good
// (Ready, Healthy) when False.
TEST(DeviceHealthTest, TheConditionsPolarityDecides) {
  auto status = [](const std::string& unhealthy) {
    return absl::StrCat(R"(  - driver: gpu.nvidia.com
    pool: l40s-node-1
    device: gpu-0
    conditions:
    - {type: Ready, status: "True", reason: Prepared, message: ok}
    - {type: Unhealthy, status: ")",
                        unhealthy, R"(", reason: Checked, message: ok}
)");
  };
  const ClusterView ok =
      View(Fleet() + Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}, status("False")));
  EXPECT_THAT(Codes(Explain(ok, "claim", "team-a", "train")), ElementsAre("ClaimAllocated"));
  const ClusterView unhealthy =
      View(Fleet() + Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}, status("True")));
  const Diagnosis d = Explain(unhealthy, "claim", "team-a", "train");
  ASSERT_THAT(Codes(d), ElementsAre("ClaimDeviceCondition", "ClaimAllocated"));
  EXPECT_EQ(d.findings[0].evidence["conditions"],
            nlohmann::ordered_json({"Unhealthy is True (Checked): ok"}));
}

TEST(DeviceHealthTest, KubeletReportsUnhealthyAndUnknownDevicesWithTheirClaim) {
  const ClusterView view = View(Fleet() + Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}) +
                                RunningPod(R"(  containerStatuses:
  - name: main
    allocatedResourcesStatus:
    - name: claim:gpu/gpu
      resources:
      - {resourceID: gpu.nvidia.com/l40s-node-1/gpu-0, health: Unhealthy, message: "XID 79"}
      - {resourceID: gpu.nvidia.com/l40s-node-1/gpu-1, health: Healthy}
    - name: nvidia.com/gpu
      resources:
      - {resourceID: GPU-1234, health: Unknown}
  - name: sidecar
    allocatedResourcesStatus:
    - name: claim:gpu/gpu
      resources:
      - {resourceID: gpu.nvidia.com/l40s-node-1/gpu-0, health: Unhealthy, message: "XID 79"}
)"));
  const Diagnosis d = Explain(view, "pod", "team-a", "trainer");
  ASSERT_THAT(Codes(d),
              ElementsAre("KubeletDeviceHealth", "KubeletDeviceHealth", "ClaimAllocated"));
  const Finding& dra = d.findings[0];
  EXPECT_EQ(dra.severity, Severity::kInfo);
  EXPECT_EQ(dra.pod_claim, "gpu");
  EXPECT_EQ(dra.resource_claim, "team-a/train");
  EXPECT_EQ(dra.evidence["resourceID"], "gpu.nvidia.com/l40s-node-1/gpu-0");
  EXPECT_EQ(dra.evidence["health"], "Unhealthy");
  EXPECT_EQ(dra.evidence["request"], "gpu");
  EXPECT_EQ(dra.evidence["containers"], nlohmann::ordered_json({"main", "sidecar"}));
  EXPECT_THAT(dra.message, HasSubstr("The kubelet reports device gpu.nvidia.com/l40s-node-1/gpu-0 "
                                     "(claim:gpu/gpu) of containers main, sidecar as Unhealthy "
                                     "(the device reports a fault): XID 79."));
  const Finding& plugin = d.findings[1];
  EXPECT_THAT(plugin.pod_claim, IsEmpty());
  EXPECT_EQ(plugin.evidence["health"], "Unknown");
  EXPECT_THAT(plugin.message, HasSubstr("GPU-1234 (nvidia.com/gpu) of container main as Unknown"));
}

TEST(DeviceHealthTest, WrongTypesAreErrorsNamingTheObjectAndField) {
  const std::string bad_condition = R"(  - driver: gpu.nvidia.com
    pool: l40s-node-1
    device: gpu-0
    conditions:
    - {type: Ready, status: 3}
)";
  absl::StatusOr<std::vector<dra::ManifestObject>> parsed = dra::ParseManifests(
      absl::StrCat(kProfiles,
                   Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}, bad_condition),
                   RunningPod(R"(  containerStatuses:
  - name: main
    allocatedResourcesStatus:
    - name: claim:gpu/gpu
      resources: [{resourceID: 7, health: Unhealthy}]
)")),
      "test.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  dra::LoadedManifests loaded;
  loaded.objects = *std::move(parsed);
  const KubeVersion kube = KubeVersion::Newest();
  absl::StatusOr<ManifestView> view =
      ViewFromManifests(std::move(loaded), kube, FeatureGates(kube));
  ASSERT_FALSE(view.ok());
  const std::string message(view.status().message());
  EXPECT_THAT(message, HasSubstr("ResourceClaim \"team-a/train\": "
                                 "status.devices[0].conditions[0].status"));
  EXPECT_THAT(message,
              HasSubstr("Pod \"team-a/trainer\": status.containerStatuses[0]."
                        "allocatedResourcesStatus[0].resources[0].resourceID: must be a string"));
}

TEST(DeviceHealthTest, UnknownFieldsOfNewerReleasesAreIgnored) {
  const std::string newer = R"(  - driver: gpu.nvidia.com
    pool: l40s-node-1
    device: gpu-0
    shareID: 4a1c7e4e-1b7b-4c7e-9d6b-000000000001
    futureField: {x: 1}
    conditions:
    - {type: Ready, status: "False", reason: NotPrepared, message: m, futureConditionField: 1}
)";
  const ClusterView view =
      View(Fleet() + Claim("team-a", "train", "whole", {"l40s-node-1/gpu-0"}, newer));
  const Diagnosis d = Explain(view, "claim", "team-a", "train");
  ASSERT_THAT(Codes(d), ElementsAre("ClaimDeviceCondition", "ClaimAllocated"));
  EXPECT_EQ(d.findings[0].evidence["conditions"],
            nlohmann::ordered_json({"Ready is False (NotPrepared): m"}));
}

}  // namespace
}  // namespace device_states_test
}  // namespace gpuprofile::explain
