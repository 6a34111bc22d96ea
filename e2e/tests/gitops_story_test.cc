// File: e2e/tests/gitops_story_test.cc
// The GitOps paths end to end (issue 18, parts 2-4), with the real binaries: kube-emulator,
// `gpu-profile-controller run` as a child process and the real kubectl. Per Kubernetes release
// (1.32, 1.34, 1.37):
//
//  - FluxPath: what Flux's kustomize-controller does with `prune: true, wait: true`, imitated
//    with kubectl: `config/default` and `config/samples` built with `kubectl kustomize`, applied
//    server-side with field manager `kustomize-controller` and force (fluxcd/pkg ssa applies with
//    ForceOwnership), CRDs and Namespaces first and waited for, then the rest; `wait` by the
//    kstatus rules (gitops_kstatus.h) on every object; `prune` deletes what left the set (an
//    inventory of the previous apply). Then a profile is edited in "Git", one is removed and a
//    namespace gains a label: each converges, with the generated DeviceClasses and
//    ResourceClaimTemplates equal to what `gpu-profile-controller render` computes and none
//    orphaned. After convergence the same manifests diff empty (`kubectl diff` and
//    `kubectl diff --server-side`), re-applying them changes no resourceVersion, and the
//    operator's manager owns only the finalizer and status of the profiles (managedFields).
//  - ArgoCdPath: the Argo CD health check (config/argocd/.../health.lua under lua5.1) on the
//    live profiles at each step: Progressing before the operator runs and while it has not
//    observed a new generation, Healthy when Ready, Degraded on Stalled, Satisfiable=False and
//    Conflict; then an Argo-style sync (client-side apply, then server-side apply with Argo's
//    manager `argocd-controller`) leaves no diff.
//
// What is imitated rather than run: kustomize-controller and Argo CD themselves (their diff
// normalisation, health aggregation, sync waves and retries). Nothing in the emulator runs pods,
// so the operator's Deployment is stored but never becomes available: its kstatus stays
// InProgress (LessReplicas) and the test says so instead of waiting for it; the operator runs as
// a child process of the test in its place.
//
// Every wait polls with a deadline; no sleep decides an outcome.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/tests/gitops_argo_health.h"
#include "e2e/tests/gitops_kstatus.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace gitops_story_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

constexpr char kFluxManager[] = "kustomize-controller";  // fluxcd/pkg ssa.Owner.Field
constexpr char kArgoManager[] = "argocd-controller";     // Argo CD's ArgoCDSSAManager
constexpr char kOperatorManager[] = "gpu-profile-operator";
constexpr char kFinalizer[] = "gpuprofile.io/cleanup";
constexpr char kHealthLua[] = "config/argocd/gpuprofile.io/GpuProfile/health.lua";

struct Release {
  std::string kube_version;  // the emulator's and render's --kube-version
  std::string kubectl;       // pinned kubectl binary (the newest installed for 1.34 and 1.37)
  std::string dra_version;   // the resource.k8s.io version the release serves
  std::string fleet;         // the example fleet (Nodes and ResourceSlices) in that version
};

void PrintTo(const Release& release, std::ostream* os) {
  *os << "Kubernetes " << release.kube_version;
}

std::string Namespace(const json& o) { return o["metadata"].value("namespace", ""); }
std::string Kind(const json& o) { return o.value("kind", ""); }
// "Kind ns/name", the identity of an object in an inventory.
std::string Ref(const json& o) {
  const std::string ns = Namespace(o);
  return absl::StrCat(Kind(o), " ", ns.empty() ? "" : ns + "/", Name(o));
}

// The REST path of an object of the kinds these manifests hold (plural: lower-case kind + s).
std::string PathOf(const json& o) {
  const std::string api_version = o.value("apiVersion", "");
  std::string plural = absl::AsciiStrToLower(Kind(o));
  plural += absl::EndsWith(plural, "s") ? "es" : "s";
  const std::string prefix = absl::StrContains(api_version, '/')
                                 ? absl::StrCat("/apis/", api_version)
                                 : absl::StrCat("/api/", api_version);
  const std::string ns = Namespace(o);
  return absl::StrCat(prefix, ns.empty() ? "" : "/namespaces/" + ns, "/", plural, "/", Name(o));
}

// ------------------------------------------------------------------------------------------------

class GitOpsTest : public ::testing::TestWithParam<Release> {
 protected:
  void TearDown() override {
    if (HasFailure()) PrintFailureLogs({op_.get()}, emulator_.get());
    if (op_ != nullptr) op_->Kill();
  }

