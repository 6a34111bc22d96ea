// File: test/meta/resource_quota_codec_test.cc
#include "controller/meta/resource_quota_codec.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::meta {
namespace resource_quota_codec_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

json Parse(const std::string& text) {
  json out = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(out.is_discarded()) << "bad JSON literal in test:\n" << text;
  return out;
}

Quantity Q(const char* text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text;
  return q.value_or(Quantity());
}

OwnerReference ProfileOwner() {
  OwnerReference ref;
  ref.api_version = "gpuprofile.io/v1alpha1";
  ref.kind = "GpuProfile";
  ref.name = "large-mem";
  ref.uid = "6f0c1c7e-0000-4000-8000-000000000001";
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

ResourceQuota SampleQuota() {
  ResourceQuota q;
  q.metadata.name = "gpuprofile-large-mem";
  q.metadata.namespace_name = "ml-train";
  q.metadata.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                       {"gpuprofile.io/profile", "large-mem"}};
  q.metadata.owner_references = {ProfileOwner()};
  q.hard = {{"gpuprofile-large-mem.deviceclass.resource.k8s.io/devices", Q("4")},
            {"requests.example.com/large-mem", Q("4")}};
  return q;
}

TEST(EncodeResourceQuotaTest, RenderMode) {
  ResourceQuota q = SampleQuota();
  q.metadata.uid = "u-1";
  q.metadata.resource_version = "7";
  q.hard["requests.example.com/memory"] = Q("1.5Gi");
  EXPECT_EQ(EncodeResourceQuota(q, false).dump(2), ordered_json::parse(R"({
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {
      "name": "gpuprofile-large-mem",
      "namespace": "ml-train",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"}
    },
    "spec": {"hard": {"gpuprofile-large-mem.deviceclass.resource.k8s.io/devices": "4",
                      "requests.example.com/large-mem": "4",
                      "requests.example.com/memory": "1536Mi"}}
  })")
                                                       .dump(2));
}

TEST(EncodeResourceQuotaTest, ServerFieldsAndEmptyHard) {
  ResourceQuota q = SampleQuota();
  q.metadata.uid = "u-1";
  q.metadata.resource_version = "7";
  q.hard.clear();
  q.has_scopes = true;  // never written
  EXPECT_EQ(EncodeResourceQuota(q, true).dump(), ordered_json::parse(R"({
    "apiVersion": "v1", "kind": "ResourceQuota",
    "metadata": {
      "name": "gpuprofile-large-mem", "namespace": "ml-train",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"},
      "ownerReferences": [{"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
                           "name": "large-mem", "uid": "6f0c1c7e-0000-4000-8000-000000000001",
                           "controller": true, "blockOwnerDeletion": true}],
      "uid": "u-1", "resourceVersion": "7"},
    "spec": {}
  })")
                                                     .dump());
}

TEST(ResourceQuotaCodecTest, IsResourceQuota) {
  EXPECT_TRUE(IsResourceQuota(Parse(R"({"apiVersion": "v1", "kind": "ResourceQuota"})")));
  EXPECT_FALSE(IsResourceQuota(Parse(R"({"apiVersion": "v1", "kind": "Namespace"})")));
  EXPECT_FALSE(IsResourceQuota(Parse(R"({"apiVersion": "apps/v1", "kind": "ResourceQuota"})")));
  EXPECT_FALSE(IsResourceQuota(Parse(R"({"kind": "ResourceQuota"})")));
  EXPECT_FALSE(IsResourceQuota(Parse(R"({"apiVersion": 1, "kind": "ResourceQuota"})")));
  EXPECT_FALSE(IsResourceQuota(Parse(R"([1])")));
}

TEST(ResourceQuotaCodecTest, RoundTrip) {
  ResourceQuota q = SampleQuota();
  q.metadata.uid = "u-1";
  q.metadata.resource_version = "7";
  q.metadata.generation = 2;
  q.hard["requests.example.com/memory"] = Q("1.5Gi");
  for (bool server_fields : {false, true}) {
    SCOPED_TRACE(server_fields);
    const ordered_json encoded = EncodeResourceQuota(q, server_fields);
    ASSERT_OK_AND_ASSIGN(ResourceQuota back, DecodeResourceQuota(Parse(encoded.dump())));
    EXPECT_EQ(EncodeResourceQuota(back, server_fields).dump(), encoded.dump());
    EXPECT_EQ(back.hard, q.hard);
    EXPECT_FALSE(back.has_scopes);
    EXPECT_EQ(back.metadata.namespace_name, "ml-train");
    EXPECT_EQ(back.metadata.uid, server_fields ? "u-1" : "");
    ResourceQuota desired = q;
    if (!server_fields) desired.metadata.owner_references.clear();
    EXPECT_TRUE(SameDesiredState(desired, back));
  }
}

