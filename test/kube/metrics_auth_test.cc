// File: test/kube/metrics_auth_test.cc
// The /metrics authentication and authorization (metrics_auth.h) over a scripted transport and a
// FakeClock: the review bodies, decoding the answers (and refusing malformed ones), the answers
// 401/403/500 as controller-runtime's filter gives them, the caches' TTLs on the clock and their
// bound, and that tokens are not kept.
#include "controller/kube/metrics_auth.h"

#include <memory>
#include <string>
#include <vector>

#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace metrics_auth_test {
namespace {

using testing::ErrorReply;
using testing::FakeTransport;
using testing::JsonReply;
using testing::Reply;
using testing::StatusReply;

constexpr char kTokenReviews[] = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr char kAccessReviews[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

// The answer kube-apiserver gives to a TokenReview (201, the review with its status).
Reply TokenAnswer(const nlohmann::json& request, bool authenticated, const std::string& user = "",
                  std::vector<std::string> groups = {}) {
  nlohmann::json review = request;
  review["metadata"] = {{"creationTimestamp", nullptr}};
  nlohmann::json status = {{"user", nlohmann::json::object()}};
  if (authenticated) {
    status["authenticated"] = true;
    status["user"] = {{"username", user}, {"uid", "uid-" + user}, {"groups", groups}};
    status["audiences"] = {"https://kubernetes.default.svc.cluster.local"};
  }
  review["status"] = status;
  return JsonReply(201, review);
}

Reply AccessAnswer(const nlohmann::json& request, bool allowed, const std::string& reason = "") {
  nlohmann::json review = request;
  review["status"] = {{"allowed", allowed}};
  if (!reason.empty()) review["status"]["reason"] = reason;
  return JsonReply(201, review);
}

// A fake API server: tokens "good-*" are user "<rest>", "good-reader" is allowed /metrics.
class MetricsAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    transport_.SetHandler([this](const HttpRequest& r) -> Reply {
      nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
      if (r.method == "POST" && r.path == kTokenReviews) {
        const std::string token = body["spec"].value("token", "");
        if (token.rfind("good-", 0) != 0) return TokenAnswer(body, false);
        return TokenAnswer(body, true, token.substr(5), {"team", "system:authenticated"});
      }
      if (r.method == "POST" && r.path == kAccessReviews) {
        return AccessAnswer(body, body["spec"].value("user", "") == "reader");
      }
      ADD_FAILURE() << r.method << " " << r.path;
      return StatusReply(404, "NotFound", "no");
    });
    RestClientOptions client_options;
    client_options.clock = &clock_;
    client_options.qps = 0;
    client_options.max_retries = 0;
    client_ = std::make_unique<RestClient>(&transport_, client_options);
    MetricsAuthOptions options;
    options.client = client_.get();
    options.clock = &clock_;
    options.max_entries = 3;
    options.log_error = [this](const std::string& message,
                               const std::vector<std::pair<std::string, std::string>>& fields) {
      std::string line = message;
      for (const auto& [k, v] : fields) line += " " + k + "=" + v;
      errors_.push_back(line);
    };
    auth_ = std::make_unique<MetricsAuthorizer>(std::move(options));
  }

  size_t Requests(const std::string& path) {
    size_t n = 0;
    for (const HttpRequest& r : transport_.requests()) n += r.path == path ? 1 : 0;
    return n;
  }

  runtime::FakeClock clock_;
  FakeTransport transport_;
  std::unique_ptr<RestClient> client_;
  std::unique_ptr<MetricsAuthorizer> auth_;
  std::vector<std::string> errors_;
};

TEST(BearerTokenOfTest, SchemeIsCaseInsensitiveAndTokenRequired) {
  EXPECT_EQ(BearerTokenOf("Bearer abc"), "abc");
  EXPECT_EQ(BearerTokenOf("bearer abc"), "abc");
  EXPECT_EQ(BearerTokenOf("BEARER abc extra"), "abc");
  EXPECT_EQ(BearerTokenOf(""), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Bearer"), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Bearer "), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Basic YWxpY2U6cHc="), std::nullopt);
}

