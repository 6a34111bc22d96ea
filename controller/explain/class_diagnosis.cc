// File: controller/explain/class_diagnosis.cc
// What a profile's class finds on the cluster now, and the causes that keep a request of
// it from being allocated (diagnoser.h).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/dra/device_health.h"
#include "controller/dra/device_toleration.h"
#include "controller/explain/diagnoser.h"
#include "controller/profile/device_matcher.h"
#include "controller/profile/fleet_memo.h"

namespace gpuprofile::explain::internal {
namespace {

using profile::DeviceOutcome;

std::string ConditionMessage(const api::GpuProfile& p, const std::string& type) {
  for (const meta::Condition& c : p.status.conditions) {
    if (c.type == type) return c.message;
  }
  return "";
}

// The profile's tolerations, as the allocation model takes them.
std::vector<dra::DeviceToleration> TolerationsOf(const api::GpuProfile& p) {
  std::vector<dra::DeviceToleration> tolerations;
  for (const api::DeviceTolerationSpec& t : p.spec.tolerations) {
    tolerations.push_back({t.key, t.op, t.value, t.effect, t.toleration_seconds});
  }
  return tolerations;
}

// "node/device", or "pool/device" for a device not tied to one node; with the pool when it is
// not named after the node.
std::string DeviceLabel(const dra::Device& dev) {
  if (dev.node().empty()) return absl::StrCat(dev.pool(), "/", dev.name());
  if (dev.pool() == dev.node()) return absl::StrCat(dev.node(), "/", dev.name());
  return absl::StrCat(dev.node(), "/", dev.name(), " (pool ", dev.pool(), ")");
}

// Sets collected over the matched devices, sorted and distinct.
struct Collected {
  std::set<std::string> holders, taints, health, blocking, pools, nodes;
};

// Counts matched device `dev`, which the request may not use for its taints: a sample of such
// devices, and in `c` each taint no toleration of `tolerations` tolerates ("key=value:effect",
// the ones a remedy has to remove or tolerate) and, for those that report health, their words.
void CountTainted(const dra::Device& dev, const std::vector<dra::DeviceToleration>& tolerations,
                  ClassAnalysis* a, Collected* c) {
  ++a->tainted;
  if (a->sample_tainted.size() < kMaxListedClaims) a->sample_tainted.push_back(DeviceLabel(dev));
  for (const dra::DeviceTaint& t : dev.taints()) {
    if (!t.PreventsScheduling()) continue;
    bool tolerated = false;
    for (const dra::DeviceToleration& tol : tolerations) tolerated |= tol.Tolerates(t);
    if (tolerated) continue;
    const std::string taint = absl::StrCat(t.key, "=", t.value, ":", t.effect);
    c->taints.insert(taint);
    if (std::optional<std::string> words = dra::DescribeHealthTaint(t)) {
      c->health.insert(absl::StrCat(taint, " is a health report: ", *words));
    }
  }
}

// Why device `dev`, which a counter it draws keeps out for good, is unavailable: the counter set
// missing from its pool, the counter missing from the set, or a need larger than the counter.
std::string MissingCounter(const dra::Inventory& inventory, const dra::Device& dev) {
  std::map<std::pair<std::string, std::string>, Quantity> need;
  for (const dra::CounterUse& use : dev.counters_consumed()) {
    const auto key = std::make_pair(std::string(use.counter_set), std::string(use.counter));
    auto [it, inserted] = need.try_emplace(key, *use.value);
    if (inserted) continue;
    absl::StatusOr<Quantity> sum = it->second.Add(*use.value);
    if (!sum.ok()) {
      return absl::StrCat(DeviceLabel(dev), ": what it draws of counter ", use.counter,
                          " of counter set ", use.counter_set, " does not add up (overflow)");
    }
    it->second = *sum;
  }
  for (const auto& [key, amount] : need) {
    const auto& [set_name, counter] = key;
    const dra::PoolCounterSet* set = inventory.FindCounterSet(dev.driver(), dev.pool(), set_name);
    if (set == nullptr) {
      return absl::StrCat(DeviceLabel(dev), ": counter set ", set_name, " is not in pool ",
                          dev.pool());
    }
    const Quantity* total = nullptr;
    for (const auto& [name, q] : set->set.counters) {
      if (name == counter) total = &q;
    }
    if (total == nullptr) {
      return absl::StrCat(DeviceLabel(dev), ": counter set ", set_name, " has no counter ",
                          counter);
    }
    if (*total < amount) {
      return absl::StrCat(DeviceLabel(dev), ": it draws ", amount.ToString(), " of counter ",
                          counter, " of counter set ", set_name, ", which holds ",
                          total->ToString());
    }
  }
  return absl::StrCat(DeviceLabel(dev), ": a counter it draws is missing");
}

// A finding about profile `profile`'s DeviceClass `cls`, with the device counts every cause of
// the class shows.
Finding ClassFinding(const char* code, const std::string& profile, const std::string& cls,
                     const ClassAnalysis& a) {
  Finding f;
  f.code = code;
  f.profile = profile;
  f.device_class = cls;
  f.evidence["matchedDevices"] = a.matched;
  f.evidence["freeDevices"] = a.free;
  f.evidence["allocatedDevices"] = a.allocated;
  f.evidence["taintedDevices"] = a.tainted;
  f.evidence["deviceStates"] = DeviceStates(a);
  return f;
}

// Each state's evidence.
void AddAllocatedEvidence(const ClassAnalysis& a, Finding* f) {
  f->evidence["holders"] = Capped(a.holders);
  f->evidence["holderCount"] = a.holders.size();
}
void AddBlockedEvidence(const ClassAnalysis& a, Finding* f) {
  f->evidence["blockedDevices"] = a.blocked_devices;
  f->evidence["blockingClaims"] = Capped(a.blocking_claims);
  f->evidence["blockingClaimCount"] = a.blocking_claims.size();
}
void AddTaintedEvidence(const ClassAnalysis& a, Finding* f) {
  f->evidence["taints"] = a.taints;
  f->evidence["taintedSample"] = a.sample_tainted;
  if (!a.health_reports.empty()) f->evidence["healthReports"] = a.health_reports;
}
void AddUnavailableEvidence(const ClassAnalysis& a, Finding* f) {
  if (a.incomplete_pool > 0) f->evidence["incompletePools"] = a.incomplete_pools;
  if (a.unavailable > 0) f->evidence["missingCounters"] = a.missing_counters;
}

// No device admits the capacity profile `p` asks for, though `relaxed` match the rest of its
// selector.
Finding CapacityNotAdmitted(const api::GpuProfile& p, const RelaxedMatch& relaxed,
                            const ClassAnalysis& a) {
  const std::string& profile = p.metadata.name;
  Finding f = ClassFinding("CapacityNotAdmitted", profile, p.spec.device_class_name, a);
  std::vector<std::string> wants;
  for (const auto& [name, q] : p.spec.capacity_requests) {
    wants.push_back(absl::StrCat(name, "=", q.ToString()));
  }
  f.message = absl::StrCat(
      "The request asks for capacity (", absl::StrJoin(wants, ", "),
      ") that no device "
      "admits: ",
      relaxed.matched, " devices match the rest of GpuProfile \"", profile,
      "\"'s selector, but none of them both allows multiple allocations and has that much (",
      relaxed.shareable, " allow multiple allocations).");
  f.remedy =
      "Lower spec.capacityRequests of the profile, or enable shared allocation "
      "(allowMultipleAllocations) with enough capacity in the DRA driver.";
  f.evidence["capacityRequests"] = wants;
  f.evidence["devicesMatchingWithoutCapacity"] = relaxed.matched;
  f.evidence["allowingMultipleAllocations"] = relaxed.shareable;
  return f;
}

// The claim waits for allocated devices: `a.allocated` of the matched devices are held.
Finding AllocatedCause(const std::string& profile, const std::string& cls, const ClassAnalysis& a) {
  Finding f = ClassFinding("AllDevicesAllocated", profile, cls, a);
  const char* shared = a.shared_allocated
                           ? " (some are shared devices: what room they have left is not modelled)"
                           : "";
  // "All" only when it is true: the others may be blocked, tainted or unavailable.
  f.message = a.allocated == a.matched
                  ? absl::StrCat("All ", a.allocated, " devices DeviceClass \"", cls,
                                 "\" selects are allocated to other claims", shared,
                                 ": the claim waits until one is released.")
                  : absl::StrCat(a.allocated, " of the ", a.matched, " devices DeviceClass \"", cls,
                                 "\" selects are allocated to other claims", shared,
                                 ", and none of the others is free (", AccountText(a),
                                 "): the claim waits until one is released.");
  f.remedy =
      "Wait for a claim to be released, free one (delete finished pods), or add "
      "devices; a profile with a fallback (spec.fallback) can use another class.";
  AddAllocatedEvidence(a, &f);
  return f;
}

Finding TaintedCause(const std::string& profile, const std::string& cls, const ClassAnalysis& a) {
  Finding f = ClassFinding("DevicesTainted", profile, cls, a);
  f.message =
      absl::StrCat(a.tainted, " of the ", a.matched, " devices DeviceClass \"", cls,
                   "\" selects carry taints the request does not tolerate (", AccountText(a), ").");
  for (const std::string& report : a.health_reports) absl::StrAppend(&f.message, " ", report, ".");
  f.remedy = absl::StrCat(
      a.health_reports.empty()
          ? ""
          : "A health report names a faulty GPU: check it on its node, and reset or replace it. ",
      "Remove the taints (DeviceTaintRule, or the driver's), or add "
      "tolerations to GpuProfile \"",
      profile, "\" (spec.tolerations) if its pods may use those devices.");
  AddTaintedEvidence(a, &f);
  return f;
}

// Devices no claim holds, which the allocated devices' use of their counters keeps out (a whole
// GPU whose MIG placements are allocated).
Finding BlockedCause(const std::string& profile, const std::string& cls, const ClassAnalysis& a) {
  Finding f = ClassFinding("DevicesBlockedByCounters", profile, cls, a);
  f.message = absl::StrCat(
      a.blocked, " of the ", a.matched, " devices DeviceClass \"", cls,
      "\" selects are held by no claim but blocked by counters: they draw from counter sets of "
      "their pool (a GPU's memory and compute slices, shared by the whole GPU and its MIG "
      "placements) that allocated devices use, so they cannot be allocated until those are "
      "released (",
      AccountText(a), ").");
  f.remedy =
      "Wait for the claims holding the devices that share their counters (blockingClaims) to be "
      "released, or free them; a profile that selects the smaller partitions (MIG placements) "
      "can use what the counters have left.";
  AddBlockedEvidence(a, &f);
  return f;
}

// Devices the scheduler does not allocate as published: their pool is incomplete, or a counter
// they draw is missing or too small.
Finding UnavailableCause(const std::string& profile, const std::string& cls,
                         const ClassAnalysis& a) {
  Finding f = ClassFinding("DevicesUnavailable", profile, cls, a);
  std::vector<std::string> why;
  if (a.incomplete_pool > 0) {
    why.push_back(
        absl::StrCat(a.incomplete_pool, " are in incomplete pools (a driver is still publishing)"));
  }
  if (a.unavailable > 0) {
    why.push_back(absl::StrCat(a.unavailable,
                               " draw a counter their pool does not have, or more than it holds"));
  }
  f.message = absl::StrCat(
      a.incomplete_pool + a.unavailable, " of the ", a.matched, " devices DeviceClass \"", cls,
      "\" selects cannot be allocated: ", absl::StrJoin(why, ", and "), " (", AccountText(a), ").");
  f.remedy =
      "Check the DRA driver's ResourceSlices (kubectl get resourceslices) and the "
      "profile's Satisfiable condition.";
  AddUnavailableEvidence(a, &f);
  return f;
}

// Devices match the class but none is free: one cause per state that holds them back, each
// with its evidence.
std::vector<Finding> NoFreeDeviceCauses(const std::string& profile, const std::string& cls,
                                        const ClassAnalysis& a) {
  std::vector<Finding> out;
  if (a.allocated > 0) out.push_back(AllocatedCause(profile, cls, a));
  if (a.tainted > 0) out.push_back(TaintedCause(profile, cls, a));
  if (a.blocked > 0) out.push_back(BlockedCause(profile, cls, a));
  if (a.incomplete_pool + a.unavailable > 0) out.push_back(UnavailableCause(profile, cls, a));
  return out;
}

// Enough devices are free in the cluster, but no node has `count` of them free.
Finding NotEnoughDevicesOnOneNode(const std::string& profile, const std::string& cls, int64_t count,
                                  const ClassAnalysis& a) {
  Finding f = ClassFinding("NotEnoughDevicesOnOneNode", profile, cls, a);
  f.message = absl::StrCat("The request asks for ", count, " devices of DeviceClass \"", cls,
                           "\" on one node, but the most free on any node is ", a.max_free_on_node,
                           a.max_free_node.empty() ? "" : absl::StrCat(" (", a.max_free_node, ")"),
                           "; ", a.free, " are free in the whole cluster (", AccountText(a), ").",
                           OverlappingNote(a));
  f.remedy =
      "Lower the count, wait for devices on one node to be released, or add nodes "
      "with more devices.";
  f.evidence["count"] = count;
  f.evidence["maxFreeOnOneNode"] = a.max_free_on_node;
  if (!a.max_free_node.empty()) f.evidence["node"] = a.max_free_node;
  f.evidence["holders"] = Capped(a.holders);
  f.evidence["holderCount"] = a.holders.size();
  return f;
}

}  // namespace

// "6 devices match: 0 free, 3 allocated, 2 blocked by counters, 1 tainted": free always, the
// other states when not zero, in the order of status.allocation.deviceStates.
std::string AccountText(const ClassAnalysis& a) {
  std::string out = absl::StrCat(
      a.matched, a.matched == 1 ? " device matches: " : " devices match: ", a.free, " free");
  const std::pair<int64_t, const char*> states[] = {{a.overlapping, "overlapping"},
                                                    {a.allocated, "allocated"},
                                                    {a.blocked, "blocked by counters"},
                                                    {a.tainted, "tainted"},
                                                    {a.incomplete_pool, "in incomplete pools"},
                                                    {a.unavailable, "unavailable"}};
  for (const auto& [n, name] : states) {
    if (n > 0) absl::StrAppend(&out, ", ", n, " ", name);
  }
  return out;
}

// status.allocation.deviceStates' shape (all seven keys), written by the status codec.
nlohmann::ordered_json DeviceStates(const ClassAnalysis& a) {
  api::DeviceStates states;
  states.free = a.free;
  states.overlapping = a.overlapping;
  states.allocated = a.allocated;
  states.blocked_by_counters = a.blocked;
  states.tainted = a.tainted;
  states.incomplete_pool = a.incomplete_pool;
  states.unavailable = a.unavailable;
  return api::EncodeDeviceStates(states, /*non_zero_only=*/false);
}

std::string OverlappingNote(const ClassAnalysis& a) {
  if (a.overlapping == 0) return "";
  return absl::StrCat(" The ", a.overlapping,
                      " overlapping devices are free, but share counters with other free devices "
                      "(a whole GPU and its MIG placements cannot be allocated together).");
}

void AddStateEvidence(const ClassAnalysis& a, Finding* f) {
  if (a.allocated > 0) AddAllocatedEvidence(a, f);
  if (a.blocked > 0) AddBlockedEvidence(a, f);
  if (a.overlapping > 0) f->evidence["overlappingDevices"] = a.overlapping_devices;
  if (a.tainted > 0) AddTaintedEvidence(a, f);
  AddUnavailableEvidence(a, f);
}

RelaxedMatch Diagnoser::MatchWithoutCapacity(size_t p) const {
  RelaxedMatch out;
  profile::EngineInput input;
  input.kube_version = view_.engine.kube_version;
  input.feature_gates = view_.engine.feature_gates;
  api::GpuProfile relaxed = plan_.profiles[p].profile;
  relaxed.spec.capacity_requests.clear();
  input.profiles.push_back(std::move(relaxed));
  const profile::SpecPlan plan = profile::PlanProfiles(input);
  if (plan.profiles.empty() || !plan.profiles[0].selectors) return out;
  profile::FleetMemo memo(plan.device_values);
  const std::vector<profile::ProfileMatches> matches =
      profile::MatchDevices(view_.inventory, {&*plan.profiles[0].selectors}, {}, &memo);
  const std::vector<dra::Device>& devices = view_.inventory.devices();
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!matches[0].matched[d]) continue;
    ++out.matched;
    if (devices[d].allow_multiple_allocations()) ++out.shareable;
  }
  return out;
}

