// File: test/kube/rest_client_test.cc
// RestClient over a scripted transport and a FakeClock: request shapes, error mapping, retries,
// Retry-After, rate limiting, pagination, re-authentication and metrics. No sleeps: waits happen
// on the fake clock and the test moves it.
#include "controller/kube/rest_client.h"

#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace rest_client_test {
namespace {

using testing::ErrorReply;
using testing::FakeTransport;
using testing::JsonReply;
using testing::QueryParam;
using testing::Reply;
using testing::StatusReply;

const ResourcePath kConfigMaps{"", "v1", "configmaps", "default", "", ""};
const ResourcePath kSlices{"resource.k8s.io", "v1", "resourceslices", "", "", ""};

nlohmann::json ConfigMap(const std::string& name, const std::string& rv = "1") {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}}};
}

class RestClientTest : public ::testing::Test {
 protected:
  RestClientOptions Options() {
    RestClientOptions o;
    o.clock = &clock_;
    o.uniform = [] { return 0.5; };  // no jitter: delays are exactly the interval
    return o;
  }
  std::string Header(const HttpRequest& r, const std::string& name) {
    HttpResponse as_response;
    as_response.headers = r.headers;
    return as_response.Header(name);
  }

  // Polls (with a real-time deadline) until some thread waits on the clock until exactly `t`.
  bool WaitForWaiterUntil(absl::Time t) {
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (absl::Now() < give_up) {
      if (clock_.EarliestDeadline() == t) return true;
      std::this_thread::yield();
    }
    return false;
  }

  runtime::FakeClock clock_;
  FakeTransport transport_;
};

TEST(ResourcePathTest, BuildsCoreGroupNamespacedAndSubresourcePaths) {
  EXPECT_EQ(kConfigMaps.Path(), "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(kConfigMaps.WithName("x").WithSubresource("status").Path(),
            "/api/v1/namespaces/default/configmaps/x/status");
  EXPECT_EQ(kSlices.WithName("node-1-gpu").Path(),
            "/apis/resource.k8s.io/v1/resourceslices/node-1-gpu");
  EXPECT_EQ(kConfigMaps.WithNamespace("").Path(), "/api/v1/configmaps");
}

TEST(QueryEscapeTest, EscapesSelectorsAsRfc3986) {
  EXPECT_EQ(QueryEscape("app in (a,b),tier!=db"), "app%20in%20%28a%2Cb%29%2Ctier%21%3Ddb");
  EXPECT_EQ(QueryEscape("metadata.name=x"), "metadata.name%3Dx");
}

TEST_F(RestClientTest, GetSendsJsonAcceptUserAgentAndBearerToken) {
  RestClientOptions o = Options();
  o.credentials = std::make_shared<StaticCredentialProvider>(Credentials{"s3cret", "", ""});
  RestClient client(&transport_, o);
  transport_.Push(JsonReply(200, ConfigMap("x")));
  ASSERT_OK_AND_ASSIGN(nlohmann::json object, client.Get(kConfigMaps.WithName("x")));
  EXPECT_EQ(object["metadata"]["name"], "x");
  HttpRequest r = transport_.requests().at(0);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/api/v1/namespaces/default/configmaps/x");
  EXPECT_EQ(Header(r, "Accept"), "application/json");
  EXPECT_EQ(Header(r, "Authorization"), "Bearer s3cret");
  EXPECT_EQ(Header(r, "User-Agent"), "gpu-profile-operator");
}

