// File: e2e/tests/field_set_test.cc
// kube-emulator's field manager in process (no server): the fieldsV1 codec, field sets of
// objects per list type (map, set, atomic) and map type, server-side apply (ownership, shared
// ownership, conflicts, force, removal of fields no longer applied) and the ownership changes of
// Update operations, as the Kubernetes server-side apply documentation describes them.
#include "e2e/emulator/field_set.h"

#include <string>
#include <vector>

#include "e2e/emulator/list_schema.h"
#include "e2e/emulator/server_side_apply.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::e2e {
namespace field_set_test {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

FieldManagerOperation Op(const std::string& manager, const std::string& time = "t1") {
  FieldManagerOperation op;
  op.manager = manager;
  op.api_version = "v1";
  op.time = time;
  return op;
}

const ManagedFieldsEntry* Find(const ManagedFields& m, const std::string& manager) {
  for (const auto& e : m) {
    if (e.manager == manager) return &e;
  }
  return nullptr;
}

const TypeNode& ConfigMapType() { return BuiltinSchema("", "ConfigMap")->root(); }
const TypeNode& DeploymentType() { return BuiltinSchema("apps", "Deployment")->root(); }

TEST(FieldSetTest, FieldsV1RoundTripKeepsMembersAndChildren) {
  json fields = json::parse(R"({
    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
    "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}},
               "f:finalizers": {"v:\"a\"": {}}, "f:list": {"i:0": {}}}
  })");
  absl::StatusOr<FieldSet> set = FieldSet::FromFieldsV1(fields);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->ToFieldsV1(), fields);
  EXPECT_TRUE(set->Has({"f:metadata", "f:labels"}));
  EXPECT_FALSE(set->Has({"f:metadata"}));
  EXPECT_TRUE(set->Has({"f:spec", "f:containers", "k:{\"name\":\"c\"}", "f:image"}));
  EXPECT_EQ(set->MemberCount(), 6u);
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"({"x:y": {}})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::array()).ok());
}

TEST(FieldSetTest, PathStringAsStructuredMergeDiffPrintsIt) {
  EXPECT_EQ(PathString({"f:spec", "f:containers", KeyElement({{"name", "c"}}), "f:image"}),
            ".spec.containers[name=\"c\"].image");
  EXPECT_EQ(PathString({"f:spec", "f:ports", KeyElement({{"protocol", "TCP"}, {"port", 80}})}),
            ".spec.ports[port=80,protocol=\"TCP\"]");
  EXPECT_EQ(PathString({"f:metadata", "f:finalizers", ValueElement("x")}),
            ".metadata.finalizers[=\"x\"]");
  EXPECT_EQ(PathString({"f:spec", "f:args", IndexElement(2)}), ".spec.args[2]");
}

TEST(FieldSetTest, SetOperations) {
  FieldSet a;
  a.Insert({"f:spec", "f:x"});
  a.Insert({"f:spec", "f:y"});
  FieldSet b;
  b.Insert({"f:spec", "f:y"});
  b.Insert({"f:spec", "f:z"});
  EXPECT_EQ(a.Intersection(b).MemberCount(), 1u);
  EXPECT_TRUE(a.Intersection(b).Has({"f:spec", "f:y"}));
  EXPECT_TRUE(a.Difference(b).Has({"f:spec", "f:x"}));
  EXPECT_FALSE(a.Difference(b).Has({"f:spec", "f:y"}));
  FieldSet spec;
  spec.Insert({"f:spec"});
  EXPECT_FALSE(a.Difference(spec).Empty());          // only the member spec goes
  EXPECT_TRUE(a.RecursiveDifference(spec).Empty());  // spec and everything under it
}

TEST(ToFieldSetTest, DeploymentListsByKeyAndAtomicSelector) {
  json d = json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "d", "labels": {"app": "a"}},
    "spec": {"replicas": 2,
             "selector": {"matchLabels": {"app": "a"}},
             "template": {"spec": {"containers": [
               {"name": "c", "image": "i", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "args": ["a", "b"]}]}}}
  })");
  FieldSet set = ToFieldSet(d, DeploymentType()).Difference(StrippedFields());
  json want = json::parse(R"({
    "f:metadata": {"f:labels": {"f:app": {}}},
    "f:spec": {"f:replicas": {}, "f:selector": {},
      "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {
        ".": {}, "f:name": {}, "f:image": {}, "f:args": {},
        "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {
          ".": {}, "f:containerPort": {}, "f:protocol": {}}}}}}}}
  })");
  EXPECT_EQ(set.ToFieldsV1(), want);
}

