// File: e2e/tests/operator_story_test.cc
// The product story end to end (issue 6, "End-to-end suite"), with the real binaries over HTTP:
// `gpu-profile-controller run` as a child process against `kube-emulator`, profiles applied and
// inspected with the real kubectl where it is installed (else with the raw HTTP client), and
// the expected objects computed by `gpu-profile-controller render` over the same inputs.
//
//  - FleetGrowth (1.32 v1beta1 and 1.34 v1): two L40S nodes, profiles applied, all Ready; three
//    A100 nodes join on an older driver; an H100 node type joins; counts, node groups follow
//    with no profile edit.
//  - EditsAndOwnership (1.32 and 1.34): a selector edit changes only the DeviceClass; a count
//    change re-creates templates under the same names; namespace labels add and remove
//    templates; an unmanaged same-named DeviceClass yields Conflict and stays untouched;
//    deletion with Delete and Orphan; re-creation adopts.
//  - Faults (1.34): watches dropped and history compacted; 429/409/500 bursts during edits; the
//    API server restarted from its --state on the same port; the operator SIGKILLed at random
//    points of a batch of edits and restarted. Each time the cluster converges to exactly the
//    objects `render` computes, with no duplicate and no orphan.
//  - LeaderElection: two replicas with distinct tokens; the audit log shows one writer at a time;
//    the standby takes over when the leader is killed.
//  - Rbac: the emulator enforcing RBAC with config/rbac; the operator as its service account
//    converges with leader election on, and is never denied.
//  - InvalidProfiles: rejected by the CRD schema (field named) or Stalled (field named); other
//    profiles undisturbed.
//  - KubectlSingularNameNamesOneProfile, ImmediateRecreationAdopts,
//    StatusWaitsForTheInventory: regression tests of bugs this suite found (see each test).
//
// Every wait polls with a deadline; no sleep decides an outcome. Each test has its own
// emulator (port 0) and scratch directory, so ctest runs them in parallel.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace operator_story_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

const char* const kSampleProfiles[] = {"ampere-or-newer", "large-memory", "light-inference",
                                       "recent-driver"};

struct Release {
  std::string kube_version;  // the emulator's and render's --kube-version
  std::string kubectl;       // pinned kubectl binary (the newest installed for 1.34)
  std::string dra_version;   // the resource.k8s.io version the release serves
  std::string fleet;         // the example fleet in that version
};

const Release kKube132{"1.32", "kubectl.1.32", "v1beta1", "config/samples/fleet-v1beta1"};
const Release kKube134{"1.34", "kubectl.1.33", "v1", "config/samples/fleet"};
const Release kKube137{"1.37", "kubectl.1.33", "v1", "config/samples/fleet"};

void PrintTo(const Release& release, std::ostream* os) {
  *os << "Kubernetes " << release.kube_version << " (resource.k8s.io/" << release.dra_version
      << ")";
}

std::vector<json> ReadObjects(const std::string& path) {
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests({path});
  EXPECT_TRUE(objects.ok()) << objects.status();
  std::vector<json> out;
  if (!objects.ok()) return out;
  for (const dra::ManifestObject& o : *objects) out.push_back(o.object);
  return out;
}

std::string Uid(const json& o) { return o.is_null() ? "" : o["metadata"].value("uid", ""); }

// The device's attribute map in either shape (v1beta1 wraps it in "basic").
json& Attributes(json& device) {
  return device.contains("basic") ? device["basic"]["attributes"] : device["attributes"];
}
json& Capacity(json& device) {
  return device.contains("basic") ? device["basic"]["capacity"] : device["capacity"];
}

