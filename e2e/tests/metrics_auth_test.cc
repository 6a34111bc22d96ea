// File: e2e/tests/metrics_auth_test.cc
// `run --metrics-secure` end to end: kube-emulator with --tls, a token file and --authorization
// RBAC; config/rbac applied as written (the operator's service account, its ClusterRole, the
// metrics-auth role and binding, the metrics-reader role); the real gpu-profile-controller as
// that service account. A scraper bound to metrics-reader (Prometheus' service account) gets 200
// and the Prometheus text format; no token and an unknown token get 401; a valid token without
// the binding gets 403. The reviews are the operator's own calls, allowed by config/rbac: without
// the metrics-auth binding every scrape is a 500 and the operator logs why. Probes stay plain
// HTTP. With --metrics-cert-path the server presents the given certificate (verified against its
// CA); without, a self-signed one.
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/dra/manifest_reader.h"
#include "e2e/emulator/tls_certs.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace metrics_auth_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

constexpr char kOperatorNs[] = "gpu-profile-operator-system";
constexpr char kOperatorSa[] = "controller-manager";
constexpr char kPrometheus[] = "system:serviceaccount:monitoring:prometheus";

std::string KubeconfigField(const std::string& text, const std::string& key) {
  size_t at = text.find(key + ": ");
  if (at == std::string::npos) return "";
  size_t start = at + key.size() + 2;
  return text.substr(start, text.find('\n', start) - start);
}

// The port a server of the operator logged it serves on ("serving metrics", "serving health
// probes"; --log-format json), or 0 when not (yet) logged.
int LoggedPort(const std::string& log, const std::string& what) {
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    json entry = json::parse(line, nullptr, false);
    if (!entry.is_object() || entry.value("msg", "") != "serving " + what) continue;
    int port = 0;
    if (absl::SimpleAtoi(entry.value("port", ""), &port)) return port;
  }
  return 0;
}

