// File: e2e/tests/server_side_apply_test.cc
// Server-side apply and managedFields over HTTP against kube-emulator (raw client), then with the
// real kubectl 1.32 and 1.33: `apply --server-side` (with --field-manager and --force-conflicts),
// `diff --server-side` (exit 0 without changes, 1 with a diff), and a client-side `apply` taken
// over by a server-side one. Skipped, saying so, where kubectl is absent. Expected wording and
// behaviour are kube-apiserver's (see e2e/README.md, "Server-side apply").
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "e2e/tests/raw_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::e2e::testing {
namespace server_side_apply_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kApply[] = "application/apply-patch+yaml";
constexpr char kCm[] = "/api/v1/namespaces/default/configmaps/cm";

const char kWidgetCrd[] = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com"},
  "spec": {"group": "example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
          "size": {"type": "integer"},
          "color": {"type": "string"},
          "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
          "ports": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"], "properties": {
                      "name": {"type": "string"}, "port": {"type": "integer"}}}},
          "args": {"type": "array", "items": {"type": "string"}}}},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}}]}
})";
constexpr char kWidgets[] = "/apis/example.com/v1/namespaces/default/widgets";

class ServerSideApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(process_.ok()) << process_.Stderr();
    client_ = std::make_unique<RawHttpClient>(process_.url());
  }
  RawResponse Apply(const std::string& path, const std::string& body, const std::string& query) {
    return client_->Request("PATCH", absl::StrCat(path, "?", query), body, kApply);
  }
  void CreateWidgetCrd() {
    ASSERT_EQ(client_
                  ->Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                         json::parse(kWidgetCrd))
                  .status,
              201);
  }
  static json Entry(const json& object, const std::string& manager) {
    for (const auto& e : object["metadata"].value("managedFields", json::array())) {
      if (e.value("manager", "") == manager) return e;
    }
    return nullptr;
  }

  EmulatorProcess process_{{"--kube-version", "1.34"}};
  std::unique_ptr<RawHttpClient> client_;
};

std::string ConfigMapYaml(const std::string& data) {
  return absl::StrCat("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n", data);
}

TEST_F(ServerSideApplyTest, ApplyNeedsAFieldManager) {
  RawResponse r = Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.Json()["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required "
            "for apply patch");
  EXPECT_EQ(r.Json()["details"]["causes"][0]["field"], "fieldManager");
}

TEST_F(ServerSideApplyTest, ForceOnANonApplyPatchIsForbidden) {
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=m").status, 201);
  RawResponse r = client_->Request("PATCH", absl::StrCat(kCm, "?force=true"), R"({"data":{}})",
                                   "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.Json()["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for "
            "non-apply patch");
}

