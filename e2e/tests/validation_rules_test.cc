// File: e2e/tests/validation_rules_test.cc
// x-kubernetes-validations (CEL rules in CRD schemas) through the emulator: the project's CRDs
// (crds/) accept the sample profiles (config/samples/profiles) and refuse objects that break
// their rules with kube-apiserver's wording; and a test CRD covers oldSelf transition rules,
// messageExpression, fieldPath, reason, ratcheting, blocking schema errors and rules the CEL
// engine cannot compile.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/tests/raw_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::e2e::testing {
namespace validation_rules_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

const char kProfiles[] = "/apis/gpuprofile.io/v1alpha1/gpuprofiles";
const char kWidgets[] = "/apis/example.com/v1/namespaces/default/widgets";

std::string Source(const std::string& relative) {
  return absl::StrCat(::gpuprofile::testing::SourceDir(), "/", relative);
}

json Profile(const std::string& name, json spec) {
  return {{"apiVersion", "gpuprofile.io/v1alpha1"},
          {"kind", "GpuProfile"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

// The emulator seeded with the project's CRDs, the sample namespaces and profiles: seeding
// goes through the same admission as a create, so it starting at all means every sample passed
// the CRDs' rules.
class ProjectCrds : public ::testing::Test {
 protected:
  ProjectCrds()
      : process_({"-f", Source("crds"), "-f", Source("config/samples/namespaces.yaml"), "-f",
                  Source("config/samples/profiles")}),
        http_(process_.ok() ? process_.url() : "http://127.0.0.1:1") {}
  EmulatorProcess process_;
  RawHttpClient http_;
};

TEST_F(ProjectCrds, SampleProfilesAreAccepted) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  RawResponse list = http_.Get(kProfiles);
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json()["items"].size(), 4u) << list.body;
  // And again through the API: delete one and create it from what was stored.
  RawResponse got = http_.Get(absl::StrCat(kProfiles, "/large-memory"));
  ASSERT_EQ(got.status, 200);
  json profile = got.Json();
  ASSERT_EQ(http_.Delete(absl::StrCat(kProfiles, "/large-memory")).status, 200);
  profile["metadata"] = {{"name", "large-memory"}};
  RawResponse created = http_.Post(kProfiles, profile);
  EXPECT_EQ(created.status, 201) << created.body;
}

TEST_F(ProjectCrds, SpecRuleFailsWithKubeApiserverWording) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  RawResponse r = http_.Post(
      kProfiles, Profile("all-with-count", {{"allocationMode", "All"},
                                            {"count", 2},
                                            {"claimTemplate", {{"namespaces", {"batch"}}}}}));
  ASSERT_EQ(r.status, 422) << r.body;
  json status = r.Json();
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["message"],
            "GpuProfile.gpuprofile.io \"all-with-count\" is invalid: spec: Invalid value: "
            "\"object\": count must not be set when allocationMode is All");
  ASSERT_EQ(status["details"]["causes"].size(), 1u) << r.body;
  EXPECT_EQ(status["details"]["causes"][0]["field"], "spec");
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldValueInvalid");
  EXPECT_EQ(status["details"]["causes"][0]["message"],
            "Invalid value: \"object\": count must not be set when allocationMode is All");
}

TEST_F(ProjectCrds, ListItemRulesNameTheItem) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  json spec = {{"selector",
                {{"attributes",
                  {{{"name", "model"}, {"operator", "In"}, {"values", {"H100"}}},
                   {{"name", "mig"}, {"operator", "Exists"}, {"values", {"x"}}},
                   {{"name", "cores"}, {"operator", "Gt"}, {"values", {8}}}}},
                 {"capacity", {{{"name", "sm"}}}}}},
               {"claimTemplate", {{"namespaces", {"batch"}}}}};
  RawResponse r = http_.Post(kProfiles, Profile("bad-terms", spec));
  ASSERT_EQ(r.status, 422) << r.body;
  std::string message = r.Json()["message"];
  EXPECT_EQ(message,
            "GpuProfile.gpuprofile.io \"bad-terms\" is invalid: ["
            "spec.selector.attributes[1]: Invalid value: \"object\": values must be empty for "
            "Exists and DoesNotExist, "
            "spec.selector.attributes[2]: Invalid value: \"object\": Gt, Ge, Lt and Le need "
            "valueType Int or Version, "
            "spec.selector.capacity[0]: Invalid value: \"object\": set min, max or both]");
  // Fixed, it is accepted.
  spec["selector"]["attributes"][1].erase("values");
  spec["selector"]["attributes"][2]["valueType"] = "Int";
  spec["selector"]["capacity"][0]["min"] = 100;
  RawResponse ok = http_.Post(kProfiles, Profile("bad-terms", spec));
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST_F(ProjectCrds, RootRuleSeesMetadataName) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  // A valid DNS subdomain (so metadata validation passes) that is not a DNS label.
  RawResponse r =
      http_.Post(kProfiles, Profile("team.a", {{"claimTemplate", {{"namespaces", {"batch"}}}}}));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.Json()["message"],
            "GpuProfile.gpuprofile.io \"team.a\" is invalid: <nil>: Invalid value: \"object\": "
            "GpuProfile names must be DNS labels (at most 63 characters)");
  EXPECT_EQ(r.Json()["details"]["causes"][0]["field"], "<nil>");
}

