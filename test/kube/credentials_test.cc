// File: test/kube/credentials_test.cc
// Token-file rotation and exec credential plugins (client.authentication.k8s.io/v1), with a fake
// filesystem, a fake process runner and a FakeClock; plus one run of the real process runner.
#include "controller/kube/credentials.h"

#include "absl/strings/escaping.h"
#include "controller/kube/kubeconfig.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/kube/testing/fake_host.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace credentials_test {
namespace {

using testing::FakeFileSystem;
using testing::FakeProcessRunner;

std::string ExecOutput(const std::string& token, const std::string& expiry = "") {
  nlohmann::json status = {{"token", token}};
  if (!expiry.empty()) status["expirationTimestamp"] = expiry;
  return nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1"},
                        {"kind", "ExecCredential"},
                        {"status", status}}
      .dump();
}

ExecConfig Exec() {
  ExecConfig c;
  c.api_version = "client.authentication.k8s.io/v1";
  c.command = "aws";
  c.args = {"eks", "get-token", "--cluster-name", "prod"};
  c.env = {{"AWS_PROFILE", "ops"}};
  c.interactive_mode = "Never";
  c.install_hint = "Install the AWS CLI: https://aws.amazon.com/cli/";
  return c;
}

TEST(TokenFileTest, RereadsTheFileAfterThePeriodAndKeepsTheLastGoodToken) {
  FakeFileSystem fs;
  runtime::FakeClock clock;
  fs.Write("/t", "one\n");
  TokenFileCredentialProvider p("/t", &fs, &clock, absl::Minutes(1));
  EXPECT_EQ(p.Get()->bearer_token, "one");
  fs.Write("/t", "two");
  EXPECT_EQ(p.Get()->bearer_token, "one");  // cached within the period
  clock.Advance(absl::Minutes(1));
  EXPECT_EQ(p.Get()->bearer_token, "two");  // rotated
  fs.Remove("/t");
  clock.Advance(absl::Minutes(1));
  EXPECT_EQ(p.Get()->bearer_token, "two");  // a failed re-read keeps the last good token
  fs.Write("/t", "three");
  p.Invalidate();  // after a 401: read at once
  EXPECT_EQ(p.Get()->bearer_token, "three");
}

TEST(TokenFileTest, MissingFileAtFirstReadIsAnErrorNamingThePath) {
  FakeFileSystem fs;
  runtime::FakeClock clock;
  TokenFileCredentialProvider p("/var/run/token", &fs, &clock);
  absl::StatusOr<Credentials> c = p.Get();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("cannot read the bearer token from /var/run/token"),
            absl::string_view::npos)
      << c.status();
}

TEST(ExecPluginTest, RunsTheCommandWithArgsEnvAndExecInfo) {
  FakeProcessRunner runner;
  runtime::FakeClock clock;
  runner.SetScript([](const FakeProcessRunner::Call&) {
    return ProcessResult{0, ExecOutput("k8s-aws-v1.abc"), ""};
  });
  ExecConfig config = Exec();
  config.provide_cluster_info = true;
  ExecClusterInfo cluster{"https://eks.example", "", false, "CA PEM"};
  ExecCredentialProvider p(config, cluster, "user \"eks\"", &runner, &clock);
  ASSERT_OK_AND_ASSIGN(Credentials c, p.Get());
  EXPECT_EQ(c.bearer_token, "k8s-aws-v1.abc");
  ASSERT_EQ(runner.calls().size(), 1u);
  const FakeProcessRunner::Call call = runner.calls()[0];
  EXPECT_EQ(call.argv, (std::vector<std::string>{"aws", "eks", "get-token", "--cluster-name",
                                                 "prod"}));
  EXPECT_EQ(call.Env("AWS_PROFILE"), "ops");
  nlohmann::json info = nlohmann::json::parse(call.Env("KUBERNETES_EXEC_INFO"));
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["apiVersion"], "client.authentication.k8s.io/v1");
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://eks.example");
  EXPECT_EQ(info["spec"]["cluster"]["certificate-authority-data"], absl::Base64Escape("CA PEM"));
}

TEST(ExecPluginTest, CachesUntilExpiryThenRefreshes) {
  FakeProcessRunner runner;
  runtime::FakeClock clock(absl::FromUnixSeconds(1700000000));  // 2023-11-14T22:13:20Z
  int runs = 0;
  runner.SetScript([&runs](const FakeProcessRunner::Call&) {
    ++runs;
    return ProcessResult{0, ExecOutput(absl::StrCat("t", runs), "2023-11-14T22:28:20Z"), ""};
  });
  ExecCredentialProvider p(Exec(), {}, "user \"eks\"", &runner, &clock);
  EXPECT_EQ(p.Get()->bearer_token, "t1");
  clock.Advance(absl::Minutes(14));
  EXPECT_EQ(p.Get()->bearer_token, "t1");
  EXPECT_EQ(runs, 1);
  clock.Advance(absl::Minutes(1));  // at the expiration timestamp
  EXPECT_EQ(p.Get()->bearer_token, "t2");
  p.Invalidate();  // a 401 before expiry
  EXPECT_EQ(p.Get()->bearer_token, "t3");
}

