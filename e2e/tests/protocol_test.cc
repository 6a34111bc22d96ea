// File: e2e/tests/protocol_test.cc
// The API protocol as a raw HTTP client sees it: every test starts its own kube-emulator on
// 127.0.0.1:0 and checks status codes, Status bodies, resourceVersion/generation, watch
// streams (events, bookmarks, timeouts, 410), pagination, selectors, deletion (preconditions,
// finalizers, namespaces, garbage collection), CRDs and the DRA API.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "e2e/tests/raw_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace protocol_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr absl::Duration kEventDeadline = absl::Seconds(10);

class Emulator {
 public:
  explicit Emulator(std::vector<std::string> args = {}) : process_(std::move(args)) {
    EXPECT_TRUE(process_.ok()) << process_.Stderr();
    client_ =
        std::make_unique<RawHttpClient>(process_.ok() ? process_.url() : "http://127.0.0.1:1");
  }
  RawHttpClient& http() { return *client_; }
  EmulatorProcess& process() { return process_; }

 private:
  EmulatorProcess process_;
  std::unique_ptr<RawHttpClient> client_;
};

json ConfigMap(const std::string& name, json labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", {{"k", "v"}}}};
}

std::string Rv(const json& o) { return o["metadata"]["resourceVersion"].get<std::string>(); }

const char kCms[] = "/api/v1/namespaces/default/configmaps";

// Reads events until one of `type` arrives (skipping others); nullopt at the deadline.
std::optional<json> NextOfType(LineStream& stream, const std::string& type) {
  absl::Time end = absl::Now() + kEventDeadline;
  while (absl::Now() < end) {
    std::optional<json> e = stream.NextEvent(end - absl::Now());
    if (!e) return std::nullopt;
    if ((*e)["type"] == type) return e;
  }
  return std::nullopt;
}

TEST(ProtocolTest, VersionDiscoveryAndOpenApi) {
  Emulator emu({"--kube-version", "1.33"});
  json version = emu.http().Get("/version").Json();
  EXPECT_EQ(version["minor"], "33");
  EXPECT_EQ(version["gitVersion"], "v1.33.0");

  RawResponse aggregated = emu.http().Request(
      "GET", "/apis", "", "application/json",
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json");
  EXPECT_EQ(aggregated.Header("content-type"),
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  json groups = aggregated.Json();
  bool found = false;
  for (const json& g : groups["items"]) {
    if (g["metadata"]["name"] != "resource.k8s.io") continue;
    found = true;
    ASSERT_EQ(g["versions"].size(), 2u);
    EXPECT_EQ(g["versions"][0]["version"], "v1beta2");  // preferred first
    EXPECT_EQ(g["versions"][1]["version"], "v1beta1");
  }
  EXPECT_TRUE(found) << groups.dump();

  json legacy = emu.http().Get("/apis").Json();
  EXPECT_EQ(legacy["kind"], "APIGroupList");
  json resources = emu.http().Get("/apis/resource.k8s.io/v1beta1").Json();
  EXPECT_EQ(resources["kind"], "APIResourceList");
  EXPECT_THAT(resources.dump(), HasSubstr("\"resourceslices\""));
  EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1").status, 404);

  json root = emu.http().Get("/openapi/v3").Json();
  std::string url = root["paths"]["api/v1"]["serverRelativeURL"];
  EXPECT_THAT(url, HasSubstr("?hash="));
  json doc = emu.http().Get(url).Json();
  json patch = doc["paths"]["/api/v1/namespaces/{name}"]["patch"];
  EXPECT_EQ(patch["parameters"][0]["name"], "fieldValidation");
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"]["kind"], "Namespace");
}

TEST(ProtocolTest, StartsWithTheStandardNamespaces) {
  Emulator emu;
  json list = emu.http().Get("/api/v1/namespaces").Json();
  std::vector<std::string> names;
  for (const json& ns : list["items"]) {
    names.push_back(ns["metadata"]["name"]);
    EXPECT_EQ(ns["status"]["phase"], "Active");
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("default", "kube-node-lease", "kube-public",
                                                     "kube-system"));
}

TEST(ProtocolTest, CreateGetUpdateConflictsAndNotFound) {
  Emulator emu;
  RawResponse created = emu.http().Post(kCms, ConfigMap("a"));
  ASSERT_EQ(created.status, 201) << created.body;
  json a = created.Json();
  EXPECT_FALSE(a["metadata"]["uid"].get<std::string>().empty());
  EXPECT_FALSE(a["metadata"]["creationTimestamp"].get<std::string>().empty());
  EXPECT_FALSE(Rv(a).empty());

  RawResponse again = emu.http().Post(kCms, ConfigMap("a"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.Json()["reason"], "AlreadyExists");
  EXPECT_EQ(again.Json()["message"], "configmaps \"a\" already exists");

  json updated = a;
  updated["data"]["k"] = "w";
  RawResponse put = emu.http().Put(absl::StrCat(kCms, "/a"), updated);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_NE(Rv(put.Json()), Rv(a));
  // `a` still carries the old resourceVersion: a stale update.
  RawResponse stale = emu.http().Put(absl::StrCat(kCms, "/a"), a);
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.Json()["reason"], "Conflict");
  EXPECT_THAT(stale.Json()["message"].get<std::string>(),
              HasSubstr("the object has been modified; please apply your changes"));

  RawResponse missing = emu.http().Get(absl::StrCat(kCms, "/nope"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.Json()["kind"], "Status");
  EXPECT_EQ(missing.Json()["message"], "configmaps \"nope\" not found");
  EXPECT_EQ(missing.Json()["details"]["kind"], "configmaps");

  RawResponse bad_ns = emu.http().Post("/api/v1/namespaces/absent/configmaps", ConfigMap("b"));
  EXPECT_EQ(bad_ns.status, 404);
  EXPECT_EQ(bad_ns.Json()["message"], "namespaces \"absent\" not found");

  RawResponse bad_name = emu.http().Post(kCms, ConfigMap("Bad_Name"));
  EXPECT_EQ(bad_name.status, 422);
  EXPECT_EQ(bad_name.Json()["reason"], "Invalid");
  EXPECT_EQ(bad_name.Json()["details"]["causes"][0]["field"], "metadata.name");
}

TEST(ProtocolTest, MergeAndJsonPatch) {
  Emulator emu;
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("p")).status, 201);
  RawResponse merged =
      emu.http().MergePatch(absl::StrCat(kCms, "/p"), {{"data", {{"k", nullptr}, {"x", "1"}}}});
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(merged.Json()["data"], json({{"x", "1"}}));
  RawResponse patched = emu.http().Request("PATCH", absl::StrCat(kCms, "/p"),
                                           R"([{"op":"add","path":"/data/y","value":"2"}])",
                                           "application/json-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.Json()["data"]["y"], "2");
  RawResponse unsupported =
      emu.http().Request("PATCH", absl::StrCat(kCms, "/p"), "{}", "application/x-unknown-patch");
  EXPECT_EQ(unsupported.status, 415);
  // Server-side apply is emulated (server_side_apply_test.cc); without fieldManager it is a 422.
  RawResponse apply =
      emu.http().Request("PATCH", absl::StrCat(kCms, "/p"), "{}", "application/apply-patch+yaml");
  EXPECT_EQ(apply.status, 422);
}

// ObjectMeta's maps and lists are omitempty: empty labels, annotations, finalizers and
// ownerReferences, sent on create or in a patch, are not stored (kubectl's client-side diff
// patches `annotations: {}` into every object it compares).
TEST(ProtocolTest, EmptyMetadataMapsAndListsAreNotStored) {
  Emulator emu;
  json cm = ConfigMap("e");
  cm["metadata"]["labels"] = json::object();
  cm["metadata"]["finalizers"] = json::array();
  RawResponse created = emu.http().Post(kCms, cm);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_FALSE(created.Json()["metadata"].contains("labels")) << created.body;
  EXPECT_FALSE(created.Json()["metadata"].contains("finalizers")) << created.body;
  const std::string rv = created.Json()["metadata"]["resourceVersion"];
  RawResponse patched = emu.http().MergePatch(
      absl::StrCat(kCms, "/e"),
      {{"metadata", {{"annotations", json::object()}, {"ownerReferences", json::array()}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_FALSE(patched.Json()["metadata"].contains("annotations")) << patched.body;
  EXPECT_FALSE(patched.Json()["metadata"].contains("ownerReferences")) << patched.body;
  EXPECT_EQ(patched.Json()["metadata"]["resourceVersion"], rv) << "a no-op patch wrote";
  RawResponse labelled = emu.http().MergePatch(absl::StrCat(kCms, "/e"),
                                               {{"metadata", {{"labels", {{"a", "b"}}}}}});
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_EQ(labelled.Json()["metadata"]["labels"], json({{"a", "b"}}));
}

TEST(ProtocolTest, ProtobufBodiesAreRefusedWith415) {
  Emulator emu;
  RawResponse r =
      emu.http().Request("POST", kCms, "\x6b\x38\x73\x00", "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(r.status, 415);
  EXPECT_EQ(r.Json()["reason"], "UnsupportedMediaType");
}

const char kDeviceClass132[] = R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"DeviceClass",
  "metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.nvidia.com'"}}]}})";

TEST(ProtocolTest, GenerationBumpsOnSpecChangesOnly) {
  Emulator emu({"--kube-version", "1.32"});
  const std::string path = "/apis/resource.k8s.io/v1beta1/deviceclasses";
  RawResponse created = emu.http().Post(path, json::parse(kDeviceClass132));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.Json()["metadata"]["generation"], 1);
  RawResponse labelled =
      emu.http().MergePatch(path + "/gpu", {{"metadata", {{"labels", {{"a", "b"}}}}}});
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_EQ(labelled.Json()["metadata"]["generation"], 1);
  EXPECT_NE(Rv(labelled.Json()), Rv(created.Json()));
  RawResponse changed = emu.http().MergePatch(
      path + "/gpu",
      {{"spec",
        {{"selectors", {{{"cel", {{"expression", "device.driver == 'x.example.com'"}}}}}}}}});
  ASSERT_EQ(changed.status, 200) << changed.body;
  EXPECT_EQ(changed.Json()["metadata"]["generation"], 2);
  // A patch that changes nothing writes nothing.
  RawResponse noop =
      emu.http().MergePatch(path + "/gpu", {{"metadata", {{"labels", {{"a", "b"}}}}}});
  EXPECT_EQ(Rv(noop.Json()), Rv(changed.Json()));
}

