// File: controller/profile/engine.cc
#include "controller/profile/engine.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "controller/core/rfc3339.h"
#include "controller/profile/allocatable.h"
#include "controller/profile/claim_allocations.h"
#include "controller/profile/device_matcher.h"
#include "controller/profile/fallback.h"
#include "controller/profile/feature_support.h"
#include "controller/profile/namespace_targets.h"
#include "controller/profile/node_groups.h"
#include "controller/profile/profile_conditions.h"
#include "controller/profile/selector_compiler.h"
#include "controller/profile/sharing_config.h"

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

meta::OwnerReference OwnerOf(const api::GpuProfile& profile) {
  meta::OwnerReference ref;
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

Ownership OwnershipOf(const meta::ObjectMeta& meta, const std::string& winner,
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
                            const meta::ObjectMeta& meta) {
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
                         const meta::ObjectMeta* existing,
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
// With claims, also each group's allocated devices, the schedulable ones no claim holds and
// those blocked by the counters allocated devices use (`with_claims` null: none is held).
void CountGroupAllocations(const AllocationModel& allocation, const AllocationModel* with_claims,
                           const DeviceClaims& held, NodeGroups* groups) {
  const size_t device_count = groups->group_of_device.size();
  for (size_t d = 0; d < device_count && d < held.allocated.size(); ++d) {
    if (held.allocated[d]) ++groups->groups[groups->group_of_device[d]].status.allocated_devices;
  }
  if (allocation.AllSchedulable() && with_claims == nullptr) {
    for (api::GpuNodeGroup& group : groups->groups) {
      group.status.schedulable_devices = group.status.devices;
      group.status.free_devices = group.status.devices;
    }
    return;
  }
  for (size_t g = 0; g < groups->groups.size(); ++g) {
    DeviceSet in_group(device_count);
    for (size_t d = 0; d < device_count; ++d) {
      if (groups->group_of_device[d] == g) in_group.Insert(d);
    }
    const AllocatableCount count = allocation.Count(in_group);
    api::GpuNodeGroupStatus& status = groups->groups[g].status;
    status.schedulable_devices = count.schedulable_count;
    status.tainted_devices = count.tainted_count;
    status.free_devices = count.schedulable_count;
    if (with_claims == nullptr) continue;
    if (with_claims->OnlyClaimsMatter()) {
      status.free_devices = with_claims->SchedulableCount(in_group);
    } else {
      const AllocatableCount now = with_claims->Count(in_group);
      status.free_devices = now.schedulable_count;
      status.blocked_devices = now.counter_blocked_count;
    }
  }
}

// Compiles one profile: selectors and sharing (problems: InvalidSpec), then what the cluster
// can express (FeatureNotServed). A stalled profile keeps no selectors and writes nothing.
void CompileProfile(SelectorPrograms* programs, ProfilePlan* w) {
  const FeatureGates& gates = programs->gates();
  const api::GpuProfileSpec& spec = w->profile.spec;
  std::vector<std::string> problems;
  absl::StatusOr<CompiledSelectors> compiled = CompileSelectors(spec, programs);
  if (!compiled.ok()) problems.emplace_back(compiled.status().message());
  SharingConfigResult sharing = CompileSharing(spec);
  problems.insert(problems.end(), sharing.problems.begin(), sharing.problems.end());
  if (!problems.empty()) {
    w->stalled_reason = kReasonInvalidSpec;
    w->problems = absl::StrJoin(problems, "\n");
    return;
  }
  if (std::vector<std::string> unserved = UnservedFields(spec, gates); !unserved.empty()) {
    w->stalled_reason = kReasonFeatureNotServed;
    w->problems = absl::StrJoin(unserved, "\n");
    return;
  }
  w->selectors = *std::move(compiled);
  w->sharing_config = std::move(sharing.config);
  w->request_chain = {w->profile.metadata.name};
}

// Every compiled profile's request chain (fallback.h); a profile whose chain cannot be resolved
// is stalled. Usability is judged on the compile results alone, so the outcome does not depend
// on the order in which profiles are visited.
void ResolveFallbacks(std::vector<ProfilePlan>* work) {
  std::map<std::string, std::vector<std::string>> fallbacks;
  std::map<std::string, const ProfilePlan*> by_name;
  for (const ProfilePlan& w : *work) {
    fallbacks[w.profile.metadata.name] = w.profile.spec.fallback;
    by_name[w.profile.metadata.name] = &w;
  }
  std::map<std::string, std::string> why_unusable;
  for (const ProfilePlan& w : *work) {
    if (w.selectors) continue;
    why_unusable[w.profile.metadata.name] =
        w.stalled_reason == kReasonFeatureNotServed
            ? "its fields are not served by this cluster (FeatureNotServed)"
            : "its spec is invalid";
  }
  const std::function<std::string(const std::string&)> usable =
      [&why_unusable](const std::string& name) {
        auto it = why_unusable.find(name);
        return it == why_unusable.end() ? std::string() : it->second;
      };
  for (ProfilePlan& w : *work) {
    if (!w.selectors || w.profile.spec.fallback.empty()) continue;
    FallbackChain chain = ResolveFallback(w.profile.metadata.name, fallbacks, usable);
    if (!chain.problems.empty()) {
      w.selectors.reset();
      w.sharing_config.reset();
      w.request_chain.clear();
      w.stalled_reason = kReasonInvalidFallback;
      w.problems = absl::StrJoin(chain.problems, "\n");
      continue;
    }
    w.request_chain = std::move(chain.profiles);
  }
}

// spec.quota: one ResourceQuota per namespace the profile targets, settled like templates.
void SettleQuotas(const EngineInput& input, const std::set<std::string>& existing_profiles,
                  std::vector<ProfilePlan>* work) {
  std::map<std::pair<std::string, std::string>, std::vector<ProfilePlan*>> claims;
  for (ProfilePlan& w : *work) {
    if (!w.selectors || !w.profile.spec.quota) continue;
    for (const std::string& ns : w.namespaces) {
      claims[{ns, QuotaName(w.profile.metadata.name)}].push_back(&w);
    }
  }
  std::map<std::pair<std::string, std::string>, const meta::ObjectMeta*> existing;
  for (const auto& q : input.existing_quotas) {
    existing[{q->metadata.namespace_name, q->metadata.name}] = &q->metadata;
  }
  for (const auto& [key, claimants] : claims) {
    auto it = existing.find(key);
    ProfilePlan* writer =
        SettleClaim("ResourceQuota", absl::StrCat(key.first, "/", key.second), claimants,
                    it == existing.end() ? nullptr : it->second, existing_profiles);
    if (writer != nullptr) writer->quota_namespaces.push_back(key.first);
  }
}

// spec.extendedResourceName must name one class in the cluster: the API server would let the
// newest class of that name win silently. The oldest profile keeps it; a newer profile, or a
// class the profile does not own that already has the name, is a Conflict, and that profile's
// class is written without the name.
void SettleExtendedResourceNames(const EngineInput& input,
                                 const std::set<std::string>& existing_profiles,
                                 std::vector<ProfilePlan>* work) {
  std::map<std::string, std::vector<ProfilePlan*>> claims;
  for (ProfilePlan& w : *work) {
    if (w.generates_class && w.profile.spec.extended_resource_name) {
      claims[*w.profile.spec.extended_resource_name].push_back(&w);
    }
  }
  for (const auto& [name, claimants] : claims) {
    ProfilePlan* winner = *std::min_element(
        claimants.begin(), claimants.end(),
        [](ProfilePlan* a, ProfilePlan* b) { return Older(a->profile, b->profile); });
    std::set<std::string> claimant_names;
    for (ProfilePlan* w : claimants) {
      claimant_names.insert(w->profile.metadata.name);
      if (w != winner) {
        w->conflicts.push_back(absl::StrCat("extendedResourceName ", name,
                                            " is claimed by the older GpuProfile ",
                                            winner->profile.metadata.name));
      }
    }
    bool taken = false;
    for (const auto& c : input.existing_classes) {
      if (c->extended_resource_name != name ||
          c->metadata.name == winner->profile.spec.device_class_name) {
        continue;
      }
      const Ownership ownership = OwnershipOf(c->metadata, winner->profile.metadata.name,
                                              claimant_names, existing_profiles);
      // A class of ours under another name (the profile renamed its class) goes with the rename.
      if (ownership == Ownership::kOurs) continue;
      winner->conflicts.push_back(absl::StrCat(
          "extendedResourceName ", name, " is already on DeviceClass ", c->metadata.name,
          ownership == Ownership::kForeign
              ? absl::StrCat(", which is not managed by ", kManagedByValue)
              : absl::StrCat(" of GpuProfile ", c->metadata.labels.at(kProfileLabel))));
      taken = true;
    }
    winner->writes_extended_resource_name = !taken;
  }
}

std::vector<dra::DeviceToleration> TolerationsOf(const api::GpuProfileSpec& spec) {
  std::vector<dra::DeviceToleration> out;
  for (const api::DeviceTolerationSpec& t : spec.tolerations) {
    out.push_back({t.key, t.op, t.value, t.effect, t.toleration_seconds});
  }
  return out;
}

// The exact request one profile's class stands for (the whole request, or one subrequest of a
// fallback chain).
dra::ExactDeviceRequest RequestFor(const api::GpuProfileSpec& spec, std::string name) {
  dra::ExactDeviceRequest request;
  request.name = std::move(name);
  request.device_class_name = spec.device_class_name;
  request.allocation_mode = api::AllocationModeName(spec.allocation_mode);
  request.count = spec.EffectiveCount();
  request.tolerations = TolerationsOf(spec);
  request.capacity_requests = spec.capacity_requests;
  return request;
}

// What one claim consumes of capacity `c` of a shared device, as the scheduler works it out:
// a requested amount (`requested`; null when the claim does not request the capacity) rounded
// up by the capacity's request policy; an unrequested capacity consumes the policy's default, or
// the whole capacity when there is no policy or default. None when the device cannot grant the
// request (above the policy's valid values or range).
std::optional<Quantity> ConsumedByClaim(const dra::NamedCapacity& c, const Quantity* requested) {
  if (requested != nullptr) {
    return c.request_policy != nullptr ? c.request_policy->Round(*requested) : *requested;
  }
  if (c.request_policy != nullptr && c.request_policy->default_value) {
    return *c.request_policy->default_value;
  }
  return *c.value;
}

// How many times `each` fits in `left`.
int64_t TimesFits(const Quantity& left, const Quantity& each) {
  absl::StatusOr<int64_t> have = left.AsInt64();
  absl::StatusOr<int64_t> want = each.AsInt64();
  int64_t n = 0;
  if (have.ok() && want.ok() && *want > 0) {
    n = *have / *want;
  } else {
    n = static_cast<int64_t>(left.AsApproximateDouble() / each.AsApproximateDouble());
  }
  return std::max<int64_t>(n, 0);
}

// How many claims with `requests` the device could hold at once (it allows multiple
// allocations): the smallest quotient over the device's capacities of what `taken` (the claims
// holding it now; null: none) leaves by what one claim consumes (ConsumedByClaim). Unqualified
// names are in the driver's domain, as the device publishes them. 0 when the device lacks a
// requested capacity or cannot grant a request.
int64_t ClaimsPerDevice(const dra::Device& device, const std::map<std::string, Quantity>& requests,
                        const std::string& driver, const CapacityTaken* taken = nullptr) {
  const std::string prefix = absl::StrCat(driver, "/");
  std::vector<std::pair<absl::string_view, const Quantity*>> requested;  // by device name
  for (const auto& [name, amount] : requests) {
    absl::string_view id = name;
    absl::ConsumePrefix(&id, prefix);
    if (device.FindCapacity(id) == nullptr || amount.Sign() <= 0) return 0;
    requested.emplace_back(id, &amount);
  }
  int64_t fits = std::numeric_limits<int64_t>::max();
  for (const dra::NamedCapacity& c : device.capacity()) {
    const Quantity* amount = nullptr;
    for (const auto& [id, q] : requested) {
      if (id == c.name) amount = q;
    }
    const std::optional<Quantity> each = ConsumedByClaim(c, amount);
    if (!each) return 0;
    if (each->Sign() <= 0) continue;  // a claim takes none of it
    Quantity left = *c.value;
    if (taken != nullptr) {
      for (const auto& [taken_name, taken_amount] : *taken) {
        if (taken_name != c.name && taken_name != absl::StrCat(prefix, c.name)) continue;
        absl::StatusOr<Quantity> rest = left.Sub(taken_amount);
        left = rest.ok() && rest->Sign() > 0 ? *rest : Quantity();
      }
    }
    fits = std::min(fits, TimesFits(left, *each));
  }
  return fits == std::numeric_limits<int64_t>::max() ? 0 : fits;
}

// The stages of PlanProfiles, in the order it runs them (SettleQuotas and
// SettleExtendedResourceNames above come last).

// The profiles in name order, each compiled, its fallback chain resolved and, when valid, its
// namespaces targeted.
std::vector<ProfilePlan> CompileProfiles(const EngineInput& input, const FeatureGates& gates) {
  std::vector<ProfilePlan> work(input.profiles.size());
  for (size_t i = 0; i < input.profiles.size(); ++i) work[i].profile = input.profiles[i];
  std::sort(work.begin(), work.end(), [](const ProfilePlan& a, const ProfilePlan& b) {
    return a.profile.metadata.name < b.profile.metadata.name;
  });
  // Profiles mostly share expressions (every profile of a driver starts with the same guard).
  SelectorPrograms programs(gates);
  for (ProfilePlan& w : work) CompileProfile(&programs, &w);
  ResolveFallbacks(&work);
  for (ProfilePlan& w : work) {
    if (!w.selectors) continue;
    w.namespaces = TargetNamespaces(w.profile.spec.claim_template, input.namespaces,
                                    input.namespaces_complete);
  }
  return work;
}

// Names: the oldest valid profile claiming a class name / template (namespace, name) wins.
void SettleClassesAndTemplates(const EngineInput& input,
                               const std::set<std::string>& existing_profiles,
                               std::vector<ProfilePlan>* work) {
  std::map<std::string, std::vector<ProfilePlan*>> class_claims;
  // Keys view the plan's strings (work does not change size from here on).
  std::map<std::pair<absl::string_view, absl::string_view>, std::vector<ProfilePlan*>>
      template_claims;
  for (ProfilePlan& w : *work) {
    if (!w.selectors) continue;
    class_claims[w.profile.spec.device_class_name].push_back(&w);
    for (const std::string& ns : w.namespaces) {
      template_claims[{ns, w.profile.spec.claim_template.name}].push_back(&w);
    }
  }
  std::map<std::string, const dra::DeviceClass*> existing_class;
  for (const auto& c : input.existing_classes) existing_class[c->metadata.name] = c.get();
  std::map<std::pair<absl::string_view, absl::string_view>, const meta::ObjectMeta*>
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
}

// The stages of AssembleDesiredState, in the order it runs them.

// The plan's profiles by name (a fallback chain names the profiles whose requests it tries).
std::map<std::string, const ProfilePlan*> IndexByName(const std::vector<ProfilePlan>& work) {
  std::map<std::string, const ProfilePlan*> by_name;
  for (const ProfilePlan& w : work) by_name[w.profile.metadata.name] = &w;
  return by_name;
}

// The devices each profile's selectors match, in the plan's order (none for a stalled profile).
// The memo then drops what it kept for slices that are gone.
std::vector<ProfileMatches> MatchProfiles(const std::vector<ProfilePlan>& work,
                                          const dra::Inventory& inventory, FleetMemo* memo) {
  std::vector<const CompiledSelectors*> compiled;
  for (const ProfilePlan& w : work) compiled.push_back(w.selectors ? &*w.selectors : nullptr);
  std::vector<ProfileMatches> matches = MatchDevices(inventory, compiled, {}, memo);
  memo->Sweep();
  return matches;
}

// What the scheduler could allocate (allocatable.h), and what the cluster's claims hold.
struct Allocations {
  Allocations(const dra::Inventory& inventory, const ClaimLedger& claims, HeldMemo* held_memo)
      : model(inventory), held(claims.Held(inventory, held_memo)) {
    // Only when a claim holds a device of the inventory: otherwise free is schedulable.
    if (held.allocated_devices > 0) with_claims.emplace(inventory, held.allocated);
  }
  // The model with the claims' devices taken; null when no claim holds a device.
  const AllocationModel* WithClaims() const { return with_claims ? &*with_claims : nullptr; }

  AllocationModel model;
  DeviceClaims held;
  std::optional<AllocationModel> with_claims;
};

// What every profile's outcome is worked out against, once the fleet is known.
struct Fleet {
  const SpecPlan& plan;
  const std::map<std::string, const ProfilePlan*>& by_name;
  const dra::Inventory& inventory;
  const NodeGroups& groups;
  const std::vector<ProfileMatches>& matches;  // indexed like plan.profiles
  const Allocations& allocations;
  const ClaimLedger& claims;
};

// A profile's outcome before its devices are counted: what the plan says of it, and the facts its
// conditions read (all of them for a stalled profile).
ProfileOutcome OutcomeOfPlan(const ProfilePlan& w, ProfileFacts* facts) {
  const api::GpuProfile& in = w.profile;
  ProfileOutcome outcome;
  outcome.profile.metadata = in.metadata;
  outcome.profile.spec = in.spec;
  outcome.valid = w.selectors.has_value();
  outcome.stalled_reason = w.stalled_reason;
  outcome.problems = w.problems;
  api::GpuProfileStatus& status = outcome.profile.status;
  status.observed_generation = in.metadata.generation;
  status.device_class_name = in.spec.device_class_name;
  facts->generation = in.metadata.generation;
  facts->valid = outcome.valid;
  facts->stalled_reason = w.stalled_reason;
  facts->problems = w.problems;
  facts->conflicts = w.conflicts;
  return outcome;
}

// How many DeviceOutcome values there are (kAllocated is the last).
constexpr size_t kDeviceOutcomes = static_cast<size_t>(DeviceOutcome::kAllocated) + 1;

// One valid profile's matched devices, counted per node group and overall in one pass.
struct MatchTally {
  explicit MatchTally(size_t groups)
      : group_devices(groups, 0),
        group_nodes(groups, 0),
        group_schedulable(groups, 0),
        group_tainted(groups, 0),
        group_last_node(groups, dra::Inventory::kNoNode),
        group_outcomes(groups, std::array<int64_t, kDeviceOutcomes>{}),
        group_states(groups) {}

  std::vector<int64_t> group_devices;
  std::vector<int64_t> group_nodes;
  std::vector<int64_t> group_schedulable;
  std::vector<int64_t> group_tainted;
  std::vector<uint32_t> group_last_node;
  // Every matched device's state with the cluster's claims: per group, counted by outcome (an
  // index per DeviceOutcome: one increment per device, the hot loop of a large fleet), then
  // turned into states per group and overall (StatesOf).
  std::vector<std::array<int64_t, kDeviceOutcomes>> group_outcomes;
  std::vector<api::DeviceStates> group_states;
  api::DeviceStates states;
  int64_t nodes = 0;
  // With spec.capacityRequests: the claims the schedulable devices could hold, and have room for
  // now.
  int64_t schedulable_claims = 0;
  int64_t free_claims = 0;
};

// Adds schedulable device `d`'s claims (spec.capacityRequests) to the tally: as many as its
// capacity holds, and as many as there is room for now. A device a claim holds has only what its
// claims leave, and none when it is not shared (the claim holds it whole).
void AddClaimRoom(const dra::Device& device, size_t d, const DeviceClaims& held,
                  const api::GpuProfileSpec& spec, MatchTally* tally) {
  tally->schedulable_claims += ClaimsPerDevice(device, spec.capacity_requests, spec.driver);
  if (d < held.allocated.size() && held.allocated[d]) {
    auto taken = held.taken.find(static_cast<uint32_t>(d));
    if (device.allow_multiple_allocations()) {
      tally->free_claims += ClaimsPerDevice(device, spec.capacity_requests, spec.driver,
                                            taken == held.taken.end() ? nullptr : &taken->second);
    }
  } else {
    tally->free_claims += ClaimsPerDevice(device, spec.capacity_requests, spec.driver);
  }
}

// Each matched device's state with the cluster's claims (deviceStates), from the count that
// applies: the with-claims model's when something besides claims keeps devices back; else a
// device is allocated when a claim holds it, and otherwise as counted without claims.
class StateNow {
 public:
  StateNow(const AllocatableCount& without_claims, const AllocatableCount* with_claims,
           const DeviceClaims& held, const DeviceSet& matched)
      : without_claims_(without_claims),
        with_claims_(with_claims),
        held_(held),
        matched_(matched) {}
  DeviceOutcome Of(size_t d) const {
    if (with_claims_ != nullptr) return with_claims_->Of(d, matched_);
    if (d < held_.allocated.size() && held_.allocated[d]) return DeviceOutcome::kAllocated;
    return without_claims_.Of(d, matched_);
  }

 private:
  const AllocatableCount& without_claims_;
  const AllocatableCount* with_claims_;  // null: only claims matter, or there are none
  const DeviceClaims& held_;
  const DeviceSet& matched_;
};

// The tally's states per group and overall, from its counts by outcome.
void StatesOf(MatchTally* tally) {
  for (size_t g = 0; g < tally->group_outcomes.size(); ++g) {
    for (size_t o = 0; o < kDeviceOutcomes; ++o) {
      const int64_t n = tally->group_outcomes[g][o];
      if (n == 0) continue;
      AddDeviceState(static_cast<DeviceOutcome>(o), &tally->group_states[g], n);
      AddDeviceState(static_cast<DeviceOutcome>(o), &tally->states, n);
    }
  }
}

// Node numbers ascend with the devices (a node's devices are contiguous), so one pass counts
// distinct nodes overall and per group.
MatchTally TallyMatches(const Fleet& fleet, const ProfileMatches& m,
                        const AllocatableCount& allocatable, const StateNow& now,
                        const api::GpuProfileSpec& spec) {
  const std::vector<dra::Device>& devices = fleet.inventory.devices();
  const std::vector<uint32_t>& node_index = fleet.inventory.node_index();
  MatchTally tally(fleet.groups.groups.size());
  uint32_t last_node = dra::Inventory::kNoNode;
  m.matched.ForEach([&](size_t d) {
    const uint32_t g = fleet.groups.group_of_device[d];
    ++tally.group_devices[g];
    const DeviceOutcome device_outcome = allocatable.Of(d, m.matched);
    if (device_outcome == DeviceOutcome::kSchedulable) {
      ++tally.group_schedulable[g];
      if (!spec.capacity_requests.empty()) {
        AddClaimRoom(devices[d], d, fleet.allocations.held, spec, &tally);
      }
    }
    if (device_outcome == DeviceOutcome::kTainted) ++tally.group_tainted[g];
    ++tally.group_outcomes[g][static_cast<size_t>(now.Of(d))];
    const uint32_t node = node_index[d];
    if (node == dra::Inventory::kNoNode) return;
    if (node != last_node) {
      last_node = node;
      ++tally.nodes;
    }
    if (tally.group_last_node[g] != node) {
      tally.group_last_node[g] = node;
      ++tally.group_nodes[g];
    }
  });
  StatesOf(&tally);
  return tally;
}

// status.nodeGroups: the groups the profile matches devices in, each of which notes the profile
// in `group_profiles`.
void ReportNodeGroups(const NodeGroups& groups, const MatchTally& tally, const std::string& profile,
                      api::GpuProfileStatus* status,
                      std::vector<std::set<std::string>>* group_profiles) {
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    if (tally.group_devices[g] == 0) continue;
    status->node_groups.push_back({groups.groups[g].metadata.name, tally.group_devices[g],
                                   tally.group_nodes[g], tally.group_schedulable[g],
                                   tally.group_tainted[g], tally.group_states[g]});
    (*group_profiles)[g].insert(profile);
  }
}

// The matched, schedulable and free devices and every matched device's state,
// status.allocation from the claims on the profile's class, and the claims the devices could hold.
void ReportAllocation(const Fleet& fleet, const ProfilePlan& w, const ProfileMatches& m,
                      const AllocatableCount& allocatable, const MatchTally& tally,
                      api::GpuProfileStatus* status) {
  const api::GpuProfileSpec& spec = w.profile.spec;
  status->matched_devices = m.matched_count;
  status->matched_nodes = tally.nodes;
  status->schedulable_devices = allocatable.schedulable_count;
  status->tainted_devices = allocatable.tainted_count;
  status->allocation.free_devices = tally.states.free;
  status->allocation.device_states = tally.states;
  if (w.generates_class) {
    if (const ClassClaims* c = fleet.claims.ForClass(spec.device_class_name)) {
      status->allocation.allocated_devices = c->allocated_devices;
      status->allocation.allocated_claims = c->allocated_claims;
      status->allocation.pending_claims = c->pending_claims;
      if (c->oldest_pending) {
        status->allocation.oldest_pending_claim_time = FormatRfc3339Seconds(*c->oldest_pending);
      }
    }
  }
  if (!spec.capacity_requests.empty()) {
    status->schedulable_claims = tally.schedulable_claims;
    status->allocation.free_claims = tally.free_claims;
  }
}

// What the profile generates, as its status counts it: templates and quotas ready of those
// desired, and the extended resource name its class carries (its own, or the implicit one).
void ReportObjects(const ProfilePlan& w, const FeatureGates& gates, api::GpuProfileStatus* status) {
  const api::GpuProfileSpec& spec = w.profile.spec;
  status->claim_templates.desired = static_cast<int64_t>(w.namespaces.size());
  status->claim_templates.ready = static_cast<int64_t>(w.template_namespaces.size());
  if (spec.quota) {
    status->quotas.desired = static_cast<int64_t>(w.namespaces.size());
    status->quotas.ready = static_cast<int64_t>(w.quota_namespaces.size());
  }
  if (w.writes_extended_resource_name) {
    status->extended_resource_name = *spec.extended_resource_name;
  } else if (!spec.extended_resource_name && w.generates_class && ServesExtendedResources(gates)) {
    status->extended_resource_name =
        absl::StrCat(kImplicitExtendedResourcePrefix, spec.device_class_name);
  }
}

// The facts the Satisfiable condition reads of a valid profile.
void MatchFacts(const dra::Inventory& inventory, const ProfileMatches& m,
                const AllocatableCount& allocatable, const api::GpuProfileStatus& status,
                ProfileFacts* facts) {
  facts->schedulable_devices = allocatable.schedulable_count;
  facts->tainted_devices = allocatable.tainted_count;
  facts->incomplete_pool_devices = allocatable.incomplete_pool_count;
  facts->counter_limited_devices = allocatable.counter_limited_count();
  facts->undecodable_slices = static_cast<int64_t>(inventory.undecodable_slices().size());
  if (!inventory.undecodable_slices().empty()) {
    const dra::UndecodableSlice& first = inventory.undecodable_slices().front();
    facts->first_undecodable_slice = absl::StrCat(first.name, ": ", first.error);
  }
  facts->matched_devices = m.matched_count;
  facts->matched_nodes = status.matched_nodes;
  facts->matched_node_groups = static_cast<int64_t>(status.node_groups.size());
  facts->error_devices = m.error_count;
  facts->first_error = m.first_error;
}

// A profile's matched devices counted against the fleet: what the scheduler could allocate of
// them, and their tally per node group and state.
struct CountedDevices {
  AllocatableCount allocatable;
  MatchTally tally;
};

// The counts of one computation, shared by the profiles they are the same for: those with the
// same matched devices, tolerations, capacity requests and driver (what counting reads of a
// profile). Profiles that differ only in count, claim template or namespaces are common (the
// operator benchmark's 100 profiles have 27 distinct selectors), and counting is most of a
// computation under churn: every matched device visited twice per profile (perf of the slice
// churn with claims: TallyMatches and AllocationModel::Count were 37% of the computation).
class CountMemo {
 public:
  const CountedDevices& Get(const Fleet& fleet, const ProfileMatches& m,
                            const api::GpuProfileSpec& spec) {
    std::vector<dra::DeviceToleration> tolerations = TolerationsOf(spec);
    std::vector<Entry>& same_devices = by_devices_[absl::HashOf(m.matched)];
    for (const Entry& e : same_devices) {
      if (*e.matched == m.matched && SameTolerations(e.tolerations, tolerations) &&
          e.spec->capacity_requests == spec.capacity_requests && e.spec->driver == spec.driver) {
        return *e.counted;
      }
    }
    auto counted = std::make_unique<CountedDevices>(Count(fleet, m, tolerations, spec));
    same_devices.push_back(Entry{&m.matched, std::move(tolerations), &spec, std::move(counted)});
    return *same_devices.back().counted;
  }

 private:
  struct Entry {
    const DeviceSet* matched;
    std::vector<dra::DeviceToleration> tolerations;
    const api::GpuProfileSpec* spec;
    std::unique_ptr<const CountedDevices> counted;
  };

  static bool SameTolerations(const std::vector<dra::DeviceToleration>& a,
                              const std::vector<dra::DeviceToleration>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const dra::DeviceToleration& x, const dra::DeviceToleration& y) {
                        return std::tie(x.key, x.op, x.value, x.effect, x.toleration_seconds) ==
                               std::tie(y.key, y.op, y.value, y.effect, y.toleration_seconds);
                      });
  }

  static CountedDevices Count(const Fleet& fleet, const ProfileMatches& m,
                              const std::vector<dra::DeviceToleration>& tolerations,
                              const api::GpuProfileSpec& spec) {
    AllocatableCount allocatable = fleet.allocations.model.Count(m.matched, tolerations);
    // With claims, one more count when more than claims keeps devices back (its per-device
    // outcomes give the states); when only claims do, the held devices are enough.
    const AllocationModel* with_claims = fleet.allocations.WithClaims();
    std::optional<AllocatableCount> counted_now;
    if (with_claims != nullptr && !with_claims->OnlyClaimsMatter()) {
      counted_now = with_claims->Count(m.matched, tolerations);
    }
    const StateNow now(allocatable, counted_now ? &*counted_now : nullptr, fleet.allocations.held,
                       m.matched);
    MatchTally tally = TallyMatches(fleet, m, allocatable, now, spec);
    // The per-device outcomes served the tally; the counts are what the profiles read.
    allocatable.outcome = {};
    return CountedDevices{std::move(allocatable), std::move(tally)};
  }

  absl::flat_hash_map<size_t, std::vector<Entry>> by_devices_;  // by the matched set's hash
};

