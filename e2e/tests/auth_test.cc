// File: e2e/tests/auth_test.cc
// --tls, --token-file and --authorization RBAC: HTTPS with the generated CA (raw client and the
// real kubectl with the written kubeconfig), 401 for missing and unknown tokens, and RBAC
// decisions with kube-apiserver's exact 403 messages.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "e2e/tests/raw_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace auth_test {
namespace {

using ::testing::HasSubstr;

constexpr char kTeamReader[] = "system:serviceaccount:team:reader";

// The value of `key: value` in the kubeconfig text (first occurrence), or "".
std::string KubeconfigValue(const std::string& text, const std::string& key) {
  size_t at = text.find(key + ": ");
  if (at == std::string::npos) return "";
  size_t start = at + key.size() + 2;
  return text.substr(start, text.find('\n', start) - start);
}

struct Admin {
  std::string ca_pem;
  std::string token;
};

Admin ReadKubeconfig(const std::string& path) {
  std::string text = ReadFile(path);
  Admin admin;
  absl::Base64Unescape(KubeconfigValue(text, "certificate-authority-data"), &admin.ca_pem);
  admin.token = KubeconfigValue(text, "token");
  return admin;
}

nlohmann::json Meta(const std::string& name, const std::string& ns = "") {
  nlohmann::json m = {{"name", name}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

class AuthTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> extra) {
    dir_.Write("tokens.csv",
               absl::StrCat("# token,user,uid,groups\n", "reader-token,", kTeamReader,
                            ",uid-reader,\"system:serviceaccounts,system:serviceaccounts:team\"\n",
                            "alice-token,alice,uid-alice\n"));
    std::vector<std::string> args = {"--token-file", dir_.File("tokens.csv"), "--kubeconfig-out",
                                     dir_.File("kubeconfig")};
    args.insert(args.end(), extra.begin(), extra.end());
    emulator_ = std::make_unique<EmulatorProcess>(args);
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    admin_ = ReadKubeconfig(dir_.File("kubeconfig"));
    ASSERT_FALSE(admin_.token.empty());
  }
  RawHttpClient Client(const std::string& token) {
    RawHttpClient c(emulator_->url(), admin_.ca_pem);
    c.SetBearerToken(token);
    return c;
  }

  ScratchDir dir_;
  std::unique_ptr<EmulatorProcess> emulator_;
  Admin admin_;
};

TEST_F(AuthTest, TlsServesHttpsWithTheGeneratedCaAndAdminToken) {
  Start({"--tls"});
  ASSERT_EQ(emulator_->url().rfind("https://127.0.0.1:", 0), 0u) << emulator_->url();
  ASSERT_THAT(admin_.ca_pem, HasSubstr("BEGIN CERTIFICATE"));
  RawHttpClient admin = Client(admin_.token);
  EXPECT_EQ(admin.Get("/version").status, 200);
  EXPECT_EQ(admin.Get("/api/v1/namespaces/default").status, 200);
  // A watch streams over TLS too.
  std::unique_ptr<LineStream> watch = admin.Stream("/api/v1/namespaces/default/configmaps?watch=1");
  ASSERT_NE(watch, nullptr);
  EXPECT_EQ(watch->status(), 200);
  ASSERT_EQ(admin
                .Post("/api/v1/namespaces/default/configmaps",
                      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", Meta("c1")}})
                .status,
            201);
  std::optional<nlohmann::json> event = watch->NextEvent(absl::Seconds(5));
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ((*event)["type"], "ADDED");
  // A client that trusts another CA cannot connect.
  RawHttpClient plain(emulator_->url(), "");
  EXPECT_EQ(plain.Get("/version").status, 0);
}

TEST_F(AuthTest, MissingOrUnknownTokenGets401Status) {
  Start({});
  for (const std::string& token : {std::string(), std::string("nope")}) {
    RawResponse r = Client(token).Get("/api/v1/namespaces");
    EXPECT_EQ(r.status, 401) << token;
    nlohmann::json status = r.Json();
    EXPECT_EQ(status["kind"], "Status");
    EXPECT_EQ(status["reason"], "Unauthorized");
    EXPECT_EQ(status["message"], "Unauthorized");
    EXPECT_EQ(status["code"], 401);
  }
  // Without --authorization RBAC every known user is allowed.
  EXPECT_EQ(Client("alice-token").Get("/api/v1/nodes").status, 200);
}

TEST_F(AuthTest, AuditLogNamesTheAuthenticatedUser) {
  Start({"--audit-log", dir_.File("audit.log")});
  ASSERT_EQ(Client("reader-token").Get("/api/v1/namespaces").status, 200);
  EXPECT_EQ(Client("bad").Get("/api/v1/namespaces").status, 401);
  ASSERT_EQ(emulator_->Stop(), 0);
  std::string log = ReadFile(dir_.File("audit.log"));
  EXPECT_THAT(log, HasSubstr(absl::StrCat(R"("user":")", kTeamReader, R"(")")));
  EXPECT_THAT(log, HasSubstr(R"("code":401)"));
}

class RbacTest : public AuthTest {
 protected:
  void SetUp() override {
    Start({"--authorization", "RBAC"});
    RawHttpClient admin = Client(admin_.token);
    ASSERT_EQ(admin
                  .Post("/api/v1/namespaces",
                        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Meta("team")}})
                  .status,
              201);
    ASSERT_EQ(admin
                  .Post("/api/v1/namespaces/team/configmaps",
                        {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", Meta("cm")}})
                  .status,
              201);
    const std::string rbac = "/apis/rbac.authorization.k8s.io/v1";
    nlohmann::json role = {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "Role"},
        {"metadata", Meta("cm-reader", "team")},
        {"rules",
         {{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get", "list"}}},
          {{"apiGroups", {"coordination.k8s.io"}},
           {"resources", {"leases"}},
           {"resourceNames", {"mine"}},
           {"verbs", {"*"}}}}}};
    ASSERT_EQ(admin.Post(rbac + "/namespaces/team/roles", role).status, 201);
    nlohmann::json binding = {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "RoleBinding"},
        {"metadata", Meta("reader", "team")},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "cm-reader"}}},
        {"subjects", {{{"kind", "ServiceAccount"}, {"name", "reader"}, {"namespace", "team"}}}}};
    ASSERT_EQ(admin.Post(rbac + "/namespaces/team/rolebindings", binding).status, 201);
    nlohmann::json status_role = {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRole"},
        {"metadata", Meta("ns-status")},
        {"rules",
         {{{"apiGroups", {""}}, {"resources", {"namespaces/status"}}, {"verbs", {"get"}}}}}};
    ASSERT_EQ(admin.Post(rbac + "/clusterroles", status_role).status, 201);
    nlohmann::json group_binding = {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRoleBinding"},
        {"metadata", Meta("sa-ns-status")},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"},
          {"kind", "ClusterRole"},
          {"name", "ns-status"}}},
        {"subjects", {{{"kind", "Group"}, {"name", "system:serviceaccounts:team"}}}}};
    ASSERT_EQ(admin.Post(rbac + "/clusterrolebindings", group_binding).status, 201);
  }

  void ExpectForbidden(const RawResponse& r, const std::string& message) {
    EXPECT_EQ(r.status, 403) << r.body;
    nlohmann::json status = r.Json();
    EXPECT_EQ(status["reason"], "Forbidden");
    EXPECT_EQ(status["code"], 403);
    EXPECT_EQ(status["message"], message);
  }
};