  // Starts kube-emulator with the release's fleet and no CRDs (the GitOps tool applies them).
  // False (with the test skipped) when kubectl or lua5.1 is missing.
  bool Start() {
    release_ = GetParam();
    kubectl_ = PinnedKubectl(release_.kubectl);
    if (kubectl_.empty()) {
      ADD_FAILURE() << "kubectl (" << release_.kubectl << ") is not installed; the GitOps "
                    << "stories need the real kubectl (scripts/install-deps.sh)";
      return false;
    }
    if (RunCommand({"lua5.1", "-v"}, absl::Seconds(10)).exit_code != 0) {
      ADD_FAILURE() << "lua5.1 is not installed (scripts/install-deps.sh)";
      return false;
    }
    emulator_ = std::make_unique<EmulatorProcess>(
        std::vector<std::string>{"--kube-version", release_.kube_version, "-f", Src(release_.fleet),
                                 "--kubeconfig-out", scratch_.File("kubeconfig")});
    if (!emulator_->ok()) {
      ADD_FAILURE() << emulator_->Stderr();
      return false;
    }
    api_ = AdminClient(*emulator_, scratch_.File("kubeconfig"));
    return true;
  }

  void StartOperator() {
    if (op_ == nullptr) {
      std::vector<std::string> args = OperatorTestFlags(scratch_.File("kubeconfig"));
      args.insert(args.end(), {"--graceful-shutdown-timeout", "10s"});
      op_ = std::make_unique<OperatorProcess>(args, scratch_.File("operator.log"));
    }
    ASSERT_TRUE(op_->Start());
  }
  void StopOperator() { ASSERT_EQ(op_->Stop(), 0) << "the operator did not stop cleanly"; }

  // ---- kubectl and the raw client ------------------------------------------------------------

  CommandResult Kubectl(const std::vector<std::string>& args) {
    return RunKubectl(kubectl_, scratch_, args);
  }
  CommandResult KubectlOk(const std::vector<std::string>& args) {
    return RunKubectlOk(kubectl_, scratch_, args);
  }

  json Get(const std::string& path) {
    RawResponse r = api_->Get(path);
    return r.status == 200 ? r.Json() : json(nullptr);
  }
  std::vector<json> List(const std::string& collection, const std::string& selector = "") {
    std::string path = collection;
    if (!selector.empty()) path += "?labelSelector=" + UrlEncode(selector);
    std::vector<json> items;
    json list = Get(path);
    if (list.is_null()) return items;
    for (const json& item : list.value("items", json::array())) items.push_back(item);
    return items;
  }
  std::string Dra(const std::string& resource) const {
    return absl::StrCat("/apis/resource.k8s.io/", release_.dra_version, "/", resource);
  }
  json Profile(const std::string& name) { return Get(absl::StrCat(kProfiles, "/", name)); }

  // ---- "Git": manifests ----------------------------------------------------------------------

  // `kubectl kustomize <dir>`, parsed.
  std::vector<json> Kustomize(const std::string& dir) {
    CommandResult r = KubectlOk({"kustomize", Src(dir)});
    std::vector<json> out;
    absl::StatusOr<std::vector<dra::ManifestObject>> objects =
        dra::ParseManifests(r.out, dir + ".yaml");
    EXPECT_TRUE(objects.ok()) << objects.status();
    if (!objects.ok()) return out;
    for (const dra::ManifestObject& o : *objects) out.push_back(o.object);
    return out;
  }
  // Writes objects as one YAML stream of JSON documents; returns the path.
  std::string WriteSet(const std::string& name, const std::vector<json>& objects) {
    std::string text;
    for (const json& o : objects) absl::StrAppend(&text, "---\n", o.dump(), "\n");
    scratch_.Write(name, text);
    return scratch_.File(name);
  }
  static json* Find(std::vector<json>& set, const std::string& kind, const std::string& name) {
    for (json& o : set) {
      if (Kind(o) == kind && Name(o) == name) return &o;
    }
    return nullptr;
  }
  static bool IsClusterDefinition(const json& o) {
    return Kind(o) == "CustomResourceDefinition" || Kind(o) == "Namespace";
  }

  // ---- Flux: apply, wait, prune --------------------------------------------------------------

  bool ServerSideApply(const std::string& file, const std::string& manager) {
    return KubectlOk({"apply", "--server-side", "--force-conflicts", "--field-manager=" + manager,
                      "-f", file})
               .exit_code == 0;
  }

