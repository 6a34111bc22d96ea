// File: controller/kueue/kueue_render.cc
#include "controller/kueue/kueue_render.h"

#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/core/names.h"
#include "controller/kueue/kueue_config.h"

namespace gpuprofile::kueue {
namespace {

using ojson = nlohmann::ordered_json;

// The profile an object of the desired state belongs to (the engine labels every one).
std::string ProfileOf(const meta::ObjectMeta& meta) {
  auto it = meta.labels.find(profile::kProfileLabel);
  return it == meta.labels.end() ? std::string() : it->second;
}

// One mapped profile: its class, quota resource and nominal quota.
struct MappedProfile {
  std::string profile;
  std::string device_class;
  std::string resource;
  int64_t nominal_quota = 0;
};

// The classes a profile's template requests may name, in request order.
std::vector<std::string> RequestClasses(const dra::ResourceClaimTemplate& t) {
  std::vector<std::string> classes;
  for (const dra::ExactDeviceRequest& r : t.requests) {
    if (r.first_available.empty()) {
      classes.push_back(r.device_class_name);
      continue;
    }
    for (const dra::ExactDeviceRequest& sub : r.first_available) {
      classes.push_back(sub.device_class_name);
    }
  }
  return classes;
}

ojson ConfigurationDocument(const std::vector<MappedProfile>& mapped) {
  ojson mappings = ojson::array();
  for (const MappedProfile& m : mapped) {
    mappings.push_back(
        {{"name", m.resource}, {"deviceClassNames", ojson::array({m.device_class})}});
  }
  return {{"apiVersion", kConfigApiVersion},
          {"kind", kConfigKind},
          {"resources", {{"deviceClassMappings", std::move(mappings)}}}};
}

ojson FlavorDocument(const KueueRenderOptions& options) {
  return {{"apiVersion", kKueueApiVersion},
          {"kind", "ResourceFlavor"},
          {"metadata", {{"name", options.flavor_name}}},
          {"spec", ojson::object()}};
}

ojson QueueDocument(const std::vector<MappedProfile>& mapped,
                    const std::set<std::string>& namespaces, const KueueRenderOptions& options) {
  ojson covered = ojson::array();
  ojson quotas = ojson::array();
  for (const MappedProfile& m : mapped) {
    covered.push_back(m.resource);
    quotas.push_back({{"name", m.resource}, {"nominalQuota", m.nominal_quota}});
  }
  ojson spec = ojson::object();
  // Without namespaces the selector stays unset, which Kueue reads as "no namespace".
  if (!namespaces.empty()) {
    spec["namespaceSelector"] = {
        {"matchExpressions",
         ojson::array({{{"key", "kubernetes.io/metadata.name"},
                        {"operator", "In"},
                        {"values", ojson(std::vector<std::string>(namespaces.begin(),
                                                                  namespaces.end()))}}})}};
  }
  spec["resourceGroups"] = ojson::array(
      {{{"coveredResources", std::move(covered)},
        {"flavors",
         ojson::array({{{"name", options.flavor_name}, {"resources", std::move(quotas)}}})}}});
  return {{"apiVersion", kKueueApiVersion},
          {"kind", "ClusterQueue"},
          {"metadata", {{"name", options.queue_name}}},
          {"spec", std::move(spec)}};
}

}  // namespace

absl::StatusOr<std::string> QuotaResourceName(const std::string& profile) {
  std::string resource = absl::StrCat(kResourcePrefix, profile);
  if (absl::Status s = IsQualifiedName(resource); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("GpuProfile ", profile, ": its Kueue resource name ", resource,
                     " is not one Kueue accepts (", s.message(),
                     "); a profile name of at most 63 characters is needed"));
  }
  return resource;
}

