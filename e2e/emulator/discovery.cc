// File: e2e/emulator/discovery.cc
#include "e2e/emulator/discovery.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "e2e/emulator/api_error.h"

namespace gpuprofile::e2e {
namespace {

const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get",
                                         "list",   "patch",  "update",           "watch"};

// group -> versions (preferred first) -> resources
using GroupMap = std::map<std::string, std::map<std::string, std::vector<const ResourceType*>>>;

GroupMap Groups(const ResourceRegistry& registry) {
  GroupMap out;
  for (const ResourceType* t : registry.All()) {
    for (const std::string& v : t->versions) out[t->group][v].push_back(t);
  }
  return out;
}

int VersionPriority(const std::string& v) {
  // Kubernetes version priority: GA > beta > alpha, higher numbers first.
  int level = v.find("alpha") != std::string::npos  ? 0
              : v.find("beta") != std::string::npos ? 1
                                                    : 2;
  int major = std::atoi(v.c_str() + 1);
  size_t pos = v.find_first_of("ab");
  int minor =
      pos == std::string::npos ? 0 : std::atoi(v.c_str() + v.find_first_of("0123456789", pos));
  return level * 1000000 + major * 1000 + minor;
}

std::vector<std::string> SortedVersions(
    const std::map<std::string, std::vector<const ResourceType*>>& m) {
  std::vector<std::string> versions;
  for (const auto& [v, r] : m) versions.push_back(v);
  std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
    return VersionPriority(a) > VersionPriority(b);
  });
  return versions;
}

nlohmann::json AggregatedResource(const ResourceType& t, const std::string& version) {
  nlohmann::json r = {
      {"resource", t.resource},
      {"responseKind", {{"group", t.group}, {"version", version}, {"kind", t.kind}}},
      {"scope", t.namespaced ? "Namespaced" : "Cluster"},
      {"singularResource", t.singular},
      {"verbs", t.review ? std::vector<std::string>{"create"} : kVerbs}};
  if (!t.short_names.empty()) r["shortNames"] = t.short_names;
  if (!t.categories.empty()) r["categories"] = t.categories;
  if (t.status_subresource) {
    r["subresources"] = nlohmann::json::array(
        {{{"subresource", "status"},
          {"responseKind", {{"group", t.group}, {"version", version}, {"kind", t.kind}}},
          {"verbs", {"get", "patch", "update"}}}});
  }
  return r;
}

nlohmann::json AggregatedGroup(const std::string& group,
                               const std::map<std::string, std::vector<const ResourceType*>>& m) {
  nlohmann::json versions = nlohmann::json::array();
  for (const std::string& v : SortedVersions(m)) {
    nlohmann::json resources = nlohmann::json::array();
    for (const ResourceType* t : m.at(v)) resources.push_back(AggregatedResource(*t, v));
    versions.push_back({{"version", v}, {"resources", resources}, {"freshness", "Current"}});
  }
  return {{"metadata", {{"name", group}, {"creationTimestamp", nullptr}}}, {"versions", versions}};
}

nlohmann::json ResourceList(const std::string& group_version,
                            const std::vector<const ResourceType*>& types) {
  nlohmann::json resources = nlohmann::json::array();
  for (const ResourceType* t : types) {
    nlohmann::json r = {{"name", t->resource},
                        {"singularName", t->singular},
                        {"namespaced", t->namespaced},
                        {"kind", t->kind},
                        {"verbs", t->review ? std::vector<std::string>{"create"} : kVerbs}};
    if (!t->short_names.empty()) r["shortNames"] = t->short_names;
    if (!t->categories.empty()) r["categories"] = t->categories;
    resources.push_back(r);
    if (t->status_subresource) {
      resources.push_back({{"name", t->resource + "/status"},
                           {"singularName", ""},
                           {"namespaced", t->namespaced},
                           {"kind", t->kind},
                           {"verbs", {"get", "patch", "update"}}});
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group_version},
          {"resources", resources}};
}

nlohmann::json LegacyGroup(const std::string& group,
                           const std::map<std::string, std::vector<const ResourceType*>>& m) {
  nlohmann::json versions = nlohmann::json::array();
  std::vector<std::string> sorted = SortedVersions(m);
  for (const std::string& v : sorted) {
    versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  }
  return {
      {"name", group},
      {"versions", versions},
      {"preferredVersion", {{"groupVersion", group + "/" + sorted[0]}, {"version", sorted[0]}}}};
}

