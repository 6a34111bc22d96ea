// File: e2e/tests/review_handlers_test.cc
// kube-emulator's TokenReview and SubjectAccessReview in process (review_handlers.h), and through
// the front end and API server (routing, the caller's own RBAC check, discovery): answers,
// kube-apiserver's validation errors, RBAC decisions with their reasons.
#include "e2e/emulator/review_handlers.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "e2e/emulator/api_server.h"
#include "e2e/emulator/frontend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::e2e {
namespace review_handlers_test {
namespace {

using nlohmann::json;

HttpRequest ReviewPost(const std::string& path, const json& body) {
  HttpRequest r;
  r.method = "POST";
  r.path = path;
  r.headers["content-type"] = "application/json";
  r.body = body.dump();
  return r;
}

json TokenReviewOf(const std::string& token, std::vector<std::string> audiences = {}) {
  json review = {{"apiVersion", "authentication.k8s.io/v1"},
                 {"kind", "TokenReview"},
                 {"spec", {{"token", token}}}};
  if (!audiences.empty()) review["spec"]["audiences"] = audiences;
  return review;
}

json AccessReviewOf(const json& spec) {
  return {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
}

TokenAuthenticator Tokens() {
  return [](const std::string& token) -> std::optional<UserInfo> {
    if (token != "reader-token") return std::nullopt;
    return UserInfo{"system:serviceaccount:monitoring:prometheus", "uid-prom",
                    {"system:serviceaccounts", "system:authenticated"}};
  };
}

RbacObjectPtr Rbac(json object) { return std::make_shared<const json>(std::move(object)); }

// metrics-reader bound to the prometheus service account (ClusterRoleBinding), and a namespaced
// Role for configmaps bound to a group; one binding points at a role that does not exist.
RbacObjects Fixture() {
  RbacObjects rbac;
  rbac.cluster_roles.push_back(Rbac({{"metadata", {{"name", "metrics-reader"}}},
                                     {"rules", {{{"nonResourceURLs", {"/metrics"}},
                                                 {"verbs", {"get"}}}}}}));
  rbac.cluster_role_bindings.push_back(
      Rbac({{"metadata", {{"name", "prom"}}},
            {"roleRef", {{"kind", "ClusterRole"}, {"name", "metrics-reader"}}},
            {"subjects",
             {{{"kind", "ServiceAccount"}, {"name", "prometheus"}, {"namespace", "monitoring"}}}}}));
  rbac.roles.push_back(Rbac({{"metadata", {{"name", "cm"}, {"namespace", "team"}}},
                             {"rules",
                              {{{"apiGroups", {""}},
                                {"resources", {"configmaps"}},
                                {"verbs", {"get"}}}}}}));
  rbac.role_bindings.push_back(Rbac({{"metadata", {{"name", "devs"}, {"namespace", "team"}}},
                                     {"roleRef", {{"kind", "Role"}, {"name", "cm"}}},
                                     {"subjects", {{{"kind", "Group"}, {"name", "devs"}}}}}));
  rbac.role_bindings.push_back(Rbac({{"metadata", {{"name", "dangling"}, {"namespace", "team"}}},
                                     {"roleRef", {{"kind", "Role"}, {"name", "gone"}}},
                                     {"subjects", {{{"kind", "User"}, {"name", "carol"}}}}}));
  return rbac;
}

TEST(TokenReviewTest, KnownTokenIsAuthenticatedWithUserAndAudiences) {
  HttpResponse r = TokenReviewResponse(ReviewPost(kTokenReviewsPath, TokenReviewOf("reader-token")),
                                       Tokens());
  ASSERT_EQ(r.status, 201) << r.body;
  json review = json::parse(r.body);
  EXPECT_EQ(review["kind"], "TokenReview");
  EXPECT_EQ(review["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(review["spec"]["token"], "reader-token");
  EXPECT_EQ(review["status"], json::parse(R"({
      "authenticated": true,
      "user": {"username": "system:serviceaccount:monitoring:prometheus", "uid": "uid-prom",
               "groups": ["system:serviceaccounts", "system:authenticated"]},
      "audiences": ["https://kubernetes.default.svc.cluster.local"]})"));
}

TEST(TokenReviewTest, UnknownTokenOrForeignAudienceIsNotAuthenticated) {
  for (const json& body : {TokenReviewOf("nope"), TokenReviewOf("reader-token", {"vault"})}) {
    HttpResponse r = TokenReviewResponse(ReviewPost(kTokenReviewsPath, body), Tokens());
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(json::parse(r.body)["status"], json::parse(R"({"user": {}})")) << body.dump();
  }
  // An audience the API server accepts, among others, is answered with just that one.
  HttpResponse r = TokenReviewResponse(
      ReviewPost(kTokenReviewsPath,
                 TokenReviewOf("reader-token", {"vault", kApiAudience})),
      Tokens());
  EXPECT_EQ(json::parse(r.body)["status"]["audiences"], json::array({kApiAudience}));
}

TEST(TokenReviewTest, MissingTokenAndMalformedBodiesAre400) {
  HttpResponse missing = TokenReviewResponse(
      ReviewPost(kTokenReviewsPath, {{"apiVersion", "authentication.k8s.io/v1"},
                                     {"kind", "TokenReview"},
                                     {"spec", json::object()}}),
      Tokens());
  EXPECT_EQ(missing.status, 400);
  json status = json::parse(missing.body);
  EXPECT_EQ(status["reason"], "BadRequest");
  EXPECT_EQ(status["message"], "token is required for TokenReview in authentication");
  HttpRequest junk = ReviewPost(kTokenReviewsPath, nullptr);
  junk.body = "{not json";
  EXPECT_EQ(TokenReviewResponse(junk, Tokens()).status, 400);
  HttpResponse wrong_kind = TokenReviewResponse(
      ReviewPost(kTokenReviewsPath, AccessReviewOf({{"user", "x"}})), Tokens());
  EXPECT_EQ(wrong_kind.status, 400);
}

TEST(SubjectAccessReviewTest, NonResourceDecisionsWithKubeApiserverReasons) {
  const KubeVersion kube{34};
  HttpResponse allowed = SubjectAccessReviewResponse(
      ReviewPost(kSubjectAccessReviewsPath,
                 AccessReviewOf({{"user", "system:serviceaccount:monitoring:prometheus"},
                                 {"groups", {"system:serviceaccounts"}},
                                 {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}})),
      Fixture(), /*rbac_mode=*/true, kube);
  ASSERT_EQ(allowed.status, 201) << allowed.body;
  json review = json::parse(allowed.body);
  EXPECT_EQ(review["status"],
            json({{"allowed", true},
                  {"reason",
                   "RBAC: allowed by ClusterRoleBinding \"prom\" of ClusterRole \"metrics-reader\" "
                   "to ServiceAccount \"prometheus/monitoring\""}}));
  EXPECT_EQ(review["spec"]["nonResourceAttributes"]["path"], "/metrics");

  // Another verb, another path, another user: no opinion, so not allowed and not denied.
  for (const json& spec : {
           json{{"user", "system:serviceaccount:monitoring:prometheus"},
                {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "post"}}}},
           json{{"user", "system:serviceaccount:monitoring:prometheus"},
                {"nonResourceAttributes", {{"path", "/debug"}, {"verb", "get"}}}},
           json{{"user", "alice"}, {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}}}) {
    HttpResponse r = SubjectAccessReviewResponse(
        ReviewPost(kSubjectAccessReviewsPath, AccessReviewOf(spec)), Fixture(), true, kube);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(json::parse(r.body)["status"], json({{"allowed", false}})) << spec.dump();
  }
  // Under AlwaysAllow everything is allowed.
  HttpResponse always = SubjectAccessReviewResponse(
      ReviewPost(kSubjectAccessReviewsPath,
                 AccessReviewOf({{"user", "alice"},
                                 {"nonResourceAttributes", {{"path", "/x"}, {"verb", "get"}}}})),
      Fixture(), /*rbac_mode=*/false, kube);
  EXPECT_EQ(json::parse(always.body)["status"], json({{"allowed", true}}));
}

TEST(SubjectAccessReviewTest, ResourceDecisionsThroughRoleBindingsAndMissingRoles) {
  const KubeVersion kube{34};
  auto decide = [&](const json& spec) {
    HttpResponse r = SubjectAccessReviewResponse(
        ReviewPost(kSubjectAccessReviewsPath, AccessReviewOf(spec)), Fixture(), true, kube);
    EXPECT_EQ(r.status, 201) << r.body;
    return json::parse(r.body)["status"];
  };
  json cm = {{"namespace", "team"}, {"verb", "get"}, {"resource", "configmaps"}, {"name", "x"}};
  EXPECT_EQ(decide({{"user", "bob"}, {"groups", {"devs"}}, {"resourceAttributes", cm}}),
            json({{"allowed", true},
                  {"reason",
                   "RBAC: allowed by RoleBinding \"devs/team\" of Role \"cm\" to Group \"devs\""}}));
  json other_ns = cm;
  other_ns["namespace"] = "default";
  EXPECT_EQ(decide({{"user", "bob"}, {"groups", {"devs"}}, {"resourceAttributes", other_ns}}),
            json({{"allowed", false}}));
  EXPECT_EQ(decide({{"user", "carol"}, {"resourceAttributes", cm}}),
            json({{"allowed", false},
                  {"reason", "RBAC: role.rbac.authorization.k8s.io \"gone\" not found"}}));
  // system:masters is allowed everything, with no RBAC reason.
  EXPECT_EQ(decide({{"user", "admin"}, {"groups", {"system:masters"}}, {"resourceAttributes", cm}}),
            json({{"allowed", true}}));
}

TEST(SubjectAccessReviewTest, MissingSpecFieldsAreKubeApiserversInvalid) {
  HttpResponse empty = SubjectAccessReviewResponse(
      ReviewPost(kSubjectAccessReviewsPath, AccessReviewOf(json::object())), Fixture(), true,
      KubeVersion{34});
  ASSERT_EQ(empty.status, 422) << empty.body;
  json status = json::parse(empty.body);
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["message"],
            ".authorization.k8s.io \"\" is invalid: [spec.resourceAttributes: Invalid value: "
            "null: exactly one of nonResourceAttributes or resourceAttributes must be specified, "
            "spec.user: Invalid value: \"\": at least one of user or group must be specified]");
  EXPECT_EQ(status["details"]["group"], "authorization.k8s.io");
  ASSERT_EQ(status["details"]["causes"].size(), 2u);
  EXPECT_EQ(status["details"]["causes"][0]["field"], "spec.resourceAttributes");
  EXPECT_EQ(status["details"]["causes"][1]["field"], "spec.user");

  // From 1.37 the attributes union is reported on `spec`.
  HttpResponse no_attributes = SubjectAccessReviewResponse(
      ReviewPost(kSubjectAccessReviewsPath, AccessReviewOf({{"user", "alice"}})), Fixture(), true,
      KubeVersion{37});
  EXPECT_EQ(json::parse(no_attributes.body)["message"],
            ".authorization.k8s.io \"\" is invalid: spec: Invalid value: null: exactly one of "
            "nonResourceAttributes or resourceAttributes must be specified");

  // Groups alone are a subject; both attribute kinds at once are not allowed.
  HttpResponse groups_only = SubjectAccessReviewResponse(
      ReviewPost(kSubjectAccessReviewsPath,
                 AccessReviewOf({{"groups", {"devs"}},
                                 {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}})),
      Fixture(), true, KubeVersion{34});
  EXPECT_EQ(groups_only.status, 201) << groups_only.body;
  HttpResponse both = SubjectAccessReviewResponse(
      ReviewPost(kSubjectAccessReviewsPath,
                 AccessReviewOf({{"user", "alice"},
                                 {"resourceAttributes", {{"verb", "get"}, {"resource", "pods"}}},
                                 {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}})),
      Fixture(), true, KubeVersion{34});
  ASSERT_EQ(both.status, 422);
  EXPECT_EQ(json::parse(both.body)["details"]["causes"][0]["field"], "spec.nonResourceAttributes");
}

// Through the front end: the caller needs `create` on the review resource under RBAC; the
// reviews are in discovery with the one verb "create" and cannot be read back.
class ReviewFrontendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.kube_version = KubeVersion{34};
    absl::StatusOr<std::unique_ptr<ApiServer>> server = ApiServer::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    frontend_ = std::make_unique<Frontend>(server_.get(), FaultConfig{}, "", "");
    AuthConfig auth;
    auth.authenticate = true;
    auth.rbac = true;
    auth.tokens["admin-token"] = UserInfo{"admin", "", {"system:masters", "system:authenticated"}};
    auth.tokens["op-token"] = UserInfo{"operator", "", {"system:authenticated"}};
    auth.tokens["prom-token"] = UserInfo{"prometheus", "", {"system:authenticated"}};
    frontend_->SetAuth(std::move(auth));
  }