// The base fixture: one emulator, a raw admin client, kubectl when installed, and the operator
// replicas this test started.
class OperatorE2eTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) {
      std::vector<const OperatorProcess*> operators;
      for (const auto& op : operators_) operators.push_back(op.get());
      PrintFailureLogs(operators, emulator_.get());
    }
    for (const auto& op : operators_) op->Kill();
    // GPO_E2E_KEEP=DIR keeps a failed test's scratch directory (logs, audit log, render inputs).
    const char* keep = std::getenv("GPO_E2E_KEEP");
    if (HasFailure() && keep != nullptr && *keep != '\0') {
      std::error_code ec;
      std::filesystem::copy(scratch_.path(), keep,
                            std::filesystem::copy_options::recursive |
                                std::filesystem::copy_options::overwrite_existing,
                            ec);
    }
  }

  // Starts kube-emulator for `release` with the CRDs and `extra` flags (seeds, --state ...).
  void StartEmulator(const Release& release, std::vector<std::string> extra = {}) {
    release_ = release;
    std::vector<std::string> args = {
        "--kube-version",   release.kube_version,        "-f",          Src("crds"),
        "--kubeconfig-out", scratch_.File("kubeconfig"), "--audit-log", scratch_.File("audit.log")};
    args.insert(args.end(), extra.begin(), extra.end());
    emulator_args_ = args;
    emulator_ = std::make_unique<EmulatorProcess>(args);
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    ConnectAdmin();
  }

  void ConnectAdmin() { api_ = AdminClient(*emulator_, scratch_.File("kubeconfig")); }

  // A kubeconfig for the emulator with another bearer token (one per replica or user).
  std::string WriteKubeconfig(const std::string& name, const std::string& token) {
    scratch_.Write(name, absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: e\n"
                                      "  cluster:\n    server: ",
                                      emulator_->url(),
                                      "\ncontexts:\n- name: e\n  context:\n    cluster: e\n"
                                      "    user: u\n    namespace: default\n"
                                      "current-context: e\nusers:\n- name: u\n  user:\n"
                                      "    token: ",
                                      token, "\n"));
    return scratch_.File(name);
  }

  // Starts one operator replica (short intervals for tests) with `extra` flags.
  OperatorProcess* StartOperator(std::vector<std::string> extra = {},
                                 const std::string& kubeconfig = "") {
    std::vector<std::string> args =
        OperatorTestFlags(kubeconfig.empty() ? scratch_.File("kubeconfig") : kubeconfig);
    args.insert(args.end(), {"--graceful-shutdown-timeout", "10s"});
    args.insert(args.end(), extra.begin(), extra.end());
    operators_.push_back(std::make_unique<OperatorProcess>(
        args, scratch_.File(absl::StrCat("operator-", operators_.size(), ".log"))));
    EXPECT_TRUE(operators_.back()->Start());
    return operators_.back().get();
  }

  // ---- kubectl -------------------------------------------------------------------------------

  bool FindKubectl() {
    kubectl_ = PinnedKubectl(release_.kubectl);
    return HaveKubectl();
  }
  bool HaveKubectl() const { return !kubectl_.empty(); }

  CommandResult Kubectl(const std::vector<std::string>& args) {
    return RunKubectl(kubectl_, scratch_, args);
  }
  CommandResult KubectlOk(const std::vector<std::string>& args) {
    return RunKubectlOk(kubectl_, scratch_, args);
  }

  // ---- the raw client ------------------------------------------------------------------------

  std::string Dra(const std::string& resource) const {
    return absl::StrCat("/apis/resource.k8s.io/", release_.dra_version, "/", resource);
  }
  std::string Template(const std::string& ns, const std::string& name) const {
    return absl::StrCat("/apis/resource.k8s.io/", release_.dra_version, "/namespaces/", ns,
                        "/resourceclaimtemplates/", name);
  }
  static std::string Profile(const std::string& name) { return absl::StrCat(kProfiles, "/", name); }

  std::string CollectionFor(const json& o) const {
    const std::string kind = o.value("kind", "");
    const std::string ns = o["metadata"].value("namespace", "");
    if (kind == "GpuProfile") return kProfiles;
    if (kind == "Namespace") return kNamespaces;
    if (kind == "Node") return kNodes;
    if (kind == "ResourceSlice") return Dra("resourceslices");
    if (kind == "DeviceClass") return Dra("deviceclasses");
    if (kind == "Pod") return absl::StrCat(kNamespaces, "/", ns, "/pods");
    if (kind == "ResourceQuota") return absl::StrCat(kNamespaces, "/", ns, "/resourcequotas");
    if (kind == "ServiceAccount") return absl::StrCat(kNamespaces, "/", ns, "/serviceaccounts");
    const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/";
    if (kind == "ClusterRole") return rbac + "clusterroles";
    if (kind == "ClusterRoleBinding") return rbac + "clusterrolebindings";
    if (kind == "Role") return absl::StrCat(rbac, "namespaces/", ns, "/roles");
    if (kind == "RoleBinding") return absl::StrCat(rbac, "namespaces/", ns, "/rolebindings");
    ADD_FAILURE() << "no collection for kind " << kind;
    return "";
  }

  // A request retried while the emulator injects faults (429, 500, injected 409) or restarts.
  RawResponse Retrying(const std::function<RawResponse()>& request) {
    const absl::Time deadline = absl::Now() + kConverge;
    RawResponse r;
    for (;;) {
      r = request();
      const bool injected = r.status == 409 && absl::StrContains(r.body, "injected");
      if (r.status != 0 && r.status != 429 && r.status != 500 && r.status != 503 && !injected) {
        return r;
      }
      if (absl::Now() > deadline) return r;
      ::usleep(50 * 1000);
    }
  }

  json Get(const std::string& path) {
    RawResponse r = Retrying([&] { return api_->Get(path); });
    return r.status == 200 ? r.Json() : json(nullptr);
  }
  std::vector<json> List(const std::string& collection, const std::string& selector = "") {
    std::string path = collection;
    if (!selector.empty()) path += "?labelSelector=" + UrlEncode(selector);
    RawResponse r = Retrying([&] { return api_->Get(path); });
    std::vector<json> items;
    if (r.status != 200) return items;
    for (const json& item : r.Json().value("items", json::array())) items.push_back(item);
    return items;
  }
  std::vector<std::string> Keys(const std::vector<json>& objects) {
    std::vector<std::string> keys;
    for (const json& o : objects) keys.push_back(Key(o));
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  // Creates the object, or replaces it (with its current resourceVersion) when it exists.
  void ApplyRaw(json object) {
    const std::string collection = CollectionFor(object);
    RawResponse created = Retrying([&] { return api_->Post(collection, object); });
    if (created.status == 201 || created.status == 200) return;
    ASSERT_EQ(created.status, 409) << created.body;
    const std::string path = absl::StrCat(collection, "/", Name(object));
    for (int attempt = 0; attempt < 20; ++attempt) {
      json current = Get(path);
      ASSERT_FALSE(current.is_null()) << path;
      object["metadata"]["resourceVersion"] = Rv(current);
      if (current.contains("status") && !object.contains("status")) {
        object["status"] = current["status"];
      }
      RawResponse put = Retrying([&] { return api_->Put(path, object); });
      if (put.status == 200) return;
      ASSERT_EQ(put.status, 409) << put.body;
    }
    FAIL() << "could not update " << path;
  }
  json Create(const json& object) {
    RawResponse r = Retrying([&] { return api_->Post(CollectionFor(object), object); });
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json();
  }
  void Patch(const std::string& path, const json& patch) {
    RawResponse r = Retrying([&] { return api_->MergePatch(path, patch); });
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
  }
  void Delete(const std::string& path) {
    RawResponse r = Retrying([&] { return api_->Delete(path); });
    EXPECT_TRUE(r.status == 200 || r.status == 202) << path << ": " << r.body;
  }
  void LabelNamespace(const std::string& ns, const std::string& value) {
    Patch(absl::StrCat(kNamespaces, "/", ns),
          {{"metadata",
            {{"labels", {{"gpu-profiles", value.empty() ? json(nullptr) : json(value)}}}}}});
  }

  // Applies files: with kubectl when the test uses it, else object by object.
  void ApplyFiles(const std::vector<std::string>& paths, bool use_kubectl) {
    if (use_kubectl && HaveKubectl()) {
      std::vector<std::string> args = {"apply"};
      for (const std::string& p : paths) {
        args.push_back("-f");
        args.push_back(p);
      }
      KubectlOk(args);
      return;
    }
    for (const std::string& p : paths) {
      for (const json& o : ReadObjects(p)) ApplyRaw(o);
    }
  }
  void ApplySamples(bool use_kubectl) {
    ApplyFiles({Src("config/samples/namespaces.yaml"), Src("config/samples/profiles")},
               use_kubectl);
  }

  // ---- waiting -------------------------------------------------------------------------------

  // The profile's condition `type` has `status` (and `reason`), for its current generation.
  bool ConditionIs(const std::string& profile, const std::string& type, const std::string& status,
                   const std::string& reason = "") {
    json p = Get(Profile(profile));
    if (p.is_null()) return false;
    json c = ConditionOf(p, type);
    if (c.is_null() || c.value("status", "") != status) return false;
    if (!reason.empty() && c.value("reason", "") != reason) return false;
    return p["status"].value("observedGeneration", -1) == p["metadata"].value("generation", -2);
  }
  bool Ready(const std::string& profile) { return ConditionIs(profile, "Ready", "True"); }
  bool AllReady() {
    std::vector<json> profiles = List(kProfiles);
    for (const json& p : profiles) {
      json c = ConditionOf(p, "Ready");
      if (c.is_null() || c.value("status", "") != "True") return false;
      if (p["status"].value("observedGeneration", -1) != p["metadata"].value("generation", -2)) {
        return false;
      }
    }
    return true;
  }
  int StatusInt(const std::string& profile, const std::string& field) {
    json p = Get(Profile(profile));
    if (p.is_null() || !p.contains("status")) return -1;
    return p["status"].value(field, -1);
  }
  json Status(const std::string& profile) {
    json p = Get(Profile(profile));
    return p.is_null() ? json(nullptr) : p.value("status", json(nullptr));
  }

  // ---- the expected state --------------------------------------------------------------------

  // Writes the cluster's profiles (minus `skip`), slices and namespaces to files and runs
  // `render` over them for the release; returns the rendered List's items (empty on failure).
  std::vector<json> Render(const std::set<std::string>& skip = {}) {
    json profiles = json::array();
    for (json& p : List(kProfiles)) {
      if (skip.count(Name(p)) || p["metadata"].contains("deletionTimestamp")) continue;
      p.erase("status");
      profiles.push_back(p);
    }
    auto write = [&](const std::string& name, const json& items) {
      scratch_.Write(name, json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
      return scratch_.File(name);
    };
    json slices = json::array();
    for (const json& s : List(Dra("resourceslices"))) slices.push_back(s);
    json namespaces = json::array();
    for (const json& n : List(kNamespaces)) namespaces.push_back(n);
    ControllerResult r = RunController(
        {"render", "-f", write("render-profiles.json", profiles), "-f",
         write("render-slices.json", slices), "-f", write("render-namespaces.json", namespaces),
         "--kube-version", release_.kube_version, "--feature-gates", feature_gates_, "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<json> items;
    json list = json::parse(r.out, nullptr, false);
    if (list.is_discarded()) return items;
    for (const json& item : list.value("items", json::array())) items.push_back(item);
    return items;
  }

  // What the cluster holds differs from what render computes: "" when they agree on names,
  // namespaces, class selectors, template requests, node group signatures and counts, and
  // profile status counts; and every managed object is owned by its live profile (no orphan,
  // no duplicate owner, no object left behind).
  std::string DiffAgainstRender(const std::set<std::string>& skip = {}) {
    std::vector<json> rendered = Render(skip);
    if (rendered.empty()) return "render produced nothing";
    std::map<std::string, std::map<std::string, json>> want;
    for (const json& o : rendered) want[o.value("kind", "")][Key(o)] = o;
    std::vector<std::string> problems;

    std::map<std::string, std::string> profile_uids;
    for (const json& p : List(kProfiles)) profile_uids[Name(p)] = Uid(p);
    auto check_owner = [&](const json& o) {
      const std::string owner =
          o["metadata"].value("labels", json::object()).value("gpuprofile.io/profile", "");
      const json refs = o["metadata"].value("ownerReferences", json::array());
      if (skip.count(owner)) return;
      if (!profile_uids.count(owner)) {
        problems.push_back(absl::StrCat(Key(o), ": labelled for missing profile ", owner));
      } else if (refs.size() != 1 || refs[0].value("uid", "") != profile_uids[owner] ||
                 !refs[0].value("controller", false)) {
        problems.push_back(absl::StrCat(Key(o), ": ownerReferences ", refs.dump(),
                                        " do not name profile ", owner, " (uid ",
                                        profile_uids[owner], ")"));
      }
    };
    auto compare_sets = [&](const std::string& kind, const std::vector<json>& have) {
      std::set<std::string> want_keys, have_keys;
      for (const auto& [k, o] : want[kind]) {
        if (!skip.count(
                o["metadata"].value("labels", json::object()).value("gpuprofile.io/profile", ""))) {
          want_keys.insert(k);
        }
      }
      for (const json& o : have) {
        const std::string owner =
            o["metadata"].value("labels", json::object()).value("gpuprofile.io/profile", "");
        if (!skip.count(owner)) have_keys.insert(Key(o));
      }
      if (want_keys != have_keys) {
        problems.push_back(absl::StrCat(kind, ": cluster has [", absl::StrJoin(have_keys, " "),
                                        "], render wants [", absl::StrJoin(want_keys, " "), "]"));
      }
    };

    std::vector<json> classes = List(Dra("deviceclasses"), kManaged);
    compare_sets("DeviceClass", classes);
    for (const json& c : classes) {
      check_owner(c);
      auto it = want["DeviceClass"].find(Key(c));
      if (it == want["DeviceClass"].end()) continue;
      if (c["spec"].value("selectors", json::array()) !=
              it->second["spec"].value("selectors", json::array()) ||
          c["spec"].value("config", json::array()) !=
              it->second["spec"].value("config", json::array()) ||
          c["spec"].value("extendedResourceName", json(nullptr)) !=
              it->second["spec"].value("extendedResourceName", json(nullptr))) {
        problems.push_back(absl::StrCat("DeviceClass ", Key(c), ": spec ", c["spec"].dump(),
                                        " != rendered ", it->second["spec"].dump()));
      }
    }
    std::vector<json> templates = List(Dra("resourceclaimtemplates"), kManaged);
    compare_sets("ResourceClaimTemplate", templates);
    for (const json& t : templates) {
      check_owner(t);
      auto it = want["ResourceClaimTemplate"].find(Key(t));
      if (it == want["ResourceClaimTemplate"].end()) continue;
      json have_requests = json::array(), want_requests = json::array();
      for (const json& r : t["spec"]["spec"]["devices"]["requests"]) {
        have_requests.push_back(FlatRequest(r));
      }
      for (const json& r : it->second["spec"]["spec"]["devices"]["requests"]) {
        want_requests.push_back(FlatRequest(r));
      }
      if (have_requests != want_requests) {
        problems.push_back(absl::StrCat("ResourceClaimTemplate ", Key(t), ": requests ",
                                        have_requests.dump(), " != rendered ",
                                        want_requests.dump()));
      }
    }
    std::vector<json> quotas = List("/api/v1/resourcequotas", kManaged);
    compare_sets("ResourceQuota", quotas);
    for (const json& q : quotas) {
      check_owner(q);
      auto it = want["ResourceQuota"].find(Key(q));
      if (it == want["ResourceQuota"].end()) continue;
      if (q["spec"].value("hard", json::object()) !=
          it->second["spec"].value("hard", json::object())) {
        problems.push_back(absl::StrCat("ResourceQuota ", Key(q), ": spec ", q["spec"].dump(),
                                        " != rendered ", it->second["spec"].dump()));
      }
    }
    std::vector<json> groups = List(kNodeGroups);
    compare_sets("GpuNodeGroup", groups);
    for (const json& g : groups) {
      auto it = want["GpuNodeGroup"].find(Key(g));
      if (it == want["GpuNodeGroup"].end()) continue;
      for (const char* field : {"productName", "memory", "driverVersion", "nodeCount", "devices",
                                "profiles", "driver", "deviceType"}) {
        json have = g.value("status", json::object()).value(field, json(nullptr));
        json expected = it->second.value("status", json::object()).value(field, json(nullptr));
        if (have != expected) {
          problems.push_back(absl::StrCat("GpuNodeGroup ", Key(g), ": status.", field, " ",
                                          have.dump(), " != rendered ", expected.dump()));
        }
      }
    }
    for (const json& p : List(kProfiles)) {
      if (skip.count(Name(p))) continue;
      auto it = want["GpuProfile"].find(Key(p));
      if (it == want["GpuProfile"].end()) {
        problems.push_back(absl::StrCat("GpuProfile ", Key(p), " not rendered"));
        continue;
      }
      json c = ConditionOf(p, "Ready");
      if (c.is_null() || c.value("status", "") != "True" ||
          p["status"].value("observedGeneration", -1) != p["metadata"].value("generation", -2)) {
        problems.push_back(absl::StrCat("GpuProfile ", Key(p), " not Ready for its generation"));
      }
      for (const char* field : {"matchedDevices", "matchedNodes", "schedulableDevices", "selectors",
                                "deviceClassName", "nodeGroups", "claimTemplates", "quotas",
                                "extendedResourceName", "schedulableClaims"}) {
        json have = p.value("status", json::object()).value(field, json(nullptr));
        json expected = it->second.value("status", json::object()).value(field, json(nullptr));
        if (have != expected) {
          problems.push_back(absl::StrCat("GpuProfile ", Key(p), ": status.", field, " ",
                                          have.dump(), " != rendered ", expected.dump()));
        }
      }
    }
    return absl::StrJoin(problems, "\n");
  }

  // Waits until the cluster matches render; fails the test with the last difference otherwise.
  void ExpectConvergedToRender(const std::string& when, const std::set<std::string>& skip = {}) {
    std::string diff;
    bool ok = Eventually([&] {
      diff = DiffAgainstRender(skip);
      return diff.empty();
    });
    EXPECT_TRUE(ok) << when << ": the cluster does not converge to render's objects:\n" << diff;
  }

  // ---- the fleet -----------------------------------------------------------------------------

  // Fleet files of the release: Nodes (filtered by name prefix) and slices.
  std::vector<json> FleetNodes(const std::string& prefix) {
    std::vector<json> out;
    for (const json& n : ReadObjects(Src(release_.fleet + "/nodes.yaml"))) {
      if (absl::StartsWith(Name(n), prefix)) out.push_back(n);
    }
    return out;
  }
  json FleetSlice(const std::string& node) {
    const std::string file =
        absl::StrCat(release_.fleet, "/resourceslice-", node, ".", release_.dra_version, ".yaml");
    std::vector<json> objects = ReadObjects(Src(file));
    return objects.empty() ? json(nullptr) : objects[0];
  }

  // Creates a Node and its slice (owned by the Node, as the kubelet plugin does).
  void JoinNode(json node, json slice) {
    node["metadata"].erase("uid");
    json created = Create(node);
    slice["metadata"]["ownerReferences"][0]["uid"] = Uid(created);
    slice["metadata"]["ownerReferences"][0]["name"] = Name(node);
    Create(slice);
  }

  Release release_;
  std::string feature_gates_;  // the emulator's --feature-gates, passed to render too
  ScratchDir scratch_;
  std::vector<std::string> emulator_args_;
  std::unique_ptr<EmulatorProcess> emulator_;
  std::unique_ptr<RawHttpClient> api_;
  std::string kubectl_;
  std::vector<std::unique_ptr<OperatorProcess>> operators_;
};

// ================================================================================================
// Steps 1-3 (and 9): the fleet grows under the profiles.
// ================================================================================================

class FleetGrowthTest : public OperatorE2eTest, public ::testing::WithParamInterface<Release> {};

TEST_P(FleetGrowthTest, NodesJoinAndProfilesFollowWithoutEdits) {
  release_ = GetParam();
  FindKubectl();
  // 1. A cluster with two L40S nodes only (Node + its slice).
  json l40s_nodes = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", FleetNodes("l40s-")}};
  scratch_.Write("l40s-nodes.json", l40s_nodes.dump());
  StartEmulator(GetParam(), {"-f", scratch_.File("l40s-nodes.json"), "-f",
                             Src(absl::StrCat(GetParam().fleet, "/resourceslice-l40s-node-1.",
                                              GetParam().dra_version, ".yaml")),
                             "-f",
                             Src(absl::StrCat(GetParam().fleet, "/resourceslice-l40s-node-2.",
                                              GetParam().dra_version, ".yaml"))});
  ASSERT_EQ(List(Dra("resourceslices")).size(), 2u) << "the seeded slices were collected";
  OperatorProcess* op = StartOperator();
  ApplySamples(/*use_kubectl=*/true);
  if (HaveKubectl()) {
    CommandResult wait =
        KubectlOk({"wait", "--for=condition=Ready", "gpuprofiles", "--all", "--timeout=30s"});
    EXPECT_THAT(wait.out, HasSubstr("gpuprofile.gpuprofile.io/large-memory condition met"));
  }
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }))
      << "the sample profiles never became Ready";
  // (Counts are right from the first Ready status: StatusWaitsForTheInventory checks that.)
  ASSERT_TRUE(Eventually([&] { return StatusInt("large-memory", "matchedDevices") == 4; }))
      << Status("large-memory").dump();
  for (const char* p : kSampleProfiles) {
    EXPECT_TRUE(Eventually([&] { return ConditionIs(p, "Satisfiable", "True"); })) << p;
    EXPECT_TRUE(ConditionIs(p, "Stalled", "False")) << p;
    EXPECT_TRUE(ConditionIs(p, "Conflict", "False")) << p;
    json p_obj = Get(Profile(p));
    EXPECT_THAT(p_obj["metadata"].value("finalizers", json::array()),
                ::testing::ElementsAre("gpuprofile.io/cleanup"))
        << p;
  }
  // large-memory (>= 40Gi) matches the L40S (46068Mi): 2 nodes x 2 devices.
  json large = Status("large-memory");
  EXPECT_EQ(large.value("matchedDevices", -1), 4) << large.dump();
  EXPECT_EQ(large.value("matchedNodes", -1), 2) << large.dump();
  EXPECT_EQ(large.value("deviceClassName", ""), "large-memory");
  ASSERT_TRUE(large.contains("nodeGroups"));
  EXPECT_EQ(large["nodeGroups"].size(), 1u);
  EXPECT_EQ(large["nodeGroups"][0].value("name", ""), "nvidia-l40s-570.133.20");
  EXPECT_THAT(Keys(List(kNodeGroups)), UnorderedElementsAre("nvidia-l40s-570.133.20"));
  EXPECT_THAT(
      Keys(List(Dra("deviceclasses"), kManaged)),
      UnorderedElementsAre("ampere-or-newer", "large-memory", "light-inference", "recent-driver"));
  EXPECT_THAT(
      Keys(List(Dra("resourceclaimtemplates"), kManaged)),
      UnorderedElementsAre("batch/ampere-or-newer", "batch/light-inference", "batch/recent-driver",
                           "ml-inference/ampere-or-newer", "ml-inference/light-inference",
                           "ml-train/ampere-or-newer", "ml-train/large-memory"));
  json dc = Get(Dra("deviceclasses/large-memory"));
  EXPECT_EQ(dc.value("apiVersion", ""), "resource.k8s.io/" + GetParam().dra_version);
  EXPECT_EQ(dc["metadata"]["labels"].value("gpuprofile.io/profile", ""), "large-memory");
  ExpectConvergedToRender("step 1 (two L40S nodes)");
  if (HaveKubectl()) {
    // The admin's view: printer columns of both kinds.
    CommandResult profiles = KubectlOk({"get", "gpuprofiles"});
    EXPECT_THAT(
        profiles.out,
        ::testing::ContainsRegex(
            "NAME +READY +SATISFIABLE +DEVICES +SCHEDULABLE +FREE +PENDING +NODES +NAMESPACES"));
    // No claim yet: every schedulable device is free, nothing pending.
    EXPECT_THAT(profiles.out,
                ::testing::ContainsRegex("large-memory +True +True +4 +4 +4 +0 +2 +1"));
    CommandResult groups = KubectlOk({"get", "gpunodegroups"});
    EXPECT_THAT(groups.out, ::testing::ContainsRegex("FREE +UNHEALTHY +OFFERED BY +PROFILES"));
    EXPECT_THAT(groups.out,
                ::testing::ContainsRegex(
                    "nvidia-l40s-570.133.20 +NVIDIA L40S +46068Mi +570.133.20 +2 +4 +4 +0 +DRA +"));
  }

  // Nothing below edits a profile: generations and class resourceVersions are recorded.
  std::map<std::string, int> generations;
  std::map<std::string, std::string> class_versions;
  for (const json& p : List(kProfiles)) generations[Name(p)] = p["metadata"].value("generation", 0);
  for (const json& c : List(Dra("deviceclasses"), kManaged)) class_versions[Name(c)] = Rv(c);

  // 2. Three A100 nodes join on an older driver (535.161.08, CUDA 12.2).
  for (int i = 1; i <= 3; ++i) {
    const std::string node = absl::StrCat("a100-node-", i);
    json slice = FleetSlice(node);
    ASSERT_FALSE(slice.is_null());
    for (json& d : slice["spec"]["devices"]) {
      Attributes(d)["driverVersion"] = {{"version", "535.161.8"}};
      Attributes(d)["cudaDriverVersion"] = {{"version", "12.2.0"}};
    }
    JoinNode(FleetNodes(node)[0], slice);
  }
  const std::string a100_group = "nvidia-a100-sxm4-40gb-535.161.8";
  ASSERT_TRUE(Eventually([&] {
    return StatusInt("large-memory", "matchedDevices") == 16 &&
           StatusInt("light-inference", "matchedDevices") == 16 &&
           StatusInt("ampere-or-newer", "matchedDevices") == 16 && AllReady();
  })) << Status("large-memory").dump();
  EXPECT_EQ(StatusInt("large-memory", "matchedNodes"), 5);
  // recent-driver (>= 550) does not select the 535 driver.
  EXPECT_EQ(StatusInt("recent-driver", "matchedDevices"), 4);
  EXPECT_EQ(StatusInt("recent-driver", "matchedNodes"), 2);
  ASSERT_TRUE(
      Eventually([&] { return !Get(absl::StrCat(kNodeGroups, "/", a100_group)).is_null(); }));
  json group = Get(absl::StrCat(kNodeGroups, "/", a100_group));
  EXPECT_EQ(group["status"].value("nodeCount", -1), 3) << group.dump();
  EXPECT_EQ(group["status"].value("devices", -1), 12) << group.dump();
  EXPECT_EQ(group["status"].value("productName", ""), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(group["status"].value("driverVersion", ""), "535.161.8");
  EXPECT_THAT(group["status"].value("profiles", json::array()),
              UnorderedElementsAre("ampere-or-newer", "large-memory", "light-inference"));
  EXPECT_THAT(Keys(List(kNodeGroups)), UnorderedElementsAre("nvidia-l40s-570.133.20", a100_group));
  ExpectConvergedToRender("step 2 (three A100 nodes joined)");

  // 3. A new node type: one H100 node, a slice written from an A100 slice.
  json h100 = FleetSlice("a100-node-1");
  h100["metadata"]["name"] = "h100-node-1-gpu.nvidia.com-h9x2k";
  h100["metadata"]["generateName"] = "h100-node-1-gpu.nvidia.com-";
  h100["spec"]["nodeName"] = "h100-node-1";
  h100["spec"]["pool"]["name"] = "h100-node-1";
  int index = 0;
  for (json& d : h100["spec"]["devices"]) {
    json& a = Attributes(d);
    a["productName"] = {{"string", "NVIDIA H100 80GB HBM3"}};
    a["architecture"] = {{"string", "Hopper"}};
    a["cudaComputeCapability"] = {{"version", "9.0.0"}};
    a["driverVersion"] = {{"version", "570.133.20"}};
    a["cudaDriverVersion"] = {{"version", "12.8.0"}};
    a["uuid"] = {{"string", absl::StrCat("GPU-4b0d0c1e-9a7f-4e21-8c55-00000000000", index++)}};
    Capacity(d)["memory"] = {{"value", "80Gi"}};
  }
  json h100_node = FleetNodes("a100-node-1")[0];
  h100_node["metadata"]["name"] = "h100-node-1";
  h100_node["metadata"]["labels"] = {{"kubernetes.io/hostname", "h100-node-1"}};
  JoinNode(h100_node, h100);
  const std::string h100_group = "nvidia-h100-80gb-hbm3-570.133.20";
  ASSERT_TRUE(Eventually([&] {
    return StatusInt("large-memory", "matchedDevices") == 20 &&
           StatusInt("light-inference", "matchedDevices") == 20 &&
           StatusInt("ampere-or-newer", "matchedDevices") == 20 &&
           StatusInt("recent-driver", "matchedDevices") == 8 && AllReady();
  })) << Status("recent-driver").dump();
  EXPECT_EQ(StatusInt("large-memory", "matchedNodes"), 6);
  EXPECT_EQ(StatusInt("recent-driver", "matchedNodes"), 3);
  ASSERT_TRUE(Eventually([&] {
    return !Get(absl::StrCat(kNodeGroups, "/", h100_group)).is_null();
  })) << absl::StrJoin(Keys(List(kNodeGroups)), " ");
  group = Get(absl::StrCat(kNodeGroups, "/", h100_group));
  EXPECT_EQ(group["status"].value("nodeCount", -1), 1) << group.dump();
  EXPECT_EQ(group["status"].value("devices", -1), 4) << group.dump();
  EXPECT_EQ(group["status"].value("memory", ""), "80Gi") << group.dump();
  EXPECT_THAT(
      group["status"].value("profiles", json::array()),
      UnorderedElementsAre("ampere-or-newer", "large-memory", "light-inference", "recent-driver"));
  json large_groups = Status("large-memory").value("nodeGroups", json::array());
  std::vector<std::string> large_group_names;
  for (const json& g : large_groups) large_group_names.push_back(g.value("name", ""));
  EXPECT_THAT(large_group_names,
              UnorderedElementsAre("nvidia-l40s-570.133.20", a100_group, h100_group));
  ExpectConvergedToRender("step 3 (an H100 node joined)");

  // 4. The driver's health monitor taints one H100 GPU (XID 79, NoSchedule). Device taints are
  // GA in 1.37: the tainted device still matches but is no longer schedulable. On 1.34 (alpha,
  // off by default) and 1.32 (no such field) the API server drops the taint on write, and nothing
  // changes.
  const std::string h100_slice = Dra("resourceslices/h100-node-1-gpu.nvidia.com-h9x2k");
  json devices = Get(h100_slice)["spec"]["devices"];
  devices[0]["taints"] =
      json::array({{{"key", "gpu.nvidia.com/xid"}, {"value", "79"}, {"effect", "NoSchedule"}}});
  Patch(h100_slice, {{"spec", {{"devices", devices}}}});
  const bool taints_kept = GetParam().kube_version == "1.37";
  EXPECT_EQ(Get(h100_slice)["spec"]["devices"][0].contains("taints"), taints_kept);
  ASSERT_TRUE(Eventually([&] {
    return StatusInt("recent-driver", "matchedDevices") == 8 &&
           StatusInt("recent-driver", "schedulableDevices") == (taints_kept ? 7 : 8) &&
           StatusInt("recent-driver", "taintedDevices") == (taints_kept ? 1 : 0);
  })) << Status("recent-driver").dump();
  ASSERT_TRUE(Eventually([&] {
    json g = Get(absl::StrCat(kNodeGroups, "/", h100_group));
    return g["status"].value("taintedDevices", -1) == (taints_kept ? 1 : 0) &&
           g["status"].value("schedulableDevices", -1) == (taints_kept ? 3 : 4);
  })) << Get(absl::StrCat(kNodeGroups, "/", h100_group)).dump();
  EXPECT_TRUE(ConditionIs("recent-driver", "Satisfiable", "True"));
  ExpectConvergedToRender("step 4 (a health taint)");

  // No profile was edited, and no class had to change.
  for (const json& p : List(kProfiles)) {
    EXPECT_EQ(p["metadata"].value("generation", 0), generations[Name(p)]) << Name(p);
  }
  for (const json& c : List(Dra("deviceclasses"), kManaged)) {
    EXPECT_EQ(Rv(c), class_versions[Name(c)]) << "DeviceClass " << Name(c) << " was rewritten";
  }
  if (HaveKubectl()) {
    EXPECT_THAT(KubectlOk({"get", "gpunodegroups"}).out,
                ::testing::ContainsRegex("nvidia-h100-80gb-hbm3-570.133.20 +NVIDIA H100 80GB HBM3 "
                                         "+80Gi +570.133.20 +1 +4"));
  }
  EXPECT_EQ(op->Stop(), 0) << "SIGTERM must end the operator cleanly";
  if (!HaveKubectl()) {
    GTEST_SKIP() << "kubectl is not installed: the story ran with the raw HTTP client and its "
                    "kubectl-only checks (apply, wait, printer columns, delete) were skipped";
  }
}

INSTANTIATE_TEST_SUITE_P(Releases, FleetGrowthTest, ::testing::Values(kKube132, kKube134, kKube137),
                         ReleaseName<Release>);

// ================================================================================================
// Steps 4-8 (and 9): edits, namespaces, conflicts, deletion policies, adoption.
// ================================================================================================

class EditsAndOwnershipTest : public OperatorE2eTest,
                              public ::testing::WithParamInterface<Release> {
 protected:
  void SetUp() override {
    release_ = GetParam();
    FindKubectl();
    StartEmulator(GetParam(), {"-f", Src(GetParam().fleet)});
    StartOperator();
    ApplySamples(/*use_kubectl=*/true);
    ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }))
        << "the sample profiles never became Ready";
  }
};

