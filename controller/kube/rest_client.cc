// File: controller/kube/rest_client.cc
#include "controller/kube/rest_client.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/core/input_limits.h"
#include "controller/core/status_macros.h"
#include "controller/runtime/controller_runtime_metrics.h"

namespace gpuprofile::kube {
namespace {

bool Unreserved(unsigned char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

std::string PathEscape(const std::string& segment) {
  std::string out;
  for (unsigned char c : segment) {
    if (Unreserved(c) || c == ':' || c == '@') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

// Builds "path?k=v&k=v" skipping empty values.
class Query {
 public:
  void Add(const char* key, const std::string& value) {
    if (value.empty()) return;
    absl::StrAppend(&text_, text_.empty() ? "?" : "&", key, "=", QueryEscape(value));
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

void AddWriteOptions(const WriteOptions& options, Query* q) {
  q->Add("fieldManager", options.field_manager);
  if (options.dry_run) q->Add("dryRun", "All");
  q->Add("fieldValidation", options.field_validation);
}

const char* PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

bool RetryableTransportError(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s);
}

std::string BodyStringAt(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string QueryEscape(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (Unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  // absl::Hex prints lower case; RFC 3986 prefers upper case.
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '%') {
      out[i + 1] = absl::ascii_toupper(static_cast<unsigned char>(out[i + 1]));
      out[i + 2] = absl::ascii_toupper(static_cast<unsigned char>(out[i + 2]));
    }
  }
  return out;
}

std::string ResourcePath::Path() const {
  std::string out = group.empty() ? absl::StrCat("/api/", PathEscape(version))
                                  : absl::StrCat("/apis/", PathEscape(group), "/",
                                                 PathEscape(version));
  if (!namespace_name.empty()) absl::StrAppend(&out, "/namespaces/", PathEscape(namespace_name));
  absl::StrAppend(&out, "/", PathEscape(resource));
  if (!name.empty()) absl::StrAppend(&out, "/", PathEscape(name));
  if (!subresource.empty()) absl::StrAppend(&out, "/", PathEscape(subresource));
  return out;
}

ResourcePath ResourcePath::WithName(std::string object_name) const {
  ResourcePath p = *this;
  p.name = std::move(object_name);
  return p;
}

ResourcePath ResourcePath::WithNamespace(std::string ns) const {
  ResourcePath p = *this;
  p.namespace_name = std::move(ns);
  return p;
}

ResourcePath ResourcePath::WithSubresource(std::string sub) const {
  ResourcePath p = *this;
  p.subresource = std::move(sub);
  return p;
}

RestClient::RestClient(HttpTransport* transport, RestClientOptions options)
    : transport_(transport),
      options_(std::move(options)),
      host_(transport->host()),
      limiter_(options_.clock, options_.qps, options_.burst) {
  if (options_.metrics != nullptr) {
    absl::StatusOr<runtime::ControllerRuntimeMetrics> m =
        runtime::ControllerRuntimeMetrics::Register(options_.metrics);
    // Only a registry holding a differently-shaped family of the same name fails; the client
    // then runs without the counter rather than not at all.
    if (m.ok()) requests_total_ = m->rest_client_requests_total;
  }
  if (!options_.uniform) {
    options_.uniform = [this] {
      absl::MutexLock lock(&mu_);
      return absl::Uniform<double>(gen_, 0.0, 1.0);
    };
  }
}

void RestClient::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }
  limiter_.Stop();
  stop_.Cancel();
}

absl::Status RestClient::Sleep(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  const absl::Time deadline = options_.clock->Now() + d;
  while (!stopped_ && options_.clock->Now() < deadline) {
    options_.clock->AwaitWithDeadline(&mu_, absl::Condition(&stopped_), deadline);
  }
  if (stopped_) return absl::CancelledError("the API client is stopping");
  return absl::OkStatus();
}

void RestClient::CountRequest(const std::string& method, const std::string& code) {
  if (requests_total_ != nullptr) requests_total_->WithLabels({code, method, host_})->Inc();
}

absl::Status RestClient::PrepareRequest(const Call& call, absl::Duration timeout,
                                        HttpRequest* request) {
  request->method = call.method;
  request->path = call.path;
  request->body = call.body;
  request->timeout = timeout;
  request->headers = {{"Accept", "application/json"}, {"User-Agent", options_.user_agent}};
  if (!call.content_type.empty()) request->headers.emplace_back("Content-Type", call.content_type);
  if (options_.credentials != nullptr) {
    absl::StatusOr<Credentials> creds = options_.credentials->Get();
    if (!creds.ok()) return creds.status();
    if (!creds->bearer_token.empty()) {
      request->headers.emplace_back("Authorization", absl::StrCat("Bearer ", creds->bearer_token));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HttpResponse> RestClient::Do(const Call& call) {
  runtime::Backoff backoff(options_.retry_backoff, options_.uniform);
  bool reauthenticated = false;
  for (int attempt = 0;; ++attempt) {
    const bool retries_left = attempt < options_.max_retries;
    if (absl::Status s = limiter_.Wait(); !s.ok()) {
      return absl::CancelledError(absl::StrCat(call.method, " ", call.path, ": ", s.message()));
    }
    HttpRequest request;
    RETURN_IF_ERROR(PrepareRequest(call, options_.request_timeout, &request));
    absl::StatusOr<HttpResponse> response = transport_->Send(request, &stop_);
    if (!response.ok()) {
      CountRequest(call.method, "<error>");
      const absl::Status& s = response.status();
      if (absl::IsCancelled(s)) return s;
      if (call.idempotent && RetryableTransportError(s) && retries_left) {
        RETURN_IF_ERROR(Sleep(backoff.Next()));
        continue;
      }
      return absl::Status(s.code(), absl::StrCat(call.method, " ", call.path, ": ", s.message(),
                                                 attempt > 0 ? absl::StrCat(" (after ", attempt,
                                                                            " retries)")
                                                             : ""));
    }
    CountRequest(call.method, absl::StrCat(response->status));
    if (response->status >= 200 && response->status < 300) return response;
    ApiError error = ParseApiError(*response);
    if (error.code == 401 && options_.credentials != nullptr && !reauthenticated) {
      // Rotated token file or expired exec credential: fetch again and retry once.
      options_.credentials->Invalidate();
      reauthenticated = true;
      continue;
    }
    const bool retryable = error.code == 429 || (call.idempotent && (error.code == 500 ||
                                                                     error.code == 503 ||
                                                                     error.code == 504));
    if (retryable && retries_left) {
      absl::Duration wait = backoff.Next();
      if (error.retry_after) wait = *error.retry_after;
      RETURN_IF_ERROR(Sleep(wait));
      continue;
    }
    return ApiErrorStatus(error, call.method, call.path);
  }
}

absl::StatusOr<nlohmann::json> RestClient::ParseBody(const Call& call,
                                                     const HttpResponse& response) {
  // Size and nesting are checked before parsing (input_limits.h): a broken or hostile server
  // cannot make the client exhaust its memory or stack.
  absl::StatusOr<nlohmann::json> body =
      limits::ParseJson(response.body,
                        absl::StrCat(call.method, " ", call.path, ": the ", response.status,
                                     " response"),
                        limits::kMaxApiResponseBytes);
  if (!body.ok()) return absl::DataLossError(body.status().message());
  return body;
}

absl::StatusOr<nlohmann::json> RestClient::Answer(const Call& call, const HttpResponse& response,
                                                  const WriteOptions& options) {
  if (!options.parse_response) return nlohmann::json();
  return ParseBody(call, response);
}

absl::StatusOr<nlohmann::json> RestClient::Get(const ResourcePath& path) {
  return GetPath(path.Path());
}

absl::StatusOr<nlohmann::json> RestClient::GetPath(const std::string& path) {
  Call call{"GET", path, "", "", true};
  ASSIGN_OR_RETURN(HttpResponse response, Do(call));
  return ParseBody(call, response);
}

namespace {

std::string ListPath(const ResourcePath& collection, const ListOptions& options) {
  Query q;
  q.Add("labelSelector", options.label_selector);
  q.Add("fieldSelector", options.field_selector);
  if (options.limit > 0) q.Add("limit", absl::StrCat(options.limit));
  q.Add("continue", options.continue_token);
  q.Add("resourceVersion", options.resource_version);
  return collection.Path() + q.text();
}

// Every page from `list_page(options)`, following continue tokens; an expired token (410)
// restarts the listing once. Returns the last page's resourceVersion.
template <typename Page>
absl::StatusOr<std::string> FollowPages(
    ListOptions options,
    const std::function<absl::StatusOr<Page>(const ListOptions&)>& list_page,
    const std::function<void(Page page)>& on_page, const std::function<void()>& on_restart) {
  const ListOptions first = options;
  bool restarted = false;
  for (;;) {
    absl::StatusOr<Page> page = list_page(options);
    if (!page.ok()) {
      if (apierrors::IsGone(page.status()) && !options.continue_token.empty() && !restarted) {
        restarted = true;
        options = first;
        on_restart();
        continue;
      }
      return page.status();
    }
    std::string continue_token = std::move(page->continue_token);
    std::string resource_version = page->resource_version;
    on_page(*std::move(page));
    if (continue_token.empty()) return resource_version;
    options.continue_token = std::move(continue_token);
  }
}

}  // namespace

absl::StatusOr<ObjectList> RestClient::List(const ResourcePath& collection,
                                            const ListOptions& options) {
  Call call{"GET", ListPath(collection, options), "", "", true};
  ASSIGN_OR_RETURN(HttpResponse response, Do(call));
  ASSIGN_OR_RETURN(nlohmann::json body, ParseBody(call, response));
  if (!body.is_object()) {
    return absl::DataLossError(absl::StrCat("GET ", call.path, ": the list is not an object"));
  }
  ObjectList list;
  list.api_version = BodyStringAt(body, "apiVersion");
  list.kind = BodyStringAt(body, "kind");
  if (auto meta = body.find("metadata"); meta != body.end() && meta->is_object()) {
    list.resource_version = BodyStringAt(*meta, "resourceVersion");
    list.continue_token = BodyStringAt(*meta, "continue");
    if (auto r = meta->find("remainingItemCount"); r != meta->end() && r->is_number_integer()) {
      list.remaining_item_count = r->get<int64_t>();
    }
  }
  const std::string item_kind = absl::EndsWith(list.kind, "List")
                                    ? list.kind.substr(0, list.kind.size() - 4)
                                    : std::string();
  if (auto items = body.find("items"); items != body.end() && items->is_array()) {
    list.items.reserve(items->size());
    for (nlohmann::json& item : *items) {
      if (!item.is_object()) continue;
      if (!item.contains("apiVersion") && !list.api_version.empty()) {
        item["apiVersion"] = list.api_version;
      }
      if (!item.contains("kind") && !item_kind.empty()) item["kind"] = item_kind;
      list.items.push_back(std::move(item));
    }
  }
  return list;
}

absl::StatusOr<std::string> RestClient::ListPages(
    const ResourcePath& collection, ListOptions options,
    const std::function<void(ObjectList page)>& on_page, const std::function<void()>& on_restart) {
  return FollowPages<ObjectList>(
      std::move(options),
      [&](const ListOptions& o) { return List(collection, o); }, on_page, on_restart);
}

absl::StatusOr<std::string> RestClient::ListPagesRaw(
    const ResourcePath& collection, ListOptions options,
    const std::function<void(RawListPage page)>& on_page, const std::function<void()>& on_restart) {
  return FollowPages<RawListPage>(
      std::move(options),
      [&](const ListOptions& o) -> absl::StatusOr<RawListPage> {
        Call call{"GET", ListPath(collection, o), "", "", true};
        ASSIGN_OR_RETURN(HttpResponse response, Do(call));
        return ParseRawListPage(std::move(response.body),
                                absl::StrCat(call.method, " ", call.path, ": the ",
                                             response.status, " response"));
      },
      on_page, on_restart);
}

absl::StatusOr<ObjectList> RestClient::ListAll(const ResourcePath& collection,
                                               ListOptions options) {
  ObjectList all;
  absl::StatusOr<std::string> resource_version = ListPages(
      collection, std::move(options),
      [&all](ObjectList page) {
        if (all.items.empty() && all.kind.empty()) {
          all.api_version = page.api_version;
          all.kind = page.kind;
        }
        for (nlohmann::json& item : page.items) all.items.push_back(std::move(item));
      },
      [&all] { all = ObjectList(); });
  if (!resource_version.ok()) return resource_version.status();
  all.resource_version = *std::move(resource_version);
  return all;
}

absl::StatusOr<nlohmann::json> RestClient::Create(const ResourcePath& collection,
                                                  const nlohmann::json& object,
                                                  const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  Call call{"POST", collection.Path() + q.text(), object.dump(), "application/json", false};
  ASSIGN_OR_RETURN(HttpResponse response, Do(call));
  return Answer(call, response, options);
}

absl::StatusOr<nlohmann::json> RestClient::Update(const ResourcePath& path,
                                                  const nlohmann::json& object,
                                                  const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  Call call{"PUT", path.Path() + q.text(), object.dump(), "application/json", true};
  ASSIGN_OR_RETURN(HttpResponse response, Do(call));
  return Answer(call, response, options);
}

absl::StatusOr<nlohmann::json> RestClient::UpdateStatus(const ResourcePath& path,
                                                        const nlohmann::json& object,
                                                        const WriteOptions& options) {
  return Update(path.WithSubresource("status"), object, options);
}

absl::StatusOr<nlohmann::json> RestClient::Patch(const ResourcePath& path, PatchType type,
                                                 const nlohmann::json& patch,
                                                 const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  Call call{"PATCH", path.Path() + q.text(), patch.dump(), PatchContentType(type), false};
  ASSIGN_OR_RETURN(HttpResponse response, Do(call));
  return Answer(call, response, options);
}

absl::StatusOr<nlohmann::json> RestClient::Delete(const ResourcePath& path,
                                                  const DeleteOptions& options) {
  nlohmann::json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (options.precondition_uid || options.precondition_resource_version) {
    nlohmann::json pre = nlohmann::json::object();
    if (options.precondition_uid) pre["uid"] = *options.precondition_uid;
    if (options.precondition_resource_version) {
      pre["resourceVersion"] = *options.precondition_resource_version;
    }
    body["preconditions"] = pre;
  }
  switch (options.propagation) {
    case PropagationPolicy::kDefault: break;
    case PropagationPolicy::kBackground: body["propagationPolicy"] = "Background"; break;
    case PropagationPolicy::kForeground: body["propagationPolicy"] = "Foreground"; break;
    case PropagationPolicy::kOrphan: body["propagationPolicy"] = "Orphan"; break;
  }
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (options.dry_run) body["dryRun"] = {"All"};
  Call call{"DELETE", path.Path(), body.dump(), "application/json", true};
  ASSIGN_OR_RETURN(HttpResponse response, Do(call));
  return ParseBody(call, response);
}

absl::Status RestClient::Watch(const ResourcePath& collection, const WatchOptions& options,
                               const LineCallback& on_line, Cancellation* cancel) {
  Query q;
  q.Add("watch", "true");
  q.Add("labelSelector", options.label_selector);
  q.Add("fieldSelector", options.field_selector);
  q.Add("resourceVersion", options.resource_version);
  if (options.allow_bookmarks) q.Add("allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0) q.Add("timeoutSeconds", absl::StrCat(options.timeout_seconds));
  Call call{"GET", collection.Path() + q.text(), "", "", true};
  if (absl::Status s = limiter_.Wait(); !s.ok()) {
    return absl::CancelledError(absl::StrCat("watch ", call.path, ": ", s.message()));
  }
  HttpRequest request;
  RETURN_IF_ERROR(PrepareRequest(call, options.idle_timeout, &request));
  // Stop() of the client ends the watch too.
  Cancellation local;
  Cancellation* effective = cancel != nullptr ? cancel : &local;
  ScopedCancelCallback forward(&stop_, [effective] { effective->Cancel(); });
  absl::StatusOr<HttpResponse> response = transport_->Stream(request, on_line, effective);
  if (!response.ok()) {
    CountRequest("GET", "<error>");
    return absl::Status(response.status().code(),
                        absl::StrCat("watch ", call.path, ": ", response.status().message()));
  }
  CountRequest("GET", absl::StrCat(response->status));
  if (response->status >= 200 && response->status < 300) return absl::OkStatus();
  ApiError error = ParseApiError(*response);
  if (error.code == 401 && options_.credentials != nullptr) options_.credentials->Invalidate();
  return ApiErrorStatus(error, "GET", call.path);
}

}  // namespace gpuprofile::kube
