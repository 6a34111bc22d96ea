// File: test/kube/kubeconfig_test.cc
// Kubeconfig parsing, kubectl's merge rules, context selection, in-cluster configuration and the
// order LoadClientConfig follows — all over in-memory fakes of the filesystem and environment.
#include "controller/kube/kubeconfig.h"

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "controller/core/input_limits.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_host.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace kubeconfig_test {
namespace {

using testing::FakeEnvironment;
using testing::FakeFileSystem;
using testing::FakeProcessRunner;

constexpr char kDev[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: https://dev.example:6443
    certificate-authority: certs/ca.crt
users:
- name: alice
  user:
    client-certificate: certs/alice.crt
    client-key: /abs/alice.key
contexts:
- name: dev
  context:
    cluster: dev
    user: alice
    namespace: team-a
)";

constexpr char kProd[] = R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod
  cluster:
    server: https://prod.example
    insecure-skip-tls-verify: true
- name: dev
  cluster:
    server: https://shadowed.example
users:
- name: bot
  user:
    token: abc
contexts:
- name: prod
  context: {cluster: prod, user: bot}
)";

class KubeconfigTest : public ::testing::Test {
 protected:
  HostEnv Host() { return HostEnv{&fs_, &env_, &runner_, &clock_}; }
  std::string Message(const absl::Status& s) { return std::string(s.message()); }

  FakeFileSystem fs_;
  FakeEnvironment env_;
  FakeProcessRunner runner_;
  runtime::FakeClock clock_;
};

TEST_F(KubeconfigTest, ParsesClustersUsersContextsAndResolvesRelativePaths) {
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, ParseKubeconfig(kDev, "/home/u/.kube/config"));
  EXPECT_EQ(c.current_context, "dev");
  EXPECT_EQ(c.clusters.at("dev").server, "https://dev.example:6443");
  EXPECT_EQ(c.clusters.at("dev").certificate_authority, "/home/u/.kube/certs/ca.crt");
  EXPECT_EQ(c.users.at("alice").client_certificate, "/home/u/.kube/certs/alice.crt");
  EXPECT_EQ(c.users.at("alice").client_key, "/abs/alice.key");
  EXPECT_EQ(c.contexts.at("dev").namespace_name, "team-a");
}

TEST_F(KubeconfigTest, DecodesBase64DataFields) {
  const std::string pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  std::string text = absl::StrCat(
      "clusters:\n- name: c\n  cluster:\n    server: https://x\n"
      "    certificate-authority-data: ",
      absl::Base64Escape(pem), "\n");
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, ParseKubeconfig(text, "k"));
  EXPECT_EQ(c.clusters.at("c").certificate_authority_data, pem);
}