TEST_F(ProjectCrds, UpdateAndPatchAreChecked) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  std::string path = absl::StrCat(kProfiles, "/large-memory");
  RawResponse patched =
      http_.MergePatch(path, {{"spec", {{"allocationMode", "All"}, {"count", 3}}}});
  ASSERT_EQ(patched.status, 422) << patched.body;
  EXPECT_THAT(patched.Json()["message"].get<std::string>(),
              HasSubstr("spec: Invalid value: \"object\": count must not be set when "
                        "allocationMode is All"));
  json profile = http_.Get(path).Json();
  profile["spec"]["allocationMode"] = "All";
  profile["spec"]["count"] = 2;
  RawResponse updated = http_.Put(path, profile);
  EXPECT_EQ(updated.status, 422) << updated.body;
  profile["spec"].erase("count");
  updated = http_.Put(path, profile);
  EXPECT_EQ(updated.status, 200) << updated.body;
}

TEST_F(ProjectCrds, SchemaErrorsThatBlockTheRules) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  RawResponse r = http_.Post(
      kProfiles, Profile("typed", {{"count", "two"}, {"claimTemplate", {{"namespaces", {"b"}}}}}));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(r.Json()["message"].get<std::string>(),
              HasSubstr("<nil>: Invalid value: \"null\": some validation rules were not checked "
                        "because the object was invalid; correct the existing errors to complete "
                        "validation"));
}

json WidgetCrd(json spec_rules) {
  json spec_schema = {
      {"type", "object"},
      {"properties",
       {{"id",
         {{"type", "string"},
          {"x-kubernetes-validations",
           {{{"rule", "self == oldSelf"}, {"message", "id is immutable"}}}}}},
        {"low", {{"type", "integer"}}},
        {"high", {{"type", "integer"}}},
        {"ratio", {{"type", "number"}}},
        {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"limits", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}}}},
      {"x-kubernetes-validations", std::move(spec_rules)}};
  json root = {{"type", "object"},
               {"properties", {{"spec", spec_schema}, {"metadata", {{"type", "object"}}}}}};
  json version = {
      {"name", "v1"}, {"served", true}, {"storage", true}, {"schema", {{"openAPIV3Schema", root}}}};
  json names = {{"plural", "widgets"},
                {"singular", "widget"},
                {"kind", "Widget"},
                {"listKind", "WidgetList"}};
  json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "widgets.example.com"}}}};
  crd["spec"] = {{"group", "example.com"}, {"scope", "Namespaced"}, {"names", names}};
  crd["spec"]["versions"] = json::array({version});
  return crd;
}

json Widget(const std::string& name, json spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

class WidgetRules : public ::testing::Test {
 protected:
  WidgetRules() : http_(process_.ok() ? process_.url() : "http://127.0.0.1:1") {}
  void Register(json rules) {
    RawResponse r = http_.Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                               WidgetCrd(std::move(rules)));
    ASSERT_EQ(r.status, 201) << r.body;
  }
  EmulatorProcess process_{std::vector<std::string>{}};
  RawHttpClient http_;
};

TEST_F(WidgetRules, TransitionRulesRunOnUpdateOnly) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  Register(json::array());
  RawResponse created = http_.Post(kWidgets, Widget("w", {{"id", "a"}}));
  ASSERT_EQ(created.status, 201) << created.body;  // oldSelf rules are skipped on create
  RawResponse changed = http_.MergePatch(absl::StrCat(kWidgets, "/w"), {{"spec", {{"id", "b"}}}});
  ASSERT_EQ(changed.status, 422) << changed.body;
  EXPECT_EQ(changed.Json()["message"],
            "Widget.example.com \"w\" is invalid: spec.id: Invalid value: \"string\": id is "
            "immutable");
  RawResponse same =
      http_.MergePatch(absl::StrCat(kWidgets, "/w"), {{"spec", {{"id", "a"}, {"low", 1}}}});
  EXPECT_EQ(same.status, 200) << same.body;
}