TEST(ReviewBodiesTest, TokenAndNonResourceAccessReviews) {
  EXPECT_EQ(TokenReviewBody("t0k"),
            nlohmann::json::parse(R"({"apiVersion":"authentication.k8s.io/v1",
                                      "kind":"TokenReview","spec":{"token":"t0k"}})"));
  ReviewedUser user{"system:serviceaccount:monitoring:prometheus", "uid-1",
                    {"system:serviceaccounts", "system:authenticated"},
                    {{"authentication.kubernetes.io/pod-name", {"prometheus-0"}}}};
  EXPECT_EQ(SubjectAccessReviewBody(user, "get", "/metrics"), nlohmann::json::parse(R"({
      "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
      "spec": {"user": "system:serviceaccount:monitoring:prometheus", "uid": "uid-1",
               "groups": ["system:serviceaccounts", "system:authenticated"],
               "extra": {"authentication.kubernetes.io/pod-name": ["prometheus-0"]},
               "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}})"));
  // Without uid and extra the fields are left out; groups always sent.
  EXPECT_EQ(SubjectAccessReviewBody(ReviewedUser{"alice", "", {}, {}}, "head", "/metrics")["spec"],
            nlohmann::json::parse(R"({"user":"alice","groups":[],
                "nonResourceAttributes":{"path":"/metrics","verb":"head"}})"));
}

TEST(DecodeTokenReviewTest, ReadsUserAndRefusesMalformedAnswers) {
  absl::StatusOr<TokenReviewOutcome> ok = DecodeTokenReview(nlohmann::json::parse(R"({
      "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
      "status": {"authenticated": true, "audiences": ["x"],
                 "user": {"username": "bob", "uid": "u", "groups": ["g1", "g2"],
                          "extra": {"k": ["v1", "v2"]}}}})"));
  ASSERT_OK(ok);
  EXPECT_TRUE(ok->authenticated);
  EXPECT_EQ(ok->user.username, "bob");
  EXPECT_EQ(ok->user.uid, "u");
  EXPECT_EQ(ok->user.groups, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(ok->user.extra.at("k"), (std::vector<std::string>{"v1", "v2"}));
  absl::StatusOr<TokenReviewOutcome> rejected = DecodeTokenReview(nlohmann::json::parse(R"({
      "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
      "status": {"user": {}, "error": "token expired"}})"));
  ASSERT_OK(rejected);
  EXPECT_FALSE(rejected->authenticated);
  EXPECT_EQ(rejected->error, "token expired");
  struct Case {
    const char* json;
    const char* field;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"apiVersion":"v1","kind":"Status","status":"Failure"})", "kind/apiVersion"},
           {R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview"})", "status"},
           {R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
                "status":{"authenticated":"yes"}})",
            "status.authenticated"},
           {R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
                "status":{"authenticated":true,"user":{"username":"a","groups":"g"}}})",
            "status.user.groups"},
           {R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
                "status":{"authenticated":true,"user":{"username":"a","extra":{"k":[1]}}}})",
            "status.user.extra[k]"},
           {R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
                "status":{"authenticated":true,"user":{}}})",
            "status.user.username"},
           {R"([1,2])", "the body"}}) {
    absl::StatusOr<TokenReviewOutcome> got = DecodeTokenReview(nlohmann::json::parse(c.json));
    ASSERT_FALSE(got.ok()) << c.json;
    EXPECT_TRUE(absl::IsInvalidArgument(got.status()));
    EXPECT_NE(got.status().message().find(c.field), absl::string_view::npos) << got.status();
  }
}

TEST(DecodeSubjectAccessReviewTest, ReadsDecisionAndRefusesMalformedAnswers) {
  absl::StatusOr<AccessReviewOutcome> got = DecodeSubjectAccessReview(nlohmann::json::parse(R"({
      "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
      "status": {"allowed": true, "reason": "RBAC: allowed by ClusterRoleBinding \"b\""}})"));
  ASSERT_OK(got);
  EXPECT_TRUE(got->allowed);
  EXPECT_FALSE(got->denied);
  EXPECT_EQ(got->reason, "RBAC: allowed by ClusterRoleBinding \"b\"");
  absl::StatusOr<AccessReviewOutcome> none = DecodeSubjectAccessReview(nlohmann::json::parse(
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{}})"));
  ASSERT_OK(none);
  EXPECT_FALSE(none->allowed);
  for (const char* bad : {
           R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
               "status":{"allowed":1}})",
           R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
               "status":{"allowed":true,"denied":true}})",
           R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
               "status":{"reason":7}})",
           R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{}})"}) {
    EXPECT_FALSE(DecodeSubjectAccessReview(nlohmann::json::parse(bad)).ok()) << bad;
  }
}

