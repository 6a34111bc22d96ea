// File: e2e/emulator/api_server.cc
// Construction, routing, seeding, ticks and snapshots of the API server.
#include "e2e/emulator/api_server.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/core/names.h"
#include "controller/dra/dra_object_codec.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/conversion.h"
#include "e2e/emulator/crd.h"
#include "e2e/emulator/discovery.h"
#include "e2e/emulator/selectors.h"
#include "e2e/emulator/server_util.h"
#include "e2e/emulator/structural_schema.h"
#include "e2e/emulator/table.h"

namespace gpuprofile::e2e {

namespace {

std::optional<ApiServer::Route> ParseRoute(const std::string& path) {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  ApiServer::Route r;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    r.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    r.group = parts[1];
    r.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  if (rest.empty()) return std::nullopt;
  if (rest[0] == "namespaces" && rest.size() >= 3 && rest[2] != "status" && rest[2] != "finalize") {
    r.ns = rest[1];
    r.namespaced_path = true;
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() > 3) return std::nullopt;
  r.resource = rest[0];
  if (rest.size() > 1) r.name = rest[1];
  if (rest.size() > 2) r.subresource = rest[2];
  return r;
}

// Whether the release's DeviceTaintRule API is switched on.
bool DeviceTaintRulesServed(const FeatureGates& gates) {
  return gates.version().minor >= 35 ? gates.Enabled(kDRADeviceTaintRules)
                                     : gates.Enabled(kDRADeviceTaints);
}

}  // namespace

ApiServer::ApiServer(ServerOptions options, FeatureGates gates,
                     std::unique_ptr<ResourceRegistry> registry)
    : options_(std::move(options)),
      gates_(std::move(gates)),
      registry_(std::move(registry)),
      store_(options_.history_size),
      watches_(options_.bookmark_interval, options_.delivery),
      random_(std::random_device{}()) {}

ApiServer::~ApiServer() { CloseAllWatches(); }

absl::StatusOr<std::unique_ptr<ApiServer>> ApiServer::Create(ServerOptions options) {
  absl::StatusOr<FeatureGates> gates =
      FeatureGates::Parse(options.kube_version, options.feature_gates);
  if (!gates.ok()) return gates.status();
  absl::StatusOr<std::unique_ptr<ResourceRegistry>> registry = ResourceRegistry::Create(
      {options.kube_version, options.runtime_config, DeviceTaintRulesServed(*gates)});
  if (!registry.ok()) return registry.status();
  std::unique_ptr<ApiServer> server(
      new ApiServer(std::move(options), std::move(*gates), std::move(*registry)));
  {
    absl::MutexLock lock(&server->mu_);
    server->store_.SetListener(
        [s = server.get()](const StoreEvent& e) { s->watches_.Dispatch(e); });
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      nlohmann::json o = {{"apiVersion", "v1"},
                          {"kind", "Namespace"},
                          {"metadata",
                           {{"name", ns},
                            {"uid", server->NewUid()},
                            {"creationTimestamp", server->Timestamp()},
                            {"labels", {{"kubernetes.io/metadata.name", ns}}}}},
                          {"spec", {{"finalizers", {"kubernetes"}}}},
                          {"status", {{"phase", "Active"}}}};
      server->store_.Create("namespaces", std::move(o));
    }
  }
  return server;
}

std::string ApiServer::NewUid() {
  uint64_t a = random_(), b = random_();
  a = (a & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
  b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", a >> 32, (a >> 16) & 0xFFFF, a & 0xFFFF,
                         b >> 48, b & 0xFFFFFFFFFFFFULL);
}

std::string ApiServer::Timestamp() const {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", options_.clock(), absl::UTCTimeZone());
}

const ResourceType* ApiServer::TypeForStorageKey(const std::string& key) const {
  const ResourceType* found = nullptr;
  for (const ResourceType* t : registry_->All()) {
    if (t->storage_key == key && (!found || t->group.empty())) found = t;
  }
  return found;
}

HttpResponse ApiServer::Handle(const HttpRequest& request) {
  absl::MutexLock lock(&mu_);
  return HandleLocked(request);
}