namespace {

std::string CounterSetKey(absl::string_view driver, absl::string_view pool, absl::string_view set) {
  return absl::StrCat(driver, "\x1f", pool, "\x1f", set);
}

// The free devices per node, for the largest count one node offers.
class NodeFree {
 public:
  // Device of `node` ("" for one not tied to a node), free or not. Devices come node by node.
  void Add(absl::string_view node, bool free, ClassAnalysis* a) {
    if (node != node_) {
      Close(a);
      node_ = std::string(node);
      free_ = 0;
    }
    if (!free) return;
    if (node.empty()) {
      ++a->nodeless_free;
    } else {
      ++free_;
    }
  }
  void Close(ClassAnalysis* a) const {
    if (!node_.empty() && free_ > a->max_free_on_node) {
      a->max_free_on_node = free_;
      a->max_free_node = node_;
    }
  }

 private:
  std::string node_;
  int64_t free_ = 0;
};

void AddCapped(std::string item, std::vector<std::string>* list) {
  if (list->size() < kMaxListedClaims) list->push_back(std::move(item));
}

}  // namespace

void Diagnoser::IndexCounterUsers() {
  const std::vector<dra::Device>& devices = view_.inventory.devices();
  for (size_t d = 0; d < devices.size() && d < held_.allocated.size(); ++d) {
    if (!held_.allocated[d]) continue;
    std::set<absl::string_view> sets;
    for (const dra::CounterUse& use : devices[d].counters_consumed()) sets.insert(use.counter_set);
    for (absl::string_view set : sets) {
      counter_users_[CounterSetKey(devices[d].driver(), devices[d].pool(), set)].push_back(d);
    }
  }
}

