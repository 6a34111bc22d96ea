// File: e2e/emulator/frontend.h
// What sits in front of the API server: the admin endpoints tests call (/emulator/...), fault
// injection (errors, latency, dropped watches), the audit log (one JSON line per request,
// flushed when the request completes) and --state persistence (the state file is rewritten,
// atomically, before a successful write is answered, so an acknowledged write is never lost).
// Thread-safety: Handle and Tick may be called concurrently.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "e2e/emulator/api_server.h"
#include "e2e/emulator/auth.h"
#include "e2e/emulator/http_types.h"

namespace gpuprofile::e2e {

struct FaultConfig {
  double error_fraction = 0;  // of API requests (not /emulator, /version, discovery)
  // Only requests on this resource (plural, e.g. "gpuprofiles") may fail; empty: any. A test
  // that injects errors into one controller's writes keeps the leader's lease out of them.
  std::string error_resource;
  int error_code = 500;       // 500, 429 (with Retry-After) or 409
  int retry_after_seconds = 1;
  absl::Duration latency;             // added to every API request
  absl::Duration drop_watches_every;  // 0: never
};

// "error-rate=0.2,error-code=429,retry-after=2,error-resource=gpuprofiles,latency=50ms,
// drop-watches-every=5s".
absl::StatusOr<FaultConfig> ParseFaults(const std::string& spec);

// Who may call the API. With `authenticate` off every request is the admin (system:masters).
struct AuthConfig {
  bool authenticate = false;  // bearer tokens required: missing or unknown → 401
  std::map<std::string, UserInfo> tokens;
  // --client-cert-auth: every connection presented a client certificate the emulator's CA signed
  // (checked in the TLS handshake); a request without a bearer token is this user. The handler
  // cannot see which certificate, and the emulator issues only one (kube-emulator-admin).
  std::optional<UserInfo> client_certificate_user;
  bool rbac = false;  // --authorization RBAC; otherwise AlwaysAllow
};

// The Kubernetes verb of a request: get, list, watch, create, update, patch, delete,
// deletecollection (non-resource paths: the lower-case method).
std::string RequestVerb(const HttpRequest& request);

class Frontend {
 public:
  Frontend(ApiServer* server, FaultConfig faults, std::string audit_path, std::string state_path);
  ~Frontend();
  absl::Status Open();  // opens the audit log
  // Call before the first Handle.
  void SetAuth(AuthConfig auth) { auth_ = std::move(auth); }

  HttpResponse Handle(const HttpRequest& request);
  void Tick();  // periodic watch drops
  absl::Status SaveState();

 private:
  HttpResponse Admin(const HttpRequest& request);
  // The RBAC objects as stored now.
  RbacObjects Rbac() const;
  // A TokenReview or SubjectAccessReview (review_handlers.h), with this front end's tokens and
  // authorization mode.
  HttpResponse Review(const HttpRequest& request) const;
  // Authentication and authorization; an error response, or nullopt with `user` filled.
  std::optional<HttpResponse> Authorize(const HttpRequest& request, UserInfo& user) const;

  ApiServer* server_;
  AuthConfig auth_;  // set before serving, then read-only
  std::string audit_path_;
  std::string state_path_;
  std::mutex mu_;  // faults_, random_, audit_, last_drop_
  FaultConfig faults_;
  std::mt19937_64 random_{std::random_device{}()};
  std::FILE* audit_ = nullptr;
  absl::Time last_drop_ = absl::Now();
  std::mutex state_mu_;
};

}  // namespace gpuprofile::e2e