TEST_P(EditsAndOwnershipTest, EditsNamespacesConflictsDeletionAndAdoption) {
  ExpectConvergedToRender("start (the example fleet)");
  auto snapshot = [&](const std::string& collection) {
    std::map<std::string, json> out;
    for (const json& o : List(collection, kManaged)) out[Key(o)] = o;
    return out;
  };
  std::map<std::string, json> classes = snapshot(Dra("deviceclasses"));
  std::map<std::string, json> templates = snapshot(Dra("resourceclaimtemplates"));
  ASSERT_EQ(StatusInt("large-memory", "matchedDevices"), 16);

  // 4. A selector edit (>= 44Gi: the L40S only) changes only large-memory's DeviceClass.
  Patch(Profile("large-memory"), {{"spec", {{"selector", {{"memory", {{"min", "44Gi"}}}}}}}});
  ASSERT_TRUE(Eventually([&] {
    return StatusInt("large-memory", "matchedDevices") == 4 && Ready("large-memory");
  })) << Status("large-memory").dump();
  EXPECT_EQ(StatusInt("large-memory", "matchedNodes"), 2);
  json large_class = Get(Dra("deviceclasses/large-memory"));
  EXPECT_NE(Rv(large_class), Rv(classes["large-memory"]));
  EXPECT_EQ(Uid(large_class), Uid(classes["large-memory"]));
  EXPECT_THAT(large_class["spec"].dump(), HasSubstr("44Gi"));
  for (const auto& [key, t] : snapshot(Dra("resourceclaimtemplates"))) {
    EXPECT_EQ(Uid(t), Uid(templates[key])) << key << " was re-created by a selector edit";
    EXPECT_EQ(Rv(t), Rv(templates[key])) << key << " was rewritten by a selector edit";
  }
  for (const auto& [key, c] : snapshot(Dra("deviceclasses"))) {
    if (key != "large-memory") {
      EXPECT_EQ(Rv(c), Rv(classes[key])) << key << " was rewritten";
    }
  }
  ExpectConvergedToRender("step 4 (selector edit)");
  classes = snapshot(Dra("deviceclasses"));

  // 5. A count change re-creates light-inference's templates under the same names.
  Patch(Profile("light-inference"), {{"spec", {{"count", 2}}}});
  ASSERT_TRUE(Eventually([&] {
    if (!Ready("light-inference")) return false;
    for (const char* ns : {"batch", "ml-inference"}) {
      json t = Get(Template(ns, "light-inference"));
      if (t.is_null() || Uid(t) == Uid(templates[absl::StrCat(ns, "/light-inference")])) {
        return false;
      }
      if (FlatRequest(t["spec"]["spec"]["devices"]["requests"][0]).value("count", 0) != 2) {
        return false;
      }
    }
    return true;
  })) << Get(Template("batch", "light-inference")).dump();
  for (const char* ns : {"batch", "ml-inference"}) {
    json t = Get(Template(ns, "light-inference"));
    json r = FlatRequest(t["spec"]["spec"]["devices"]["requests"][0]);
    EXPECT_EQ(r.value("name", ""), "gpu");
    EXPECT_EQ(r.value("deviceClassName", ""), "light-inference");
  }
  EXPECT_EQ(Rv(Get(Dra("deviceclasses/light-inference"))), Rv(classes["light-inference"]))
      << "a count change must not rewrite the class";
  for (const auto& [key, t] : snapshot(Dra("resourceclaimtemplates"))) {
    if (!absl::EndsWith(key, "/light-inference")) {
      EXPECT_EQ(Uid(t), Uid(templates[key])) << key;
    }
  }
  ExpectConvergedToRender("step 5 (count change)");

  // 6. Namespace labels add and remove templates.
  ApplyRaw({{"apiVersion", "v1"},
            {"kind", "Namespace"},
            {"metadata", {{"name", "team-new"}, {"labels", {{"gpu-profiles", "enabled"}}}}}});
  LabelNamespace("batch", "");  // batch keeps recent-driver (named explicitly) only
  LabelNamespace("ml-train", "enabled");
  auto tmpl_keys = [&] { return Keys(List(Dra("resourceclaimtemplates"), kManaged)); };
  const std::vector<std::string> want_templates = {
      "batch/recent-driver",      "ml-inference/ampere-or-newer", "ml-inference/light-inference",
      "ml-train/ampere-or-newer", "ml-train/large-memory",        "ml-train/light-inference",
      "team-new/ampere-or-newer", "team-new/light-inference"};
  EXPECT_TRUE(Eventually([&] { return tmpl_keys() == want_templates && AllReady(); }))
      << absl::StrJoin(tmpl_keys(), " ");
  // Namespace changes do not bump generations: wait for the status counts themselves.
  EXPECT_TRUE(Eventually([&] {
    return Status("light-inference").value("claimTemplates", json::object()) ==
               json({{"desired", 3}, {"ready", 3}}) &&
           Status("ampere-or-newer").value("claimTemplates", json::object()) ==
               json({{"desired", 3}, {"ready", 3}});
  })) << Status("light-inference").dump()
      << "\n"
      << Status("ampere-or-newer").dump();
  ExpectConvergedToRender("step 6 (namespace labels)");

  // 7. An unmanaged DeviceClass with the name a new profile wants: Conflict, untouched.
  json foreign = {
      {"apiVersion", "resource.k8s.io/" + release_.dra_version},
      {"kind", "DeviceClass"},
      {"metadata", {{"name", "fine-tune"}, {"labels", {{"team", "platform"}}}}},
      {"spec",
       {{"selectors",
         json::array({{{"cel", {{"expression", "device.driver == 'x.example.com'"}}}}})}}}};
  json foreign_created = Create(foreign);
  json fine_tune = {{"apiVersion", "gpuprofile.io/v1alpha1"},
                    {"kind", "GpuProfile"},
                    {"metadata", {{"name", "fine-tune"}}},
                    {"spec",
                     {{"selector", {{"memory", {{"min", "40Gi"}}}}},
                      {"claimTemplate", {{"namespaces", {"ml-train"}}}}}}};
  if (HaveKubectl()) {
    scratch_.Write("fine-tune.json", fine_tune.dump());
    KubectlOk({"apply", "-f", scratch_.File("fine-tune.json")});
  } else {
    ApplyRaw(fine_tune);
  }
  EXPECT_TRUE(Eventually([&] { return ConditionIs("fine-tune", "Conflict", "True"); }))
      << Status("fine-tune").dump();
  EXPECT_TRUE(ConditionIs("fine-tune", "Ready", "False")) << Status("fine-tune").dump();
  json still = Get(Dra("deviceclasses/fine-tune"));
  EXPECT_EQ(Rv(still), Rv(foreign_created)) << "the unmanaged class was written: " << still.dump();
  EXPECT_FALSE(still["metadata"].contains("ownerReferences")) << still.dump();
  EXPECT_EQ(still["metadata"]["labels"], json({{"team", "platform"}})) << still.dump();
  for (const char* p : kSampleProfiles) EXPECT_TRUE(Ready(p)) << p << " disturbed by a conflict";
  // Deleting the conflicting profile leaves the foreign class alone.
  Delete(Profile("fine-tune"));
  EXPECT_TRUE(Eventually([&] { return Get(Profile("fine-tune")).is_null(); }))
      << "the conflicting profile was never finalized";
  still = Get(Dra("deviceclasses/fine-tune"));
  EXPECT_EQ(Rv(still), Rv(foreign_created)) << "the unmanaged class was touched on deletion";
  ExpectConvergedToRender("step 7 (conflict)");

  // 8a. Delete (the default policy): the profile's objects go, and so does the profile.
  if (HaveKubectl()) {
    KubectlOk({"delete", "gpuprofiles", "large-memory", "--timeout=30s"});
  } else {
    Delete(Profile("large-memory"));
  }
  EXPECT_TRUE(Eventually([&] {
    return Get(Profile("large-memory")).is_null() &&
           List(Dra("deviceclasses"), "gpuprofile.io/profile=large-memory").empty() &&
           List(Dra("resourceclaimtemplates"), "gpuprofile.io/profile=large-memory").empty();
  }));
  EXPECT_TRUE(Eventually([&] {
    for (const json& g : List(kNodeGroups)) {
      for (const json& p : g["status"].value("profiles", json::array())) {
        if (p == "large-memory") return false;
      }
    }
    return true;
  })) << "node groups still list the deleted profile";
  ExpectConvergedToRender("step 8a (deleted with Delete)");

  // 8b. Orphan: the objects stay, without ownerReferences; re-creating the profile adopts them.
  std::map<std::string, json> before;
  for (const json& o : List(Dra("deviceclasses"), "gpuprofile.io/profile=ampere-or-newer")) {
    before[Key(o)] = o;
  }
  for (const json& o :
       List(Dra("resourceclaimtemplates"), "gpuprofile.io/profile=ampere-or-newer")) {
    before[Key(o)] = o;
  }
  ASSERT_EQ(before.size(), 4u);  // the class and three templates
  Patch(Profile("ampere-or-newer"), {{"spec", {{"deletionPolicy", "Orphan"}}}});
  ASSERT_TRUE(Eventually([&] { return Ready("ampere-or-newer"); }));
  Delete(Profile("ampere-or-newer"));
  ASSERT_TRUE(Eventually([&] { return Get(Profile("ampere-or-newer")).is_null(); }))
      << "the Orphan profile was never finalized";
  auto owned_objects = [&] {
    std::map<std::string, json> out;
    for (const json& o : List(Dra("deviceclasses"), "gpuprofile.io/profile=ampere-or-newer")) {
      out[Key(o)] = o;
    }
    for (const json& o :
         List(Dra("resourceclaimtemplates"), "gpuprofile.io/profile=ampere-or-newer")) {
      out[Key(o)] = o;
    }
    return out;
  };
  std::map<std::string, json> kept = owned_objects();
  ASSERT_EQ(kept.size(), before.size());
  for (const auto& [key, o] : kept) {
    EXPECT_EQ(Uid(o), Uid(before[key])) << key << " was re-created";
    EXPECT_FALSE(o["metadata"].contains("ownerReferences") &&
                 !o["metadata"]["ownerReferences"].empty())
        << key << " still has ownerReferences: " << o.dump();
  }
  // The operator has seen the deletion once the node groups stop listing the profile; only
  // then is it re-created (an immediate re-creation is ImmediateRecreationAdopts).
  EXPECT_TRUE(Eventually([&] {
    for (const json& g : List(kNodeGroups)) {
      for (const json& p : g["status"].value("profiles", json::array())) {
        if (p == "ampere-or-newer") return false;
      }
    }
    return true;
  })) << "node groups still list the deleted profile";
  ApplyFiles({Src("config/samples/profiles/ampere-or-newer.yaml")}, /*use_kubectl=*/true);
  ASSERT_TRUE(Eventually([&] { return Ready("ampere-or-newer"); }));
  const std::string new_uid = Uid(Get(Profile("ampere-or-newer")));
  EXPECT_TRUE(Eventually([&] {
    std::map<std::string, json> now = owned_objects();
    if (now.size() != before.size()) return false;
    for (const auto& [key, o] : now) {
      const json refs = o["metadata"].value("ownerReferences", json::array());
      if (refs.size() != 1 || refs[0].value("uid", "") != new_uid) return false;
    }
    return true;
  })) << "the re-created profile did not adopt its objects";
  for (const auto& [key, o] : owned_objects()) {
    EXPECT_EQ(Uid(o), Uid(before[key])) << key << " was re-created instead of adopted";
  }
  ExpectConvergedToRender("step 8b (Orphan, then adopted)");
  EXPECT_EQ(operators_[0]->Stop(), 0);
  if (!HaveKubectl()) {
    GTEST_SKIP() << "kubectl is not installed: the story ran with the raw HTTP client and its "
                    "kubectl-only checks (apply, wait, printer columns, delete) were skipped";
  }
}