TEST(ResourceQuotaCodecTest, DecodesWhatAServerReturns) {
  ASSERT_OK_AND_ASSIGN(ResourceQuota q, DecodeResourceQuota(Parse(R"({
    "apiVersion": "v1", "kind": "ResourceQuota",
    "metadata": {"name": "gpuprofile-large-mem", "namespace": "ml-train", "uid": "u-1",
                 "resourceVersion": "12", "creationTimestamp": "2026-01-02T03:04:05Z",
                 "labels": {"gpuprofile.io/profile": "large-mem"},
                 "managedFields": [{"manager": "gpu-profile-controller"}]},
    "spec": {"hard": {"gpuprofile-large-mem.deviceclass.resource.k8s.io/devices": "4",
                      "pods": 10, "requests.memory": "1024Mi", "gone": null},
             "scopes": [], "scopeSelector": null, "futureField": 1},
    "status": {"hard": {"pods": "10"}, "used": {"pods": "3"}}
  })")));
  EXPECT_EQ(q.metadata.resource_version, "12");
  ASSERT_EQ(q.hard.size(), 3u);
  EXPECT_EQ(q.hard.at("pods").ToString(), "10");
  EXPECT_EQ(q.hard.at("requests.memory"), Q("1Gi"));
  EXPECT_FALSE(q.has_scopes);
}

TEST(ResourceQuotaCodecTest, ScopesAreFlagged) {
  for (const char* spec : {R"({"scopes": ["BestEffort"]})",
                           R"({"scopeSelector": {"matchExpressions": [
                                {"scopeName": "PriorityClass", "operator": "Exists"}]}})"}) {
    SCOPED_TRACE(spec);
    ASSERT_OK_AND_ASSIGN(ResourceQuota q, DecodeResourceQuota(Parse(absl::StrCat(
                                              R"({"apiVersion": "v1", "kind": "ResourceQuota",
        "metadata": {"name": "q", "namespace": "n"}, "spec": )",
                                              spec, "}"))));
    EXPECT_TRUE(q.has_scopes);
    ResourceQuota desired;
    desired.metadata.name = "q";
    desired.metadata.namespace_name = "n";
    EXPECT_FALSE(SameDesiredState(desired, q));
  }
}

TEST(ResourceQuotaCodecTest, DecodeErrors) {
  const std::string head = R"({"apiVersion": "v1", "kind": "ResourceQuota",
                               "metadata": {"name": "gpuprofile-large-mem",
                                            "namespace": "ml-train"}, "spec": )";
  auto with_spec = [&](const std::string& spec) { return absl::StrCat(head, spec, "}"); };
  const std::string label = "ResourceQuota \"ml-train/gpuprofile-large-mem\": ";
  struct Case {
    std::string input;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"[]", "ResourceQuota <unnamed>: (root): must be an object, got array"},
      {R"({"kind": "ResourceQuota", "metadata": {"name": "q"}})",
       "ResourceQuota \"q\": apiVersion: required"},
      {R"({"apiVersion": "v2", "kind": "ResourceQuota", "metadata": {"name": "q"}})",
       "ResourceQuota \"q\": apiVersion: expected \"v1\", got \"v2\""},
      {R"({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "q"}})",
       "ResourceQuota \"q\": kind: expected \"ResourceQuota\", got \"LimitRange\""},
      {R"({"apiVersion": "v1", "kind": "ResourceQuota"})",
       "ResourceQuota <unnamed>: metadata: required"},
      {R"({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"namespace": "n"}})",
       "ResourceQuota <unnamed>: metadata.name: required"},
      {R"({"apiVersion": "v1", "kind": "ResourceQuota",
           "metadata": {"name": "q", "namespace": "n", "labels": {"a": 1}}})",
       "ResourceQuota \"n/q\": metadata.labels[a]: must be a string, got integer"},
      {with_spec("[]"), label + "spec: must be an object, got array"},
      {with_spec(R"({"hard": ["pods"]})"), label + "spec.hard: must be an object, got array"},
      {with_spec(R"({"hard": {"requests.example.com/gpu": "ten"}})"),
       label + "spec.hard[requests.example.com/gpu]: invalid value \"ten\": quantities must "
               "match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {with_spec(R"({"hard": {"pods": true}})"),
       label + "spec.hard[pods]: must be a quantity string, got boolean"},
      {with_spec(R"({"scopes": "BestEffort"})"), label + "spec.scopes: must be a list, got string"},
      {with_spec(R"({"scopes": [1]})"), label + "spec.scopes[0]: must be a string, got integer"},
      {with_spec(R"({"scopeSelector": []})"),
       label + "spec.scopeSelector: must be an object, got array"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    absl::Status status = DecodeResourceQuota(Parse(c.input)).status();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), c.want);
  }
  // Every problem at once, each line labelled.
  absl::Status status =
      DecodeResourceQuota(Parse(with_spec(R"({"hard": {"a": "x", "b": [], "c": "1"}})"))).status();
  EXPECT_EQ(status.message(),
            label +
                "spec.hard[a]: invalid value \"x\": quantities must match the regular "
                "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n" +
                label + "spec.hard[b]: must be a quantity string, got array");
}

