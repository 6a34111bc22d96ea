// File: controller/kube/rest_client.h
// Typed operations on any API resource over an HttpTransport, with what client-go's rest client
// adds around each request:
//  - authentication from a CredentialProvider (a 401 invalidates it and retries once, so rotated
//    token files and expired exec credentials recover without a restart);
//  - client-side rate limiting (runtime::ClientRateLimiter; --kube-api-qps / --kube-api-burst,
//    defaults 50 / 100);
//  - retries with jittered exponential backoff (runtime::Backoff) only where retrying is safe:
//    429 TooManyRequests on every verb (the server refused before doing anything; its
//    Retry-After is honoured), 500/503/504 and connection failures on idempotent verbs (GET,
//    PUT, DELETE) only; never on 4xx answers about the request itself;
//  - API `Status` errors as typed errors (api_error.h);
//  - `rest_client_requests_total{code,method,host}` in a runtime::MetricsRegistry, if given
//    (code "<error>" for transport failures, as client-go).
// Objects are nlohmann::json; typed decoding is the caller's (see watcher.h's decode function).
//
// Thread-safety: thread-safe; Stop() may be called from any thread and makes every waiting or
// later call fail with Cancelled.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/api_error.h"
#include "controller/kube/credentials.h"
#include "controller/kube/http_transport.h"
#include "controller/kube/raw_list.h"
#include "controller/runtime/backoff.h"
#include "controller/runtime/client_rate_limiter.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/metrics.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

// Names one resource, collection or subresource:
//   /api/v1/namespaces/default/configmaps/x/status, /apis/resource.k8s.io/v1/resourceslices
struct ResourcePath {
  std::string group;           // "" for the core group
  std::string version;         // "v1"
  std::string resource;        // plural: "configmaps"
  std::string namespace_name;  // "" for cluster-scoped resources, or all namespaces on a list
  std::string name;            // "" for the collection
  std::string subresource;     // "status", or ""

  // The URL path (segments percent-encoded).
  std::string Path() const;
  ResourcePath WithName(std::string object_name) const;
  ResourcePath WithNamespace(std::string ns) const;
  ResourcePath WithSubresource(std::string sub) const;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;           // page size; 0: everything in one response
  std::string continue_token;  // from the previous page
  std::string resource_version;
};

// One page (List) or all pages (ListAll) of a collection.
struct ObjectList {
  std::string api_version;  // of the list, e.g. "v1"
  std::string kind;         // e.g. "ConfigMapList"
  std::string resource_version;
  std::string continue_token;  // empty on the last page
  std::optional<int64_t> remaining_item_count;
  // The items, each with apiVersion and kind filled in (servers omit them in lists).
  std::vector<nlohmann::json> items;
};

enum class PatchType { kMerge, kJson, kStrategicMerge };

struct WriteOptions {
  std::string field_manager;     // fieldManager=
  bool dry_run = false;          // dryRun=All
  std::string field_validation;  // Strict, Warn, Ignore, or "" for the server's default
  // false: the answer's body is not parsed and the call returns null on success. For callers
  // that only need the outcome: the operator's status patches and creates answer with the
  // whole object, and parsing those answers to drop them was 4% of its CPU in the benchmark's
  // slice churn (docs/performance.md).
  bool parse_response = true;
};

enum class PropagationPolicy { kDefault, kBackground, kForeground, kOrphan };

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  PropagationPolicy propagation = PropagationPolicy::kDefault;
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  bool allow_bookmarks = true;
  // Server-side end of the watch (timeoutSeconds); 0 leaves it to the server.
  int64_t timeout_seconds = 0;
  // The stream fails when nothing (not even a bookmark) arrives for this long.
  absl::Duration idle_timeout = absl::Minutes(5);
};

struct RestClientOptions {
  runtime::Clock* clock = runtime::RealClock::Default();
  // --kube-api-qps / --kube-api-burst; qps <= 0 disables client-side limiting.
  double qps = runtime::ClientRateLimiter::kDefaultQps;
  int burst = runtime::ClientRateLimiter::kDefaultBurst;
  // Retries after the first attempt, for retryable failures only.
  int max_retries = 10;
  runtime::BackoffOptions retry_backoff = {absl::Milliseconds(200), absl::Seconds(10), 2.0, 1.0};
  // Idle timeout of a single request.
  absl::Duration request_timeout = absl::Seconds(30);
  // Null: requests carry no credentials.
  std::shared_ptr<CredentialProvider> credentials;
  // Null: no metrics.
  runtime::MetricsRegistry* metrics = nullptr;
  std::string user_agent = "gpu-profile-operator";
  // Jitter source for the retry backoff; null: a process-seeded generator.
  runtime::Backoff::UniformSource uniform;
};