INSTANTIATE_TEST_SUITE_P(Releases, EditsAndOwnershipTest,
                         ::testing::Values(kKube132, kKube134, kKube137), ReleaseName<Release>);

// Regression: both CRDs once listed the category "gpuprofile", GpuProfile's singular name;
// kubectl expands categories before it resolves resource names, so `kubectl get gpuprofile NAME`
// (or `delete`) failed with "error: you must specify only one resource" -- on a real cluster too.
TEST_F(OperatorE2eTest, KubectlSingularNameNamesOneProfile) {
  release_ = kKube134;
  if (!FindKubectl()) GTEST_SKIP() << "kubectl is not installed: this kubectl check is skipped";
  StartEmulator(kKube134);
  ApplyFiles({Src("config/samples/profiles/large-memory.yaml")}, /*use_kubectl=*/true);
  CommandResult get = Kubectl({"get", "gpuprofile", "large-memory"});
  EXPECT_EQ(get.exit_code, 0) << get.out;
  EXPECT_THAT(get.out, HasSubstr("large-memory"));
  CommandResult del = Kubectl({"delete", "gpuprofile", "large-memory", "--wait=false"});
  EXPECT_EQ(del.exit_code, 0) << del.out;
}

// Regression: a profile deleted with deletionPolicy Orphan and re-created at once (as a GitOps
// sync or a script does) must adopt its orphaned objects, same uids. The operator once applied a
// desired state computed for the deleted incarnation, wrote its uid into the ownerReferences,
// and the garbage collector took the objects, which were then re-created.
TEST_F(OperatorE2eTest, ImmediateRecreationAdopts) {
  StartEmulator(kKube134, {"-f", Src(kKube134.fleet)});
  ApplySamples(/*use_kubectl=*/false);
  StartOperator();
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }));
  Patch(Profile("ampere-or-newer"), {{"spec", {{"deletionPolicy", "Orphan"}}}});
  ASSERT_TRUE(Eventually([&] { return Ready("ampere-or-newer"); }));
  std::map<std::string, std::string> uids;
  for (const json& o : List(Dra("deviceclasses"), "gpuprofile.io/profile=ampere-or-newer")) {
    uids[Key(o)] = Uid(o);
  }
  for (const json& o :
       List(Dra("resourceclaimtemplates"), "gpuprofile.io/profile=ampere-or-newer")) {
    uids[Key(o)] = Uid(o);
  }
  Delete(Profile("ampere-or-newer"));
  ASSERT_TRUE(Eventually([&] { return Get(Profile("ampere-or-newer")).is_null(); }));
  for (const json& o : ReadObjects(Src("config/samples/profiles/ampere-or-newer.yaml"))) {
    ApplyRaw(o);
  }
  ASSERT_TRUE(Eventually([&] { return Ready("ampere-or-newer"); }));
  ExpectConvergedToRender("re-created at once");
  std::map<std::string, std::string> now;
  for (const json& o : List(Dra("deviceclasses"), "gpuprofile.io/profile=ampere-or-newer")) {
    now[Key(o)] = Uid(o);
  }
  for (const json& o :
       List(Dra("resourceclaimtemplates"), "gpuprofile.io/profile=ampere-or-newer")) {
    now[Key(o)] = Uid(o);
  }
  EXPECT_EQ(now, uids) << "the orphaned objects were re-created instead of adopted";
}

