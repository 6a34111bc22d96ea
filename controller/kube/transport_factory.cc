// File: controller/kube/transport_factory.cc
#include "controller/kube/transport_factory.h"

#include "absl/strings/str_cat.h"
#include "controller/kube/cpprest_transport.h"
#include "controller/kube/socket_transport.h"

namespace gpuprofile::kube {

absl::StatusOr<HttpClientKind> ParseHttpClientKind(absl::string_view name) {
  if (name == "sockets") return HttpClientKind::kSockets;
  if (name == "cpprest") return HttpClientKind::kCpprest;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown HTTP client \"", name, "\" (sockets or cpprest)"));
}

absl::StatusOr<std::unique_ptr<HttpTransport>> NewHttpTransport(const ClientConfig& config,
                                                                HttpClientKind kind) {
  CpprestTransportOptions options;
  options.server = config.server;
  options.tls = config.tls;
  options.client_certificates = config.credentials;
  if (kind == HttpClientKind::kCpprest) return NewCpprestTransport(options);
  return NewSocketTransport(options);
}

}  // namespace gpuprofile::kube