TEST_F(RbacTest, RoleAllowsGetAndListOnItsResourceOnly) {
  RawHttpClient reader = Client("reader-token");
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team/configmaps").status, 200);
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team/configmaps/cm").status, 200);
  EXPECT_EQ(reader.Get("/version").status, 200);  // discovery is open to everyone
  EXPECT_EQ(reader.Get("/apis").status, 200);
  ExpectForbidden(reader.Get("/api/v1/namespaces/default/configmaps"),
                  "configmaps is forbidden: User \"system:serviceaccount:team:reader\" cannot list "
                  "resource \"configmaps\" in API group \"\" in the namespace \"default\"");
  ExpectForbidden(reader.Get("/api/v1/namespaces/team/configmaps?watch=1"),
                  "configmaps is forbidden: User \"system:serviceaccount:team:reader\" cannot "
                  "watch resource \"configmaps\" in API group \"\" in the namespace \"team\"");
  ExpectForbidden(
      reader.Delete("/api/v1/namespaces/team/configmaps/cm"),
      "configmaps \"cm\" is forbidden: User \"system:serviceaccount:team:reader\" cannot delete "
      "resource \"configmaps\" in API group \"\" in the namespace \"team\"");
  ExpectForbidden(reader.Get("/api/v1/nodes"),
                  "nodes is forbidden: User \"system:serviceaccount:team:reader\" cannot list "
                  "resource \"nodes\" in API group \"\" at the cluster scope");
  ExpectForbidden(reader.Get("/apis/coordination.k8s.io/v1/namespaces/team/leases"),
                  "leases.coordination.k8s.io is forbidden: User "
                  "\"system:serviceaccount:team:reader\" cannot list resource \"leases\" in API "
                  "group \"coordination.k8s.io\" in the namespace \"team\"");
  ExpectForbidden(reader.Request("GET", "/emulator-nothing"),
                  "forbidden: User \"system:serviceaccount:team:reader\" cannot get path "
                  "\"/emulator-nothing\"");
}

