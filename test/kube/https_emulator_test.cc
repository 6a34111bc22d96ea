// File: test/kube/https_emulator_test.cc
// The whole connection path over HTTPS against kube-emulator --tls: its --kubeconfig-out is
// loaded like a user's kubeconfig (CA data, bearer token), the transport verifies the generated
// certificate, and requests and a watch work. Every test runs with both transports
// (transport_factory.h): the project's sockets and cpprestsdk. Also: TLS failures give clear errors, a
// wrong token is a typed 401, a rotated token file recovers after a 401, and an exec credential
// plugin (a real shell script) is run, cached and refreshed on expiry.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "controller/kube/api_error.h"
#include "controller/kube/transport_factory.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/rest_client.h"
#include "controller/kube/watcher.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace https_emulator_test {
namespace {

using e2e::testing::EmulatorProcess;
using e2e::testing::ScratchDir;

const ResourcePath kConfigMaps{"", "v1", "configmaps", "default", "", ""};

nlohmann::json ConfigMap(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

class HttpsEmulatorTest : public ::testing::TestWithParam<HttpClientKind> {
 protected:
  HttpsEmulatorTest()
      : emu_({"--tls", "--kubeconfig-out", dir_.File("kubeconfig"), "--bookmark-interval",
              "200ms"}) {}

  void SetUp() override {
    ASSERT_TRUE(emu_.ok()) << emu_.Stderr();
    ASSERT_EQ(emu_.url().rfind("https://", 0), 0u) << emu_.url();
    absl::StatusOr<Kubeconfig> parsed = LoadKubeconfig({dir_.File("kubeconfig"), ""}, HostEnv{});
    ASSERT_OK(parsed);
    kubeconfig_ = *parsed;
    ASSERT_EQ(kubeconfig_.users.size(), 1u);
    admin_token_ = kubeconfig_.users.begin()->second.token;
    ASSERT_FALSE(admin_token_.empty());
  }

  // A client for `config` whose retries are quick.
  std::unique_ptr<RestClient> ClientFor(const ClientConfig& config,
                                        std::unique_ptr<HttpTransport>* transport) {
    absl::StatusOr<std::unique_ptr<HttpTransport>> t = NewHttpTransport(config, GetParam());
    EXPECT_OK(t);
    if (!t.ok()) return nullptr;
    *transport = *std::move(t);
    RestClientOptions o;
    o.credentials = config.credentials;
    o.max_retries = 0;
    return std::make_unique<RestClient>(transport->get(), o);
  }

  ScratchDir dir_;
  EmulatorProcess emu_;
  Kubeconfig kubeconfig_;
  std::string admin_token_;
};

TEST_P(HttpsEmulatorTest, KubeconfigWithCaDataAndTokenWorksForRequestsAndWatches) {
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(kubeconfig_, "", {}));
  EXPECT_FALSE(config.tls.ca_pem.empty());
  std::unique_ptr<HttpTransport> transport;
  std::unique_ptr<RestClient> client = ClientFor(config, &transport);
  ASSERT_NE(client, nullptr);
  ASSERT_OK(client->Create(kConfigMaps, ConfigMap("over-tls")));
  ASSERT_OK_AND_ASSIGN(nlohmann::json got, client->Get(kConfigMaps.WithName("over-tls")));
  EXPECT_EQ(got["metadata"]["name"], "over-tls");

  // A watch streams over TLS as over HTTP.
  struct Counter final : WatchSink {
    void Replace(std::vector<nlohmann::json> items) override { listed = items.size(); }
    void Apply(runtime::WatchEventType, const nlohmann::json&) override { ++events; }
    std::atomic<size_t> listed{0};
    std::atomic<int> events{0};
  } sink;
  WatcherOptions o;
  o.collection = kConfigMaps;
  o.backoff = {absl::Milliseconds(5), absl::Milliseconds(50), 2.0, 1.0};
  Watcher watcher(client.get(), &sink, o);
  std::thread run([&] { watcher.Run(); });
  ASSERT_TRUE(watcher.WaitForSync(absl::Now() + absl::Seconds(20))) << watcher.last_error();
  EXPECT_EQ(sink.listed.load(), 1u);
  ASSERT_OK(client->Create(kConfigMaps, ConfigMap("second")));
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  while ((sink.events.load() == 0 || watcher.stats().bookmarks == 0) && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  watcher.Stop();
  run.join();
  EXPECT_EQ(sink.events.load(), 1);
  EXPECT_GT(watcher.stats().bookmarks, 0);
}

TEST_P(HttpsEmulatorTest, TlsFailuresAreClearErrors) {
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(kubeconfig_, "", {}));
  // No CA: the generated certificate is not trusted.
  ClientConfig untrusted = config;
  untrusted.tls.ca_pem.clear();
  std::unique_ptr<HttpTransport> transport;
  std::unique_ptr<RestClient> client = ClientFor(untrusted, &transport);
  absl::Status s = client->Get(kConfigMaps.WithName("x")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find("TLS handshake with the server failed"), absl::string_view::npos)
      << s;
  EXPECT_NE(s.message().find("certificate-authority"), absl::string_view::npos) << s;

  // Not PEM at all: refused when the transport is made.
  ClientConfig garbage = config;
  garbage.tls.ca_pem = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  absl::StatusOr<std::unique_ptr<HttpTransport>> bad = NewHttpTransport(garbage, GetParam());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("the certificate authority is not a valid PEM"),
            absl::string_view::npos)
      << bad.status();