TEST_F(ServerSideApplyTest, ApplyCreatesAndRecordsTheApplier) {
  RawResponse r = Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=alice");
  ASSERT_EQ(r.status, 201) << r.body;
  json cm = client_->Get(kCm).Json();
  EXPECT_EQ(cm["data"], json({{"a", "1"}}));
  ASSERT_EQ(cm["metadata"]["managedFields"].size(), 1u);
  json e = cm["metadata"]["managedFields"][0];
  EXPECT_EQ(e["manager"], "alice");
  EXPECT_EQ(e["operation"], "Apply");
  EXPECT_EQ(e["apiVersion"], "v1");
  EXPECT_EQ(e["fieldsType"], "FieldsV1");
  EXPECT_EQ(e["fieldsV1"], json::parse(R"({"f:data": {"f:a": {}}})"));
  EXPECT_THAT(e["time"].get<std::string>(),
              ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"));
  EXPECT_FALSE(e.contains("subresource"));
  // JSON bodies are YAML too.
  EXPECT_EQ(Apply("/api/v1/namespaces/default/configmaps/cm2",
                  R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm2"}})",
                  "fieldManager=alice")
                .status,
            201);
  // The same apply again changes nothing (no new resourceVersion).
  std::string rv = cm["metadata"]["resourceVersion"];
  RawResponse again = Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=alice");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.Json()["metadata"]["resourceVersion"], rv);
}

TEST_F(ServerSideApplyTest, BodyMustMatchTheRequest) {
  RawResponse wrong_version =
      Apply(kCm, "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: cm\n", "fieldManager=m");
  EXPECT_EQ(wrong_version.status, 400);
  EXPECT_EQ(wrong_version.Json()["message"], "invalid object type: /v2, Kind=ConfigMap");
  RawResponse wrong_kind =
      Apply(kCm, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cm\n", "fieldManager=m");
  EXPECT_EQ(wrong_kind.status, 400);
  EXPECT_EQ(wrong_kind.Json()["message"], "invalid object type: /v1, Kind=Secret");
  RawResponse wrong_name =
      Apply(kCm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n", "fieldManager=m");
  EXPECT_EQ(wrong_name.status, 400);
  EXPECT_EQ(wrong_name.Json()["message"],
            "the name of the object (other) does not match the name on the URL (cm)");
  RawResponse managed =
      Apply(kCm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  managedFields: [{}]\n",
            "fieldManager=m");
  EXPECT_EQ(managed.status, 400);
  EXPECT_EQ(managed.Json()["message"], "metadata.managedFields must be nil");
  RawResponse no_namespace = Apply("/api/v1/namespaces/nowhere/configmaps/cm",
                                   ConfigMapYaml("  a: \"1\"\n"), "fieldManager=m");
  EXPECT_EQ(no_namespace.status, 404);
  EXPECT_EQ(no_namespace.Json()["message"], "namespaces \"nowhere\" not found");
}

TEST_F(ServerSideApplyTest, ConflictsSharedOwnershipAndForce) {
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  a: \"1\"\n  b: \"1\"\n"), "fieldManager=alice").status,
            201);
  // Same value: shared, no conflict.
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=bob").status, 200);
  json cm = client_->Get(kCm).Json();
  EXPECT_EQ(Entry(cm, "bob")["fieldsV1"], json::parse(R"({"f:data": {"f:a": {}}})"));
  EXPECT_EQ(Entry(cm, "alice")["fieldsV1"], json::parse(R"({"f:data": {"f:a": {}, "f:b": {}}})"));
  // Another value: 409 with the fields and their owners.
  RawResponse conflict = Apply(kCm, ConfigMapYaml("  a: \"2\"\n"), "fieldManager=carol");
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  json status = conflict.Json();
  EXPECT_EQ(status["reason"], "Conflict");
  EXPECT_EQ(status["message"],
            "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .data.a\n"
            "conflicts with \"bob\":\n- .data.a");
  ASSERT_EQ(status["details"]["causes"].size(), 2u);
  EXPECT_EQ(status["details"]["causes"][0], json({{"reason", "FieldManagerConflict"},
                                                  {"message", "conflict with \"alice\""},
                                                  {"field", ".data.a"}}));
  EXPECT_EQ(client_->Get(kCm).Json()["data"]["a"], "1");
  // force=true takes the field from both.
  RawResponse forced = Apply(kCm, ConfigMapYaml("  a: \"2\"\n"), "fieldManager=carol&force=true");
  ASSERT_EQ(forced.status, 200) << forced.body;
  cm = forced.Json();
  EXPECT_EQ(cm["data"]["a"], "2");
  EXPECT_EQ(Entry(cm, "alice")["fieldsV1"], json::parse(R"({"f:data": {"f:b": {}}})"));
  EXPECT_TRUE(Entry(cm, "bob").is_null());  // nothing left: the entry is gone
  EXPECT_EQ(Entry(cm, "carol")["fieldsV1"], json::parse(R"({"f:data": {"f:a": {}}})"));
}

TEST_F(ServerSideApplyTest, FieldsNoLongerAppliedAreRemovedOrDisowned) {
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  a: \"1\"\n  b: \"1\"\n  c: \"1\"\n"), "fieldManager=alice")
                .status,
            201);
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  c: \"1\"\n"), "fieldManager=bob").status, 200);
  RawResponse r = Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=alice");
  ASSERT_EQ(r.status, 200) << r.body;
  json cm = r.Json();
  EXPECT_EQ(cm["data"], json({{"a", "1"}, {"c", "1"}}));  // b removed, c kept for bob
  EXPECT_EQ(Entry(cm, "alice")["fieldsV1"], json::parse(R"({"f:data": {"f:a": {}}})"));
}

