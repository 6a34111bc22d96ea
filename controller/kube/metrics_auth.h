// File: controller/kube/metrics_auth.h
// Token authentication and RBAC authorization of /metrics requests, delegated to the API server
// as controller-runtime's filters.WithAuthenticationAndAuthorization (kubebuilder's
// --metrics-secure) does: the request's `Authorization: Bearer` token is checked with a
// TokenReview (authentication.k8s.io/v1), and the user it names is authorized with a
// SubjectAccessReview (authorization.k8s.io/v1) for the non-resource request {path, verb} (the
// verb is the lower-case HTTP method). Answers as controller-runtime's filter does:
//   401 "Unauthorized"                          no token, or the API server did not accept it;
//   403 "Authorization denied for user U"       the API server's authorizers did not allow it;
//   500 "Authentication failed" / "Authorization for user U failed"
//                                               a review could not be made (logged with why).
// The reviews go through the operator's RestClient (its credentials, rate limiter, retries of
// 429s), so the operator's service account needs `create` on tokenreviews and
// subjectaccessreviews (config/rbac/metrics_auth_role.yaml).
//
// Results are cached in two bounded LRU caches on the injected clock, with the TTLs of
// controller-runtime's filter: a token's review (accepted or not) for 1 minute, an allowed
// decision for 5 minutes and a denied one for 30 seconds; failed reviews are not cached. Cache
// keys are SHA-256 digests, so no token is kept in memory after its request.
//
// The pure parts (request bodies, decoding of answers, the cache) are declared here for tests.
// Thread-safety: MetricsAuthorizer and ExpiringLruCache are thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/endpoint_server.h"
#include "controller/kube/rest_client.h"
#include "controller/runtime/clock.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

// ---- Pure parts ----

// The token of an Authorization header: "Bearer <token>" (the scheme case-insensitive, as the
// API server's bearer token authenticator reads it); nullopt when absent, another scheme or empty.
std::optional<std::string> BearerTokenOf(const std::string& authorization);

// status.user of a TokenReview.
struct ReviewedUser {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

struct TokenReviewOutcome {
  bool authenticated = false;
  ReviewedUser user;   // when authenticated
  std::string error;   // status.error, if the server gave one
};

// POST body of a TokenReview for `token` (audiences left to the server's defaults).
nlohmann::json TokenReviewBody(const std::string& token);
// Reads a TokenReview the server answered. InvalidArgument naming the field when the answer is
// not one (wrong kind, status missing, a field of the wrong type, authenticated without a
// username).
absl::StatusOr<TokenReviewOutcome> DecodeTokenReview(const nlohmann::json& review);

struct AccessReviewOutcome {
  bool allowed = false;
  bool denied = false;
  std::string reason;
  std::string evaluation_error;
};

// POST body of a SubjectAccessReview: may `user` `verb` the non-resource URL `path`?
nlohmann::json SubjectAccessReviewBody(const ReviewedUser& user, const std::string& verb,
                                       const std::string& path);
// Reads a SubjectAccessReview the server answered; InvalidArgument naming the field as above.
absl::StatusOr<AccessReviewOutcome> DecodeSubjectAccessReview(const nlohmann::json& review);

// A map of at most `capacity` entries, each expiring `ttl` after it was put (on the clock the
// caller reads: every call takes `now`). Putting into a full cache drops the least recently used
// entry; a lookup of an expired entry drops it.
template <typename V>
class ExpiringLruCache {
 public:
  explicit ExpiringLruCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  std::optional<V> Get(const std::string& key, absl::Time now) {
    absl::MutexLock lock(&mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    if (now >= it->second->expires) {
      order_.erase(it->second);
      index_.erase(it);
      return std::nullopt;
    }
    order_.splice(order_.begin(), order_, it->second);
    return it->second->value;
  }

  void Put(const std::string& key, V value, absl::Duration ttl, absl::Time now) {
    absl::MutexLock lock(&mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      order_.erase(it->second);
      index_.erase(it);
    }
    while (index_.size() >= capacity_) {
      index_.erase(order_.back().key);
      order_.pop_back();
    }
    order_.push_front(Entry{key, std::move(value), now + ttl});
    index_[key] = order_.begin();
  }

  size_t size() const {
    absl::MutexLock lock(&mu_);
    return index_.size();
  }

 private:
  struct Entry {
    std::string key;
    V value;
    absl::Time expires;
  };
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::list<Entry> order_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<std::string, typename std::list<Entry>::iterator> index_
      ABSL_GUARDED_BY(mu_);
};

// ---- The authorizer ----

struct MetricsAuthOptions {
  RestClient* client = nullptr;  // required; must outlive the authorizer
  runtime::Clock* clock = runtime::RealClock::Default();
  // controller-runtime's filter: DelegatingAuthenticatorConfig.CacheTTL (for accepted and
  // rejected tokens alike), DelegatingAuthorizerConfig.AllowCacheTTL and DenyCacheTTL.
  absl::Duration token_ttl = absl::Minutes(1);
  absl::Duration allow_ttl = absl::Minutes(5);
  absl::Duration deny_ttl = absl::Seconds(30);
  // Entries per cache (tokens; decisions).
  size_t max_entries = 4096;
  // Where failed reviews are reported (a message and key/values); null: nowhere.
  std::function<void(const std::string& message,
                     const std::vector<std::pair<std::string, std::string>>& fields)>
      log_error;
};

// The verdict on one request: `status` 0 lets it through; otherwise the answer to send.
struct MetricsAuthVerdict {
  int status = 0;
  std::string body;
};

class MetricsAuthorizer {
 public:
  explicit MetricsAuthorizer(MetricsAuthOptions options);
  MetricsAuthorizer(const MetricsAuthorizer&) = delete;
  MetricsAuthorizer& operator=(const MetricsAuthorizer&) = delete;

  // Checks a request with this Authorization header for `verb` (lower-case method) on `path`.
  MetricsAuthVerdict Check(const std::string& authorization, const std::string& verb,
                           const std::string& path);

  // How many reviews were sent to the API server (for tests and figures).
  int64_t token_reviews() const;
  int64_t access_reviews() const;

 private:
  MetricsAuthOptions options_;
  ExpiringLruCache<TokenReviewOutcome> tokens_;
  ExpiringLruCache<bool> decisions_;
  mutable absl::Mutex mu_;
  int64_t token_reviews_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t access_reviews_ ABSL_GUARDED_BY(mu_) = 0;
};

// `handlers` behind `auth`: every request is checked first. `auth` must outlive the handlers.
EndpointHandlers WithMetricsAuth(EndpointHandlers handlers, MetricsAuthorizer* auth);

}  // namespace gpuprofile::kube