TEST(ToFieldSetTest, CustomResourceSchemaListTypes) {
  json schema = json::parse(R"({
    "type": "object",
    "properties": {"spec": {"type": "object", "properties": {
      "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                            "port": {"type": "integer"}}}},
      "args": {"type": "array", "items": {"type": "string"}},
      "limits": {"type": "object", "additionalProperties": {"type": "string"}},
      "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                   "additionalProperties": {"type": "string"}}}}}
  })");
  auto s = CustomResourceSchema(schema);
  json obj = json::parse(R"({"spec": {"tags": ["a"], "ports": [{"name": "p", "port": 1}],
    "args": ["x"], "limits": {"cpu": "1"}, "selector": {"k": "v"}}})");
  json want = json::parse(R"({"f:spec": {
    "f:tags": {"v:\"a\"": {}},
    "f:ports": {"k:{\"name\":\"p\"}": {".": {}, "f:name": {}, "f:port": {}}},
    "f:args": {}, "f:limits": {"f:cpu": {}}, "f:selector": {}}})");
  EXPECT_EQ(ToFieldSet(obj, s->root()).ToFieldsV1(), want);
}

json ConfigMap(json data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "cm"}}},
          {"data", std::move(data)}};
}

TEST(ApplyTest, FirstApplyOwnsWhatItSets) {
  ApplyOutcome r =
      Apply(json::object(), ConfigMap({{"a", "1"}}), {}, ConfigMapType(), Op("alice"), false);
  ASSERT_TRUE(r.conflicts.empty());
  EXPECT_EQ(r.object["data"], json({{"a", "1"}}));
  ASSERT_EQ(r.managers.size(), 1u);
  EXPECT_EQ(r.managers[0].operation, "Apply");
  EXPECT_EQ(r.managers[0].fields.ToFieldsV1(), json::parse(R"({"f:data": {"f:a": {}}})"));
}

TEST(ApplyTest, SameValueIsSharedDifferentValueConflictsForceTakes) {
  ApplyOutcome first = Apply(json::object(), ConfigMap({{"a", "1"}, {"b", "1"}}), {},
                             ConfigMapType(), Op("alice"), false);
  // Same value: no conflict, both own data.a.
  ApplyOutcome shared = Apply(first.object, ConfigMap({{"a", "1"}}), first.managers,
                              ConfigMapType(), Op("bob"), false);
  ASSERT_TRUE(shared.conflicts.empty());
  EXPECT_TRUE(Find(shared.managers, "alice")->fields.Has({"f:data", "f:a"}));
  EXPECT_TRUE(Find(shared.managers, "bob")->fields.Has({"f:data", "f:a"}));
  // A different value conflicts with every owner, and nothing changes.
  ApplyOutcome conflict = Apply(shared.object, ConfigMap({{"b", "2"}}), shared.managers,
                                ConfigMapType(), Op("carol"), false);
  ASSERT_EQ(conflict.conflicts.size(), 1u);
  EXPECT_EQ(conflict.conflicts[0].manager, "\"alice\"");
  EXPECT_EQ(PathString(conflict.conflicts[0].path), ".data.b");
  EXPECT_EQ(ConflictMessage(conflict.conflicts),
            "Apply failed with 1 conflict: conflict with \"alice\": .data.b");
  // Force: carol takes data.b from alice.
  ApplyOutcome forced = Apply(shared.object, ConfigMap({{"b", "2"}}), shared.managers,
                              ConfigMapType(), Op("carol", "t2"), true);
  ASSERT_TRUE(forced.conflicts.empty());
  EXPECT_EQ(forced.object["data"]["b"], "2");
  EXPECT_FALSE(Find(forced.managers, "alice")->fields.Has({"f:data", "f:b"}));
  EXPECT_EQ(Find(forced.managers, "alice")->time, "t2");  // its set changed
  EXPECT_TRUE(Find(forced.managers, "carol")->fields.Has({"f:data", "f:b"}));
}

TEST(ApplyTest, ConflictsWithSeveralManagersAreListedPerManager) {
  ManagedFields m;
  ApplyOutcome a =
      Apply(json::object(), ConfigMap({{"a", "1"}}), m, ConfigMapType(), Op("alice"), false);
  ApplyOutcome b =
      Apply(a.object, ConfigMap({{"b", "1"}}), a.managers, ConfigMapType(), Op("bob"), false);
  ApplyOutcome c = Apply(b.object, ConfigMap({{"a", "2"}, {"b", "2"}}), b.managers, ConfigMapType(),
                         Op("carol"), false);
  ASSERT_EQ(c.conflicts.size(), 2u);
  EXPECT_EQ(ConflictMessage(c.conflicts),
            "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .data.a\n"
            "conflicts with \"bob\":\n- .data.b");
}