TEST_F(ServerSideApplyTest, UpdatesAreTrackedAndConflictWithAppliers) {
  // A create and a merge patch (Update operations) by "kubectl-client-side-apply".
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "cm"}}},
             {"data", {{"a", "1"}}}};
  ASSERT_EQ(
      client_->Request("POST", "/api/v1/namespaces/default/configmaps?fieldManager=csa", cm.dump())
          .status,
      201);
  RawResponse patched = client_->Request("PATCH", absl::StrCat(kCm, "?fieldManager=csa"),
                                         R"({"data":{"b":"2"}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200);
  json e = Entry(patched.Json(), "csa");
  EXPECT_EQ(e["operation"], "Update");
  EXPECT_EQ(e["apiVersion"], "v1");
  EXPECT_EQ(e["fieldsV1"], json::parse(R"({"f:data": {".": {}, "f:a": {}, "f:b": {}}})"));
  // An applier setting another value conflicts with the updater, named with its version.
  RawResponse conflict = Apply(kCm, ConfigMapYaml("  a: \"9\"\n"), "fieldManager=ssa");
  ASSERT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.Json()["message"],
            "Apply failed with 1 conflict: conflict with \"csa\" using v1: .data.a");
  // Without fieldManager the manager comes from the User-Agent; none at all: "unknown".
  RawResponse unknown = client_->MergePatch(kCm, {{"data", {{"c", "3"}}}});
  ASSERT_EQ(unknown.status, 200);
  EXPECT_EQ(Entry(unknown.Json(), "unknown")["fieldsV1"],
            json::parse(R"({"f:data": {"f:c": {}}})"));
  // Removing a field takes it out of every set.
  RawResponse removed = client_->Request("PATCH", absl::StrCat(kCm, "?fieldManager=x"),
                                         R"({"data":{"a":null}})", "application/merge-patch+json");
  ASSERT_EQ(removed.status, 200);
  EXPECT_EQ(Entry(removed.Json(), "csa")["fieldsV1"],
            json::parse(R"({"f:data": {".": {}, "f:b": {}}})"));
  EXPECT_TRUE(Entry(removed.Json(), "x").is_null());  // it only removed: owns nothing
}

TEST_F(ServerSideApplyTest, ManagedFieldsCanBeClearedButNotDroppedByAccident) {
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=alice").status, 201);
  json cm = client_->Get(kCm).Json();
  // A PUT without managedFields keeps them (clients that do not know them cannot drop them).
  json put = cm;
  put["metadata"].erase("managedFields");
  RawResponse kept = client_->Request("PUT", absl::StrCat(kCm, "?fieldManager=p"), put.dump());
  ASSERT_EQ(kept.status, 200);
  EXPECT_FALSE(Entry(kept.Json(), "alice").is_null());
  // A valid list replaces them (what kubectl's client-side to server-side migration sends).
  json own = kept.Json();
  own["metadata"]["managedFields"] = json::parse(R"([{"manager": "mine", "operation": "Update",
      "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}])");
  RawResponse replaced = client_->Request("PUT", absl::StrCat(kCm, "?fieldManager=p"), own.dump());
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  ASSERT_EQ(replaced.Json()["metadata"]["managedFields"].size(), 1u) << replaced.body;
  EXPECT_EQ(replaced.Json()["metadata"]["managedFields"][0]["manager"], "mine");
  // An invalid list is ignored: the live entries stay.
  json bad = replaced.Json();
  bad["metadata"]["managedFields"] = json::parse(R"([{"manager": "x", "operation": "Nope"}])");
  RawResponse ignored = client_->Request("PUT", absl::StrCat(kCm, "?fieldManager=p"), bad.dump());
  ASSERT_EQ(ignored.status, 200) << ignored.body;
  EXPECT_EQ(ignored.Json()["metadata"]["managedFields"][0]["manager"], "mine");
  // [{}] clears them.
  RawResponse cleared =
      client_->MergePatch(kCm, {{"metadata", {{"managedFields", {json::object()}}}}});
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_FALSE(cleared.Json()["metadata"].contains("managedFields")) << cleared.body;
}

