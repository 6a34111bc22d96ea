// File: test/kube/cpprest_endpoint_server_test.cc
// The endpoint server's pure helpers (bind addresses, routing, queries), and the real cpprest
// server on 127.0.0.1:0 serving /metrics, /healthz and /readyz, read back over HTTP with the
// project's own cpprest transport.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/kube/cpprest_transport.h"
#include "controller/kube/endpoint_server.h"
#include "controller/kube/http_transport.h"
#include "controller/runtime/health_checks.h"
#include "controller/runtime/metrics.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace cpprest_endpoint_server_test {
namespace {

TEST(ParseBindAddressTest, KubebuilderForms) {
  struct Case {
    std::string address;
    std::optional<BindAddress> want;
  };
  for (const Case& c : std::vector<Case>{
           {"0", std::nullopt},
           {"", std::nullopt},
           {":8080", BindAddress{"0.0.0.0", 8080}},
           {"127.0.0.1:8081", BindAddress{"127.0.0.1", 8081}},
           {"localhost:0", BindAddress{"localhost", 0}},
           {"[::1]:9443", BindAddress{"::1", 9443}},
       }) {
    absl::StatusOr<std::optional<BindAddress>> got = ParseBindAddress(c.address);
    ASSERT_OK(got);
    ASSERT_EQ(got->has_value(), c.want.has_value()) << c.address;
    if (c.want) {
      EXPECT_EQ((*got)->host, c.want->host) << c.address;
      EXPECT_EQ((*got)->port, c.want->port) << c.address;
    }
  }
  for (const std::string bad : {"8080", "127.0.0.1", ":http", ":70000", ":-1", "::1:80", "[::1",
                                "[::1]8080", "[]:80", "host:"}) {
    absl::StatusOr<std::optional<BindAddress>> got = ParseBindAddress(bad);
    ASSERT_FALSE(got.ok()) << bad;
    EXPECT_TRUE(absl::IsInvalidArgument(got.status())) << got.status();
    EXPECT_NE(got.status().message().find("\"" + bad + "\""), absl::string_view::npos)
        << got.status();
  }
}

TEST(RouteEndpointTest, ExactThenLongestPrefix) {
  EndpointHandlers handlers;
  for (const char* path : {"/healthz", "/readyz", "/metrics", "/debug/", "/debug/pprof"}) {
    handlers[path] = [](const EndpointRequest&) { return EndpointResponse{}; };
  }
  EXPECT_EQ(RouteEndpoint(handlers, "/healthz"), "/healthz");
  EXPECT_EQ(RouteEndpoint(handlers, "/healthz/ping"), "/healthz");
  EXPECT_EQ(RouteEndpoint(handlers, "/debug/pprof/heap"), "/debug/pprof");
  EXPECT_EQ(RouteEndpoint(handlers, "/debug/vars"), "/debug/");
  EXPECT_EQ(RouteEndpoint(handlers, "/healthzz"), std::nullopt);
  EXPECT_EQ(RouteEndpoint(handlers, "/"), std::nullopt);
}

TEST(ParseQueryTest, DecodesAndKeepsOrderAndRepeats) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(ParseQuery("verbose&exclude=a%2Db&exclude=c+d&x=%zz"),
            (Pairs{{"verbose", ""}, {"exclude", "a-b"}, {"exclude", "c d"}, {"x", "%zz"}}));
  EXPECT_EQ(ParseQuery(""), Pairs{});
}

class CpprestEndpointServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<runtime::CounterFamily*> family = registry_.RegisterCounter(
        "controller_runtime_reconcile_total", "Total number of reconciliations per controller",
        {"controller", "result"});
    ASSERT_OK(family);
    (*family)->WithLabels({"gpuprofile", "success"})->Inc(3);
    ASSERT_OK(readyz_.Add("informers-synced", [this] {
      return synced_ ? absl::OkStatus() : absl::UnavailableError("not synced");
    }));
    EndpointHandlers handlers = MetricsHandlers(&registry_);
    handlers.merge(ProbeHandlers(&healthz_, &readyz_));
    server_ = NewCpprestEndpointServer(std::move(handlers));
    absl::StatusOr<int> port = server_->Start("127.0.0.1:0");
    ASSERT_OK(port);
    ASSERT_GT(*port, 0);
    port_ = *port;
    CpprestTransportOptions options;
    options.server = absl::StrCat("http://127.0.0.1:", port_);
    absl::StatusOr<std::unique_ptr<HttpTransport>> transport = NewCpprestTransport(options);
    ASSERT_OK(transport);
    transport_ = *std::move(transport);
  }

  HttpResponse Fetch(const std::string& path, const std::string& method = "GET") {
    HttpRequest request;
    request.method = method;
    request.path = path;
    request.timeout = absl::Seconds(10);
    absl::StatusOr<HttpResponse> response = transport_->Send(request);
    EXPECT_OK(response);
    return response.ok() ? *response : HttpResponse{};
  }

  runtime::MetricsRegistry registry_;
  runtime::HealthChecks healthz_{"healthz"};
  runtime::HealthChecks readyz_{"readyz"};
  std::atomic<bool> synced_{false};
  std::unique_ptr<EndpointServer> server_;
  int port_ = 0;
  std::unique_ptr<HttpTransport> transport_;
};

TEST_F(CpprestEndpointServerTest, ServesMetricsInTheTextFormat) {
  HttpResponse r = Fetch("/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.body, registry_.TextExposition());
  EXPECT_NE(r.body.find("controller_runtime_reconcile_total{controller=\"gpuprofile\","
                        "result=\"success\"} 3\n"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(Fetch("/metrics/extra").status, 404);
}

TEST_F(CpprestEndpointServerTest, ServesHealthzAndReadyzAsControllerRuntime) {
  HttpResponse healthz = Fetch("/healthz");
  EXPECT_EQ(healthz.status, 200);
  EXPECT_EQ(healthz.body, "ok");
  EXPECT_EQ(healthz.Header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(Fetch("/healthz/ping").body, "ok");

  HttpResponse not_ready = Fetch("/readyz");
  EXPECT_EQ(not_ready.status, 500);
  EXPECT_EQ(not_ready.body,
            "[-]informers-synced failed: reason withheld\n[+]ping ok\nhealthz check failed\n");
  HttpResponse one = Fetch("/readyz/informers-synced");
  EXPECT_EQ(one.status, 500);
  EXPECT_EQ(one.body, "internal server error: not synced\n");
  HttpResponse excluded = Fetch("/readyz?exclude=informers-synced");
  EXPECT_EQ(excluded.status, 200);

  synced_ = true;
  HttpResponse ready = Fetch("/readyz?verbose");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, "[+]informers-synced ok\n[+]ping ok\nhealthz check passed\n");
  EXPECT_EQ(Fetch("/readyz").body, "ok");
}

TEST_F(CpprestEndpointServerTest, UnknownPathsAndMethodsAreRefused) {
  EXPECT_EQ(Fetch("/").status, 404);
  EXPECT_EQ(Fetch("/healthz/unknown").status, 404);
  EXPECT_EQ(Fetch("/metrics", "POST").status, 405);
  HttpResponse head = Fetch("/healthz", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

TEST_F(CpprestEndpointServerTest, StartTwiceOrOnATakenPortFailsAndStopCloses) {
  absl::StatusOr<int> again = server_->Start("127.0.0.1:0");
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();

  std::unique_ptr<EndpointServer> rival =
      NewCpprestEndpointServer(ProbeHandlers(&healthz_, &readyz_));
  absl::StatusOr<int> taken = rival->Start(absl::StrCat("127.0.0.1:", port_));
  EXPECT_TRUE(absl::IsUnavailable(taken.status())) << taken.status();

  server_->Stop();
  server_->Stop();  // idempotent
  HttpRequest request;
  request.path = "/healthz";
  request.timeout = absl::Seconds(5);
  EXPECT_FALSE(transport_->Send(request).ok());
}

TEST(CpprestEndpointServerDisabledTest, ZeroDisablesTheServer) {
  std::unique_ptr<EndpointServer> server = NewCpprestEndpointServer({});
  absl::StatusOr<int> port = server->Start("0");
  ASSERT_OK(port);
  EXPECT_EQ(*port, 0);
  EXPECT_TRUE(absl::IsInvalidArgument(server->Start("nonsense").status()));
  server->Stop();
}

}  // namespace
}  // namespace cpprest_endpoint_server_test
}  // namespace gpuprofile::kube