// Profile `p`'s outcome: its status (the selectors written to its class, its devices counted
// against the fleet) and conditions. The node groups it matches devices in note it in
// `group_profiles`.
ProfileOutcome OutcomeOf(const Fleet& fleet, size_t p, CountMemo* counts,
                         std::vector<std::set<std::string>>* group_profiles) {
  const ProfilePlan& w = fleet.plan.profiles[p];
  ProfileFacts facts;
  ProfileOutcome outcome = OutcomeOfPlan(w, &facts);
  api::GpuProfileStatus& status = outcome.profile.status;
  if (w.selectors) {
    status.selectors = w.selectors->Expressions();
    const ProfileMatches& m = fleet.matches[p];
    const CountedDevices& counted = counts->Get(fleet, m, w.profile.spec);
    const AllocatableCount& allocatable = counted.allocatable;
    const MatchTally& tally = counted.tally;
    ReportNodeGroups(fleet.groups, tally, w.profile.metadata.name, &status, group_profiles);
    ReportAllocation(fleet, w, m, allocatable, tally, &status);
    ReportObjects(w, fleet.plan.gates, &status);
    MatchFacts(fleet.inventory, m, allocatable, status, &facts);
  }
  status.conditions = ProfileConditions(facts);
  return outcome;
}

// The DeviceClass a profile writes: its status's selectors, the sharing configuration, then
// spec.config.
dra::DeviceClass ClassOf(const ProfilePlan& w, const std::vector<std::string>& selectors) {
  const api::GpuProfile& in = w.profile;
  dra::DeviceClass cls;
  cls.metadata.name = in.spec.device_class_name;
  cls.metadata.labels = OwnedLabels(in.metadata.name);
  cls.metadata.owner_references.push_back(OwnerOf(in));
  cls.selectors = selectors;
  if (w.sharing_config) cls.config.push_back(*w.sharing_config);
  for (const api::OpaqueConfig& c : in.spec.config)
    cls.config.push_back({c.driver, c.parameters, {}});
  if (w.writes_extended_resource_name) cls.extended_resource_name = in.spec.extended_resource_name;
  return cls;
}