// Regression: profiles applied right after the operator starts must not be reported with
// matchedDevices 0 and Satisfiable=False (which Argo CD's health check maps to Degraded) while
// the ResourceSlice cache is still filling. The operator once wrote status before discovery had
// enabled, or the slice informer had synced, the DRA caches. A race: run with --gtest_repeat.
TEST_F(OperatorE2eTest, StatusWaitsForTheInventory) {
  StartEmulator(kKube134, {"-f", Src(kKube134.fleet)});
  StartOperator();
  ApplySamples(/*use_kubectl=*/false);
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }));
  // The first Ready status already counts the fleet's 16 devices.
  for (const char* p : kSampleProfiles) {
    EXPECT_TRUE(ConditionIs(p, "Satisfiable", "True")) << p << ": " << Status(p).dump();
    EXPECT_EQ(StatusInt(p, "matchedDevices"), 16) << p;
  }
}

// A 1.37 API server whose admin switched resource.k8s.io/v1 off and v1alpha3 on (it then serves
// DeviceTaintRule alone): every profile is Stalled/DRANotServed naming v1alpha3, the operator says
// so in its log and keeps running; restarted with v1 served, the operator converges without a
// restart of its own.
TEST_F(OperatorE2eTest, DraNotServedUntilTheApiServerServesV1) {
  StartEmulator(kKube137, {"--state", scratch_.File("state.json"), "--runtime-config",
                           "resource.k8s.io/v1=false,resource.k8s.io/v1alpha3=true"});
  ApplySamples(/*use_kubectl=*/false);
  OperatorProcess* op = StartOperator();
  ASSERT_TRUE(Eventually([&] {
    for (const char* p : kSampleProfiles) {
      if (!ConditionIs(p, "Stalled", "True", "DRANotServed")) return false;
    }
    return true;
  }));
  for (const char* p : kSampleProfiles) {
    EXPECT_THAT(ConditionOf(Get(Profile(p)), "Stalled").value("message", ""),
                HasSubstr("serves resource.k8s.io only in version v1alpha3"))
        << p;
  }
  EXPECT_THAT(op->Log(), HasSubstr("Dynamic Resource Allocation is not available: the API server "
                                   "serves resource.k8s.io only in version v1alpha3"));

  const std::string url = emulator_->url();
  ASSERT_EQ(emulator_->Stop(), 0);
  emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
      "--kube-version", kKube137.kube_version, "--state", scratch_.File("state.json"), "--listen",
      url.substr(url.find("://") + 3), "--kubeconfig-out", scratch_.File("kubeconfig"),
      "--audit-log", scratch_.File("audit.log"), "-f", Src(kKube137.fleet)});
  ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
  ConnectAdmin();
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }));
  EXPECT_THAT(op->Log(), HasSubstr("resource.k8s.io/v1 is served"));
  EXPECT_TRUE(op->running());
}

// ================================================================================================
// Step 14: MIG, sharing, capacity requests, fallback, extended resource names, tolerations and
// quotas (config/samples/advanced) over static MIG, dynamic MIG and multi-allocatable GPUs.
// ================================================================================================

const char* const kAdvancedProfiles[] = {"h100-else-a100", "legacy-gpu", "memory-slice",
                                         "mig-small", "shared-inference"};