TEST_F(WidgetRules, MessageExpressionFieldPathAndReason) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  Register({{{"rule", "!has(self.low) || !has(self.high) || self.low <= self.high"},
             {"messageExpression", "'low (' + string(self.low) + ') exceeds high'"},
             {"fieldPath", ".low"},
             {"reason", "FieldValueForbidden"}},
            {{"rule", "!has(self.tags) || self.tags.all(t, t.startsWith('x-'))"}},
            {{"rule", "!has(self.limits) || self.limits.all(k, self.limits[k] < 10)"},
             {"message", "limits must stay under 10"},
             {"fieldPath", ".limits"},
             {"reason", "FieldValueRequired"}},
            {{"rule", "!has(self.ratio) || self.ratio < 1.0"}, {"message", "ratio"}}});
  RawResponse r = http_.Post(kWidgets, Widget("w", {{"low", 5},
                                                    {"high", 1},
                                                    {"tags", {"x-a", "b"}},
                                                    {"limits", {{"gpu", 12}}},
                                                    {"ratio", 1}}));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.Json()["message"],
            "Widget.example.com \"w\" is invalid: ["
            "spec.low: Forbidden: low (5) exceeds high, "
            "spec: Invalid value: \"object\": failed rule: !has(self.tags) || "
            "self.tags.all(t, t.startsWith('x-')), "
            "spec.limits: Required value: limits must stay under 10, "
            "spec: Invalid value: \"object\": ratio]");
  json causes = r.Json()["details"]["causes"];
  ASSERT_EQ(causes.size(), 4u);
  EXPECT_EQ(causes[0]["reason"], "FieldValueForbidden");
  EXPECT_EQ(causes[0]["field"], "spec.low");
  EXPECT_EQ(causes[2]["reason"], "FieldValueRequired");
  RawResponse ok = http_.Post(
      kWidgets,
      Widget(
          "w",
          {{"low", 1}, {"high", 5}, {"tags", {"x-a"}}, {"limits", {{"gpu", 2}}}, {"ratio", 0.5}}));
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST_F(WidgetRules, RuntimeErrorsAndRulesTheEngineCannotCompile) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  Register({{{"rule", "self.low > 0"}, {"message", "low must be positive"}},
            {{"rule", "self.low >"}}});  // does not compile: skipped, logged once
  RawResponse r = http_.Post(kWidgets, Widget("w", {{"high", 1}}));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.Json()["message"],
            "Widget.example.com \"w\" is invalid: spec: Invalid value: \"object\": no such key: "
            "low evaluating rule: low must be positive");
  RawResponse ok = http_.Post(kWidgets, Widget("w", {{"low", 1}}));
  EXPECT_EQ(ok.status, 201) << ok.body;
  EXPECT_THAT(process_.Stderr(), HasSubstr("skipping rule"));
}

TEST_F(WidgetRules, UnchangedValuesRatchet) {
  ASSERT_TRUE(process_.ok()) << process_.Stderr();
  Register(json::array());
  ASSERT_EQ(http_.Post(kWidgets, Widget("w", {{"low", 5}, {"high", 1}})).status, 201);
  // A rule added later: the stored object breaks it.
  std::string crd_path =
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
  json crd = http_.Get(crd_path).Json();
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
     ["x-kubernetes-validations"] = {
         {{"rule", "self.low <= self.high"}, {"message", "low > high"}}};
  ASSERT_EQ(http_.Put(crd_path, crd).status, 200);
  // Changing something else: the unchanged spec is only warned about.
  RawResponse labels =
      http_.MergePatch(absl::StrCat(kWidgets, "/w"), {{"metadata", {{"labels", {{"a", "b"}}}}}});
  ASSERT_EQ(labels.status, 200) << labels.body;
  EXPECT_THAT(labels.Header("warning"), HasSubstr("low > high"));
  // Changing the spec without fixing it is refused.
  RawResponse spec = http_.MergePatch(absl::StrCat(kWidgets, "/w"), {{"spec", {{"low", 4}}}});
  EXPECT_EQ(spec.status, 422) << spec.body;
}

}  // namespace
}  // namespace validation_rules_test
}  // namespace gpuprofile::e2e::testing