TEST_F(ServerSideApplyTest, WhatTheServerAddsOnCreateIsNobodys) {
  json ns = {{"apiVersion", "v1"},
             {"kind", "Namespace"},
             {"metadata", {{"name", "team"}, {"labels", {{"a", "b"}}}}}};
  RawResponse r = client_->Request("POST", "/api/v1/namespaces?fieldManager=creator", ns.dump());
  ASSERT_EQ(r.status, 201) << r.body;
  json created = r.Json();
  EXPECT_EQ(created["spec"]["finalizers"], json({"kubernetes"}));
  EXPECT_EQ(created["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");
  EXPECT_EQ(Entry(created, "creator")["fieldsV1"],
            json::parse(R"({"f:metadata": {"f:labels": {".": {}, "f:a": {}}}})"));
}

TEST_F(ServerSideApplyTest, DryRunReturnsTheWouldBeObjectAndStoresNothing) {
  ASSERT_EQ(Apply(kCm, ConfigMapYaml("  a: \"1\"\n"), "fieldManager=alice").status, 201);
  json before = client_->Get(kCm).Json();
  RawResponse dry =
      Apply(kCm, ConfigMapYaml("  a: \"2\"\n"), "fieldManager=bob&force=true&dryRun=All");
  ASSERT_EQ(dry.status, 200) << dry.body;
  EXPECT_EQ(dry.Json()["data"]["a"], "2");
  EXPECT_FALSE(Entry(dry.Json(), "bob").is_null());
  EXPECT_EQ(client_->Get(kCm).Json(), before);
  RawResponse dry_create = Apply("/api/v1/namespaces/default/configmaps/new",
                                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n",
                                 "fieldManager=alice&dryRun=All");
  EXPECT_EQ(dry_create.status, 201);
  EXPECT_EQ(client_->Get("/api/v1/namespaces/default/configmaps/new").status, 404);
}

TEST_F(ServerSideApplyTest, CustomResourceListTypesAndStatusSubresource) {
  CreateWidgetCrd();
  std::string w = absl::StrCat(kWidgets, "/w");
  const std::string head = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
  RawResponse a = Apply(w, head + R"(spec:
  size: 1
  tags: [a]
  ports: [{name: http, port: 80}]
  args: [x]
status:
  phase: Ignored
)",
                        "fieldManager=alice");
  ASSERT_EQ(a.status, 201) << a.body;
  EXPECT_FALSE(a.Json().contains("status"));  // status is reset on the main resource
  EXPECT_EQ(Entry(a.Json(), "alice")["fieldsV1"], json::parse(R"({"f:spec": {
    "f:size": {}, "f:tags": {"v:\"a\"": {}}, "f:args": {},
    "f:ports": {"k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}}}})"));
  // Another applier adds to the set and the map list; its atomic list conflicts.
  RawResponse b = Apply(w, head + R"(spec:
  tags: [b]
  ports: [{name: https, port: 443}]
)",
                        "fieldManager=bob");
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(b.Json()["spec"]["tags"], json({"a", "b"}));
  EXPECT_EQ(b.Json()["spec"]["ports"].size(), 2u);
  RawResponse c = Apply(w, head + "spec:\n  args: [y]\n", "fieldManager=bob");
  ASSERT_EQ(c.status, 409);
  EXPECT_EQ(c.Json()["details"]["causes"][0]["field"], ".spec.args");
  // alice stops applying the tag and the port: both go, bob's stay.
  RawResponse d = Apply(w, head + "spec:\n  size: 1\n  args: [x]\n", "fieldManager=alice");
  ASSERT_EQ(d.status, 200) << d.body;
  EXPECT_EQ(d.Json()["spec"]["tags"], json({"b"}));
  ASSERT_EQ(d.Json()["spec"]["ports"].size(), 1u);
  EXPECT_EQ(d.Json()["spec"]["ports"][0]["name"], "https");
  // /status: status applies, spec is ignored, the entry names the subresource.
  RawResponse s = Apply(w + "/status", head + "spec:\n  size: 7\nstatus:\n  phase: Ready\n",
                        "fieldManager=ctrl");
  ASSERT_EQ(s.status, 200) << s.body;
  EXPECT_EQ(s.Json()["status"]["phase"], "Ready");
  EXPECT_EQ(s.Json()["spec"]["size"], 1);
  json e = Entry(s.Json(), "ctrl");
  EXPECT_EQ(e["subresource"], "status");
  EXPECT_EQ(e["fieldsV1"], json::parse(R"({"f:status": {"f:phase": {}}})"));
  // A status update (merge patch on /status) is an Update with subresource status.
  RawResponse u =
      client_->Request("PATCH", w + "/status?fieldManager=ctrl2", R"({"status":{"phase":"Done"}})",
                       "application/merge-patch+json");
  ASSERT_EQ(u.status, 200);
  EXPECT_EQ(Entry(u.Json(), "ctrl2")["subresource"], "status");
  EXPECT_EQ(Entry(u.Json(), "ctrl2")["operation"], "Update");
  EXPECT_TRUE(Entry(u.Json(), "ctrl").is_null());  // it lost its only field
}