std::string Diagnoser::BlockedEvidence(size_t d, std::set<std::string>* claims) const {
  const std::vector<dra::Device>& devices = view_.inventory.devices();
  const dra::Device& dev = devices[d];
  std::set<absl::string_view> sets;
  for (const dra::CounterUse& use : dev.counters_consumed()) sets.insert(use.counter_set);
  std::vector<std::string> parts;
  for (absl::string_view set : sets) {
    auto users = counter_users_.find(CounterSetKey(dev.driver(), dev.pool(), set));
    if (users == counter_users_.end()) continue;
    std::vector<std::string> used_by;
    for (size_t u : users->second) {
      const std::vector<std::string>& held_by = holders_[u];
      claims->insert(held_by.begin(), held_by.end());
      if (used_by.size() == kMaxListedClaims) continue;
      used_by.push_back(held_by.empty() ? std::string(devices[u].name())
                                        : absl::StrCat(devices[u].name(), ", held by claim ",
                                                       absl::StrJoin(held_by, " and ")));
    }
    if (users->second.size() > used_by.size()) {
      used_by.push_back(absl::StrCat(users->second.size() - used_by.size(), " more"));
    }
    parts.push_back(
        absl::StrCat("counter set ", set, " is used by ", absl::StrJoin(used_by, "; ")));
  }
  if (parts.empty()) parts.push_back("allocated devices use up its counters");
  return absl::StrCat(DeviceLabel(dev), ": ", absl::StrJoin(parts, "; "));
}