TEST(ExpiringLruCacheTest, ExpiresOnTheGivenClockAndEvictsLeastRecentlyUsed) {
  ExpiringLruCache<int> cache(2);
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  cache.Put("a", 1, absl::Seconds(10), t0);
  cache.Put("b", 2, absl::Seconds(10), t0);
  EXPECT_EQ(cache.Get("a", t0 + absl::Seconds(9)), 1);  // "a" is now the most recent
  cache.Put("c", 3, absl::Seconds(10), t0);              // evicts "b"
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Get("b", t0), std::nullopt);
  EXPECT_EQ(cache.Get("c", t0), 3);
  EXPECT_EQ(cache.Get("a", t0 + absl::Seconds(10)), std::nullopt);  // expired exactly at ttl
  EXPECT_EQ(cache.size(), 1u);
  cache.Put("c", 4, absl::Seconds(1), t0 + absl::Seconds(20));  // replaces, new ttl
  EXPECT_EQ(cache.Get("c", t0 + absl::Seconds(20)), 4);
  EXPECT_EQ(cache.Get("c", t0 + absl::Seconds(21)), std::nullopt);
}

TEST_F(MetricsAuthTest, AllowedUserPassesAndIsCached) {
  EXPECT_EQ(auth_->Check("Bearer good-reader", "get", "/metrics").status, 0);
  ASSERT_EQ(transport_.request_count(), 2u);
  const std::vector<HttpRequest> sent = transport_.requests();
  nlohmann::json token_review = nlohmann::json::parse(sent[0].body);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(token_review["spec"]["token"], "good-reader");
  nlohmann::json access_review = nlohmann::json::parse(sent[1].body);
  EXPECT_EQ(access_review["spec"]["user"], "reader");
  EXPECT_EQ(access_review["spec"]["uid"], "uid-reader");
  EXPECT_EQ(access_review["spec"]["groups"], nlohmann::json({"team", "system:authenticated"}));
  EXPECT_EQ(access_review["spec"]["nonResourceAttributes"],
            nlohmann::json({{"path", "/metrics"}, {"verb", "get"}}));
  // A scrape every 15 s for 59 s: no further reviews (token 1 min, allow 5 min).
  for (int i = 0; i < 4; ++i) {
    clock_.Advance(absl::Seconds(14));
    EXPECT_EQ(auth_->Check("Bearer good-reader", "get", "/metrics").status, 0);
  }
  EXPECT_EQ(transport_.request_count(), 2u);
  // After 1 min the token is reviewed again; the allow decision (5 min) still holds.
  clock_.Advance(absl::Seconds(4));
  EXPECT_EQ(auth_->Check("Bearer good-reader", "get", "/metrics").status, 0);
  EXPECT_EQ(Requests(kTokenReviews), 2u);
  EXPECT_EQ(Requests(kAccessReviews), 1u);
  clock_.Advance(absl::Minutes(5));
  EXPECT_EQ(auth_->Check("Bearer good-reader", "get", "/metrics").status, 0);
  EXPECT_EQ(Requests(kTokenReviews), 3u);
  EXPECT_EQ(Requests(kAccessReviews), 2u);
  EXPECT_EQ(auth_->token_reviews(), 3);
  EXPECT_EQ(auth_->access_reviews(), 2);
  EXPECT_TRUE(errors_.empty());
}

TEST_F(MetricsAuthTest, MissingOrRejectedTokenIs401AndRejectionIsCachedForAMinute) {
  MetricsAuthVerdict none = auth_->Check("", "get", "/metrics");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body, "Unauthorized\n");
  EXPECT_EQ(auth_->Check("Basic YWxpY2U6cHc=", "get", "/metrics").status, 401);
  EXPECT_EQ(transport_.request_count(), 0u);  // nothing to review
  EXPECT_EQ(auth_->Check("Bearer forged", "get", "/metrics").status, 401);
  EXPECT_EQ(auth_->Check("Bearer forged", "get", "/metrics").status, 401);
  EXPECT_EQ(Requests(kTokenReviews), 1u);
  EXPECT_EQ(Requests(kAccessReviews), 0u);
  clock_.Advance(absl::Minutes(1));
  EXPECT_EQ(auth_->Check("Bearer forged", "get", "/metrics").status, 401);
  EXPECT_EQ(Requests(kTokenReviews), 2u);
}