TEST(ApplyTest, FieldsNoLongerAppliedAreRemovedUnlessSomeoneElseOwnsThem) {
  ApplyOutcome a = Apply(json::object(), ConfigMap({{"a", "1"}, {"b", "1"}, {"c", "1"}}), {},
                         ConfigMapType(), Op("alice"), false);
  ApplyOutcome b =
      Apply(a.object, ConfigMap({{"c", "1"}}), a.managers, ConfigMapType(), Op("bob"), false);
  // alice drops b (nobody else owns it: removed) and c (bob owns it too: only disowned).
  ApplyOutcome again = Apply(b.object, ConfigMap({{"a", "1"}}), b.managers, ConfigMapType(),
                             Op("alice", "t2"), false);
  ASSERT_TRUE(again.conflicts.empty());
  EXPECT_EQ(again.object["data"], json({{"a", "1"}, {"c", "1"}}));
  EXPECT_FALSE(Find(again.managers, "alice")->fields.Has({"f:data", "f:c"}));
  EXPECT_TRUE(Find(again.managers, "bob")->fields.Has({"f:data", "f:c"}));
}

TEST(ApplyTest, ApplyingNothingDropsTheEntry) {
  ApplyOutcome a =
      Apply(json::object(), ConfigMap({{"a", "1"}}), {}, ConfigMapType(), Op("alice"), false);
  json empty = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "cm"}}}};
  ApplyOutcome none = Apply(a.object, empty, a.managers, ConfigMapType(), Op("alice"), false);
  EXPECT_FALSE(none.object.contains("data") && none.object["data"].contains("a"));
  EXPECT_EQ(Find(none.managers, "alice"), nullptr);
}

