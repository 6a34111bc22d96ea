// File: test/cmd/explain_command_test.cc
// `explain` as people and tools run it: the story of test/testdata/explain/story.yaml on the
// example fleet, offline (-f) as text and JSON with the exit codes; then the same story in
// kube-emulator, live (--kubeconfig), before and after the operator's objects exist; and the
// kubectl plugin path (`kubectl gpuprofile explain`) with the real kubectl where installed.
#include "controller/cmd/explain_command.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/cmd/exit_codes.h"
#include "controller/cmd/render_command.h"
#include "controller/dra/manifest_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::cmd {
namespace explain_command_test {
namespace {

using ::gpuprofile::testing::BinaryDir;
using ::gpuprofile::testing::SourceDir;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Result {
  int code;
  std::string out, err;
};

Result Explain(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = RunExplain(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Src(const std::string& relative) { return SourceDir() + "/" + relative; }

std::vector<std::string> StoryFiles() {
  return {"-f", Src("config/samples/profiles"), "-f", Src("config/samples/namespaces.yaml"),
          "-f", Src("config/samples/fleet"),    "-f", Src("test/testdata/explain/story.yaml")};
}

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// What the story's subjects must be explained as, live (with the operator's objects) and offline.
struct Case {
  std::vector<std::string> subject;
  int code;
  std::string first_finding;
};

const std::vector<Case>& StoryCases() {
  static const auto* cases = new std::vector<Case>{
      {{"pod/notebook", "-n", "research"}, kExitExplainedCause, "TemplateMissing"},
      {{"pod/trainer", "-n", "ml-train"}, kExitExplainedNoCause, "ClaimAllocated"},
      {{"pod/h100-job", "-n", "ml-train"}, kExitExplainedCause, "NoMatchingDevice"},
      {{"pod/pair-job", "-n", "batch"}, kExitExplainedCause, "NotEnoughDevicesOnOneNode"},
      {{"resourceclaim/pair-job-gpus", "-n", "batch"},
       kExitExplainedCause,
       "NotEnoughDevicesOnOneNode"},
      {{"gpuprofile", "large-memory"}, kExitExplainedNoCause, "ProfileServing"},
      {{"gpup/recent-driver"}, kExitExplainedCause, "NotEnoughDevicesOnOneNode"},
  };
  return *cases;
}

TEST(ExplainCommandTest, OfflineStoryAsJsonNamesEachSubjectsCause) {
  for (const Case& c : StoryCases()) {
    SCOPED_TRACE(c.subject[0]);
    Result r = Explain(With(With(c.subject, StoryFiles()), {"-o", "json"}));
    EXPECT_EQ(r.code, c.code) << r.err;
    EXPECT_THAT(r.err, IsEmpty());
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["kind"], "Explanation");
    EXPECT_EQ(j["result"], c.code == kExitExplainedCause ? "CauseFound" : "NoCauseFound");
    ASSERT_FALSE(j["findings"].empty());
    EXPECT_EQ(j["findings"][0]["code"], c.first_finding);
  }
}

TEST(ExplainCommandTest, OfflineTextForPeople) {
  Result r = Explain(With({"pod/pair-job", "-n", "batch"}, StoryFiles()));
  EXPECT_EQ(r.code, kExitExplainedCause) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Pod batch/pair-job: 1 cause found, most likely first\n"));
  EXPECT_THAT(r.out, HasSubstr("1. NotEnoughDevicesOnOneNode (Cause) [pod claim gpus, claim "
                               "batch/pair-job-gpus, profile recent-driver]\n"));
  EXPECT_THAT(r.out, HasSubstr("the most free on any node is 1 (a100-node-1); 5 are free"));
  EXPECT_THAT(r.out, HasSubstr("     holders: batch/busy-1, batch/busy-2, batch/busy-3, "
                               "batch/busy-4, batch/busy-5, ml-train/trainer-gpu-x7k2p\n"));

  Result notebook = Explain(With({"pod", "notebook", "-n", "research"}, StoryFiles()));
  EXPECT_EQ(notebook.code, kExitExplainedCause);
  EXPECT_THAT(notebook.out, HasSubstr("kubectl label namespace research gpu-profiles=enabled"));
}

TEST(ExplainCommandTest, DraOffOnA132ClusterComesFirst) {
  Result r = Explain(
      With(With({"pod/trainer", "-n", "ml-train"}, StoryFiles()), {"--kube-version", "1.32"}));
  EXPECT_EQ(r.code, kExitExplainedCause) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1. DraNotServed (Cause)"));
  Result on = Explain(
      With(With({"pod/trainer", "-n", "ml-train"}, StoryFiles()),
           {"--kube-version", "1.32", "--feature-gates", "DynamicResourceAllocation=true"}));
  EXPECT_EQ(on.code, kExitExplainedNoCause) << on.out << on.err;
}

TEST(ExplainCommandTest, ExitCodesForUnreadableInputsAndUsage) {
  Result missing = Explain(With({"pod/nope", "-n", "ml-train"}, StoryFiles()));
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_THAT(missing.err, HasSubstr("pod \"nope\" not found in namespace \"ml-train\""));
  EXPECT_THAT(missing.out, IsEmpty());

  Result bad_file = Explain({"pod/x", "-f", Src("test/testdata/explain/does-not-exist.yaml")});
  EXPECT_EQ(bad_file.code, kExitFailure);

  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"node/x", "-f", Src("test/testdata/explain/story.yaml")},
           {"pod/x", "-o", "yaml", "-f", Src("test/testdata/explain/story.yaml")},
           {"pod/x", "-f", Src("test/testdata/explain/story.yaml"), "--kubeconfig", "/dev/null"},
           {"pod/x", "--kube-version", "1.20", "-f", Src("test/testdata/explain/story.yaml")},
           {"pod/x", "--bogus"}}) {
    Result r = Explain(args);
    EXPECT_EQ(r.code, kExitUsage) << ::testing::PrintToString(args);
    EXPECT_THAT(r.err, HasSubstr("usage: gpu-profile-controller explain"));
  }
  Result help = Explain({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_THAT(help.out, HasSubstr("exit codes: 0 explained, no cause found; 3"));
}

// A fleet mid-migration: the example fleet's slices with its Nodes as the kubelet reports them
// (a100-node-1 also runs the device plugin), an A100 node and a V100 node the device plugin alone
// serves, and a pod that asks the device plugin for a GPU.
constexpr char kMigrationNodes[] = R"(
apiVersion: v1
kind: Node
metadata: {name: a100-node-1}
status: {allocatable: {cpu: "64", nvidia.com/gpu: "4"}}
---
apiVersion: v1
kind: Node
metadata: {name: a100-node-2}
status: {allocatable: {cpu: "64"}}
---
apiVersion: v1
kind: Node
metadata: {name: a100-node-3}
---
apiVersion: v1
kind: Node
metadata:
  name: a100-node-9
  labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB, nvidia.com/gpu.memory: "40960"}
status: {allocatable: {nvidia.com/gpu: "8"}}
---
apiVersion: v1
kind: Node
metadata:
  name: v100-node-1
  labels: {nvidia.com/gpu.product: Tesla-V100-SXM2-16GB, nvidia.com/gpu.memory: "16384"}
status: {allocatable: {nvidia.com/gpu: "8"}}
---
apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: ml-train}
spec:
  containers:
  - name: main
    image: cuda
    resources: {limits: {nvidia.com/gpu: 1}}
