// The operator's reconcile loop (GpuProfileOperator, in process) against the real kube-emulator
// over HTTP: the story's profiles on the example fleet converge to Ready with their classes,
// templates, quotas and node groups; edits, namespace label changes, conflicts, deletion policies
// and adoption behave as docs/design.md §4 says; an idle operator writes nothing.
// (The e2e suite drives the real binary; this test exercises the same logic with direct access
// to the caches, so failures point at the reconciler.)
#include "controller/reconciler/gpu_profile_operator.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "controller/dra/manifest_reader.h"
#include "controller/kube/api_error.h"
#include "controller/kube/http_transport.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/metrics.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::reconciler {
namespace gpu_profile_operator_test {
namespace {

using kube::testing::KubeEmulator;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::string Src(const std::string& path) {
  return absl::StrCat(gpuprofile::testing::SourceDir(), "/", path);
}

const kube::ResourcePath kProfiles = GpuProfilesPath();
const kube::ResourcePath kClasses = DeviceClassesPath(dra::DraApiVersion::kV1);
const kube::ResourcePath kTemplates = ResourceClaimTemplatesPath(dra::DraApiVersion::kV1);
const kube::ResourcePath kNamespaces = NamespacesPath();
const kube::ResourcePath kQuotas = ResourceQuotasPath();

// Keeps the events the operator records, as "<type> <reason>: <note>".
class CapturingSink final : public runtime::EventSink {
 public:
  absl::Status Create(const runtime::Event& event) override {
    absl::MutexLock lock(&mu_);
    lines_.push_back(absl::StrCat(event.type == runtime::EventType::kWarning ? "Warning" : "Normal",
                                  " ", event.reason, ": ", event.note));
    return absl::OkStatus();
  }
  absl::Status UpdateSeries(const runtime::Event&) override { return absl::OkStatus(); }
  std::vector<std::string> lines() const {
    absl::MutexLock lock(&mu_);
    return lines_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

class OperatorTest : public ::testing::Test {
 protected:
  // `feature_gates`: the cluster's gates as the operator is told them (--feature-gates).
  void Start(std::vector<std::string> emulator_args, std::string feature_gates = "") {
    emulator_ = std::make_unique<KubeEmulator>(std::move(emulator_args));
    ASSERT_TRUE(emulator_->ok()) << emulator_->error();
    client_ = emulator_->NewClient();
    OperatorOptions options;
    options.client = client_.get();
    options.clock = runtime::RealClock::Default();
    options.metrics = &metrics_;
    options.events = &events_;
    options.workers = 2;
    options.feature_gates = std::move(feature_gates);
    options.status_interval = absl::ZeroDuration();
    options.dra_poll_interval = absl::Milliseconds(200);
    options.log = [](const std::string& line) {
      std::fprintf(stderr, "operator: %s\n", line.c_str());
    };
    absl::StatusOr<std::unique_ptr<GpuProfileOperator>> op = GpuProfileOperator::Create(options);
    ASSERT_TRUE(op.ok()) << op.status();
    operator_ = *std::move(op);
    operator_->StartCaches();
    operator_->StartWorkers();
  }

  void TearDown() override {
    if (operator_) operator_->Stop();
  }

  void Apply(const std::string& path) {
    absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests({Src(path)});
    ASSERT_TRUE(objects.ok()) << objects.status();
    for (const dra::ManifestObject& m : *objects) ApplyObject(m.object);
  }

  void ApplyObject(const nlohmann::json& object) {
    const std::string kind = object["kind"];
    kube::ResourcePath path = kind == "GpuProfile"  ? kProfiles
                              : kind == "Namespace" ? kNamespaces
                                                    : kube::ResourcePath{};
    ASSERT_FALSE(path.resource.empty()) << kind;
    absl::StatusOr<nlohmann::json> created = client_->Create(path, object);
    if (kube::apierrors::IsAlreadyExists(created.status())) {
      nlohmann::json current = *client_->Get(path.WithName(object["metadata"]["name"]));
      nlohmann::json next = object;
      next["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"];
      ASSERT_TRUE(client_->Update(path.WithName(object["metadata"]["name"]), next).ok());
      return;
    }
    ASSERT_TRUE(created.ok()) << created.status();
  }

  // Polls `check` (real time) until it holds or 20 s pass.
  bool Eventually(const std::function<bool()>& check) {
    return e2e::testing::PollUntil(check, absl::Seconds(20));
  }

  nlohmann::json Condition(const std::string& profile, const std::string& type) {
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName(profile));
    if (!p.ok() || !p->contains("status")) return nullptr;
    for (const nlohmann::json& c : (*p)["status"].value("conditions", nlohmann::json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return nullptr;
  }

  bool ConditionIs(const std::string& profile, const std::string& type, const std::string& status,
                   const std::string& reason = "") {
    nlohmann::json c = Condition(profile, type);
    if (c.is_null() || c.value("status", "") != status) return false;
    if (!reason.empty() && c.value("reason", "") != reason) return false;
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName(profile));
    return (*p)["status"].value("observedGeneration", -1) ==
           (*p)["metadata"].value("generation", -2);
  }

  std::vector<std::string> Names(const kube::ResourcePath& collection,
                                 const std::string& label_selector = "") {
    kube::ListOptions options;
    options.label_selector = label_selector;
    absl::StatusOr<kube::ObjectList> list = client_->List(collection, options);
    std::vector<std::string> names;
    if (!list.ok()) return names;
    for (const nlohmann::json& item : list->items) {
      std::string ns = item["metadata"].value("namespace", "");
      names.push_back(ns.empty()
                          ? item["metadata"]["name"].get<std::string>()
                          : absl::StrCat(ns, "/", item["metadata"]["name"].get<std::string>()));
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // No key queued, waiting to come back or being reconciled: the operator has nothing left to do
  // until an event arrives.
  bool Idle() {
    return operator_->controller().queue()->Idle() &&
           operator_->node_group_controller().queue()->Idle();
  }

  // Reconciles every profile once more and waits, on the controller's own counter, until each of
  // those reconciles has finished and nothing else is left to do.
  void ReconcileEveryProfileOnce() {
    const std::vector<std::string> keys = operator_->cache().profiles().ListKeys();
    const int64_t done = operator_->controller().reconciles();
    for (const std::string& key : keys) operator_->controller().queue()->Add(key);
    ASSERT_TRUE(operator_->controller().AwaitReconciles(done + static_cast<int64_t>(keys.size()),
                                                        absl::Seconds(20)));
    ASSERT_TRUE(Eventually([&] { return Idle(); }));
  }

  // Waits until the operator's namespace cache holds `names`. Namespaces and profiles reach the
  // operator through separate watches, and Kubernetes orders events only within one watch: a
  // profile applied after a namespace may still be seen first. A test that expects a profile's
  // Ready to cover a namespace waits for the namespace to be seen before applying the profile.
  void WaitForNamespacesSeen(const std::vector<std::string>& names) {
    ASSERT_TRUE(Eventually([&] {
      for (const std::string& name : names) {
        if (operator_->cache().namespaces().Get(name) == nullptr) return false;
      }
      return true;
    }));
  }

  double Writes() {
    double total = 0;
    const std::string text = metrics_.TextExposition();
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!absl::StartsWith(line, "gpuprofile_operator_writes_total{")) continue;
      double v = 0;
      if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &v)) total += v;
    }
    return total;
  }

