// File: controller/runtime/health_checks.h
// Named health checks behind /healthz and /readyz, answering as controller-runtime's healthz
// package does, so kubelet probes and humans see what they know from Go operators:
//   GET /healthz              200 "ok" when every check passes;
//   GET /healthz?verbose      200 with one "[+]<name> ok" line per check, then
//                             "healthz check passed" (controller-runtime's words, on /readyz
//                             too);
//   any check failing         500 with "[+]<name> ok" / "[-]<name> failed: reason withheld"
//                             lines (sorted by name), then "healthz check failed" (the reason
//                             is withheld on the aggregate endpoint, which is public);
//   ?exclude=<name>           (repeatable) skips that check: "[+]<name> excluded: ok", and
//                             "warn: some health checks cannot be excluded: no matches for ..."
//                             for names that are not registered;
//   GET /healthz/<name>       that check alone: 200 "ok", or 500 "internal server error:
//                             <reason>"; 404 for an unknown name.
// Every set has the check "ping" (always healthy), as kubebuilder's scaffold registers; others
// are added by name (e.g. "informers-synced", "dra-served").
//
// Pure request/response logic: the HTTP server is kube/endpoint_server.h.
// Thread-safety: thread-safe. Checks run on the caller's thread outside the set's lock; they
// must be thread-safe and quick (kubelet's probe timeout is 1 s by default).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace gpuprofile::runtime {

// OK when healthy; otherwise the reason.
using HealthCheck = std::function<absl::Status()>;

struct HealthResponse {
  int status = 200;
  std::string body;
  // Always "text/plain; charset=utf-8".
  static constexpr const char* kContentType = "text/plain; charset=utf-8";
};

// The query parameters the handler reads.
struct HealthQuery {
  bool verbose = false;               // "verbose" present, with any value
  std::vector<std::string> excludes;  // every "exclude" value
};

class HealthChecks {
 public:
  // `endpoint` ("healthz", "readyz") names the set in error messages.
  explicit HealthChecks(std::string endpoint);

  // Registers `check` as `name`. InvalidArgument for an empty name or one with '/' (it is a URL
  // path segment); AlreadyExists when the name is taken ("ping" included).
  absl::Status Add(const std::string& name, HealthCheck check);

  // Answers a request for `subpath`: "" or "/" for the aggregate, "/<name>" for one check.
  HealthResponse Serve(absl::string_view subpath, const HealthQuery& query) const;

  // Runs every check; OK when all pass, else the first failure (by name) naming the check.
  absl::Status CheckAll() const;

  std::vector<std::string> Names() const;
  const std::string& endpoint() const { return endpoint_; }

 private:
  std::map<std::string, HealthCheck> Snapshot() const;

  const std::string endpoint_;
  mutable absl::Mutex mu_;
  std::map<std::string, HealthCheck> checks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::runtime
