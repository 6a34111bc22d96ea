// File: e2e/tests/resource_quota_test.cc
// core/v1 ResourceQuota on kube-emulator over HTTP, as kube-apiserver serves it on every release:
// discovery (short name, status subresource), the write verbs, decoding (quantities, stored in
// canonical form), ValidateResourceQuota's paths and messages, the status the quota controller
// writes (status.hard from spec.hard), and `kubectl get quota` with the server's table columns.
#include <unistd.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e/tests/raw_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace resource_quota_test {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kQuotas[] = "/api/v1/namespaces/default/resourcequotas";
constexpr char kDevices[] = "gpu.example.com.deviceclass.resource.k8s.io/devices";

json Quota(const std::string& name, json hard) {
  return {{"apiVersion", "v1"},
          {"kind", "ResourceQuota"},
          {"metadata", {{"name", name}}},
          {"spec", {{"hard", std::move(hard)}}}};
}

// "field: message" of every cause of a 422.
std::vector<std::string> Causes(const RawResponse& r) {
  std::vector<std::string> out;
  json body = r.Json();
  if (!body.is_object()) return out;
  for (const json& c : body["details"]["causes"]) {
    out.push_back(absl::StrCat(c.value("field", ""), ": ", c.value("message", "")));
  }
  return out;
}

class ResourceQuotaTest : public ::testing::TestWithParam<std::string> {
 protected:
  EmulatorProcess emulator_{std::vector<std::string>{"--kube-version", GetParam()}};
  RawHttpClient http_{emulator_.url()};
};

TEST_P(ResourceQuotaTest, DiscoveryNamesTheShortNameAndStatus) {
  ASSERT_TRUE(emulator_.ok()) << emulator_.Stderr();
  json resources = http_.Get("/api/v1").Json()["resources"];
  json quota, status;
  for (const json& r : resources) {
    if (r["name"] == "resourcequotas") quota = r;
    if (r["name"] == "resourcequotas/status") status = r;
  }
  ASSERT_TRUE(quota.is_object()) << resources.dump();
  EXPECT_EQ(quota["kind"], "ResourceQuota");
  EXPECT_EQ(quota["namespaced"], true);
  EXPECT_EQ(quota["shortNames"], json::array({"quota"}));
  EXPECT_EQ(quota["verbs"], json::array({"create", "delete", "deletecollection", "get", "list",
                                         "patch", "update", "watch"}));
  EXPECT_TRUE(status.is_object()) << resources.dump();
}