  // Whether an event recorded so far has a line starting with `prefix` (and containing `part`).
  bool Recorded(const std::string& prefix, const std::string& part = "") {
    for (const std::string& line : sink_.lines()) {
      if (absl::StartsWith(line, prefix) && absl::StrContains(line, part)) return true;
    }
    return false;
  }

  runtime::MetricsRegistry metrics_;
  CapturingSink sink_;
  runtime::EventRecorder events_{runtime::EventRecorderOptions{
      "gpuprofile.io/gpu-profile-operator", "test", runtime::RealClock::Default(), &sink_}};
  std::unique_ptr<KubeEmulator> emulator_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<GpuProfileOperator> operator_;
};

TEST_F(OperatorTest, StoryProfilesConvergeOnTheExampleFleet) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  for (const char* p : {"large-memory", "light-inference", "ampere-or-newer", "recent-driver"}) {
    Apply(absl::StrCat("config/samples/profiles/", p, ".yaml"));
  }
  for (const char* p : {"large-memory", "light-inference", "ampere-or-newer", "recent-driver"}) {
    EXPECT_TRUE(Eventually([&] { return ConditionIs(p, "Ready", "True"); })) << p;
  }
  EXPECT_THAT(
      Names(kClasses, "app.kubernetes.io/managed-by=gpu-profile-operator"),
      UnorderedElementsAre("large-memory", "light-inference", "ampere-or-newer", "recent-driver"));
  EXPECT_TRUE(Eventually([&] { return !Names(GpuNodeGroupsPath()).empty(); }));
  absl::StatusOr<nlohmann::json> large = client_->Get(kProfiles.WithName("large-memory"));
  ASSERT_TRUE(large.ok());
  EXPECT_THAT((*large)["metadata"]["finalizers"], ElementsAre("gpuprofile.io/cleanup"));
  EXPECT_GT((*large)["status"]["matchedDevices"].get<int>(), 0);
  // Per-profile gauges name profiles only: events of owned templates enqueue their profile by
  // name (a GpuProfile is cluster-scoped), not "<template namespace>/<profile>".
  const std::string exposition = metrics_.TextExposition();
  EXPECT_THAT(exposition, HasSubstr("gpuprofile_ready{profile=\"large-memory\"} 1"));
  EXPECT_THAT(exposition, Not(HasSubstr("profile=\"ml-train/")));