absl::StatusOr<KueueRender> RenderKueue(const profile::DesiredState& state,
                                        const KueueRenderOptions& options) {
  std::map<std::string, const dra::DeviceClass*> class_of;  // by profile
  for (const dra::DeviceClass& c : state.device_classes) class_of[ProfileOf(c.metadata)] = &c;
  std::map<std::string, const profile::TemplateSet*> templates_of;
  for (const profile::TemplateSet& t : state.template_sets) {
    templates_of[ProfileOf(t.prototype.metadata)] = &t;
  }
  std::map<std::string, const profile::QuotaSet*> quotas_of;
  for (const profile::QuotaSet& q : state.quota_sets) {
    quotas_of[ProfileOf(q.prototype.metadata)] = &q;
  }

  KueueRender render;
  std::vector<std::string> problems;
  std::vector<MappedProfile> mapped;
  std::set<std::string> mapped_classes;
  for (const profile::ProfileOutcome& outcome : state.profiles) {
    const std::string& name = outcome.profile.metadata.name;
    auto c = class_of.find(name);
    if (!outcome.valid || c == class_of.end()) {
      render.notes.push_back(absl::StrCat("GpuProfile ", name, ": generates no DeviceClass here (",
                                          outcome.valid ? "its class name is taken" : "Stalled",
                                          "); nothing is mapped for it"));
      continue;
    }
    MappedProfile m;
    m.profile = name;
    m.device_class = c->second->metadata.name;
    absl::StatusOr<std::string> resource = QuotaResourceName(name);
    if (!resource.ok()) {
      problems.push_back(std::string(resource.status().message()));
      continue;
    }
    m.resource = *std::move(resource);
    if (absl::Status s = IsQualifiedName(m.device_class); !s.ok()) {
      problems.push_back(absl::StrCat("GpuProfile ", name,
                                      ": Kueue does not accept its DeviceClass "
                                      "name ",
                                      m.device_class, " in deviceClassNames (", s.message(), ")"));
      continue;
    }
    const api::GpuProfileSpec& spec = outcome.profile.spec;
    if (spec.quota.has_value()) {
      auto q = quotas_of.find(name);
      const int64_t namespaces =
          q == quotas_of.end() ? 0 : static_cast<int64_t>(q->second->namespaces.size());
      m.nominal_quota = spec.quota->devices_per_namespace * namespaces;
    } else {
      m.nominal_quota = outcome.profile.status.matched_devices;
      render.notes.push_back(absl::StrCat("GpuProfile ", name, ": no spec.quota; nominalQuota of ",
                                          m.resource, " is the ", m.nominal_quota,
                                          " devices its class matches in the fleet read"));
    }
    if (!spec.fallback.empty()) {
      render.notes.push_back(absl::StrCat(
          "GpuProfile ", name,
          ": its template's request is firstAvailable (spec.fallback); "
          "Kueue up to v0.19 rejects such requests (its DRA limitations), so its workloads are "
          "not admitted until Kueue supports prioritized lists"));
    }
    if (spec.allocation_mode == api::AllocationMode::kAll) {
      render.notes.push_back(absl::StrCat("GpuProfile ", name,
                                          ": allocationMode All; Kueue "
                                          "admits ExactCount requests only"));
    }
    mapped_classes.insert(m.device_class);
    mapped.push_back(std::move(m));
  }

  // Every class a template may name must be mapped: a fallback's class is mapped by its own
  // profile, which the engine only accepts when it is valid; one whose class is foreign is not.
  std::set<std::string> namespaces;
  for (const MappedProfile& m : mapped) {
    auto t = templates_of.find(m.profile);
    if (t == templates_of.end()) continue;
    namespaces.insert(t->second->namespaces.begin(), t->second->namespaces.end());
    for (const std::string& cls : RequestClasses(t->second->prototype)) {
      if (mapped_classes.count(cls) == 0) {
        problems.push_back(absl::StrCat("GpuProfile ", m.profile,
                                        ": its template names DeviceClass ", cls,
                                        ", which no profile of this render maps"));
      }
    }
  }

  if (mapped.empty() && problems.empty()) {
    problems.push_back("no GpuProfile generates a DeviceClass: nothing to map for Kueue");
  }
  if (mapped.size() > kMaxDeviceClassMappings) {
    problems.push_back(absl::StrCat(
        mapped.size(), " profiles generate DeviceClasses, and Kueue accepts at most ",
        kMaxDeviceClassMappings,
        " resources.deviceClassMappings; render --kueue for fewer profiles at a time"));
  }
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  static_assert(kMaxDeviceClassMappings <= kMaxCoveredResources);

  render.documents.push_back(ConfigurationDocument(mapped));
  render.documents.push_back(FlavorDocument(options));
  render.documents.push_back(QueueDocument(mapped, namespaces, options));
  return render;
}

}  // namespace gpuprofile::kueue