class MetricsAuthE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string op_user = absl::StrCat("system:serviceaccount:", kOperatorNs, ":", kOperatorSa);
    scratch_.Write("tokens.csv",
                   absl::StrCat("operator-token,", op_user,
                                ",uid-op,\"system:serviceaccounts,system:serviceaccounts:",
                                kOperatorNs, "\"\n", "prometheus-token,", kPrometheus,
                                ",uid-prom,\"system:serviceaccounts,system:serviceaccounts:"
                                "monitoring\"\n",
                                "alice-token,alice,uid-alice\n"));
    emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
        "--kube-version", "1.34", "-f", Src("crds"), "--tls", "--token-file",
        scratch_.File("tokens.csv"), "--authorization", "RBAC", "--kubeconfig-out",
        scratch_.File("kubeconfig"), "--audit-log", scratch_.File("audit.log")});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    const std::string kubeconfig = ReadFile(scratch_.File("kubeconfig"));
    ca_b64_ = KubeconfigField(kubeconfig, "certificate-authority-data");
    ASSERT_TRUE(absl::Base64Unescape(ca_b64_, &api_ca_pem_));
    admin_ = std::make_unique<RawHttpClient>(emulator_->url(), api_ca_pem_);
    admin_->SetBearerToken(KubeconfigField(kubeconfig, "token"));
    Create("/api/v1/namespaces",
           {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kOperatorNs}}}});
    // Prometheus' service account may read /metrics: bound to config/rbac's metrics-reader.
    Create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
           {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "ClusterRoleBinding"},
            {"metadata", {{"name", "prometheus-metrics-reader"}}},
            {"roleRef",
             {{"apiGroup", "rbac.authorization.k8s.io"},
              {"kind", "ClusterRole"},
              {"name", "metrics-reader"}}},
            {"subjects",
             {{{"kind", "ServiceAccount"}, {"name", "prometheus"}, {"namespace", "monitoring"}}}}});
  }

  void TearDown() override {
    if (HasFailure()) PrintFailureLogs({op_.get()}, emulator_.get());
    if (op_) op_->Stop();
  }

  void Create(const std::string& collection, const json& object) {
    RawResponse r = admin_->Post(collection, object);
    EXPECT_EQ(r.status, 201) << collection << " " << object.dump() << ": " << r.body;
  }

  // config/rbac's `files` as written, namespace "system" (kustomize's placeholder) renamed.
  void ApplyRbac(const std::vector<std::string>& files) {
    for (const std::string& file : files) {
      absl::StatusOr<std::vector<dra::ManifestObject>> objects =
          dra::ReadManifests({Src("config/rbac/" + file)});
      ASSERT_TRUE(objects.ok()) << objects.status();
      for (const dra::ManifestObject& m : *objects) {
        json o = m.object;
        if (o["metadata"].value("namespace", "") == "system") o["metadata"]["namespace"] = kOperatorNs;
        if (o.contains("subjects")) {
          json subjects = o["subjects"];
          for (json& s : subjects) {
            if (s.value("namespace", "") == "system") s["namespace"] = kOperatorNs;
          }
          o["subjects"] = subjects;
        }
        const std::string kind = o.value("kind", "");
        std::string collection;
        if (kind == "ServiceAccount") {
          collection = absl::StrCat("/api/v1/namespaces/", kOperatorNs, "/serviceaccounts");
        } else if (kind == "ClusterRole") {
          collection = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
        } else if (kind == "ClusterRoleBinding") {
          collection = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
        } else {
          ADD_FAILURE() << "unexpected " << kind << " in " << file;
          continue;
        }
        Create(collection, o);
      }
    }
  }

  // Starts the operator as its service account with secure metrics and `extra` flags; returns
  // the metrics and probe ports it logged (0 when it did not within the deadline).
  std::pair<int, int> StartOperator(const std::vector<std::string>& extra) {
    scratch_.Write("kubeconfig-operator",
                   absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: e\n  cluster:\n"
                                "    server: ",
                                emulator_->url(), "\n    certificate-authority-data: ", ca_b64_,
                                "\ncontexts:\n- name: e\n  context:\n    cluster: e\n"
                                "    user: u\n    namespace: default\ncurrent-context: e\n"
                                "users:\n- name: u\n  user:\n    token: operator-token\n"));
    std::vector<std::string> args = {"--kubeconfig",
                                     scratch_.File("kubeconfig-operator"),
                                     "--metrics-bind-address",
                                     "127.0.0.1:0",
                                     "--health-probe-bind-address",
                                     "127.0.0.1:0",
                                     "--log-format",
                                     "json",
                                     "--metrics-secure"};
    args.insert(args.end(), extra.begin(), extra.end());
    op_ = std::make_unique<OperatorProcess>(args, scratch_.File("operator.log"));
    EXPECT_TRUE(op_->Start());
    int metrics = 0;
    int probes = 0;
    Eventually([&] {
      const std::string log = op_->Log();
      metrics = LoggedPort(log, "metrics");
      probes = LoggedPort(log, "health probes");
      return metrics > 0 && probes > 0;
    });
    return {metrics, probes};
  }

  // What the emulator's audit log recorded for `user`'s POSTs to `path`: the status codes.
  std::vector<int> AuditedCodes(const std::string& user, const std::string& path) {
    std::vector<int> codes;
    for (absl::string_view line : absl::StrSplit(ReadFile(scratch_.File("audit.log")), '\n')) {
      json entry = json::parse(line, nullptr, false);
      if (entry.is_object() && entry.value("user", "") == user && entry.value("path", "") == path &&
          entry.value("verb", "") == "create") {
        codes.push_back(entry.value("code", 0));
      }
    }
    return codes;
  }

  ScratchDir scratch_;
  std::unique_ptr<EmulatorProcess> emulator_;
  std::unique_ptr<RawHttpClient> admin_;
  std::string ca_b64_;
  std::string api_ca_pem_;
  std::unique_ptr<OperatorProcess> op_;
};

const std::vector<std::string> kOperatorRbac = {
    "service_account.yaml",    "role.yaml",
    "role_binding.yaml",       "metrics_auth_role.yaml",
    "metrics_auth_role_binding.yaml", "metrics_reader_role.yaml"};