status: {phase: Pending}
)";

std::vector<std::string> MigrationFiles(const e2e::testing::ScratchDir& scratch) {
  scratch.Write("nodes.yaml", kMigrationNodes);
  std::vector<std::string> files = {
      "-f", Src("config/samples/profiles"),          "-f", Src("config/samples/namespaces.yaml"),
      "-f", Src("test/testdata/explain/story.yaml"), "-f", scratch.File("nodes.yaml")};
  for (const char* node :
       {"a100-node-1", "a100-node-2", "a100-node-3", "l40s-node-1", "l40s-node-2"}) {
    files = With(
        files, {"-f", Src(absl::StrCat("config/samples/fleet/resourceslice-", node, ".v1.yaml"))});
  }
  return files;
}

TEST(ExplainCommandTest, OfflineMigrationViewOfAProfile) {
  e2e::testing::ScratchDir scratch;
  const std::vector<std::string> files = MigrationFiles(scratch);
  Result r = Explain(With(With({"gpuprofile/large-memory"}, files), {"-o", "json"}));
  EXPECT_EQ(r.code, kExitExplainedNoCause) << r.err;
  EXPECT_THAT(r.err, IsEmpty());
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["result"], "NoCauseFound");
  EXPECT_EQ(j["findings"][0]["code"], "NodesOfferedTwice");
  EXPECT_EQ(j["findings"][0]["evidence"]["nodes"], nlohmann::json({"a100-node-1"}));
  EXPECT_EQ(j["findings"][1]["code"], "ProfileServing");
  const nlohmann::json& offers = j["nodeOffers"];
  EXPECT_EQ(offers["nodeCount"], 6);
  EXPECT_EQ(offers["offeredBy"]["Both"], nlohmann::json::parse(R"({"count": 1,
            "nodes": ["a100-node-1"]})"));
  // The L40S nodes have no Node object here: DRA alone offers their GPUs.
  EXPECT_EQ(offers["offeredBy"]["DRA"], nlohmann::json::parse(R"({"count": 4,
            "nodes": ["a100-node-2", "a100-node-3", "l40s-node-1", "l40s-node-2"]})"));
  // The V100 node is another product: not listed.
  EXPECT_EQ(offers["offeredBy"]["DevicePlugin"], nlohmann::json::parse(R"({"count": 1,
            "nodes": ["a100-node-9"]})"));
  ASSERT_EQ(offers["nodeGroups"].size(), 3u) << offers.dump();
  EXPECT_EQ(offers["nodeGroups"][0]["offeredBy"], "Both");
  EXPECT_EQ(offers["nodeGroups"][1], nlohmann::json::parse(R"({
            "name": "nvidia-a100-sxm4-40gb-device-plugin", "offeredBy": "DevicePlugin"})"));
  EXPECT_EQ(offers["nodeGroups"][2]["offeredBy"], "DRA");

  Result text = Explain(With({"gpuprofile/large-memory"}, files));
  EXPECT_EQ(text.code, kExitExplainedNoCause) << text.err;
  EXPECT_THAT(text.out, HasSubstr("1. NodesOfferedTwice (Info) [profile large-memory]\n"));
  EXPECT_THAT(text.out, HasSubstr("\nWho offers the GPUs, per node (6 nodes):\n"
                                  "   Both (device plugin and DRA): 1 (a100-node-1)\n"
                                  "   DRA: 4 (a100-node-2, a100-node-3, l40s-node-1, "
                                  "l40s-node-2)\n"
                                  "   DevicePlugin (same GPU product, not on DRA yet): 1 "
                                  "(a100-node-9)\n"));
}