  // Idle: once a pass over every profile writes nothing (the late events of the operator's own
  // writes may take a pass or two), the next pass, with a fresh computation of the desired
  // state, writes nothing either. An operator that wrote on every pass never gets there.
  ASSERT_TRUE(Eventually([&] { return Idle(); }));
  bool settled = false;
  for (int pass = 0; pass < 10 && !settled; ++pass) {
    const double before_pass = Writes();
    ReconcileEveryProfileOnce();
    settled = Writes() == before_pass;
  }
  ASSERT_TRUE(settled) << "every pass over the profiles wrote something";
  const double before = Writes();
  operator_->cache().Touch();
  ReconcileEveryProfileOnce();
  EXPECT_EQ(Writes(), before);
}

TEST_F(OperatorTest, NamespaceLabelsAddAndRemoveTemplates) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  WaitForNamespacesSeen({"batch", "ml-inference", "ml-train"});
  Apply("config/samples/profiles/light-inference.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("light-inference", "Ready", "True"); }));
  // Ready covers every namespace the operator had seen: sampled, not waited for.
  const std::vector<std::string> before = {"batch/light-inference", "ml-inference/light-inference"};
  ASSERT_EQ(Names(kTemplates, "gpuprofile.io/profile=light-inference"), before);
  ApplyObject({{"apiVersion", "v1"},
               {"kind", "Namespace"},
               {"metadata", {{"name", "team-new"}, {"labels", {{"gpu-profiles", "enabled"}}}}}});
  EXPECT_TRUE(Eventually([&] {
    auto names = Names(kTemplates, "gpuprofile.io/profile=light-inference");
    return std::find(names.begin(), names.end(), "team-new/light-inference") != names.end();
  }));
  ApplyObject({{"apiVersion", "v1"},
               {"kind", "Namespace"},
               {"metadata", {{"name", "team-new"}, {"labels", {{"gpu-profiles", "off"}}}}}});
  EXPECT_TRUE(Eventually(
      [&] { return Names(kTemplates, "gpuprofile.io/profile=light-inference") == before; }));
}

// A ResourceSlice change is computed without planning the profiles again (the spec side of the
// desired state cannot change with devices), and the profile counts the new device.
TEST_F(OperatorTest, ASliceChangeKeepsTheSpecPlan) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  const auto matched = [&] {
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName("large-memory"));
    return p.ok() ? (*p)["status"].value("matchedDevices", -1) : -1;
  };
  const int before = matched();
  ASSERT_GT(before, 0);
  // Settled: the late events of the operator's own writes are handled, and one more pass over
  // every profile plans nothing new.
  ASSERT_TRUE(Eventually([&] { return Idle(); }));
  ReconcileEveryProfileOnce();
  const int64_t plans = operator_->desired().plans();
  const int64_t computations = operator_->desired().computations();

  // One more A100-40GB device on a100-node-1 (a copy of its first, renamed).
  const kube::ResourcePath slice =
      ResourceSlicesPath(dra::DraApiVersion::kV1).WithName("a100-node-1-gpu.nvidia.com-7kq2x");
  absl::StatusOr<nlohmann::json> object = client_->Get(slice);
  ASSERT_TRUE(object.ok()) << object.status();
  nlohmann::json extra = (*object)["spec"]["devices"][0];
  extra["name"] = "gpu-extra";
  (*object)["spec"]["devices"].push_back(extra);
  ASSERT_TRUE(client_->Update(slice, *object).ok());
  EXPECT_TRUE(Eventually([&] { return matched() == before + 1; }));
  EXPECT_GT(operator_->desired().computations(), computations);
  EXPECT_EQ(operator_->desired().plans(), plans);
}

// Kubernetes 1.36 (device taints on by default; list-typed attributes, alpha, turned on in the
// API server and told to the operator): a health taint, then a list-typed attribute, added to a
// published slice reach the profile's status; the taint leaves a matched device unschedulable,
// and lifting it brings it back.
TEST_F(OperatorTest, TaintsAndListAttributesOnASliceUpdateReachStatus) {
  Start({"--kube-version", "1.36", "--feature-gates", "DRAListTypeAttributes=true", "-f",
         Src("crds"), "-f", Src("config/samples/fleet")},
        "DRAListTypeAttributes=true");
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  const auto status = [&](const char* field) -> int64_t {
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName("large-memory"));
    if (!p.ok() || !(*p)["status"].is_object()) return -1;
    return (*p)["status"].value(field, int64_t{-1});
  };
  const int64_t matched = status("matchedDevices");
  ASSERT_GT(matched, 0);
  ASSERT_TRUE(Eventually([&] { return status("schedulableDevices") == matched; }));
  EXPECT_EQ(status("taintedDevices"), 0);

  const kube::ResourcePath slice =
      ResourceSlicesPath(dra::DraApiVersion::kV1).WithName("a100-node-1-gpu.nvidia.com-7kq2x");
  absl::StatusOr<nlohmann::json> object = client_->Get(slice);
  ASSERT_TRUE(object.ok()) << object.status();
  (*object)["spec"]["devices"][0]["taints"] = nlohmann::json::array(
      {{{"key", "gpu.nvidia.com/xid"}, {"value", "79"}, {"effect", "NoSchedule"}}});
  ASSERT_TRUE(client_->Update(slice, *object).ok());
  EXPECT_TRUE(Eventually([&] {
    return status("taintedDevices") == 1 && status("schedulableDevices") == matched - 1 &&
           status("matchedDevices") == matched;
  }));

  object = client_->Get(slice);
  ASSERT_TRUE(object.ok()) << object.status();
  (*object)["spec"]["devices"][0].erase("taints");
  (*object)["spec"]["devices"][0]["attributes"]["resource.kubernetes.io/numaNode"] = {
      {"ints", nlohmann::json::array({0})}};
  absl::StatusOr<nlohmann::json> updated = client_->Update(slice, *object);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_TRUE(Eventually(
      [&] { return status("taintedDevices") == 0 && status("schedulableDevices") == matched; }));
}

