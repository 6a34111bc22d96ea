// File: controller/kube/socket_transport.h
// The default HttpTransport: HTTP/1.1 over the project's own sockets (socket_connection.h) with
// OpenSSL for TLS, a pool of keep-alive connections, and every request read and written on the
// calling thread. Chosen over cpprest_transport.h (kept behind `--http-client=cpprest`) because
// cpprestsdk hands each request and each streamed line between its pool threads: with 20,000
// creates that was half of the operator's CPU in futex waits and context switches.
//
// What it does with the configuration:
//  - TLS: the system trust store plus the CA PEM, client certificate and key PEMs for mutual TLS
//    (PEM errors are reported when the transport is made), insecure_skip_verify; the server
//    certificate is verified against tls.server_name when set, else the URL's host (DNS name or
//    IP address), and a DNS name is sent as SNI.
//  - A CredentialProvider given as `client_certificates` is asked for its cached client
//    certificate on every new connection, as cpprest_transport.h does.
//  - Idle timeouts (http_transport.h); connecting is bounded by min(timeout, 30 s).
//  - A pooled connection is reused only if the server has neither closed it nor sent anything
//    since; a failure before any response byte on a reused connection is retried once on a new
//    connection for idempotent methods (GET, HEAD, PUT, DELETE), as the server may have closed
//    it while idle.
//  - Limits against a hostile server: a response head of 256 KiB, a body of 1 GiB, a streamed
//    line of 64 MiB.
// Creating one ignores SIGPIPE in the process (a write to a closed TLS socket must be an error,
// not a signal).
// Thread-safety: thread-safe.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "controller/kube/client_config.h"
#include "controller/kube/cpprest_transport.h"
#include "controller/kube/http_transport.h"

namespace gpuprofile::kube {

// The options are cpprest_transport.h's: the two transports take the same configuration.
using SocketTransportOptions = CpprestTransportOptions;

// InvalidArgument for a malformed URL or PEM that does not load (naming which).
absl::StatusOr<std::unique_ptr<HttpTransport>> NewSocketTransport(
    const SocketTransportOptions& options);

}  // namespace gpuprofile::kube