  // What kustomize-controller's reconcile does with the set: labels every object with the
  // Kustomization's name, applies CRDs and Namespaces, waits for them, applies the rest, and
  // prunes what the previous inventory held and this set does not. False when a step failed
  // (the failure is reported).
  [[nodiscard]] bool FluxReconcile(std::vector<json> set) {
    for (json& o : set) {
      o["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/name"] = "gpu-profile-operator";
      o["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/namespace"] = "flux-system";
    }
    std::vector<json> stage_one, stage_two;
    for (const json& o : set) (IsClusterDefinition(o) ? stage_one : stage_two).push_back(o);
    if (!stage_one.empty()) {
      if (!ServerSideApply(WriteSet("flux-stage-one.yaml", stage_one), kFluxManager)) return false;
      std::string waiting;
      if (!Eventually([&] { return (waiting = NotCurrent(stage_one)).empty(); })) {
        ADD_FAILURE() << "CRDs and Namespaces not Current: " << waiting;
        return false;
      }
    }
    if (!ServerSideApply(WriteSet("flux-stage-two.yaml", stage_two), kFluxManager)) return false;
    std::set<std::string> refs;
    for (const json& o : set) refs.insert(Ref(o));
    std::vector<json> pruned;
    for (const auto& [ref, o] : flux_inventory_) {
      if (!refs.count(ref)) pruned.push_back(o);
    }
    if (!pruned.empty()) {
      if (KubectlOk({"delete", "--wait=false", "-f", WriteSet("flux-prune.yaml", pruned)})
              .exit_code != 0) {
        return false;
      }
    }
    flux_inventory_.clear();
    for (const json& o : set) flux_inventory_[Ref(o)] = o;
    flux_set_ = set;
    return true;
  }

  // The objects of `set` whose kstatus is not Current (each with its status and message);
  // "" when all are. A missing object counts as not Current.
  std::string NotCurrent(const std::vector<json>& set, const std::set<std::string>& except = {}) {
    std::vector<std::string> out;
    for (const json& o : set) {
      if (except.count(Ref(o))) continue;
      json live = Get(PathOf(o));
      if (live.is_null()) {
        out.push_back(Ref(o) + ": NotFound");
        continue;
      }
      KStatus s = ComputeKStatus(live);
      if (s.status != "Current") {
        out.push_back(absl::StrCat(Ref(o), ": ", s.status, " ", s.message));
      }
    }
    return absl::StrJoin(out, "; ");
  }

  // The resourceVersion of every object of `set`.
  std::map<std::string, std::string> Versions(const std::vector<json>& set) {
    std::map<std::string, std::string> out;
    for (const json& o : set) out[Ref(o)] = Rv(Get(PathOf(o)));
    return out;
  }

  // After convergence: both diffs of `file` are empty (exit 0), and re-applying it (`reapply`)
  // changes no object of `set`.
  void ExpectNoDrift(const std::string& when, const std::vector<json>& set, const std::string& file,
                     const std::string& manager, const std::function<void()>& reapply) {
    SCOPED_TRACE(when);
    CommandResult server_side = Kubectl(
        {"diff", "--server-side", "--force-conflicts", "--field-manager=" + manager, "-f", file});
    EXPECT_EQ(server_side.exit_code, 0)
        << "kubectl diff --server-side --field-manager=" << manager << ":\n"
        << server_side.out;
    CommandResult client_side = Kubectl({"diff", "-f", file});
    EXPECT_EQ(client_side.exit_code, 0) << "kubectl diff:\n" << client_side.out;
    std::map<std::string, std::string> before = Versions(set);
    reapply();
    std::map<std::string, std::string> after = Versions(set);
    for (const auto& [ref, rv] : before) {
      EXPECT_EQ(after[ref], rv) << ref << " changed when the same manifests were re-applied";
    }
  }

  // The operator's manager owns only the cleanup finalizer (and the finalizers list it adds it
  // to) and, through the status subresource, status; `manager` (the GitOps tool) owns the spec.
  void ExpectFieldOwnership(const std::string& profile, const std::string& manager) {
    SCOPED_TRACE(profile);
    json p = Profile(profile);
    ASSERT_FALSE(p.is_null());
    const json entries = p["metadata"].value("managedFields", json::array());
    bool gitops_spec = false, operator_status = false, operator_finalizer = false;
    for (const json& e : entries) {
      const std::string who = e.value("manager", "");
      const json fields = e.value("fieldsV1", json::object());
      if (who == manager) {
        EXPECT_EQ(e.value("operation", ""), "Apply") << e.dump();
        gitops_spec = gitops_spec || fields.contains("f:spec");
        EXPECT_FALSE(fields.contains("f:status")) << e.dump();
      }
      if (who != kOperatorManager) continue;
      EXPECT_EQ(e.value("operation", ""), "Update") << e.dump();
      if (e.value("subresource", "") == "status") {
        std::vector<std::string> keys;
        for (const auto& [k, v] : fields.items()) keys.push_back(k);
        EXPECT_THAT(keys, ::testing::ElementsAre("f:status")) << e.dump();
        operator_status = true;
        continue;
      }
      std::vector<std::string> top, meta, finalizers;
      for (const auto& [k, v] : fields.items()) top.push_back(k);
      EXPECT_THAT(top, ::testing::ElementsAre("f:metadata")) << e.dump();
      const json metadata = fields.value("f:metadata", json::object());
      for (const auto& [k, v] : metadata.items()) meta.push_back(k);
      EXPECT_THAT(meta, ::testing::ElementsAre("f:finalizers")) << e.dump();
      const json owned = metadata.value("f:finalizers", json::object());
      for (const auto& [k, v] : owned.items()) finalizers.push_back(k);
      const std::string item = absl::StrCat("v:\"", kFinalizer, "\"");
      EXPECT_THAT(finalizers, ::testing::IsSubsetOf({std::string("."), item})) << e.dump();
      operator_finalizer = std::count(finalizers.begin(), finalizers.end(), item) == 1;
    }
    EXPECT_TRUE(gitops_spec) << manager << " does not own spec: " << entries.dump();
    EXPECT_TRUE(operator_status) << "no status entry of the operator: " << entries.dump();
    EXPECT_TRUE(operator_finalizer) << "no finalizer entry of the operator: " << entries.dump();
  }