class AdvancedProfilesTest : public OperatorE2eTest {
 protected:
  // The sample fleet, the H100 node, and the advanced fleet of test/testdata/e2e/advanced-fleet
  // (README there): `dynamic_mig` is the NVIDIA publication for the release.
  void StartAdvancedCluster(const Release& release, const std::string& dynamic_mig,
                            const std::string& gates = "") {
    feature_gates_ = gates;
    std::vector<std::string> seeds = {
        "-f", Src("config/samples/fleet"),
        "-f", Src("config/samples/fleet-h100"),
        "-f", Src("test/testdata/e2e/advanced-fleet/nodes.yaml"),
        "-f", Src("test/testdata/e2e/advanced-fleet/resourceslice-a100-static-mig-node-1.v1.yaml"),
        "-f", Src("test/testdata/dra/nvidia-1.35/node-a100-mig-node-1.yaml"),
        "-f", Src("test/testdata/dra/nvidia-1.35/" + dynamic_mig),
        "-f", Src("test/testdata/dra/nvidia-1.35/consumable-shares-a100x2.k8s-1.36.v1.yaml")};
    if (!gates.empty()) seeds.insert(seeds.end(), {"--feature-gates", gates});
    StartEmulator(release, seeds);
    FindKubectl();
    std::vector<std::string> operator_flags;
    if (!gates.empty()) operator_flags = {"--feature-gates", gates};
    StartOperator(operator_flags);
    std::vector<std::string> files = {Src("config/samples/namespaces.yaml"),
                                      Src("config/samples/profiles")};
    for (const char* p : kAdvancedProfiles) {
      files.push_back(Src(absl::StrCat("config/samples/advanced/", p, ".yaml")));
    }
    ApplyFiles(files, /*use_kubectl=*/true);
  }
  json Quota(const std::string& ns, const std::string& name) {
    return Get(absl::StrCat(kNamespaces, "/", ns, "/resourcequotas/", name));
  }
  json Hard(const std::string& ns, const std::string& name) {
    json q = Quota(ns, name);
    return q.is_null() ? json(nullptr) : q["spec"].value("hard", json(nullptr));
  }
};

TEST_F(AdvancedProfilesTest, EveryFieldIsGeneratedAndEveryEditConverges) {
  StartAdvancedCluster(kKube137, "dynamicmig-a100x2.k8s-1.35.v1.yaml");
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 9 && AllReady(); }))
      << "the profiles never became Ready";
  ExpectConvergedToRender("advanced step 1 (applied)");

  // MIG: static (2 × 1g.5gb) and dynamic placements (14 × 1g.5gb, 8 × 1g.10gb); of the dynamic
  // ones 7 per GPU fit at once.
  json mig = Status("mig-small");
  EXPECT_EQ(mig.value("matchedDevices", -1), 24) << mig.dump();
  EXPECT_EQ(mig.value("schedulableDevices", -1), 16) << mig.dump();
  // Sharing: the driver's own configuration kind on the class.
  json shared = Get(Dra("deviceclasses/shared-inference"));
  ASSERT_FALSE(shared.is_null());
  EXPECT_EQ(shared["spec"]["config"][0]["opaque"]["parameters"].value("kind", ""), "GpuConfig");
  EXPECT_EQ(shared["spec"]["config"][0]["opaque"]["parameters"]["sharing"].value("strategy", ""),
            "MPS");
  // Capacity requests: 40Gi / 10Gi on each of the two multi-allocatable GPUs.
  EXPECT_EQ(Status("memory-slice").value("schedulableClaims", -1), 8);
  // Fallback: one firstAvailable request, this profile's class first.
  json fallback = Get(Template("ml-train", "h100-else-a100"));
  ASSERT_FALSE(fallback.is_null());
  json first =
      fallback["spec"]["spec"]["devices"]["requests"][0].value("firstAvailable", json::array());
  ASSERT_EQ(first.size(), 2u) << fallback.dump();
  EXPECT_EQ(first[0].value("deviceClassName", ""), "h100-else-a100");
  EXPECT_EQ(first[1].value("deviceClassName", ""), "large-memory");
  // Extended resource name: on the class, in status, and in a device-plugin style pod spec.
  EXPECT_EQ(Get(Dra("deviceclasses/legacy-gpu"))["spec"].value("extendedResourceName", ""),
            "example.com/gpu");
  EXPECT_EQ(Status("legacy-gpu").value("extendedResourceName", ""), "example.com/gpu");
  EXPECT_EQ(Status("large-memory").value("extendedResourceName", ""),
            "deviceclass.resource.kubernetes.io/large-memory");
  ApplyFiles({Src("config/samples/workloads/device-plugin-style-pod.yaml")},
             /*use_kubectl=*/true);
  json pod = Get(absl::StrCat(kNamespaces, "/batch/pods/legacy-inference"));
  ASSERT_FALSE(pod.is_null());
  // The name pods use is the one status publishes (the emulator stores the pod; no scheduler
  // turns it into a claim, e2e/README.md).
  EXPECT_TRUE(pod["spec"]["containers"][0]["resources"]["limits"].contains(
      Status("legacy-gpu").value("extendedResourceName", "<none>")))
      << pod.dump();
  // Tolerations: written into the request.
  json shared_template = Get(Template("ml-inference", "shared-inference"));
  ASSERT_FALSE(shared_template.is_null());
  EXPECT_EQ(FlatRequest(shared_template["spec"]["spec"]["devices"]["requests"][0])["tolerations"][0]
                .value("key", ""),
            "gpu.nvidia.com/xid");
  // Quotas: one per namespace the template is in.
  EXPECT_EQ(Hard("ml-train", "gpu-profile-mig-small"),
            json({{"mig-small.deviceclass.resource.k8s.io/devices", "4"}}));
  EXPECT_EQ(Hard("ml-inference", "gpu-profile-mig-small"),
            json({{"mig-small.deviceclass.resource.k8s.io/devices", "4"}}));
  EXPECT_EQ(Hard("batch", "gpu-profile-legacy-gpu"),
            json({{"legacy-gpu.deviceclass.resource.k8s.io/devices", "8"},
                  {"requests.example.com/gpu", "8"}}));
  EXPECT_EQ(Status("mig-small")["quotas"], json({{"desired", 3}, {"ready", 3}}));
  if (HaveKubectl()) {
    EXPECT_THAT(KubectlOk({"get", "quota", "-n", "ml-train"}).out,
                HasSubstr("gpu-profile-mig-small"));
  }

  // Edits of each field converge; the template is re-created where its spec must change.
  const std::string quota_uid = Uid(Quota("ml-train", "gpu-profile-mig-small"));
  const std::string class_uid = Uid(shared);
  const std::string fallback_uid = Uid(fallback);
  const std::string slice_uid = Uid(Get(Template("ml-inference", "memory-slice")));
  Patch(Profile("mig-small"), {{"spec",
                                {{"quota", {{"devicesPerNamespace", 6}}},
                                 {"extendedResourceName", "example.com/mig-small"},
                                 {"selector", {{"migProfiles", {"1g.5gb"}}}}}}});
  Patch(
      Profile("shared-inference"),
      {{"spec",
        {{"sharing",
          {{"strategy", "TimeSlicing"}, {"mps", nullptr}, {"timeSlicing", {{"interval", "Long"}}}}},
         {"tolerations", nullptr}}}});
  Patch(Profile("h100-else-a100"), {{"spec", {{"fallback", {"large-memory", "light-inference"}}}}});
  Patch(Profile("memory-slice"), {{"spec", {{"capacityRequests", {{"memory", "20Gi"}}}}}});
  Patch(Profile("legacy-gpu"), {{"spec", {{"extendedResourceName", "example.com/legacy-gpu"}}}});
  ASSERT_TRUE(Eventually([&] { return AllReady(); }));
  ExpectConvergedToRender("advanced step 2 (every field edited)");
  EXPECT_EQ(Hard("ml-train", "gpu-profile-mig-small"),
            json({{"mig-small.deviceclass.resource.k8s.io/devices", "6"},
                  {"requests.example.com/mig-small", "6"}}));
  EXPECT_EQ(Uid(Quota("ml-train", "gpu-profile-mig-small")), quota_uid) << "replaced in place";
  // A class that gains an extended resource name is updated in place.
  EXPECT_EQ(Get(Dra("deviceclasses/mig-small"))["spec"].value("extendedResourceName", ""),
            "example.com/mig-small");
  EXPECT_EQ(Status("mig-small").value("matchedDevices", -1), 16);
  json shared_after = Get(Dra("deviceclasses/shared-inference"));
  EXPECT_EQ(Uid(shared_after), class_uid) << "a class is updated in place";
  EXPECT_EQ(shared_after["spec"]["config"][0]["opaque"]["parameters"]["sharing"],
            json({{"strategy", "TimeSlicing"}, {"timeSlicingConfig", {{"interval", "Long"}}}}));
  json fallback_after = Get(Template("ml-train", "h100-else-a100"));
  EXPECT_NE(Uid(fallback_after), fallback_uid) << "a template's spec is immutable: re-created";
  EXPECT_EQ(fallback_after["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"].size(), 3u);
  EXPECT_NE(Uid(Get(Template("ml-inference", "memory-slice"))), slice_uid);
  EXPECT_EQ(Status("memory-slice").value("schedulableClaims", -1), 4);
  EXPECT_EQ(Hard("batch", "gpu-profile-legacy-gpu").value("requests.example.com/legacy-gpu", ""),
            "8");

  // Two profiles naming one extended resource: the newer reports Conflict, its class goes
  // without the name, and the older keeps it.
  json copy = ReadObjects(Src("config/samples/advanced/legacy-gpu.yaml"))[0];
  copy["metadata"]["name"] = "legacy-gpu-copy";
  copy["spec"]["extendedResourceName"] = "example.com/legacy-gpu";
  Create(copy);
  EXPECT_TRUE(Eventually([&] { return ConditionIs("legacy-gpu-copy", "Conflict", "True"); }));
  EXPECT_THAT(ConditionOf(Get(Profile("legacy-gpu-copy")), "Conflict").value("message", ""),
              HasSubstr("extendedResourceName example.com/legacy-gpu is claimed by the older "
                        "GpuProfile legacy-gpu"));
  EXPECT_EQ(Get(Dra("deviceclasses/legacy-gpu-copy"))["spec"].value("extendedResourceName",
                                                                    json(nullptr)),
            json(nullptr));
  EXPECT_EQ(Get(Dra("deviceclasses/legacy-gpu"))["spec"].value("extendedResourceName", ""),
            "example.com/legacy-gpu");

  // Deleting a profile deletes its quotas with its other objects.
  Delete(Profile("mig-small"));
  EXPECT_TRUE(Eventually(
      [&] { return List("/api/v1/resourcequotas", "gpuprofile.io/profile=mig-small").empty(); }));
}

// On 1.34 the fields whose gates are alpha cannot be expressed: those profiles are Stalled with
// FeatureNotServed and nothing of theirs is written; the fallback (beta, on) works. With the
// gates on, the same profiles are realised.
TEST_F(AdvancedProfilesTest, FieldsTheReleaseCannotExpressAreFeatureNotServed) {
  StartAdvancedCluster(kKube134, "dynamicmig-a100x2.k8s-1.34.v1.yaml");
  const std::set<std::string> stalled = {"legacy-gpu", "memory-slice", "shared-inference"};
  for (const std::string& p : stalled) {
    EXPECT_TRUE(Eventually([&] { return ConditionIs(p, "Stalled", "True", "FeatureNotServed"); }))
        << p << ": " << Status(p).dump();
    EXPECT_TRUE(Get(Dra("deviceclasses/" + p)).is_null()) << p << " must write nothing";
  }
  // The operator names the server's version as /version reports it (1.34.0).
  const std::string message =
      ConditionOf(Get(Profile("legacy-gpu")), "Stalled").value("message", "");
  EXPECT_THAT(message, HasSubstr("spec.extendedResourceName: Kubernetes 1.34"));
  EXPECT_THAT(message, HasSubstr("does not serve extended resource names on DeviceClasses: "
                                 "feature gate DRAExtendedResource (alpha) is off by default"));
  EXPECT_TRUE(Eventually([&] { return Ready("h100-else-a100") && Ready("mig-small"); }));
  ExpectConvergedToRender("advanced on 1.34", stalled);
}