  // insecure-skip-tls-verify: no verification at all.
  ClientConfig insecure = config;
  insecure.tls.ca_pem.clear();
  insecure.tls.insecure_skip_verify = true;
  std::unique_ptr<HttpTransport> insecure_transport;
  std::unique_ptr<RestClient> insecure_client = ClientFor(insecure, &insecure_transport);
  absl::Status missing = insecure_client->Get(kConfigMaps.WithName("x")).status();
  EXPECT_TRUE(apierrors::IsNotFound(missing)) << missing;
}

TEST_P(HttpsEmulatorTest, WrongTokenIsUnauthorizedAndARotatedTokenFileRecovers) {
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(kubeconfig_, "", {}));
  ClientConfig wrong = config;
  wrong.credentials = std::make_shared<StaticCredentialProvider>(Credentials{"nope", "", ""});
  std::unique_ptr<HttpTransport> t1;
  absl::Status denied = ClientFor(wrong, &t1)->Get(kConfigMaps.WithName("x")).status();
  EXPECT_TRUE(apierrors::IsUnauthorized(denied)) << denied;

  // A token file that holds a stale token, rotated while the client runs.
  dir_.Write("token", "stale-token\n");
  ClientConfig from_file = config;
  from_file.credentials = std::make_shared<TokenFileCredentialProvider>(
      dir_.File("token"), RealFileSystem(), runtime::RealClock::Default(), absl::Hours(1));
  std::unique_ptr<HttpTransport> t2;
  std::unique_ptr<RestClient> client = ClientFor(from_file, &t2);
  EXPECT_TRUE(apierrors::IsUnauthorized(client->Get(kConfigMaps.WithName("x")).status()));
  dir_.Write("token", admin_token_ + "\n");  // the kubelet rotates the projected token
  // The 401 invalidated the cached token: the next request reads the file again.
  absl::Status after = client->Get(kConfigMaps.WithName("x")).status();
  EXPECT_TRUE(apierrors::IsNotFound(after)) << after;
}