TEST_F(MetricsAuthE2eTest, TokensAreReviewedAndOnlyMetricsReadersGetMetrics) {
  ApplyRbac(kOperatorRbac);
  // The serving certificate, as cert-manager would mount it: tls.crt (with its chain), tls.key.
  absl::StatusOr<TlsMaterial> pki = GenerateTlsMaterial({"127.0.0.1"}, {"localhost"});
  ASSERT_TRUE(pki.ok()) << pki.status();
  scratch_.Write("tls.crt", pki->server_cert_pem);
  scratch_.Write("tls.key", pki->server_key_pem);
  auto [metrics_port, probe_port] = StartOperator({"--metrics-cert-path", scratch_.path()});
  ASSERT_GT(metrics_port, 0) << op_->Log();
  ASSERT_GT(probe_port, 0) << op_->Log();
  const std::string url = absl::StrCat("https://127.0.0.1:", metrics_port);
  auto scraper = [&](const std::string& token) {
    RawHttpClient c(url, pki->ca_cert_pem);  // verified against the certificate's CA
    c.SetBearerToken(token);
    return c;
  };

  RawResponse ok = scraper("prometheus-token").Get("/metrics");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.Header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(ok.body, HasSubstr("# TYPE rest_client_requests_total counter"));

  RawResponse none = scraper("").Get("/metrics");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body, "Unauthorized\n");
  RawResponse forged = scraper("not-a-known-token").Get("/metrics");
  EXPECT_EQ(forged.status, 401);
  EXPECT_EQ(forged.body, "Unauthorized\n");
  RawResponse denied = scraper("alice-token").Get("/metrics");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body, "Authorization denied for user alice\n");

  // A second scrape within the cache TTLs costs no review.
  ASSERT_EQ(scraper("prometheus-token").Get("/metrics").status, 200);
  const std::string op_user = absl::StrCat("system:serviceaccount:", kOperatorNs, ":", kOperatorSa);
  // Token reviews: prometheus, forged, alice (none for the missing token); access reviews:
  // prometheus and alice. All by the operator's service account, all allowed (201).
  EXPECT_THAT(AuditedCodes(op_user, "/apis/authentication.k8s.io/v1/tokenreviews"),
              ::testing::ElementsAre(201, 201, 201));
  EXPECT_THAT(AuditedCodes(op_user, "/apis/authorization.k8s.io/v1/subjectaccessreviews"),
              ::testing::ElementsAre(201, 201));

  // The probes stay plain HTTP and open.
  RawHttpClient probes(absl::StrCat("http://127.0.0.1:", probe_port));
  EXPECT_EQ(probes.Get("/healthz").status, 200);
  // And the metrics port speaks no plain HTTP.
  EXPECT_NE(RawHttpClient(absl::StrCat("http://127.0.0.1:", metrics_port)).Get("/metrics").status,
            200);
}

TEST_F(MetricsAuthE2eTest, WithoutACertificateTheServerSignsItsOwn) {
  ApplyRbac(kOperatorRbac);
  auto [metrics_port, probe_port] = StartOperator({});
  ASSERT_GT(metrics_port, 0) << op_->Log();
  const std::string url = absl::StrCat("https://127.0.0.1:", metrics_port);
  RawHttpClient insecure(url);
  insecure.SkipTlsVerification();  // as the ServiceMonitor's insecureSkipVerify
  insecure.SetBearerToken("prometheus-token");
  RawResponse ok = insecure.Get("/metrics");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_THAT(ok.body, HasSubstr("# TYPE"));
  // A client that verifies (here against the API server's CA) refuses the certificate.
  RawHttpClient verifying(url, api_ca_pem_);
  verifying.SetBearerToken("prometheus-token");
  EXPECT_EQ(verifying.Get("/metrics").status, 0);
  EXPECT_THAT(op_->Log(), HasSubstr("self-signed certificate"));
}

TEST_F(MetricsAuthE2eTest, WithoutTheMetricsAuthBindingScrapesFailWithAClearLog) {
  ApplyRbac({"service_account.yaml", "role.yaml", "role_binding.yaml", "metrics_reader_role.yaml"});
  auto [metrics_port, probe_port] = StartOperator({});
  ASSERT_GT(metrics_port, 0) << op_->Log();
  RawHttpClient scraper(absl::StrCat("https://127.0.0.1:", metrics_port));
  scraper.SkipTlsVerification();
  scraper.SetBearerToken("prometheus-token");
  RawResponse failed = scraper.Get("/metrics");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body, "Authentication failed\n");
  EXPECT_TRUE(Eventually([&] {
    return absl::StrContains(op_->Log(), "the TokenReview failed") &&
           absl::StrContains(op_->Log(), "cannot create resource \\\"tokenreviews\\\"");
  })) << op_->Log();
}

}  // namespace
}  // namespace metrics_auth_test
}  // namespace gpuprofile::e2e::testing
