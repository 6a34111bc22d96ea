// File: e2e/tests/allocation_story_test.cc
// Issue 17's story end to end, with the real binaries over HTTP: kube-emulator, the operator
// (`gpu-profile-controller run`), `gpu-profile-controller explain` live and offline, and the real
// kubectl (1.33) for the printer columns and for `kubectl gpuprofile explain` as a plugin.
//
// On the example fleet (3 nodes x 4 A100, 2 nodes x 2 L40S) with the sample profiles and a few
// of the story's own, users create pods from the profiles' templates. kube-emulator runs no
// controller and no scheduler, so the test does what the resourceclaim controller does (a claim
// per pod claim: generated name, owned by the pod, the pod-claim-name annotation, the pod's
// status.resourceClaimStatuses) and what the scheduler does (allocation results naming real
// devices of the fleet, written to the claim's status). Then:
//   - Allocation truth: every L40S is allocated, one A100 per node is allocated, two A100 per
//     node are tainted: profiles' status.allocation and the node groups' allocated/free counts
//     are what that makes, also in `kubectl get` columns.
//   - explain: each pending pod's first cause, live (kubeconfig) and offline (-f on the live
//     objects as `kubectl get -o yaml` prints them), exit code 3, and 0 for an allocated pod:
//       template missing (research is targeted by no profile)      TemplateMissing
//       all matching devices allocated (l40s: all 4 held)            AllDevicesAllocated
//       the free ones tainted (pcie-root-40: its 6 devices tainted) DevicesTainted
//       no single node has `count` free (recent-driver, count 2)    NotEnoughDevicesOnOneNode
//       the class selects no device (h100-only)                     NoMatchingDevice
//       the profile is Stalled (amd-compute: an invalid selector)   ProfileStalled
//       DRA not served (a second emulator with resource.k8s.io off) DraNotServed
//     Not covered here: CapacityNotAdmitted (needs a driver with shareable devices, not in the
//     example fleet; test/cmd covers it in process).
//   - The migration view: a device-plugin-only node (GFD labels, allocatable nvidia.com/gpu, no
//     slices), the L40S on DRA only, one A100 node on both: OFFERED BY DevicePlugin / DRA / Both,
//     the OfferedTwice condition and Warning event naming the node, and `explain gpuprofile`'s
//     per-node view (Both for a100-node-1), cleared when the plugin's resource goes.
// Parameterised on Kubernetes 1.34 (device taints behind DRADeviceTaints, switched on for the
// emulator, the operator and explain) and 1.37. Every wait polls with a deadline.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/story_cluster.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace allocation_story_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

constexpr char kA100Group[] = "nvidia-a100-sxm4-40gb-550.127.8";
constexpr char kL40sGroup[] = "nvidia-l40s-570.133.20";
constexpr char kPluginGroup[] = "tesla-v100-sxm2-16gb-device-plugin";
// explain's exit codes (docs/design.md §5.1).
constexpr int kNoCause = 0;
constexpr int kCause = 3;

struct Release {
  std::string kube_version;
  std::string feature_gates;  // for the emulator, the operator and explain ("" for none)
};

void PrintTo(const Release& release, std::ostream* os) {
  *os << "Kubernetes " << release.kube_version;
}

json Profile(const std::string& name, const json& spec) {
  return {{"apiVersion", "gpuprofile.io/v1alpha1"},
          {"kind", "GpuProfile"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

// A cell of `kubectl get` output: the column starts where its header starts (kubectl aligns
// with a tabwriter; headers are apart by at least two spaces, "OFFERED BY" has one).
std::string Cell(const std::string& table, const std::string& row, const std::string& column) {
  std::vector<std::string> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  if (lines.empty()) return "<no table>";
  const std::string& header = lines[0];
  std::vector<size_t> starts;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] != ' ' && (i == 0 || (i >= 2 && header[i - 1] == ' ' && header[i - 2] == ' '))) {
      starts.push_back(i);
    }
  }
  const size_t at = header.find(column);
  auto it = std::find(starts.begin(), starts.end(), at);
  if (at == std::string::npos || it == starts.end()) return "<no column " + column + ">";
  const size_t end = it + 1 == starts.end() ? std::string::npos : *(it + 1);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (!absl::StartsWith(lines[i], row + " ")) continue;
    if (lines[i].size() <= at) return "";
    return std::string(absl::StripAsciiWhitespace(
        lines[i].substr(at, end == std::string::npos ? std::string::npos : end - at)));
  }
  return "<no row " + row + ">";
}

