// File: controller/explain/class_diagnosis.cc
// What a profile's class finds on the cluster now, and the causes that keep a request of
// it from being allocated (diagnoser.h).
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// Counts matched device `dev`, which the request may not use for its taints: a sample of such
// devices, and in *taints ("key=value:effect") each taint no toleration of `tolerations`
// tolerates, the ones a remedy has to remove or tolerate.
void CountTainted(const dra::Device& dev, const std::vector<dra::DeviceToleration>& tolerations,
                  ClassAnalysis* a, std::set<std::string>* taints) {
  ++a->tainted;
  if (a->sample_tainted.size() < kMaxListedClaims) {
    a->sample_tainted.push_back(absl::StrCat(dev.node(), "/", dev.name()));
  }
  for (const dra::DeviceTaint& t : dev.taints()) {
    if (!t.PreventsScheduling()) continue;
    bool tolerated = false;
    for (const dra::DeviceToleration& tol : tolerations) tolerated |= tol.Tolerates(t);
    if (!tolerated) taints->insert(absl::StrCat(t.key, "=", t.value, ":", t.effect));
  }
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
  return f;
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

// Devices match the class but none is free: allocated to other claims, tainted, or else
// unavailable (their pool or counters).
std::vector<Finding> NoFreeDeviceCauses(const std::string& profile, const std::string& cls,
                                        const ClassAnalysis& a) {
  std::vector<Finding> out;
  if (a.allocated > 0) {
    Finding f = ClassFinding("AllDevicesAllocated", profile, cls, a);
    f.message = absl::StrCat("All ", a.allocated, " allocatable devices DeviceClass \"", cls,
                             "\" selects are allocated to other claims",
                             a.shared_allocated ? " (some are shared devices: what room they "
                                                  "have left is not modelled)"
                                                : "",
                             ": the claim waits until one is released.");
    f.remedy =
        "Wait for a claim to be released, free one (delete finished pods), or add "
        "devices; a profile with a fallback (spec.fallback) can use another class.";
    f.evidence["holders"] = Capped(a.holders);
    f.evidence["holderCount"] = a.holders.size();
    out.push_back(std::move(f));
  }
  if (a.tainted > 0) {
    Finding f = ClassFinding("DevicesTainted", profile, cls, a);
    f.message = absl::StrCat(a.tainted, " of the ", a.matched, " devices DeviceClass \"", cls,
                             "\" selects carry taints the request does not tolerate",
                             a.allocated > 0 ? "" : ", and no other is free", ".");
    f.remedy = absl::StrCat(
        "Remove the taints (DeviceTaintRule, or the driver's), or add "
        "tolerations to GpuProfile \"",
        profile, "\" (spec.tolerations) if its pods may use those devices.");
    f.evidence["taints"] = a.taints;
    f.evidence["taintedSample"] = a.sample_tainted;
    out.push_back(std::move(f));
  }
  if (out.empty()) {
    Finding f = ClassFinding("DevicesUnavailable", profile, cls, a);
    f.message = absl::StrCat("None of the ", a.matched, " devices DeviceClass \"", cls,
                             "\" selects can be allocated: their pools are incomplete (a "
                             "driver is still publishing) or their shared counters are used "
                             "up.");
    f.remedy =
        "Check the DRA driver's ResourceSlices (kubectl get resourceslices) and the "
        "profile's Satisfiable condition.";
    f.evidence["unavailableDevices"] = a.unavailable;
    out.push_back(std::move(f));
  }
  return out;
}

// Enough devices are free in the cluster, but no node has `count` of them free.
Finding NotEnoughDevicesOnOneNode(const std::string& profile, const std::string& cls, int64_t count,
                                  const ClassAnalysis& a) {
  Finding f = ClassFinding("NotEnoughDevicesOnOneNode", profile, cls, a);
  f.message = absl::StrCat("The request asks for ", count, " devices of DeviceClass \"", cls,
                           "\" on one node, but the most free on any node is ", a.max_free_on_node,
                           a.max_free_node.empty() ? "" : absl::StrCat(" (", a.max_free_node, ")"),
                           "; ", a.free, " are free in the whole cluster.");
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

ClassAnalysis Diagnoser::Analyse(size_t p) const {
  ClassAnalysis a;
  const profile::ProfilePlan& w = plan_.profiles[p];
  if (!w.selectors) return a;
  profile::FleetMemo memo(plan_.device_values);
  const std::vector<profile::ProfileMatches> matches =
      profile::MatchDevices(view_.inventory, {&*w.selectors}, {}, &memo);
  const std::vector<bool>& matched = matches[0].matched;
  const std::vector<dra::DeviceToleration> tolerations = TolerationsOf(w.profile);
  const profile::AllocatableCount count = model_.Count(matched, tolerations);
  const std::vector<dra::Device>& devices = view_.inventory.devices();
  std::set<std::string> holders, taints, nodes;
  std::string node;
  int64_t node_free = 0;
  auto close_node = [&] {
    if (!node.empty() && node_free > a.max_free_on_node) {
      a.max_free_on_node = node_free;
      a.max_free_node = node;
    }
  };
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!matched[d]) continue;
    ++a.matched;
    const dra::Device& dev = devices[d];
    if (!dev.node().empty()) nodes.emplace(dev.node());
    if (dev.node() != node) {
      close_node();
      node = std::string(dev.node());
      node_free = 0;
    }
    switch (count.Of(d, matched)) {
      case DeviceOutcome::kSchedulable:
        ++a.free;
        if (dev.node().empty()) {
          ++a.nodeless_free;
        } else {
          ++node_free;
        }
        break;
      case DeviceOutcome::kAllocated:
        ++a.allocated;
        if (dev.allow_multiple_allocations()) a.shared_allocated = true;
        for (const std::string& h : holders_[d]) holders.insert(h);
        break;
      case DeviceOutcome::kTainted:
        CountTainted(dev, tolerations, &a, &taints);
        break;
      case DeviceOutcome::kIncompletePool:
      case DeviceOutcome::kCounterBlocked:
      case DeviceOutcome::kOverlapping:
      case DeviceOutcome::kUnavailable:
        ++a.unavailable;
        break;
      case DeviceOutcome::kNotMatched:
        break;
    }
  }
  close_node();
  a.holders.assign(holders.begin(), holders.end());
  a.taints.assign(taints.begin(), taints.end());
  a.nodes.assign(nodes.begin(), nodes.end());
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