// The ResourceClaimTemplates a profile writes: one exact request, or with a fallback chain a
// firstAvailable request with one subrequest per profile of the chain, named after it.
TemplateSet TemplatesOf(const ProfilePlan& w,
                        const std::map<std::string, const ProfilePlan*>& by_name) {
  const api::GpuProfile& in = w.profile;
  TemplateSet set;
  dra::ResourceClaimTemplate& tmpl = set.prototype;
  tmpl.metadata.name = in.spec.claim_template.name;
  tmpl.metadata.labels = OwnedLabels(in.metadata.name);
  tmpl.metadata.owner_references.push_back(OwnerOf(in));
  if (w.request_chain.size() <= 1) {
    tmpl.requests.push_back(RequestFor(in.spec, in.spec.claim_template.request_name));
  } else {
    dra::ExactDeviceRequest request;
    request.name = in.spec.claim_template.request_name;
    for (const std::string& name : w.request_chain) {
      request.first_available.push_back(RequestFor(by_name.at(name)->profile.spec, name));
    }
    tmpl.requests.push_back(std::move(request));
  }
  set.namespaces = w.template_namespaces;
  std::sort(set.namespaces.begin(), set.namespaces.end());
  return set;
}

// The ResourceQuotas a profile writes (spec.quota): the devices of its class, and of its
// extended resource name when the class carries it.
QuotaSet QuotasOf(const ProfilePlan& w) {
  const api::GpuProfile& in = w.profile;
  QuotaSet set;
  set.prototype.metadata.name = QuotaName(in.metadata.name);
  set.prototype.metadata.labels = OwnedLabels(in.metadata.name);
  set.prototype.metadata.owner_references.push_back(OwnerOf(in));
  const Quantity limit = Quantity::FromInt(in.spec.quota->devices_per_namespace);
  set.prototype.hard[absl::StrCat(in.spec.device_class_name, kDeviceClassQuotaSuffix)] = limit;
  if (w.writes_extended_resource_name) {
    set.prototype.hard[absl::StrCat("requests.", *in.spec.extended_resource_name)] = limit;
  }
  set.namespaces = w.quota_namespaces;
  std::sort(set.namespaces.begin(), set.namespaces.end());
  return set;
}

