// File: e2e/tests/story_cluster.cc
#include "e2e/tests/story_cluster.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/tests/story_support.h"
#include "gtest/gtest.h"

namespace gpuprofile::e2e::testing {

using json = nlohmann::json;

json StoryCluster::Get(const std::string& path) {
  RawResponse r = api_->Get(path);
  return r.status == 200 ? r.Json() : json(nullptr);
}

std::vector<json> StoryCluster::List(const std::string& path) {
  RawResponse r = api_->Get(path);
  std::vector<json> items;
  if (r.status != 200) return items;
  for (const json& item : r.Json().value("items", json::array())) items.push_back(item);
  return items;
}

json StoryCluster::Create(const std::string& collection, const json& object) {
  RawResponse r = api_->Post(collection, object);
  EXPECT_EQ(r.status, 201) << collection << ": " << r.body;
  return r.status == 201 ? r.Json() : json(nullptr);
}

json StoryCluster::Put(const std::string& path, const json& object) {
  RawResponse r = api_->Put(path, object);
  EXPECT_EQ(r.status, 200) << path << ": " << r.body;
  return r.status == 200 ? r.Json() : json(nullptr);
}

std::string StoryCluster::Pods(const std::string& ns) {
  return absl::StrCat("/api/v1/namespaces/", ns, "/pods");
}

std::string StoryCluster::Claims(const std::string& ns) {
  return absl::StrCat(kDraV1, "/namespaces/", ns, "/resourceclaims");
}

void StoryCluster::CreateAll(const std::string& file) {
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests({Src(file)});
  ASSERT_TRUE(objects.ok()) << objects.status();
  for (const dra::ManifestObject& o : *objects) {
    const std::string kind = o.object.value("kind", "");
    Create(kind == "Namespace" ? kNamespaces : kProfiles, o.object);
  }
}

json StoryCluster::ProfileStatus(const std::string& name) {
  json p = Get(absl::StrCat(kProfiles, "/", name));
  return p.is_null() ? json::object() : p.value("status", json::object());
}

json StoryCluster::GroupStatus(const std::string& name) {
  json g = Get(absl::StrCat(kNodeGroups, "/", name));
  return g.is_null() ? json::object() : g.value("status", json::object());
}

bool StoryCluster::ConditionIs(const std::string& profile, const std::string& type,
                               const std::string& status) {
  json c = FindCondition(ProfileStatus(profile), type);
  return !c.is_null() && c.value("status", "") == status;
}

json StoryCluster::UserPod(const std::string& ns, const std::string& name,
                           const std::string& tmpl) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec",
               {{"containers",
                 {{{"name", "main"},
                   {"image", "registry.example.com/train:1"},
                   {"resources", {{"claims", {{{"name", "gpu"}}}}}}}}},
                {"resourceClaims", {{{"name", "gpu"}, {"resourceClaimTemplateName", tmpl}}}}}}};
  return Create(Pods(ns), pod);
}

json StoryCluster::ClaimFor(json* pod, const std::string& tmpl) {
  const std::string ns = (*pod)["metadata"].value("namespace", "");
  json t = Get(absl::StrCat(kDraV1, "/namespaces/", ns, "/resourceclaimtemplates/", tmpl));
  EXPECT_FALSE(t.is_null()) << "no template " << ns << "/" << tmpl;
  if (t.is_null()) return nullptr;
  json claim = {{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceClaim"},
                {"metadata",
                 {{"generateName", absl::StrCat(Name(*pod), "-gpu-")},
                  {"namespace", ns},
                  {"annotations", {{"resource.kubernetes.io/pod-claim-name", "gpu"}}},
                  {"ownerReferences",
                   {{{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"name", Name(*pod)},
                     {"uid", (*pod)["metadata"]["uid"]},
                     {"controller", true},
                     {"blockOwnerDeletion", true}}}}}},
                {"spec", t["spec"]["spec"]}};
  json created = Create(Claims(ns), claim);
  if (created.is_null()) return nullptr;
  (*pod)["status"]["phase"] = "Pending";
  (*pod)["status"]["resourceClaimStatuses"] = {
      {{"name", "gpu"}, {"resourceClaimName", Name(created)}}};
  *pod = Put(absl::StrCat(Pods(ns), "/", Name(*pod), "/status"), *pod);
  return created;
}

json StoryCluster::Allocate(json claim, json* pod, const std::vector<AllocatedDevice>& devices) {
  const std::string ns = claim["metadata"].value("namespace", "");
  const std::string request = claim["spec"]["devices"]["requests"][0].value("name", "");
  json results = json::array();
  for (const AllocatedDevice& d : devices) {
    json result = {
        {"request", request}, {"driver", kNvidiaDriver}, {"pool", d.pool}, {"device", d.device}};
    result.update(d.extra);
    results.push_back(std::move(result));
  }
  claim["status"] = {
      {"allocation", {{"devices", {{"results", results}}}}},
      {"reservedFor",
       {{{"resource", "pods"}, {"name", Name(*pod)}, {"uid", (*pod)["metadata"]["uid"]}}}}};
  json stored = Put(absl::StrCat(Claims(ns), "/", Name(claim), "/status"), claim);
  (*pod)["status"]["phase"] = "Running";
  (*pod)["status"]["conditions"] = {{{"type", "PodScheduled"}, {"status", "True"}}};
  *pod = Put(absl::StrCat(Pods(ns), "/", Name(*pod), "/status"), *pod);
  return stored;
}

CommandResult StoryCluster::Kubectl(const std::vector<std::string>& args) {
  return RunKubectlOk(kubectl_, scratch_, args);
}

void StoryCluster::StopStory(bool failed) {
  if (failed) PrintFailureLogs({op_.get()}, emulator_.get());
  if (op_) op_->Kill();
}

ControllerResult RunExplain(std::vector<std::string> args, const std::string& kube_version,
                            const std::vector<std::string>& gates) {
  if (std::find(args.begin(), args.end(), "-f") != args.end()) {
    args.push_back("--kube-version");
    args.push_back(kube_version);
  }
  args.insert(args.begin(), "explain");
  args.insert(args.end(), gates.begin(), gates.end());
  return RunController(args, kCommandDeadline);
}

}  // namespace gpuprofile::e2e::testing