// Allocation truth on the live operator: a claim from the profile's class, allocated as the
// scheduler would write it, shows as allocated and no longer free; a pending one is counted with
// its creation time; deleting the claims gives the devices back.
TEST_F(OperatorTest, ClaimsReachAllocationStatus) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  const auto allocation = [&](const char* field) -> int64_t {
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName("large-memory"));
    if (!p.ok() || !(*p)["status"].is_object() || !(*p)["status"].contains("allocation")) {
      return -1;
    }
    return (*p)["status"]["allocation"].value(field, int64_t{-1});
  };
  const auto group_free = [&]() -> int64_t {
    absl::StatusOr<kube::ObjectList> groups = client_->List(GpuNodeGroupsPath(), {});
    if (!groups.ok()) return -1;
    int64_t free = 0;
    for (const nlohmann::json& g : groups->items) {
      free += g["status"].value("freeDevices", int64_t{0});
    }
    return free;
  };
  ASSERT_TRUE(Eventually([&] { return allocation("freeDevices") > 0; }));
  const int64_t free = allocation("freeDevices");
  const int64_t fleet_free = group_free();
  EXPECT_EQ(allocation("allocatedDevices"), 0);

  const kube::ResourcePath claims =
      ResourceClaimsPath(dra::DraApiVersion::kV1).WithNamespace("ml-train");
  const auto claim = [](const std::string& name) {
    return nlohmann::json{
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceClaim"},
        {"metadata", {{"name", name}, {"namespace", "ml-train"}}},
        {"spec",
         {{"devices",
           {{"requests",
             {{{"name", "gpu"}, {"exactly", {{"deviceClassName", "large-memory"}}}}}}}}}}};
  };
  absl::StatusOr<nlohmann::json> held = client_->Create(claims, claim("held"));
  ASSERT_TRUE(held.ok()) << held.status();
  (*held)["status"] = {{"allocation",
                        {{"devices",
                          {{"results",
                            {{{"request", "gpu"},
                              {"driver", "gpu.nvidia.com"},
                              {"pool", "a100-node-1"},
                              {"device", "gpu-0"}}}}}}}}};
  absl::StatusOr<nlohmann::json> allocated =
      client_->Update(claims.WithName("held").WithSubresource("status"), *held);
  ASSERT_TRUE(allocated.ok()) << allocated.status();
  absl::StatusOr<nlohmann::json> waiting = client_->Create(claims, claim("waiting"));
  ASSERT_TRUE(waiting.ok()) << waiting.status();

  EXPECT_TRUE(Eventually([&] {
    return allocation("allocatedDevices") == 1 && allocation("allocatedClaims") == 1 &&
           allocation("freeDevices") == free - 1 && allocation("pendingClaims") == 1 &&
           group_free() == fleet_free - 1;
  }));
  absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName("large-memory"));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)["status"]["allocation"].value("oldestPendingClaimTime", ""),
            (*waiting)["metadata"]["creationTimestamp"]);
  const std::string metrics = metrics_.TextExposition();
  EXPECT_THAT(metrics, HasSubstr("gpuprofile_allocated_devices{profile=\"large-memory\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("gpuprofile_pending_claims{profile=\"large-memory\"} 1"));
  EXPECT_THAT(metrics, HasSubstr(absl::StrCat("gpuprofile_free_devices{profile=\"large-memory\"} ",
                                              free - 1)));

  ASSERT_TRUE(client_->Delete(claims.WithName("held")).ok());
  ASSERT_TRUE(client_->Delete(claims.WithName("waiting")).ok());
  EXPECT_TRUE(Eventually([&] {
    return allocation("allocatedDevices") == 0 && allocation("freeDevices") == free &&
           allocation("pendingClaims") == 0 && group_free() == fleet_free;
  }));
}

// The migration view on the live operator: a DRA node whose allocatable also has nvidia.com/gpu
// turns its group Both, with the OfferedTwice condition and a Warning event; a node only the
// device plugin serves gets a DevicePlugin group; removing the plugin's resource clears both.
TEST_F(OperatorTest, NodeGroupsShowTheMigrationFromTheDevicePlugin) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  const kube::ResourcePath nodes = NodesPath();
  const auto group = [&](const std::string& name) -> nlohmann::json {
    absl::StatusOr<nlohmann::json> g = client_->Get(GpuNodeGroupsPath().WithName(name));
    if (!g.ok() || !(*g)["status"].is_object()) return nlohmann::json::object();  // none (yet)
    return (*g)["status"];
  };
  const std::string a100 = "nvidia-a100-sxm4-40gb-550.127.8";
  ASSERT_TRUE(Eventually([&] { return group(a100).value("offeredBy", "") == "DRA"; }));

  absl::StatusOr<nlohmann::json> node = client_->Get(nodes.WithName("a100-node-1"));
  ASSERT_TRUE(node.ok()) << node.status();
  (*node)["status"]["allocatable"] = {{"cpu", "64"}, {"nvidia.com/gpu", "4"}};
  ASSERT_TRUE(client_->Update(nodes.WithName("a100-node-1").WithSubresource("status"), *node).ok());
  nlohmann::json plugin_only = {{"apiVersion", "v1"},
                                {"kind", "Node"},
                                {"metadata",
                                 {{"name", "v100-node-1"},
                                  {"labels",
                                   {{"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"},
                                    {"nvidia.com/gpu.memory", "16384"}}}}},
                                {"status", {{"allocatable", {{"nvidia.com/gpu", "8"}}}}}};
  absl::StatusOr<nlohmann::json> created = client_->Create(nodes, plugin_only);
  ASSERT_TRUE(created.ok()) << created.status();

  EXPECT_TRUE(Eventually([&] {
    const nlohmann::json a = group(a100);
    const nlohmann::json v = group("tesla-v100-sxm2-16gb-device-plugin");
    return a.value("offeredBy", "") == "Both" &&
           a.value("offeredTwiceNodes", nlohmann::json()) == nlohmann::json({"a100-node-1"}) &&
           v.value("offeredBy", "") == "DevicePlugin" && v.value("devices", 0) == 8;
  }));
  const nlohmann::json a = group(a100);
  ASSERT_EQ(a["conditions"].size(), 1u) << a.dump();
  EXPECT_EQ(a["conditions"][0]["type"], "OfferedTwice");
  EXPECT_EQ(a["conditions"][0]["status"], "True");
  EXPECT_FALSE(a["conditions"][0].value("lastTransitionTime", "").empty());
  EXPECT_TRUE(Eventually([&] { return Recorded("Warning DevicePluginAndDRA", "a100-node-1"); }));
  EXPECT_EQ(group("nvidia-l40s-570.133.20").value("offeredBy", ""), "DRA");

  node = client_->Get(nodes.WithName("a100-node-1"));
  ASSERT_TRUE(node.ok());
  (*node)["status"]["allocatable"] = {{"cpu", "64"}};
  ASSERT_TRUE(client_->Update(nodes.WithName("a100-node-1").WithSubresource("status"), *node).ok());
  ASSERT_TRUE(client_->Delete(nodes.WithName("v100-node-1")).ok());
  EXPECT_TRUE(Eventually([&] {
    const nlohmann::json g = group(a100);
    return g.value("offeredBy", "") == "DRA" && !g.contains("conditions") &&
           group("tesla-v100-sxm2-16gb-device-plugin").empty();
  }));
}