  HttpResponse As(const std::string& token, HttpRequest request) {
    request.headers["authorization"] = "Bearer " + token;
    return frontend_->Handle(request);
  }

  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<Frontend> frontend_;
};

TEST_F(ReviewFrontendTest, CallerMustBeAllowedToCreateReviews) {
  HttpRequest review = ReviewPost(kTokenReviewsPath, TokenReviewOf("prom-token"));
  HttpResponse forbidden = As("op-token", review);
  EXPECT_EQ(forbidden.status, 403);
  EXPECT_EQ(json::parse(forbidden.body)["message"],
            "tokenreviews.authentication.k8s.io is forbidden: User \"operator\" cannot create "
            "resource \"tokenreviews\" in API group \"authentication.k8s.io\" at the cluster scope");
  // Grant it as config/rbac/metrics_auth_role.yaml does.
  HttpRequest role = ReviewPost(
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "ClusterRole"},
       {"metadata", {{"name", "metrics-auth-role"}}},
       {"rules",
        {{{"apiGroups", {"authentication.k8s.io"}}, {"resources", {"tokenreviews"}}, {"verbs", {"create"}}},
         {{"apiGroups", {"authorization.k8s.io"}},
          {"resources", {"subjectaccessreviews"}},
          {"verbs", {"create"}}}}}});
  ASSERT_EQ(As("admin-token", role).status, 201);
  HttpRequest binding = ReviewPost(
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "ClusterRoleBinding"},
       {"metadata", {{"name", "metrics-auth-rolebinding"}}},
       {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "metrics-auth-role"}}},
       {"subjects", {{{"kind", "User"}, {"name", "operator"}}}}});
  ASSERT_EQ(As("admin-token", binding).status, 201);
  HttpResponse reviewed = As("op-token", review);
  ASSERT_EQ(reviewed.status, 201) << reviewed.body;
  EXPECT_EQ(json::parse(reviewed.body)["status"]["user"]["username"], "prometheus");
  HttpResponse access = As(
      "op-token",
      ReviewPost(kSubjectAccessReviewsPath,
                 AccessReviewOf({{"user", "prometheus"},
                                 {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}})));
  ASSERT_EQ(access.status, 201) << access.body;
  EXPECT_EQ(json::parse(access.body)["status"]["allowed"], false);
}