TEST_F(KubeconfigTest, MalformedFieldsAreAllReportedWithFileEntryAndField) {
  absl::StatusOr<Kubeconfig> c = ParseKubeconfig(R"(clusters:
- name: a
  cluster:
    server: https://a
    certificate-authority-data: "not base64!"
    insecure-skip-tls-verify: maybe
- cluster: {server: https://b}
)",
                                                 "/k/config");
  ASSERT_FALSE(c.ok());
  const std::string m = Message(c.status());
  EXPECT_NE(m.find("kubeconfig /k/config:"), std::string::npos) << m;
  EXPECT_NE(m.find("clusters[0] (\"a\").cluster.certificate-authority-data is not valid base64"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("clusters[0] (\"a\").cluster.insecure-skip-tls-verify must be true or false"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("clusters[1].name is missing"), std::string::npos) << m;
}

TEST_F(KubeconfigTest, InvalidYamlNamesLineAndColumn) {
  absl::StatusOr<Kubeconfig> c = ParseKubeconfig("clusters: [\n  {name: a\n", "/k/config");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(Message(c.status()).find("kubeconfig /k/config: not valid YAML at line"),
            std::string::npos)
      << c.status();
}

// Hostile kubeconfigs (controller/core/input_limits.h): errors name the file, never a crash.
TEST_F(KubeconfigTest, HostileInputIsRefusedNamingTheFile) {
  auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"clusters: " + repeat("[", 100'000), "kubeconfig /k/config: line 1, column "},
      {"clusters: " + repeat("[", 100'000) + repeat("]", 100'000),
       "nest deeper than 256 levels"},
      {repeat("- ", 100'000) + "x\n", "nest deeper than 256 levels"},
      {std::string(limits::kMaxKubeconfigBytes + 1, '#'),
       "kubeconfig /k/config: the file is 16777217 bytes, over the limit of 16777216 bytes"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Kubeconfig> parsed = ParseKubeconfig(c.text, "/k/config");
    ASSERT_FALSE(parsed.ok()) << c.text.substr(0, 40);
    EXPECT_NE(Message(parsed.status()).find(c.message), std::string::npos) << parsed.status();
  }
}

TEST_F(KubeconfigTest, AnAliasBombIsReadWithoutExpandingIt) {
  // yaml-cpp shares aliased nodes, and the reader visits fixed fields: 10^9 entries on paper,
  // ten "must be a mapping" errors in practice.
  std::string text = "l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n";
  for (int level = 1; level <= 9; ++level) {
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *l" : "*l") + std::to_string(level - 1);
    text += "]\n";
  }
  text += "clusters: *l9\n";
  absl::StatusOr<Kubeconfig> parsed = ParseKubeconfig(text, "/k/config");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(Message(parsed.status()).find("kubeconfig /k/config:"), std::string::npos);
  EXPECT_NE(Message(parsed.status()).find("clusters[9] must be a mapping"), std::string::npos)
      << parsed.status();
}

TEST_F(KubeconfigTest, KubeconfigListMergesFirstWinsAndSkipsMissingFiles) {
  fs_.Write("/a", kDev);
  fs_.Write("/b", kProd);
  env_.Set("KUBECONFIG", "/missing::/a:/b:/a");
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, LoadKubeconfig({}, Host()));
  EXPECT_EQ(c.files, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(c.current_context, "dev");  // from the first file that sets it
  EXPECT_EQ(c.current_context_file, "/a");
  EXPECT_EQ(c.clusters.at("dev").server, "https://dev.example:6443");  // first wins
  EXPECT_EQ(c.clusters.at("prod").server, "https://prod.example");
  EXPECT_EQ(c.users.size(), 2u);
}

TEST_F(KubeconfigTest, CurrentContextComesFromTheFirstFileThatSetsIt) {
  fs_.Write("/a", "clusters:\n- name: x\n  cluster: {server: https://x}\n");
  fs_.Write("/b", kProd);
  env_.Set("KUBECONFIG", "/a:/b");
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, LoadKubeconfig({}, Host()));
  EXPECT_EQ(c.current_context, "prod");
  EXPECT_EQ(c.current_context_file, "/b");
}

TEST_F(KubeconfigTest, ExplicitKubeconfigMustExistAndWinsOverTheEnvironment) {
  env_.Set("KUBECONFIG", "/a");
  fs_.Write("/a", kDev);
  absl::StatusOr<Kubeconfig> c = LoadKubeconfig({"/nope", ""}, Host());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(Message(c.status()).find("kubeconfig /nope (from --kubeconfig) cannot be read"),
            std::string::npos)
      << c.status();
}

TEST_F(KubeconfigTest, NoExistingFileInKubeconfigListIsAnError) {
  env_.Set("KUBECONFIG", "/x:/y");
  absl::StatusOr<Kubeconfig> c = LoadKubeconfig({}, Host());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(Message(c.status()).find("none of the kubeconfig files in KUBECONFIG exists (/x:/y)"),
            std::string::npos)
      << c.status();
}

TEST_F(KubeconfigTest, DefaultsToHomeKubeConfig) {
  env_.Set("HOME", "/home/u");
  fs_.Write("/home/u/.kube/config", kProd);
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, LoadKubeconfig({}, Host()));
  EXPECT_EQ(c.files, std::vector<std::string>{"/home/u/.kube/config"});
}

TEST_F(KubeconfigTest, CurrentContextBuildsTlsAndCredentials) {
  fs_.Write("/home/u/.kube/certs/ca.crt", "CA PEM");
  fs_.Write("/home/u/.kube/certs/alice.crt", "CERT PEM");
  fs_.Write("/abs/alice.key", "KEY PEM");
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, ParseKubeconfig(kDev, "/home/u/.kube/config"));
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(c, "", Host()));
  EXPECT_EQ(config.server, "https://dev.example:6443");
  EXPECT_EQ(config.tls.ca_pem, "CA PEM");
  EXPECT_EQ(config.tls.client_certificate_pem, "CERT PEM");
  EXPECT_EQ(config.tls.client_key_pem, "KEY PEM");
  EXPECT_EQ(config.namespace_name, "team-a");
  EXPECT_EQ(config.credentials, nullptr);
  EXPECT_EQ(config.source, "context \"dev\" in kubeconfig /home/u/.kube/config");
}

TEST_F(KubeconfigTest, ContextFlagPicksAnotherContextWithAToken) {
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, ParseKubeconfig(kProd, "/k"));
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(c, "prod", Host()));
  EXPECT_TRUE(config.tls.insecure_skip_verify);
  EXPECT_EQ(config.namespace_name, "default");
  ASSERT_NE(config.credentials, nullptr);
  ASSERT_OK_AND_ASSIGN(Credentials creds, config.credentials->Get());
  EXPECT_EQ(creds.bearer_token, "abc");
}