TEST(ProtocolTest, WatchStreamsEventsAndBookmarks) {
  Emulator emu({"--bookmark-interval", "200ms"});
  json list = emu.http().Get(kCms).Json();
  std::unique_ptr<LineStream> watch = emu.http().Stream(
      absl::StrCat(kCms, "?watch=true&allowWatchBookmarks=true&resourceVersion=", Rv(list)));
  ASSERT_NE(watch, nullptr);
  EXPECT_EQ(watch->status(), 200);
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("w")).status, 201);
  std::optional<json> added = NextOfType(*watch, "ADDED");
  ASSERT_TRUE(added);
  EXPECT_EQ((*added)["object"]["metadata"]["name"], "w");
  ASSERT_EQ(emu.http().MergePatch(absl::StrCat(kCms, "/w"), {{"data", {{"k", "2"}}}}).status, 200);
  std::optional<json> modified = NextOfType(*watch, "MODIFIED");
  ASSERT_TRUE(modified);
  EXPECT_EQ((*modified)["object"]["data"]["k"], "2");
  ASSERT_EQ(emu.http().Delete(absl::StrCat(kCms, "/w")).status, 200);
  ASSERT_TRUE(NextOfType(*watch, "DELETED"));
  std::optional<json> bookmark = NextOfType(*watch, "BOOKMARK");
  ASSERT_TRUE(bookmark);
  EXPECT_EQ((*bookmark)["object"]["kind"], "ConfigMap");
  EXPECT_FALSE((*bookmark)["object"]["metadata"]["resourceVersion"].get<std::string>().empty());
}

TEST(ProtocolTest, WatchReplaysFromAResourceVersionAndSendsInitialState) {
  Emulator emu;
  RawResponse first = emu.http().Post(kCms, ConfigMap("one"));
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("two")).status, 201);
  std::unique_ptr<LineStream> replay =
      emu.http().Stream(absl::StrCat(kCms, "?watch=1&resourceVersion=", Rv(first.Json())));
  std::optional<json> e = replay->NextEvent(kEventDeadline);
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["type"], "ADDED");
  EXPECT_EQ((*e)["object"]["metadata"]["name"], "two");
  std::unique_ptr<LineStream> initial = emu.http().Stream(absl::StrCat(kCms, "?watch=true"));
  std::optional<json> a = initial->NextEvent(kEventDeadline);
  std::optional<json> b = initial->NextEvent(kEventDeadline);
  ASSERT_TRUE(a && b);
  EXPECT_EQ((*a)["object"]["metadata"]["name"], "one");
  EXPECT_EQ((*b)["object"]["metadata"]["name"], "two");
}