TEST(ResourceQuotaCodecTest, SameDesiredStateTable) {
  struct Case {
    const char* name;
    void (*desired)(ResourceQuota&);
    void (*actual)(ResourceQuota&);
    bool same;
  };
  auto none = [](ResourceQuota&) {};
  const Case cases[] = {
      {"identical", none, none, true},
      {"server fields, extra labels, finalizers ignored", none,
       [](ResourceQuota& a) {
         a.metadata.uid = "u";
         a.metadata.resource_version = "9";
         a.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
         a.metadata.labels["argocd.argoproj.io/instance"] = "x";
         a.metadata.finalizers = {"f"};
       },
       true},
      {"same amount, other spelling", none,
       [](ResourceQuota& a) { a.hard["requests.example.com/large-mem"] = Q("4000m"); }, true},
      {"amount differs", none,
       [](ResourceQuota& a) { a.hard["requests.example.com/large-mem"] = Q("5"); }, false},
      {"resource added by someone", none, [](ResourceQuota& a) { a.hard["pods"] = Q("10"); },
       false},
      {"resource missing", none,
       [](ResourceQuota& a) { a.hard.erase("requests.example.com/large-mem"); }, false},
      {"label changed", none,
       [](ResourceQuota& a) { a.metadata.labels["gpuprofile.io/profile"] = "other"; }, false},
      {"owner reference missing", none,
       [](ResourceQuota& a) { a.metadata.owner_references.clear(); }, false},
      {"namespace differs", none, [](ResourceQuota& a) { a.metadata.namespace_name = "x"; }, false},
      {"name differs", none, [](ResourceQuota& a) { a.metadata.name = "x"; }, false},
      {"scopes in actual", none, [](ResourceQuota& a) { a.has_scopes = true; }, false},
      {"scopes in desired", [](ResourceQuota& d) { d.has_scopes = true; }, none, false},
  };
  for (const Case& c : cases) {
    ResourceQuota desired = SampleQuota();
    ResourceQuota actual = SampleQuota();
    c.desired(desired);
    c.actual(actual);
    EXPECT_EQ(SameDesiredState(desired, actual), c.same) << c.name;
  }
}

// tools/schema/validate.py checks ResourceQuota against its hand-written schema on every release.
class ResourceQuotaSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const bool available =
        std::system("python3 -c 'import jsonschema, yaml' >/dev/null 2>&1") == 0;
    if (!available) GTEST_SKIP() << "python3 with jsonschema and yaml not found";
  }

  static int Validate(const std::string& kube, const std::vector<ordered_json>& objects,
                      std::string* log) {
    std::string dir = ::testing::TempDir();
    if (!dir.empty() && dir.back() != '/') dir += '/';
    const std::string path = absl::StrCat(dir, "gpo-quota-", getpid(), ".json");
    {
      std::ofstream out(path);
      out << ordered_json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}}.dump(2);
    }
    const std::string log_path = path + ".log";
    const int raw = std::system(absl::StrCat("python3 '", ::gpuprofile::testing::SourceDir(),
                                             "/tools/schema/validate.py' --kube-version ", kube,
                                             " '", path, "' >'", log_path, "' 2>&1")
                                    .c_str());
    std::ifstream in(log_path);
    log->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (raw == -1 || !WIFEXITED(raw)) return -1;
    return WEXITSTATUS(raw);
  }
};

TEST_F(ResourceQuotaSchemaTest, EncodedQuotasValidateOnEveryRelease) {
  ResourceQuota q = SampleQuota();
  q.hard["requests.example.com/memory"] = Q("1.5Gi");
  ResourceQuota empty = SampleQuota();
  empty.hard.clear();
  const std::vector<ordered_json> objects = {EncodeResourceQuota(q, false),
                                             EncodeResourceQuota(q, true),
                                             EncodeResourceQuota(empty, false)};
  for (const char* kube : {"1.32", "1.34", "1.35", "1.37"}) {
    std::string log;
    EXPECT_EQ(Validate(kube, objects, &log), 0) << kube << ": " << log;
    EXPECT_THAT(log, HasSubstr("validated 3 objects, skipped 0")) << kube;
  }
}

TEST_F(ResourceQuotaSchemaTest, WrongShapesAreRejected) {
  ordered_json bogus_field = EncodeResourceQuota(SampleQuota(), false);
  bogus_field["spec"]["hardLimits"] = ordered_json::object();
  ordered_json bad_quantity = EncodeResourceQuota(SampleQuota(), false);
  bad_quantity["spec"]["hard"]["pods"] = "ten";
  ordered_json bad_type = EncodeResourceQuota(SampleQuota(), false);
  bad_type["spec"]["hard"]["pods"] = true;
  std::string log;
  EXPECT_EQ(Validate("1.36", {bogus_field, bad_quantity, bad_type}, &log), 1) << log;
  EXPECT_THAT(log, HasSubstr("spec: Additional properties are not allowed ('hardLimits'"));
  EXPECT_THAT(log, HasSubstr("spec.hard.pods: 'ten' does not match"));
  EXPECT_THAT(log, HasSubstr("spec.hard.pods: True is not of type"));
  EXPECT_THAT(log, HasSubstr("3 problem(s); validated 3 objects"));
}

}  // namespace
}  // namespace resource_quota_codec_test
}  // namespace gpuprofile::meta