TEST_F(AdvancedProfilesTest, TheAlphaGatesOnLetA134ClusterExpressEverything) {
  StartAdvancedCluster(kKube134, "dynamicmig-a100x2.k8s-1.34.v1.yaml",
                       "DRADeviceTaints=true,DRAConsumableCapacity=true,DRAExtendedResource=true");
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 9 && AllReady(); }))
      << Status("memory-slice").dump();
  ExpectConvergedToRender("advanced on 1.34 with the alpha gates");
  EXPECT_EQ(Get(Dra("deviceclasses/legacy-gpu"))["spec"].value("extendedResourceName", ""),
            "example.com/gpu");
}

// ================================================================================================
// Step 10: faults.
// ================================================================================================

class FaultsTest : public OperatorE2eTest {
 protected:
  void StartConverged(std::vector<std::string> extra = {}) {
    release_ = kKube134;
    extra.push_back("-f");
    extra.push_back(Src(kKube134.fleet));
    StartEmulator(kKube134, extra);
    ApplySamples(/*use_kubectl=*/false);
    StartOperator();
    ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }));
    ExpectConvergedToRender("before the faults");
  }

  RawResponse Admin(const std::string& path, const std::string& body = "") {
    return api_->Request("POST", path, body, "text/plain");
  }
  void SetFaults(const std::string& spec) {
    RawResponse r = Admin("/emulator/faults", spec);
    ASSERT_EQ(r.status, 200) << r.body;
  }
};

TEST_F(FaultsTest, WatchesDroppedAndHistoryCompacted) {
  StartConverged();
  // (a) Every watch ends; edits made while the operator re-watches are not lost.
  ASSERT_EQ(Admin("/emulator/watches/drop").status, 200);
  Patch(Profile("large-memory"), {{"spec", {{"selector", {{"memory", {{"min", "44Gi"}}}}}}}});
  LabelNamespace("ml-train", "enabled");
  ExpectConvergedToRender("after dropping every watch");
  EXPECT_EQ(StatusInt("large-memory", "matchedDevices"), 4);
  // (b) The history is compacted and the watches dropped again: re-watching from the last seen
  // resourceVersion gets 410 Expired, so the operator must relist.
  Patch(Profile("recent-driver"), {{"spec", {{"count", 1}}}});
  ASSERT_EQ(Admin("/emulator/compact").status, 200);
  ASSERT_EQ(Admin("/emulator/watches/drop").status, 200);
  LabelNamespace("batch", "");
  ApplyRaw({{"apiVersion", "v1"},
            {"kind", "Namespace"},
            {"metadata", {{"name", "team-late"}, {"labels", {{"gpu-profiles", "enabled"}}}}}});
  ExpectConvergedToRender("after compaction (410) and dropped watches");
  EXPECT_FALSE(Get(Template("team-late", "light-inference")).is_null());
  EXPECT_TRUE(Get(Template("batch", "light-inference")).is_null());
  // The same again a few times in a row (a 410 storm), with an edit each time.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Admin("/emulator/compact").status, 200);
    ASSERT_EQ(Admin("/emulator/watches/drop").status, 200);
    Patch(Profile("light-inference"), {{"spec", {{"count", i + 2}}}});
  }
  ExpectConvergedToRender("after a 410 storm");
  EXPECT_TRUE(operators_[0]->running());
  EXPECT_EQ(operators_[0]->Stop(), 0);
}

TEST_F(FaultsTest, ErrorBurstsDuringEdits) {
  StartConverged();
  int round = 0;
  for (const char* code : {"429", "409", "500"}) {
    SCOPED_TRACE(absl::StrCat("error-code=", code));
    SetFaults(absl::StrCat("error-rate=0.5,error-code=", code, ",retry-after=1"));
    const absl::Time burst_end = absl::Now() + absl::Seconds(2);
    // Edits during the burst (the test's own requests are retried through the faults).
    Patch(Profile("light-inference"), {{"spec", {{"count", 2 + round}}}});
    Patch(Profile("large-memory"),
          {{"spec", {{"selector", {{"memory", {{"min", round % 2 == 0 ? "44Gi" : "40Gi"}}}}}}}});
    LabelNamespace(round % 2 == 0 ? "batch" : "ml-train", round % 2 == 0 ? "" : "enabled");
    ApplyRaw(
        {{"apiVersion", "v1"},
         {"kind", "Namespace"},
         {"metadata",
          {{"name", absl::StrCat("burst-", round)}, {"labels", {{"gpu-profiles", "enabled"}}}}}});
    // The burst lasts its few seconds whatever the edits took (timing, not an outcome).
    while (absl::Now() < burst_end) ::usleep(50 * 1000);
    SetFaults("");
    ExpectConvergedToRender(absl::StrCat("after a burst of ", code, "s"));
    ++round;
  }
  // The writes the operator's client got refused show up in the audit log.
  int injected = 0;
  for (absl::string_view line : absl::StrSplit(ReadFile(scratch_.File("audit.log")), '\n')) {
    json l = json::parse(line, nullptr, false);
    if (!l.is_discarded() && (l.value("code", 0) == 429 || l.value("code", 0) == 500)) ++injected;
  }
  EXPECT_GT(injected, 0) << "no fault was injected";
  EXPECT_TRUE(operators_[0]->running()) << "the operator died under the error bursts";
  EXPECT_EQ(operators_[0]->Stop(), 0);
}

TEST_F(FaultsTest, ApiServerRestartedFromItsState) {
  StartConverged({"--state", scratch_.File("state.json")});
  const std::string url = emulator_->url();
  const std::string port = url.substr(url.rfind(':') + 1);
  std::map<std::string, std::string> uids;
  for (const json& o : List(Dra("resourceclaimtemplates"), kManaged)) uids[Key(o)] = Uid(o);
  for (int restart = 0; restart < 2; ++restart) {
    SCOPED_TRACE(absl::StrCat("restart ", restart));
    // Stopped with the operator's watches open (it re-watches at once when they end).
    EXPECT_EQ(emulator_->Stop(), 0);
    // Same port, same state; no seeds (the state holds everything).
    emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
        "--kube-version", kKube134.kube_version, "--state", scratch_.File("state.json"), "--listen",
        absl::StrCat("127.0.0.1:", port), "--kubeconfig-out", scratch_.File("kubeconfig"),
        "--audit-log", scratch_.File("audit.log")});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    ASSERT_EQ(emulator_->url(), url);
    ConnectAdmin();
    // The state came back: nothing to do until something changes.
    ExpectConvergedToRender("right after the restart");
    Patch(Profile("light-inference"), {{"spec", {{"count", 2 + restart}}}});
    LabelNamespace("ml-train", restart == 0 ? "enabled" : "");
    ExpectConvergedToRender("after edits on the restarted server");
  }
  // Templates nobody changed were neither duplicated nor re-created.
  for (const json& o : List(Dra("resourceclaimtemplates"), kManaged)) {
    if (uids.count(Key(o)) && !absl::EndsWith(Key(o), "/light-inference")) {
      EXPECT_EQ(Uid(o), uids[Key(o)]) << Key(o) << " was re-created across restarts";
    }
  }
  EXPECT_TRUE(operators_[0]->running()) << "the operator died with the API server";
  EXPECT_EQ(operators_[0]->Stop(), 0);
}

TEST_F(FaultsTest, OperatorKilledAtRandomPointsAndRestarted) {
  StartConverged();
  const unsigned seed = static_cast<unsigned>(absl::ToUnixNanos(absl::Now()) & 0x7fffffff);
  RecordProperty("seed", static_cast<int>(seed));
  SCOPED_TRACE(absl::StrCat("random seed ", seed));
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  OperatorProcess* op = operators_[0].get();
  const std::vector<std::function<void()>> edits = {
      [&] {
        Patch(Profile("light-inference"), {{"spec", {{"count", 1 + pick(3)}}}});
      },
      [&] {
        Patch(Profile("recent-driver"), {{"spec", {{"count", 1 + pick(3)}}}});
      },
      [&] {
        const char* mins[] = {"40Gi", "44Gi", "64Gi"};
        Patch(Profile("large-memory"),
              {{"spec", {{"selector", {{"memory", {{"min", mins[pick(3)]}}}}}}}});
      },
      [&] {
        const char* namespaces[] = {"ml-train", "batch", "ml-inference"};
        LabelNamespace(namespaces[pick(3)], pick(2) ? "enabled" : "");
      },
      [&] {
        ApplyRaw({{"apiVersion", "v1"},
                  {"kind", "Namespace"},
                  {"metadata",
                   {{"name", absl::StrCat("team-", pick(4))},
                    {"labels", {{"gpu-profiles", pick(2) ? "enabled" : "off"}}}}}});
      },
      [&] {
        // A profile that comes and goes (its finalizer must be honoured across crashes).
        if (Get(Profile("scratch")).is_null()) {
          ApplyRaw({{"apiVersion", "gpuprofile.io/v1alpha1"},
                    {"kind", "GpuProfile"},
                    {"metadata", {{"name", "scratch"}}},
                    {"spec",
                     {{"selector", {{"architectures", {"Ampere"}}}},
                      {"claimTemplate", {{"namespaceSelector", json::object()}}}}}});
        } else {
          Delete(Profile("scratch"));
        }
      },
  };
  // Six rounds. A round starts the operator if it is down, makes a batch of edits and SIGKILLs
  // the operator after a random one, at a random moment: while it reconciles the edits, or,
  // in rounds that follow a round without a convergence check, while it is still starting
  // (listing, syncing caches, adopting). Every second round restarts it and checks that the
  // cluster converges to render's objects.
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    if (!op->running()) {
      ASSERT_TRUE(op->Start());
    }
    const int kill_after = pick(4);
    for (int i = 0; i < 5; ++i) {
      edits[static_cast<size_t>(pick(static_cast<int>(edits.size())))]();
      if (i == kill_after) {
        // A random point in the operator's work (timing, not an outcome).
        ::usleep(static_cast<useconds_t>(pick(300) * 1000));
        EXPECT_EQ(op->Kill(), 128 + SIGKILL);
      }
    }
    if (round % 2 == 1) {
      ASSERT_TRUE(op->Start());
      ExpectConvergedToRender("after SIGKILL and restart");
      EXPECT_TRUE(op->running()) << "the restarted operator exited";
    }
  }
  EXPECT_EQ(op->Stop(), 0);
}

// ================================================================================================
// Step 11: two replicas with leader election; exactly one writes.
// ================================================================================================

struct AuditLine {
  std::string user;
  std::string verb;
  std::string path;
  int code = 0;
};

std::vector<AuditLine> ReadAudit(const std::string& path) {
  std::vector<AuditLine> out;
  for (absl::string_view line : absl::StrSplit(ReadFile(path), '\n')) {
    json l = json::parse(line, nullptr, false);
    if (l.is_discarded() || !l.is_object()) continue;
    out.push_back(
        {l.value("user", ""), l.value("verb", ""), l.value("path", ""), l.value("code", 0)});
  }
  return out;
}

bool IsWrite(const AuditLine& l) {
  return l.verb == "create" || l.verb == "update" || l.verb == "patch" || l.verb == "delete" ||
         l.verb == "deletecollection";
}
// Writes to the product's objects (profiles, node groups, DRA objects); not Leases or Events.
bool IsProductWrite(const AuditLine& l) {
  return IsWrite(l) && (absl::StartsWith(l.path, "/apis/gpuprofile.io/") ||
                        absl::StartsWith(l.path, "/apis/resource.k8s.io/"));
}