TEST(ProtocolTest, WatchEndsAtTimeoutSeconds) {
  Emulator emu;
  std::unique_ptr<LineStream> watch =
      emu.http().Stream(absl::StrCat(kCms, "?watch=true&timeoutSeconds=1"));
  absl::Time start = absl::Now();
  EXPECT_FALSE(watch->NextLine(absl::Seconds(10)));
  EXPECT_TRUE(watch->ended());
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ProtocolTest, WatchersReceiveEveryEventInOrder) {
  Emulator emu({"--watch-senders", "2"});
  json list = emu.http().Get(kCms).Json();
  std::vector<std::unique_ptr<LineStream>> watches;
  for (int i = 0; i < 5; ++i) {
    watches.push_back(emu.http().Stream(absl::StrCat(kCms, "?watch=1&resourceVersion=", Rv(list))));
    ASSERT_NE(watches.back(), nullptr);
  }
  constexpr int kWrites = 60;
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_EQ(emu.http().Post(kCms, ConfigMap(absl::StrCat("c", i))).status, 201);
  }
  for (auto& watch : watches) {
    for (int i = 0; i < kWrites; ++i) {
      std::optional<json> e = watch->NextEvent(kEventDeadline);
      ASSERT_TRUE(e) << "event " << i;
      EXPECT_EQ((*e)["object"]["metadata"]["name"], absl::StrCat("c", i));
    }
  }
}

// A client that stops reading is cut off (its stream ends) once too much waits for it; writers
// and the other watchers carry on.
TEST(ProtocolTest, SlowWatcherIsEndedWithoutHoldingUpWriters) {
  Emulator emu({"--watch-unread-bytes", "1048576"});
  json list = emu.http().Get(kCms).Json();
  std::string from = absl::StrCat(kCms, "?watch=1&resourceVersion=", Rv(list));
  std::unique_ptr<LineStream> stalled = emu.http().Stream(from);
  std::unique_ptr<LineStream> reader = emu.http().Stream(from);
  ASSERT_NE(stalled, nullptr);
  ASSERT_NE(reader, nullptr);
  constexpr int kWrites = 120;  // 120 x 100 KB: more than the socket buffers hold
  int received = 0;
  for (int i = 0; i < kWrites; ++i) {
    json cm = ConfigMap(absl::StrCat("big", i));
    cm["data"]["k"] = std::string(100 * 1024, 'x');
    ASSERT_EQ(emu.http().Post(kCms, cm).status, 201);
    std::optional<json> e = reader->NextEvent(kEventDeadline);
    ASSERT_TRUE(e) << "event " << i;
    EXPECT_EQ((*e)["object"]["metadata"]["name"], absl::StrCat("big", i));
    ++received;
  }
  EXPECT_EQ(received, kWrites);
  int stalled_events = 0;
  while (stalled->NextEvent(kEventDeadline)) ++stalled_events;
  EXPECT_TRUE(stalled->ended());
  EXPECT_LT(stalled_events, kWrites);
  EXPECT_THAT(emu.process().Stderr(), HasSubstr("watch ended"));
}

TEST(ProtocolTest, WatchFromACompactedVersionIsGone) {
  Emulator emu({"--watch-history", "3"});
  RawResponse first = emu.http().Post(kCms, ConfigMap("c0"));
  for (int i = 1; i < 6; ++i) {
    ASSERT_EQ(emu.http().Post(kCms, ConfigMap(absl::StrCat("c", i))).status, 201);
  }
  std::unique_ptr<LineStream> watch =
      emu.http().Stream(absl::StrCat(kCms, "?watch=true&resourceVersion=", Rv(first.Json())));
  std::optional<json> e = watch->NextEvent(kEventDeadline);
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["type"], "ERROR");
  EXPECT_EQ((*e)["object"]["code"], 410);
  EXPECT_EQ((*e)["object"]["reason"], "Expired");
  EXPECT_THAT((*e)["object"]["message"].get<std::string>(), HasSubstr("too old resource version"));

  // The admin endpoint compacts everything: even the newest version is then too old.
  std::string latest = Rv(emu.http().Get(kCms).Json());
  ASSERT_EQ(emu.http().Request("POST", "/emulator/compact").status, 200);
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("after")).status, 201);
  std::unique_ptr<LineStream> again =
      emu.http().Stream(absl::StrCat(kCms, "?watch=true&resourceVersion=", std::stoll(latest) - 1));
  std::optional<json> gone = again->NextEvent(kEventDeadline);
  ASSERT_TRUE(gone);
  EXPECT_EQ((*gone)["object"]["code"], 410);
}

TEST(ProtocolTest, AdminEndpointDropsWatches) {
  Emulator emu;
  std::unique_ptr<LineStream> watch = emu.http().Stream(absl::StrCat(kCms, "?watch=true"));
  ASSERT_EQ(watch->status(), 200);
  ASSERT_EQ(emu.http().Request("POST", "/emulator/watches/drop").status, 200);
  EXPECT_FALSE(watch->NextLine(kEventDeadline));
  EXPECT_TRUE(watch->ended());
}

TEST(ProtocolTest, ListPaginationWithLimitAndContinue) {
  Emulator emu({"--watch-history", "100"});
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(emu.http().Post(kCms, ConfigMap(absl::StrCat("m", i))).status, 201);
  }
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    json page = emu.http().Get(absl::StrCat(kCms, "?limit=2&continue=", token)).Json();
    for (const json& item : page["items"]) names.push_back(item["metadata"]["name"]);
    token = page["metadata"].value("continue", "");
    if (!token.empty()) {
      EXPECT_GT(page["metadata"]["remainingItemCount"].get<int>(), 0);
    }
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(names, ::testing::ElementsAre("m0", "m1", "m2", "m3", "m4"));

  // With a selector the API server leaves remainingItemCount unset; pages still chain.
  json selected =
      emu.http().Get(absl::StrCat(kCms, "?limit=2&fieldSelector=metadata.name!=m0")).Json();
  EXPECT_THAT(selected["items"], ::testing::SizeIs(2));
  EXPECT_FALSE(selected["metadata"].value("continue", "").empty());
  EXPECT_FALSE(selected["metadata"].contains("remainingItemCount"));

  json first = emu.http().Get(absl::StrCat(kCms, "?limit=2")).Json();
  ASSERT_EQ(emu.http().Request("POST", "/emulator/compact").status, 200);
  RawResponse expired = emu.http().Get(
      absl::StrCat(kCms, "?limit=2&continue=", first["metadata"]["continue"].get<std::string>()));
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.Json()["reason"], "Expired");
}