// The live operator on the NVIDIA driver's 1.36 publication (counters-only slice, MIG placements
// drawing from it, list-typed numaNode, a health taint on one GPU), on an API server with list
// types on: the same counts as the decoders and render give (test/profile/slice_corpus_test.cc).
TEST_F(OperatorTest, NvidiaPartitionedFleetOn136CountsWhatFitsAtOnce) {
  Start({"--kube-version", "1.36", "--feature-gates", "DRAListTypeAttributes=true", "-f",
         Src("crds"), "-f", Src("test/testdata/dra/nvidia-1.35/node-a100-mig-node-1.yaml"), "-f",
         Src("test/testdata/dra/nvidia-1.35/dynamicmig-a100x2-numalist-taint.k8s-1.36.v1.yaml")},
        "DRAListTypeAttributes=true");
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/ampere-or-newer.yaml");
  nlohmann::json mig = {{"apiVersion", "gpuprofile.io/v1alpha1"},
                        {"kind", "GpuProfile"},
                        {"metadata", {{"name", "any-mig"}}},
                        {"spec",
                         {{"deviceType", "mig"},
                          {"selector",
                           {{"cel",
                             {"device.attributes['resource.kubernetes.io']"
                              ".numaNode.includes(0) || true"}}}},
                          {"claimTemplate", {{"namespaces", {"ml-train"}}}}}}};
  ApplyObject(mig);
  const auto status = [&](const char* profile, const char* field) -> int64_t {
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName(profile));
    if (!p.ok() || !(*p)["status"].is_object()) return -1;
    return (*p)["status"].value(field, int64_t{-1});
  };
  // Two full A100 GPUs (compute capability 8.0); gpu-1 carries XID 79 (NoSchedule).
  EXPECT_TRUE(Eventually([&] {
    return status("ampere-or-newer", "matchedDevices") == 2 &&
           status("ampere-or-newer", "schedulableDevices") == 1 &&
           status("ampere-or-newer", "taintedDevices") == 1 &&
           ConditionIs("ampere-or-newer", "Satisfiable", "True");
  })) << client_->Get(kProfiles.WithName("ampere-or-newer"))->dump();
  // 50 MIG placements over two GPUs' counter sets: seven 1g placements per GPU fit at once.
  EXPECT_TRUE(Eventually([&] {
    return status("any-mig", "matchedDevices") == 50 &&
           status("any-mig", "schedulableDevices") == 14 && ConditionIs("any-mig", "Ready", "True");
  })) << client_->Get(kProfiles.WithName("any-mig"))->dump();
}

// A hand edit of a managed DeviceClass keeps its labels (so the desired state is not recomputed)
// but is still repaired, also after the profile has been reconciled with everything in place.
TEST_F(OperatorTest, HandEditOfAManagedClassIsRepaired) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  absl::StatusOr<nlohmann::json> original = client_->Get(kClasses.WithName("large-memory"));
  ASSERT_TRUE(original.ok()) << original.status();
  // A slice change first: the profile is reconciled again with nothing to write.
  ASSERT_TRUE(Eventually([&] { return Idle(); }));
  const int64_t reconciles = operator_->controller().reconciles();
  const kube::ResourcePath slice =
      ResourceSlicesPath(dra::DraApiVersion::kV1).WithName("a100-node-1-gpu.nvidia.com-7kq2x");
  ASSERT_TRUE(client_
                  ->Patch(slice, kube::PatchType::kMerge,
                          {{"metadata", {{"annotations", {{"touched", "1"}}}}}})
                  .ok());
  ASSERT_TRUE(operator_->controller().AwaitReconciles(reconciles + 1, absl::Seconds(20)));
  ASSERT_TRUE(Eventually([&] { return Idle(); }));
  ASSERT_TRUE(client_
                  ->Patch(kClasses.WithName("large-memory"), kube::PatchType::kMerge,
                          {{"spec",
                            {{"selectors",
                              {{{"cel", {{"expression", "device.driver == 'x.example.com'"}}}}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    absl::StatusOr<nlohmann::json> now = client_->Get(kClasses.WithName("large-memory"));
    return now.ok() && (*now)["spec"]["selectors"] == (*original)["spec"]["selectors"];
  }));
}

TEST_F(OperatorTest, CountChangeRecreatesTemplatesUnderTheSameName) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  WaitForNamespacesSeen({"batch", "ml-inference", "ml-train"});
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  absl::StatusOr<nlohmann::json> old_tmpl =
      client_->Get(kTemplates.WithNamespace("ml-train").WithName("large-memory"));
  ASSERT_TRUE(old_tmpl.ok()) << old_tmpl.status();
  nlohmann::json patch = {{"spec", {{"count", 2}}}};
  ASSERT_TRUE(
      client_->Patch(kProfiles.WithName("large-memory"), kube::PatchType::kMerge, patch).ok());
  EXPECT_TRUE(Eventually([&] {
    absl::StatusOr<nlohmann::json> t =
        client_->Get(kTemplates.WithNamespace("ml-train").WithName("large-memory"));
    return t.ok() && (*t)["metadata"]["uid"] != (*old_tmpl)["metadata"]["uid"] &&
           (*t)["spec"]["spec"]["devices"]["requests"][0]["exactly"].value("count", 0) == 2;
  }));
  EXPECT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
}

TEST_F(OperatorTest, UnmanagedClassYieldsConflictAndStaysUntouched) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  nlohmann::json foreign = {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "DeviceClass"},
      {"metadata", {{"name", "large-memory"}}},
      {"spec", {{"selectors", {{{"cel", {{"expression", "device.driver == 'x.example.com'"}}}}}}}}};
  ASSERT_TRUE(client_->Create(kClasses, foreign).ok());
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/large-memory.yaml");
  EXPECT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Conflict", "True"); }));
  EXPECT_TRUE(ConditionIs("large-memory", "Ready", "False"));
  absl::StatusOr<nlohmann::json> still = client_->Get(kClasses.WithName("large-memory"));
  ASSERT_TRUE(still.ok());
  EXPECT_EQ((*still)["spec"]["selectors"][0]["cel"]["expression"],
            "device.driver == 'x.example.com'");
  EXPECT_FALSE((*still)["metadata"].contains("ownerReferences"));
}