TEST(ExecPluginTest, ClientCertificateCredentials) {
  FakeProcessRunner runner;
  runtime::FakeClock clock;
  runner.SetScript([](const FakeProcessRunner::Call&) {
    return ProcessResult{0,
                         nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1"},
                                        {"kind", "ExecCredential"},
                                        {"status",
                                         {{"clientCertificateData", "CERT"},
                                          {"clientKeyData", "KEY"}}}}
                             .dump(),
                         ""};
  });
  ExecCredentialProvider p(Exec(), {}, "user \"x\"", &runner, &clock);
  ASSERT_OK_AND_ASSIGN(Credentials c, p.Get());
  EXPECT_EQ(c.client_certificate_pem, "CERT");
  EXPECT_EQ(c.client_key_pem, "KEY");
  EXPECT_EQ(c.bearer_token, "");
}

TEST(ExecPluginTest, FailuresNameThePluginTheUserAndTheHint) {
  FakeProcessRunner runner;
  runtime::FakeClock clock;
  ExecCredentialProvider p(Exec(), {}, "user \"eks\" in kubeconfig /k", &runner, &clock);
  runner.SetScript([](const FakeProcessRunner::Call&) {
    return ProcessResult{255, "", "Unable to locate credentials\n"};
  });
  absl::Status failed = p.Get().status();
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(failed.message().find("exec credential plugin \"aws\" (user \"eks\" in kubeconfig "
                                  "/k) exited with code 255: Unable to locate credentials"),
            absl::string_view::npos)
      << failed;
  EXPECT_NE(failed.message().find("Install the AWS CLI"), absl::string_view::npos);

  runner.SetScript([](const FakeProcessRunner::Call&) -> absl::StatusOr<ProcessResult> {
    return absl::NotFoundError("command \"aws\" not found");
  });
  EXPECT_NE(p.Get().status().message().find("the command was not found; install it"),
            absl::string_view::npos);

  struct Bad {
    std::string output;
    std::string expected;
  };
  for (const Bad& b : std::vector<Bad>{
           {"not json", "stdout is not a JSON object"},
           {std::string(100'000, '['), "stdout: JSON nests deeper than 256 levels"},
           {std::string((1 << 20) + 1, ' '), "stdout: the JSON text is 1048577 bytes, over the "
                                             "limit of 1048576 bytes"},
           {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
            R"("status":{"token":"x"}})",
            "apiVersion is \"client.authentication.k8s.io/v1beta1\", but the kubeconfig asked for "
            "\"client.authentication.k8s.io/v1\""},
           {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{}})",
            "status has neither token nor clientCertificateData/clientKeyData"},
           {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("status":{"token":"x","expirationTimestamp":"tomorrow"}})",
            "status.expirationTimestamp \"tomorrow\" is not an RFC 3339 time"}}) {
    runner.SetScript([&b](const FakeProcessRunner::Call&) {
      return ProcessResult{0, b.output, ""};
    });
    absl::Status s = p.Get().status();
    EXPECT_NE(s.message().find("printed an unusable ExecCredential: " + b.expected),
              absl::string_view::npos)
        << s;
  }
}

TEST(ExecPluginTest, InteractiveAlwaysIsRefused) {
  FakeProcessRunner runner;
  runtime::FakeClock clock;
  ExecConfig config = Exec();
  config.interactive_mode = "Always";
  ExecCredentialProvider p(config, {}, "user \"sso\"", &runner, &clock);
  EXPECT_NE(p.Get().status().message().find("exec.interactiveMode is Always"),
            absl::string_view::npos);
  EXPECT_TRUE(runner.calls().empty());
}

TEST(ExecPluginTest, KubeconfigExecSectionBecomesAProviderWithResolvedCommand) {
  FakeProcessRunner runner;
  testing::FakeFileSystem fs;
  testing::FakeEnvironment env;
  runtime::FakeClock clock;
  runner.SetScript([](const FakeProcessRunner::Call& call) {
    EXPECT_EQ(call.argv[0], "/home/u/.kube/bin/token-helper");
    EXPECT_EQ(call.Env("REGION"), "eu");
    return ProcessResult{0, ExecOutput("from-plugin"), ""};
  });
  ASSERT_OK_AND_ASSIGN(Kubeconfig c, ParseKubeconfig(R"(
clusters:
- name: a
  cluster: {server: https://a}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/token-helper
      args: [get]
      env: [{name: REGION, value: eu}]
      interactiveMode: Never
contexts:
- name: c
  context: {cluster: a, user: u}
current-context: c
)",
                                                     "/home/u/.kube/config"));
  ASSERT_OK_AND_ASSIGN(ClientConfig config,
                       ClientConfigFromKubeconfig(c, "", HostEnv{&fs, &env, &runner, &clock}));
  ASSERT_NE(config.credentials, nullptr);
  EXPECT_EQ(config.credentials->Get()->bearer_token, "from-plugin");
}

TEST(RealProcessRunnerTest, RunsACommandWithExtraEnvironment) {
  absl::StatusOr<ProcessResult> r = RealProcessRunner()->Run(
      {"sh", "-c", "printf %s \"$GPO_X\"; echo err >&2; exit 3"}, {{"GPO_X", "hello"}},
      absl::Seconds(10));
  ASSERT_OK(r);
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->stdout_text, "hello");
  EXPECT_EQ(r->stderr_text, "err\n");
  EXPECT_TRUE(absl::IsNotFound(
      RealProcessRunner()->Run({"/nonexistent/plugin"}, {}, absl::Seconds(10)).status()));
}

}  // namespace
}  // namespace credentials_test
}  // namespace gpuprofile::kube