TEST_F(KubeconfigTest, ErrorsNameTheContextClusterUserFileAndWhatToDo) {
  struct Case {
    std::string text;
    std::string context;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {kProd, "staging",
       "context \"staging\" (from --context) is not defined in kubeconfig /k; defined contexts: "
       "prod"},
      {"contexts:\n- name: c\n  context: {cluster: gone, user: u}\ncurrent-context: c\n", "",
       "context \"c\" in kubeconfig /k: context.cluster \"gone\" is not defined in any kubeconfig "
       "file (/k); add it under clusters: or choose another context"},
      {"clusters:\n- name: a\n  cluster: {server: https://a}\ncontexts:\n- name: c\n  context: "
       "{cluster: a, user: ghost}\n",
       "c",
       "context \"c\" in kubeconfig /k: context.user \"ghost\" is not defined in any kubeconfig "
       "file (/k)"},
      {"clusters:\n- name: a\n  cluster: {certificate-authority: ca}\ncontexts:\n- name: c\n  "
       "context: {cluster: a}\n",
       "c", "cluster \"a\" in kubeconfig /k (context \"c\" in kubeconfig /k): cluster.server is "
            "missing"},
      {"clusters:\n- name: a\n  cluster: {server: https://a, certificate-authority: /none}\n"
       "contexts:\n- name: c\n  context: {cluster: a}\n",
       "c", "cluster.certificate-authority /none cannot be read"},
      {"clusters:\n- name: a\n  cluster: {server: https://1.2.3.4, tls-server-name: api.x}\n"
       "contexts:\n- name: c\n  context: {cluster: a}\n",
       "c", "cluster.tls-server-name \"api.x\" differs from the server host \"1.2.3.4\""},
      {"clusters:\n- name: a\n  cluster: {server: https://a}\nusers:\n- name: u\n  user: "
       "{username: admin, password: pw}\ncontexts:\n- name: c\n  context: {cluster: a, user: u}\n",
       "c", "user.username/password (basic authentication) was removed"},
      {"clusters:\n- name: a\n  cluster: {server: https://a}\nusers:\n- name: u\n  user:\n    "
       "auth-provider: {name: gcp}\ncontexts:\n- name: c\n  context: {cluster: a, user: u}\n",
       "c", "user.auth-provider \"gcp\" is not supported"},
      {"clusters:\n- name: a\n  cluster: {server: https://a}\nusers:\n- name: u\n  user: "
       "{client-certificate-data: Q0VSVA==}\ncontexts:\n- name: c\n  context: {cluster: a, user: "
       "u}\n",
       "c", "user.client-certificate is set without user.client-key"},
      {"clusters: []\n", "", "sets no current-context; pass --context NAME"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Kubeconfig> parsed = ParseKubeconfig(c.text, "/k");
    ASSERT_OK(parsed);
    absl::StatusOr<ClientConfig> config = ClientConfigFromKubeconfig(*parsed, c.context, Host());
    ASSERT_FALSE(config.ok()) << c.expected;
    EXPECT_NE(Message(config.status()).find(c.expected), std::string::npos)
        << "got: " << config.status() << "\nwant: " << c.expected;
  }
}

TEST_F(KubeconfigTest, TlsServerNameEqualToTheHostIsAccepted) {
  ASSERT_OK_AND_ASSIGN(
      Kubeconfig c,
      ParseKubeconfig("clusters:\n- name: a\n  cluster: {server: 'https://api.x:6443', "
                      "tls-server-name: api.x}\ncontexts:\n- name: c\n  context: {cluster: a}\n",
                      "/k"));
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(c, "c", Host()));
  EXPECT_EQ(config.tls.server_name, "api.x");
}