ClassAnalysis Diagnoser::Analyse(size_t p) const {
  ClassAnalysis a;
  const profile::ProfilePlan& w = plan_.profiles[p];
  if (!w.selectors) return a;
  profile::FleetMemo memo(plan_.device_values);
  const std::vector<profile::ProfileMatches> matches =
      profile::MatchDevices(view_.inventory, {&*w.selectors}, {}, &memo);
  const profile::DeviceSet& matched = matches[0].matched;
  const std::vector<dra::DeviceToleration> tolerations = TolerationsOf(w.profile);
  const profile::AllocatableCount count = model_.Count(matched, tolerations);
  const std::vector<dra::Device>& devices = view_.inventory.devices();
  Collected c;
  NodeFree node_free;
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!matched[d]) continue;
    ++a.matched;
    const dra::Device& dev = devices[d];
    if (!dev.node().empty()) c.nodes.emplace(dev.node());
    const DeviceOutcome outcome = count.Of(d, matched);
    node_free.Add(dev.node(), outcome == DeviceOutcome::kSchedulable, &a);
    switch (outcome) {
      case DeviceOutcome::kSchedulable:
        ++a.free;
        break;
      case DeviceOutcome::kOverlapping:
        ++a.overlapping;
        AddCapped(DeviceLabel(dev), &a.overlapping_devices);
        break;
      case DeviceOutcome::kAllocated:
        ++a.allocated;
        if (dev.allow_multiple_allocations()) a.shared_allocated = true;
        c.holders.insert(holders_[d].begin(), holders_[d].end());
        break;
      case DeviceOutcome::kCounterBlocked:
        ++a.blocked;
        // Past the listed devices, still every blocking claim is counted.
        AddCapped(BlockedEvidence(d, &c.blocking), &a.blocked_devices);
        break;
      case DeviceOutcome::kTainted:
        CountTainted(dev, tolerations, &a, &c);
        break;
      case DeviceOutcome::kIncompletePool:
        ++a.incomplete_pool;
        c.pools.emplace(dev.pool());
        break;
      case DeviceOutcome::kUnavailable:
        ++a.unavailable;
        if (a.missing_counters.size() < kMaxListedClaims) {
          a.missing_counters.push_back(MissingCounter(view_.inventory, dev));
        }
        break;
      case DeviceOutcome::kNotMatched:
        break;
    }
  }
  node_free.Close(&a);
  a.holders.assign(c.holders.begin(), c.holders.end());
  a.taints.assign(c.taints.begin(), c.taints.end());
  a.health_reports.assign(c.health.begin(), c.health.end());
  a.blocking_claims.assign(c.blocking.begin(), c.blocking.end());
  a.incomplete_pools.assign(c.pools.begin(), c.pools.end());
  a.nodes.assign(c.nodes.begin(), c.nodes.end());
  return a;
}