std::string Hash(const std::string& text) {
  return absl::StrFormat("%016X", std::hash<std::string>{}(text));
}

nlohmann::json OpenApiDocument(const std::string& group, const std::string& version,
                               const std::vector<const ResourceType*>& types) {
  nlohmann::json paths = nlohmann::json::object();
  std::string prefix = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  nlohmann::json field_validation = {
      {"name", "fieldValidation"},
      {"in", "query"},
      {"description",
       "fieldValidation instructs the server on how to handle objects in the request "
       "containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict."},
      {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
  nlohmann::json schemas = nlohmann::json::object();
  for (const ResourceType* t : types) {
    nlohmann::json gvk = {{"group", t->group}, {"version", version}, {"kind", t->kind}};
    std::string base = t->namespaced ? prefix + "/namespaces/{namespace}/" + t->resource
                                     : prefix + "/" + t->resource;
    nlohmann::json ok = {{"200", {{"description", "OK"}}}};
    auto op = [&](const std::string& id, bool validation) {
      nlohmann::json o = {
          {"operationId", id}, {"x-kubernetes-group-version-kind", gvk}, {"responses", ok}};
      if (validation) o["parameters"] = nlohmann::json::array({field_validation});
      return o;
    };
    paths[base] = {{"get", op("list" + t->kind, false)}, {"post", op("create" + t->kind, true)}};
    paths[base + "/{name}"] = {{"get", op("read" + t->kind, false)},
                               {"put", op("replace" + t->kind, true)},
                               {"patch", op("patch" + t->kind, true)},
                               {"delete", op("delete" + t->kind, false)}};
    if (t->status_subresource) {
      paths[base + "/{name}/status"] = {{"get", op("read" + t->kind + "Status", false)},
                                        {"put", op("replace" + t->kind + "Status", true)},
                                        {"patch", op("patch" + t->kind + "Status", true)}};
    }
    auto schema_it = t->schemas.find(version);
    if (schema_it != t->schemas.end()) {
      nlohmann::json s = schema_it->second;
      s["x-kubernetes-group-version-kind"] = nlohmann::json::array({gvk});
      std::string rdns = t->group;
      schemas[rdns + "." + version + "." + t->kind] = s;
    }
  }
  nlohmann::json doc = {{"openapi", "3.0.0"},
                        {"info", {{"title", "Kubernetes"}, {"version", "kube-emulator"}}},
                        {"paths", paths}};
  if (!schemas.empty()) doc["components"] = {{"schemas", schemas}};
  return doc;
}

// The OpenAPI v2 (Swagger 2.0) document of every served group/version: the same operations as
// the v3 documents (PATCH, PUT and POST with the fieldValidation query parameter, each with
// x-kubernetes-group-version-kind) and no definitions, so clients validate nothing client-side
// and leave field validation to the server.
nlohmann::json OpenApiV2Document(const GroupMap& groups, const KubeVersion& kube) {
  nlohmann::json paths = nlohmann::json::object();
  nlohmann::json field_validation = {
      {"name", "fieldValidation"},
      {"in", "query"},
      {"description",
       "fieldValidation instructs the server on how to handle objects in the request "
       "containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict."},
      {"type", "string"},
      {"uniqueItems", true}};
  for (const auto& [group, versions] : groups) {
    for (const auto& [version, types] : versions) {
      nlohmann::json doc = OpenApiDocument(group, version, types);
      for (auto& [path, item] : doc["paths"].items()) {
        nlohmann::json out = nlohmann::json::object();
        for (auto& [method, op] : item.items()) {
          nlohmann::json o = {
              {"operationId", op["operationId"]},
              {"responses", {{"200", {{"description", "OK"}}}}},
              {"x-kubernetes-group-version-kind", op["x-kubernetes-group-version-kind"]}};
          if (op.contains("parameters")) o["parameters"] = {field_validation};
          out[method] = std::move(o);
        }
        paths[path] = std::move(out);
      }
    }
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", absl::StrCat("v1.", kube.minor, ".0")}}},
          {"paths", paths},
          {"definitions", nlohmann::json::object()}};
}

// Protocol-buffer wire format of the subset of gnostic's openapi.v2.Document that
// OpenApiV2Document produces (kubectl asks for
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf and decodes nothing else).
class ProtoWriter {
 public:
  void String(int field, const std::string& value) {
    Tag(field, 2);
    Varint(value.size());
    out_ += value;
  }
  void Bool(int field, bool value) {
    Tag(field, 0);
    Varint(value ? 1 : 0);
  }
  void Message(int field, const ProtoWriter& inner) { String(field, inner.out_); }
  const std::string& bytes() const { return out_; }

 private:
  void Tag(int field, int wire_type) { Varint((static_cast<uint64_t>(field) << 3) | wire_type); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

std::string DiscoveryString(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

ProtoWriter EncodeOperation(const nlohmann::json& op) {
  ProtoWriter w;
  w.String(5, DiscoveryString(op, "operationId"));  // operation_id
  for (const nlohmann::json& p : op.value("parameters", nlohmann::json::array())) {
    ProtoWriter query;  // QueryParameterSubSchema
    query.String(2, DiscoveryString(p, "in"));
    query.String(3, DiscoveryString(p, "description"));
    query.String(4, DiscoveryString(p, "name"));
    query.String(6, DiscoveryString(p, "type"));
    if (p.value("uniqueItems", false)) query.Bool(20, true);
    ProtoWriter non_body;  // NonBodyParameter.query_parameter_sub_schema
    non_body.Message(3, query);
    ProtoWriter parameter;  // Parameter.non_body_parameter
    parameter.Message(2, non_body);
    ProtoWriter item;  // ParametersItem.parameter
    item.Message(1, parameter);
    w.Message(8, item);
  }
  ProtoWriter responses;
  for (auto& [code, response] : op["responses"].items()) {
    ProtoWriter r;  // Response.description
    r.String(1, DiscoveryString(response, "description"));
    ProtoWriter value;  // ResponseValue.response
    value.Message(1, r);
    ProtoWriter named;  // NamedResponseValue
    named.String(1, code);
    named.Message(2, value);
    responses.Message(1, named);
  }
  w.Message(9, responses);
  for (auto& [name, value] : op.items()) {
    if (name.rfind("x-", 0) != 0) continue;
    ProtoWriter any;  // Any.yaml (JSON is YAML)
    any.String(2, value.dump());
    ProtoWriter named;  // NamedAny
    named.String(1, name);
    named.Message(2, any);
    w.Message(13, named);  // vendor_extension
  }
  return w;
}

std::string EncodeOpenApiV2(const nlohmann::json& doc) {
  ProtoWriter w;
  w.String(1, DiscoveryString(doc, "swagger"));
  ProtoWriter info;
  info.String(1, DiscoveryString(doc["info"], "title"));
  info.String(2, DiscoveryString(doc["info"], "version"));
  w.Message(2, info);
  ProtoWriter paths;
  for (auto& [path, item] : doc["paths"].items()) {
    ProtoWriter path_item;
    // PathItem fields: get 2, put 3, post 4, delete 5, patch 8.
    for (auto [method, field] : std::vector<std::pair<std::string, int>>{
             {"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}}) {
      if (item.contains(method)) path_item.Message(field, EncodeOperation(item[method]));
    }
    ProtoWriter named;  // NamedPathItem
    named.String(1, path);
    named.Message(2, path_item);
    paths.Message(2, named);
  }
  w.Message(8, paths);
  w.Message(9, ProtoWriter());  // definitions: none
  return w.bytes();
}

}  // namespace

HttpResponse VersionResponse(const KubeVersion& kube) {
  int patch = kube.patch_given() ? kube.patch : 0;
  std::string git = absl::StrCat("v1.", kube.minor, ".", patch);
  return JsonResponse(200, {{"major", "1"},
                            {"minor", std::to_string(kube.minor)},
                            {"gitVersion", git},
                            {"gitCommit", "kube-emulator"},
                            {"gitTreeState", "clean"},
                            {"buildDate", "2026-01-01T00:00:00Z"},
                            {"goVersion", "go1.24.0"},
                            {"compiler", "gc"},
                            {"platform", "linux/amd64"}});
}

HttpResponse DiscoveryResponse(const ResourceRegistry& registry, const std::string& path,
                               const std::string& accept) {
  GroupMap groups = Groups(registry);
  bool aggregated = accept.find("as=APIGroupDiscoveryList") != std::string::npos &&
                    accept.find("v=v2") != std::string::npos;
  const std::string aggregated_type =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  if (path == "/api" || path == "/api/") {
    if (aggregated) {
      nlohmann::json items = nlohmann::json::array({AggregatedGroup("", groups[""])});
      return JsonResponse(200,
                          {{"kind", "APIGroupDiscoveryList"},
                           {"apiVersion", "apidiscovery.k8s.io/v2"},
                           {"metadata", nlohmann::json::object()},
                           {"items", items}},
                          aggregated_type);
    }
    return JsonResponse(200, {{"kind", "APIVersions"},
                              {"versions", {"v1"}},
                              {"serverAddressByClientCIDRs",
                               {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1"}}}}});
  }
  if (path == "/apis" || path == "/apis/") {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& [group, versions] : groups) {
      if (group.empty()) continue;
      items.push_back(aggregated ? AggregatedGroup(group, versions) : LegacyGroup(group, versions));
    }
    if (aggregated) {
      return JsonResponse(200,
                          {{"kind", "APIGroupDiscoveryList"},
                           {"apiVersion", "apidiscovery.k8s.io/v2"},
                           {"metadata", nlohmann::json::object()},
                           {"items", items}},
                          aggregated_type);
    }
    return JsonResponse(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", items}});
  }
  if (path == "/api/v1") return JsonResponse(200, ResourceList("v1", groups[""]["v1"]));
  // /apis/<g> or /apis/<g>/<v>
  std::string rest = path.substr(6);
  size_t slash = rest.find('/');
  std::string group = rest.substr(0, slash);
  auto git = groups.find(group);
  if (git == groups.end() || group.empty()) return ErrorResponse(PathNotFound());
  if (slash == std::string::npos) {
    nlohmann::json g = LegacyGroup(group, git->second);
    g["kind"] = "APIGroup";
    g["apiVersion"] = "v1";
    return JsonResponse(200, g);
  }
  std::string version = rest.substr(slash + 1);
  auto vit = git->second.find(version);
  if (vit == git->second.end()) return ErrorResponse(PathNotFound());
  return JsonResponse(200, ResourceList(group + "/" + version, vit->second));
}

HttpResponse OpenApiV2Response(const ResourceRegistry& registry, const KubeVersion& kube,
                               const std::string& accept) {
  nlohmann::json doc = OpenApiV2Document(Groups(registry), kube);
  HttpResponse r;
  if (accept.find("protobuf") != std::string::npos) {
    // kube-openapi answers the deprecated "...@v1.0+protobuf" Accept with the dotted type: Go's
    // mime parser (and so kubectl) rejects the "@" in a Content-Type.
    r.content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
    r.body = EncodeOpenApiV2(doc);
  } else {
    r = JsonResponse(200, doc);
  }
  r.headers.emplace_back("Cache-Control", "no-cache, private");
  return r;
}

HttpResponse OpenApiResponse(const ResourceRegistry& registry, const std::string& path) {
  GroupMap groups = Groups(registry);
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    nlohmann::json paths = nlohmann::json::object();
    for (const auto& [group, versions] : groups) {
      for (const auto& [version, types] : versions) {
        std::string key = group.empty() ? "api/" + version : "apis/" + group + "/" + version;
        std::string hash = Hash(OpenApiDocument(group, version, types).dump());
        paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash}};
      }
    }
    return JsonResponse(200, {{"paths", paths}});
  }
  std::string key = path.substr(std::string("/openapi/v3/").size());
  for (const auto& [group, versions] : groups) {
    for (const auto& [version, types] : versions) {
      std::string k = group.empty() ? "api/" + version : "apis/" + group + "/" + version;
      if (k == key) {
        HttpResponse r = JsonResponse(200, OpenApiDocument(group, version, types));
        r.headers.emplace_back("Cache-Control", "no-cache, private");
        return r;
      }
    }
  }
  return ErrorResponse(PathNotFound());
}

}  // namespace gpuprofile::e2e