// Hostile or broken servers (controller/core/input_limits.h): a body nested past the limit is
// DataLoss naming the request, checked before nlohmann parses it; an error body that deep is not
// parsed at all (the HTTP status still counts).
TEST_F(RestClientTest, DeeplyNestedBodiesAreDataLossNamingTheRequest) {
  RestClient client(&transport_, Options());
  Reply deep;
  deep.response.status = 200;
  deep.response.body = R"({"apiVersion": "v1", "kind": "ConfigMap", "data": )" +
                       std::string(100'000, '[');
  transport_.Push(deep);
  absl::StatusOr<nlohmann::json> object = client.Get(kConfigMaps.WithName("x"));
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(object.status().message(),
            "GET /api/v1/namespaces/default/configmaps/x: the 200 response: JSON nests deeper "
            "than 256 levels (at byte 306, line 1)");

  Reply deep_error = deep;
  deep_error.response.status = 404;
  deep_error.response.body = std::string(100'000, '{');
  transport_.Push(deep_error);
  object = client.Get(kConfigMaps.WithName("x"));
  ASSERT_FALSE(object.ok());
  EXPECT_TRUE(apierrors::IsNotFound(object.status())) << object.status();
}

// A caller that needs only the outcome gets null, and the body is not read: an answer that does
// not parse is then no error. Errors still are.
TEST_F(RestClientTest, WritesThatAskForNoAnswerDoNotParseIt) {
  RestClient client(&transport_, Options());
  Reply broken;
  broken.response.status = 200;
  broken.response.body = "{\"kind\": \"ConfigMap\", ";
  transport_.Push(broken);
  transport_.Push(broken);
  transport_.Push(broken);
  transport_.Push(StatusReply(409, "Conflict", "the object has been modified"));
  WriteOptions w;
  w.parse_response = false;
  absl::StatusOr<nlohmann::json> created = client.Create(kConfigMaps, ConfigMap("x"), w);
  ASSERT_OK(created);
  EXPECT_TRUE(created->is_null());
  absl::StatusOr<nlohmann::json> patched =
      client.Patch(kConfigMaps.WithName("x"), PatchType::kMerge, {{"data", {{"a", "b"}}}}, w);
  ASSERT_OK(patched);
  EXPECT_TRUE(patched->is_null());
  ASSERT_OK(client.Update(kConfigMaps.WithName("x"), ConfigMap("x", "7"), w));
  EXPECT_TRUE(apierrors::IsConflict(
      client.Update(kConfigMaps.WithName("x"), ConfigMap("x", "7"), w).status()));

  // Asking for the answer (the default), the same body is DataLoss.
  transport_.Push(broken);
  absl::StatusOr<nlohmann::json> parsed = client.Create(kConfigMaps, ConfigMap("x"));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(RestClientTest, WritesUseTheRightVerbsContentTypesAndQueries) {
  RestClient client(&transport_, Options());
  transport_.SetHandler([](const HttpRequest& r) { return JsonReply(200, ConfigMap("x")); });
  WriteOptions w;
  w.field_manager = "gpu-profile-operator";
  w.dry_run = true;
  ASSERT_OK(client.Create(kConfigMaps, ConfigMap("x"), w));
  ASSERT_OK(client.Update(kConfigMaps.WithName("x"), ConfigMap("x", "7")));
  ASSERT_OK(client.UpdateStatus(kConfigMaps.WithName("x"), ConfigMap("x", "7")));
  ASSERT_OK(client.Patch(kConfigMaps.WithName("x"), PatchType::kMerge, {{"data", {{"a", "b"}}}}));
  ASSERT_OK(client.Patch(kConfigMaps.WithName("x"), PatchType::kJson,
                         nlohmann::json::array({{{"op", "remove"}, {"path", "/data/a"}}})));
  std::vector<HttpRequest> r = transport_.requests();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].method, "POST");
  EXPECT_EQ(r[0].path,
            "/api/v1/namespaces/default/configmaps?fieldManager=gpu-profile-operator&dryRun=All");
  EXPECT_EQ(Header(r[0], "Content-Type"), "application/json");
  EXPECT_EQ(nlohmann::json::parse(r[0].body), ConfigMap("x"));
  EXPECT_EQ(r[1].method, "PUT");
  EXPECT_EQ(r[1].path, "/api/v1/namespaces/default/configmaps/x");
  EXPECT_EQ(r[2].path, "/api/v1/namespaces/default/configmaps/x/status");
  EXPECT_EQ(r[3].method, "PATCH");
  EXPECT_EQ(Header(r[3], "Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(Header(r[4], "Content-Type"), "application/json-patch+json");
}

TEST_F(RestClientTest, DeleteSendsPreconditionsAndPropagationPolicy) {
  RestClient client(&transport_, Options());
  transport_.Push(JsonReply(200, {{"kind", "Status"}, {"status", "Success"}}));
  DeleteOptions d;
  d.precondition_uid = "u-1";
  d.precondition_resource_version = "42";
  d.propagation = PropagationPolicy::kForeground;
  ASSERT_OK(client.Delete(kConfigMaps.WithName("x"), d));
  HttpRequest r = transport_.requests().at(0);
  EXPECT_EQ(r.method, "DELETE");
  nlohmann::json body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["kind"], "DeleteOptions");
  EXPECT_EQ(body["preconditions"], (nlohmann::json{{"uid", "u-1"}, {"resourceVersion", "42"}}));
  EXPECT_EQ(body["propagationPolicy"], "Foreground");
}

TEST_F(RestClientTest, ErrorsAreTypedAndNotRetried) {
  RestClient client(&transport_, Options());
  transport_.Push(StatusReply(404, "NotFound", "configmaps \"x\" not found"));
  transport_.Push(StatusReply(409, "AlreadyExists", "configmaps \"x\" already exists"));
  transport_.Push(StatusReply(409, "Conflict", "the object has been modified"));
  transport_.Push(StatusReply(422, "Invalid", "ConfigMap \"X\" is invalid"));
  transport_.Push(StatusReply(403, "Forbidden", "forbidden"));
  EXPECT_TRUE(apierrors::IsNotFound(client.Get(kConfigMaps.WithName("x")).status()));
  EXPECT_TRUE(apierrors::IsAlreadyExists(client.Create(kConfigMaps, ConfigMap("x")).status()));
  EXPECT_TRUE(apierrors::IsConflict(client.Update(kConfigMaps.WithName("x"), ConfigMap("x")).status()));
  EXPECT_TRUE(apierrors::IsInvalid(client.Create(kConfigMaps, ConfigMap("X")).status()));
  EXPECT_TRUE(apierrors::IsForbidden(client.Get(kConfigMaps.WithName("x")).status()));
  EXPECT_EQ(transport_.request_count(), 5u);
}

TEST_F(RestClientTest, TooManyRequestsWaitsRetryAfterOnTheClockEvenForCreate) {
  RestClient client(&transport_, Options());
  transport_.Push(StatusReply(429, "TooManyRequests", "slow down", {{"Retry-After", "2"}}));
  transport_.Push(JsonReply(201, ConfigMap("x")));
  absl::StatusOr<nlohmann::json> result;
  absl::Notification done;
  std::thread caller([&] {
    result = client.Create(kConfigMaps, ConfigMap("x"));
    done.Notify();
  });
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(clock_.EarliestDeadline(), clock_.Now() + absl::Seconds(2));
  clock_.Advance(absl::Milliseconds(1999));
  EXPECT_FALSE(done.HasBeenNotified());
  clock_.Advance(absl::Milliseconds(1));
  done.WaitForNotification();
  caller.join();
  ASSERT_OK(result);
  EXPECT_EQ(transport_.request_count(), 2u);
}

TEST_F(RestClientTest, ServerErrorsOnGetAreRetriedWithGrowingBackoff) {
  RestClient client(&transport_, Options());
  transport_.Push(StatusReply(503, "ServiceUnavailable", "busy"));
  transport_.Push(StatusReply(500, "InternalError", "oops"));
  transport_.Push(ErrorReply(absl::UnavailableError("connection refused")));
  transport_.Push(JsonReply(200, ConfigMap("x")));
  absl::StatusOr<nlohmann::json> result;
  std::thread caller([&] { result = client.Get(kConfigMaps.WithName("x")); });
  // Backoff with no jitter: 200 ms, 400 ms, 800 ms, each from the end of the previous wait.
  absl::Time at = clock_.Now();
  for (absl::Duration expected :
       {absl::Milliseconds(200), absl::Milliseconds(400), absl::Milliseconds(800)}) {
    at += expected;
    ASSERT_TRUE(WaitForWaiterUntil(at)) << "no wait until " << at;
    clock_.SetTime(at);
  }
  caller.join();
  ASSERT_OK(result);
  EXPECT_EQ(transport_.request_count(), 4u);
}

TEST_F(RestClientTest, ServerErrorsAndResetsOnCreateAndPatchAreNotRetried) {
  RestClient client(&transport_, Options());
  transport_.Push(StatusReply(500, "InternalError", "oops"));
  transport_.Push(ErrorReply(absl::UnavailableError("connection reset by peer")));
  EXPECT_TRUE(apierrors::IsInternalError(client.Create(kConfigMaps, ConfigMap("x")).status()));
  absl::Status reset =
      client.Patch(kConfigMaps.WithName("x"), PatchType::kMerge, {{"data", nullptr}}).status();
  EXPECT_EQ(reset.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(reset.message().find("PATCH /api/v1/namespaces/default/configmaps/x"),
            absl::string_view::npos);
  EXPECT_EQ(transport_.request_count(), 2u);
}

TEST_F(RestClientTest, GivesUpAfterMaxRetries) {
  RestClientOptions o = Options();
  o.max_retries = 2;
  o.retry_backoff.initial = absl::ZeroDuration();
  RestClient client(&transport_, o);
  transport_.SetHandler([](const HttpRequest&) { return StatusReply(503, "", "busy"); });
  EXPECT_TRUE(apierrors::IsServiceUnavailable(client.Get(kConfigMaps.WithName("x")).status()));
  EXPECT_EQ(transport_.request_count(), 3u);
}

TEST_F(RestClientTest, UnauthorizedInvalidatesCredentialsAndRetriesOnce) {
  class CountingProvider : public CredentialProvider {
   public:
    absl::StatusOr<Credentials> Get() override {
      return Credentials{absl::StrCat("token-", generation), "", ""};
    }
    void Invalidate() override { ++generation; }
    int generation = 1;
  };
  auto provider = std::make_shared<CountingProvider>();
  RestClientOptions o = Options();
  o.credentials = provider;
  RestClient client(&transport_, o);
  transport_.Push(StatusReply(401, "Unauthorized", "Unauthorized"));
  transport_.Push(JsonReply(200, ConfigMap("x")));
  ASSERT_OK(client.Get(kConfigMaps.WithName("x")));
  std::vector<HttpRequest> r = transport_.requests();
  EXPECT_EQ(Header(r[0], "Authorization"), "Bearer token-1");
  EXPECT_EQ(Header(r[1], "Authorization"), "Bearer token-2");
  // A second 401 in a row is the answer.
  transport_.Push(StatusReply(401, "Unauthorized", "Unauthorized"));
  transport_.Push(StatusReply(401, "Unauthorized", "Unauthorized"));
  EXPECT_TRUE(apierrors::IsUnauthorized(client.Get(kConfigMaps.WithName("x")).status()));
}

TEST_F(RestClientTest, ListFollowsContinueTokensAndFillsKinds) {
  RestClient client(&transport_, Options());
  transport_.SetHandler([](const HttpRequest& r) {
    const std::string cont = QueryParam(r.path, "continue");
    EXPECT_EQ(QueryParam(r.path, "limit"), "2");
    EXPECT_EQ(QueryParam(r.path, "labelSelector"), "app%3Dgpu");
    nlohmann::json items = nlohmann::json::array();
    std::string next;
    if (cont.empty()) {
      items = {{{"metadata", {{"name", "a"}}}}, {{"metadata", {{"name", "b"}}}}};
      next = "page2";
    } else {
      EXPECT_EQ(cont, "page2");
      items = {{{"metadata", {{"name", "c"}}}}};
    }
    return JsonReply(200, {{"apiVersion", "v1"},
                           {"kind", "ConfigMapList"},
                           {"metadata", {{"resourceVersion", cont.empty() ? "10" : "11"},
                                         {"continue", next}}},
                           {"items", items}});
  });
  ListOptions options;
  options.limit = 2;
  options.label_selector = "app=gpu";
  ASSERT_OK_AND_ASSIGN(ObjectList list, client.ListAll(kConfigMaps, options));
  ASSERT_EQ(list.items.size(), 3u);
  EXPECT_EQ(list.items[2]["metadata"]["name"], "c");
  EXPECT_EQ(list.items[0]["kind"], "ConfigMap");
  EXPECT_EQ(list.items[0]["apiVersion"], "v1");
  EXPECT_EQ(list.resource_version, "11");
  EXPECT_EQ(transport_.request_count(), 2u);
}

TEST_F(RestClientTest, ExpiredContinueTokenRestartsTheListOnce) {
  RestClient client(&transport_, Options());
  auto page = [](std::vector<std::string> names, const std::string& next) {
    nlohmann::json items = nlohmann::json::array();
    for (const std::string& n : names) items.push_back({{"metadata", {{"name", n}}}});
    return JsonReply(200, {{"kind", "ConfigMapList"},
                           {"metadata", {{"resourceVersion", "5"}, {"continue", next}}},
                           {"items", items}});
  };
  transport_.Push(page({"a"}, "t1"));
  transport_.Push(StatusReply(410, "Expired", "The provided continue parameter is too old"));
  transport_.Push(page({"a"}, "t2"));
  transport_.Push(page({"b"}, ""));
  ListOptions options;
  options.limit = 1;
  ASSERT_OK_AND_ASSIGN(ObjectList list, client.ListAll(kConfigMaps, options));
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0]["metadata"]["name"], "a");
  EXPECT_EQ(list.items[1]["metadata"]["name"], "b");
}

TEST_F(RestClientTest, ClientSideRateLimitSpacesRequestsOnTheClock) {
  RestClientOptions o = Options();
  o.qps = 2;
  o.burst = 1;
  RestClient client(&transport_, o);
  transport_.SetHandler([](const HttpRequest&) { return JsonReply(200, ConfigMap("x")); });
  ASSERT_OK(client.Get(kConfigMaps.WithName("x")));
  absl::Notification done;
  std::thread caller([&] {
    EXPECT_OK(client.Get(kConfigMaps.WithName("x")));
    done.Notify();
  });
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(clock_.EarliestDeadline(), clock_.Now() + absl::Milliseconds(500));
  EXPECT_EQ(transport_.request_count(), 1u);
  clock_.Advance(absl::Milliseconds(500));
  done.WaitForNotification();
  caller.join();
  EXPECT_EQ(transport_.request_count(), 2u);
}

TEST_F(RestClientTest, StopCancelsARetryWait) {
  RestClient client(&transport_, Options());
  transport_.SetHandler([](const HttpRequest&) {
    return StatusReply(429, "TooManyRequests", "later", {{"Retry-After", "60"}});
  });
  absl::Status status;
  std::thread caller([&] { status = client.Get(kConfigMaps.WithName("x")).status(); });
  clock_.BlockUntilWaiters(1);
  client.Stop();
  caller.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
}

TEST_F(RestClientTest, CountsRequestsByCodeMethodAndHost) {
  runtime::MetricsRegistry registry;
  RestClientOptions o = Options();
  o.metrics = &registry;
  o.max_retries = 0;
  RestClient client(&transport_, o);
  transport_.Push(JsonReply(200, ConfigMap("x")));
  transport_.Push(StatusReply(404, "NotFound", "nope"));
  transport_.Push(ErrorReply(absl::UnavailableError("refused")));
  ASSERT_OK(client.Get(kConfigMaps.WithName("x")));
  EXPECT_FALSE(client.Get(kConfigMaps.WithName("y")).ok());
  EXPECT_FALSE(client.Get(kConfigMaps.WithName("z")).ok());
  const std::string text = registry.TextExposition();
  EXPECT_NE(text.find("rest_client_requests_total{code=\"200\",host=\"fake:443\",method=\"GET\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rest_client_requests_total{code=\"404\",host=\"fake:443\",method=\"GET\"} 1"),
            std::string::npos);
  EXPECT_NE(
      text.find("rest_client_requests_total{code=\"<error>\",host=\"fake:443\",method=\"GET\"} 1"),
      std::string::npos);
}

TEST_F(RestClientTest, WatchBuildsTheQueryAndDeliversLines) {
  RestClient client(&transport_, Options());
  transport_.Push(testing::WatchReply({{{"type", "ADDED"}, {"object", ConfigMap("a")}}}));
  WatchOptions w;
  w.resource_version = "17";
  w.timeout_seconds = 300;
  w.field_selector = "metadata.name=a";
  std::vector<std::string> lines;
  ASSERT_OK(client.Watch(kConfigMaps, w,
                         [&](absl::string_view line) {
                           lines.emplace_back(line);
                           return true;
                         },
                         nullptr));
  ASSERT_EQ(lines.size(), 1u);
  HttpRequest r = transport_.requests().at(0);
  EXPECT_EQ(r.path,
            "/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Da"
            "&resourceVersion=17&allowWatchBookmarks=true&timeoutSeconds=300");
  EXPECT_EQ(r.timeout, absl::Minutes(5));
  transport_.Push(StatusReply(410, "Expired", "too old resource version"));
  EXPECT_TRUE(apierrors::IsGone(client.Watch(kConfigMaps, w, [](absl::string_view) { return true; },
                                  nullptr)));
}

}  // namespace
}  // namespace rest_client_test
}  // namespace gpuprofile::kube