TEST(ExplainCommandTest, OfflineMigrationViewOfPods) {
  e2e::testing::ScratchDir scratch;
  const std::vector<std::string> files = MigrationFiles(scratch);
  // Asks the device plugin: told, not blamed (three nodes still run it).
  Result legacy = Explain(With(With({"pod/legacy", "-n", "ml-train"}, files), {"-o", "json"}));
  EXPECT_EQ(legacy.code, kExitExplainedNoCause) << legacy.err;
  const nlohmann::json j = nlohmann::json::parse(legacy.out);
  EXPECT_EQ(j["findings"][0]["code"], "DevicePluginRequest");
  EXPECT_EQ(j["findings"][0]["evidence"]["devicePluginNodeCount"], 3);
  // A pending claim's cause is unchanged; the nodes offered twice come after it.
  Result pair = Explain(With(With({"pod/pair-job", "-n", "batch"}, files), {"-o", "json"}));
  EXPECT_EQ(pair.code, kExitExplainedCause) << pair.err;
  const nlohmann::json p = nlohmann::json::parse(pair.out);
  ASSERT_EQ(p["findings"].size(), 2u) << pair.out;
  EXPECT_EQ(p["findings"][0]["code"], "NotEnoughDevicesOnOneNode");
  EXPECT_EQ(p["findings"][1]["code"], "NodesOfferedTwice");
  EXPECT_FALSE(p.contains("nodeOffers"));

  // Two different Nodes of one name in the files: an input error naming it.
  scratch.Write("again.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: a100-node-2}\n");
  Result twice = Explain(
      With(With({"pod/legacy", "-n", "ml-train"}, files), {"-f", scratch.File("again.yaml")}));
  EXPECT_EQ(twice.code, kExitFailure);
  EXPECT_THAT(twice.err, HasSubstr("another Node with this name was read"));
}