class RestClient {
 public:
  // `transport` must outlive the client.
  RestClient(HttpTransport* transport, RestClientOptions options);
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  absl::StatusOr<nlohmann::json> Get(const ResourcePath& path);
  // One page.
  absl::StatusOr<ObjectList> List(const ResourcePath& collection, const ListOptions& options);
  // Every page, following continue tokens (options.limit is the page size). A continue token
  // that expired mid-way (410) restarts the listing from the beginning, once.
  absl::StatusOr<ObjectList> ListAll(const ResourcePath& collection, ListOptions options);
  // The same, handing each page to `on_page` as it arrives, so that a caller can decode a large
  // collection without holding every page's JSON at once. `on_restart` is called before the
  // first page is read again after an expired continue token (the caller drops what it kept).
  // Returns the list's resourceVersion (the last page's).
  absl::StatusOr<std::string> ListPages(const ResourcePath& collection, ListOptions options,
                                        const std::function<void(ObjectList page)>& on_page,
                                        const std::function<void()>& on_restart);
  // The same with each page as text (raw_list.h), for callers that decode items from their JSON
  // text; the items are not given apiVersion and kind (RawListPage::WithTypeMeta does that).
  absl::StatusOr<std::string> ListPagesRaw(const ResourcePath& collection, ListOptions options,
                                           const std::function<void(RawListPage page)>& on_page,
                                           const std::function<void()>& on_restart);
  // POST to the collection (`collection` has no name); returns the created object.
  absl::StatusOr<nlohmann::json> Create(const ResourcePath& collection,
                                        const nlohmann::json& object,
                                        const WriteOptions& options = {});
  // PUT; the object's metadata.resourceVersion makes it conditional.
  absl::StatusOr<nlohmann::json> Update(const ResourcePath& path, const nlohmann::json& object,
                                        const WriteOptions& options = {});
  // PUT to the status subresource.
  absl::StatusOr<nlohmann::json> UpdateStatus(const ResourcePath& path,
                                              const nlohmann::json& object,
                                              const WriteOptions& options = {});
  absl::StatusOr<nlohmann::json> Patch(const ResourcePath& path, PatchType type,
                                       const nlohmann::json& patch,
                                       const WriteOptions& options = {});
  // Returns the server's answer: a Status (deleted at once) or the object (deletion pending on
  // finalizers).
  absl::StatusOr<nlohmann::json> Delete(const ResourcePath& path,
                                        const DeleteOptions& options = {});
  // GET of a path outside the resource tree (/version, /apis, /apis/<group>).
  absl::StatusOr<nlohmann::json> GetPath(const std::string& path);

  // One watch stream: delivers each event line to `on_line` until the server ends the stream
  // (OK), `on_line` returns false (OK), the stream fails, or `cancel` fires (Cancelled). A
  // non-2xx answer is a typed error. Rate limited and authenticated; never retried (the watcher
  // decides).
  absl::Status Watch(const ResourcePath& collection, const WatchOptions& options,
                     const LineCallback& on_line, Cancellation* cancel);

  // Fails every waiting and later call with Cancelled.
  void Stop();

  const std::string& host() const { return host_; }

 private:
  struct Call {
    std::string method;
    std::string path;  // path and query
    std::string body;
    std::string content_type;
    bool idempotent = false;
  };

  absl::StatusOr<HttpResponse> Do(const Call& call);
  absl::Status PrepareRequest(const Call& call, absl::Duration timeout, HttpRequest* request);
  void CountRequest(const std::string& method, const std::string& code);
  // Waits `d` on the clock; Cancelled if Stop() comes first.
  absl::Status Sleep(absl::Duration d);
  absl::StatusOr<nlohmann::json> ParseBody(const Call& call, const HttpResponse& response);
  // ParseBody, or null when `options` asks for no answer.
  absl::StatusOr<nlohmann::json> Answer(const Call& call, const HttpResponse& response,
                                        const WriteOptions& options);

  HttpTransport* const transport_;
  RestClientOptions options_;
  const std::string host_;
  runtime::ClientRateLimiter limiter_;
  runtime::CounterFamily* requests_total_ = nullptr;
  Cancellation stop_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::BitGen gen_ ABSL_GUARDED_BY(mu_);
};

// Percent-encodes a query parameter value (RFC 3986 unreserved characters stay).
std::string QueryEscape(const std::string& value);

}  // namespace gpuprofile::kube