TEST(ProtocolTest, LabelAndFieldSelectors) {
  Emulator emu;
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("x", {{"app", "a"}, {"tier", "web"}})).status, 201);
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("y", {{"app", "b"}})).status, 201);
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("z")).status, 201);
  auto names = [&](const std::string& query) {
    std::vector<std::string> out;
    json list = emu.http().Get(absl::StrCat(kCms, "?", query)).Json();
    for (const json& i : list["items"]) {
      out.push_back(i["metadata"]["name"]);
    }
    return out;
  };
  EXPECT_THAT(names("labelSelector=app%3Da"), ::testing::ElementsAre("x"));
  EXPECT_THAT(names("labelSelector=app+in+(a,b)"), ::testing::ElementsAre("x", "y"));
  EXPECT_THAT(names("labelSelector=!app"), ::testing::ElementsAre("z"));
  EXPECT_THAT(names("labelSelector=app,tier!%3Dweb"), ::testing::ElementsAre("y"));
  EXPECT_THAT(names("fieldSelector=metadata.name%3Dy"), ::testing::ElementsAre("y"));
  EXPECT_THAT(names("fieldSelector=metadata.name!%3Dy"), ::testing::ElementsAre("x", "z"));
  RawResponse unsupported = emu.http().Get(absl::StrCat(kCms, "?fieldSelector=data.k%3Dv"));
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_THAT(unsupported.Json()["message"].get<std::string>(),
              HasSubstr("field label not supported: data.k"));
}

json Slice(const std::string& name, const std::string& node, const std::string& driver) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"driver", driver},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices",
             {{{"name", "gpu-0"},
               {"attributes", {{"productName", {{"string", "NVIDIA L4"}}}}},
               {"capacity", {{"memory", {{"value", "24Gi"}}}}}}}}}}};
}

TEST(ProtocolTest, ResourceSliceFieldSelectors) {
  Emulator emu({"--kube-version", "1.34"});
  const std::string path = "/apis/resource.k8s.io/v1/resourceslices";
  ASSERT_EQ(emu.http().Post(path, Slice("s1", "node-1", "gpu.nvidia.com")).status, 201);
  ASSERT_EQ(emu.http().Post(path, Slice("s2", "node-2", "gpu.nvidia.com")).status, 201);
  ASSERT_EQ(emu.http().Post(path, Slice("s3", "node-1", "gpu.example.com")).status, 201);
  json by_node = emu.http().Get(path + "?fieldSelector=spec.nodeName%3Dnode-1").Json();
  EXPECT_EQ(by_node["items"].size(), 2u);
  json both = emu.http()
                  .Get(path + "?fieldSelector=spec.nodeName%3Dnode-1,spec.driver%3Dgpu.nvidia.com")
                  .Json();
  ASSERT_EQ(both["items"].size(), 1u);
  EXPECT_EQ(both["items"][0]["metadata"]["name"], "s1");
}

TEST(ProtocolTest, DeletePreconditionsAndFinalizers) {
  Emulator emu;
  json cm = ConfigMap("f");
  cm["metadata"]["finalizers"] = {"example.com/keep"};
  ASSERT_EQ(emu.http().Post(kCms, cm).status, 201);
  RawResponse wrong_uid =
      emu.http().Delete(absl::StrCat(kCms, "/f"), {{"preconditions", {{"uid", "not-it"}}}});
  EXPECT_EQ(wrong_uid.status, 409);
  EXPECT_THAT(wrong_uid.Json()["message"].get<std::string>(),
              HasSubstr("Precondition failed: UID in precondition: not-it"));
  RawResponse deleting = emu.http().Delete(absl::StrCat(kCms, "/f"));
  ASSERT_EQ(deleting.status, 200);
  EXPECT_TRUE(deleting.Json()["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(emu.http().Get(absl::StrCat(kCms, "/f")).status, 200);
  ASSERT_EQ(emu.http()
                .MergePatch(absl::StrCat(kCms, "/f"), {{"metadata", {{"finalizers", nullptr}}}})
                .status,
            200);
  EXPECT_EQ(emu.http().Get(absl::StrCat(kCms, "/f")).status, 404);
}

TEST(ProtocolTest, NamespaceTerminatesOnlyWhenEmpty) {
  Emulator emu;
  ASSERT_EQ(emu.http()
                .Post("/api/v1/namespaces",
                      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "t"}}}})
                .status,
            201);
  json cm = ConfigMap("held");
  cm["metadata"]["finalizers"] = {"example.com/keep"};
  ASSERT_EQ(emu.http().Post("/api/v1/namespaces/t/configmaps", cm).status, 201);
  RawResponse deleting = emu.http().Delete("/api/v1/namespaces/t");
  ASSERT_EQ(deleting.status, 200);
  EXPECT_EQ(deleting.Json()["status"]["phase"], "Terminating");
  RawResponse refused = emu.http().Post("/api/v1/namespaces/t/configmaps", ConfigMap("new"));
  EXPECT_EQ(refused.status, 403);
  EXPECT_THAT(refused.Json()["message"].get<std::string>(),
              HasSubstr("unable to create new content in namespace t because it is being "
                        "terminated"));
  EXPECT_EQ(emu.http().Get("/api/v1/namespaces/t").Json()["status"]["phase"], "Terminating");
  ASSERT_EQ(emu.http()
                .MergePatch("/api/v1/namespaces/t/configmaps/held",
                            {{"metadata", {{"finalizers", nullptr}}}})
                .status,
            200);
  EXPECT_EQ(emu.http().Get("/api/v1/namespaces/t").status, 404);
}

json Owned(const std::string& name, const json& owner, bool block) {
  json cm = ConfigMap(name);
  cm["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"},
                                        {"kind", "ConfigMap"},
                                        {"name", owner["metadata"]["name"]},
                                        {"uid", owner["metadata"]["uid"]},
                                        {"blockOwnerDeletion", block}}};
  return cm;
}