TEST_F(ReviewFrontendTest, DiscoveredAsCreateOnlyAndNeverStored) {
  HttpRequest discovery;
  discovery.method = "GET";
  discovery.path = "/apis/authentication.k8s.io/v1";
  HttpResponse list = As("admin-token", discovery);
  ASSERT_EQ(list.status, 200) << list.body;
  json resources = json::parse(list.body)["resources"];
  ASSERT_EQ(resources.size(), 1u) << resources.dump();
  EXPECT_EQ(resources[0]["name"], "tokenreviews");
  EXPECT_EQ(resources[0]["kind"], "TokenReview");
  EXPECT_EQ(resources[0]["namespaced"], false);
  EXPECT_EQ(resources[0]["verbs"], json::array({"create"}));
  discovery.path = "/apis/authorization.k8s.io/v1";
  HttpResponse authz = As("admin-token", discovery);
  ASSERT_EQ(authz.status, 200);
  EXPECT_EQ(json::parse(authz.body)["resources"][0]["name"], "subjectaccessreviews");

  ASSERT_EQ(As("admin-token", ReviewPost(kTokenReviewsPath, TokenReviewOf("prom-token"))).status,
            201);
  HttpRequest get;
  get.method = "GET";
  get.path = kTokenReviewsPath;
  EXPECT_EQ(As("admin-token", get).status, 405);
  EXPECT_TRUE(server_->Objects("tokenreviews.authentication.k8s.io").empty());
}

}  // namespace
}  // namespace review_handlers_test
}  // namespace gpuprofile::e2e
