// File: test/kube/serving_cert_test.cc
// The metrics server's certificate (serving_cert.h): a generated self-signed one and one read
// from files, with the errors that name the file; and the endpoint server over HTTPS with it,
// read back by the project's socket transport trusting exactly that certificate.
#include "controller/kube/serving_cert.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/kube/socket_transport.h"
#include "controller/kube/endpoint_server.h"
#include "controller/kube/http_transport.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace serving_cert_test {
namespace {

using e2e::testing::ScratchDir;

TEST(GenerateSelfSignedCertTest, PemPairThatLoadsBack) {
  absl::StatusOr<EndpointTls> tls = GenerateSelfSignedCert({"localhost"}, {"127.0.0.1"});
  ASSERT_OK(tls);
  EXPECT_TRUE(absl::StartsWith(tls->cert_chain_pem, "-----BEGIN CERTIFICATE-----"));
  EXPECT_TRUE(absl::StartsWith(tls->key_pem, "-----BEGIN PRIVATE KEY-----"));
  ScratchDir dir;
  dir.Write("tls.crt", tls->cert_chain_pem);
  dir.Write("tls.key", tls->key_pem);
  absl::StatusOr<EndpointTls> loaded = LoadServingCert(dir.File("tls.crt"), dir.File("tls.key"));
  ASSERT_OK(loaded);
  EXPECT_EQ(loaded->cert_chain_pem, tls->cert_chain_pem);
  // Two generations never share a key.
  absl::StatusOr<EndpointTls> other = GenerateSelfSignedCert({"localhost"}, {});
  ASSERT_OK(other);
  EXPECT_NE(other->key_pem, tls->key_pem);
}

TEST(LoadServingCertTest, ErrorsNameTheFile) {
  ScratchDir dir;
  absl::StatusOr<EndpointTls> a = GenerateSelfSignedCert({"a"}, {});
  absl::StatusOr<EndpointTls> b = GenerateSelfSignedCert({"b"}, {});
  ASSERT_OK(a);
  ASSERT_OK(b);
  dir.Write("a.crt", a->cert_chain_pem);
  dir.Write("b.key", b->key_pem);
  dir.Write("junk", "not PEM at all\n");

  absl::StatusOr<EndpointTls> missing = LoadServingCert(dir.File("none.crt"), dir.File("b.key"));
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_TRUE(absl::StrContains(missing.status().message(), dir.File("none.crt")));

  absl::StatusOr<EndpointTls> junk_cert = LoadServingCert(dir.File("junk"), dir.File("b.key"));
  EXPECT_TRUE(absl::IsInvalidArgument(junk_cert.status())) << junk_cert.status();
  EXPECT_TRUE(absl::StrContains(junk_cert.status().message(), "metrics certificate " +
                                                                  dir.File("junk")));

  absl::StatusOr<EndpointTls> junk_key = LoadServingCert(dir.File("a.crt"), dir.File("junk"));
  EXPECT_TRUE(absl::IsInvalidArgument(junk_key.status())) << junk_key.status();
  EXPECT_TRUE(absl::StrContains(junk_key.status().message(), "metrics key " + dir.File("junk")));

  absl::StatusOr<EndpointTls> mismatch = LoadServingCert(dir.File("a.crt"), dir.File("b.key"));
  EXPECT_TRUE(absl::IsInvalidArgument(mismatch.status())) << mismatch.status();
  EXPECT_TRUE(absl::StrContains(mismatch.status().message(), "does not belong to the certificate"))
      << mismatch.status();
}

TEST(HttpsEndpointServerTest, ServesOverTlsWithTheGivenCertificateOnly) {
  absl::StatusOr<EndpointTls> tls = GenerateSelfSignedCert({"localhost"}, {"127.0.0.1"});
  ASSERT_OK(tls);
  EndpointHandlers handlers;
  handlers["/metrics"] = [](const EndpointRequest& request) {
    // The handler sees the Authorization header the client sent.
    return EndpointResponse{200, kMetricsContentType, "auth=" + request.authorization + "\n"};
  };
  std::unique_ptr<EndpointServer> server = NewCpprestEndpointServer(std::move(handlers), *tls);
  absl::StatusOr<int> port = server->Start("127.0.0.1:0");
  ASSERT_OK(port);
  HttpRequest request;
  request.path = "/metrics";
  request.headers = {{"Authorization", "Bearer abc"}};
  request.timeout = absl::Seconds(10);

  SocketTransportOptions trusting;
  trusting.server = absl::StrCat("https://127.0.0.1:", *port);
  trusting.tls.ca_pem = tls->cert_chain_pem;  // the self-signed certificate is its own anchor
  absl::StatusOr<std::unique_ptr<HttpTransport>> https = NewSocketTransport(trusting);
  ASSERT_OK(https);
  absl::StatusOr<HttpResponse> ok = (*https)->Send(request);
  ASSERT_OK(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "auth=Bearer abc\n");

  // A client that trusts another certificate refuses the connection.
  absl::StatusOr<EndpointTls> other = GenerateSelfSignedCert({"localhost"}, {"127.0.0.1"});
  ASSERT_OK(other);
  SocketTransportOptions wrong = trusting;
  wrong.tls.ca_pem = other->cert_chain_pem;
  absl::StatusOr<std::unique_ptr<HttpTransport>> distrusting = NewSocketTransport(wrong);
  ASSERT_OK(distrusting);
  EXPECT_FALSE((*distrusting)->Send(request).ok());

  // Plain HTTP to the TLS port gets no HTTP answer.
  SocketTransportOptions plain;
  plain.server = absl::StrCat("http://127.0.0.1:", *port);
  absl::StatusOr<std::unique_ptr<HttpTransport>> http = NewSocketTransport(plain);
  ASSERT_OK(http);
  absl::StatusOr<HttpResponse> refused = (*http)->Send(request);
  EXPECT_TRUE(!refused.ok() || refused->status != 200);
  server->Stop();
}

}  // namespace
}  // namespace serving_cert_test
}  // namespace gpuprofile::kube
