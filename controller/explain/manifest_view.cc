// File: controller/explain/manifest_view.cc
#include "controller/explain/manifest_view.h"

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_slice.h"
#include "controller/meta/namespace_codec.h"
#include "controller/meta/node_codec.h"
#include "controller/meta/resource_quota_codec.h"

namespace gpuprofile::explain {
namespace {

void AddProblems(const dra::ManifestObject& object, absl::string_view message,
                 std::vector<std::string>* problems) {
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    if (line.empty()) continue;
    problems->push_back(absl::StrCat(object.Location(), ": ", line));
  }
}

bool IsNode(const nlohmann::json& obj) {
  if (!obj.is_object()) return false;
  auto kind = obj.find("kind");
  auto api_version = obj.find("apiVersion");
  return kind != obj.end() && *kind == "Node" && api_version != obj.end() && *api_version == "v1";
}

// The kind of an object explain does not read, for the count of ignored objects.
std::string KindOf(const nlohmann::json& json) {
  const nlohmann::json* kind = json.is_object() && json.contains("kind") ? &json["kind"] : nullptr;
  return kind != nullptr && kind->is_string() ? kind->get<std::string>() : "<no kind>";
}

// Decodes `object` with `decode` and hands it to `keep`; one that does not decode is a problem.
template <typename Decode, typename Keep>
void DecodeInto(const dra::ManifestObject& object, Decode decode, Keep keep,
                std::vector<std::string>* problems) {
  auto decoded = decode(object.object);
  if (decoded.ok()) {
    keep(*std::move(decoded));
  } else {
    AddProblems(object, decoded.status().message(), problems);
  }
}

// Whether `object` is the first `kind` read as `name` (recording it in *read). The same object
// read again (a file given twice) is skipped quietly; another object with the name is a problem,
// since the view can hold one of them only.
bool FirstOfName(const dra::ManifestObject& object, const std::string& name, const char* kind,
                 std::map<std::string, nlohmann::json>* read, std::vector<std::string>* problems) {
  auto [it, inserted] = read->try_emplace(name, object.object);
  if (inserted) return true;
  if (it->second != object.object) {
    AddProblems(object,
                absl::StrCat(object.Describe(), ": another ", kind, " with this name was read"),
                problems);
  }
  return false;
}

void AddProfile(const dra::ManifestObject& object, std::map<std::string, nlohmann::json>* read,
                ClusterView* view, std::vector<std::string>* problems) {
  absl::StatusOr<api::GpuProfile> p = api::DecodeGpuProfile(object.object);
  if (!p.ok()) {
    AddProblems(object, absl::StrCat(object.Describe(), ": ", p.status().message()), problems);
    return;
  }
  if (!FirstOfName(object, p->metadata.name, "GpuProfile", read, problems)) return;
  view->engine.profiles.push_back(*std::move(p));
}

void AddNode(const dra::ManifestObject& object, std::map<std::string, nlohmann::json>* read,
             ClusterView* view, std::vector<std::string>* problems) {
  absl::StatusOr<meta::NodeGpus> n = meta::DecodeNodeGpus(object.object);
  if (!n.ok()) {
    AddProblems(object, n.status().message(), problems);
    return;
  }
  if (!FirstOfName(object, n->name, "Node", read, problems)) return;
  view->nodes.push_back(*std::move(n));
  view->nodes_known = true;
}

// Namespaces, DeviceClasses, ResourceClaimTemplates, ResourceQuotas, ResourceClaims and Pods go
// into `view`; returns false for any other kind. Claims and pods without a namespace are read as
// in "default".
bool AddClusterObject(const dra::ManifestObject& object, ClusterView* view,
                      std::vector<std::string>* problems) {
  const nlohmann::json& json = object.object;
  profile::EngineInput& engine = view->engine;
  if (meta::IsNamespace(json)) {
    DecodeInto(
        object, meta::DecodeNamespace,
        [&](meta::Namespace ns) { engine.namespaces.push_back(std::move(ns)); }, problems);
  } else if (dra::IsDeviceClass(json)) {
    DecodeInto(
        object, dra::DecodeDeviceClass,
        [&](dra::DeviceClass c) {
          engine.existing_classes.push_back(std::make_shared<const dra::DeviceClass>(std::move(c)));
        },
        problems);
  } else if (dra::IsResourceClaimTemplate(json)) {
    DecodeInto(
        object, dra::DecodeResourceClaimTemplate,
        [&](dra::ResourceClaimTemplate t) {
          engine.existing_templates.push_back(profile::ExistingTemplate::Of(
              std::make_shared<const dra::ResourceClaimTemplate>(std::move(t))));
        },
        problems);
  } else if (meta::IsResourceQuota(json)) {
    DecodeInto(
        object, meta::DecodeResourceQuota,
        [&](meta::ResourceQuota q) {
          engine.existing_quotas.push_back(
              std::make_shared<const meta::ResourceQuota>(std::move(q)));
        },
        problems);
  } else if (dra::IsResourceClaim(json)) {
    const absl::Status added = AddClaimObject(json, view);
    if (!added.ok()) AddProblems(object, added.message(), problems);
  } else if (IsPod(json)) {
    DecodeInto(
        object, DecodePod,
        [&](Pod p) {
          if (p.namespace_name.empty()) p.namespace_name = "default";
          view->pods.push_back(std::move(p));
        },
        problems);
  } else {
    return false;
  }
  return true;
}

// The release and its gates; offline, DRA is served when the release's gate is on.
void SetRelease(const KubeVersion& kube, const FeatureGates& gates, ClusterView* view) {
  view->engine.kube_version = kube;
  view->engine.feature_gates = gates;
  view->live = false;
  view->dra_served = gates.Enabled(kDynamicResourceAllocation);
  if (!view->dra_served) {
    view->dra_not_served_reason = absl::StrCat(
        "Kubernetes ", kube.ToString(),
        " has the DynamicResourceAllocation gate off by default "
        "(pass --feature-gates DynamicResourceAllocation=true if this cluster turns it on).");
  }
}

}  // namespace

absl::StatusOr<ManifestView> ViewFromManifests(dra::LoadedManifests loaded, const KubeVersion& kube,
                                               const FeatureGates& gates) {
  ManifestView out;
  ClusterView& view = out.view;
  SetRelease(kube, gates, &view);
  std::vector<std::string> problems;
  std::vector<dra::ManifestObject> slices;
  std::map<std::string, nlohmann::json> profile_json;
  std::map<std::string, nlohmann::json> node_json;
  for (dra::ManifestObject& object : loaded.objects) {
    const nlohmann::json& json = object.object;
    if (dra::IsResourceSlice(json)) {
      slices.push_back(std::move(object));  // read together below, as one inventory
    } else if (api::IsGpuProfile(json)) {
      AddProfile(object, &profile_json, &view, &problems);
    } else if (AddClusterObject(object, &view, &problems)) {
      continue;
    } else if (IsNode(json)) {
      AddNode(object, &node_json, &view, &problems);
    } else if (!api::IsGpuNodeGroup(json)) {
      ++out.ignored_kinds[KindOf(json)];
    }
  }
  absl::StatusOr<dra::Inventory> inventory = dra::BuildInventory(std::move(loaded.slices), slices);
  if (!inventory.ok()) {
    problems.push_back(std::string(inventory.status().message()));
  } else {
    view.inventory = *std::move(inventory);
  }
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  return out;
}

}  // namespace gpuprofile::explain