  // ---- Argo CD health ------------------------------------------------------------------------

  ArgoHealth Health(const std::string& profile) {
    json p = Profile(profile);
    if (p.is_null()) return {"Missing", ""};
    absl::StatusOr<ArgoHealth> h = EvaluateArgoHealth(p, Src(kHealthLua), scratch_.path());
    EXPECT_TRUE(h.ok()) << h.status();
    return h.ok() ? *h : ArgoHealth{"Error", std::string(h.status().message())};
  }
  // Polls until the profile's health is `status`; fails with the last health otherwise.
  ArgoHealth ExpectHealth(const std::string& profile, const std::string& status) {
    ArgoHealth h;
    bool ok = Eventually([&] { return (h = Health(profile)).status == status; });
    EXPECT_TRUE(ok) << profile << ": health " << h.status << " (" << h.message << "), want "
                    << status << "\n"
                    << Profile(profile).value("status", json()).dump();
    return h;
  }

  // ---- the generated objects against render --------------------------------------------------

  // "" when the cluster's managed DeviceClasses and ResourceClaimTemplates are exactly what
  // `render` computes from the live profiles, slices and namespaces (names, class selectors,
  // template requests), each owned by its live profile; else the differences.
  std::string DiffAgainstRender() {
    json profiles = json::array();
    std::map<std::string, std::string> uids;
    for (json& p : List(kProfiles)) {
      if (p["metadata"].contains("deletionTimestamp")) continue;
      uids[Name(p)] = p["metadata"].value("uid", "");
      p.erase("status");
      profiles.push_back(p);
    }
    auto write = [&](const std::string& name, const std::vector<json>& items) {
      scratch_.Write(name, json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
      return scratch_.File(name);
    };
    ControllerResult r =
        RunController({"render", "-f", write("render-profiles.json", profiles), "-f",
                       write("render-slices.json", List(Dra("resourceslices"))), "-f",
                       write("render-namespaces.json", List("/api/v1/namespaces")),
                       "--kube-version", release_.kube_version, "-o", "json"});
    if (r.exit_code != 0) return "render failed: " + r.err;
    json rendered = json::parse(r.out, nullptr, false);
    if (rendered.is_discarded()) return "render printed no JSON";
    std::map<std::string, json> want, have;
    for (const json& o : rendered.value("items", json::array())) {
      if (Kind(o) == "DeviceClass" || Kind(o) == "ResourceClaimTemplate") want[Ref(o)] = o;
    }
    std::vector<std::string> problems;
    for (const std::string& collection : {Dra("deviceclasses"), Dra("resourceclaimtemplates")}) {
      for (json& o : List(collection, kManaged)) {
        o["kind"] =
            absl::EndsWith(collection, "deviceclasses") ? "DeviceClass" : "ResourceClaimTemplate";
        const std::string owner =
            o["metadata"].value("labels", json::object()).value("gpuprofile.io/profile", "");
        const json refs = o["metadata"].value("ownerReferences", json::array());
        if (!uids.count(owner)) {
          problems.push_back(Ref(o) + ": orphaned (its profile " + owner + " is gone)");
        } else if (refs.size() != 1 || refs[0].value("uid", "") != uids[owner]) {
          problems.push_back(Ref(o) + ": not owned by profile " + owner + ": " + refs.dump());
        }
        have[Ref(o)] = o;
      }
    }
    for (const auto& [ref, o] : want) {
      if (!have.count(ref)) problems.push_back(ref + ": missing");
    }
    for (const auto& [ref, o] : have) {
      auto it = want.find(ref);
      if (it == want.end()) {
        problems.push_back(ref + ": not rendered");
      } else if (Kind(o) == "DeviceClass") {
        if (o["spec"].value("selectors", json::array()) !=
            it->second["spec"].value("selectors", json::array())) {
          problems.push_back(ref + ": selectors differ from render's");
        }
      } else {
        json a = json::array(), b = json::array();
        for (const json& q : o["spec"]["spec"]["devices"]["requests"]) a.push_back(FlatRequest(q));
        for (const json& q : it->second["spec"]["spec"]["devices"]["requests"]) {
          b.push_back(FlatRequest(q));
        }
        if (a != b) problems.push_back(ref + ": requests differ from render's");
      }
    }
    return absl::StrJoin(problems, "\n");
  }
  void ExpectConvergedToRender(const std::string& when) {
    std::string diff;
    EXPECT_TRUE(Eventually([&] { return (diff = DiffAgainstRender()).empty(); }))
        << when << ": the generated objects are not what render computes:\n"
        << diff;
  }
  std::vector<std::string> ManagedKeys(const std::string& resource) {
    std::vector<std::string> keys;
    for (const json& o : List(Dra(resource), kManaged)) keys.push_back(Key(o));
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  Release release_;
  ScratchDir scratch_;
  std::unique_ptr<EmulatorProcess> emulator_;
  std::unique_ptr<RawHttpClient> api_;
  std::unique_ptr<OperatorProcess> op_;
  std::string kubectl_;
  std::map<std::string, json> flux_inventory_;  // Ref → object of the last applied set
  std::vector<json> flux_set_;                  // the last applied set, as applied
};

// kstatus as this file implements it, on the shapes the stories meet (the rules: cli-utils).
TEST(KStatusTest, RulesForTheAppliedKinds) {
  struct Case {
    const char* name;
    json object;
    const char* status;
    const char* reason;
  };
  const json crd_established = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "x"}, {"generation", 1}}},
      {"status", {{"conditions", {{{"type", "Established"}, {"status", "True"}}}}}}};
  const json deployment = {{"apiVersion", "apps/v1"},
                           {"kind", "Deployment"},
                           {"metadata", {{"name", "d"}, {"generation", 1}}},
                           {"spec", {{"replicas", 2}}}};
  json deployment_ready = deployment;
  deployment_ready["status"] = {
      {"observedGeneration", 1},
      {"replicas", 2},
      {"updatedReplicas", 2},
      {"readyReplicas", 2},
      {"availableReplicas", 2},
      {"conditions",
       {{{"type", "Available"}, {"status", "True"}},
        {{"type", "Progressing"}, {"status", "True"}, {"reason", "NewReplicaSetAvailable"}}}}};
  auto profile = [](int generation, json status) {
    json p = {{"apiVersion", "gpuprofile.io/v1alpha1"},
              {"kind", "GpuProfile"},
              {"metadata", {{"name", "p"}, {"generation", generation}}}};
    if (!status.is_null()) p["status"] = status;
    return p;
  };
  auto cond = [](const char* type, const char* status) {
    return json{{"type", type}, {"status", status}, {"reason", "R"}, {"message", "m"}};
  };
  const std::vector<Case> cases = {
      {"crd without status",
       {{"apiVersion", "apiextensions.k8s.io/v1"},
        {"kind", "CustomResourceDefinition"},
        {"metadata", {{"name", "x"}}}},
       "InProgress",
       "Installing"},
      {"crd established", crd_established, "Current", ""},
      {"deployment without pods", deployment, "InProgress", "LessReplicas"},
      {"deployment available", deployment_ready, "Current", ""},
      {"profile without status", profile(1, nullptr), "Current", ""},
      {"profile behind", profile(2, {{"observedGeneration", 1}}), "InProgress",
       "LatestGenerationNotObserved"},
      {"profile reconciling",
       profile(1, {{"observedGeneration", 1}, {"conditions", {cond("Reconciling", "True")}}}),
       "InProgress", "R"},
      {"profile stalled",
       profile(1, {{"observedGeneration", 1}, {"conditions", {cond("Stalled", "True")}}}), "Failed",
       "R"},
      {"profile ready false",
       profile(1, {{"observedGeneration", 1}, {"conditions", {cond("Ready", "False")}}}),
       "InProgress", "R"},
      {"profile ready true, not satisfiable",
       profile(1, {{"observedGeneration", 1},
                   {"conditions", {cond("Ready", "True"), cond("Satisfiable", "False")}}}),
       "Current", ""},
      {"namespace",
       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "n"}}}},
       "Current",
       ""},
      {"deleting",
       {{"kind", "Namespace"},
        {"apiVersion", "v1"},
        {"metadata", {{"name", "n"}, {"deletionTimestamp", "2026-01-01T00:00:00Z"}}}},
       "Terminating",
       ""},
  };
  for (const Case& c : cases) {
    KStatus s = ComputeKStatus(c.object);
    EXPECT_EQ(s.status, c.status) << c.name << ": " << s.message;
    EXPECT_EQ(s.reason, c.reason) << c.name << ": " << s.message;
  }
}