TEST(BeforeFirstApplyTest, FieldsOfAnObjectWithoutManagedFieldsBelongToBeforeFirstApply) {
  ScratchDir dir;
  dir.Write("cm.yaml", ConfigMapYaml("  a: \"1\"\n  b: \"1\"\n"));
  EmulatorProcess process({"-f", dir.File("cm.yaml")});
  ASSERT_TRUE(process.ok()) << process.Stderr();
  RawHttpClient http(process.url());
  ASSERT_FALSE(http.Get(kCm).Json()["metadata"].contains("managedFields"));  // a seed
  RawResponse conflict = http.Request("PATCH", absl::StrCat(kCm, "?fieldManager=flux"),
                                      ConfigMapYaml("  a: \"2\"\n"), kApply);
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_EQ(conflict.Json()["message"],
            "Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: .data.a");
  RawResponse same = http.Request("PATCH", absl::StrCat(kCm, "?fieldManager=flux"),
                                  ConfigMapYaml("  a: \"1\"\n"), kApply);
  ASSERT_EQ(same.status, 200) << same.body;
  json cm = same.Json();
  ASSERT_EQ(cm["metadata"]["managedFields"].size(), 2u) << cm.dump();
  EXPECT_EQ(cm["metadata"]["managedFields"][0]["manager"], "flux");
  EXPECT_EQ(cm["metadata"]["managedFields"][1]["manager"], "before-first-apply");
  EXPECT_EQ(cm["metadata"]["managedFields"][1]["operation"], "Update");
  EXPECT_EQ(cm["metadata"]["managedFields"][1]["fieldsV1"],
            json::parse(R"({"f:data": {".": {}, "f:a": {}, "f:b": {}}})"));
}

