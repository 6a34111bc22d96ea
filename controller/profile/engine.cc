// File: controller/profile/engine.cc
#include "controller/profile/engine.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/profile/allocatable.h"
#include "controller/profile/device_matcher.h"
#include "controller/profile/namespace_targets.h"
#include "controller/profile/node_groups.h"
#include "controller/profile/profile_conditions.h"
#include "controller/profile/selector_compiler.h"

namespace gpuprofile::profile {
namespace {

// Older first: by creationTimestamp (RFC 3339 in UTC sorts as text; objects without one, as in
// files, count as newest), then by name.
bool Older(const api::GpuProfile& a, const api::GpuProfile& b) {
  const auto key = [](const api::GpuProfile& p) {
    return std::make_tuple(p.metadata.creation_timestamp.empty(), p.metadata.creation_timestamp,
                           p.metadata.name);
  };
  return key(a) < key(b);
}

std::map<std::string, std::string> OwnedLabels(const std::string& profile) {
  return {{kManagedByLabel, kManagedByValue}, {kProfileLabel, profile}};
}

api::OwnerReference OwnerOf(const api::GpuProfile& profile) {
  api::OwnerReference ref;
  ref.api_version = api::kApiVersion;
  ref.kind = api::kGpuProfileKind;
  ref.name = profile.metadata.name;
  ref.uid = profile.metadata.uid;
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

// Who may write an existing object labelled for `labelled_profile`, claimed by `winner`.
enum class Ownership { kOurs, kForeign, kOtherProfile };

Ownership OwnershipOf(const api::ObjectMeta& meta, const std::string& winner,
                      const std::set<std::string>& claimants,
                      const std::set<std::string>& existing_profiles) {
  auto managed = meta.labels.find(kManagedByLabel);
  if (managed == meta.labels.end() || managed->second != kManagedByValue) {
    return Ownership::kForeign;
  }
  auto label = meta.labels.find(kProfileLabel);
  if (label == meta.labels.end() || label->second == winner) return Ownership::kOurs;
  // Labelled for another profile: the name's winner takes it over from a profile that also
  // claims it or no longer exists (adoption); a living profile that does not claim it keeps it.
  if (claimants.count(label->second) > 0 || existing_profiles.count(label->second) == 0) {
    return Ownership::kOurs;
  }
  return Ownership::kOtherProfile;
}

std::string ConflictMessage(absl::string_view kind, absl::string_view object, Ownership ownership,
                            const api::ObjectMeta& meta) {
  if (ownership == Ownership::kForeign) {
    return absl::StrCat(kind, " ", object, " exists and is not managed by ", kManagedByValue);
  }
  return absl::StrCat(kind, " ", object, " belongs to GpuProfile ", meta.labels.at(kProfileLabel));
}

// Settles one object name (a DeviceClass, or a template as namespace/name) that `claimants`
// claim: the oldest wins and every other claimant gets a conflict; when an object of that name
// exists and is not ours to write, the winner gets a conflict too. Returns the winner when it
// may write the object, else null.
ProfilePlan* SettleClaim(absl::string_view kind, absl::string_view object,
                         const std::vector<ProfilePlan*>& claimants,
                         const api::ObjectMeta* existing,
                         const std::set<std::string>& existing_profiles) {
  ProfilePlan* winner = *std::min_element(
      claimants.begin(), claimants.end(),
      [](ProfilePlan* a, ProfilePlan* b) { return Older(a->profile, b->profile); });
  for (ProfilePlan* w : claimants) {
    if (w != winner) {
      w->conflicts.push_back(absl::StrCat(kind, " ", object, " is claimed by the older GpuProfile ",
                                          winner->profile.metadata.name));
    }
  }
  if (existing != nullptr) {
    std::set<std::string> names;
    for (const ProfilePlan* w : claimants) names.insert(w->profile.metadata.name);
    const Ownership ownership =
        OwnershipOf(*existing, winner->profile.metadata.name, names, existing_profiles);
    if (ownership != Ownership::kOurs) {
      winner->conflicts.push_back(ConflictMessage(kind, object, ownership, *existing));
      return nullptr;
    }
  }
  return winner;
}

// Each node group's schedulable and tainted devices, as if a claim that tolerates no taint asked
// for the group's devices alone (a GPU's MIG placements are another group than the GPU, though
// they share its counters).
void CountGroupAllocations(const AllocationModel& allocation, NodeGroups* groups) {
  if (allocation.AllSchedulable()) {
    for (api::GpuNodeGroup& group : groups->groups) {
      group.status.schedulable_devices = group.status.devices;
    }
    return;
  }
  const size_t device_count = groups->group_of_device.size();
  for (size_t g = 0; g < groups->groups.size(); ++g) {
    std::vector<bool> in_group(device_count, false);
    for (size_t d = 0; d < device_count; ++d) in_group[d] = groups->group_of_device[d] == g;
    const AllocatableCount count = allocation.Count(in_group);
    groups->groups[g].status.schedulable_devices = count.schedulable_count;
    groups->groups[g].status.tainted_devices = count.tainted_count;
  }
}

}  // namespace

ExistingTemplate ExistingTemplate::Of(std::shared_ptr<const dra::ResourceClaimTemplate> t) {
  std::string namespace_name = t->metadata.namespace_name;
  const api::ObjectMeta* meta = &t->metadata;
  return {std::move(namespace_name), std::shared_ptr<const api::ObjectMeta>(std::move(t), meta)};
}

SpecPlan PlanProfiles(const EngineInput& input) {
  SpecPlan plan;
  plan.device_values = cel::DeviceValueOptions::For(
      input.feature_gates ? *input.feature_gates : FeatureGates(input.kube_version));
  std::vector<ProfilePlan>& work = plan.profiles;

  // Profiles in name order; compile each.
  work.resize(input.profiles.size());
  for (size_t i = 0; i < input.profiles.size(); ++i) work[i].profile = input.profiles[i];
  std::sort(work.begin(), work.end(), [](const ProfilePlan& a, const ProfilePlan& b) {
    return a.profile.metadata.name < b.profile.metadata.name;
  });
  std::set<std::string> existing_profiles;
  for (ProfilePlan& w : work) {
    existing_profiles.insert(w.profile.metadata.name);
    absl::StatusOr<CompiledSelectors> compiled =
        input.feature_gates ? CompileSelectors(w.profile.spec, *input.feature_gates)
                            : CompileSelectors(w.profile.spec, input.kube_version);
    if (compiled.ok()) {
      w.selectors = *std::move(compiled);
      w.namespaces = TargetNamespaces(w.profile.spec.claim_template, input.namespaces,
                                      input.namespaces_complete);
    } else {
      w.problems = std::string(compiled.status().message());
    }
  }

  // Names: the oldest valid profile claiming a class name / template (namespace, name) wins.
  std::map<std::string, std::vector<ProfilePlan*>> class_claims;
  // Keys view the plan's strings (work does not change size from here on).
  std::map<std::pair<absl::string_view, absl::string_view>, std::vector<ProfilePlan*>>
      template_claims;
  for (ProfilePlan& w : work) {
    if (!w.selectors) continue;
    class_claims[w.profile.spec.device_class_name].push_back(&w);
    for (const std::string& ns : w.namespaces) {
      template_claims[{ns, w.profile.spec.claim_template.name}].push_back(&w);
    }
  }
  std::map<std::string, const dra::DeviceClass*> existing_class;
  for (const auto& c : input.existing_classes) existing_class[c->metadata.name] = c.get();
  std::map<std::pair<absl::string_view, absl::string_view>, const api::ObjectMeta*>
      existing_tmpl;  // keys view the input's templates
  for (const ExistingTemplate& t : input.existing_templates) {
    existing_tmpl[{t.namespace_name, t.metadata->name}] = t.metadata.get();
  }

  for (const auto& [name, claimants] : class_claims) {
    auto existing = existing_class.find(name);
    ProfilePlan* writer =
        SettleClaim("DeviceClass", name, claimants,
                    existing == existing_class.end() ? nullptr : &existing->second->metadata,
                    existing_profiles);
    if (writer != nullptr) writer->generates_class = true;
  }
  for (const auto& [key, claimants] : template_claims) {
    auto existing = existing_tmpl.find(key);
    ProfilePlan* writer = SettleClaim(
        "ResourceClaimTemplate", absl::StrCat(key.first, "/", key.second), claimants,
        existing == existing_tmpl.end() ? nullptr : existing->second, existing_profiles);
    if (writer != nullptr) writer->template_namespaces.emplace_back(key.first);
  }

  return plan;
}

DesiredState AssembleDesiredState(const SpecPlan& plan, const dra::Inventory& inventory,
                                  FleetMemo* memo) {
  FleetMemo local(plan.device_values);
  if (memo == nullptr) memo = &local;
  DesiredState out;
  const std::vector<ProfilePlan>& work = plan.profiles;

  // Devices, node groups and matches.
  NodeGroups groups = BuildNodeGroups(inventory, memo);
  std::vector<const CompiledSelectors*> compiled;
  for (const ProfilePlan& w : work) compiled.push_back(w.selectors ? &*w.selectors : nullptr);
  const std::vector<ProfileMatches> matches = MatchDevices(inventory, compiled, {}, memo);
  memo->Sweep();
  const std::vector<dra::Device>& devices = inventory.devices();
  const std::vector<uint32_t>& node_index = inventory.node_index();
  const AllocationModel allocation(inventory);
  CountGroupAllocations(allocation, &groups);

  std::vector<std::set<std::string>> group_profiles(groups.groups.size());
  for (size_t p = 0; p < work.size(); ++p) {
    const ProfilePlan& w = work[p];
    const api::GpuProfile& in = w.profile;
    ProfileOutcome outcome;
    outcome.profile.metadata = in.metadata;
    outcome.profile.spec = in.spec;
    outcome.valid = w.selectors.has_value();
    outcome.problems = w.problems;
    outcome.desired_namespaces = w.namespaces;
    api::GpuProfileStatus& status = outcome.profile.status;
    status.observed_generation = in.metadata.generation;
    status.device_class_name = in.spec.device_class_name;

    ProfileFacts facts;
    facts.generation = in.metadata.generation;
    facts.valid = outcome.valid;
    facts.problems = w.problems;
    facts.conflicts = w.conflicts;
    if (w.selectors) {
      status.selectors = w.selectors->Expressions();
      const ProfileMatches& m = matches[p];
      const AllocatableCount allocatable = allocation.Count(m.matched);
      std::vector<int64_t> group_schedulable(groups.groups.size(), 0);
      std::vector<int64_t> group_tainted(groups.groups.size(), 0);
      // Node numbers ascend with the devices (a node's devices are contiguous), so one pass
      // counts distinct nodes overall and per group.
      std::vector<int64_t> group_devices(groups.groups.size(), 0);
      std::vector<int64_t> group_nodes(groups.groups.size(), 0);
      std::vector<uint32_t> group_last_node(groups.groups.size(), dra::Inventory::kNoNode);
      int64_t nodes = 0;
      uint32_t last_node = dra::Inventory::kNoNode;
      for (size_t d = 0; d < devices.size(); ++d) {
        if (!m.matched[d]) continue;
        const uint32_t g = groups.group_of_device[d];
        ++group_devices[g];
        const DeviceOutcome device_outcome = allocatable.Of(d, m.matched);
        if (device_outcome == DeviceOutcome::kSchedulable) ++group_schedulable[g];
        if (device_outcome == DeviceOutcome::kTainted) ++group_tainted[g];
        const uint32_t node = node_index[d];
        if (node == dra::Inventory::kNoNode) continue;
        if (node != last_node) {
          last_node = node;
          ++nodes;
        }
        if (group_last_node[g] != node) {
          group_last_node[g] = node;
          ++group_nodes[g];
        }
      }
      for (size_t g = 0; g < groups.groups.size(); ++g) {
        if (group_devices[g] == 0) continue;
        status.node_groups.push_back({groups.groups[g].metadata.name, group_devices[g],
                                      group_nodes[g], group_schedulable[g], group_tainted[g]});
        group_profiles[g].insert(in.metadata.name);
      }
      status.matched_devices = m.matched_count;
      status.matched_nodes = nodes;
      status.schedulable_devices = allocatable.schedulable_count;
      status.tainted_devices = allocatable.tainted_count;
      facts.schedulable_devices = allocatable.schedulable_count;
      facts.tainted_devices = allocatable.tainted_count;
      facts.incomplete_pool_devices = allocatable.incomplete_pool_count;
      facts.counter_limited_devices = allocatable.counter_limited_count;
      facts.undecodable_slices = static_cast<int64_t>(inventory.undecodable_slices().size());
      if (!inventory.undecodable_slices().empty()) {
        const dra::UndecodableSlice& first = inventory.undecodable_slices().front();
        facts.first_undecodable_slice = absl::StrCat(first.name, ": ", first.error);
      }
      status.claim_templates.desired = static_cast<int64_t>(w.namespaces.size());
      status.claim_templates.ready = static_cast<int64_t>(w.template_namespaces.size());
      facts.matched_devices = m.matched_count;
      facts.matched_nodes = nodes;
      facts.matched_node_groups = static_cast<int64_t>(status.node_groups.size());
      facts.error_devices = m.error_count;
      facts.first_error = m.first_error;

      if (w.generates_class) {
        dra::DeviceClass cls;
        cls.metadata.name = in.spec.device_class_name;
        cls.metadata.labels = OwnedLabels(in.metadata.name);
        cls.metadata.owner_references.push_back(OwnerOf(in));
        cls.selectors = status.selectors;
        for (const api::OpaqueConfig& c : in.spec.config) {
          cls.config.push_back({c.driver, c.parameters, {}});
        }
        out.device_classes.push_back(std::move(cls));
      }
      if (!w.template_namespaces.empty()) {
        TemplateSet set;
        dra::ResourceClaimTemplate& tmpl = set.prototype;
        tmpl.metadata.name = in.spec.claim_template.name;
        tmpl.metadata.labels = OwnedLabels(in.metadata.name);
        tmpl.metadata.owner_references.push_back(OwnerOf(in));
        dra::ExactDeviceRequest request;
        request.name = in.spec.claim_template.request_name;
        request.device_class_name = in.spec.device_class_name;
        request.allocation_mode = api::AllocationModeName(in.spec.allocation_mode);
        request.count = in.spec.EffectiveCount();
        tmpl.requests.push_back(std::move(request));
        set.namespaces = w.template_namespaces;
        std::sort(set.namespaces.begin(), set.namespaces.end());
        out.template_sets.push_back(std::move(set));
      }
    }
    status.conditions = ProfileConditions(facts);
    out.profiles.push_back(std::move(outcome));
  }

  for (size_t g = 0; g < groups.groups.size(); ++g) {
    groups.groups[g].status.profiles.assign(group_profiles[g].begin(), group_profiles[g].end());
  }
  out.node_groups = std::move(groups.groups);
  std::sort(out.device_classes.begin(), out.device_classes.end(),
            [](const dra::DeviceClass& a, const dra::DeviceClass& b) {
              return a.metadata.name < b.metadata.name;
            });
  return out;
}

DesiredState ComputeDesiredState(const EngineInput& input, const dra::Inventory& inventory,
                                 FleetMemo* memo) {
  return AssembleDesiredState(PlanProfiles(input), inventory, memo);
}

dra::ResourceClaimTemplate TemplateSet::In(const std::string& namespace_name) const {
  dra::ResourceClaimTemplate t = prototype;
  t.metadata.namespace_name = namespace_name;
  return t;
}

std::vector<dra::ResourceClaimTemplate> DesiredState::ClaimTemplates() const {
  std::vector<dra::ResourceClaimTemplate> all;
  for (const TemplateSet& set : template_sets) {
    for (const std::string& ns : set.namespaces) all.push_back(set.In(ns));
  }
  std::sort(all.begin(), all.end(),
            [](const dra::ResourceClaimTemplate& a, const dra::ResourceClaimTemplate& b) {
              return std::tie(a.metadata.namespace_name, a.metadata.name) <
                     std::tie(b.metadata.namespace_name, b.metadata.name);
            });
  return all;
}

}  // namespace gpuprofile::profile
