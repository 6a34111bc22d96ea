// File: controller/cmd/secure_metrics.h
// `run`'s secure metrics flags, named as kubebuilder's scaffold (cmd/main.go) names them:
//   --metrics-secure[=true|false]  serve /metrics over HTTPS with authentication (TokenReview)
//                                  and authorization (SubjectAccessReview), as controller-
//                                  runtime's filters.WithAuthenticationAndAuthorization does;
//                                  default false here (plain HTTP, this operator's behaviour
//                                  before; kubebuilder's scaffold defaults to true but also to
//                                  no metrics server at all, --metrics-bind-address=0);
//   --metrics-cert-path DIR        the directory of the serving certificate; empty: a self-signed
//                                  certificate is generated at start;
//   --metrics-cert-name tls.crt    the certificate file in it;
//   --metrics-cert-key tls.key     the key file in it.
// and what they build: the metrics server's handlers and certificate.
// Thread-compatible.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/cmd/args.h"
#include "controller/cmd/logger.h"
#include "controller/kube/endpoint_server.h"
#include "controller/kube/metrics_auth.h"
#include "controller/kube/rest_client.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::cmd {

struct SecureMetricsFlags {
  bool secure = false;
  std::string cert_path;
  std::string cert_name = "tls.crt";
  std::string cert_key = "tls.key";
};

// The four flags' specs, for ParseArgs.
std::vector<FlagSpec> SecureMetricsFlagSpecs();
// Their values; InvalidArgument names the flag (a cert flag without --metrics-secure, a name
// with a '/').
absl::StatusOr<SecureMetricsFlags> ParseSecureMetricsFlags(const ParsedArgs& parsed);

// What the metrics server serves: /metrics, behind the authorizer and over TLS when secure.
struct MetricsServing {
  kube::EndpointHandlers handlers;
  std::optional<kube::EndpointTls> tls;
  std::unique_ptr<kube::MetricsAuthorizer> auth;  // null unless secure
};

// Reads or generates the certificate and sets up the authorizer (reviews through `client`,
// failures logged to `log`). Errors name the certificate file or the step that failed.
// `registry`, `client` and `log` must outlive the result.
absl::StatusOr<MetricsServing> BuildMetricsServing(const SecureMetricsFlags& flags,
                                                   const runtime::MetricsRegistry* registry,
                                                   kube::RestClient* client, const Logger* log);

}  // namespace gpuprofile::cmd