// The objects a valid profile writes, each kind in profile order.
void GenerateObjects(const ProfilePlan& w, const std::map<std::string, const ProfilePlan*>& by_name,
                     const api::GpuProfileStatus& status, DesiredState* out) {
  if (w.generates_class) out->device_classes.push_back(ClassOf(w, status.selectors));
  if (!w.template_namespaces.empty()) out->template_sets.push_back(TemplatesOf(w, by_name));
  if (!w.quota_namespaces.empty()) out->quota_sets.push_back(QuotasOf(w));
}

// The node groups as published, sorted by name: each lists the profiles matching devices in it,
// and nodes only the device plugin serves get groups of their own, after the DRA groups' indices
// have served their purpose.
std::vector<api::GpuNodeGroup> PublishNodeGroups(
    NodeGroups groups, const std::vector<std::set<std::string>>& group_profiles,
    absl::Span<const meta::NodeGpus> node_gpus, const dra::Inventory& inventory) {
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    groups.groups[g].status.profiles.assign(group_profiles[g].begin(), group_profiles[g].end());
  }
  std::vector<api::GpuNodeGroup> out = std::move(groups.groups);
  std::vector<api::GpuNodeGroup> plugin_groups = DevicePluginGroups(node_gpus, inventory, out);
  if (!plugin_groups.empty()) {
    for (api::GpuNodeGroup& g : plugin_groups) out.push_back(std::move(g));
    std::sort(out.begin(), out.end(), [](const api::GpuNodeGroup& a, const api::GpuNodeGroup& b) {
      return a.metadata.name < b.metadata.name;
    });
  }
  return out;
}

}  // namespace

