// File: test/kube/rest_client_emulator_test.cc
// RestClient and Discovery against the real kube-emulator over HTTP (the socket transport): CRUD,
// status subresource, patches, delete preconditions, typed errors, pagination, selectors,
// injected faults, discovery of the served DRA versions and of a CRD that appears.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/kube/api_error.h"
#include "controller/kube/socket_transport.h"
#include "controller/kube/discovery.h"
#include "controller/kube/rest_client.h"
#include "gtest/gtest.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace rest_client_emulator_test {
namespace {

using testing::KubeEmulator;

const ResourcePath kConfigMaps{"", "v1", "configmaps", "default", "", ""};
const ResourcePath kNamespaces{"", "v1", "namespaces", "", "", ""};
const ResourcePath kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "", "", ""};
const ResourcePath kWidgets{"example.com", "v1", "widgets", "default", "", ""};

nlohmann::json ConfigMap(const std::string& name, nlohmann::json data = nlohmann::json::object(),
                         nlohmann::json labels = nlohmann::json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", data}};
}

std::string Rv(const nlohmann::json& object) {
  return object["metadata"]["resourceVersion"].get<std::string>();
}

#define ASSERT_EMULATOR(emu) ASSERT_TRUE((emu).ok()) << (emu).error()

TEST(RestClientEmulatorTest, CrudRoundTripWithPatchesAndPreconditions) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  RestClient& c = *emu.client();
  ASSERT_OK_AND_ASSIGN(nlohmann::json created,
                       c.Create(kConfigMaps, ConfigMap("gpu", {{"a", "1"}})));
  const std::string uid = created["metadata"]["uid"];
  EXPECT_FALSE(uid.empty());
  ASSERT_OK_AND_ASSIGN(nlohmann::json got, c.Get(kConfigMaps.WithName("gpu")));
  EXPECT_EQ(got["data"]["a"], "1");

  nlohmann::json changed = got;
  changed["data"]["a"] = "2";
  ASSERT_OK_AND_ASSIGN(nlohmann::json updated, c.Update(kConfigMaps.WithName("gpu"), changed));
  EXPECT_NE(Rv(updated), Rv(got));
  // The same write again carries a stale resourceVersion.
  changed["data"]["a"] = "3";
  EXPECT_TRUE(apierrors::IsConflict(c.Update(kConfigMaps.WithName("gpu"), changed).status()));

  ASSERT_OK_AND_ASSIGN(nlohmann::json merged, c.Patch(kConfigMaps.WithName("gpu"),
                                                      PatchType::kMerge,
                                                      {{"data", {{"b", "x"}}}}));
  EXPECT_EQ(merged["data"], (nlohmann::json{{"a", "2"}, {"b", "x"}}));
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json patched,
      c.Patch(kConfigMaps.WithName("gpu"), PatchType::kJson,
              nlohmann::json::array({{{"op", "remove"}, {"path", "/data/a"}}})));
  EXPECT_EQ(patched["data"], (nlohmann::json{{"b", "x"}}));

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "not-" + uid;
  absl::Status precondition = c.Delete(kConfigMaps.WithName("gpu"), wrong_uid).status();
  EXPECT_TRUE(apierrors::IsConflict(precondition)) << precondition;
  DeleteOptions right;
  right.precondition_uid = uid;
  right.precondition_resource_version = Rv(patched);
  right.propagation = PropagationPolicy::kBackground;
  ASSERT_OK(c.Delete(kConfigMaps.WithName("gpu"), right));
  absl::Status gone = c.Get(kConfigMaps.WithName("gpu")).status();
  EXPECT_TRUE(apierrors::IsNotFound(gone)) << gone;
  EXPECT_NE(gone.message().find("GET /api/v1/namespaces/default/configmaps/gpu: "),
            absl::string_view::npos)
      << gone;
}

