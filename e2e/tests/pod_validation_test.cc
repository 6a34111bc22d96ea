// File: e2e/tests/pod_validation_test.cc
// kube-emulator's validation of a Pod's claim references over real HTTP (create and update), as
// kube-apiserver's ValidatePodSpec words it: spec.resourceClaims and the containers'
// resources.claims. The causes of a 422 in order; a valid pod is stored.
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/release_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e {
namespace pod_validation_test {
namespace {

using nlohmann::json;
using testing::EmulatorProcess;
using testing::RawHttpClient;
using testing::RawResponse;

EmulatorProcess& Emulator(const std::string& kube) { return testing::SharedEmulator(kube); }

using testing::kDnsLabelMessage;
using testing::kDnsSubdomainMessage;

json Container(const std::string& name, json claims) {
  json c = {{"name", name}, {"image", "registry.example.com/train:1"}};
  if (!claims.is_null()) c["resources"] = {{"claims", std::move(claims)}};
  return c;
}

json Template(const std::string& name, const std::string& tmpl) {
  return {{"name", name}, {"resourceClaimTemplateName", tmpl}};
}

struct PodCase {
  std::string name;
  std::string kube;
  json spec;
  std::vector<std::string> causes;  // empty: the pod is created
  bool update = false;              // create a valid pod first, then PUT this spec
};

void PrintTo(const PodCase& c, std::ostream* os) { *os << c.name; }

PodCase Valid(std::string name, std::string kube, json spec) {
  return {std::move(name), std::move(kube), std::move(spec), {}, false};
}
PodCase Invalid(std::string name, std::string kube, json spec, std::vector<std::string> causes) {
  return {std::move(name), std::move(kube), std::move(spec), std::move(causes), false};
}
PodCase OnUpdate(PodCase c) {
  c.update = true;
  return c;
}

class PodClaimsTest : public ::testing::TestWithParam<PodCase> {};

TEST_P(PodClaimsTest, AnswersAsKubeApiserver) {
  const PodCase& c = GetParam();
  EmulatorProcess& emulator = Emulator(c.kube);
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  RawHttpClient http(emulator.url());
  const std::string name = absl::AsciiStrToLower(c.name);
  const std::string path = "/api/v1/namespaces/default/pods";
  json pod = {
      {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", c.spec}};
  RawResponse r;
  if (c.update) {
    json valid = pod;
    valid["spec"] = {{"containers", {Container("main", nullptr)}}};
    RawResponse created = http.Post(path, valid);
    ASSERT_EQ(created.status, 201) << created.body;
    r = http.Put(absl::StrCat(path, "/", name), pod);
  } else {
    r = http.Post(path, pod);
  }
  if (c.causes.empty()) {
    ASSERT_EQ(r.status, c.update ? 200 : 201) << r.body;
    RawResponse got = http.Get(absl::StrCat(path, "/", name));
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(got.Json()["spec"]["resourceClaims"], c.spec["resourceClaims"]);
    return;
  }
  ASSERT_EQ(r.status, 422) << r.body;
  const json body = r.Json();
  EXPECT_EQ(body.value("message", "").rfind(absl::StrCat("Pod \"", name, "\" is invalid: "), 0), 0u)
      << body.value("message", "");
  std::vector<std::string> causes;
  for (const json& cause : body["details"]["causes"]) {
    causes.push_back(absl::StrCat(cause.value("field", ""), ": ", cause.value("message", "")));
  }
  EXPECT_THAT(causes, ::testing::ElementsAreArray(c.causes)) << r.body;
  EXPECT_EQ(http.Get(absl::StrCat(path, "/", name)).status, c.update ? 200 : 404);
}

INSTANTIATE_TEST_SUITE_P(
    Releases, PodClaimsTest,
    ::testing::Values(
        Valid("FromTemplate", "1.34",
              {{"containers", {Container("main", {{{"name", "gpu"}}})}},
               {"resourceClaims", {Template("gpu", "single-gpu")}}}),
        Valid("SharedClaimAndRequests", "1.32",
              {{"containers",
                {Container("a", {{{"name", "gpu"}, {"request", "big"}},
                                 {{"name", "gpu"}, {"request", "small"}}}),
                 Container("b", {{{"name", "shared"}}})}},
               {"resourceClaims",
                {Template("gpu", "two-gpus"),
                 {{"name", "shared"}, {"resourceClaimName", "nic"}}}}}),
        Invalid("NeitherSource", "1.34",
                {{"containers", {Container("main", nullptr)}},
                 {"resourceClaims", {{{"name", "gpu"}}}}},
                {"spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:\"gpu\", "
                 "ResourceClaimName:(*string)(nil), ResourceClaimTemplateName:(*string)(nil)}: "
                 "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"}),
        Invalid(
            "BothSources", "1.34",
            {{"containers", {Container("main", nullptr)}},
             {"resourceClaims",
              {{{"name", "gpu"}, {"resourceClaimName", "a"}, {"resourceClaimTemplateName", "b"}}}}},
            {"spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:\"gpu\", "
             "ResourceClaimName:(*string)(0xc000000000), "
             "ResourceClaimTemplateName:(*string)(0xc000000000)}: at most one of "
             "`resourceClaimName` or `resourceClaimTemplateName` may be specified"}),
        Invalid("Names", "1.34",
                {{"containers", {Container("main", nullptr)}},
                 {"resourceClaims",
                  {Template("GPU", "gpu_template"), Template("", "t"), Template("x", "t"),
                   Template("x", "t")}}},
                {absl::StrCat("spec.resourceClaims[0].name: Invalid value: \"GPU\": ",
                              kDnsLabelMessage),
                 absl::StrCat("spec.resourceClaims[0].resourceClaimTemplateName: Invalid value: "
                              "\"gpu_template\": ",
                              kDnsSubdomainMessage),
                 "spec.resourceClaims[1].name: Required value",
                 "spec.resourceClaims[3].name: Duplicate value: \"x\""}),
        Invalid("ContainerClaims", "1.34",
                {{"containers",
                  {Container("main", {{{"name", "gpu"}, {"request", "big"}},
                                      {{"name", "gpu"}},
                                      {{"name", "nope"}},
                                      json::object()}),
                   Container("side", {{{"name", "gpu"}}, {{"name", "gpu"}, {"request", "Big"}}})}},
                 {"initContainers", {Container("init", {{{"name", "gpu"}}, {{"name", "gpu"}}})}},
                 {"resourceClaims", {Template("gpu", "t"), Template("other", "t")}}},
                {"spec.containers[0].resources.claims[1]: Duplicate value: \"gpu\"",
                 "spec.containers[0].resources.claims[2]: Not found: \"nope\": must be one of the "
                 "names in pod.spec.resourceClaims: gpu, other",
                 "spec.containers[0].resources.claims[3]: Required value",
                 "spec.containers[1].resources.claims[1]: Duplicate value: \"gpu\"",
                 "spec.initContainers[0].resources.claims[1]: Duplicate value: \"gpu\""}),
        Invalid("RequestName", "1.34",
                {{"containers", {Container("main", {{{"name", "gpu"}, {"request", "Big"}}})}},
                 {"resourceClaims", {Template("gpu", "t")}}},
                {absl::StrCat("spec.containers[0].resources.claims[0].request: Invalid value: "
                              "\"Big\": ",
                              kDnsLabelMessage)}),
        Invalid("NoPodClaims", "1.37", {{"containers", {Container("main", {{{"name", "gpu"}}})}}},
                {"spec.containers[0].resources.claims[0]: Not found: \"gpu\": must be one of the "
                 "names in pod.spec.resourceClaims which is empty"}),
        OnUpdate(Invalid("Update", "1.34",
                         {{"containers", {Container("main", {{{"name", "gpu"}}})}}},
                         {"spec.containers[0].resources.claims[0]: Not found: \"gpu\": must be one "
                          "of the names in pod.spec.resourceClaims which is empty"}))),
    [](const ::testing::TestParamInfo<PodCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace pod_validation_test
}  // namespace gpuprofile::e2e
