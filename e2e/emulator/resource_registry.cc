// File: e2e/emulator/resource_registry.cc
#include "e2e/emulator/resource_registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/dra/api_version.h"
#include "e2e/emulator/quota_admission.h"
#include "e2e/emulator/selectors.h"

namespace gpuprofile::e2e {
namespace {

PrinterColumn Path(std::string name, std::string path, std::string type = "string") {
  PrinterColumn c;
  c.name = std::move(name);
  c.json_path = std::move(path);
  c.type = std::move(type);
  return c;
}

PrinterColumn Computed(std::string name, std::function<nlohmann::json(const nlohmann::json&)> f) {
  PrinterColumn c;
  c.name = std::move(name);
  c.compute = std::move(f);
  return c;
}

std::shared_ptr<ResourceType> Make(std::string group, std::string version, std::string resource,
                                   std::string kind, bool namespaced) {
  auto t = std::make_shared<ResourceType>();
  t->group = std::move(group);
  t->versions = {std::move(version)};
  t->resource = std::move(resource);
  t->kind = std::move(kind);
  t->list_kind = t->kind + "List";
  t->singular = t->kind;
  for (char& c : t->singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  t->storage_key = t->group.empty() ? t->resource : t->resource + "." + t->group;
  t->namespaced = namespaced;
  return t;
}

constexpr char kV1alpha3[] = "resource.k8s.io/v1alpha3";

// The DRA versions served: what the release serves with DRA switched on as the upstream docs
// describe (1.32: v1beta1; 1.33: v1beta1+v1beta2; 1.34+: v1), then --runtime-config.
absl::StatusOr<std::vector<std::string>> DraVersions(const RegistryOptions& options) {
  const KubeVersion& kube = options.kube_version;
  std::set<std::string> served;
  if (kube.minor == 32) served = {"v1beta1"};
  if (kube.minor == 33) served = {"v1beta1", "v1beta2"};
  if (kube.minor >= 34) served = {"v1"};
  for (const auto& [key, enabled] : options.runtime_config) {
    if (key.rfind("resource.k8s.io/", 0) != 0 || key == kV1alpha3) continue;
    absl::StatusOr<dra::DraApiVersion> v = dra::ParseDraApiVersion(key);
    if (!v.ok()) return v.status();
    absl::Status exists = dra::CheckServedVersion(kube, *v);
    if (!exists.ok()) return exists;
    std::string name(dra::VersionName(*v));
    if (enabled) {
      served.insert(name);
    } else {
      served.erase(name);
    }
  }
  std::vector<std::string> ordered;
  for (const char* v : {"v1", "v1beta2", "v1beta1"}) {
    if (served.count(v)) ordered.push_back(v);
  }
  return ordered;
}

nlohmann::json EventObject(const nlohmann::json& o) {
  const nlohmann::json* kind = Lookup(o, "involvedObject.kind");
  const nlohmann::json* name = Lookup(o, "involvedObject.name");
  std::string k = kind && kind->is_string() ? kind->get<std::string>() : "";
  for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k + "/" + (name && name->is_string() ? name->get<std::string>() : "");
}

}  // namespace

bool ResourceType::Serves(const std::string& version) const {
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

absl::StatusOr<std::unique_ptr<ResourceRegistry>> ResourceRegistry::Create(
    const RegistryOptions& options) {
  for (const auto& [key, enabled] : options.runtime_config) {
    if (key.rfind("resource.k8s.io/", 0) != 0 && key != "api/all") {
      return absl::InvalidArgumentError(
          absl::StrCat("--runtime-config: unknown or unsupported API \"", key,
                       "\" (this emulator only switches resource.k8s.io versions)"));
    }
  }
  absl::StatusOr<std::vector<std::string>> dra_versions = DraVersions(options);
  if (!dra_versions.ok()) return dra_versions.status();
  // resource.k8s.io/v1alpha3 on 1.33+ holds only DeviceTaintRule (off unless switched on, and
  // then only with the DeviceTaintRule gate). With every other version switched off, it is a
  // cluster whose resource.k8s.io the operator cannot use (DRANotServed with the versions found).
  auto alpha3 = options.runtime_config.find(kV1alpha3);
  const bool serve_alpha3 = alpha3 != options.runtime_config.end() && alpha3->second;
  if (serve_alpha3 && options.kube_version.minor < 33) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--runtime-config: ", kV1alpha3, " on Kubernetes ", options.kube_version.ToString(),
        " (the DRA API of 1.31) is not modelled; it is modelled from 1.33 (DeviceTaintRule)"));
  }
  auto registry = std::make_unique<ResourceRegistry>();
  auto& t = registry->types_;