// One pending pod's expected explanation.
struct Pending {
  std::string ns, pod, first_code;
};

class AllocationStoryTest : public ::testing::TestWithParam<Release>, public StoryCluster {
 protected:
  void TearDown() override { StopStory(HasFailure()); }

  std::vector<std::string> Gates() const {
    if (GetParam().feature_gates.empty()) return {};
    return {"--feature-gates", GetParam().feature_gates};
  }

  void StartEmulator() {
    kubeconfig_ = scratch_.File("kubeconfig");
    std::vector<std::string> args = {"--kube-version",
                                     GetParam().kube_version,
                                     "-f",
                                     Src("crds"),
                                     "-f",
                                     Src("config/samples/fleet"),
                                     "--kubeconfig-out",
                                     kubeconfig_};
    for (const std::string& g : Gates()) args.push_back(g);
    emulator_ = std::make_unique<EmulatorProcess>(args);
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    api_ = AdminClient(*emulator_, kubeconfig_);
  }

  void StartOperator() {
    std::vector<std::string> args = OperatorTestFlags(kubeconfig_);
    for (const std::string& g : Gates()) args.push_back(g);
    op_ = std::make_unique<OperatorProcess>(args, scratch_.File("operator.log"));
    ASSERT_TRUE(op_->Start());
  }

  // Taints devices of a node's slice (as a driver marks unhealthy GPUs).
  void TaintDevices(const std::string& node, const std::vector<std::string>& names) {
    std::vector<json> slices =
        List(absl::StrCat(kDraV1, "/resourceslices?fieldSelector=spec.nodeName%3D", node));
    ASSERT_EQ(slices.size(), 1u) << node;
    json slice = slices[0];
    for (json& d : slice["spec"]["devices"]) {
      if (std::find(names.begin(), names.end(), d.value("name", "")) == names.end()) continue;
      d["taints"] = {
          {{"key", "example.com/gpu-health"}, {"value", "xid-79"}, {"effect", "NoSchedule"}}};
    }
    json updated = Put(absl::StrCat(kDraV1, "/resourceslices/", Name(slice)), slice);
    ASSERT_FALSE(updated.is_null());
    for (const json& d : updated["spec"]["devices"]) {
      if (std::find(names.begin(), names.end(), d.value("name", "")) != names.end()) {
        ASSERT_TRUE(d.contains("taints")) << "the server dropped the taints: " << d.dump();
      }
    }
  }

  // Sets a Node's allocatable through nodes/status, as the kubelet does.
  void SetAllocatable(const std::string& node, const json& allocatable) {
    json n = Get(absl::StrCat(kNodes, "/", node));
    ASSERT_FALSE(n.is_null()) << node;
    n["status"]["allocatable"] = allocatable;
    n["status"]["capacity"] = allocatable;
    Put(absl::StrCat(kNodes, "/", node, "/status"), n);
  }

  // ---- the binaries ----------------------------------------------------------------------------

  ControllerResult Explain(std::vector<std::string> args) {
    return RunExplain(std::move(args), GetParam().kube_version, Gates());
  }

  // `explain pod/NAME -n NS -o json` (live or with `where`): the exit code and first code.
  void ExpectFirstCause(const std::vector<std::string>& where, const Pending& p, int code) {
    std::vector<std::string> args = {"pod/" + p.pod, "-n", p.ns, "-o", "json"};
    args.insert(args.end(), where.begin(), where.end());
    ControllerResult r = Explain(args);
    SCOPED_TRACE(absl::StrCat(p.ns, "/", p.pod, " ", absl::StrJoin(where, " ")));
    EXPECT_EQ(r.exit_code, code) << r.err << r.out;
    json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
    EXPECT_EQ(j.value("result", ""), code == kCause ? "CauseFound" : "NoCauseFound");
    ASSERT_FALSE(j.value("findings", json::array()).empty()) << r.out;
    EXPECT_EQ(j["findings"][0].value("code", ""), p.first_code) << r.out;
  }
};