TEST_P(ResourceQuotaTest, StatusHardFollowsSpecHardThroughTheLifecycle) {
  ASSERT_TRUE(emulator_.ok()) << emulator_.Stderr();
  json quota = Quota("gpus", {{kDevices, "4"}, {"requests.cpu", "1000m"}, {"pods", "10"}});
  quota["status"] = {{"used", {{"pods", "3"}}}};  // cleared on create
  RawResponse created = http_.Post(kQuotas, quota);
  ASSERT_EQ(created.status, 201) << created.body;
  json stored = http_.Get(absl::StrCat(kQuotas, "/gpus")).Json();
  const json want_hard = {{kDevices, "4"}, {"requests.cpu", "1"}, {"pods", "10"}};
  EXPECT_EQ(stored["spec"]["hard"], want_hard);  // canonical: 1000m is 1
  // The device count is the ResourceClaim evaluator's (no claims: 0); pods is not computed.
  EXPECT_EQ(stored["status"], json({{"hard", want_hard}, {"used", {{kDevices, "0"}}}}));

  // Usage the emulator does not compute comes through the status subresource, and is kept for
  // the keys still in spec.hard when the spec changes.
  stored["status"]["used"] = {{kDevices, "0"}, {"requests.cpu", "500m"}, {"pods", "2"}};
  RawResponse status = http_.Put(absl::StrCat(kQuotas, "/gpus/status"), stored);
  ASSERT_EQ(status.status, 200) << status.body;
  RawResponse patched =
      http_.MergePatch(absl::StrCat(kQuotas, "/gpus"),
                       {{"spec", {{"hard", {{"requests.cpu", nullptr}, {kDevices, "8"}}}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  json after = http_.Get(absl::StrCat(kQuotas, "/gpus")).Json();
  EXPECT_EQ(after["status"], json({{"hard", {{kDevices, "8"}, {"pods", "10"}}},
                                   {"used", {{kDevices, "0"}, {"pods", "2"}}}}));

  json list = http_.Get(kQuotas).Json();
  EXPECT_EQ(list["kind"], "ResourceQuotaList");
  EXPECT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(http_.Delete(absl::StrCat(kQuotas, "/gpus")).status, 200);
  EXPECT_EQ(http_.Get(absl::StrCat(kQuotas, "/gpus")).status, 404);
}

TEST_P(ResourceQuotaTest, StatusWritesAreValidated) {
  ASSERT_TRUE(emulator_.ok()) << emulator_.Stderr();
  ASSERT_EQ(http_.Post(kQuotas, Quota("q", {{"pods", "10"}})).status, 201);
  json stored = http_.Get(absl::StrCat(kQuotas, "/q")).Json();
  stored["status"]["used"] = {{"pods", "-1"}};
  RawResponse r = http_.Put(absl::StrCat(kQuotas, "/q/status"), stored);
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(Causes(r), ElementsAre("status.used[pods]: Invalid value: \"-1\": must be greater "
                                     "than or equal to 0"));
}

INSTANTIATE_TEST_SUITE_P(Releases, ResourceQuotaTest, ::testing::Values("1.32", "1.34", "1.37"));

// The quota controller's usage of ResourceClaims, recomputed when a claim comes or goes.
TEST(ResourceQuotaUsageTest, ClaimsCountPerDeviceClass) {
  EmulatorProcess emulator({"--kube-version", "1.34"});
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  RawHttpClient http(emulator.url());
  const std::string other = "other.example.com.deviceclass.resource.k8s.io/devices";
  ASSERT_EQ(http.Post(kQuotas, Quota("gpus", {{kDevices, "40"},
                                              {other, "10"},
                                              {"count/resourceclaims.resource.k8s.io", "5"},
                                              {"pods", "3"}}))
                .status,
            201);
  json quota = http.Get(absl::StrCat(kQuotas, "/gpus")).Json();
  EXPECT_EQ(quota["status"]["used"],
            json({{kDevices, "0"}, {other, "0"}, {"count/resourceclaims.resource.k8s.io", "0"}}))
      << "the claim evaluator's keys start at 0; pods is not computed";

  const std::string claims = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
  auto claim = [](const std::string& name, json requests) {
    return json{{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceClaim"},
                {"metadata", {{"name", name}}},
                {"spec", {{"devices", {{"requests", requests}}}}}};
  };
  auto exact = [](const std::string& name, json fields) {
    fields["deviceClassName"] = "gpu.example.com";
    return json{{"name", name}, {"exactly", fields}};
  };
  // 2 (ExactCount) + 32 (All, the worst case) of gpu.example.com.
  ASSERT_EQ(http.Post(claims, claim("two-and-all", {exact("two", {{"count", 2}}),
                                                    exact("all", {{"allocationMode", "All"}})}))
                .status,
            201);
  // firstAvailable: the largest per class among the subrequests (gpu: 3, other: 1).
  json first = {{"name", "fallback"},
                {"firstAvailable",
                 {{{"name", "a"}, {"deviceClassName", "gpu.example.com"}, {"count", 3}},
                  {{"name", "b"}, {"deviceClassName", "other.example.com"}},
                  {{"name", "c"}, {"deviceClassName", "gpu.example.com"}, {"count", 2}}}}};
  ASSERT_EQ(http.Post(claims, claim("fallback", {first})).status, 201);
  quota = http.Get(absl::StrCat(kQuotas, "/gpus")).Json();
  EXPECT_EQ(quota["status"]["used"],
            json({{kDevices, "37"}, {other, "1"}, {"count/resourceclaims.resource.k8s.io", "2"}}));

  ASSERT_EQ(http.Delete(absl::StrCat(claims, "/two-and-all")).status, 200);
  quota = http.Get(absl::StrCat(kQuotas, "/gpus")).Json();
  EXPECT_EQ(quota["status"]["used"],
            json({{kDevices, "3"}, {other, "1"}, {"count/resourceclaims.resource.k8s.io", "1"}}));
}

// Validation: one emulator, one case per rule.
struct RuleCase {
  std::string name;
  json hard;
  std::vector<std::string> causes;
};

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.name; }

class ResourceQuotaRulesTest : public ::testing::TestWithParam<RuleCase> {
 protected:
  static void SetUpTestSuite() {
    emulator_ = new EmulatorProcess(std::vector<std::string>{"--kube-version", "1.36"});
  }
  static void TearDownTestSuite() {
    delete emulator_;
    emulator_ = nullptr;
  }
  static EmulatorProcess* emulator_;
};
EmulatorProcess* ResourceQuotaRulesTest::emulator_ = nullptr;

TEST_P(ResourceQuotaRulesTest, RejectsAsKubeApiserver) {
  ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
  RawHttpClient http(emulator_->url());
  RawResponse r = http.Post(kQuotas, Quota("q", GetParam().hard));
  if (GetParam().causes.empty()) {
    EXPECT_EQ(r.status, 201) << r.body;
    http.Delete(absl::StrCat(kQuotas, "/q"));
    return;
  }
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(Causes(r), ::testing::ElementsAreArray(GetParam().causes)) << r.body;
}

const char kNamePart[] =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

INSTANTIATE_TEST_SUITE_P(
    Rules, ResourceQuotaRulesTest,
    ::testing::Values(
        RuleCase{"DeviceClassKeysAndCounts",
                 {{kDevices, "4"},
                  {"count/resourceclaims.resource.k8s.io", "10"},
                  {"requests.deviceclass.resource.kubernetes.io/gpu.example.com", "2"},
                  {"pods", "10"},
                  {"hugepages-2Mi", "1Gi"}},
                 {}},
        // Both checks of a bare name that is not a standard one (as kube-apiserver words them,
        // the name without quotes: a core.ResourceName prints through its String method).
        RuleCase{"NotAQuotaResource",
                 {{"limits.pods", "2"}},
                 {"spec.hard[limits.pods]: Invalid value: limits.pods: must be a standard "
                  "resource type or fully qualified",
                  "spec.hard[limits.pods]: Invalid value: limits.pods: must be a standard "
                  "resource for quota"}},
        // storage is a standard resource but not a quota resource.
        RuleCase{"StorageIsNotAQuotaResource",
                 {{"storage", "10Gi"}},
                 {"spec.hard[storage]: Invalid value: storage: must be a standard resource for "
                  "quota"}},
        RuleCase{"NotAQualifiedName",
                 {{"example.com/_gpu", "1"}},
                 {std::string("spec.hard[example.com/_gpu]: Invalid value: example.com/_gpu: ") +
                  kNamePart}},
        RuleCase{"Negative",
                 {{"requests.memory", "-1Gi"}},
                 {"spec.hard[requests.memory]: Invalid value: \"-1Gi\": must be greater than or "
                  "equal to 0"}},
        // Device counts are extended resources, so integers; the message carries Go's dump of
        // the parsed resource.Quantity.
        RuleCase{"FractionalDeviceCount",
                 {{kDevices, "1.5"}},
                 {std::string("spec.hard[") + kDevices +
                  "]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, "
                  "scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", "
                  "Format:\"DecimalSI\"}: must be an integer"}},
        RuleCase{"FractionalPods",
                 {{"pods", "1500m"}},
                 {"spec.hard[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{"
                  "value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, "
                  "s:\"1500m\", Format:\"DecimalSI\"}: must be an integer"}},
        // cpu may be fractional.
        RuleCase{"FractionalCpu", {{"requests.cpu", "1500m"}}, {}}),
    [](const ::testing::TestParamInfo<RuleCase>& param_info) { return param_info.param.name; });

TEST(ResourceQuotaDecodingTest, AValueThatIsNotAQuantityIsABadRequest) {
  EmulatorProcess emulator({"--kube-version", "1.35"});
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  RawHttpClient http(emulator.url());
  RawResponse r = http.Post(kQuotas, Quota("q", {{"pods", "ten"}}));
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(r.Json()["message"],
            "ResourceQuota in version \"v1\" cannot be handled as a ResourceQuota: quantities "
            "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

// kubectl's `get quota`: the short name from discovery and the server-side table.
TEST(ResourceQuotaKubectlTest, GetQuotaPrintsRequestAndLimit) {
  std::string dir = KubectlDir();
  if (dir.empty()) GTEST_SKIP() << "kubectl is not installed: skipped";
  std::string kubectl = dir + "/kubectl.1.33";
  if (::access(kubectl.c_str(), X_OK) != 0) GTEST_SKIP() << kubectl << " is not installed";
  ScratchDir scratch;
  EmulatorProcess emulator(
      {"--kube-version", "1.34", "--kubeconfig-out", scratch.File("kubeconfig")});
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  scratch.Write("quota.yaml", absl::StrCat(R"(apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: default}
spec:
  hard:
    )",
                                           kDevices, R"(: "4"
    limits.memory: 2Gi
)"));
  auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {kubectl, "--kubeconfig", scratch.File("kubeconfig"),
                                     "--cache-dir", scratch.File("cache")};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult r = RunCommand(argv, absl::Seconds(60));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return r.out;
  };
  EXPECT_THAT(run({"apply", "-f", scratch.File("quota.yaml")}),
              HasSubstr("resourcequota/gpus created"));
  std::string table = run({"get", "quota", "-n", "default"});
  EXPECT_THAT(table, ::testing::ContainsRegex("NAME +AGE +REQUEST +LIMIT"));
  EXPECT_THAT(table, ::testing::ContainsRegex(absl::StrCat("\ngpus +[0-9]+s +", kDevices,
                                                           ": 0/4 +limits.memory: 0/2Gi")));
  EXPECT_THAT(run({"get", "resourcequota", "gpus", "-n", "default", "-o",
                   "jsonpath={.status.hard.limits\\.memory}"}),
              HasSubstr("2Gi"));
}

}  // namespace
}  // namespace resource_quota_test
}  // namespace gpuprofile::e2e::testing