  auto ns = Make("", "v1", "namespaces", "Namespace", false);
  ns->status_subresource = true;
  ns->short_names = {"ns"};
  ns->columns = {Path("Status", ".status.phase")};
  ns->field_labels = {"status.phase"};
  t.push_back(ns);

  auto node = Make("", "v1", "nodes", "Node", false);
  node->status_subresource = true;
  node->short_names = {"no"};
  node->columns = {Computed("Status",
                            [](const nlohmann::json& o) -> nlohmann::json {
                              std::vector<nlohmann::json> ready = EvaluateJsonPath(
                                  o, ".status.conditions[?(@.type==\"Ready\")].status");
                              if (ready.empty()) return "Unknown";
                              return ready[0] == "True" ? "Ready" : "NotReady";
                            }),
                   Path("Version", ".status.nodeInfo.kubeletVersion")};
  node->field_labels = {"spec.unschedulable"};
  t.push_back(node);

  auto event = Make("", "v1", "events", "Event", true);
  event->short_names = {"ev"};
  event->columns = {Path("Type", ".type"), Path("Reason", ".reason"),
                    Computed("Object", EventObject), Path("Message", ".message")};
  event->field_labels = {"involvedObject.kind",
                         "involvedObject.namespace",
                         "involvedObject.name",
                         "involvedObject.uid",
                         "involvedObject.apiVersion",
                         "involvedObject.resourceVersion",
                         "involvedObject.fieldPath",
                         "reason",
                         "reportingComponent",
                         "source",
                         "type"};
  t.push_back(event);

  auto event2 = Make("events.k8s.io", "v1", "events", "Event", true);
  event2->storage_key = "events";  // the same objects as core v1 Events
  event2->short_names = {"ev"};
  event2->columns = {Path("Type", ".type"), Path("Reason", ".reason"), Path("Note", ".note")};
  event2->field_labels = {"regarding.kind",     "regarding.name", "regarding.namespace",
                          "regarding.uid",      "reason",         "type",
                          "reportingController"};
  t.push_back(event2);

  auto sa = Make("", "v1", "serviceaccounts", "ServiceAccount", true);
  sa->short_names = {"sa"};
  t.push_back(sa);

  auto cm = Make("", "v1", "configmaps", "ConfigMap", true);
  cm->short_names = {"cm"};
  t.push_back(cm);

  // Served on every release; the quota controller's status.hard is mirrored on write
  // (quota_admission.h). Columns as kube-apiserver's table printer: Name, Age, Request, Limit.
  auto quota = Make("", "v1", "resourcequotas", "ResourceQuota", true);
  quota->status_subresource = true;
  quota->short_names = {"quota"};
  quota->columns = {Path("Age", ".metadata.creationTimestamp", "date"),
                    Computed("Request",
                             [](const nlohmann::json& o) -> nlohmann::json {
                               return QuotaTableCell(o, /*limits=*/false);
                             }),
                    Computed("Limit", [](const nlohmann::json& o) -> nlohmann::json {
                      return QuotaTableCell(o, /*limits=*/true);
                    })};
  t.push_back(quota);

  auto lease = Make("coordination.k8s.io", "v1", "leases", "Lease", true);
  lease->columns = {Path("Holder", ".spec.holderIdentity")};
  t.push_back(lease);