HttpResponse ApiServer::HandleLocked(const HttpRequest& request) {
  const std::string& path = request.path;
  if (path == "/version" || path == "/version/") return VersionResponse(options_.kube_version);
  if (path == "/healthz" || path == "/readyz" || path == "/livez") {
    HttpResponse r;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "ok";
    return r;
  }
  if (path == "/openapi/v2" || path == "/openapi/v2/") {
    if (request.method != "GET") return ErrorResponse(MethodNotSupported({}, request.method));
    return OpenApiV2Response(*registry_, options_.kube_version, request.Header("accept"));
  }
  if (path.rfind("/openapi/v3", 0) == 0) {
    if (request.method != "GET") return ErrorResponse(MethodNotSupported({}, request.method));
    return OpenApiResponse(*registry_, path);
  }
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  bool discovery = (parts.size() == 1 && (parts[0] == "api" || parts[0] == "apis")) ||
                   (parts.size() == 2 && parts[0] == "api") ||
                   (parts.size() <= 3 && parts.size() >= 2 && parts[0] == "apis");
  if (discovery && request.method == "GET") {
    return DiscoveryResponse(*registry_, "/" + absl::StrJoin(parts, "/"), request.Header("accept"));
  }
  std::optional<Route> route = ParseRoute(path);
  if (!route) return ErrorResponse(PathNotFound());
  return HandleResource(request, *route);
}

HttpResponse ApiServer::HandleResource(const HttpRequest& request, const Route& route) {
  const ResourceType* found = registry_->Find(route.group, route.version, route.resource);
  if (!found) return ErrorResponse(PathNotFound());
  ResourceType type = *found;  // the registry may change during this request (CRDs)
  if (route.namespaced_path && !type.namespaced) return ErrorResponse(PathNotFound());
  if (!type.namespaced && !route.ns.empty()) return ErrorResponse(PathNotFound());
  if (type.namespaced && !route.name.empty() && !route.namespaced_path) {
    return ErrorResponse(PathNotFound());
  }
  if (!route.subresource.empty() && !(route.subresource == "status" && type.status_subresource)) {
    return ErrorResponse(PathNotFound());
  }
  const std::string& m = request.method;
  // Reviews are answered by the front end (POST to the collection); nothing else is served.
  if (type.review) return ErrorResponse(MethodNotSupported(type.group_resource(), m));
  std::string body_type = MediaType(request.Header("content-type"));
  if ((m == "POST" || m == "PUT") && !request.body.empty() && !body_type.empty() &&
      body_type != "application/json") {
    // Protobuf and CBOR bodies are not decoded (README: "Wire formats").
    ApiError e = UnsupportedMediaType(body_type);
    e.message = absl::StrCat(
        "the body of the request was in an unknown format - accepted media "
        "types include: application/json (got ",
        body_type, ")");
    return ErrorResponse(e);
  }
  if (route.name.empty()) {
    if (m == "GET") {
      std::optional<bool> watch = ParseBool(request.Query("watch"));
      if (request.HasQuery("watch") && !watch) {
        return ErrorResponse(BadRequest("invalid value for watch: " + request.Query("watch")));
      }
      return watch.value_or(false) ? Watch(request, route, type) : List(request, route, type);
    }
    if (m == "POST") return CreateObject(request, route, type, request.body);
    if (m == "DELETE") return DeleteCollection(request, route, type);
    return ErrorResponse(MethodNotSupported(type.group_resource(), m));
  }
  if (m == "GET") return Get(request, route, type);
  if (m == "PUT") return UpdateObject(request, route, type, request.body, false);
  if (m == "PATCH") return PatchObject(request, route, type);
  if (m == "DELETE" && route.subresource.empty()) return DeleteObject(request, route, type);
  return ErrorResponse(MethodNotSupported(type.group_resource(), m));
}