TEST_F(ServerSideApplyTest, DraObjectsRecordTheRequestVersion) {
  std::string path = "/apis/resource.k8s.io/v1/deviceclasses/gpu";
  RawResponse r = Apply(path,
                        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
                        "  name: gpu\nspec:\n  selectors:\n  - cel:\n      expression: "
                        "device.driver == \"gpu.example.com\"\n",
                        "fieldManager=gitops");
  ASSERT_EQ(r.status, 201) << r.body;
  json e = Entry(r.Json(), "gitops");
  EXPECT_EQ(e["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(e["fieldsV1"], json::parse(R"({"f:spec": {"f:selectors": {}}})"));  // atomic
}

// The project's CRDs (crds/) with a sample profile: GitOps applies the spec, the operator the
// status, each owning its part; the CRD's set and map lists merge by value and by key.
TEST(ProjectCrdApplyTest, GitOpsAppliesSpecOperatorAppliesStatus) {
  const std::string src = ::gpuprofile::testing::SourceDir();
  EmulatorProcess process({"-f", src + "/crds"});
  ASSERT_TRUE(process.ok()) << process.Stderr();
  RawHttpClient http(process.url());
  const std::string path = "/apis/gpuprofile.io/v1alpha1/gpuprofiles/light-inference";
  const std::string sample = ReadFile(src + "/config/samples/profiles/light-inference.yaml");
  auto apply = [&](const std::string& p, const std::string& body, const std::string& query) {
    return http.Request("PATCH", absl::StrCat(p, "?", query), body, kApply);
  };
  RawResponse created = apply(path, sample + "  fallback: [a]\n", "fieldManager=flux");
  ASSERT_EQ(created.status, 201) << created.body;
  json profile = created.Json();
  json flux;
  for (const auto& e : profile["metadata"]["managedFields"]) {
    if (e["manager"] == "flux") flux = e;
  }
  EXPECT_EQ(flux["operation"], "Apply");
  EXPECT_EQ(flux["apiVersion"], "gpuprofile.io/v1alpha1");
  EXPECT_EQ(flux["fieldsV1"]["f:spec"]["f:fallback"], json::parse(R"({"v:\"a\"": {}})"));
  EXPECT_TRUE(flux["fieldsV1"]["f:spec"].contains("f:description"));
  // Defaults the CRD adds are nobody's: the next identical apply changes nothing.
  std::string rv = profile["metadata"]["resourceVersion"];
  RawResponse again = apply(path, sample + "  fallback: [a]\n", "fieldManager=flux");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["metadata"]["resourceVersion"], rv);
  // fallback is a set: another manager's item is added, not a conflict.
  const std::string head =
      "apiVersion: gpuprofile.io/v1alpha1\nkind: GpuProfile\nmetadata:\n  name: light-inference\n";
  RawResponse ops = apply(path, head + "spec:\n  fallback: [b]\n", "fieldManager=ops");
  ASSERT_EQ(ops.status, 200) << ops.body;
  EXPECT_EQ(ops.Json()["spec"]["fallback"], json({"a", "b"}));
  // conditions is a map list keyed by type: two status appliers keep their own items.
  auto condition = [](const std::string& type) {
    return absl::StrCat("  - type: ", type, "\n    status: \"True\"\n    reason: R\n",
                        "    lastTransitionTime: \"2026-01-01T00:00:00Z\"\n");
  };
  RawResponse ready =
      apply(path + "/status", head + "status:\n  conditions:\n" + condition("Ready"),
            "fieldManager=gpu-profile-controller");
  ASSERT_EQ(ready.status, 200) << ready.body;
  RawResponse stalled =
      apply(path + "/status", head + "status:\n  conditions:\n" + condition("Stalled"),
            "fieldManager=other-controller");
  ASSERT_EQ(stalled.status, 200) << stalled.body;
  json after = stalled.Json();
  ASSERT_EQ(after["status"]["conditions"].size(), 2u) << after.dump();
  json controller;
  for (const auto& e : after["metadata"]["managedFields"]) {
    if (e["manager"] == "gpu-profile-controller") controller = e;
  }
  EXPECT_EQ(controller["subresource"], "status");
  EXPECT_TRUE(controller["fieldsV1"]["f:status"]["f:conditions"].contains("k:{\"type\":\"Ready\"}"))
      << after["metadata"].dump();
  EXPECT_FALSE(
      controller["fieldsV1"]["f:status"]["f:conditions"].contains("k:{\"type\":\"Stalled\"}"));
}

// --- kubectl --------------------------------------------------------------------------------

struct KubectlMode {
  std::string kube_version;
  std::string kubectl;  // the pinned binary next to the dispatcher (see kubectl_test.cc)
};

class KubectlServerSideApplyTest : public ::testing::TestWithParam<KubectlMode> {
 protected:
  void SetUp() override {
    std::string dir = KubectlDir();
    if (dir.empty()) GTEST_SKIP() << "kubectl is not installed: the kubectl tests are skipped";
    kubectl_ = dir + "/" + GetParam().kubectl;
    if (::access(kubectl_.c_str(), X_OK) != 0) GTEST_SKIP() << kubectl_ << " is not installed";
    emulator_ = std::make_unique<EmulatorProcess>(
        std::vector<std::string>{"--kube-version", GetParam().kube_version, "--kubeconfig-out",
                                 scratch_.File("kubeconfig")});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
  }
  CommandResult Kubectl(std::vector<std::string> args) {
    std::vector<std::string> argv = {kubectl_, "--kubeconfig", scratch_.File("kubeconfig"),
                                     "--cache-dir", scratch_.File("cache")};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, absl::Seconds(60));
  }
  json Get(const std::string& what) {
    CommandResult r = Kubectl({"get", what, "-o", "json", "--show-managed-fields"});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return json::parse(r.out, nullptr, false);
  }

  ScratchDir scratch_;
  std::string kubectl_;
  std::unique_ptr<EmulatorProcess> emulator_;
};