TEST(ProtocolTest, GarbageCollectionBackgroundForegroundOrphan) {
  Emulator emu;
  json owner = emu.http().Post(kCms, ConfigMap("owner")).Json();
  ASSERT_EQ(emu.http().Post(kCms, Owned("dep", owner, false)).status, 201);
  ASSERT_EQ(emu.http().Delete(absl::StrCat(kCms, "/owner")).status, 200);
  EXPECT_EQ(emu.http().Get(absl::StrCat(kCms, "/dep")).status, 404) << "background GC";

  json owner2 = emu.http().Post(kCms, ConfigMap("owner2")).Json();
  json dep2 = Owned("dep2", owner2, true);
  dep2["metadata"]["finalizers"] = {"example.com/keep"};
  ASSERT_EQ(emu.http().Post(kCms, dep2).status, 201);
  RawResponse fg =
      emu.http().Delete(absl::StrCat(kCms, "/owner2"), {{"propagationPolicy", "Foreground"}});
  ASSERT_EQ(fg.status, 200);
  json waiting = emu.http().Get(absl::StrCat(kCms, "/owner2")).Json();
  EXPECT_THAT(waiting["metadata"]["finalizers"].dump(), HasSubstr("foregroundDeletion"));
  EXPECT_TRUE(
      emu.http().Get(absl::StrCat(kCms, "/dep2")).Json()["metadata"].contains("deletionTimestamp"));
  ASSERT_EQ(emu.http()
                .MergePatch(absl::StrCat(kCms, "/dep2"), {{"metadata", {{"finalizers", nullptr}}}})
                .status,
            200);
  EXPECT_EQ(emu.http().Get(absl::StrCat(kCms, "/dep2")).status, 404);
  EXPECT_EQ(emu.http().Get(absl::StrCat(kCms, "/owner2")).status, 404) << "foreground GC";

  json owner3 = emu.http().Post(kCms, ConfigMap("owner3")).Json();
  ASSERT_EQ(emu.http().Post(kCms, Owned("dep3", owner3, false)).status, 201);
  ASSERT_EQ(
      emu.http().Delete(absl::StrCat(kCms, "/owner3"), {{"propagationPolicy", "Orphan"}}).status,
      200);
  EXPECT_EQ(emu.http().Get(absl::StrCat(kCms, "/owner3")).status, 404);
  json orphan = emu.http().Get(absl::StrCat(kCms, "/dep3")).Json();
  EXPECT_FALSE(orphan["metadata"].contains("ownerReferences")) << orphan.dump();
}

TEST(ProtocolTest, DraVersionsServedPerRelease) {
  Emulator v132({"--kube-version", "1.32"});
  EXPECT_EQ(v132.http().Get("/apis/resource.k8s.io/v1beta1/deviceclasses").status, 200);
  EXPECT_EQ(v132.http().Get("/apis/resource.k8s.io/v1/deviceclasses").status, 404);
  Emulator v134({"--kube-version", "1.34"});
  EXPECT_EQ(v134.http().Get("/apis/resource.k8s.io/v1/deviceclasses").status, 200);
  EXPECT_EQ(v134.http().Get("/apis/resource.k8s.io/v1beta1/deviceclasses").status, 404);
  Emulator both({"--kube-version", "1.34", "--runtime-config", "resource.k8s.io/v1beta1=true"});
  EXPECT_EQ(both.http().Get("/apis/resource.k8s.io/v1beta1/deviceclasses").status, 200);
  EXPECT_EQ(both.http().Get("/apis/resource.k8s.io/v1/deviceclasses").status, 200);
  EmulatorProcess refused(
      {"--kube-version", "1.32", "--runtime-config", "resource.k8s.io/v1=true"});
  EXPECT_FALSE(refused.ok());
  EXPECT_THAT(refused.Stderr(), HasSubstr("does not exist in Kubernetes 1.32"));
}

TEST(ProtocolTest, Releases135To137ServeV1AndTheirGates) {
  for (const char* release : {"1.35", "1.36", "1.37"}) {
    SCOPED_TRACE(release);
    Emulator emu({"--kube-version", release});
    EXPECT_EQ(emu.http().Get("/version").Json()["minor"], std::string(release).substr(2));
    EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1/resourceslices").status, 200);
    EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1beta1/resourceslices").status, 404);
    EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1beta2/resourceslices").status, 404);
  }
  Emulator betas({"--kube-version", "1.37", "--runtime-config",
                  "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"});
  EXPECT_EQ(betas.http().Get("/apis/resource.k8s.io/v1beta1/resourceslices").status, 200);
  EXPECT_EQ(betas.http().Get("/apis/resource.k8s.io/v1beta2/resourceslices").status, 200);
  // --feature-gates is checked as FeatureGates::Parse checks it, for the release.
  Emulator list_on({"--kube-version", "1.36", "--feature-gates", "DRAListTypeAttributes=true"});
  EXPECT_TRUE(list_on.process().ok());
  struct Bad {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {{"--kube-version", "1.35", "--feature-gates", "DRAListTypeAttributes=true"},
            "DRAListTypeAttributes is not a feature gate of Kubernetes 1.35; it exists from 1.36"},
           {{"--kube-version", "1.37", "--feature-gates", "DRAExtendedResource=false"},
            "cannot set feature gate DRAExtendedResource to false, feature is locked to true"},
           {{"--kube-version", "1.37", "--feature-gates", "DRANope=true"},
            "unrecognized feature gate \"DRANope\""},
           {{"--kube-version", "1.38"}, "1.37"},
           {{"--kube-version", "1.38", "--runtime-config", "resource.k8s.io/v1beta1=true"}, "1.37"},
           {{"--kube-version", "1.32", "--runtime-config", "resource.k8s.io/v1alpha3=true"},
            "is not modelled"}}) {
    EmulatorProcess refused(bad.args);
    EXPECT_FALSE(refused.ok()) << absl::StrJoin(bad.args, " ");
    EXPECT_THAT(refused.Stderr(), HasSubstr(bad.message)) << absl::StrJoin(bad.args, " ");
  }
}