Finding Diagnoser::NoMatchingDevice(size_t p, const ClassAnalysis& a) const {
  const profile::ProfilePlan& w = plan_.profiles[p];
  const std::string& profile = w.profile.metadata.name;
  const std::string& cls = w.profile.spec.device_class_name;
  const api::GpuProfile* outcome = nullptr;
  for (const profile::ProfileOutcome& o : state_.profiles) {
    if (o.profile.metadata.name == profile) outcome = &o.profile;
  }
  Finding f = ClassFinding("NoMatchingDevice", profile, cls, a);
  f.message = absl::StrCat("DeviceClass \"", cls, "\" (GpuProfile \"", profile,
                           "\") selects no device on this cluster: none of the ",
                           view_.inventory.devices().size(),
                           " devices published in ResourceSlices matches its selectors.");
  f.remedy = absl::StrCat(
      "Check the profile's selector against the devices (gpu-profile-"
      "controller cel match), or use another profile.");
  f.evidence["selectors"] =
      outcome != nullptr ? outcome->status.selectors : std::vector<std::string>{};
  f.evidence["kubernetesVersion"] = view_.engine.kube_version.ToString();
  if (outcome != nullptr) {
    const std::string satisfiable = ConditionMessage(*outcome, "Satisfiable");
    if (!satisfiable.empty()) f.evidence["satisfiable"] = satisfiable;
  }
  return f;
}

std::vector<Finding> Diagnoser::ClassCauses(size_t p, int64_t count, bool all,
                                            const ClassAnalysis& a) const {
  const profile::ProfilePlan& w = plan_.profiles[p];
  const std::string& profile = w.profile.metadata.name;
  const std::string& cls = w.profile.spec.device_class_name;
  if (a.matched == 0 && !w.profile.spec.capacity_requests.empty()) {
    // The class asks for devices that allow multiple allocations with at least the requested
    // capacity (selector_compiler.h): do devices match the rest of the selector?
    const RelaxedMatch relaxed = MatchWithoutCapacity(p);
    if (relaxed.matched > 0) return {CapacityNotAdmitted(w.profile, relaxed, a)};
  }
  if (a.matched == 0) return {NoMatchingDevice(p, a)};
  if (a.free == 0) return NoFreeDeviceCauses(profile, cls, a);
  if (!all && count > 1 && a.nodeless_free < count && a.max_free_on_node < count) {
    return {NotEnoughDevicesOnOneNode(profile, cls, count, a)};
  }
  return {};
}

}  // namespace gpuprofile::explain::internal
