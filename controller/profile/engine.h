// File: controller/profile/engine.h
// The profile engine: from GpuProfiles, the device inventory, namespaces and (optionally) the
// DeviceClasses, ResourceClaimTemplates and ResourceQuotas that already exist, the desired state of everything
// the operator owns, plus every profile's status (docs/design.md §3–§5). `render` prints it; `run`
// reconciles the cluster towards it. Pure: no I/O, no clock (condition timestamps are the
// caller's business).
//
// Rules implemented here:
// - Per valid profile: one DeviceClass (selectors from selector_compiler.h, the sharing
//   configuration from sharing_config.h, then spec.config; extendedResourceName) and one
//   ResourceClaimTemplate per selected namespace (`namespaces` ∪ `namespaceSelector`,
//   terminating namespaces skipped; an exact request, or a firstAvailable one over the fallback
//   chain of fallback.h, with tolerations and capacity requests), and with spec.quota one
//   ResourceQuota per such namespace, all labelled `app.kubernetes.io/managed-by:
//   gpu-profile-operator` and `gpuprofile.io/profile: <name>`, with a controller ownerReference
//   to the profile.
// - A profile whose spec is invalid, uses a field the cluster cannot express
//   (feature_support.h) or names an unusable fallback is Stalled and generates nothing.
// - Two profiles naming one extendedResourceName: the older keeps it, the newer gets `Conflict`
//   and its class goes without it (as does a profile whose name a foreign class holds).
// - Two profiles claiming one class name, or one template name in a namespace: the older
//   profile (creationTimestamp, then name) wins; the other gets `Conflict` and does not generate
//   that object.
// - An existing object with the same name that the operator does not manage (no managed-by
//   label, or labelled for a profile that exists but lost the name) is never touched: the profile
//   reports `Conflict`. Objects labelled for a profile that no longer exists are adopted.
// - Status counts come from evaluating exactly the selectors written to the class.
// Thread-compatible.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "controller/api/gpu_node_group.h"
#include "controller/api/gpu_profile.h"
#include "controller/meta/namespace.h"
#include "controller/meta/node.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/dra/device_class.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_claim_template.h"
#include "controller/meta/resource_quota.h"
#include "controller/dra_cel/device_value.h"
#include "controller/profile/claim_allocations.h"
#include "controller/profile/fleet_memo.h"
#include "controller/profile/selector_compiler.h"

namespace gpuprofile::profile {

inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByValue[] = "gpu-profile-operator";
inline constexpr char kProfileLabel[] = "gpuprofile.io/profile";
// A DeviceClass's extended resource name when it sets none (DRAExtendedResource), and the
// ResourceQuota key that bounds the devices requested through a class.
inline constexpr char kImplicitExtendedResourcePrefix[] = "deviceclass.resource.kubernetes.io/";
inline constexpr char kDeviceClassQuotaSuffix[] = ".deviceclass.resource.k8s.io/devices";

// An existing ResourceClaimTemplate as the engine reads it (conflicts, adoption): its namespace
// and its metadata, of which only the name and labels are read (the metadata's namespace_name
// may be empty: the operator's cache shares one metadata between the templates of a profile).
struct ExistingTemplate {
  std::string namespace_name;
  std::shared_ptr<const meta::ObjectMeta> metadata;  // never null

