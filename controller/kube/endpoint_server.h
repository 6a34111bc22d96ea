// File: controller/kube/endpoint_server.h
// The operator's small HTTP servers: /metrics on kubebuilder's --metrics-bind-address and
// /healthz, /readyz on --health-probe-bind-address. Transport-free: a server is a table of
// handlers (path -> function returning status, content type and body) behind Start/Stop; the
// only implementation, NewCpprestEndpointServer, lives in cpprest_endpoint_server.cc, the one
// file that knows cpprestsdk's http_listener (the pure helpers declared here are defined there
// too, and tested without sockets).
//
// Routing: a request for `path` goes to the handler registered for exactly that path, else to
// the handler of the longest registered path P with `path` under "P/" (so "/healthz" also serves
// "/healthz/ping"), else 404. Only GET and HEAD are served (405 otherwise). A handler sees the
// path relative to its own and the decoded query.
//
// Bind addresses as kubebuilder takes them: "0" disables the server; ":8080" is every interface
// (0.0.0.0), "127.0.0.1:8081" one address, "[::1]:8081" IPv6; port 0 picks a free port (tests).
//
// HTTPS: given an EndpointTls (a PEM certificate chain and its key), the server listens with TLS
// 1.2 or newer instead of plain HTTP; everything else is the same. The handlers see the request's
// Authorization header (metrics_auth.h checks it for /metrics).
//
// Thread-safety: Start and Stop from one thread; handlers run concurrently on the server's
// threads and must be thread-safe. Exceptions never leave the server (a throwing handler
// answers 500).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/runtime/health_checks.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::kube {

struct EndpointRequest {
  std::string method;   // "GET" or "HEAD"
  std::string path;     // as requested, e.g. "/healthz/ping"
  std::string subpath;  // relative to the handler's path: "/ping", or "" for the path itself
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::string authorization;  // the Authorization header, "" when absent

  bool HasQuery(absl::string_view key) const;
  std::vector<std::string> QueryValues(absl::string_view key) const;
};

struct EndpointResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using EndpointHandler = std::function<EndpointResponse(const EndpointRequest&)>;
using EndpointHandlers = std::map<std::string, EndpointHandler>;  // path -> handler

class EndpointServer {
 public:
  virtual ~EndpointServer() = default;

  // Starts listening on `bind_address`; returns the bound port (the chosen one for port 0), or 0
  // when the address is "0" (disabled: nothing listens). InvalidArgument for a malformed address,
  // Unavailable when it cannot be bound, FailedPrecondition when already started.
  virtual absl::StatusOr<int> Start(const std::string& bind_address) = 0;
  // Stops listening; in-flight requests may still complete. Idempotent.
  virtual void Stop() = 0;
};

// The certificate an HTTPS server presents: PEM, the leaf first, then any intermediates; and the
// leaf's private key (PEM, PKCS#8 or traditional).
struct EndpointTls {
  std::string cert_chain_pem;
  std::string key_pem;
};

// A server over cpprestsdk's http_listener serving `handlers` (paths start with '/'), over
// HTTPS when `tls` is given.
std::unique_ptr<EndpointServer> NewCpprestEndpointServer(
    EndpointHandlers handlers, std::optional<EndpointTls> tls = std::nullopt);

// ---- Pure helpers (no sockets) ----

struct BindAddress {
  std::string host;  // "0.0.0.0", "127.0.0.1", "::1"
  int port = 0;
};

// nullopt for "0" (disabled); InvalidArgument naming the address otherwise when malformed.
absl::StatusOr<std::optional<BindAddress>> ParseBindAddress(absl::string_view address);

// Routes `path` as described above: the handler's path, or nullopt.
std::optional<std::string> RouteEndpoint(const EndpointHandlers& handlers, absl::string_view path);

// Splits and percent-decodes a raw query ("verbose&exclude=a%2Db" -> {verbose,""},{exclude,a-b}).
std::vector<std::pair<std::string, std::string>> ParseQuery(absl::string_view raw_query);

// The content type of Prometheus' text exposition format 0.0.4.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// {"/metrics"} serving registry->TextExposition(). `registry` must outlive the handlers.
EndpointHandlers MetricsHandlers(const runtime::MetricsRegistry* registry);

// {"/healthz", "/readyz"} serving the two check sets (see runtime/health_checks.h). Both must
// outlive the handlers.
EndpointHandlers ProbeHandlers(const runtime::HealthChecks* healthz,
                               const runtime::HealthChecks* readyz);

}  // namespace gpuprofile::kube