TEST_F(OperatorE2eTest, LeaderElectionOnlyTheLeaderWrites) {
  scratch_.Write("tokens.csv",
                 "token-replica-a,replica-a,uid-a,\"system:authenticated\"\n"
                 "token-replica-b,replica-b,uid-b,\"system:authenticated\"\n");
  StartEmulator(kKube134, {"-f", Src(kKube134.fleet), "--token-file", scratch_.File("tokens.csv")});
  ApplySamples(/*use_kubectl=*/false);
  const std::vector<std::string> election = {"--leader-elect",
                                             "--leader-election-namespace",
                                             "default",
                                             "--leader-elect-lease-duration",
                                             "2s",
                                             "--leader-elect-renew-deadline",
                                             "1500ms",
                                             "--leader-elect-retry-period",
                                             "300ms"};
  std::map<std::string, OperatorProcess*> replicas;
  replicas["replica-a"] =
      StartOperator(election, WriteKubeconfig("kubeconfig-a", "token-replica-a"));
  replicas["replica-b"] =
      StartOperator(election, WriteKubeconfig("kubeconfig-b", "token-replica-b"));
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }));
  ExpectConvergedToRender("two replicas");

  // Exactly one user wrote the product's objects.
  auto writers = [&] {
    std::vector<std::string> sequence;  // the writing user, each change of writer once
    for (const AuditLine& l : ReadAudit(scratch_.File("audit.log"))) {
      if (!IsProductWrite(l)) continue;  // refused writes count too: only the leader may try
      if (l.user != "replica-a" && l.user != "replica-b") continue;
      if (sequence.empty() || sequence.back() != l.user) sequence.push_back(l.user);
    }
    return sequence;
  };
  std::vector<std::string> seq = writers();
  ASSERT_EQ(seq.size(), 1u) << "writers in order: " << absl::StrJoin(seq, " ");
  const std::string leader = seq[0];
  const std::string standby = leader == "replica-a" ? "replica-b" : "replica-a";
  json lease =
      Get("/apis/coordination.k8s.io/v1/namespaces/default/leases/"
          "gpu-profile-operator.gpuprofile.io");
  ASSERT_FALSE(lease.is_null()) << "no Lease";
  // An edit while both run: still only the leader writes.
  Patch(Profile("light-inference"), {{"spec", {{"count", 2}}}});
  ExpectConvergedToRender("an edit with two replicas");
  seq = writers();
  EXPECT_EQ(seq, std::vector<std::string>{leader});

  // The leader dies without releasing the lease; the standby takes over once it expires.
  EXPECT_EQ(replicas[leader]->Kill(), 128 + SIGKILL);
  Patch(Profile("light-inference"), {{"spec", {{"count", 3}}}});
  LabelNamespace("ml-train", "enabled");
  ExpectConvergedToRender("after the leader was killed");
  seq = writers();
  EXPECT_EQ(seq, (std::vector<std::string>{leader, standby}))
      << "writers in order must be the old leader, then the new one";
  json new_lease =
      Get("/apis/coordination.k8s.io/v1/namespaces/default/leases/"
          "gpu-profile-operator.gpuprofile.io");
  EXPECT_NE(new_lease["spec"].value("holderIdentity", ""),
            lease["spec"].value("holderIdentity", ""));
  EXPECT_THAT(replicas[standby]->Log(), HasSubstr("became the leader"));
  EXPECT_EQ(replicas[standby]->Stop(), 0);
}

// ================================================================================================
// Step 12: least-privilege RBAC.
// ================================================================================================

TEST_F(OperatorE2eTest, RbacServiceAccountConvergesWithoutDenials) {
  const std::string ns = "gpu-profile-operator-system";
  const std::string user = "system:serviceaccount:" + ns + ":controller-manager";
  scratch_.Write("tokens.csv", absl::StrCat("token-operator,", user,
                                            ",uid-op,\"system:serviceaccounts,"
                                            "system:serviceaccounts:",
                                            ns, "\"\n"));
  StartEmulator(kKube134, {"-f", Src(kKube134.fleet), "--token-file", scratch_.File("tokens.csv"),
                           "--authorization", "RBAC"});
  // As the admin: the operator's namespace and config/rbac (namespace "system" is kustomize's
  // placeholder, as config/default would rename it).
  ApplyRaw({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  for (const char* file : {"service_account.yaml", "role.yaml", "role_binding.yaml",
                           "leader_election_role.yaml", "leader_election_role_binding.yaml"}) {
    for (json o : ReadObjects(Src(absl::StrCat("config/rbac/", file)))) {
      if (o["metadata"].value("namespace", "") == "system") o["metadata"]["namespace"] = ns;
      if (o.contains("subjects")) {
        for (json& s : o["subjects"]) {
          if (s.value("namespace", "") == "system") s["namespace"] = ns;
        }
      }
      ApplyRaw(o);
    }
  }
  ApplySamples(/*use_kubectl=*/false);
  OperatorProcess* op = StartOperator(
      {"--leader-elect", "--leader-election-namespace", ns, "--leader-elect-lease-duration", "2s",
       "--leader-elect-renew-deadline", "1500ms", "--leader-elect-retry-period", "300ms"},
      WriteKubeconfig("kubeconfig-operator", "token-operator"));
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }))
      << "the profiles never became Ready under RBAC";
  ExpectConvergedToRender("under RBAC");
  // The story's moving parts under RBAC: an edit, a namespace, a deletion.
  Patch(Profile("light-inference"), {{"spec", {{"count", 2}}}});
  ApplyRaw({{"apiVersion", "v1"},
            {"kind", "Namespace"},
            {"metadata", {{"name", "team-rbac"}, {"labels", {{"gpu-profiles", "enabled"}}}}}});
  Delete(Profile("large-memory"));
  EXPECT_TRUE(Eventually([&] { return Get(Profile("large-memory")).is_null(); }));
  ExpectConvergedToRender("edits under RBAC");

  int writes = 0;
  std::vector<std::string> denied;
  for (const AuditLine& l : ReadAudit(scratch_.File("audit.log"))) {
    if (l.user != user) continue;
    if (l.code == 403) denied.push_back(absl::StrCat(l.verb, " ", l.path));
    if (IsWrite(l) && l.code < 300) ++writes;
  }
  EXPECT_THAT(denied, ::testing::IsEmpty()) << "the service account was denied";
  EXPECT_GT(writes, 0) << "the operator's writes are not in the audit log as its user";
  EXPECT_EQ(op->Stop(), 0);
}

// ================================================================================================
// Step 13: invalid profiles.
// ================================================================================================

TEST_F(OperatorE2eTest, InvalidProfilesRejectedOrStalledOthersUndisturbed) {
  release_ = kKube134;
  FindKubectl();
  StartEmulator(kKube134, {"-f", Src(kKube134.fleet)});
  ApplySamples(/*use_kubectl=*/true);
  StartOperator();
  ASSERT_TRUE(Eventually([&] { return List(kProfiles).size() == 4 && AllReady(); }));
  std::map<std::string, std::string> versions;
  for (const json& o : List(Dra("deviceclasses"), kManaged)) versions[Key(o)] = Rv(o);
  for (const json& o : List(Dra("resourceclaimtemplates"), kManaged)) versions[Key(o)] = Rv(o);

  auto profile = [](const std::string& name, const json& spec) {
    return json{{"apiVersion", "gpuprofile.io/v1alpha1"},
                {"kind", "GpuProfile"},
                {"metadata", {{"name", name}}},
                {"spec", spec}};
  };
  // Rejected by the CRD schema: the message names the field.
  struct Rejected {
    json object;
    std::string field;
  };
  const std::vector<Rejected> rejected = {
      {profile("bad-mode", {{"allocationMode", "Sometimes"}}), "spec.allocationMode"},
      {profile("bad-memory", {{"selector", {{"memory", {{"min", "lots"}}}}}}),
       "spec.selector.memory.min"},
      {profile("bad-count", {{"count", "two"}}), "spec.count"},
  };
  for (const Rejected& r : rejected) {
    const std::string name = Name(r.object);
    if (HaveKubectl()) {
      scratch_.Write(name + ".json", r.object.dump());
      CommandResult result = Kubectl({"apply", "-f", scratch_.File(name + ".json")});
      EXPECT_NE(result.exit_code, 0) << name << " was accepted:\n" << result.out;
      EXPECT_THAT(result.out, HasSubstr(r.field)) << name;
    } else {
      RawResponse result = api_->Post(kProfiles, r.object);
      EXPECT_EQ(result.status, 422) << name << ": " << result.body;
      EXPECT_THAT(result.body, HasSubstr(r.field)) << name;
    }
    EXPECT_TRUE(Get(Profile(name)).is_null()) << name << " was stored";
  }
  // Accepted by the schema, but not realisable: Stalled, with the field named.
  struct Stalled {
    json object;
    std::vector<std::string> words;  // the message names these
  };
  const std::vector<Stalled> stalled = {
      {profile("amd-compute", {{"driver", "gpu.amd.com"},
                               {"selector", {{"computeCapability", {{"min", "8.0"}}}}},
                               {"claimTemplate", {{"namespaces", {"ml-train"}}}}}),
       {"computeCapability", "gpu.amd.com"}},
      {profile("bad-cel", {{"selector", {{"cel", {"device.attributes['gpu.nvidia.com'].x +"}}}},
                           {"claimTemplate", {{"namespaces", {"ml-train"}}}}}),
       {"cel"}},
  };
  for (const Stalled& s : stalled) {
    const std::string name = Name(s.object);
    if (HaveKubectl()) {
      scratch_.Write(name + ".json", s.object.dump());
      KubectlOk({"apply", "-f", scratch_.File(name + ".json")});
    } else {
      ApplyRaw(s.object);
    }
  }
  for (const Stalled& s : stalled) {
    const std::string name = Name(s.object);
    EXPECT_TRUE(Eventually([&] { return ConditionIs(name, "Stalled", "True"); }))
        << name << ": " << Status(name).dump();
    json c = ConditionOf(Get(Profile(name)), "Stalled");
    for (const std::string& w : s.words) {
      EXPECT_THAT(c.value("message", ""), HasSubstr(w)) << name;
    }
    EXPECT_TRUE(ConditionIs(name, "Ready", "False")) << name << ": " << Status(name).dump();
    EXPECT_TRUE(Get(Dra("deviceclasses/" + name)).is_null())
        << name << ": a class was written for an invalid profile";
  }
  if (HaveKubectl()) {
    EXPECT_THAT(KubectlOk({"get", "gpuprofiles"}).out,
                ::testing::ContainsRegex("amd-compute +False"));
  }
  // The valid profiles are untouched: Ready for the same generation, same objects.
  for (const char* p : kSampleProfiles) EXPECT_TRUE(Ready(p)) << p;
  for (const json& o : List(Dra("deviceclasses"), kManaged)) {
    EXPECT_EQ(Rv(o), versions[Key(o)]) << Key(o) << " was rewritten";
  }
  for (const json& o : List(Dra("resourceclaimtemplates"), kManaged)) {
    EXPECT_EQ(Rv(o), versions[Key(o)]) << Key(o) << " was rewritten";
  }
  ExpectConvergedToRender("with invalid profiles", {"amd-compute", "bad-cel"});
  EXPECT_EQ(operators_[0]->Stop(), 0);
  if (!HaveKubectl()) {
    GTEST_SKIP() << "kubectl is not installed: profiles were sent with the raw HTTP client and "
                    "the kubectl checks (apply errors, printer columns) were skipped";
  }
}

}  // namespace
}  // namespace operator_story_test
}  // namespace gpuprofile::e2e::testing
