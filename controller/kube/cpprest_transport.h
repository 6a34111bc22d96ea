// File: controller/kube/cpprest_transport.h
// The HttpTransport over cpprestsdk (HTTP/1.1, asio backend, OpenSSL). This header does not
// include cpprestsdk; cpprest_transport.cc is the only file in the project's client that does.
//
// What it does with the configuration (docs/toolchain-and-kubectl.md §2 has the measurements):
//  - TLS: the CA PEM is added to the trust store of every new connection (in addition to the
//    system store), client certificate and key PEMs are loaded for mutual TLS, and
//    insecure_skip_verify turns verification off. The certificate is verified against the
//    URL's host (cpprest has no knob for another name), so a server_name other than the host is
//    refused when the transport is created.
//  - A CredentialProvider given as `client_certificates` is asked for its cached client
//    certificate on every new connection (exec plugins that hand out short-lived client
//    certificates; the REST client's Get before each request keeps that cache fresh).
//  - Timeouts are idle timeouts; one cpprest client (and connection pool) is kept per distinct
//    timeout, so a long watch timeout does not loosen ordinary requests.
//  - Every cpprest / boost / std exception is caught here and becomes a Status (see
//    http_transport.h); cancellation (asio error 125) is Cancelled.
// Thread-safety: thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "controller/kube/client_config.h"
#include "controller/kube/credentials.h"
#include "controller/kube/http_transport.h"

namespace gpuprofile::kube {

struct CpprestTransportOptions {
  std::string server;  // "https://host:port" or "http://host:port", optionally with a path
  TlsConfig tls;
  std::shared_ptr<CredentialProvider> client_certificates;  // may be null
};

// InvalidArgument for a malformed URL, PEM that does not load (naming which), or an unsupported
// server_name.
absl::StatusOr<std::unique_ptr<HttpTransport>> NewCpprestTransport(
    const CpprestTransportOptions& options);

// The same, from a ClientConfig (its credentials provide client certificates, if any).
absl::StatusOr<std::unique_ptr<HttpTransport>> NewCpprestTransport(const ClientConfig& config);

}  // namespace gpuprofile::kube