TEST(ProtocolTest, DeviceTaintRulesFollowTheirGateAndRelease) {
  Emulator v137({"--kube-version", "1.37"});  // DRADeviceTaintRules GA, on: served in v1
  EXPECT_EQ(v137.http().Get("/apis/resource.k8s.io/v1/devicetaintrules").status, 200);
  Emulator v136({"--kube-version", "1.36"});  // beta, off by default
  EXPECT_EQ(v136.http().Get("/apis/resource.k8s.io/v1/devicetaintrules").status, 404);
  Emulator v136_on({"--kube-version", "1.36", "--feature-gates", "DRADeviceTaintRules=true",
                    "--runtime-config", "resource.k8s.io/v1beta2=true"});
  EXPECT_EQ(v136_on.http().Get("/apis/resource.k8s.io/v1beta2/devicetaintrules").status, 200);
  EXPECT_EQ(v136_on.http().Get("/apis/resource.k8s.io/v1/devicetaintrules").status, 404);
  // v1alpha3 switched on without the gate holds nothing, so it is not served at all.
  Emulator v135({"--kube-version", "1.35", "--runtime-config", "resource.k8s.io/v1alpha3=true"});
  EXPECT_EQ(v135.http().Get("/apis/resource.k8s.io/v1alpha3").status, 404);
}

// An admin who switches v1 off and v1alpha3 on (1.33+) gets a resource.k8s.io that holds only
// DeviceTaintRules: the operator's "no version it reads" case.
TEST(ProtocolTest, V1alpha3ServesOnlyDeviceTaintRules) {
  Emulator emu({"--kube-version", "1.37", "--runtime-config",
                "resource.k8s.io/v1=false,resource.k8s.io/v1alpha3=true"});
  json group = emu.http().Get("/apis/resource.k8s.io").Json();
  ASSERT_EQ(group["versions"].size(), 1u) << group.dump();
  EXPECT_EQ(group["versions"][0]["version"], "v1alpha3");
  json resources = emu.http().Get("/apis/resource.k8s.io/v1alpha3").Json();
  std::vector<std::string> names;
  for (const json& r : resources["resources"]) names.push_back(r["name"]);
  // DeviceTaintRule has a status from 1.35 on.
  EXPECT_THAT(names, ::testing::ElementsAre("devicetaintrules", "devicetaintrules/status"));
  EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1/resourceslices").status, 404);
  EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1alpha3/devicetaintrules").status, 200);

  // The admin "restarts" the server with v1 on and v1alpha3 off.
  RawResponse bad =
      emu.http().Request("POST", "/emulator/runtime-config",
                         "resource.k8s.io/v1beta1=true,resource.k8s.io/v9=true", "text/plain");
  EXPECT_EQ(bad.status, 400) << bad.body;
  RawResponse switched =
      emu.http().Request("POST", "/emulator/runtime-config",
                         "resource.k8s.io/v1=true,resource.k8s.io/v1alpha3=false", "text/plain");
  ASSERT_EQ(switched.status, 200) << switched.body;
  EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1/resourceslices").status, 200);
  EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1alpha3/devicetaintrules").status, 404);
}

TEST(ProtocolTest, OpenApiV2AsJsonAndAsKubectlsProtobuf) {
  Emulator emu({"--kube-version", "1.37"});
  RawResponse v2 = emu.http().Get("/openapi/v2");
  ASSERT_EQ(v2.status, 200) << v2.body;
  json doc = v2.Json();
  EXPECT_EQ(doc["swagger"], "2.0");
  EXPECT_EQ(doc["info"]["version"], "v1.37.0");
  json patch = doc["paths"]["/api/v1/namespaces/{name}"]["patch"];
  EXPECT_EQ(patch["parameters"][0]["name"], "fieldValidation");
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"]["kind"], "Namespace");
  EXPECT_TRUE(doc["paths"].contains("/apis/resource.k8s.io/v1/resourceslices/{name}"));

  RawResponse pb = emu.http().Request("GET", "/openapi/v2", "", "application/json",
                                      "application/com.github.proto-openapi.spec.v2@v1.0+protobuf");
  ASSERT_EQ(pb.status, 200);
  EXPECT_EQ(pb.Header("content-type"),
            "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  // Document.swagger (field 1, length-delimited) = "2.0", then Document.info (field 2).
  ASSERT_GE(pb.body.size(), 6u);
  EXPECT_EQ(pb.body.substr(0, 5), std::string("\x0a\x03"
                                              "2.0",
                                              5));
  EXPECT_EQ(pb.body[5], '\x12');
  EXPECT_NE(pb.body.find("x-kubernetes-group-version-kind"), std::string::npos);
  EXPECT_EQ(emu.http().Request("POST", "/openapi/v2", "{}").status, 405);
}

TEST(ProtocolTest, DraObjectsAreStoredOnceAndConvertedBetweenVersions) {
  Emulator emu({"--kube-version", "1.33"});
  json rct = {{"apiVersion", "resource.k8s.io/v1beta1"},
              {"kind", "ResourceClaimTemplate"},
              {"metadata", {{"name", "t"}}},
              {"spec",
               {{"spec",
                 {{"devices",
                   {{"requests", {{{"name", "gpu"}, {"deviceClassName", "gpu.nvidia.com"}}}}}}}}}}};
  RawResponse created = emu.http().Post(
      "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaimtemplates", rct);
  ASSERT_EQ(created.status, 201) << created.body;
  json flat = created.Json()["spec"]["spec"]["devices"]["requests"][0];
  EXPECT_EQ(flat["allocationMode"], "ExactCount");
  EXPECT_EQ(flat["count"], 1);
  json v1beta2 =
      emu.http()
          .Get("/apis/resource.k8s.io/v1beta2/namespaces/default/resourceclaimtemplates/t")
          .Json();
  EXPECT_EQ(v1beta2["apiVersion"], "resource.k8s.io/v1beta2");
  json nested = v1beta2["spec"]["spec"]["devices"]["requests"][0];
  EXPECT_EQ(nested["name"], "gpu");
  EXPECT_EQ(nested["exactly"]["deviceClassName"], "gpu.nvidia.com");
  EXPECT_EQ(nested["exactly"]["count"], 1);

  json slice = Slice("s", "node-1", "gpu.nvidia.com");
  slice["apiVersion"] = "resource.k8s.io/v1beta2";
  ASSERT_EQ(emu.http().Post("/apis/resource.k8s.io/v1beta2/resourceslices", slice).status, 201);
  json old = emu.http().Get("/apis/resource.k8s.io/v1beta1/resourceslices/s").Json();
  EXPECT_EQ(old["spec"]["devices"][0]["basic"]["capacity"]["memory"]["value"], "24Gi");
  EXPECT_FALSE(old["spec"]["devices"][0].contains("capacity"));

  // A watch on v1beta1 sees a write made through v1beta2 in its own shape.
  std::unique_ptr<LineStream> watch = emu.http().Stream(
      "/apis/resource.k8s.io/v1beta1/resourceslices?watch=true&resourceVersion=" + Rv(old));
  json patch = {{"metadata", {{"labels", {{"x", "y"}}}}}};
  ASSERT_EQ(emu.http().MergePatch("/apis/resource.k8s.io/v1beta2/resourceslices/s", patch).status,
            200);
  std::optional<json> e = NextOfType(*watch, "MODIFIED");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["object"]["apiVersion"], "resource.k8s.io/v1beta1");
  EXPECT_TRUE((*e)["object"]["spec"]["devices"][0].contains("basic"));
}