// The Lua literal of a live object keeps what health.lua reads (numbers, nested conditions,
// strings with quotes and non-ASCII bytes).
TEST(ArgoHealthTest, LuaLiteralRoundTripsThroughLua) {
  if (RunCommand({"lua5.1", "-v"}, absl::Seconds(10)).exit_code != 0) {
    FAIL() << "lua5.1 is not installed (scripts/install-deps.sh)";
  }
  ScratchDir dir;
  const json object = {
      {"metadata", {{"generation", 3}}},
      {"status",
       {{"observedGeneration", 3},
        {"conditions",
         {{{"type", "Ready"}, {"status", "True"}, {"message", "a \"quoted\" 5\xc2\xb5s\\"}},
          {{"type", "Satisfiable"}, {"status", "True"}, {"message", "16 devices"}}}}}}};
  absl::StatusOr<ArgoHealth> h = EvaluateArgoHealth(object, Src(kHealthLua), dir.path());
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->status, "Healthy");
  EXPECT_EQ(h->message, "a \"quoted\" 5\xc2\xb5s\\; 16 devices");
}

// ================================================================================================
// Flux: kustomize-controller's apply, wait and prune, imitated with kubectl.
// ================================================================================================

TEST_P(GitOpsTest, FluxPath) {
  if (!Start()) return;
  // "Git": the operator's deployment config and the samples, built as kustomize-controller does.
  std::vector<json> git = Kustomize("config/default");
  for (json& o : Kustomize("config/samples")) git.push_back(std::move(o));
  ASSERT_NE(Find(git, "GpuProfile", "large-memory"), nullptr);
  ASSERT_NE(Find(git, "Deployment", "gpu-profile-operator-controller-manager"), nullptr);

  // 1. The first reconcile. CRDs and Namespaces first (Established before the profiles go in).
  ASSERT_TRUE(FluxReconcile(git));
  // Nothing runs pods here: the operator's Deployment is stored but has no replicas, so kstatus
  // (and so Flux's `wait`) holds it InProgress. The operator runs as the test's child instead.
  const std::string deployment =
      "Deployment gpu-profile-operator-system/"
      "gpu-profile-operator-controller-manager";
  json live_deployment =
      Get(PathOf(*Find(git, "Deployment", "gpu-profile-operator-controller-manager")));
  ASSERT_FALSE(live_deployment.is_null()) << "the Deployment was not applied";
  KStatus dep = ComputeKStatus(live_deployment);
  EXPECT_EQ(dep.status, "InProgress") << dep.message;
  EXPECT_EQ(dep.reason, "LessReplicas") << dep.message;
  StartOperator();
  std::string waiting;
  ASSERT_TRUE(Eventually([&] { return (waiting = NotCurrent(flux_set_, {deployment})).empty(); }))
      << "kstatus: not Current: " << waiting;
  // (kstatus also calls a profile without status Current, so Ready is checked as well.)
  ASSERT_TRUE(Eventually([&] {
    for (const char* p : {"ampere-or-newer", "large-memory", "light-inference", "recent-driver"}) {
      json c = ConditionOf(Profile(p), "Ready");
      if (c.is_null() || c.value("status", "") != "True") return false;
    }
    return true;
  }));
  ExpectConvergedToRender("after the first reconcile");
  const std::string flux_file = WriteSet("flux-git.yaml", flux_set_);
  ExpectNoDrift("after the first reconcile", flux_set_, flux_file, kFluxManager,
                [&] { EXPECT_TRUE(FluxReconcile(flux_set_)); });
  for (const char* p : {"ampere-or-newer", "large-memory", "light-inference", "recent-driver"}) {
    ExpectFieldOwnership(p, kFluxManager);
  }

  // 2. A profile edited in Git: large-memory now wants 42Gi (the 40 GB A100s drop out, the
  //    45 GB L40S stay).
  Find(git, "GpuProfile", "large-memory")->at("spec")["selector"]["memory"]["min"] = "42Gi";
  const std::string class_rv = Rv(Get(Dra("deviceclasses/large-memory")));
  ASSERT_TRUE(FluxReconcile(git));
  ASSERT_TRUE(Eventually([&] { return (waiting = NotCurrent(flux_set_, {deployment})).empty(); }))
      << "kstatus after the edit: " << waiting;
  json large = Profile("large-memory");
  EXPECT_EQ(large["metadata"].value("generation", 0), 2);
  EXPECT_EQ(large["status"].value("observedGeneration", 0), 2);
  ExpectConvergedToRender("after editing large-memory");
  EXPECT_NE(Rv(Get(Dra("deviceclasses/large-memory"))), class_rv)
      << "the DeviceClass did not follow the edit";

  // 3. A profile removed from Git: pruned, and its generated objects go with it.
  git.erase(std::remove_if(git.begin(), git.end(),
                           [](const json& o) {
                             return Kind(o) == "GpuProfile" && Name(o) == "recent-driver";
                           }),
            git.end());
  ASSERT_TRUE(FluxReconcile(git));
  EXPECT_TRUE(Eventually([&] { return Profile("recent-driver").is_null(); }))
      << "the pruned profile was not deleted (its finalizer stayed?)";
  ExpectConvergedToRender("after pruning recent-driver");
  EXPECT_THAT(ManagedKeys("deviceclasses"), ::testing::Not(::testing::Contains("recent-driver")));

  // 4. A namespace label added in Git: ml-train opts in to the label-selected profiles.
  json* ml_train = Find(git, "Namespace", "ml-train");
  ASSERT_NE(ml_train, nullptr);
  (*ml_train)["metadata"]["labels"]["gpu-profiles"] = "enabled";
  ASSERT_TRUE(FluxReconcile(git));
  ExpectConvergedToRender("after labelling ml-train");
  EXPECT_THAT(ManagedKeys("resourceclaimtemplates"),
              ::testing::IsSupersetOf({"ml-train/light-inference", "ml-train/ampere-or-newer"}));
  ASSERT_TRUE(Eventually([&] { return (waiting = NotCurrent(flux_set_, {deployment})).empty(); }))
      << "kstatus after the label: " << waiting;

  // 5. Still drift-free after the story.
  const std::string final_file = WriteSet("flux-git-final.yaml", flux_set_);
  ExpectNoDrift("after the story", flux_set_, final_file, kFluxManager,
                [&] { EXPECT_TRUE(FluxReconcile(flux_set_)); });
  for (const char* p : {"ampere-or-newer", "large-memory", "light-inference"}) {
    ExpectFieldOwnership(p, kFluxManager);
  }
  EXPECT_EQ(op_->Stop(), 0);
}