std::string QuotaName(const std::string& profile) { return absl::StrCat("gpu-profile-", profile); }

ExistingTemplate ExistingTemplate::Of(std::shared_ptr<const dra::ResourceClaimTemplate> t) {
  std::string namespace_name = t->metadata.namespace_name;
  const meta::ObjectMeta* meta = &t->metadata;
  return {std::move(namespace_name), std::shared_ptr<const meta::ObjectMeta>(std::move(t), meta)};
}

SpecPlan PlanProfiles(const EngineInput& input) {
  SpecPlan plan;
  plan.gates = input.feature_gates ? *input.feature_gates : FeatureGates(input.kube_version);
  plan.device_values = cel::DeviceValueOptions::For(plan.gates);
  plan.profiles = CompileProfiles(input, plan.gates);
  std::set<std::string> existing_profiles;
  for (const ProfilePlan& w : plan.profiles) existing_profiles.insert(w.profile.metadata.name);
  SettleClassesAndTemplates(input, existing_profiles, &plan.profiles);
  SettleQuotas(input, existing_profiles, &plan.profiles);
  SettleExtendedResourceNames(input, existing_profiles, &plan.profiles);
  return plan;
}

DesiredState AssembleDesiredState(const SpecPlan& plan, const dra::Inventory& inventory,
                                  FleetMemo* memo, const ClaimLedger* claims,
                                  absl::Span<const meta::NodeGpus> node_gpus) {
  static const ClaimLedger* const kNoClaims = new ClaimLedger();
  if (claims == nullptr) claims = kNoClaims;
  FleetMemo local(plan.device_values);
  if (memo == nullptr) memo = &local;

  // The fleet: node groups, each profile's matches, what can be allocated and what is held.
  const std::map<std::string, const ProfilePlan*> by_name = IndexByName(plan.profiles);
  NodeGroups groups = BuildNodeGroups(inventory, memo);
  const std::vector<ProfileMatches> matches = MatchProfiles(plan.profiles, inventory, memo);
  const Allocations allocations(inventory, *claims, memo->held());
  CountGroupAllocations(allocations.model, allocations.WithClaims(), allocations.held, &groups);
  MarkDevicePluginNodes(node_gpus, inventory, &groups);
  const Fleet fleet{plan, by_name, inventory, groups, matches, allocations, *claims};

  // Each profile's outcome and objects.
  DesiredState out;
  std::vector<std::set<std::string>> group_profiles(groups.groups.size());
  CountMemo counts;
  for (size_t p = 0; p < plan.profiles.size(); ++p) {
    ProfileOutcome outcome = OutcomeOf(fleet, p, &counts, &group_profiles);
    if (outcome.valid) {
      GenerateObjects(plan.profiles[p], by_name, outcome.profile.status, &out);
    }
    out.profiles.push_back(std::move(outcome));
  }

  out.node_groups = PublishNodeGroups(std::move(groups), group_profiles, node_gpus, inventory);
  std::sort(out.device_classes.begin(), out.device_classes.end(),
            [](const dra::DeviceClass& a, const dra::DeviceClass& b) {
              return a.metadata.name < b.metadata.name;
            });
  return out;
}