TEST(ProtocolTest, DraAdmission) {
  Emulator emu({"--kube-version", "1.32"});
  const std::string classes = "/apis/resource.k8s.io/v1beta1/deviceclasses";
  json bad = json::parse(kDeviceClass132);
  bad["spec"]["selectors"][0]["cel"]["expression"] = "device.driver ==";
  RawResponse rejected = emu.http().Post(classes, bad);
  ASSERT_EQ(rejected.status, 422) << rejected.body;
  json cause = rejected.Json()["details"]["causes"][0];
  EXPECT_EQ(cause["field"], "spec.selectors[0].cel.expression");
  EXPECT_THAT(cause["message"].get<std::string>(),
              HasSubstr("compilation failed: ERROR: <input>:1:"));
  EXPECT_THAT(rejected.Json()["message"].get<std::string>(),
              HasSubstr("DeviceClass.resource.k8s.io \"gpu\" is invalid"));

  // Needs the Kubernetes 1.34 environment (normalising semver) for new expressions.
  json newer = json::parse(kDeviceClass132);
  newer["spec"]["selectors"][0]["cel"]["expression"] = "semver('1.0', true) == semver('1.0.0')";
  EXPECT_EQ(emu.http().Post(classes, newer).status, 422);

  json many = json::parse(kDeviceClass132);
  for (int i = 0; i < 32; ++i) many["spec"]["selectors"].push_back(many["spec"]["selectors"][0]);
  RawResponse too_many = emu.http().Post(classes, many);
  EXPECT_EQ(too_many.status, 422);
  EXPECT_THAT(too_many.body, HasSubstr("Too many: 33: must have at most 32 items"));

  json rct = {
      {"apiVersion", "resource.k8s.io/v1beta1"},
      {"kind", "ResourceClaimTemplate"},
      {"metadata", {{"name", "t"}}},
      {"spec",
       {{"spec", {{"devices", {{"requests", {{{"name", "gpu"}, {"deviceClassName", "gpu"}}}}}}}}}}};
  const std::string templates =
      "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaimtemplates";
  ASSERT_EQ(emu.http().Post(templates, rct).status, 201);
  RawResponse immutable = emu.http().MergePatch(
      templates + "/t",
      {{"spec",
        {{"spec",
          {{"devices", {{"requests", {{{"name", "gpu"}, {"deviceClassName", "other"}}}}}}}}}}});
  EXPECT_EQ(immutable.status, 422);
  EXPECT_THAT(immutable.body, HasSubstr("field is immutable"));
  RawResponse labels_ok =
      emu.http().MergePatch(templates + "/t", {{"metadata", {{"labels", {{"a", "b"}}}}}});
  EXPECT_EQ(labels_ok.status, 200) << labels_ok.body;
  RawResponse zero = emu.http().Post(templates, [&] {
    json z = rct;
    z["metadata"]["name"] = "z";
    z["spec"]["spec"]["devices"]["requests"][0]["count"] = -1;
    return z;
  }());
  EXPECT_EQ(zero.status, 422);
  EXPECT_THAT(zero.body, HasSubstr("spec.spec.devices.requests[0].count"));
}

TEST(ProtocolTest, DraFieldsOfDisabledGatesAreDropped) {
  json dc = {{"apiVersion", "resource.k8s.io/v1"},
             {"kind", "DeviceClass"},
             {"metadata", {{"name", "gpu"}}},
             {"spec", {{"extendedResourceName", "example.com/gpu"}}}};
  Emulator off({"--kube-version", "1.34"});
  RawResponse dropped = off.http().Post("/apis/resource.k8s.io/v1/deviceclasses", dc);
  ASSERT_EQ(dropped.status, 201) << dropped.body;
  EXPECT_FALSE(dropped.Json()["spec"].contains("extendedResourceName"));
  Emulator on({"--kube-version", "1.34", "--feature-gates", "DRAExtendedResource=true"});
  RawResponse kept = on.http().Post("/apis/resource.k8s.io/v1/deviceclasses", dc);
  ASSERT_EQ(kept.status, 201) << kept.body;
  EXPECT_EQ(kept.Json()["spec"]["extendedResourceName"], "example.com/gpu");
}

