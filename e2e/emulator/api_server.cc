// File: e2e/emulator/api_server.cc
#include "e2e/emulator/api_server.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/api/validation.h"
#include "controller/dra/dra_object_codec.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/conversion.h"
#include "e2e/emulator/discovery.h"
#include "e2e/emulator/selectors.h"
#include "e2e/emulator/structural_schema.h"
#include "e2e/emulator/table.h"

namespace gpuprofile::e2e {

struct ApiServer::Route {
  std::string group;
  std::string version;
  std::string resource;
  std::string ns;
  std::string name;
  std::string subresource;
  bool namespaced_path = false;
};

namespace {

const char kCrdKey[] = "customresourcedefinitions.apiextensions.k8s.io";
const char kCrdFinalizer[] = "customresourcecleanup.apiextensions.k8s.io";
const char kForeground[] = "foregroundDeletion";
const char kOrphan[] = "orphan";

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(const std::string& s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return false;
  }
  return std::nullopt;
}

std::optional<ApiServer::Route> ParseRoute(const std::string& path);

std::vector<std::string> Finalizers(const nlohmann::json& object) {
  std::vector<std::string> out;
  const nlohmann::json* f = Lookup(object, "metadata.finalizers");
  if (f && f->is_array()) {
    for (const auto& v : *f) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

void SetFinalizers(nlohmann::json& object, const std::vector<std::string>& finalizers) {
  if (finalizers.empty()) {
    object["metadata"].erase("finalizers");
  } else {
    object["metadata"]["finalizers"] = finalizers;
  }
}

bool Deleting(const nlohmann::json& object) {
  return Lookup(object, "metadata.deletionTimestamp") != nullptr;
}

std::string Uid(const nlohmann::json& object) { return FieldString(object, "metadata.uid"); }

// The object without what the server manages, for "did anything change" comparisons.
nlohmann::json WithoutVolatile(nlohmann::json object) {
  if (object.contains("metadata") && object["metadata"].is_object()) {
    object["metadata"].erase("resourceVersion");
    object["metadata"].erase("managedFields");
  }
  return object;
}

// What a spec change means for metadata.generation: everything but metadata (and status when
// status is a subresource).
nlohmann::json GenerationRelevant(nlohmann::json object, bool status_subresource) {
  if (!object.is_object()) return object;
  object.erase("metadata");
  if (status_subresource) object.erase("status");
  return object;
}

void StripDirectives(nlohmann::json& patch) {
  if (patch.is_object()) {
    std::vector<std::string> drop;
    for (auto& [k, v] : patch.items()) {
      if (!k.empty() && k[0] == '$') drop.push_back(k);
    }
    for (const std::string& k : drop) patch.erase(k);
    for (auto& [k, v] : patch.items()) StripDirectives(v);
  } else if (patch.is_array()) {
    for (auto& v : patch) StripDirectives(v);
  }
}

std::string MediaType(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  return t;
}

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
  if (rest[0] == "namespaces" && rest.size() >= 3 && rest[2] != "status" &&
      rest[2] != "finalize") {
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

std::string EncodeContinue(uint64_t rv, const std::string& ns, const std::string& name) {
  nlohmann::json token = {{"rv", rv}, {"ns", ns}, {"name", name}};
  return absl::WebSafeBase64Escape(token.dump());
}

bool DecodeContinue(const std::string& text, uint64_t* rv, std::string* ns, std::string* name) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(text, &raw)) return false;
  nlohmann::json token = nlohmann::json::parse(raw, nullptr, false);
  if (!token.is_object() || !token.contains("rv") || !token["rv"].is_number_unsigned()) {
    return false;
  }
  *rv = token["rv"].get<uint64_t>();
  *ns = token.value("ns", "");
  *name = token.value("name", "");
  return true;
}

HttpResponse WithWarnings(HttpResponse r, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    r.headers.emplace_back("Warning", absl::StrCat("299 - \"", w, "\""));
  }
  return r;
}

// A CRD's resource type, or the validation problems.
std::vector<StatusCause> ValidateCrd(const nlohmann::json& crd) {
  std::vector<StatusCause> causes;
  std::string group = FieldString(crd, "spec.group");
  std::string plural = FieldString(crd, "spec.names.plural");
  std::string kind = FieldString(crd, "spec.names.kind");
  std::string scope = FieldString(crd, "spec.scope");
  if (group.empty()) {
    causes.push_back(FieldRequired("spec.group"));
  } else if (group.find('.') == std::string::npos) {
    causes.push_back(
        FieldInvalid("spec.group", group, "should be a domain with at least one dot"));
  }
  if (plural.empty()) causes.push_back(FieldRequired("spec.names.plural"));
  if (kind.empty()) causes.push_back(FieldRequired("spec.names.kind"));
  if (scope != "Namespaced" && scope != "Cluster") {
    causes.push_back(FieldNotSupported("spec.scope", scope, {"Cluster", "Namespaced"}));
  }
  if (!plural.empty() && !group.empty() && NameOf(crd) != plural + "." + group) {
    causes.push_back(FieldInvalid("metadata.name", NameOf(crd),
                                  "must be spec.names.plural+\".\"+spec.group"));
  }
  const nlohmann::json* versions = Lookup(crd, "spec.versions");
  if (!versions || !versions->is_array() || versions->empty()) {
    causes.push_back(FieldInvalid("spec.versions", nlohmann::json::array(),
                                  "must have exactly one version marked as storage version"));
    return causes;
  }
  int storage = 0;
  for (size_t i = 0; i < versions->size(); ++i) {
    const nlohmann::json& v = (*versions)[i];
    if (v.is_object() && v.value("storage", false)) ++storage;
    if (!Lookup(v, "schema.openAPIV3Schema")) {
      causes.push_back(FieldRequired(absl::StrCat("spec.versions[", i, "].schema.openAPIV3Schema"),
                                     "schemas are required"));
    }
    if (FieldString(v, "name").empty()) {
      causes.push_back(FieldRequired(absl::StrCat("spec.versions[", i, "].name")));
    }
  }
  if (storage != 1) {
    causes.push_back(FieldInvalid("spec.versions", *versions,
                                  "must have exactly one version marked as storage version"));
  }
  return causes;
}

ResourceType CrdType(const nlohmann::json& crd) {
  ResourceType t;
  t.group = FieldString(crd, "spec.group");
  t.resource = FieldString(crd, "spec.names.plural");
  t.kind = FieldString(crd, "spec.names.kind");
  t.singular = FieldString(crd, "spec.names.singular");
  if (t.singular.empty()) {
    t.singular = t.kind;
    for (char& c : t.singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  t.list_kind = FieldString(crd, "spec.names.listKind");
  if (t.list_kind.empty()) t.list_kind = t.kind + "List";
  t.storage_key = t.resource + "." + t.group;
  t.namespaced = FieldString(crd, "spec.scope") == "Namespaced";
  t.tracks_generation = true;
  t.is_custom = true;
  t.crd_name = NameOf(crd);
  if (const nlohmann::json* s = Lookup(crd, "spec.names.shortNames"); s && s->is_array()) {
    for (const auto& v : *s) {
      if (v.is_string()) t.short_names.push_back(v.get<std::string>());
    }
  }
  if (const nlohmann::json* s = Lookup(crd, "spec.names.categories"); s && s->is_array()) {
    for (const auto& v : *s) {
      if (v.is_string()) t.categories.push_back(v.get<std::string>());
    }
  }
  const nlohmann::json* versions = Lookup(crd, "spec.versions");
  std::string storage_version;
  if (versions && versions->is_array()) {
    for (const auto& v : *versions) {
      if (!v.is_object() || !v.value("served", true)) continue;
      std::string name = v.value("name", "");
      t.versions.push_back(name);
      if (const nlohmann::json* s = Lookup(v, "schema.openAPIV3Schema")) t.schemas[name] = *s;
      if (Lookup(v, "subresources.status")) t.status_subresource = true;
      if (v.value("storage", false)) storage_version = name;
      const nlohmann::json* cols = Lookup(v, "additionalPrinterColumns");
      if (cols && cols->is_array() && (t.columns.empty() || v.value("storage", false))) {
        t.columns.clear();
        for (const auto& c : *cols) {
          PrinterColumn pc;
          pc.name = c.value("name", "");
          pc.type = c.value("type", "string");
          pc.format = c.value("format", "");
          pc.description = c.value("description", "");
          pc.priority = c.value("priority", 0);
          pc.json_path = c.value("jsonPath", "");
          t.columns.push_back(pc);
        }
      }
    }
  }
  // Preferred first: the storage version, then the rest in the order given.
  std::stable_sort(t.versions.begin(), t.versions.end(),
                   [&](const std::string& a, const std::string& b) {
                     return a == storage_version && b != storage_version;
                   });
  return t;
}

}  // namespace

ApiServer::ApiServer(ServerOptions options, std::unique_ptr<ResourceRegistry> registry)
    : options_(std::move(options)),
      gates_(options_.kube_version, options_.feature_gates),
      registry_(std::move(registry)),
      store_(options_.history_size),
      watches_(options_.bookmark_interval),
      random_(std::random_device{}()) {}

ApiServer::~ApiServer() { CloseAllWatches(); }

absl::StatusOr<std::unique_ptr<ApiServer>> ApiServer::Create(ServerOptions options) {
  absl::StatusOr<std::unique_ptr<ResourceRegistry>> registry =
      ResourceRegistry::Create({options.kube_version, options.runtime_config});
  if (!registry.ok()) return registry.status();
  FeatureGates gates(options.kube_version, options.feature_gates);
  if (std::string unknown = gates.UnknownGates(); !unknown.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--feature-gates: unrecognized feature gate: ", unknown));
  }
  std::unique_ptr<ApiServer> server(new ApiServer(std::move(options), std::move(*registry)));
  {
    absl::MutexLock lock(&server->mu_);
    server->store_.SetListener([s = server.get()](const StoreEvent& e) {
      s->watches_.Dispatch(e);
    });
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
  if (path.rfind("/openapi/v3", 0) == 0) {
    if (request.method != "GET") return ErrorResponse(MethodNotSupported({}, request.method));
    return OpenApiResponse(*registry_, path);
  }
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  bool discovery = (parts.size() == 1 && (parts[0] == "api" || parts[0] == "apis")) ||
                   (parts.size() == 2 && parts[0] == "api") ||
                   (parts.size() <= 3 && parts.size() >= 2 && parts[0] == "apis");
  if (discovery && request.method == "GET") {
    return DiscoveryResponse(*registry_, "/" + absl::StrJoin(parts, "/"),
                             request.Header("accept"));
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
  if (!route.subresource.empty() &&
      !(route.subresource == "status" && type.status_subresource)) {
    return ErrorResponse(PathNotFound());
  }
  const std::string& m = request.method;
  std::string body_type = MediaType(request.Header("content-type"));
  if ((m == "POST" || m == "PUT") && !request.body.empty() && !body_type.empty() &&
      body_type != "application/json") {
    // Protobuf and CBOR bodies are not decoded (README: "Wire formats").
    ApiError e = UnsupportedMediaType(body_type);
    e.message = absl::StrCat("the body of the request was in an unknown format - accepted media "
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

HttpResponse ApiServer::Get(const HttpRequest& request, const Route& route,
                            const ResourceType& type) {
  ObjectPtr o = store_.Get(type.storage_key, route.ns, route.name);
  if (!o) return ErrorResponse(NotFound(type.group_resource(), route.name));
  nlohmann::json wire = FromStorage(type, route.version, *o);
  if (WantsTable(request.Header("accept"))) {
    nlohmann::json meta = {{"resourceVersion", FieldString(*o, "metadata.resourceVersion")}};
    return JsonResponse(200,
                        BuildTable(type, {wire}, meta, request.Query("includeObject"),
                                   options_.clock()),
                        kTableContentType);
  }
  return JsonResponse(200, wire);
}

HttpResponse ApiServer::List(const HttpRequest& request, const Route& route,
                             const ResourceType& type) {
  absl::StatusOr<std::vector<LabelRequirement>> labels =
      ParseLabelSelector(request.Query("labelSelector"));
  if (!labels.ok()) return ErrorResponse(BadRequest(std::string(labels.status().message())));
  absl::StatusOr<std::vector<FieldRequirement>> fields =
      ParseFieldSelector(request.Query("fieldSelector"));
  if (!fields.ok()) return ErrorResponse(BadRequest(std::string(fields.status().message())));
  for (const FieldRequirement& f : *fields) {
    if (f.field != "metadata.name" && f.field != "metadata.namespace" &&
        !type.field_labels.count(f.field)) {
      return ErrorResponse(BadRequest(absl::StrCat("field label not supported: ", f.field)));
    }
  }
  int64_t limit = 0;
  if (request.HasQuery("limit") && !absl::SimpleAtoi(request.Query("limit"), &limit)) {
    return ErrorResponse(BadRequest("invalid limit: " + request.Query("limit")));
  }
  std::string start_ns, start_name;
  uint64_t list_rv = store_.resource_version();
  bool continuing = false;
  if (request.HasQuery("continue") && !request.Query("continue").empty()) {
    uint64_t rv = 0;
    if (!DecodeContinue(request.Query("continue"), &rv, &start_ns, &start_name)) {
      return ErrorResponse(BadRequest("continue key is not valid: illegal base64 data"));
    }
    if (rv < store_.oldest_watchable_rv()) {
      return ErrorResponse(Gone(
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter, or use the continue token in "
          "this response to retrieve the remainder of the results. Continuing with the provided "
          "token results in an inconsistent list - objects that were created, modified, or "
          "deleted between the time the first chunk was returned and now may show up in the "
          "list."));
    }
    list_rv = rv;
    continuing = true;
  }
  std::vector<nlohmann::json> items;
  std::string next_ns, next_name;
  int64_t remaining = 0;
  for (const ObjectPtr& o : store_.List(type.storage_key, route.ns)) {
    std::string ns = NamespaceOf(*o), name = NameOf(*o);
    if (continuing && std::make_pair(ns, name) <= std::make_pair(start_ns, start_name)) continue;
    nlohmann::json wire = FromStorage(type, route.version, *o);
    if (!MatchesLabels(*labels, wire) || !MatchesFields(*fields, wire)) continue;
    if (limit > 0 && static_cast<int64_t>(items.size()) >= limit) {
      ++remaining;
      continue;
    }
    next_ns = ns;
    next_name = name;
    items.push_back(std::move(wire));
  }
  nlohmann::json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (remaining > 0) {
    meta["continue"] = EncodeContinue(list_rv, next_ns, next_name);
    meta["remainingItemCount"] = remaining;
  }
  if (WantsTable(request.Header("accept"))) {
    return JsonResponse(
        200, BuildTable(type, items, meta, request.Query("includeObject"), options_.clock()),
        kTableContentType);
  }
  return JsonResponse(200, {{"kind", type.list_kind},
                            {"apiVersion", type.ApiVersion(route.version)},
                            {"metadata", meta},
                            {"items", items}});
}

HttpResponse ApiServer::Watch(const HttpRequest& request, const Route& route,
                              const ResourceType& type) {
  absl::StatusOr<std::vector<LabelRequirement>> labels =
      ParseLabelSelector(request.Query("labelSelector"));
  if (!labels.ok()) return ErrorResponse(BadRequest(std::string(labels.status().message())));
  absl::StatusOr<std::vector<FieldRequirement>> fields =
      ParseFieldSelector(request.Query("fieldSelector"));
  if (!fields.ok()) return ErrorResponse(BadRequest(std::string(fields.status().message())));
  for (const FieldRequirement& f : *fields) {
    if (f.field != "metadata.name" && f.field != "metadata.namespace" &&
        !type.field_labels.count(f.field)) {
      return ErrorResponse(BadRequest(absl::StrCat("field label not supported: ", f.field)));
    }
  }
  WatchSpec spec;
  spec.type = type;
  spec.version = route.version;
  spec.ns = route.ns;
  spec.labels = *labels;
  spec.fields = *fields;
  spec.bookmarks = ParseBool(request.Query("allowWatchBookmarks")).value_or(false);
  absl::Duration timeout = options_.default_watch_timeout;
  if (request.HasQuery("timeoutSeconds")) {
    int64_t seconds = 0;
    if (!absl::SimpleAtoi(request.Query("timeoutSeconds"), &seconds) || seconds < 0) {
      return ErrorResponse(BadRequest("invalid timeoutSeconds: " + request.Query("timeoutSeconds")));
    }
    if (seconds > 0) timeout = absl::Seconds(seconds);
  }
  spec.deadline = options_.clock() + timeout;
  std::string rv_text = request.Query("resourceVersion");
  uint64_t from_rv = 0;
  if (!rv_text.empty() && rv_text != "0" && !absl::SimpleAtoi(rv_text, &from_rv)) {
    return ErrorResponse(BadRequest(absl::StrCat("invalid resource version: ", rv_text)));
  }
  HttpResponse r;
  r.content_type = "application/json";
  r.stream = [this, spec = std::move(spec), from_rv](std::shared_ptr<StreamSink> sink) {
    absl::MutexLock lock(&mu_);
    if (from_rv == 0) {
      watches_.Open(spec, std::move(sink), {}, store_.List(spec.type.storage_key, spec.ns),
                    options_.clock());
      return;
    }
    if (from_rv < store_.oldest_watchable_rv()) {
      ApiError gone = Gone(absl::StrCat("too old resource version: ", from_rv, " (",
                                        store_.oldest_watchable_rv(), ")"));
      WatchHub::Fail(sink, gone.ToJson());
      return;
    }
    watches_.Open(spec, std::move(sink), store_.EventsSince(spec.type.storage_key, from_rv), {},
                  options_.clock());
  };
  return r;
}

std::optional<HttpResponse> ApiServer::Admit(const HttpRequest& request,
                                             const ResourceType& type,
                                             const std::string& version, nlohmann::json& object,
                                             const nlohmann::json* old,
                                             std::vector<std::string>& warnings) {
  const std::string name = NameOf(object);
  std::vector<StatusCause> causes;
  if (const nlohmann::json* labels = Lookup(object, "metadata.labels")) {
    if (!labels->is_object()) {
      causes.push_back(FieldInvalid("metadata.labels", *labels, "must be a map"));
    } else {
      for (auto& [k, v] : labels->items()) {
        if (absl::Status s = api::IsQualifiedName(k); !s.ok()) {
          causes.push_back(FieldInvalid("metadata.labels", k, std::string(s.message())));
        }
        if (!v.is_string()) {
          causes.push_back(FieldInvalid(absl::StrCat("metadata.labels[", k, "]"), v,
                                        "must be a string"));
        } else if (absl::Status s = api::IsLabelValue(v.get<std::string>()); !s.ok()) {
          causes.push_back(FieldInvalid("metadata.labels", v, std::string(s.message())));
        }
      }
    }
  }
  if (type.group == "resource.k8s.io") {
    nlohmann::json wire = FromStorage(type, version, object);
    absl::Status decoded = absl::OkStatus();
    if (type.resource == "deviceclasses") decoded = dra::DecodeDeviceClass(wire).status();
    if (type.resource == "resourceclaimtemplates") {
      decoded = dra::DecodeResourceClaimTemplate(wire).status();
    }
    if (!decoded.ok() && decoded.code() == absl::StatusCode::kInvalidArgument &&
        std::string(decoded.message()).find("must be") != std::string::npos) {
      // Type errors are decoding errors on a real server (400), not validation (422).
      return ErrorResponse(BadRequest(std::string(decoded.message())));
    }
    DefaultDra(type, gates_, object, old);
    std::vector<StatusCause> dra = ValidateDra(type, options_.kube_version, gates_, object, old);
    causes.insert(causes.end(), dra.begin(), dra.end());
  }
  if (type.is_custom) {
    auto schema = type.schemas.find(version);
    if (schema != type.schemas.end()) {
      SchemaOutcome outcome = ApplyStructuralSchema(schema->second, object);
      if (!outcome.pruned_fields.empty()) {
        std::string mode = request.Query("fieldValidation");
        if (mode == "Strict") {
          std::vector<std::string> parts;
          for (const std::string& f : outcome.pruned_fields) {
            parts.push_back(absl::StrCat("unknown field \"", f, "\""));
          }
          return ErrorResponse(
              BadRequest(absl::StrCat("strict decoding error: ", absl::StrJoin(parts, ", "))));
        }
        if (mode != "Ignore") {
          for (const std::string& f : outcome.pruned_fields) {
            warnings.push_back(absl::StrCat("unknown field \\\"", f, "\\\""));
          }
        }
      }
      causes.insert(causes.end(), outcome.errors.begin(), outcome.errors.end());
    }
  }
  if (type.storage_key == kCrdKey) {
    std::vector<StatusCause> crd = ValidateCrd(object);
    causes.insert(causes.end(), crd.begin(), crd.end());
  }
  if (!causes.empty()) return ErrorResponse(Invalid(type.kind, type.group, name, causes));
  return std::nullopt;
}

HttpResponse ApiServer::CreateObject(const HttpRequest& request, const Route& route,
                                     const ResourceType& type, const std::string& body) {
  nlohmann::json object = nlohmann::json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return ErrorResponse(BadRequest("couldn't get version/kind; json parse error: invalid JSON"));
  }
  std::string want_av = type.ApiVersion(route.version);
  if (object.contains("apiVersion") && object["apiVersion"] != want_av) {
    return ErrorResponse(BadRequest(absl::StrCat(
        "the API version in the data (", object["apiVersion"].is_string()
                                             ? object["apiVersion"].get<std::string>()
                                             : object["apiVersion"].dump(),
        ") does not match the expected API version (", want_av, ")")));
  }
  if (object.contains("kind") && object["kind"] != type.kind) {
    return ErrorResponse(BadRequest(absl::StrCat("the kind in the data (",
                                                 object["kind"].dump(),
                                                 ") does not match the expected kind (",
                                                 type.kind, ")")));
  }
  if (!object.contains("metadata")) object["metadata"] = nlohmann::json::object();
  if (!object["metadata"].is_object()) {
    return ErrorResponse(BadRequest("metadata must be an object"));
  }
  nlohmann::json& meta = object["metadata"];
  if (type.namespaced) {
    std::string body_ns = NamespaceOf(object);
    if (!body_ns.empty() && body_ns != route.ns) {
      return ErrorResponse(BadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
    meta["namespace"] = route.ns;
  } else {
    meta.erase("namespace");
  }
  if (NameOf(object).empty()) {
    std::string prefix = FieldString(object, "metadata.generateName");
    if (prefix.empty()) {
      return ErrorResponse(Invalid(type.kind, type.group, "",
                                   {FieldRequired("metadata.name",
                                                  "name or generateName is required")}));
    }
    static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string suffix;
    for (int i = 0; i < 5; ++i) suffix += kAlphabet[random_() % (sizeof(kAlphabet) - 1)];
    meta["name"] = prefix + suffix;
  }
  const std::string name = NameOf(object);
  absl::Status name_ok = type.storage_key == "namespaces" ? api::IsDnsLabel(name)
                                                          : api::IsDnsSubdomain(name);
  if (!name_ok.ok()) {
    return ErrorResponse(Invalid(type.kind, type.group, name,
                                 {FieldInvalid("metadata.name", name,
                                               std::string(name_ok.message()))}));
  }
  if (type.namespaced) {
    ObjectPtr ns = store_.Get("namespaces", "", route.ns);
    if (!ns) return ErrorResponse(NotFound({"", "namespaces"}, route.ns));
    if (Deleting(*ns)) {
      ApiError e = Forbidden(type.group_resource(), name,
                             absl::StrCat("unable to create new content in namespace ", route.ns,
                                          " because it is being terminated"));
      e.causes.push_back({"NamespaceTerminating",
                          absl::StrCat("namespace ", route.ns, " is being terminated"),
                          "metadata.namespace"});
      return ErrorResponse(e);
    }
  }
  if (store_.Get(type.storage_key, route.ns, name)) {
    return ErrorResponse(AlreadyExists(type.group_resource(), name));
  }
  nlohmann::json stored = ToStorage(type, route.version, std::move(object));
  nlohmann::json& m = stored["metadata"];
  m["uid"] = NewUid();
  m["creationTimestamp"] = Timestamp();
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  m.erase("resourceVersion");
  m.erase("managedFields");
  if (type.tracks_generation) {
    m["generation"] = 1;
  } else {
    m.erase("generation");
  }
  if (type.storage_key == "namespaces") {
    stored["spec"]["finalizers"] = {"kubernetes"};
    stored["status"] = {{"phase", "Active"}};
    if (!stored["metadata"].contains("labels")) stored["metadata"]["labels"] = nlohmann::json::object();
    stored["metadata"]["labels"]["kubernetes.io/metadata.name"] = name;
  }
  if ((type.is_custom || type.resource == "resourceclaims") && type.status_subresource &&
      !seeding_) {
    stored.erase("status");
  }
  std::vector<std::string> warnings;
  if (std::optional<HttpResponse> rejected =
          Admit(request, type, route.version, stored, nullptr, warnings)) {
    return *rejected;
  }
  if (type.storage_key == kCrdKey) {
    std::vector<std::string> fin = Finalizers(stored);
    if (std::find(fin.begin(), fin.end(), kCrdFinalizer) == fin.end()) fin.push_back(kCrdFinalizer);
    SetFinalizers(stored, fin);
    nlohmann::json names = stored["spec"]["names"];
    if (!names.contains("singular")) {
      std::string s = names.value("kind", "");
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      names["singular"] = s;
    }
    if (!names.contains("listKind")) names["listKind"] = names.value("kind", "") + "List";
    stored["spec"]["names"] = names;
    std::string storage;
    for (const auto& v : stored["spec"]["versions"]) {
      if (v.value("storage", false)) storage = v.value("name", "");
    }
    std::string now = Timestamp();
    stored["status"] = {
        {"acceptedNames", names},
        {"storedVersions", {storage}},
        {"conditions",
         {{{"type", "NamesAccepted"},
           {"status", "True"},
           {"reason", "NoConflicts"},
           {"message", "no conflicts found"},
           {"lastTransitionTime", now}},
          {{"type", "Established"},
           {"status", "True"},
           {"reason", "InitialNamesAccepted"},
           {"message", "the initial names have been accepted"},
           {"lastTransitionTime", now}}}}};
  }
  if (request.Query("dryRun") == "All") {
    return WithWarnings(JsonResponse(201, FromStorage(type, route.version, stored)), warnings);
  }
  ObjectPtr created = store_.Create(type.storage_key, std::move(stored));
  if (type.storage_key == kCrdKey) OnCrdWritten(*created);
  Collect();
  return WithWarnings(JsonResponse(201, FromStorage(type, route.version, *created)), warnings);
}

HttpResponse ApiServer::UpdateObject(const HttpRequest& request, const Route& route,
                                     const ResourceType& type, const std::string& body,
                                     bool is_patch) {
  nlohmann::json object = nlohmann::json::parse(body, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    return ErrorResponse(BadRequest("couldn't get version/kind; json parse error: invalid JSON"));
  }
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = nlohmann::json::object();
  }
  std::string body_name = NameOf(object);
  if (!body_name.empty() && body_name != route.name) {
    return ErrorResponse(BadRequest(absl::StrCat("the name of the object (", body_name,
                                                 ") does not match the name on the URL (",
                                                 route.name, ")")));
  }
  if (type.namespaced && !NamespaceOf(object).empty() && NamespaceOf(object) != route.ns) {
    return ErrorResponse(BadRequest(
        "the namespace of the provided object does not match the namespace sent on the "
        "request"));
  }
  std::string want_av = type.ApiVersion(route.version);
  if (object.contains("apiVersion") && object["apiVersion"] != want_av) {
    return ErrorResponse(BadRequest(absl::StrCat(
        "the API version in the data (", object["apiVersion"].dump(),
        ") does not match the expected API version (", want_av, ")")));
  }
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  if (!old) return ErrorResponse(NotFound(type.group_resource(), route.name));
  std::string rv = FieldString(object, "metadata.resourceVersion");
  if (!rv.empty() && rv != FieldString(*old, "metadata.resourceVersion")) {
    return ErrorResponse(StaleConflict(type.group_resource(), route.name));
  }
  object["metadata"]["name"] = route.name;
  if (type.namespaced) object["metadata"]["namespace"] = route.ns;
  nlohmann::json incoming = ToStorage(type, route.version, std::move(object));
  nlohmann::json updated;
  if (route.subresource == "status") {
    updated = *old;
    if (incoming.contains("status")) {
      updated["status"] = incoming["status"];
    } else {
      updated.erase("status");
    }
  } else {
    updated = std::move(incoming);
    if (type.status_subresource) {
      if (old->contains("status")) {
        updated["status"] = (*old)["status"];
      } else {
        updated.erase("status");
      }
    }
    nlohmann::json& m = updated["metadata"];
    const nlohmann::json& om = (*old)["metadata"];
    for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp",
                          "deletionGracePeriodSeconds", "generation", "namespace"}) {
      if (om.contains(k)) {
        m[k] = om[k];
      } else {
        m.erase(k);
      }
    }
    m.erase("managedFields");
    if (type.storage_key == "namespaces") {
      if (old->contains("spec")) updated["spec"] = (*old)["spec"];
    }
    if (type.storage_key == kCrdKey) {
      // The cleanup finalizer stays until the server removes it.
      std::vector<std::string> fin = Finalizers(updated);
      if (std::find(fin.begin(), fin.end(), kCrdFinalizer) == fin.end() &&
          !Finalizers(*old).empty()) {
        std::vector<std::string> old_fin = Finalizers(*old);
        if (std::find(old_fin.begin(), old_fin.end(), kCrdFinalizer) != old_fin.end()) {
          fin.push_back(kCrdFinalizer);
        }
      }
      SetFinalizers(updated, fin);
    }
  }
  std::vector<std::string> warnings;
  if (route.subresource.empty()) {
    if (std::optional<HttpResponse> rejected =
            Admit(request, type, route.version, updated, old.get(), warnings)) {
      return *rejected;
    }
  } else if (type.is_custom) {
    if (std::optional<HttpResponse> rejected =
            Admit(request, type, route.version, updated, old.get(), warnings)) {
      return *rejected;
    }
  }
  if (type.tracks_generation && route.subresource.empty() &&
      GenerationRelevant(updated, type.status_subresource) !=
          GenerationRelevant(*old, type.status_subresource)) {
    int64_t gen = 0;
    if (const nlohmann::json* g = Lookup(*old, "metadata.generation"); g && g->is_number()) {
      gen = g->get<int64_t>();
    }
    updated["metadata"]["generation"] = gen + 1;
  }
  (void)is_patch;
  if (WithoutVolatile(updated) == WithoutVolatile(*old)) {
    return WithWarnings(JsonResponse(200, FromStorage(type, route.version, *old)), warnings);
  }
  if (request.Query("dryRun") == "All") {
    return WithWarnings(JsonResponse(200, FromStorage(type, route.version, updated)), warnings);
  }
  ObjectPtr result;
  if (Deleting(updated) && Finalizers(updated).empty() && type.storage_key != "namespaces") {
    result = Remove(type.storage_key, updated);
  } else {
    result = store_.Update(type.storage_key, std::move(updated));
    if (type.storage_key == kCrdKey) OnCrdWritten(*result);
  }
  Collect();
  return WithWarnings(JsonResponse(200, FromStorage(type, route.version, *result)), warnings);
}

HttpResponse ApiServer::PatchObject(const HttpRequest& request, const Route& route,
                                    const ResourceType& type) {
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  std::string media = MediaType(request.Header("content-type"));
  bool merge = media == "application/merge-patch+json";
  bool strategic = media == "application/strategic-merge-patch+json";
  bool json_patch = media == "application/json-patch+json";
  if (strategic && type.is_custom) return ErrorResponse(UnsupportedMediaType(media));
  if (!merge && !strategic && !json_patch) {
    ApiError e = UnsupportedMediaType(media);
    if (media == "application/apply-patch+yaml") {
      e.message += "; server-side apply is not emulated by kube-emulator";
    }
    return ErrorResponse(e);
  }
  if (!old) return ErrorResponse(NotFound(type.group_resource(), route.name));
  nlohmann::json patch = nlohmann::json::parse(request.body, nullptr, false);
  if (patch.is_discarded()) {
    return ErrorResponse(BadRequest("error decoding patch: invalid JSON"));
  }
  nlohmann::json current = FromStorage(type, route.version, *old);
  nlohmann::json patched;
  try {
    if (json_patch) {
      if (!patch.is_array()) {
        return ErrorResponse(BadRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch"));
      }
      patched = current.patch(patch);
    } else {
      if (!patch.is_object()) {
        return ErrorResponse(BadRequest("error decoding patch: the patch must be a JSON object"));
      }
      if (strategic) StripDirectives(patch);
      patched = current;
      patched.merge_patch(patch);
    }
  } catch (const nlohmann::json::exception& e) {
    ApiError err = Invalid("", "", "", {});
    err.causes.clear();
    err.message = (absl::StrCat("the server rejected our request due to an error in our request: ", e.what()));
    return ErrorResponse(err);
  }
  // A resourceVersion in the patch is a precondition; otherwise the patch applies to the
  // current version.
  if (!patched.is_object()) return ErrorResponse(BadRequest("the patched object is not an object"));
  return UpdateObject(request, route, type, patched.dump(), true);
}

ObjectPtr ApiServer::Remove(const std::string& key, const nlohmann::json& object) {
  ObjectPtr current = store_.Get(key, NamespaceOf(object), NameOf(object));
  ObjectPtr removed = store_.Remove(key, NamespaceOf(object), NameOf(object));
  if (!removed) return current;
  if (key == kCrdKey) {
    registry_->RemoveCustom(FieldString(object, "spec.group"),
                            FieldString(object, "spec.names.plural"));
  }
  nlohmann::json final_state = object;
  final_state["metadata"]["resourceVersion"] = FieldString(*removed, "metadata.resourceVersion");
  return std::make_shared<const nlohmann::json>(std::move(final_state));
}

std::pair<ObjectPtr, bool> ApiServer::StartDelete(const std::string& key, const ObjectPtr& object,
                                                  const std::string& policy) {
  if (Deleting(*object)) return {object, false};
  nlohmann::json o = *object;
  std::vector<std::string> fin = Finalizers(o);
  auto add = [&](const char* f) {
    if (std::find(fin.begin(), fin.end(), f) == fin.end()) fin.push_back(f);
  };
  if (policy == "Foreground") add(kForeground);
  if (policy == "Orphan") add(kOrphan);
  bool is_ns = key == "namespaces";
  if (fin.empty() && !is_ns) return {Remove(key, o), true};
  o["metadata"]["deletionTimestamp"] = Timestamp();
  o["metadata"]["deletionGracePeriodSeconds"] = 0;
  SetFinalizers(o, fin);
  const ResourceType* type = TypeForStorageKey(key);
  if (type && type->tracks_generation) {
    int64_t gen = 0;
    if (const nlohmann::json* g = Lookup(o, "metadata.generation"); g && g->is_number()) {
      gen = g->get<int64_t>();
    }
    o["metadata"]["generation"] = gen + 1;
  }
  if (is_ns) o["status"]["phase"] = "Terminating";
  return {store_.Update(key, std::move(o)), false};
}

HttpResponse ApiServer::DeleteObject(const HttpRequest& request, const Route& route,
                                     const ResourceType& type) {
  ObjectPtr old = store_.Get(type.storage_key, route.ns, route.name);
  if (!old) return ErrorResponse(NotFound(type.group_resource(), route.name));
  nlohmann::json options = nlohmann::json::object();
  if (!request.body.empty()) {
    options = nlohmann::json::parse(request.body, nullptr, false);
    if (options.is_discarded() || !options.is_object()) {
      return ErrorResponse(BadRequest("couldn't decode DeleteOptions: invalid JSON"));
    }
  }
  std::string policy = options.value("propagationPolicy", request.Query("propagationPolicy"));
  if (policy.empty()) {
    if (options.contains("orphanDependents") && options["orphanDependents"] == true) {
      policy = "Orphan";
    } else {
      policy = "Background";
    }
  }
  if (policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    return ErrorResponse(Invalid("DeleteOptions", "", "",
                                 {FieldNotSupported("propagationPolicy", policy,
                                                    {"Background", "Foreground", "Orphan"})}));
  }
  if (const nlohmann::json* pre = Lookup(options, "preconditions"); pre && pre->is_object()) {
    std::string uid = pre->value("uid", "");
    std::string rv = pre->value("resourceVersion", "");
    if (!uid.empty() && uid != Uid(*old)) {
      return ErrorResponse(Conflict(
          type.group_resource(), route.name,
          absl::StrCat("Precondition failed: UID in precondition: ", uid,
                       ", UID in object meta: ", Uid(*old))));
    }
    std::string current_rv = FieldString(*old, "metadata.resourceVersion");
    if (!rv.empty() && rv != current_rv) {
      return ErrorResponse(Conflict(
          type.group_resource(), route.name,
          absl::StrCat("Precondition failed: ResourceVersion in precondition: ", rv,
                       ", ResourceVersion in object meta: ", current_rv)));
    }
  }
  if (request.Query("dryRun") == "All") {
    return JsonResponse(200, FromStorage(type, route.version, *old));
  }
  auto [result, gone] = StartDelete(type.storage_key, old, policy);
  Collect();
  if (gone) {
    nlohmann::json details = {{"name", route.name}, {"kind", type.resource}, {"uid", Uid(*old)}};
    if (!type.group.empty()) details["group"] = type.group;
    return JsonResponse(200, {{"kind", "Status"},
                              {"apiVersion", "v1"},
                              {"metadata", nlohmann::json::object()},
                              {"status", "Success"},
                              {"details", details}});
  }
  ObjectPtr now = store_.Get(type.storage_key, route.ns, route.name);
  return JsonResponse(200, FromStorage(type, route.version, now ? *now : *result));
}

HttpResponse ApiServer::DeleteCollection(const HttpRequest& request, const Route& route,
                                         const ResourceType& type) {
  absl::StatusOr<std::vector<LabelRequirement>> labels =
      ParseLabelSelector(request.Query("labelSelector"));
  if (!labels.ok()) return ErrorResponse(BadRequest(std::string(labels.status().message())));
  absl::StatusOr<std::vector<FieldRequirement>> fields =
      ParseFieldSelector(request.Query("fieldSelector"));
  if (!fields.ok()) return ErrorResponse(BadRequest(std::string(fields.status().message())));
  nlohmann::json items = nlohmann::json::array();
  for (const ObjectPtr& o : store_.List(type.storage_key, route.ns)) {
    nlohmann::json wire = FromStorage(type, route.version, *o);
    if (!MatchesLabels(*labels, wire) || !MatchesFields(*fields, wire)) continue;
    ObjectPtr current = store_.Get(type.storage_key, NamespaceOf(*o), NameOf(*o));
    if (!current) continue;
    StartDelete(type.storage_key, current, "Background");
    items.push_back(wire);
  }
  Collect();
  return JsonResponse(200, {{"kind", type.list_kind},
                            {"apiVersion", type.ApiVersion(route.version)},
                            {"metadata",
                             {{"resourceVersion", std::to_string(store_.resource_version())}}},
                            {"items", items}});
}

void ApiServer::OnCrdWritten(const nlohmann::json& crd) {
  if (!ValidateCrd(crd).empty()) return;
  registry_->PutCustom(CrdType(crd));
}

void ApiServer::Collect() {
  for (int round = 0; round < 1000; ++round) {
    bool changed = false;
    std::vector<std::pair<std::string, ObjectPtr>> all = store_.All();
    std::map<std::string, std::pair<std::string, ObjectPtr>> by_uid;
    std::map<std::string, std::vector<std::pair<std::string, ObjectPtr>>> dependents;
    for (const auto& [key, o] : all) {
      by_uid[Uid(*o)] = {key, o};
      const nlohmann::json* refs = Lookup(*o, "metadata.ownerReferences");
      if (!refs || !refs->is_array()) continue;
      for (const auto& ref : *refs) {
        if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string()) {
          dependents[ref["uid"].get<std::string>()].push_back({key, o});
        }
      }
    }
    for (const auto& [key, o] : all) {
      // Objects may have changed earlier in this round; work on the current version.
      ObjectPtr cur = store_.Get(key, NamespaceOf(*o), NameOf(*o));
      if (!cur || cur != o) {
        changed = true;
        continue;
      }
      std::vector<std::string> fin = Finalizers(*cur);
      const std::string uid = Uid(*cur);
      if (!Deleting(*cur)) {
        const nlohmann::json* refs = Lookup(*cur, "metadata.ownerReferences");
        if (refs && refs->is_array() && !refs->empty()) {
          bool any_owner = false;
          for (const auto& ref : *refs) {
            if (ref.is_object() && by_uid.count(ref.value("uid", ""))) any_owner = true;
          }
          if (!any_owner) {
            StartDelete(key, cur, "Background");
            changed = true;
          }
        }
        continue;
      }
      auto has = [&](const std::string& f) {
        return std::find(fin.begin(), fin.end(), f) != fin.end();
      };
      if (has(kOrphan)) {
        for (const auto& [dkey, d] : dependents[uid]) {
          ObjectPtr dcur = store_.Get(dkey, NamespaceOf(*d), NameOf(*d));
          if (!dcur) continue;
          nlohmann::json copy = *dcur;
          nlohmann::json kept = nlohmann::json::array();
          for (const auto& ref : copy["metadata"]["ownerReferences"]) {
            if (ref.value("uid", "") != uid) kept.push_back(ref);
          }
          if (kept.empty()) {
            copy["metadata"].erase("ownerReferences");
          } else {
            copy["metadata"]["ownerReferences"] = kept;
          }
          store_.Update(dkey, std::move(copy));
        }
        fin.erase(std::remove(fin.begin(), fin.end(), kOrphan), fin.end());
        nlohmann::json copy = *cur;
        SetFinalizers(copy, fin);
        store_.Update(key, std::move(copy));
        changed = true;
        continue;
      }
      if (has(kForeground)) {
        bool blocking = false;
        for (const auto& [dkey, d] : dependents[uid]) {
          ObjectPtr dcur = store_.Get(dkey, NamespaceOf(*d), NameOf(*d));
          if (!dcur) continue;
          if (!Deleting(*dcur)) {
            StartDelete(dkey, dcur, "Foreground");
            changed = true;
          }
          for (const auto& ref : (*dcur)["metadata"]["ownerReferences"]) {
            if (ref.value("uid", "") == uid && ref.value("blockOwnerDeletion", false)) {
              blocking = true;
            }
          }
        }
        if (!blocking && !changed) {
          fin.erase(std::remove(fin.begin(), fin.end(), kForeground), fin.end());
          nlohmann::json copy = *cur;
          SetFinalizers(copy, fin);
          store_.Update(key, std::move(copy));
          changed = true;
        }
        continue;
      }
      if (key == "namespaces") {
        std::string ns = NameOf(*cur);
        bool contents = false;
        for (const auto& [okey, other] : all) {
          if (okey == "namespaces" || NamespaceOf(*other) != ns) continue;
          contents = true;
          ObjectPtr ocur = store_.Get(okey, ns, NameOf(*other));
          if (ocur && !Deleting(*ocur)) {
            StartDelete(okey, ocur, "Background");
            changed = true;
          }
        }
        const nlohmann::json* spec_fin = Lookup(*cur, "spec.finalizers");
        bool spec_pending = spec_fin && spec_fin->is_array() && !spec_fin->empty();
        if (!contents && spec_pending) {
          nlohmann::json copy = *cur;
          copy["spec"].erase("finalizers");
          store_.Update(key, std::move(copy));
          changed = true;
          continue;
        }
        if (!contents && !spec_pending && fin.empty()) {
          Remove(key, *cur);
          changed = true;
        }
        continue;
      }
      if (key == kCrdKey && has(kCrdFinalizer)) {
        std::string crs = FieldString(*cur, "spec.names.plural") + "." +
                          FieldString(*cur, "spec.group");
        bool remaining = false;
        for (const ObjectPtr& cr : store_.List(crs, "")) {
          remaining = true;
          if (!Deleting(*cr)) {
            StartDelete(crs, cr, "Background");
            changed = true;
          }
        }
        if (!remaining) {
          fin.erase(std::remove(fin.begin(), fin.end(), kCrdFinalizer), fin.end());
          nlohmann::json copy = *cur;
          SetFinalizers(copy, fin);
          store_.Update(key, std::move(copy));
          changed = true;
        }
        continue;
      }
      if (fin.empty()) {
        Remove(key, *cur);
        changed = true;
      }
    }
    if (!changed) return;
  }
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
        nlohmann::json ns = {{"apiVersion", "v1"},
                             {"kind", "Namespace"},
                             {"metadata", {{"name", route.ns}}}};
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