TEST_P(HttpsEmulatorTest, ExecPluginIsRunCachedAndRefreshedOnExpiry) {
  const std::string credential = absl::StrCat(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)",
      R"("status":{"token":")", admin_token_, R"(","expirationTimestamp":"EXPIRY"}})");
  auto write_plugin = [&](const std::string& name, const std::string& expiry) {
    std::string body = credential;
    body.replace(body.find("EXPIRY"), 6, expiry);
    dir_.Write(name, absl::StrCat("#!/bin/sh\necho run >> \"$0.runs\"\ncat <<'EOF'\n", body,
                                  "\nEOF\n"));
    std::filesystem::permissions(dir_.File(name), std::filesystem::perms::owner_all);
  };
  write_plugin("fresh-plugin", "2999-01-01T00:00:00Z");
  write_plugin("expired-plugin", "2000-01-01T00:00:00Z");
  auto runs = [&](const std::string& name) {
    std::string text = e2e::testing::ReadFile(dir_.File(name + ".runs"));
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  for (const auto& [plugin, expected_runs] :
       std::vector<std::pair<std::string, int>>{{"fresh-plugin", 1}, {"expired-plugin", 3}}) {
    Kubeconfig k = kubeconfig_;
    KubeconfigUser& user = k.users.begin()->second;
    user.token.clear();
    ExecConfig exec;
    exec.api_version = "client.authentication.k8s.io/v1";
    exec.command = dir_.File(plugin);
    exec.interactive_mode = "Never";
    user.exec = exec;
    ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(k, "", {}));
    std::unique_ptr<HttpTransport> transport;
    std::unique_ptr<RestClient> client = ClientFor(config, &transport);
    for (int i = 0; i < 3; ++i) {
      absl::Status s = client->Get(kConfigMaps.WithName("x")).status();
      EXPECT_TRUE(apierrors::IsNotFound(s)) << plugin << ": " << s;
    }
    EXPECT_EQ(runs(plugin), expected_runs) << plugin;
  }
}

// kube-emulator --client-cert-auth: the handshake requires a client certificate its CA signed,
// and its kubeconfig carries that certificate and key instead of a token.
class HttpsClientCertificateTest : public ::testing::TestWithParam<HttpClientKind> {};

TEST_P(HttpsClientCertificateTest, KubeconfigClientCertificateAuthenticatesOverMutualTls) {
  ScratchDir dir;
  EmulatorProcess emu({"--tls", "--client-cert-auth", "--kubeconfig-out", dir.File("kubeconfig")});
  ASSERT_TRUE(emu.ok()) << emu.Stderr();
  ASSERT_OK_AND_ASSIGN(Kubeconfig kubeconfig,
                       LoadKubeconfig({dir.File("kubeconfig"), ""}, HostEnv{}));
  ASSERT_OK_AND_ASSIGN(ClientConfig config, ClientConfigFromKubeconfig(kubeconfig, "", {}));
  ASSERT_FALSE(config.tls.client_certificate_pem.empty());
  ASSERT_FALSE(config.tls.client_key_pem.empty());
  ASSERT_TRUE(kubeconfig.users.begin()->second.token.empty());

  absl::StatusOr<std::unique_ptr<HttpTransport>> transport = NewHttpTransport(config, GetParam());
  ASSERT_OK(transport);
  RestClientOptions options;
  options.credentials = config.credentials;
  options.max_retries = 0;
  RestClient client(transport->get(), options);
  ASSERT_OK(client.Create(kConfigMaps, ConfigMap("mtls")).status());
  ASSERT_OK_AND_ASSIGN(nlohmann::json got, client.Get(kConfigMaps.WithName("mtls")));
  EXPECT_EQ(got["metadata"]["name"], "mtls");

  // Without the client certificate the handshake fails, and the error says what to check.
  ClientConfig no_cert = config;
  no_cert.tls.client_certificate_pem.clear();
  no_cert.tls.client_key_pem.clear();
  absl::StatusOr<std::unique_ptr<HttpTransport>> bare = NewHttpTransport(no_cert, GetParam());
  ASSERT_OK(bare);
  RestClient refused(bare->get(), options);
  absl::Status s = refused.Get(kConfigMaps.WithName("mtls")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find("the server requires a client certificate"), absl::string_view::npos)
      << s;
}

std::string KindName(const ::testing::TestParamInfo<HttpClientKind>& info) {
  return info.param == HttpClientKind::kSockets ? "Sockets" : "Cpprest";
}

INSTANTIATE_TEST_SUITE_P(Transports, HttpsEmulatorTest,
                         ::testing::Values(HttpClientKind::kSockets, HttpClientKind::kCpprest),
                         KindName);
INSTANTIATE_TEST_SUITE_P(Transports, HttpsClientCertificateTest,
                         ::testing::Values(HttpClientKind::kSockets, HttpClientKind::kCpprest),
                         KindName);

}  // namespace
}  // namespace https_emulator_test
}  // namespace gpuprofile::kube