const char kCrd[] = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com"},
  "spec": {"group": "example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
                                   {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"}],
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "required": ["size"], "properties": {
          "size": {"type": "integer", "minimum": 1, "maximum": 10},
          "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
          "name": {"type": "string", "pattern": "^[a-z]+$"},
          "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]}})";

json Widget(const std::string& name, json spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

TEST(ProtocolTest, CustomResourceDefinitions) {
  Emulator emu;
  RawResponse crd =
      emu.http().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json::parse(kCrd));
  ASSERT_EQ(crd.status, 201) << crd.body;
  EXPECT_THAT(crd.Json()["status"]["conditions"].dump(), HasSubstr("Established"));
  EXPECT_THAT(emu.http().Get("/apis/example.com/v1").body, HasSubstr("\"widgets/status\""));

  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  RawResponse ok = emu.http().Post(widgets, Widget("w", {{"size", 3}, {"extra", {{"any", 1}}}}));
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(ok.Json()["spec"]["mode"], "fast") << "default applied";
  EXPECT_EQ(ok.Json()["spec"]["extra"]["any"], 1) << "preserved";

  RawResponse invalid = emu.http().Post(
      widgets, Widget("bad", {{"size", "three"}, {"mode", "medium"}, {"name", "X1"}}));
  ASSERT_EQ(invalid.status, 422);
  std::string message = invalid.Json()["message"];
  EXPECT_THAT(message, HasSubstr("Widget.example.com \"bad\" is invalid"));
  EXPECT_THAT(message, HasSubstr("spec.size in body must be of type integer: \"string\""));
  EXPECT_THAT(message,
              HasSubstr("Unsupported value: \"medium\": supported values: \"fast\", \"slow\""));
  EXPECT_THAT(message, HasSubstr("spec.name in body should match '^[a-z]+$'"));
  RawResponse big = emu.http().Post(widgets, Widget("big", {{"size", 11}}));
  EXPECT_THAT(big.body, HasSubstr("should be less than or equal to 10"));
  RawResponse missing = emu.http().Post(widgets, Widget("missing", json::object()));
  EXPECT_THAT(missing.body, HasSubstr("spec.size: Required value"));

  RawResponse strict = emu.http().Post(widgets + "?fieldValidation=Strict",
                                       Widget("s", {{"size", 1}, {"unknown", true}}));
  EXPECT_EQ(strict.status, 400);
  EXPECT_THAT(strict.body, HasSubstr("strict decoding error: unknown field \\\"spec.unknown\\\""));
  RawResponse pruned = emu.http().Post(widgets, Widget("p", {{"size", 1}, {"unknown", true}}));
  ASSERT_EQ(pruned.status, 201);
  EXPECT_FALSE(pruned.Json()["spec"].contains("unknown"));

  // Status is a subresource: the main resource ignores it, /status only takes it.
  json with_status = ok.Json();
  with_status["status"] = {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
  RawResponse main_put = emu.http().Put(widgets + "/w", with_status);
  ASSERT_EQ(main_put.status, 200) << main_put.body;
  EXPECT_FALSE(main_put.Json().contains("status"));
  RawResponse status_patch = emu.http().MergePatch(
      widgets + "/w/status",
      {{"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  ASSERT_EQ(status_patch.status, 200) << status_patch.body;
  EXPECT_EQ(status_patch.Json()["status"]["conditions"][0]["status"], "True");
  EXPECT_EQ(status_patch.Json()["metadata"]["generation"], 1);

  RawResponse table = emu.http().Request("GET", widgets, "", "application/json",
                                         "application/json;as=Table;v=v1;g=meta.k8s.io");
  json t = table.Json();
  ASSERT_EQ(t["kind"], "Table") << table.body;
  EXPECT_EQ(t["columnDefinitions"][1]["name"], "Size");
  EXPECT_EQ(t["rows"][1]["cells"][0], "w");
  EXPECT_EQ(t["rows"][1]["cells"][1], 3);
  EXPECT_EQ(t["rows"][1]["cells"][2], "True");

  // Deleting the CRD deletes its objects and removes the resource.
  ASSERT_EQ(
      emu.http()
          .Delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
          .status,
      200);
  EXPECT_EQ(emu.http().Get(widgets).status, 404);
  EXPECT_EQ(emu.http()
                .Get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
                .status,
            404);
}

TEST(ProtocolTest, EventsAreServedByBothGroups) {
  Emulator emu;
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "e1"}}},
                {"involvedObject", {{"kind", "Node"}, {"name", "n1"}}},
                {"reason", "Started"},
                {"message", "hello"},
                {"type", "Normal"}};
  ASSERT_EQ(emu.http().Post("/api/v1/namespaces/default/events", event).status, 201);
  json v = emu.http().Get("/apis/events.k8s.io/v1/namespaces/default/events/e1").Json();
  EXPECT_EQ(v["note"], "hello");
  EXPECT_EQ(v["regarding"]["name"], "n1");
  json filtered =
      emu.http()
          .Get("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dn1")
          .Json();
  EXPECT_EQ(filtered["items"].size(), 1u);
}

TEST(ProtocolTest, FaultsAndAuditLog) {
  ScratchDir dir;
  Emulator emu({"--audit-log", dir.File("audit.log")});
  ASSERT_EQ(emu.http()
                .Request("POST", "/emulator/faults", "error-rate=1,error-code=429,retry-after=3")
                .status,
            200);
  RawResponse throttled = emu.http().Get(kCms);
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.Header("retry-after"), "3");
  EXPECT_EQ(throttled.Json()["reason"], "TooManyRequests");
  ASSERT_EQ(emu.http().Request("POST", "/emulator/faults", "").status, 200);
  EXPECT_EQ(emu.http().Get(kCms).status, 200);
  ASSERT_EQ(emu.http().Post(kCms, ConfigMap("audited")).status, 201);
  std::string log = ReadFile(dir.File("audit.log"));
  EXPECT_THAT(log, HasSubstr(R"("code":429)"));
  EXPECT_THAT(log, HasSubstr(R"("verb":"create")"));
  EXPECT_THAT(log, HasSubstr(R"("verb":"list")"));
  EXPECT_THAT(log, HasSubstr(R"("latencyMs":)"));
}

// error-resource narrows the injected errors to one resource: every request on it fails, none
// on another (a lease, here).
TEST(ProtocolTest, FaultsOnOneResourceOnly) {
  Emulator emu;
  ASSERT_EQ(emu.http()
                .Request("POST", "/emulator/faults",
                         "error-rate=1,error-code=409,error-resource=configmaps")
                .status,
            200);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(emu.http().Get(kCms).status, 409);
    EXPECT_EQ(emu.http().Get("/apis/coordination.k8s.io/v1/namespaces/default/leases").status, 200);
  }
  EXPECT_EQ(emu.http().Request("POST", "/emulator/faults", "error-resource=").status, 400);
}

TEST(ProtocolTest, StateSurvivesARestart) {
  ScratchDir dir;
  std::string rv;
  {
    Emulator emu({"--state", dir.File("state.json")});
    RawResponse created = emu.http().Post(kCms, ConfigMap("kept"));
    ASSERT_EQ(created.status, 201);
    rv = Rv(created.Json());
    // Killed without a clean shutdown would also keep it: the write was persisted before 201.
  }
  Emulator again({"--state", dir.File("state.json")});
  RawResponse got = again.http().Get(absl::StrCat(kCms, "/kept"));
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(Rv(got.Json()), rv);
  RawResponse next = again.http().Post(kCms, ConfigMap("later"));
  EXPECT_GT(std::stoll(Rv(next.Json())), std::stoll(rv));
}

TEST(ProtocolTest, SeedsFromManifests) {
  ScratchDir dir;
  dir.Write("seed.yaml", R"(apiVersion: v1
kind: Namespace
metadata:
  name: seeded
---
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
)");
  Emulator emu({"--kube-version", "1.32", "-f", dir.File("seed.yaml")});
  EXPECT_EQ(emu.http().Get("/api/v1/namespaces/seeded").status, 200);
  EXPECT_EQ(emu.http().Get("/apis/resource.k8s.io/v1beta1/deviceclasses/gpu.example.com").status,
            200);
}

}  // namespace
}  // namespace protocol_test
}  // namespace gpuprofile::e2e::testing