TEST_F(KubeconfigTest, InClusterReadsServiceAccountFilesAndEnvironment) {
  env_.Set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  const std::string dir = kServiceAccountDir;
  fs_.Write(dir + "/token", "tok-1\n");
  fs_.Write(dir + "/ca.crt", "CLUSTER CA");
  fs_.Write(dir + "/namespace", "gpu-operator");
  ASSERT_OK_AND_ASSIGN(ClientConfig config, InClusterClientConfig(Host()));
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.tls.ca_pem, "CLUSTER CA");
  EXPECT_EQ(config.namespace_name, "gpu-operator");
  ASSERT_OK_AND_ASSIGN(Credentials creds, config.credentials->Get());
  EXPECT_EQ(creds.bearer_token, "tok-1");
}

TEST_F(KubeconfigTest, InClusterBracketsIpv6Hosts) {
  env_.Set("KUBERNETES_SERVICE_HOST", "fd00::1");
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  fs_.Write(std::string(kServiceAccountDir) + "/token", "t");
  fs_.Write(std::string(kServiceAccountDir) + "/ca.crt", "CA");
  ASSERT_OK_AND_ASSIGN(ClientConfig config, InClusterClientConfig(Host()));
  EXPECT_EQ(config.server, "https://[fd00::1]:443");
}

TEST_F(KubeconfigTest, InClusterErrorsSayWhatIsMissing) {
  absl::StatusOr<ClientConfig> none = InClusterClientConfig(Host());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(Message(none.status()).find("not running in a cluster"), std::string::npos);
  env_.Set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  absl::StatusOr<ClientConfig> no_token = InClusterClientConfig(Host());
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(Message(no_token.status())
                .find("the service-account token "
                      "/var/run/secrets/kubernetes.io/serviceaccount/token cannot be read"),
            std::string::npos)
      << no_token.status();
}

TEST_F(KubeconfigTest, LoadClientConfigPrefersKubeconfigThenInClusterThenHome) {
  env_.Set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  env_.Set("KUBERNETES_SERVICE_PORT", "443");
  fs_.Write(std::string(kServiceAccountDir) + "/token", "t");
  fs_.Write(std::string(kServiceAccountDir) + "/ca.crt", "CA");
  env_.Set("HOME", "/home/u");
  fs_.Write("/home/u/.kube/config", kProd);
  fs_.Write("/flag", kDev);
  fs_.Write("/home/u/.kube/certs/ca.crt", "CA");
  fs_.Write("/flag-dir/certs/ca.crt", "CA");
  // In a pod, without flags: in-cluster (not $HOME/.kube/config).
  ASSERT_OK_AND_ASSIGN(ClientConfig in_cluster, LoadClientConfig({}, Host()));
  EXPECT_EQ(in_cluster.source, "in-cluster (service account)");
  // KUBECONFIG wins over in-cluster.
  env_.Set("KUBECONFIG", "/home/u/.kube/config");
  ASSERT_OK_AND_ASSIGN(ClientConfig from_env, LoadClientConfig({}, Host()));
  EXPECT_EQ(from_env.server, "https://prod.example");
  // --kubeconfig / --context win over everything.
  absl::StatusOr<ClientConfig> from_flag = LoadClientConfig({"/home/u/.kube/config", "prod"},
                                                            Host());
  ASSERT_OK(from_flag);
  EXPECT_EQ(from_flag->source, "context \"prod\" in kubeconfig /home/u/.kube/config");
}

}  // namespace
}  // namespace kubeconfig_test
}  // namespace gpuprofile::kube
