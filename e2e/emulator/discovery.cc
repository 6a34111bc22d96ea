// File: e2e/emulator/discovery.cc
#include "e2e/emulator/discovery.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
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
      {"verbs", kVerbs}};
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
                        {"verbs", kVerbs}};
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