// The story in kube-emulator: the objects as a cluster holds them (claims' allocations written
// to their status subresource, as the scheduler does; owner references to the pods' real uids).
class ExplainLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeconfig_ = scratch_.File("kubeconfig");
    emulator_ = std::make_unique<kube::testing::KubeEmulator>(
        std::vector<std::string>{"--kube-version", "1.34", "--kubeconfig-out", kubeconfig_});
    ASSERT_TRUE(emulator_->ok()) << emulator_->error();
    // The fleet's directory holds its nodes first (the slices' owners).
    for (const char* path :
         {"config/crd/bases", "config/samples/namespaces.yaml", "config/samples/profiles",
          "config/samples/fleet", "test/testdata/explain/story.yaml"}) {
      Apply(path);
    }
  }

  static kube::ResourcePath PathOf(const nlohmann::json& object) {
    const std::string kind = object["kind"];
    const std::string ns = object["metadata"].value("namespace", "");
    static const auto* paths = new std::map<std::string, kube::ResourcePath>{
        {"CustomResourceDefinition",
         {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "", "", ""}},
        {"Node", {"", "v1", "nodes", "", "", ""}},
        {"Namespace", {"", "v1", "namespaces", "", "", ""}},
        {"Pod", {"", "v1", "pods", "", "", ""}},
        {"GpuProfile", {"gpuprofile.io", "v1alpha1", "gpuprofiles", "", "", ""}},
        {"ResourceSlice", {"resource.k8s.io", "v1", "resourceslices", "", "", ""}},
        {"ResourceClaim", {"resource.k8s.io", "v1", "resourceclaims", "", "", ""}},
        {"DeviceClass", {"resource.k8s.io", "v1", "deviceclasses", "", "", ""}},
        {"ResourceClaimTemplate", {"resource.k8s.io", "v1", "resourceclaimtemplates", "", "", ""}},
    };
    auto it = paths->find(kind);
    if (it == paths->end()) return {};
    return it->second.WithNamespace(ns);
  }

  void ApplyObject(nlohmann::json object) {
    kube::ResourcePath path = PathOf(object);
    ASSERT_FALSE(path.resource.empty()) << object["kind"];
    const std::string name = object["metadata"]["name"];
    if (object["kind"] == "Namespace" && name == "default") return;
    // The server gives every object its uid: owner references name the owners' real ones (or
    // the garbage collector removes the object, as a cluster would).
    if (object["metadata"].contains("ownerReferences")) {
      for (nlohmann::json& owner : object["metadata"]["ownerReferences"]) {
        const std::string kind = owner["kind"], owner_name = owner["name"];
        auto uid = uids_.find(absl::StrCat(kind, "/", path.namespace_name, "/", owner_name));
        if (uid == uids_.end()) uid = uids_.find(absl::StrCat(kind, "//", owner_name));
        ASSERT_NE(uid, uids_.end()) << name << ": owners are created before what they own";
        owner["uid"] = uid->second;
      }
    }
    absl::StatusOr<nlohmann::json> created = emulator_->client()->Create(path, object);
    ASSERT_TRUE(created.ok()) << name << ": " << created.status();
    uids_[absl::StrCat(object["kind"].get<std::string>(), "/", path.namespace_name, "/", name)] =
        (*created)["metadata"]["uid"];
    if (object["kind"] == "ResourceClaim" && object.contains("status")) {
      nlohmann::json with_status = *created;
      with_status["status"] = object["status"];
      absl::StatusOr<nlohmann::json> updated =
          emulator_->client()->UpdateStatus(path.WithName(name), with_status);
      ASSERT_TRUE(updated.ok()) << name << ": " << updated.status();
      ASSERT_TRUE((*updated)["status"].contains("allocation")) << updated->dump();
    }
  }

  void Apply(const std::string& path) {
    absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests({Src(path)});
    ASSERT_TRUE(objects.ok()) << objects.status();
    for (const dra::ManifestObject& m : *objects) ApplyObject(m.object);
  }

  // The operator's DeviceClasses and templates, as `render` computes them on the same inputs.
  void ApplyOperatorObjects() {
    std::ostringstream out, err;
    ASSERT_EQ(RunRender(With(StoryFiles(), {"--kube-version", "1.34", "-o", "json"}), out, err), 0)
        << err.str();
    const nlohmann::json list = nlohmann::json::parse(out.str());
    ASSERT_TRUE(list.contains("items")) << out.str();
    for (const nlohmann::json& item : list["items"]) {
      if (item["kind"] == "DeviceClass" || item["kind"] == "ResourceClaimTemplate") {
        ApplyObject(item);
      }
    }
  }

  e2e::testing::ScratchDir scratch_;
  std::string kubeconfig_;
  std::unique_ptr<kube::testing::KubeEmulator> emulator_;
  std::map<std::string, std::string> uids_;  // "Kind/namespace/name" -> uid
};