  // The rest of what `kubectl apply -k config/default` creates: only stored (nothing runs a
  // Deployment's pods), so that a test can read back the Deployment as a cluster stores it.
  auto deploy = Make("apps", "v1", "deployments", "Deployment", true);
  deploy->status_subresource = true;
  deploy->tracks_generation = true;
  deploy->short_names = {"deploy"};
  deploy->categories = {"all"};
  t.push_back(deploy);
  // Pods are stored only as well (no scheduler, no kubelet, no pod validation): a test applies
  // a workload's spec (resource claims, extended resources) and reads it back.
  auto pod = Make("", "v1", "pods", "Pod", true);
  pod->status_subresource = true;
  pod->short_names = {"po"};
  pod->categories = {"all"};
  t.push_back(pod);
  auto svc = Make("", "v1", "services", "Service", true);
  svc->status_subresource = true;
  svc->short_names = {"svc"};
  svc->categories = {"all"};
  t.push_back(svc);
  auto pdb = Make("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true);
  pdb->status_subresource = true;
  pdb->tracks_generation = true;
  pdb->short_names = {"pdb"};
  t.push_back(pdb);

  for (auto [resource, kind, namespaced] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"roles", "Role", true},
           {"rolebindings", "RoleBinding", true},
           {"clusterroles", "ClusterRole", false},
           {"clusterrolebindings", "ClusterRoleBinding", false}}) {
    auto r = Make("rbac.authorization.k8s.io", "v1", resource, kind, namespaced);
    if (kind.find("Binding") != std::string::npos) {
      r->columns = {Computed("Role", [](const nlohmann::json& o) -> nlohmann::json {
        return FieldString(o, "roleRef.kind") + "/" + FieldString(o, "roleRef.name");
      })};
    }
    t.push_back(r);
  }

  // The reviews delegated authentication and authorization create (review_handlers.h).
  for (auto [group, resource, kind] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"authentication.k8s.io", "tokenreviews", "TokenReview"},
           {"authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview"}}) {
    auto r = Make(group, "v1", resource, kind, false);
    r->review = true;
    t.push_back(r);
  }

  auto crd = Make("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                  "CustomResourceDefinition", false);
  crd->status_subresource = true;
  crd->tracks_generation = true;
  crd->short_names = {"crd", "crds"};
  crd->categories = {"api-extensions"};
  crd->columns = {Path("Created At", ".metadata.creationTimestamp", "date")};
  t.push_back(crd);

  if (!dra_versions->empty()) {
    const std::string g = "resource.k8s.io";
    auto dc = Make(g, "", "deviceclasses", "DeviceClass", false);
    auto rct = Make(g, "", "resourceclaimtemplates", "ResourceClaimTemplate", true);
    auto rc = Make(g, "", "resourceclaims", "ResourceClaim", true);
    rc->status_subresource = true;
    rc->columns = {Computed("State", [](const nlohmann::json& o) -> nlohmann::json {
      bool allocated = Lookup(o, "status.allocation") != nullptr;
      const nlohmann::json* reserved = Lookup(o, "status.reservedFor");
      bool in_use = reserved && reserved->is_array() && !reserved->empty();
      if (!allocated) return "pending";
      return in_use ? "allocated,reserved" : "allocated";
    })};
    auto rs = Make(g, "", "resourceslices", "ResourceSlice", false);
    rs->columns = {Path("Node", ".spec.nodeName"), Path("Driver", ".spec.driver"),
                   Path("Pool", ".spec.pool.name")};
    rs->field_labels = {"spec.nodeName", "spec.driver"};
    for (const auto& r : {dc, rct, rc, rs}) {
      r->versions = *dra_versions;
      r->tracks_generation = true;
      t.push_back(r);
    }
  }
  std::vector<std::string> rule_versions;
  const KubeVersion& kube = options.kube_version;
  auto served = [&](const char* v) {
    return std::find(dra_versions->begin(), dra_versions->end(), v) != dra_versions->end();
  };
  if (kube.minor >= 37 && served("v1")) rule_versions.push_back("v1");
  if (kube.minor >= 36 && served("v1beta2")) rule_versions.push_back("v1beta2");
  if (serve_alpha3) rule_versions.push_back("v1alpha3");
  if (options.device_taint_rules && !rule_versions.empty()) {
    auto rule = Make("resource.k8s.io", "", "devicetaintrules", "DeviceTaintRule", false);
    rule->versions = rule_versions;
    rule->tracks_generation = true;
    rule->status_subresource = kube.minor >= 35;
    t.push_back(rule);
  }
  return registry;
}

const ResourceType* ResourceRegistry::Find(const std::string& group, const std::string& version,
                                           const std::string& resource) const {
  for (const auto& t : types_) {
    if (t->group == group && t->resource == resource && t->Serves(version)) return t.get();
  }
  return nullptr;
}

const ResourceType* ResourceRegistry::FindGroupResource(const std::string& group,
                                                        const std::string& resource) const {
  for (const auto& t : types_) {
    if (t->group == group && t->resource == resource) return t.get();
  }
  return nullptr;
}

const ResourceType* ResourceRegistry::FindKind(const std::string& api_version,
                                               const std::string& kind) const {
  for (const auto& t : types_) {
    if (t->kind != kind) continue;
    for (const std::string& v : t->versions) {
      if (t->ApiVersion(v) == api_version) return t.get();
    }
  }
  return nullptr;
}

std::vector<const ResourceType*> ResourceRegistry::All() const {
  std::vector<const ResourceType*> out;
  for (const auto& t : types_) out.push_back(t.get());
  return out;
}

void ResourceRegistry::PutCustom(ResourceType type) {
  type.is_custom = true;
  for (auto& existing : types_) {
    if (existing->group == type.group && existing->resource == type.resource) {
      existing = std::make_shared<ResourceType>(std::move(type));
      ++generation_;
      return;
    }
  }
  types_.push_back(std::make_shared<ResourceType>(std::move(type)));
  ++generation_;
}

void ResourceRegistry::RemoveCustom(const std::string& group, const std::string& resource) {
  auto it = std::remove_if(types_.begin(), types_.end(), [&](const auto& t) {
    return t->is_custom && t->group == group && t->resource == resource;
  });
  if (it != types_.end()) {
    types_.erase(it, types_.end());
    ++generation_;
  }
}

}  // namespace gpuprofile::e2e
