// File: e2e/emulator/resource_registry.h
// Which resources the emulator serves: the built-in kinds (core, events, coordination, RBAC,
// apiextensions, resource.k8s.io in the versions the configured release serves) and the kinds
// that CustomResourceDefinitions register at run time.
// Thread-compatible: the API server guards it with its lock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/core/kube_version.h"
#include "e2e/emulator/api_error.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct PrinterColumn {
  std::string name;
  std::string type = "string";  // string, integer, number, boolean, date
  std::string format;           // "name" for the first column
  std::string description;
  int priority = 0;
  std::string json_path;  // CRD additionalPrinterColumns; ignored when `compute` is set
  std::function<nlohmann::json(const nlohmann::json& object)> compute;
};

struct ResourceType {
  std::string group;     // "" for core
  std::string resource;  // plural
  std::string kind;
  std::string singular;
  std::string list_kind;
  std::vector<std::string> versions;  // served versions, preferred first
  // Objects are stored once per storage key; kinds served by two groups (core and
  // events.k8s.io Events) share one.
  std::string storage_key;
  bool namespaced = true;
  bool status_subresource = false;
  bool tracks_generation = false;  // metadata.generation bumped on spec changes
  bool is_custom = false;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<PrinterColumn> columns;  // after Name, before Age (Age appended when not custom)
  std::set<std::string> field_labels;  // beyond metadata.name / metadata.namespace
  // CRDs: openAPIV3Schema per served version.
  std::map<std::string, nlohmann::json> schemas;
  std::string crd_name;  // the CRD that registered it
  // Create-only reviews (TokenReview, SubjectAccessReview): never stored, answered by the front
  // end (review_handlers.h); discovery lists the one verb "create".
  bool review = false;

  GroupResource group_resource() const { return {group, resource}; }
  std::string ApiVersion(const std::string& version) const {
    return group.empty() ? version : group + "/" + version;
  }
  bool Serves(const std::string& version) const;
};

struct RegistryOptions {
  KubeVersion kube_version;
  // --runtime-config: "resource.k8s.io/v1beta1" -> enabled.
  std::map<std::string, bool> runtime_config;
  // The DeviceTaintRule API's gate is on (DRADeviceTaintRules from 1.35, DRADeviceTaints
  // before): DeviceTaintRules are served in v1alpha3 (1.33+, when switched on), v1beta2 (1.36+)
  // and v1 (1.37+), in whichever of those versions is served.
  bool device_taint_rules = false;
};

class ResourceRegistry {
 public:
  // InvalidArgument when --runtime-config names a version the release does not have.
  static absl::StatusOr<std::unique_ptr<ResourceRegistry>> Create(const RegistryOptions& options);

  // nullptr when no such group/version/resource is served.
  const ResourceType* Find(const std::string& group, const std::string& version,
                           const std::string& resource) const;
  // Any served version; nullptr when unknown.
  const ResourceType* FindGroupResource(const std::string& group,
                                        const std::string& resource) const;
  // By kind and apiVersion (for -f seeds), nullptr when not served.
  const ResourceType* FindKind(const std::string& api_version, const std::string& kind) const;
  std::vector<const ResourceType*> All() const;

  // Registers or replaces a custom resource; bumps generation().
  void PutCustom(ResourceType type);
  void RemoveCustom(const std::string& group, const std::string& resource);
  // Changes whenever the set of served resources changes (discovery and OpenAPI hashes).
  uint64_t generation() const { return generation_; }

 private:
  std::vector<std::shared_ptr<ResourceType>> types_;
  uint64_t generation_ = 1;
};

}  // namespace gpuprofile::e2e