TEST(RestClientEmulatorTest, TypedErrorsFromTheServer) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  RestClient& c = *emu.client();
  ASSERT_OK(c.Create(kConfigMaps, ConfigMap("x")));
  absl::Status exists = c.Create(kConfigMaps, ConfigMap("x")).status();
  EXPECT_TRUE(apierrors::IsAlreadyExists(exists)) << exists;
  absl::Status invalid = c.Create(kConfigMaps, ConfigMap("Not_A_Name")).status();
  ASSERT_TRUE(apierrors::IsInvalid(invalid)) << invalid;
  std::optional<ApiError> e = GetApiError(invalid);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, 422);
  ASSERT_FALSE(e->causes.empty());
  EXPECT_EQ(e->causes[0].field, "metadata.name");
  absl::Status no_ns =
      c.Create(kConfigMaps.WithNamespace("missing"), ConfigMap("y")).status();
  EXPECT_TRUE(apierrors::IsNotFound(no_ns)) << no_ns;
}

TEST(RestClientEmulatorTest, UpdateStatusWritesOnlyTheStatusOfACustomResource) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  RestClient& c = *emu.client();
  Discovery discovery(&c);
  EXPECT_TRUE(absl::IsNotFound(discovery.PreferredVersion("example.com").status()));
  nlohmann::json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "widgets.example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"scope", "Namespaced"},
        {"names", {{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}}},
        {"versions",
         {{{"name", "v1"},
           {"served", true},
           {"storage", true},
           {"subresources", {{"status", nlohmann::json::object()}}},
           {"schema",
            {{"openAPIV3Schema",
              {{"type", "object"},
               {"properties",
                {{"spec", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
                 {"status",
                  {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}}}}}};
  ASSERT_OK(c.Create(kCrds, crd));
  // Discovery refreshes for a group it has not seen yet.
  ASSERT_OK_AND_ASSIGN(std::string version, discovery.PreferredVersion("example.com"));
  EXPECT_EQ(version, "v1");

  nlohmann::json widget = {{"apiVersion", "example.com/v1"},
                           {"kind", "Widget"},
                           {"metadata", {{"name", "w"}}},
                           {"spec", {{"size", 2}}},
                           {"status", {{"phase", "ignored on create"}}}};
  ASSERT_OK_AND_ASSIGN(nlohmann::json created, c.Create(kWidgets, widget));
  EXPECT_FALSE(created.contains("status") && created["status"].contains("phase"));
  created["status"] = {{"phase", "Ready"}};
  created["spec"]["size"] = 9;  // ignored by the status subresource
  ASSERT_OK_AND_ASSIGN(nlohmann::json status, c.UpdateStatus(kWidgets.WithName("w"), created));
  EXPECT_EQ(status["status"]["phase"], "Ready");
  EXPECT_EQ(status["spec"]["size"], 2);
}

TEST(RestClientEmulatorTest, PaginationAndSelectors) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  runtime::MetricsRegistry registry;
  RestClientOptions options;
  options.metrics = &registry;
  std::unique_ptr<RestClient> c = emu.NewClient(options);
  ASSERT_OK(c->Create(kNamespaces, {{"apiVersion", "v1"},
                                    {"kind", "Namespace"},
                                    {"metadata", {{"name", "paging"}}}}));
  const ResourcePath cms = kConfigMaps.WithNamespace("paging");
  for (int i = 0; i < 25; ++i) {
    ASSERT_OK(c->Create(cms, ConfigMap(absl::StrCat("cm-", i), {},
                                       {{"parity", i % 2 == 0 ? "even" : "odd"}})));
  }
  ListOptions page;
  page.limit = 10;
  ASSERT_OK_AND_ASSIGN(ObjectList first, c->List(cms, page));
  EXPECT_EQ(first.items.size(), 10u);
  EXPECT_FALSE(first.continue_token.empty());
  EXPECT_EQ(first.remaining_item_count, 15);
  EXPECT_EQ(first.items[0]["kind"], "ConfigMap");

  ASSERT_OK_AND_ASSIGN(ObjectList all, c->ListAll(cms, page));
  std::set<std::string> names;
  for (const nlohmann::json& item : all.items) names.insert(item["metadata"]["name"]);
  EXPECT_EQ(names.size(), 25u);
  EXPECT_FALSE(all.resource_version.empty());

  ListOptions odd;
  odd.label_selector = "parity=odd";
  ASSERT_OK_AND_ASSIGN(ObjectList odds, c->ListAll(cms, odd));
  EXPECT_EQ(odds.items.size(), 12u);
  ListOptions by_name;
  by_name.field_selector = "metadata.name=cm-7";
  ASSERT_OK_AND_ASSIGN(ObjectList one, c->ListAll(cms, by_name));
  ASSERT_EQ(one.items.size(), 1u);

  const std::string text = registry.TextExposition();
  EXPECT_NE(text.find(absl::StrCat("rest_client_requests_total{code=\"201\",host=\"",
                                   c->host(), "\",method=\"POST\"} 26")),
            std::string::npos)
      << text;
}

TEST(RestClientEmulatorTest, InjectedServerErrorsAreRetriedOnGetsAndTooManyRequestsIsTyped) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  ASSERT_OK(emu.client()->Create(kConfigMaps, ConfigMap("x")));
  ASSERT_OK(emu.SetFaults("error-rate=0.5,error-code=500"));
  RestClientOptions patient;
  patient.max_retries = 60;  // a chance of 2^-61 that a GET fails
  std::unique_ptr<RestClient> c = emu.NewClient(patient);
  for (int i = 0; i < 20; ++i) ASSERT_OK(c->Get(kConfigMaps.WithName("x")));

  ASSERT_OK(emu.SetFaults("error-rate=1,error-code=429,retry-after=7"));
  RestClientOptions impatient;
  impatient.max_retries = 0;
  std::unique_ptr<RestClient> once = emu.NewClient(impatient);
  absl::Status limited = once->Get(kConfigMaps.WithName("x")).status();
  EXPECT_TRUE(apierrors::IsTooManyRequests(limited)) << limited;
  EXPECT_EQ(apierrors::RetryAfter(limited), absl::Seconds(7));
  ASSERT_OK(emu.SetFaults(""));
  ASSERT_OK(once->Get(kConfigMaps.WithName("x")));
}

TEST(RestClientEmulatorTest, ConnectionRefusedIsUnavailable) {
  std::string url;
  {
    KubeEmulator emu;
    ASSERT_EMULATOR(emu);
    url = emu.url();
  }  // stopped: nothing listens on its port now
  SocketTransportOptions options;
  options.server = url;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HttpTransport> transport, NewSocketTransport(options));
  RestClientOptions o;
  o.max_retries = 0;
  RestClient c(transport.get(), o);
  absl::Status refused = c.Get(kConfigMaps.WithName("x")).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
}

TEST(DiscoveryEmulatorTest, ServedDraVersionsFollowTheRelease) {
  struct Case {
    std::string release;
    std::string newest;  // the newest resource.k8s.io version the release serves
  };
  for (const Case& c : {Case{"1.32", "v1beta1"}, Case{"1.33", "v1beta2"}, Case{"1.34", "v1"}}) {
    KubeEmulator emu({"--kube-version", c.release});
    ASSERT_EMULATOR(emu);
    Discovery discovery(emu.client());
    ASSERT_OK_AND_ASSIGN(ServerVersion version, discovery.GetServerVersion());
    EXPECT_EQ(absl::StrCat("1.", version.minor), c.release);
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> served,
                         discovery.ServedVersions("resource.k8s.io"));
    EXPECT_NE(std::find(served.begin(), served.end(), c.newest), served.end()) << c.release;
  }
}

}  // namespace
}  // namespace rest_client_emulator_test
}  // namespace gpuprofile::kube