TEST_F(OperatorTest, DeletionPoliciesAndAdoption) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  // Orphan: the objects stay, without owner references; the profile goes.
  ASSERT_TRUE(client_
                  ->Patch(kProfiles.WithName("large-memory"), kube::PatchType::kMerge,
                          {{"spec", {{"deletionPolicy", "Orphan"}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  ASSERT_TRUE(client_->Delete(kProfiles.WithName("large-memory")).ok());
  EXPECT_TRUE(Eventually([&] {
    return kube::apierrors::IsNotFound(client_->Get(kProfiles.WithName("large-memory")).status());
  }));
  absl::StatusOr<nlohmann::json> kept = client_->Get(kClasses.WithName("large-memory"));
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE((*kept)["metadata"].contains("ownerReferences"));
  // Re-created: adopts them (owner reference to the new uid), no duplicates.
  Apply("config/samples/profiles/large-memory.yaml");
  ASSERT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Ready", "True"); }));
  absl::StatusOr<nlohmann::json> profile = client_->Get(kProfiles.WithName("large-memory"));
  EXPECT_TRUE(Eventually([&] {
    absl::StatusOr<nlohmann::json> c = client_->Get(kClasses.WithName("large-memory"));
    return c.ok() && (*c)["metadata"].contains("ownerReferences") &&
           (*c)["metadata"]["ownerReferences"][0]["uid"] == (*profile)["metadata"]["uid"];
  }));
  // Delete (the default policy again): everything goes.
  ASSERT_TRUE(client_->Delete(kProfiles.WithName("large-memory")).ok());
  EXPECT_TRUE(Eventually([&] {
    return Names(kClasses, "gpuprofile.io/profile=large-memory").empty() &&
           Names(kTemplates, "gpuprofile.io/profile=large-memory").empty();
  }));
}

TEST_F(OperatorTest, DraNotServedIsReportedAsStalled) {
  Start({"--kube-version", "1.32", "--runtime-config", "resource.k8s.io/v1beta1=false", "-f",
         Src("crds")});
  Apply("config/samples/profiles/large-memory.yaml");
  EXPECT_TRUE(
      Eventually([&] { return ConditionIs("large-memory", "Stalled", "True", "DRANotServed"); }));
  EXPECT_FALSE(operator_->DraServed().ok());
}

// spec.quota: a ResourceQuota per selected namespace, kept like the templates: created, replaced
// in place when the limit changes, deleted when a namespace leaves the selection and when the
// profile goes; status.quotas counts them.
TEST_F(OperatorTest, QuotasFollowTheProfileAndItsNamespaces) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  WaitForNamespacesSeen({"batch", "ml-inference", "ml-train"});
  ApplyObject({{"apiVersion", "gpuprofile.io/v1alpha1"},
               {"kind", "GpuProfile"},
               {"metadata", {{"name", "quota-inference"}}},
               {"spec",
                {{"claimTemplate",
                  {{"namespaceSelector", {{"matchLabels", {{"gpu-profiles", "enabled"}}}}}}},
                 {"quota", {{"devicesPerNamespace", 2}}}}}});
  const std::string selector = "gpuprofile.io/profile=quota-inference";
  const std::string key = "quota-inference.deviceclass.resource.k8s.io/devices";
  const auto hard = [&](const std::string& ns) -> nlohmann::json {
    absl::StatusOr<nlohmann::json> q =
        client_->Get(kQuotas.WithNamespace(ns).WithName("gpu-profile-quota-inference"));
    if (!q.ok()) return nullptr;
    return (*q)["spec"].value("hard", nlohmann::json::object()).value(key, nlohmann::json());
  };
  const auto quota_counts = [&]() -> nlohmann::json {
    absl::StatusOr<nlohmann::json> p = client_->Get(kProfiles.WithName("quota-inference"));
    if (!p.ok() || !p->contains("status")) return nullptr;
    return (*p)["status"].value("quotas", nlohmann::json());
  };
  ASSERT_TRUE(Eventually([&] { return ConditionIs("quota-inference", "Ready", "True"); }));
  EXPECT_TRUE(Eventually([&] {
    return Names(kQuotas, selector) ==
           std::vector<std::string>{"batch/gpu-profile-quota-inference",
                                    "ml-inference/gpu-profile-quota-inference"};
  }));
  EXPECT_EQ(hard("batch"), "2");
  EXPECT_EQ(hard("ml-inference"), "2");
  EXPECT_TRUE(Eventually([&] {
    return quota_counts() == nlohmann::json{{"desired", 2}, {"ready", 2}};
  })) << quota_counts();
  EXPECT_TRUE(Recorded("Normal Applied: created", "ResourceQuota"))
      << absl::StrJoin(sink_.lines(), "\n");

  // The limit changes: the same quota (same uid) gets the new value.
  absl::StatusOr<nlohmann::json> before =
      client_->Get(kQuotas.WithNamespace("batch").WithName("gpu-profile-quota-inference"));
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(client_
                  ->Patch(kProfiles.WithName("quota-inference"), kube::PatchType::kMerge,
                          {{"spec", {{"quota", {{"devicesPerNamespace", 3}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return hard("batch") == "3" && hard("ml-inference") == "3"; }));
  absl::StatusOr<nlohmann::json> after =
      client_->Get(kQuotas.WithNamespace("batch").WithName("gpu-profile-quota-inference"));
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*after)["metadata"]["uid"], (*before)["metadata"]["uid"]);
  EXPECT_TRUE(Recorded("Normal Applied: updated", "ResourceQuota"))
      << absl::StrJoin(sink_.lines(), "\n");

  // A namespace leaves the selection: its quota goes, the other stays.
  ApplyObject({{"apiVersion", "v1"},
               {"kind", "Namespace"},
               {"metadata", {{"name", "batch"}, {"labels", {{"gpu-profiles", "off"}}}}}});
  EXPECT_TRUE(Eventually([&] {
    return Names(kQuotas, selector) ==
           std::vector<std::string>{"ml-inference/gpu-profile-quota-inference"};
  }));
  EXPECT_TRUE(Eventually([&] {
    return quota_counts() == nlohmann::json{{"desired", 1}, {"ready", 1}};
  })) << quota_counts();

  // The profile goes (deletionPolicy Delete): so do its quotas.
  ASSERT_TRUE(client_->Delete(kProfiles.WithName("quota-inference")).ok());
  EXPECT_TRUE(Eventually([&] {
    return kube::apierrors::IsNotFound(
               client_->Get(kProfiles.WithName("quota-inference")).status()) &&
           Names(kQuotas, selector).empty();
  }));
  EXPECT_TRUE(Recorded("Normal Deleted: deleted", "1 ResourceQuota (in ml-inference)"))
      << absl::StrJoin(sink_.lines(), "\n");
}

// A quota the operator does not manage, under the name a profile wants, is met on create (only
// labelled quotas are watched): the profile reports Conflict and the quota is left as it is.
TEST_F(OperatorTest, AnUnmanagedQuotaYieldsConflictAndStaysUntouched) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  Apply("config/samples/namespaces.yaml");
  WaitForNamespacesSeen({"batch", "ml-inference", "ml-train"});
  ASSERT_TRUE(client_
                  ->Create(kQuotas.WithNamespace("ml-train"),
                           {{"apiVersion", "v1"},
                            {"kind", "ResourceQuota"},
                            {"metadata", {{"name", "gpu-profile-large-memory"}}},
                            {"spec", {{"hard", {{"pods", "10"}}}}}})
                  .ok());
  ApplyObject({{"apiVersion", "gpuprofile.io/v1alpha1"},
               {"kind", "GpuProfile"},
               {"metadata", {{"name", "large-memory"}}},
               {"spec",
                {{"selector", {{"memory", {{"min", "40Gi"}}}}},
                 {"claimTemplate", {{"namespaces", {"ml-train"}}}},
                 {"quota", {{"devicesPerNamespace", 1}}}}}});
  EXPECT_TRUE(Eventually([&] { return ConditionIs("large-memory", "Conflict", "True"); }));
  EXPECT_THAT(Condition("large-memory", "Conflict").value("message", ""),
              HasSubstr("ml-train/gpu-profile-large-memory"));
  absl::StatusOr<nlohmann::json> still =
      client_->Get(kQuotas.WithNamespace("ml-train").WithName("gpu-profile-large-memory"));
  ASSERT_TRUE(still.ok()) << still.status();
  EXPECT_EQ((*still)["spec"]["hard"], nlohmann::json({{"pods", "10"}}));
  EXPECT_FALSE((*still)["metadata"].contains("ownerReferences"));
  EXPECT_FALSE((*still)["metadata"].contains("labels"));
}

// A profile whose fields the cluster cannot express is Stalled with the engine's reason, and the
// Warning says so with that reason (not InvalidSpec); nothing is written for it.
TEST_F(OperatorTest, AFieldTheClusterCannotExpressIsAFeatureNotServedWarning) {
  Start({"--kube-version", "1.34", "-f", Src("crds"), "-f", Src("config/samples/fleet")});
  ApplyObject({{"apiVersion", "gpuprofile.io/v1alpha1"},
               {"kind", "GpuProfile"},
               {"metadata", {{"name", "shared-memory"}}},
               {"spec", {{"capacityRequests", {{"memory", "10Gi"}}}}}});
  EXPECT_TRUE(Eventually(
      [&] { return ConditionIs("shared-memory", "Stalled", "True", "FeatureNotServed"); }));
  EXPECT_TRUE(Eventually([&] {
    return Recorded("Warning FeatureNotServed: spec cannot be realised: spec.capacityRequests");
  })) << absl::StrJoin(sink_.lines(), "\n");
  EXPECT_FALSE(Recorded("Warning InvalidSpec"));
  EXPECT_THAT(Names(kClasses, "gpuprofile.io/profile=shared-memory"), ::testing::IsEmpty());
}

// The operator is told a gate is on (--feature-gates DRADeviceTaints=true) that the API server
// has off: the server stores the template without the tolerations the operator wrote. Re-creating
// it would loop (every re-creation is dropped the same way); the operator writes it once, then
// reports FeatureNotServed naming the template, and writes nothing more until the spec changes.
TEST_F(OperatorTest, FieldsTheServerDropsAreReportedNotRewrittenForever) {
  Start({"--kube-version", "1.35", "-f", Src("crds"), "-f", Src("config/samples/fleet")},
        "DRADeviceTaints=true");
  Apply("config/samples/namespaces.yaml");
  const nlohmann::json tolerant = nlohmann::json::parse(R"({
      "apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
      "metadata": {"name": "tolerant"},
      "spec": {"tolerations": [{"key": "gpu.nvidia.com/xid", "operator": "Exists"}],
               "claimTemplate": {"namespaces": ["ml-train"]}}})");
  ApplyObject(tolerant);
  EXPECT_TRUE(
      Eventually([&] { return ConditionIs("tolerant", "Stalled", "True", "FeatureNotServed"); }));
  absl::StatusOr<nlohmann::json> profile = client_->Get(kProfiles.WithName("tolerant"));
  ASSERT_TRUE(profile.ok());
  std::string message;
  for (const auto& c : (*profile)["status"]["conditions"]) {
    if (c["type"] == "Stalled") message = c["message"].get<std::string>();
  }
  EXPECT_THAT(message, HasSubstr("the API server stores ResourceClaimTemplate ml-train/tolerant "
                                 "without fields the operator wrote"));
  absl::StatusOr<nlohmann::json> stored =
      client_->Get(kTemplates.WithNamespace("ml-train").WithName("tolerant"));
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_FALSE(
      (*stored)["spec"]["spec"]["devices"]["requests"][0]["exactly"].contains("tolerations"))
      << "the emulator drops the field as kube-apiserver does with the gate off";
  // No loop: passes over the profile write nothing more (the template keeps its uid).
  const std::string uid = (*stored)["metadata"]["uid"].get<std::string>();
  ASSERT_TRUE(Eventually([&] { return Idle(); }));
  const double before = Writes();
  for (int pass = 0; pass < 3; ++pass) ReconcileEveryProfileOnce();
  EXPECT_EQ(Writes(), before);
  absl::StatusOr<nlohmann::json> after =
      client_->Get(kTemplates.WithNamespace("ml-train").WithName("tolerant"));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)["metadata"]["uid"].get<std::string>(), uid);
}

// The operator's log lines, and a bounded wait (on a condition, not a sleep) for one.
class LogLines {
 public:
  std::function<void(const std::string&)> Sink() {
    return [this](const std::string& line) {
      absl::MutexLock lock(&mu_);
      lines_.push_back(line);
    };
  }
  bool WaitFor(const std::string& text) {
    absl::MutexLock lock(&mu_);
    auto logged = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const std::string& line : lines_) {
        if (absl::StrContains(line, text)) return true;
      }
      return false;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&logged), absl::Seconds(20));
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