absl::Status ApiServer::Seed(const std::vector<nlohmann::json>& objects) {
  absl::MutexLock lock(&mu_);
  seeding_ = true;
  std::vector<std::string> problems;
  for (const nlohmann::json& object : objects) {
    std::string av = object.value("apiVersion", "");
    std::string kind = object.value("kind", "");
    const ResourceType* found = registry_->FindKind(av, kind);
    if (!found) {
      problems.push_back(absl::StrCat(kind, " ", NameOf(object), ": ", av, " ", kind,
                                      " is not served by this emulator configuration"));
      continue;
    }
    ResourceType type = *found;
    Route route;
    route.group = type.group;
    route.version = av.substr(av.find('/') == std::string::npos ? 0 : av.find('/') + 1);
    route.resource = type.resource;
    route.name = NameOf(object);
    if (type.namespaced) {
      route.ns = NamespaceOf(object).empty() ? "default" : NamespaceOf(object);
      route.namespaced_path = true;
      if (!store_.Get("namespaces", "", route.ns)) {
        nlohmann::json ns = {
            {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", route.ns}}}};
        Route ns_route{"", "v1", "namespaces", "", "", "", false};
        HttpRequest req;
        req.method = "POST";
        CreateObject(req, ns_route, *registry_->Find("", "v1", "namespaces"), ns.dump());
      }
    }
    HttpRequest req;
    req.method = "POST";
    HttpResponse r;
    if (store_.Get(type.storage_key, route.ns, route.name)) {
      nlohmann::json replacement = object;
      if (replacement.contains("metadata")) replacement["metadata"].erase("resourceVersion");
      r = UpdateObject(req, route, type, replacement.dump(), false);
    } else {
      r = CreateObject(req, route, type, object.dump());
    }
    if (r.status >= 300) {
      nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
      problems.push_back(body.is_object() ? body.value("message", r.body) : r.body);
    }
  }
  seeding_ = false;
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  return absl::OkStatus();
}

void ApiServer::Tick() {
  absl::MutexLock lock(&mu_);
  watches_.Tick(options_.clock(), store_.resource_version());
}

void ApiServer::CloseAllWatches() {
  absl::MutexLock lock(&mu_);
  watches_.CloseAll();
}

absl::Status ApiServer::SetRuntimeConfig(const std::map<std::string, bool>& changes) {
  absl::MutexLock lock(&mu_);
  std::map<std::string, bool> merged = options_.runtime_config;
  for (const auto& [key, enabled] : changes) merged[key] = enabled;
  absl::StatusOr<std::unique_ptr<ResourceRegistry>> registry =
      ResourceRegistry::Create({options_.kube_version, merged, DeviceTaintRulesServed(gates_)});
  if (!registry.ok()) return registry.status();
  for (const ResourceType* t : registry_->All()) {
    if (t->is_custom) (*registry)->PutCustom(*t);
  }
  registry_ = *std::move(registry);
  options_.runtime_config = std::move(merged);
  watches_.CloseAll();
  return absl::OkStatus();
}

void ApiServer::ShutdownWatches() {
  absl::MutexLock lock(&mu_);
  watches_.Shutdown();
}

std::vector<ObjectPtr> ApiServer::Objects(const std::string& storage_key) const {
  absl::MutexLock lock(&mu_);
  return store_.List(storage_key, "");
}

void ApiServer::CompactHistory() {
  absl::MutexLock lock(&mu_);
  store_.Compact();
}

nlohmann::json ApiServer::Snapshot() const {
  absl::MutexLock lock(&mu_);
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& [key, o] : store_.All()) objects.push_back({{"key", key}, {"object", *o}});
  return {{"resourceVersion", store_.resource_version()}, {"objects", objects}};
}

absl::Status ApiServer::Restore(const nlohmann::json& snapshot) {
  absl::MutexLock lock(&mu_);
  if (!snapshot.is_object() || !snapshot.contains("resourceVersion") ||
      !snapshot["resourceVersion"].is_number_unsigned() || !snapshot.contains("objects") ||
      !snapshot["objects"].is_array()) {
    return absl::InvalidArgumentError("state file: not a kube-emulator state document");
  }
  std::vector<std::pair<std::string, nlohmann::json>> objects;
  for (const auto& entry : snapshot["objects"]) {
    if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string() ||
        !entry.contains("object") || !entry["object"].is_object()) {
      return absl::InvalidArgumentError("state file: malformed object entry");
    }
    objects.emplace_back(entry["key"].get<std::string>(), entry["object"]);
  }
  store_.Restore(snapshot["resourceVersion"].get<uint64_t>(), std::move(objects));
  for (const ObjectPtr& crd : store_.List(kCrdKey, "")) OnCrdWritten(*crd);
  return absl::OkStatus();
}

}  // namespace gpuprofile::e2e