TEST_F(MetricsAuthTest, DeniedUserIs403AndDenialIsCachedForThirtySeconds) {
  MetricsAuthVerdict denied = auth_->Check("Bearer good-alice", "get", "/metrics");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body, "Authorization denied for user alice\n");
  EXPECT_EQ(auth_->Check("Bearer good-alice", "get", "/metrics").status, 403);
  EXPECT_EQ(Requests(kAccessReviews), 1u);
  clock_.Advance(absl::Seconds(30));
  EXPECT_EQ(auth_->Check("Bearer good-alice", "get", "/metrics").status, 403);
  EXPECT_EQ(Requests(kAccessReviews), 2u);
  // Another verb or path is another decision.
  EXPECT_EQ(auth_->Check("Bearer good-alice", "head", "/metrics").status, 403);
  EXPECT_EQ(Requests(kAccessReviews), 3u);
}

TEST_F(MetricsAuthTest, ReviewFailuresAre500LoggedAndNotCached) {
  transport_.Push(StatusReply(403, "Forbidden",
                              "tokenreviews.authentication.k8s.io is forbidden: User \"op\" "
                              "cannot create resource \"tokenreviews\""));
  MetricsAuthVerdict failed = auth_->Check("Bearer good-reader", "get", "/metrics");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body, "Authentication failed\n");
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("TokenReview failed"), std::string::npos) << errors_[0];
  EXPECT_NE(errors_[0].find("cannot create resource"), std::string::npos) << errors_[0];
  // Not cached: the next scrape reviews again, and passes.
  EXPECT_EQ(auth_->Check("Bearer good-reader", "get", "/metrics").status, 0);

  transport_.Push(TokenAnswer(TokenReviewBody("good-other"), true, "other"));
  transport_.Push(ErrorReply(absl::UnavailableError("connection refused")));
  MetricsAuthVerdict unavailable = auth_->Check("Bearer good-other", "get", "/metrics");
  EXPECT_EQ(unavailable.status, 500);
  EXPECT_EQ(unavailable.body, "Authorization for user other failed\n");
  ASSERT_EQ(errors_.size(), 2u);
  EXPECT_NE(errors_[1].find("SubjectAccessReview failed"), std::string::npos) << errors_[1];
  EXPECT_NE(errors_[1].find("user=other"), std::string::npos) << errors_[1];
  // A malformed answer is a failure too, not a decision.
  transport_.Push(JsonReply(201, {{"kind", "SubjectAccessReview"}}));
  EXPECT_EQ(auth_->Check("Bearer good-other", "get", "/metrics").status, 500);
  EXPECT_EQ(errors_.size(), 3u);
}

TEST_F(MetricsAuthTest, CachesAreBoundedAndKeepNoToken) {
  // max_entries is 3: ten different tokens leave at most three reviews cached.
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(auth_->Check("Bearer good-reader-" + std::to_string(i), "get", "/metrics").status,
              403);
  }
  EXPECT_EQ(Requests(kTokenReviews), 10u);
  // The first tokens were evicted: reviewed again.
  EXPECT_EQ(auth_->Check("Bearer good-reader-0", "get", "/metrics").status, 403);
  EXPECT_EQ(Requests(kTokenReviews), 11u);
  // The most recent one is still cached.
  EXPECT_EQ(auth_->Check("Bearer good-reader-9", "get", "/metrics").status, 403);
  EXPECT_EQ(Requests(kTokenReviews), 11u);
}

TEST_F(MetricsAuthTest, WrappedHandlersRunOnlyWhenAllowed) {
  int served = 0;
  EndpointHandlers handlers;
  handlers["/metrics"] = [&served](const EndpointRequest&) {
    ++served;
    return EndpointResponse{200, "text/plain", "up 1\n"};
  };
  EndpointHandlers wrapped = WithMetricsAuth(std::move(handlers), auth_.get());
  EndpointRequest request;
  request.method = "GET";
  request.path = "/metrics";
  EXPECT_EQ(wrapped["/metrics"](request).status, 401);
  request.authorization = "Bearer good-alice";
  EXPECT_EQ(wrapped["/metrics"](request).status, 403);
  EXPECT_EQ(served, 0);
  request.authorization = "Bearer good-reader";
  EndpointResponse ok = wrapped["/metrics"](request);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "up 1\n");
  EXPECT_EQ(served, 1);
  // HEAD is checked as verb "head", as controller-runtime lower-cases the method.
  request.method = "HEAD";
  wrapped["/metrics"](request);
  nlohmann::json last = nlohmann::json::parse(transport_.requests().back().body);
  EXPECT_EQ(last["spec"]["nonResourceAttributes"]["verb"], "head");
}

}  // namespace
}  // namespace metrics_auth_test
}  // namespace gpuprofile::kube