TEST_F(ExplainLiveTest, SaysWhatTheClusterSays) {
  // Before the operator ran: the classes and templates its profiles stand for do not exist.
  Result before = Explain({"pod/h100-job", "-n", "ml-train", "--kubeconfig", kubeconfig_});
  EXPECT_EQ(before.code, kExitExplainedCause) << before.err;
  EXPECT_THAT(before.out, HasSubstr("1. ClassMissing (Cause)"));
  EXPECT_THAT(before.out, HasSubstr("it has not been created"));

  ApplyOperatorObjects();
  for (const Case& c : StoryCases()) {
    SCOPED_TRACE(c.subject[0]);
    Result r = Explain(With(c.subject, {"--kubeconfig", kubeconfig_, "-o", "json"}));
    EXPECT_EQ(r.code, c.code) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_FALSE(j["findings"].empty());
    EXPECT_EQ(j["findings"][0]["code"], c.first_finding) << r.out;
  }
  // The context's namespace (default) when -n is absent, as kubectl.
  Result unnamespaced = Explain({"pod/trainer", "--kubeconfig", kubeconfig_});
  EXPECT_EQ(unnamespaced.code, kExitFailure);
  EXPECT_THAT(unnamespaced.err, HasSubstr("not found in namespace \"default\""));
}