DesiredState ComputeDesiredState(const EngineInput& input, const dra::Inventory& inventory,
                                 FleetMemo* memo,
                                 absl::Span<const dra::ResourceClaim* const> claims,
                                 absl::Span<const meta::NodeGpus> nodes) {
  const ClaimLedger ledger(claims);
  return AssembleDesiredState(PlanProfiles(input), inventory, memo, &ledger, nodes);
}

dra::ResourceClaimTemplate TemplateSet::In(const std::string& namespace_name) const {
  dra::ResourceClaimTemplate t = prototype;
  t.metadata.namespace_name = namespace_name;
  return t;
}

meta::ResourceQuota QuotaSet::In(const std::string& namespace_name) const {
  meta::ResourceQuota q = prototype;
  q.metadata.namespace_name = namespace_name;
  return q;
}

std::vector<meta::ResourceQuota> DesiredState::Quotas() const {
  std::vector<meta::ResourceQuota> all;
  for (const QuotaSet& set : quota_sets) {
    for (const std::string& ns : set.namespaces) all.push_back(set.In(ns));
  }
  std::sort(all.begin(), all.end(), [](const meta::ResourceQuota& a, const meta::ResourceQuota& b) {
    return std::tie(a.metadata.namespace_name, a.metadata.name) <
           std::tie(b.metadata.namespace_name, b.metadata.name);
  });
  return all;
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