TEST_F(RbacTest, ResourceNamesSubresourcesAndGroupSubjects) {
  RawHttpClient reader = Client("reader-token");
  // resourceNames: only "mine"; a get of another name is forbidden (the object need not exist).
  EXPECT_EQ(reader.Get("/apis/coordination.k8s.io/v1/namespaces/team/leases/mine").status, 404);
  ExpectForbidden(reader.Get("/apis/coordination.k8s.io/v1/namespaces/team/leases/other"),
                  "leases.coordination.k8s.io \"other\" is forbidden: User "
                  "\"system:serviceaccount:team:reader\" cannot get resource \"leases\" in API "
                  "group \"coordination.k8s.io\" in the namespace \"team\"");
  // namespaces/status through a ClusterRoleBinding to the service accounts' group; the
  // namespace itself stays forbidden.
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team/status").status, 200);
  ExpectForbidden(reader.Get("/api/v1/namespaces/team"),
                  "namespaces \"team\" is forbidden: User \"system:serviceaccount:team:reader\" "
                  "cannot get resource \"namespaces\" in API group \"\" in the namespace \"team\"");
  // alice has no bindings; system:masters (the kubeconfig's admin) bypasses RBAC.
  ExpectForbidden(Client("alice-token").Get("/api/v1/namespaces/team/configmaps/cm"),
                  "configmaps \"cm\" is forbidden: User \"alice\" cannot get resource "
                  "\"configmaps\" in API group \"\" in the namespace \"team\"");
  EXPECT_EQ(Client(admin_.token).Get("/api/v1/nodes").status, 200);
}

TEST_F(RbacTest, MissingRoleIsNamedInTheReason) {
  RawHttpClient admin = Client(admin_.token);
  nlohmann::json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", Meta("dangling", "team")},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "gone"}}},
      {"subjects", {{{"kind", "User"}, {"name", "alice"}}}}};
  ASSERT_EQ(
      admin.Post("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", binding).status,
      201);
  ExpectForbidden(Client("alice-token").Get("/api/v1/namespaces/team/configmaps"),
                  "configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in "
                  "API group \"\" in the namespace \"team\": RBAC: role.rbac.authorization.k8s.io "
                  "\"gone\" not found");
}