  // Of a whole template (shares it).
  static ExistingTemplate Of(std::shared_ptr<const dra::ResourceClaimTemplate> t);
};

struct EngineInput {
  KubeVersion kube_version;
  // The cluster's feature gates (of kube_version); unset: the release defaults.
  std::optional<FeatureGates> feature_gates;
  std::vector<api::GpuProfile> profiles;  // decoded and defaulted
  std::vector<meta::Namespace> namespaces;
  // True when `namespaces` lists every namespace of the cluster (`run`): explicitly named
  // namespaces that do not exist then get no template. `render` reads files, where namespaces
  // are often created by the same GitOps sync, so it trusts explicit names.
  bool namespaces_complete = false;
  // Shared, as the operator's caches hold them (copying 20,000 templates for every computation
  // would double the operator's memory).
  std::vector<std::shared_ptr<const dra::DeviceClass>> existing_classes;
  std::vector<ExistingTemplate> existing_templates;
  std::vector<std::shared_ptr<const meta::ResourceQuota>> existing_quotas;
};

struct ProfileOutcome {
  api::GpuProfile profile;  // spec as given; status computed
  // False when the profile is Stalled and generates nothing: an invalid spec, fields the
  // cluster cannot express, or an unusable fallback (stalled_reason says which).
  bool valid = true;
  std::string stalled_reason;  // InvalidSpec, FeatureNotServed, InvalidFallback; "" when valid
  // When not valid: every problem, one per line, "<field path>: <reason>".
  std::string problems;
};

// One profile's ResourceClaimTemplates: the same object in each of `namespaces`. Kept once per
// profile, not once per namespace: 100 profiles over 200 namespaces would otherwise be 20,000
// copies of 100 objects in every computation.
struct TemplateSet {
  dra::ResourceClaimTemplate prototype;  // metadata.namespace_name is empty
  std::vector<std::string> namespaces;   // sorted, never empty
  // The template in `namespace_name` (a copy of the prototype placed there).
  dra::ResourceClaimTemplate In(const std::string& namespace_name) const;
};

// One profile's ResourceQuotas (spec.quota), kept like its templates.
struct QuotaSet {
  meta::ResourceQuota prototype;        // metadata.namespace_name is empty
  std::vector<std::string> namespaces;  // sorted, never empty
  meta::ResourceQuota In(const std::string& namespace_name) const;
};

// The name of a profile's ResourceQuota in each namespace it targets.
std::string QuotaName(const std::string& profile);

struct DesiredState {
  std::vector<api::GpuNodeGroup> node_groups;    // sorted by name
  std::vector<dra::DeviceClass> device_classes;  // sorted by name
  std::vector<TemplateSet> template_sets;        // one per profile that has templates, by profile
  std::vector<QuotaSet> quota_sets;              // one per profile that has quotas, by profile
  std::vector<ProfileOutcome> profiles;          // sorted by name

  // Every ResourceClaimTemplate, sorted by namespace, then name.
  std::vector<dra::ResourceClaimTemplate> ClaimTemplates() const;
  // Every ResourceQuota, sorted by namespace, then name.
  std::vector<meta::ResourceQuota> Quotas() const;
};

// The desired state is computed in two steps, so that a caller can keep the first while only
// devices change (a ResourceSlice change cannot change any of it):
// - PlanProfiles: what depends on the profiles, namespaces and existing objects only: each
//   profile compiled, its namespaces, the names it won or lost;
// - AssembleDesiredState: with the inventory, node groups, matches, statuses and the objects.
// ComputeDesiredState is both.
struct ProfilePlan {
  api::GpuProfile profile;                     // as given
  std::optional<CompiledSelectors> selectors;  // set when valid
  std::string stalled_reason;                  // see ProfileOutcome
  std::string problems;                        // when invalid
  std::optional<dra::OpaqueDeviceConfig> sharing_config;  // spec.sharing compiled
  // The profiles whose classes the template's request tries, this one first (fallback.h);
  // one entry when there is no fallback.
  std::vector<std::string> request_chain;
  std::vector<std::string> namespaces;         // targeted
  std::vector<std::string> conflicts;          // names lost, objects not ours
  bool generates_class = false;
  std::vector<std::string> template_namespaces;  // namespaces it generates a template in
  std::vector<std::string> quota_namespaces;     // namespaces it generates a quota in
  // spec.extendedResourceName goes on the class (no older profile or foreign class has it).
  bool writes_extended_resource_name = false;
};

struct SpecPlan {
  std::vector<ProfilePlan> profiles;  // sorted by name
  // How the release's scheduler reads devices (list-typed attributes), from the input's gates.
  cel::DeviceValueOptions device_values;
  FeatureGates gates;  // the input's, or the release defaults
};

SpecPlan PlanProfiles(const EngineInput& input);

// `plan` must come from the same Kubernetes version as `memo`'s other uses. `claims` is the
// ledger of the cluster's ResourceClaims (claim_allocations.h): it gives status.allocation and
// the node groups' allocated and free devices (null: no claim, every schedulable device is
// free). A caller whose slices change more often than its claims keeps one ledger per version
// of the claims.
// `nodes` are the cluster's Nodes' device-plugin GPUs (the node groups' migration view; none:
// every group is offered by DRA).
DesiredState AssembleDesiredState(const SpecPlan& plan, const dra::Inventory& inventory,
                                  FleetMemo* memo = nullptr, const ClaimLedger* claims = nullptr,
                                  absl::Span<const meta::NodeGpus> nodes = {});

// `memo` (optional; one per Kubernetes version) keeps per-slice work between calls, so that a
// caller whose slices change a few at a time pays for the changed ones (fleet_memo.h). The
// result is the same with or without it.
DesiredState ComputeDesiredState(const EngineInput& input, const dra::Inventory& inventory,
                                 FleetMemo* memo = nullptr,
                                 absl::Span<const dra::ResourceClaim* const> claims = {},
                                 absl::Span<const meta::NodeGpus> nodes = {});

}  // namespace gpuprofile::profile