TEST(ApplyTest, MapListsMergeByKeySetsByValueAtomicListsAreReplaced) {
  auto deployment = [](json containers, json finalizers) {
    return json{{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata", {{"name", "d"}, {"finalizers", std::move(finalizers)}}},
                {"spec", {{"template", {{"spec", {{"containers", std::move(containers)}}}}}}}};
  };
  json first =
      deployment(json::parse(R"([{"name": "a", "image": "1", "args": ["x", "y"]}])"), {"f1"});
  ApplyOutcome a = Apply(json::object(), first, {}, DeploymentType(), Op("alice"), false);
  json second = deployment(json::parse(R"([{"name": "b", "image": "2"}])"), {"f2"});
  ApplyOutcome b = Apply(a.object, second, a.managers, DeploymentType(), Op("bob"), false);
  ASSERT_TRUE(b.conflicts.empty());
  const json& containers = b.object["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "a");
  EXPECT_EQ(containers[1]["name"], "b");
  EXPECT_EQ(b.object["metadata"]["finalizers"], json({"f1", "f2"}));
  // args is atomic: a different list is a conflict on the whole list.
  json third = deployment(json::parse(R"([{"name": "a", "args": ["z"]}])"), json::array());
  ApplyOutcome c = Apply(b.object, third, b.managers, DeploymentType(), Op("carol"), false);
  ASSERT_EQ(c.conflicts.size(), 1u);
  EXPECT_EQ(PathString(c.conflicts[0].path), ".spec.template.spec.containers[name=\"a\"].args");
  // Force replaces the atomic list as a whole.
  ApplyOutcome d = Apply(b.object, third, b.managers, DeploymentType(), Op("carol"), true);
  EXPECT_EQ(d.object["spec"]["template"]["spec"]["containers"][0]["args"], json({"z"}));
}

TEST(ApplyTest, ResetFieldsAreNeitherAppliedNorOwned) {
  FieldManagerOperation op = Op("alice");
  op.reset.Insert({"f:status"});
  json config = {{"apiVersion", "v1"},
                 {"kind", "X"},
                 {"metadata", {{"name", "x"}}},
                 {"spec", {{"a", 1}}},
                 {"status", {{"s", 1}}}};
  json live = {{"status", {{"s", 0}}}};
  ApplyOutcome r = Apply(live, config, {}, DefaultType(), op, false);
  EXPECT_EQ(r.object["status"]["s"], 0);
  EXPECT_EQ(Find(r.managers, "alice")->fields.ToFieldsV1(),
            json::parse(R"({"f:spec": {"f:a": {}}})"));
}

TEST(TrackUpdateTest, WriterGainsChangesOthersLoseThemRemovedFieldsLeaveAllSets) {
  ApplyOutcome a = Apply(json::object(), ConfigMap({{"a", "1"}, {"b", "1"}}), {}, ConfigMapType(),
                         Op("alice"), false);
  json updated = a.object;
  updated["data"]["a"] = "2";  // modified
  updated["data"].erase("b");  // removed
  updated["data"]["c"] = "3";  // added
  ManagedFields m = TrackUpdate(a.managers, a.object, updated, ConfigMapType(), Op("kubectl"));
  // alice lost a (changed by kubectl) and b (removed): her entry is empty and dropped.
  EXPECT_EQ(Find(m, "alice"), nullptr);
  const ManagedFieldsEntry* k = Find(m, "kubectl");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->operation, "Update");
  EXPECT_EQ(k->fields.ToFieldsV1(), json::parse(R"({"f:data": {"f:a": {}, "f:c": {}}})"));
  // Creating records every added node, maps included (".").
  json created = {{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", {{"name", "cm"}, {"uid", "u"}, {"labels", {{"x", "y"}}}}},
                  {"data", {{"k", "v"}}}};
  ManagedFields c = TrackUpdate({}, json::object(), created, ConfigMapType(), Op("creator"));
  EXPECT_EQ(c[0].fields.ToFieldsV1(), json::parse(R"({"f:data": {".": {}, "f:k": {}},
                            "f:metadata": {"f:labels": {".": {}, "f:x": {}}}})"));
}

TEST(ManagedFieldsTest, EncodeSortsAndDecodeValidates) {
  ManagedFields m;
  ManagedFieldsEntry u{"b", "Update", "v1", "2026-01-01T00:00:00Z", "status", {}};
  u.fields.Insert({"f:status"});
  ManagedFieldsEntry a{"z", "Apply", "v1", "2026-01-02T00:00:00Z", "", {}};
  a.fields.Insert({"f:spec"});
  m = {u, a};
  json encoded = EncodeManagedFields(m);
  ASSERT_EQ(encoded.size(), 2u);
  EXPECT_EQ(encoded[0]["operation"], "Apply");  // Apply sorts before Update
  EXPECT_EQ(encoded[1]["subresource"], "status");
  EXPECT_FALSE(encoded[0].contains("subresource"));
  EXPECT_EQ(encoded[0]["fieldsType"], "FieldsV1");
  absl::StatusOr<ManagedFields> back = DecodeManagedFields(encoded);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->size(), 2u);
  EXPECT_FALSE(
      DecodeManagedFields(json::parse(R"([{"manager": "x", "operation": "Apply"}])")).ok());
  EXPECT_TRUE(IsResetManagedFields(json::parse("[{}]")));
  EXPECT_TRUE(IsResetManagedFields(json::array()));
  EXPECT_FALSE(IsResetManagedFields(encoded));
  EXPECT_TRUE(EncodeManagedFields({}).is_null());
}

TEST(ManagedFieldsTest, ManagerIdentityAndDescription) {
  ManagedFieldsEntry apply1{"m", "Apply", "v1", "", "", {}};
  ManagedFieldsEntry apply2{"m", "Apply", "v2", "", "", {}};
  ManagedFieldsEntry update1{"m", "Update", "v1", "", "", {}};
  ManagedFieldsEntry update2{"m", "Update", "v2", "", "", {}};
  ManagedFieldsEntry status{"m", "Update", "v1", "", "status", {}};
  EXPECT_TRUE(apply1.SameManager(apply2));  // an applier is one entry whatever its version
  EXPECT_FALSE(update1.SameManager(update2));
  EXPECT_FALSE(update1.SameManager(status));
  EXPECT_FALSE(apply1.SameManager(update1));
  EXPECT_EQ(apply1.Describe(), "\"m\"");
  EXPECT_EQ(update1.Describe(), "\"m\" using v1");
  EXPECT_EQ(status.Describe(), "\"m\" with subresource \"status\" using v1");
}

TEST(ManagedFieldsTest, ManagerFromUserAgent) {
  EXPECT_EQ(ManagerFromUserAgent("kubectl/v1.32.1 (linux/amd64) kubernetes/abc"), "kubectl");
  EXPECT_EQ(ManagerFromUserAgent("gpu-profile-controller"), "gpu-profile-controller");
  EXPECT_EQ(ManagerFromUserAgent(""), "");
  EXPECT_EQ(ManagerFromUserAgent(std::string(200, 'a')).size(), 128u);
}

}  // namespace
}  // namespace field_set_test
}  // namespace gpuprofile::e2e