TEST_P(AllocationStoryTest, FreeCountsExplainAndTheMigrationView) {
  kubectl_ = PinnedKubectl("kubectl.1.33");
  if (kubectl_.empty()) GTEST_SKIP() << "kubectl (kubectl.1.33) is not installed";

  // 1. The fleet (seeded with its Nodes), the CRDs, the sample namespaces and profiles, and the
  // story's profiles: one per L40S, the GPUs on PCIe root pci0000:40 (gpu-2 and gpu-3 of each
  // A100 node), an H100 profile no device matches, and one the operator cannot realise.
  ASSERT_NO_FATAL_FAILURE(StartEmulator());
  CreateAll("config/samples/namespaces.yaml");
  Create("/api/v1/namespaces",
         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "research"}}}});
  for (const char* p : {"ampere-or-newer", "large-memory", "light-inference", "recent-driver"}) {
    CreateAll(absl::StrCat("config/samples/profiles/", p, ".yaml"));
  }
  const json ml_train = {{"namespaces", {"ml-train"}}};
  Create(kProfiles, Profile("l40s", {{"selector", {{"productNames", {"NVIDIA L40S"}}}},
                                     {"claimTemplate", ml_train}}));
  Create(kProfiles, Profile("pcie-root-40", {{"selector",
                                              {{"attributes",
                                                {{{"name", "resource.kubernetes.io/pcieRoot"},
                                                  {"operator", "In"},
                                                  {"values", {"pci0000:40"}}}}}}},
                                             {"claimTemplate", ml_train}}));
  Create(kProfiles,
         Profile("h100-only", {{"selector", {{"productNames", {"NVIDIA H100 80GB HBM3"}}}},
                               {"claimTemplate", ml_train}}));
  Create(kProfiles, Profile("amd-compute", {{"driver", "gpu.amd.com"},
                                            {"selector", {{"computeCapability", {{"min", "8.0"}}}}},
                                            {"claimTemplate", ml_train}}));
  ASSERT_NO_FATAL_FAILURE(StartOperator());

  const std::vector<std::pair<std::string, std::string>> templates = {
      {"ml-train", "large-memory"}, {"ml-inference", "light-inference"}, {"batch", "recent-driver"},
      {"ml-train", "l40s"},         {"ml-train", "pcie-root-40"},        {"ml-train", "h100-only"}};
  ASSERT_TRUE(PollUntil(
      [&] {
        for (const auto& [ns, t] : templates) {
          if (Get(absl::StrCat(kDraV1, "/namespaces/", ns, "/resourceclaimtemplates/", t))
                  .is_null()) {
            return false;
          }
        }
        return ConditionIs("large-memory", "Ready", "True") &&
               ConditionIs("amd-compute", "Stalled", "True");
      },
      kConverge))
      << "the operator did not converge: " << ProfileStatus("amd-compute").dump();

  // 2. Devices taken: two GPUs of each A100 node tainted by the driver; every L40S held by an
  // inference pod; gpu-0 of each A100 node held by a training pod.
  for (const char* node : {"a100-node-1", "a100-node-2", "a100-node-3"}) {
    ASSERT_NO_FATAL_FAILURE(TaintDevices(node, {"gpu-2", "gpu-3"}));
  }
  const std::vector<std::pair<std::string, std::string>> l40s = {{"l40s-node-1", "gpu-0"},
                                                                 {"l40s-node-1", "gpu-1"},
                                                                 {"l40s-node-2", "gpu-0"},
                                                                 {"l40s-node-2", "gpu-1"}};
  for (size_t i = 0; i < l40s.size(); ++i) {
    json pod = UserPod("ml-inference", absl::StrCat("infer-", i), "light-inference");
    json claim = ClaimFor(&pod, "light-inference");
    ASSERT_FALSE(claim.is_null());
    Allocate(claim, &pod, {{l40s[i].first, l40s[i].second}});
  }
  for (int i = 0; i < 3; ++i) {
    json pod = UserPod("ml-train", absl::StrCat("train-", i), "large-memory");
    json claim = ClaimFor(&pod, "large-memory");
    ASSERT_FALSE(claim.is_null());
    Allocate(claim, &pod, {{absl::StrCat("a100-node-", i + 1), "gpu-0"}});
  }
  // Pending pods: one per cause. The claims the resourceclaim controller could make...
  std::map<std::string, json> pending_claims;
  for (const auto& [name, tmpl] : std::vector<std::pair<std::string, std::string>>{
           {"l40s-job", "l40s"}, {"numa-job", "pcie-root-40"}, {"h100-job", "h100-only"}}) {
    json pod = UserPod("ml-train", name, tmpl);
    pending_claims[tmpl] = ClaimFor(&pod, tmpl);
  }
  json pair_pod = UserPod("batch", "pair-job", "recent-driver");
  pending_claims["recent-driver"] = ClaimFor(&pair_pod, "recent-driver");
  // ...and two it cannot: research has no template (no profile targets it), amd-compute is
  // Stalled and writes none.
  UserPod("research", "notebook", "light-inference");
  UserPod("ml-train", "amd-job", "amd-compute");

  // 3. Allocation truth. 16 devices: 7 held (4 L40S, 3 A100), 6 tainted, 3 free (gpu-1 of each
  // A100 node, one per node).
  struct Want {
    std::string profile;
    int allocated, free, pending;
  };
  const std::vector<Want> want = {{"large-memory", 3, 3, 0},
                                  {"light-inference", 4, 3, 0},
                                  {"ampere-or-newer", 0, 3, 0},
                                  {"recent-driver", 0, 3, 1},
                                  {"l40s", 0, 0, 1},
                                  {"pcie-root-40", 0, 0, 1},
                                  {"h100-only", 0, 0, 1}};
  std::string last;
  EXPECT_TRUE(PollUntil(
      [&] {
        for (const Want& w : want) {
          json a = ProfileStatus(w.profile).value("allocation", json::object());
          if (a.value("allocatedDevices", -1) != w.allocated ||
              a.value("freeDevices", -1) != w.free || a.value("pendingClaims", -1) != w.pending) {
            last = absl::StrCat(w.profile, ": ", a.dump());
            return false;
          }
        }
        json a100 = GroupStatus(kA100Group), l = GroupStatus(kL40sGroup);
        last = absl::StrCat("groups: ", a100.dump(), " ", l.dump());
        return a100.value("allocatedDevices", -1) == 3 && a100.value("freeDevices", -1) == 3 &&
               a100.value("taintedDevices", -1) == 6 && l.value("allocatedDevices", -1) == 4 &&
               l.value("freeDevices", -1) == 0;
      },
      kConverge))
      << last;
  for (const auto& [profile, claim] : pending_claims) {
    EXPECT_EQ(ProfileStatus(profile)["allocation"].value("oldestPendingClaimTime", ""),
              claim["metadata"].value("creationTimestamp", "?"))
        << profile;
  }
  EXPECT_EQ(ProfileStatus("large-memory")["allocation"].value("allocatedClaims", -1), 3);
  EXPECT_FALSE(ProfileStatus("large-memory")["allocation"].contains("oldestPendingClaimTime"));

  // The same through kubectl's printer columns.
  const std::string profiles_table = Kubectl({"get", "gpuprofiles"}).out;
  EXPECT_EQ(Cell(profiles_table, "large-memory", "FREE"), "3") << profiles_table;
  EXPECT_EQ(Cell(profiles_table, "l40s", "FREE"), "0") << profiles_table;
  EXPECT_EQ(Cell(profiles_table, "recent-driver", "PENDING"), "1") << profiles_table;
  const std::string groups_table = Kubectl({"get", "gpunodegroups"}).out;
  EXPECT_EQ(Cell(groups_table, kA100Group, "FREE"), "3") << groups_table;
  EXPECT_EQ(Cell(groups_table, kL40sGroup, "FREE"), "0") << groups_table;

  // explain, live: each pending pod's first cause (exit 3), the allocated pod's (exit 0).
  const std::vector<Pending> pending = {
      {"research", "notebook", "TemplateMissing"},
      {"ml-train", "l40s-job", "AllDevicesAllocated"},
      {"ml-train", "numa-job", "DevicesTainted"},
      {"batch", "pair-job", "NotEnoughDevicesOnOneNode"},
      {"ml-train", "h100-job", "NoMatchingDevice"},
      {"ml-train", "amd-job", "ProfileStalled"},
  };
  const Pending allocated = {"ml-train", "train-0", "ClaimAllocated"};
  const std::vector<std::string> live = {"--kubeconfig", kubeconfig_};
  for (const Pending& p : pending) ExpectFirstCause(live, p, kCause);
  ExpectFirstCause(live, allocated, kNoCause);

  // Offline: the live objects as `kubectl get -o yaml` prints them.
  CommandResult dump = Kubectl(
      {"get", "gpuprofiles,namespaces,resourceslices,pods,resourceclaims", "-A", "-o", "yaml"});
  scratch_.Write("cluster.yaml", dump.out);
  const std::vector<std::string> offline = {"-f", scratch_.File("cluster.yaml")};
  for (const Pending& p : pending) ExpectFirstCause(offline, p, kCause);
  ExpectFirstCause(offline, allocated, kNoCause);

  // Text, once.
  ControllerResult text = Explain({"pod/pair-job", "-n", "batch", "--kubeconfig", kubeconfig_});
  EXPECT_EQ(text.exit_code, kCause) << text.err;
  EXPECT_THAT(text.out, HasSubstr("1. NotEnoughDevicesOnOneNode (Cause)"));
  EXPECT_THAT(text.out, HasSubstr("profile recent-driver"));

  // The kubectl plugin: kubectl finds kubectl-gpuprofile (next to the binary) on PATH and runs
  // it with the arguments after the plugin name; the plugin reads KUBECONFIG.
  const std::string bin_dir = ControllerPath().substr(0, ControllerPath().rfind('/'));
  const char* path = std::getenv("PATH");
  CommandResult plugin =
      RunCommand({"env", absl::StrCat("PATH=", bin_dir, ":", path == nullptr ? "" : path),
                  "KUBECONFIG=" + kubeconfig_, "HOME=" + scratch_.path(), kubectl_, "gpuprofile",
                  "explain", "pod/notebook", "-n", "research", "-o", "json"},
                 kCommandDeadline);
  EXPECT_EQ(plugin.exit_code, kCause) << plugin.out;
  json plugin_json = json::parse(plugin.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(plugin_json.is_discarded()) << plugin.out;
  EXPECT_EQ(plugin_json["findings"][0].value("code", ""), "TemplateMissing");
  EXPECT_THAT(plugin_json["findings"][0].value("message", ""), HasSubstr("research"));

  // DRA not served: a cluster of the same release with resource.k8s.io switched off.
  {
    ScratchDir off_dir;
    const std::string off_config = off_dir.File("kubeconfig");
    EmulatorProcess off({"--kube-version", GetParam().kube_version, "--runtime-config",
                         "resource.k8s.io/v1=false", "--kubeconfig-out", off_config});
    ASSERT_TRUE(off.ok()) << off.Stderr();
    RawHttpClient off_api(off.url());
    off_api.SetBearerToken(KubeconfigToken(off_config));
    json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", "trainer"}, {"namespace", "default"}}},
        {"spec",
         {{"containers", {{{"name", "main"}, {"image", "registry.example.com/t:1"}}}},
          {"resourceClaims", {{{"name", "gpu"}, {"resourceClaimTemplateName", "large-memory"}}}}}}};
    ASSERT_EQ(off_api.Post(Pods("default"), pod).status, 201);
    ExpectFirstCause({"--kubeconfig", off_config}, {"default", "trainer", "DraNotServed"}, kCause);
  }

  // 4. The migration view: a node the device plugin alone serves (GFD labels, allocatable, no
  // slices), the L40S on DRA only, and a100-node-1 offering its GPUs through both.
  json v100 = Create(kNodes, {{"apiVersion", "v1"},
                              {"kind", "Node"},
                              {"metadata",
                               {{"name", "v100-node-1"},
                                {"labels",
                                 {{"kubernetes.io/hostname", "v100-node-1"},
                                  {"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"},
                                  {"nvidia.com/gpu.memory", "16384"}}}}}});
  ASSERT_FALSE(v100.is_null());
  SetAllocatable("v100-node-1", {{"cpu", "32"}, {"nvidia.com/gpu", "8"}});
  SetAllocatable("a100-node-1", {{"cpu", "64"}, {"nvidia.com/gpu", "4"}});
  EXPECT_TRUE(PollUntil(
      [&] {
        json a = GroupStatus(kA100Group), v = GroupStatus(kPluginGroup);
        last = absl::StrCat(a.dump(), "\n", v.dump());
        return a.value("offeredBy", "") == "Both" &&
               a.value("offeredTwiceNodes", json()) == json({"a100-node-1"}) &&
               v.value("offeredBy", "") == "DevicePlugin" && v.value("devices", 0) == 8 &&
               GroupStatus(kL40sGroup).value("offeredBy", "") == "DRA";
      },
      kConverge))
      << last;
  const json twice = FindCondition(GroupStatus(kA100Group), "OfferedTwice");
  EXPECT_EQ(twice.value("status", ""), "True") << twice.dump();
  EXPECT_EQ(twice.value("reason", ""), "DevicePluginAndDRA") << twice.dump();
  EXPECT_THAT(twice.value("message", ""), HasSubstr("a100-node-1"));
  const std::string migration_table = Kubectl({"get", "gpunodegroups"}).out;
  EXPECT_EQ(Cell(migration_table, kA100Group, "OFFERED BY"), "Both") << migration_table;
  EXPECT_EQ(Cell(migration_table, kL40sGroup, "OFFERED BY"), "DRA") << migration_table;
  EXPECT_EQ(Cell(migration_table, kPluginGroup, "OFFERED BY"), "DevicePlugin") << migration_table;
  // The operator writes events.k8s.io/v1 Events (a GpuNodeGroup is cluster-scoped: "default").
  json event;
  EXPECT_TRUE(PollUntil(
      [&] {
        for (const json& e : List("/apis/events.k8s.io/v1/events")) {
          if (e.value("reason", "") == "DevicePluginAndDRA" && e.value("type", "") == "Warning" &&
              e["regarding"].value("kind", "") == "GpuNodeGroup" &&
              e["regarding"].value("name", "") == kA100Group) {
            event = e;
            return true;
          }
        }
        return false;
      },
      kConverge));
  EXPECT_THAT(event.value("note", ""), HasSubstr("a100-node-1")) << event.dump();
  // explain, live: the same per node for a profile whose devices include a100-node-1's, agreeing
  // with the node groups (the V100 node is another product: not listed).
  ControllerResult offers =
      Explain({"gpuprofile/large-memory", "--kubeconfig", kubeconfig_, "-o", "json"});
  json offers_json = json::parse(offers.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(offers_json.is_discarded()) << offers.out << offers.err;
  const json by = offers_json["nodeOffers"].value("offeredBy", json::object());
  EXPECT_EQ(by.value("Both", json()), json({{"count", 1}, {"nodes", {"a100-node-1"}}}))
      << offers.out;
  EXPECT_EQ(by.value("DRA", json()).value("count", -1), 4) << offers.out;
  EXPECT_EQ(by.value("DevicePlugin", json()).value("count", -1), 0) << offers.out;
  EXPECT_THAT(offers_json["nodeOffers"].value("nodeGroups", json::array()),
              ::testing::Contains(json({{"name", kA100Group}, {"offeredBy", "Both"}})))
      << offers.out;

  // The device plugin leaves a100-node-1: only DRA offers its GPUs again.
  SetAllocatable("a100-node-1", {{"cpu", "64"}});
  EXPECT_TRUE(PollUntil(
      [&] {
        json a = GroupStatus(kA100Group);
        last = a.dump();
        json c = FindCondition(a, "OfferedTwice");
        return a.value("offeredBy", "") == "DRA" &&
               a.value("offeredTwiceNodes", json::array()).empty() &&
               (c.is_null() || c.value("status", "") != "True");
      },
      kConverge))
      << last;
  EXPECT_EQ(GroupStatus(kPluginGroup).value("offeredBy", ""), "DevicePlugin");
}

INSTANTIATE_TEST_SUITE_P(Releases, AllocationStoryTest,
                         ::testing::Values(Release{"1.34", "DRADeviceTaints=true"},
                                           Release{"1.37", ""}),
                         ReleaseName<Release>);

}  // namespace
}  // namespace allocation_story_test
}  // namespace gpuprofile::e2e::testing