// Live, the Nodes are listed: a100-node-1's kubelet reports the device plugin's GPUs.
TEST_F(ExplainLiveTest, MigrationView) {
  ApplyOperatorObjects();
  const kube::ResourcePath nodes{"", "v1", "nodes", "", "", ""};
  absl::StatusOr<nlohmann::json> node = emulator_->client()->Get(nodes.WithName("a100-node-1"));
  ASSERT_TRUE(node.ok()) << node.status();
  (*node)["status"]["allocatable"] = {{"cpu", "64"}, {"nvidia.com/gpu", "4"}};
  ASSERT_TRUE(emulator_->client()->UpdateStatus(nodes.WithName("a100-node-1"), *node).ok());
  Result r = Explain({"gpuprofile/large-memory", "--kubeconfig", kubeconfig_, "-o", "json"});
  EXPECT_EQ(r.code, kExitExplainedNoCause) << r.err;
  EXPECT_THAT(r.err, IsEmpty());
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["nodeOffers"]["offeredBy"]["Both"]["nodes"], nlohmann::json({"a100-node-1"}));
  EXPECT_EQ(j["nodeOffers"]["offeredBy"]["DRA"]["count"], 4);
  EXPECT_EQ(j["findings"][0]["code"], "NodesOfferedTwice");
}

// A cluster that does not serve resource.k8s.io (and has no GpuProfile CRD): DRA comes first.
TEST(ExplainLiveDraOffTest, DraNotServed) {
  e2e::testing::ScratchDir scratch;
  const std::string kubeconfig = scratch.File("kubeconfig");
  kube::testing::KubeEmulator emulator({"--kube-version", "1.34", "--runtime-config",
                                        "resource.k8s.io/v1=false", "--kubeconfig-out",
                                        kubeconfig});
  ASSERT_TRUE(emulator.ok()) << emulator.error();
  absl::StatusOr<nlohmann::json> pod =
      emulator.client()->Create({"", "v1", "pods", "default", "", ""}, nlohmann::json::parse(R"({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "main", "image": "x"}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "any-gpu"}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  Result r = Explain({"pod/p", "--kubeconfig", kubeconfig, "-o", "json"});
  EXPECT_EQ(r.code, kExitExplainedCause) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 2u) << r.out;
  EXPECT_EQ(j["findings"][0]["code"], "DraNotServed");
  EXPECT_EQ(j["findings"][1]["code"], "TemplateMissing");
  EXPECT_THAT(j["findings"][1]["message"].get<std::string>(),
              HasSubstr("no GpuProfile generates a template"));
}

// `kubectl gpuprofile explain ...` runs kubectl-gpuprofile from PATH with the arguments after
// the plugin name and no kubeconfig flag: the plugin finds the cluster through KUBECONFIG.
TEST_F(ExplainLiveTest, KubectlPlugin) {
  const std::string dir = e2e::testing::KubectlDir();
  if (dir.empty() || ::access((dir + "/kubectl.1.33").c_str(), X_OK) != 0) {
    GTEST_SKIP() << "kubectl (kubectl.1.33) is not installed: the plugin test is skipped";
  }
  const std::string plugin = BinaryDir() + "/kubectl-gpuprofile";
  ASSERT_EQ(::access(plugin.c_str(), X_OK), 0) << plugin << " is built with the binary";
  ApplyOperatorObjects();
  const char* path = std::getenv("PATH");
  const std::vector<std::string> env = {
      "env", absl::StrCat("PATH=", BinaryDir(), ":", path == nullptr ? "" : path),
      "KUBECONFIG=" + kubeconfig_, "HOME=" + scratch_.path(), dir + "/kubectl.1.33"};
  e2e::testing::CommandResult r = e2e::testing::RunCommand(
      With(env, {"gpuprofile", "explain", "pod/pair-job", "-n", "batch", "-o", "json"}),
      absl::Seconds(60));
  EXPECT_EQ(r.exit_code, kExitExplainedCause) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["findings"][0]["code"], "NotEnoughDevicesOnOneNode");

  e2e::testing::CommandResult text = e2e::testing::RunCommand(
      With(env, {"gpuprofile", "explain", "pod/trainer", "-n", "ml-train"}), absl::Seconds(60));
  EXPECT_EQ(text.exit_code, kExitExplainedNoCause) << text.out;
  EXPECT_THAT(text.out, HasSubstr("Pod ml-train/trainer: no DRA cause found"));
}

}  // namespace
}  // namespace explain_command_test
}  // namespace gpuprofile::cmd