TEST_P(KubectlServerSideApplyTest, ApplyConflictsForceAndDiff) {
  scratch_.Write("cm.yaml", ConfigMapYaml("  a: \"1\"\n"));
  CommandResult created = Kubectl({"apply", "--server-side", "-f", scratch_.File("cm.yaml")});
  ASSERT_EQ(created.exit_code, 0) << created.out;
  EXPECT_THAT(created.out, HasSubstr("configmap/cm serverside-applied"));
  json cm = Get("configmap/cm");
  ASSERT_EQ(cm["metadata"]["managedFields"].size(), 1u) << cm.dump();
  EXPECT_EQ(cm["metadata"]["managedFields"][0]["manager"], "kubectl");
  EXPECT_EQ(cm["metadata"]["managedFields"][0]["operation"], "Apply");

  // diff --server-side: 0 when nothing would change, 1 with the diff otherwise.
  CommandResult same = Kubectl({"diff", "--server-side", "-f", scratch_.File("cm.yaml")});
  EXPECT_EQ(same.exit_code, 0) << same.out;
  scratch_.Write("cm2.yaml", ConfigMapYaml("  a: \"2\"\n"));
  CommandResult differs =
      Kubectl({"diff", "--server-side", "--force-conflicts", "-f", scratch_.File("cm2.yaml")});
  EXPECT_EQ(differs.exit_code, 1) << differs.out;
  EXPECT_THAT(differs.out, HasSubstr("+  a: \"2\""));
  EXPECT_EQ(Get("configmap/cm")["data"]["a"], "1");  // diff is a dry run

  // Another manager: conflict, then --force-conflicts.
  CommandResult conflict = Kubectl(
      {"apply", "--server-side", "--field-manager", "other", "-f", scratch_.File("cm2.yaml")});
  EXPECT_NE(conflict.exit_code, 0);
  EXPECT_THAT(conflict.out, HasSubstr("conflict with \"kubectl\""));
  EXPECT_THAT(conflict.out, HasSubstr(".data.a"));
  CommandResult forced = Kubectl({"apply", "--server-side", "--field-manager", "other",
                                  "--force-conflicts", "-f", scratch_.File("cm2.yaml")});
  ASSERT_EQ(forced.exit_code, 0) << forced.out;
  cm = Get("configmap/cm");
  EXPECT_EQ(cm["data"]["a"], "2");
  ASSERT_EQ(cm["metadata"]["managedFields"].size(), 1u) << cm.dump();
  EXPECT_EQ(cm["metadata"]["managedFields"][0]["manager"], "other");
}

TEST_P(KubectlServerSideApplyTest, ClientSideApplyThenServerSideTakesOver) {
  scratch_.Write("cm.yaml", ConfigMapYaml("  a: \"1\"\n"));
  CommandResult csa = Kubectl({"apply", "-f", scratch_.File("cm.yaml")});
  ASSERT_EQ(csa.exit_code, 0) << csa.out;
  json cm = Get("configmap/cm");
  json entry;
  for (const auto& e : cm["metadata"]["managedFields"]) {
    if (e["manager"] == "kubectl-client-side-apply") entry = e;
  }
  ASSERT_FALSE(entry.is_null()) << cm.dump();
  EXPECT_EQ(entry["operation"], "Update");
  // A server-side apply of another value by another manager conflicts with the client-side one.
  scratch_.Write("cm2.yaml", ConfigMapYaml("  a: \"2\"\n"));
  CommandResult conflict = Kubectl(
      {"apply", "--server-side", "--field-manager", "flux", "-f", scratch_.File("cm2.yaml")});
  EXPECT_NE(conflict.exit_code, 0);
  EXPECT_THAT(conflict.out, HasSubstr("conflict with \"kubectl-client-side-apply\" using v1"));
  // kubectl's own server-side apply of the same file takes over: kubectl migrates the
  // client-side entry to its "kubectl" applier.
  CommandResult ssa = Kubectl({"apply", "--server-side", "-f", scratch_.File("cm.yaml")});
  ASSERT_EQ(ssa.exit_code, 0) << ssa.out;
  cm = Get("configmap/cm");
  std::vector<std::string> managers;
  for (const auto& e : cm["metadata"]["managedFields"]) {
    managers.push_back(
        absl::StrCat(e["manager"].get<std::string>(), "/", e["operation"].get<std::string>()));
  }
  EXPECT_THAT(managers, ::testing::Contains("kubectl/Apply")) << cm.dump();
  EXPECT_THAT(managers, Not(::testing::Contains("kubectl-client-side-apply/Update"))) << cm.dump();
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlServerSideApplyTest,
                         ::testing::Values(KubectlMode{"1.32", "kubectl.1.32"},
                                           KubectlMode{"1.34", "kubectl.1.33"}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.kubectl;
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace server_side_apply_test
}  // namespace gpuprofile::e2e::testing