// The discovery poller waits on the injected clock: it asks at once, then not again until the
// clock has moved a full dra_poll_interval (an hour here, which would stall a poller on real time),
// and then notices that the API server now serves resource.k8s.io/v1.
TEST(DraDiscoveryTest, PollsOnTheInjectedClock) {
  KubeEmulator emulator({"--kube-version", "1.37", "--runtime-config",
                         "resource.k8s.io/v1=false,resource.k8s.io/v1alpha3=true", "-f",
                         Src("crds")});
  ASSERT_TRUE(emulator.ok()) << emulator.error();
  std::unique_ptr<kube::RestClient> client = emulator.NewClient();
  runtime::FakeClock clock;
  LogLines log;
  OperatorOptions options;
  options.client = client.get();
  options.clock = &clock;
  options.dra_poll_interval = absl::Hours(1);
  options.log = log.Sink();
  absl::StatusOr<std::unique_ptr<GpuProfileOperator>> created = GpuProfileOperator::Create(options);
  ASSERT_TRUE(created.ok()) << created.status();
  GpuProfileOperator& op = **created;
  ASSERT_TRUE(op.caches_runnable()->Start().ok());
  ASSERT_TRUE(op.discovery_runnable()->Start().ok());
  ASSERT_TRUE(
      log.WaitFor("Dynamic Resource Allocation is not available: the API server serves "
                  "resource.k8s.io only in version v1alpha3"));
  EXPECT_TRUE(absl::IsNotFound(op.DraServed()));

  kube::HttpRequest request;
  request.method = "POST";
  request.path = "/emulator/runtime-config";
  request.body = "resource.k8s.io/v1=true";
  request.headers = {{"Content-Type", "text/plain"}};
  absl::StatusOr<kube::HttpResponse> switched = emulator.transport()->Send(request);
  ASSERT_TRUE(switched.ok()) << switched.status();
  ASSERT_EQ(switched->status, 200) << switched->body;
  // The clock stands still: no second poll yet.
  EXPECT_TRUE(absl::IsNotFound(op.DraServed()));

  clock.Advance(absl::Hours(1));
  ASSERT_TRUE(log.WaitFor("resource.k8s.io/v1 is served"));
  EXPECT_TRUE(op.DraServed().ok()) << op.DraServed();
  op.discovery_runnable()->Stop();
  op.caches_runnable()->Stop();
}

}  // namespace
}  // namespace gpu_profile_operator_test
}  // namespace gpuprofile::reconciler