// ================================================================================================
// Argo CD: the health check on live profiles, and a client-side then server-side sync.
// ================================================================================================

TEST_P(GitOpsTest, ArgoCdPath) {
  if (!Start()) return;
  std::vector<json> git = Kustomize("config/default");
  for (json& o : Kustomize("config/samples")) git.push_back(std::move(o));
  // Argo CD's default sync: `kubectl apply` (client-side, last-applied annotation), the CRDs and
  // Namespaces in an earlier wave than the profiles that need them.
  std::vector<json> wave_one, wave_two;
  for (const json& o : git) (IsClusterDefinition(o) ? wave_one : wave_two).push_back(o);
  auto sync = [&] {
    KubectlOk({"apply", "-f", WriteSet("argo-wave-one.yaml", wave_one)});
    std::string waiting;
    EXPECT_TRUE(Eventually([&] { return (waiting = NotCurrent(wave_one)).empty(); })) << waiting;
    KubectlOk({"apply", "-f", WriteSet("argo-wave-two.yaml", wave_two)});
  };
  sync();

  // 1. Before the operator runs: Progressing (and kstatus would already say Current).
  ArgoHealth h = Health("large-memory");
  EXPECT_EQ(h.status, "Progressing");
  EXPECT_EQ(h.message, "Waiting for the operator to report status");
  EXPECT_EQ(ComputeKStatus(Profile("large-memory")).status, "Current")
      << "kstatus on a custom resource without status";

  // 2. The operator runs: Healthy, with Ready's message and the match summary.
  StartOperator();
  for (const char* p : {"ampere-or-newer", "large-memory", "light-inference", "recent-driver"}) {
    h = ExpectHealth(p, "Healthy");
    json ready = ConditionOf(Profile(p), "Ready");
    EXPECT_THAT(h.message, ::testing::StartsWith(ready.value("message", "<none>"))) << p;
    EXPECT_THAT(h.message, HasSubstr("devices")) << p;
  }
  ExpectConvergedToRender("after the first sync");

  // 3. The operator behind Git: stopped, a profile edited; Progressing until it catches up.
  StopOperator();
  json* large = Find(wave_two, "GpuProfile", "large-memory");
  ASSERT_NE(large, nullptr);
  (*large)["spec"]["selector"]["memory"]["min"] = "42Gi";
  sync();
  h = Health("large-memory");
  EXPECT_EQ(h.status, "Progressing");
  EXPECT_EQ(h.message, "Waiting for the operator to observe generation 2 (observed 1)");
  KStatus k = ComputeKStatus(Profile("large-memory"));
  EXPECT_EQ(k.status, "InProgress") << k.message;
  StartOperator();
  ExpectHealth("large-memory", "Healthy");
  ExpectConvergedToRender("after the edit");

  // 4. Degraded: a profile whose class name is taken, one matching no device, one that
  //    cannot be realised (a compute capability term for AMD's driver).
  json taken = {{"apiVersion", "resource.k8s.io/" + release_.dra_version},
                {"kind", "DeviceClass"},
                {"metadata", {{"name", "argo-conflict"}}},
                {"spec", json::object()}};
  ASSERT_EQ(api_->Post(Dra("deviceclasses"), taken).status, 201);
  auto profile = [](const std::string& name, json spec) {
    return json{{"apiVersion", "gpuprofile.io/v1alpha1"},
                {"kind", "GpuProfile"},
                {"metadata", {{"name", name}}},
                {"spec", std::move(spec)}};
  };
  wave_two.push_back(profile("argo-conflict", {{"claimTemplate", {{"namespaces", {"batch"}}}}}));
  wave_two.push_back(
      profile("argo-unsatisfiable", {{"selector", {{"productNames", {"NVIDIA B200"}}}},
                                     {"claimTemplate", {{"namespaces", {"batch"}}}}}));
  wave_two.push_back(
      profile("argo-stalled", {{"driver", "gpu.amd.com"},
                               {"selector", {{"computeCapability", {{"min", "8.0"}}}}},
                               {"claimTemplate", {{"namespaces", {"batch"}}}}}));
  sync();
  const std::vector<std::pair<std::string, std::string>> degraded = {
      {"argo-conflict", "Conflict"},
      {"argo-unsatisfiable", "Satisfiable"},
      {"argo-stalled", "Stalled"}};
  for (const auto& [name, condition] : degraded) {
    h = ExpectHealth(name, "Degraded");
    json c = ConditionOf(Profile(name), condition);
    ASSERT_FALSE(c.is_null()) << name;
    EXPECT_EQ(c.value("status", ""), condition == "Satisfiable" ? "False" : "True") << name;
    EXPECT_EQ(h.message, c.value("message", "<none>")) << name << " (" << condition << ")";
  }
  EXPECT_EQ(Get(Dra("deviceclasses/argo-conflict"))["metadata"]
                .value("labels", json::object())
                .count("gpuprofile.io/profile"),
            0u)
      << "the operator took over a DeviceClass it does not own";
  // What Flux's kstatus makes of the same three: Stalled is Failed, Conflict (Ready=False) is
  // InProgress, but a profile matching no device is Ready (its objects are in place) and kstatus
  // does not read Satisfiable: Current, so a Flux `wait` lets it pass.
  EXPECT_EQ(ComputeKStatus(Profile("argo-stalled")).status, "Failed");
  EXPECT_EQ(ComputeKStatus(Profile("argo-conflict")).status, "InProgress");
  EXPECT_EQ(ComputeKStatus(Profile("argo-unsatisfiable")).status, "Current");
  // The healthy ones stay Healthy.
  EXPECT_EQ(Health("large-memory").status, "Healthy");

  // 5. Argo CD's server-side sync of the same manifests (ServerSideApply=true), after the
  //    client-side one: both diffs empty and nothing rewritten.
  std::vector<json> all = wave_one;
  all.insert(all.end(), wave_two.begin(), wave_two.end());
  const std::string file = WriteSet("argo-git.yaml", all);
  ExpectNoDrift("after the client-side sync", all, file, kArgoManager, sync);
  ASSERT_TRUE(ServerSideApply(WriteSet("argo-ssa-one.yaml", wave_one), kArgoManager));
  ASSERT_TRUE(ServerSideApply(WriteSet("argo-ssa-two.yaml", wave_two), kArgoManager));
  // kubectl's first server-side apply migrates the client-side manager's fields to the new
  // manager and drops the last-applied annotation; an object whose only client-side field was
  // that annotation (a Namespace with nothing but a name in Git) is left without managedFields,
  // and the next apply records them once (`before-first-apply`, as kube-apiserver does). Argo CD
  // syncs again and again; the second sync is the settled state.
  ASSERT_TRUE(ServerSideApply(WriteSet("argo-ssa-one.yaml", wave_one), kArgoManager));
  ASSERT_TRUE(ServerSideApply(WriteSet("argo-ssa-two.yaml", wave_two), kArgoManager));
  ExpectNoDrift("after the server-side sync", all, file, kArgoManager, [&] {
    ServerSideApply(WriteSet("argo-ssa-one.yaml", wave_one), kArgoManager);
    ServerSideApply(WriteSet("argo-ssa-two.yaml", wave_two), kArgoManager);
  });
  for (const char* p : {"large-memory", "argo-stalled"}) ExpectFieldOwnership(p, kArgoManager);
  EXPECT_EQ(Health("large-memory").status, "Healthy");
  EXPECT_EQ(op_->Stop(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Releases, GitOpsTest,
    ::testing::Values(Release{"1.32", "kubectl.1.32", "v1beta1", "config/samples/fleet-v1beta1"},
                      Release{"1.34", "kubectl.1.33", "v1", "config/samples/fleet"},
                      Release{"1.37", "kubectl.1.33", "v1", "config/samples/fleet"}),
    ReleaseName<Release>);

}  // namespace
}  // namespace gitops_story_test
}  // namespace gpuprofile::e2e::testing
