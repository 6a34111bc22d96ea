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

}  // namespace

absl::StatusOr<ManifestView> ViewFromManifests(dra::LoadedManifests loaded, const KubeVersion& kube,
                                               const FeatureGates& gates) {
  ManifestView out;
  ClusterView& view = out.view;
  view.engine.kube_version = kube;
  view.engine.feature_gates = gates;
  view.live = false;
  view.dra_served = gates.Enabled(kDynamicResourceAllocation);
  if (!view.dra_served) {
    view.dra_not_served_reason = absl::StrCat(
        "Kubernetes ", kube.ToString(),
        " has the DynamicResourceAllocation gate off by default "
        "(pass --feature-gates DynamicResourceAllocation=true if this cluster turns it on).");
  }
  std::vector<std::string> problems;
  std::vector<dra::ManifestObject> slices;
  std::map<std::string, nlohmann::json> profile_json;
  std::map<std::string, nlohmann::json> node_json;
  for (dra::ManifestObject& object : loaded.objects) {
    const nlohmann::json& json = object.object;
    if (dra::IsResourceSlice(json)) {
      slices.push_back(std::move(object));
    } else if (api::IsGpuProfile(json)) {
      absl::StatusOr<api::GpuProfile> p = api::DecodeGpuProfile(json);
      if (!p.ok()) {
        AddProblems(object, absl::StrCat(object.Describe(), ": ", p.status().message()), &problems);
        continue;
      }
      auto [it, inserted] = profile_json.try_emplace(p->metadata.name, json);
      if (!inserted) {
        if (it->second != json) {
          AddProblems(
              object,
              absl::StrCat(object.Describe(), ": another GpuProfile with this name was read"),
              &problems);
        }
        continue;
      }
      view.engine.profiles.push_back(*std::move(p));
    } else if (api::IsNamespace(json)) {
      absl::StatusOr<api::Namespace> ns = api::DecodeNamespace(json);
      if (ns.ok()) {
        view.engine.namespaces.push_back(*std::move(ns));
      } else {
        AddProblems(object, ns.status().message(), &problems);
      }
    } else if (dra::IsDeviceClass(json)) {
      absl::StatusOr<dra::DeviceClass> c = dra::DecodeDeviceClass(json);
      if (c.ok()) {
        view.engine.existing_classes.push_back(
            std::make_shared<const dra::DeviceClass>(*std::move(c)));
      } else {
        AddProblems(object, c.status().message(), &problems);
      }
    } else if (dra::IsResourceClaimTemplate(json)) {
      absl::StatusOr<dra::ResourceClaimTemplate> t = dra::DecodeResourceClaimTemplate(json);
      if (t.ok()) {
        view.engine.existing_templates.push_back(profile::ExistingTemplate::Of(
            std::make_shared<const dra::ResourceClaimTemplate>(*std::move(t))));
      } else {
        AddProblems(object, t.status().message(), &problems);
      }
    } else if (api::IsResourceQuota(json)) {
      absl::StatusOr<api::ResourceQuota> q = api::DecodeResourceQuota(json);
      if (q.ok()) {
        view.engine.existing_quotas.push_back(
            std::make_shared<const api::ResourceQuota>(*std::move(q)));
      } else {
        AddProblems(object, q.status().message(), &problems);
      }
    } else if (dra::IsResourceClaim(json)) {
      absl::StatusOr<dra::ResourceClaim> c = dra::DecodeResourceClaim(json);
      if (c.ok()) {
        if (c->namespace_name.empty()) c->namespace_name = "default";
        view.claims.push_back(*std::move(c));
      } else {
        AddProblems(object, c.status().message(), &problems);
      }
    } else if (IsPod(json)) {
      absl::StatusOr<Pod> p = DecodePod(json);
      if (p.ok()) {
        if (p->namespace_name.empty()) p->namespace_name = "default";
        view.pods.push_back(*std::move(p));
      } else {
        AddProblems(object, p.status().message(), &problems);
      }
    } else if (IsNode(json)) {
      absl::StatusOr<api::NodeGpus> n = api::DecodeNodeGpus(json);
      if (!n.ok()) {
        AddProblems(object, n.status().message(), &problems);
        continue;
      }
      auto [it, inserted] = node_json.try_emplace(n->name, json);
      if (!inserted) {
        if (it->second != json) {
          AddProblems(object,
                      absl::StrCat(object.Describe(), ": another Node with this name was read"),
                      &problems);
        }
        continue;
      }
      view.nodes.push_back(*std::move(n));
      view.nodes_known = true;
    } else if (!api::IsGpuNodeGroup(json)) {
      const nlohmann::json* kind =
          json.is_object() && json.contains("kind") ? &json["kind"] : nullptr;
      ++out.ignored_kinds[kind != nullptr && kind->is_string() ? kind->get<std::string>()
                                                               : "<no kind>"];
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