TEST_F(RbacTest, CustomResourceStatusSubresourceIsItsOwnResource) {
  RawHttpClient admin = Client(admin_.token);
  nlohmann::json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", Meta("gpuprofiles.gpu.example.com")},
      {"spec",
       {{"group", "gpu.example.com"},
        {"scope", "Namespaced"},
        {"names", {{"plural", "gpuprofiles"}, {"singular", "gpuprofile"}, {"kind", "GpuProfile"}}},
        {"versions",
         {{{"name", "v1"},
           {"served", true},
           {"storage", true},
           {"subresources", {{"status", nlohmann::json::object()}}},
           {"schema",
            {{"openAPIV3Schema",
              {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}};
  ASSERT_EQ(admin.Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).status, 201);
  const std::string profiles = "/apis/gpu.example.com/v1/namespaces/team/gpuprofiles";
  ASSERT_EQ(admin
                .Post(profiles, {{"apiVersion", "gpu.example.com/v1"},
                                 {"kind", "GpuProfile"},
                                 {"metadata", Meta("p")},
                                 {"spec", {{"size", 1}}}})
                .status,
            201);
  nlohmann::json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                         {"kind", "ClusterRole"},
                         {"metadata", Meta("profile-status")},
                         {"rules",
                          {{{"apiGroups", {"gpu.example.com"}},
                            {"resources", {"gpuprofiles"}},
                            {"verbs", {"get", "list", "watch"}}},
                           {{"apiGroups", {"gpu.example.com"}},
                            {"resources", {"gpuprofiles/status", "gpuprofiles/finalizers"}},
                            {"verbs", {"update", "patch"}}}}}};
  ASSERT_EQ(admin.Post("/apis/rbac.authorization.k8s.io/v1/clusterroles", role).status, 201);
  nlohmann::json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", Meta("profile-status", "team")},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"},
        {"kind", "ClusterRole"},
        {"name", "profile-status"}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", "reader"}}}}};  // namespace defaulted
  ASSERT_EQ(
      admin.Post("/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings", binding).status,
      201);
  RawHttpClient reader = Client("reader-token");
  EXPECT_EQ(reader.Get(profiles + "/p").status, 200);
  EXPECT_EQ(reader.MergePatch(profiles + "/p/status", {{"status", {{"ready", true}}}}).status, 200);
  ExpectForbidden(reader.MergePatch(profiles + "/p", {{"spec", {{"size", 2}}}}),
                  "gpuprofiles.gpu.example.com \"p\" is forbidden: User "
                  "\"system:serviceaccount:team:reader\" cannot patch resource \"gpuprofiles\" in "
                  "API group \"gpu.example.com\" in the namespace \"team\"");
  // The binding is namespaced: the same request in another namespace is denied.
  ExpectForbidden(reader.Get("/apis/gpu.example.com/v1/namespaces/default/gpuprofiles"),
                  "gpuprofiles.gpu.example.com is forbidden: User "
                  "\"system:serviceaccount:team:reader\" cannot list resource \"gpuprofiles\" in "
                  "API group \"gpu.example.com\" in the namespace \"default\"");
}

TEST_F(AuthTest, KubectlOverHttpsWithTheWrittenKubeconfig) {
  std::string dir = KubectlDir();
  if (dir.empty() || !std::filesystem::exists(dir + "/kubectl.1.33")) {
    GTEST_SKIP() << "kubectl (kubectl.1.33) is not installed";
  }
  Start({"--tls", "--authorization", "RBAC"});
  std::vector<std::string> base = {dir + "/kubectl.1.33", "--kubeconfig", dir_.File("kubeconfig"),
                                   "--cache-dir", dir_.File("cache")};
  auto kubectl = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, absl::Seconds(60));
  };
  CommandResult ns = kubectl({"get", "namespaces", "-o", "name"});
  EXPECT_EQ(ns.exit_code, 0) << ns.out;
  EXPECT_THAT(ns.out, HasSubstr("namespace/kube-system"));
  CommandResult who = kubectl({"get", "nodes", "--token", "reader-token"});
  EXPECT_NE(who.exit_code, 0);
  EXPECT_THAT(who.out, HasSubstr("nodes is forbidden: User \"system:serviceaccount:team:reader\" "
                                 "cannot list resource \"nodes\" in API group \"\" at the cluster "
                                 "scope"));
}

}  // namespace
}  // namespace auth_test
}  // namespace gpuprofile::e2e::testing
