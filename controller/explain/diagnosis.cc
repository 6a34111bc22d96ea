// File: controller/explain/diagnosis.cc
#include "controller/explain/diagnosis.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/dra/device_toleration.h"
#include "controller/profile/device_matcher.h"
#include "controller/profile/fleet_memo.h"

namespace gpuprofile::explain {
namespace {

using profile::DeviceOutcome;

// Rank of each cause: lower is more likely to be what keeps the pod Pending (the earlier a
// cause sits in the chain pod -> template -> claim -> class -> devices, the more it explains).
int Rank(const std::string& code) {
  static const std::map<std::string, int>* ranks = new std::map<std::string, int>{
      {"DraNotServed", 0},
      {"ProfileStalled", 1},
      {"TemplateMissing", 2},
      {"ClaimNotFound", 2},
      {"ClaimNotCreated", 3},
      {"ClassMissing", 3},
      {"ClassNotGenerated", 3},
      {"NoMatchingDevice", 4},
      {"CapacityNotAdmitted", 5},
      {"AllDevicesAllocated", 6},
      {"DevicesTainted", 6},
      {"DevicesUnavailable", 7},
      {"NotEnoughDevicesOnOneNode", 8},
      {"ClaimBeingDeleted", 9},
  };
  auto it = ranks->find(code);
  return it == ranks->end() ? 10 : it->second;
}

int SeverityRank(Severity s) {
  switch (s) {
    case Severity::kCause:
      return 0;
    case Severity::kInfo:
      return 1;
    case Severity::kOk:
      return 2;
  }
  return 3;
}

// Ranks causes, then info, then OK; ties keep the order found. The same cause reached twice
// (e.g. one profile Stalled behind two claims) is kept once.
void Rank(std::vector<Finding>* findings) {
  std::vector<Finding> unique;
  std::set<std::string> seen;
  for (Finding& f : *findings) {
    std::string key = absl::StrCat(f.code, "\x1f", f.pod_claim, "\x1f", f.resource_claim, "\x1f",
                                   f.device_class, "\x1f", f.profile);
    if (f.code == "ProfileStalled" || f.code == "DraNotServed") {
      key = absl::StrCat(f.code, "\x1f", f.profile);  // one per profile, whoever reached it
    }
    if (!seen.insert(key).second) continue;
    unique.push_back(std::move(f));
  }
  std::stable_sort(unique.begin(), unique.end(), [](const Finding& a, const Finding& b) {
    const int sa = SeverityRank(a.severity), sb = SeverityRank(b.severity);
    if (sa != sb) return sa < sb;
    return a.severity == Severity::kCause && Rank(a.code) < Rank(b.code);
  });
  *findings = std::move(unique);
}

std::string Key(const std::string& ns, const std::string& name) {
  return absl::StrCat(ns, "/", name);
}

std::string DeviceKey(absl::string_view driver, absl::string_view pool, absl::string_view device) {
  return absl::StrCat(driver, "\x1f", pool, "\x1f", device);
}

// Up to kMaxListedClaims names, then "... and N more".
nlohmann::ordered_json Capped(const std::vector<std::string>& names) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < names.size() && i < kMaxListedClaims; ++i) out.push_back(names[i]);
  return out;
}

std::string OperatorName(api::LabelSelectorRequirement::Operator op) {
  switch (op) {
    case api::LabelSelectorRequirement::Operator::kIn:
      return "In";
    case api::LabelSelectorRequirement::Operator::kNotIn:
      return "NotIn";
    case api::LabelSelectorRequirement::Operator::kExists:
      return "Exists";
    case api::LabelSelectorRequirement::Operator::kDoesNotExist:
      return "DoesNotExist";
  }
  return "?";
}

// "gpu-profiles=enabled, tier In (a, b)".
std::string SelectorText(const api::LabelSelector& s) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : s.match_labels) parts.push_back(absl::StrCat(k, "=", v));
  for (const api::LabelSelectorRequirement& r : s.match_expressions) {
    std::string part = absl::StrCat(r.key, " ", OperatorName(r.op));
    if (!r.values.empty()) absl::StrAppend(&part, " (", absl::StrJoin(r.values, ", "), ")");
    parts.push_back(std::move(part));
  }
  return parts.empty() ? "{} (every namespace)" : absl::StrJoin(parts, ", ");
}

std::string ConditionMessage(const api::GpuProfile& p, const std::string& type) {
  for (const api::Condition& c : p.status.conditions) {
    if (c.type == type) return c.message;
  }
  return "";
}

}  // namespace

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kCause:
      return "Cause";
    case Severity::kInfo:
      return "Info";
    case Severity::kOk:
      return "OK";
  }
  return "?";
}

bool Diagnosis::HasCause() const {
  for (const Finding& f : findings) {
    if (f.severity == Severity::kCause) return true;
  }
  return false;
}

// What one profile's class finds on the cluster now.
struct Explainer::ClassAnalysis {
  int64_t matched = 0;
  int64_t free = 0;
  int64_t allocated = 0;
  int64_t tainted = 0;
  int64_t unavailable = 0;  // incomplete pool or counters used up
  int64_t max_free_on_node = 0;
  std::string max_free_node;
  int64_t nodeless_free = 0;         // free devices not tied to one node (any node may get them)
  bool shared_allocated = false;     // an allocated device allows multiple allocations
  std::vector<std::string> holders;  // claims holding matched devices, sorted, distinct
  std::vector<std::string> taints;   // untolerated taints of matched devices, distinct
  std::vector<std::string> sample_tainted;  // "node/device" of some tainted devices
};

Explainer::Explainer(const ClusterView& view)
    : view_(view),
      plan_(profile::PlanProfiles(view.engine)),
      claim_ptrs_([&view] {
        std::vector<const dra::ResourceClaim*> out;
        for (const dra::ResourceClaim& c : view.claims) out.push_back(&c);
        return out;
      }()),
      held_(profile::IndexAllocatedDevices(view.inventory, claim_ptrs_)),
      model_(view.inventory, held_.allocated) {
  const profile::ClaimLedger ledger(claim_ptrs_);
  state_ = profile::AssembleDesiredState(plan_, view.inventory, nullptr, &ledger);
  const std::vector<dra::Device>& devices = view.inventory.devices();
  absl::flat_hash_map<std::string, size_t> index;
  for (size_t d = 0; d < devices.size(); ++d) {
    index.emplace(DeviceKey(devices[d].driver(), devices[d].pool(), devices[d].name()), d);
  }
  holders_.resize(devices.size());
  for (const dra::ResourceClaim& c : view.claims) {
    if (!c.allocated) continue;
    for (const dra::ClaimDeviceResult& r : c.results) {
      auto it = index.find(DeviceKey(r.driver.str(), r.pool.str(), r.device.str()));
      if (it == index.end()) continue;
      std::vector<std::string>& h = holders_[it->second];
      const std::string key = Key(c.namespace_name, c.name);
      if (std::find(h.begin(), h.end(), key) == h.end()) h.push_back(key);
    }
  }
  for (size_t p = 0; p < plan_.profiles.size(); ++p) {
    const api::GpuProfileSpec& spec = plan_.profiles[p].profile.spec;
    class_profiles_[spec.device_class_name].push_back(p);
    template_profiles_[spec.claim_template.name].push_back(p);
  }
}

const dra::ResourceClaim* Explainer::FindClaim(const std::string& ns,
                                               const std::string& name) const {
  for (const dra::ResourceClaim& c : view_.claims) {
    if (c.namespace_name == ns && c.name == name) return &c;
  }
  return nullptr;
}

bool Explainer::TemplateExists(const std::string& ns, const std::string& name) const {
  for (const profile::ExistingTemplate& t : view_.engine.existing_templates) {
    if (t.namespace_name == ns && t.metadata->name == name) return true;
  }
  if (view_.live) return false;
  for (const profile::TemplateSet& s : state_.template_sets) {
    if (s.prototype.metadata.name == name &&
        std::binary_search(s.namespaces.begin(), s.namespaces.end(), ns)) {
      return true;
    }
  }
  return false;
}

void Explainer::AddDraNotServed(std::vector<Finding>* out) const {
  if (view_.dra_served) return;
  Finding f;
  f.code = "DraNotServed";
  f.message = absl::StrCat(
      "The cluster does not serve Dynamic Resource Allocation (resource.k8s.io): no claim can be "
      "allocated, whatever the profiles say. ",
      view_.dra_not_served_reason);
  f.remedy =
      "Enable DRA on the cluster (the DynamicResourceAllocation feature gate and the "
      "resource.k8s.io API versions in --runtime-config on Kubernetes 1.32/1.33; served by "
      "default from 1.34).";
  f.evidence["kubernetesVersion"] = view_.engine.kube_version.ToString();
  out->push_back(std::move(f));
}

Finding Explainer::Stalled(size_t p) const {
  const profile::ProfilePlan& w = plan_.profiles[p];
  Finding f;
  f.code = "ProfileStalled";
  f.profile = w.profile.metadata.name;
  f.device_class = w.profile.spec.device_class_name;
  const std::string reason = w.stalled_reason.empty() ? "InvalidSpec" : w.stalled_reason;
  f.message = absl::StrCat("GpuProfile \"", f.profile, "\" is Stalled (", reason,
                           "): the operator generates neither its DeviceClass nor its "
                           "templates, so claims that name them cannot be allocated.");
  f.remedy = absl::StrCat("Fix the profile (kubectl describe gpuprofile ", f.profile,
                          " shows the same problems).");
  f.evidence["reason"] = reason;
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (absl::string_view line : absl::StrSplit(w.problems, '\n')) {
    if (!line.empty()) problems.push_back(std::string(line));
  }
  f.evidence["problems"] = problems;
  return f;
}

std::vector<Finding> Explainer::TemplateMissing(const std::string& ns,
                                                const std::string& name) const {
  std::vector<Finding> out;
  Finding f;
  f.code = "TemplateMissing";
  f.evidence["namespace"] = ns;
  f.evidence["template"] = name;
  auto owners = template_profiles_.find(name);
  if (owners == template_profiles_.end()) {
    f.message =
        absl::StrCat("The ResourceClaimTemplate \"", name, "\" does not exist in namespace \"", ns,
                     "\", and no GpuProfile generates a template of that name.");
    f.remedy =
        "Use the template name of an existing GpuProfile (kubectl get gpuprofiles shows "
        "them), or create a profile whose spec.claimTemplate.name is this name.";
    out.push_back(std::move(f));
    return out;
  }
  std::vector<std::string> names, remedies;
  bool targeted = false;
  for (size_t p : owners->second) {
    const profile::ProfilePlan& w = plan_.profiles[p];
    const std::string& profile = w.profile.metadata.name;
    names.push_back(profile);
    if (!w.selectors) {
      out.push_back(Stalled(p));
      continue;
    }
    if (std::find(w.namespaces.begin(), w.namespaces.end(), ns) != w.namespaces.end()) {
      targeted = true;
      f.profile = profile;
      if (std::find(w.template_namespaces.begin(), w.template_namespaces.end(), ns) ==
          w.template_namespaces.end()) {
        remedies.push_back(absl::StrCat("GpuProfile \"", profile,
                                        "\" targets the namespace but another object holds the "
                                        "name: ",
                                        absl::StrJoin(w.conflicts, "; ")));
      } else {
        remedies.push_back(absl::StrCat(
            "GpuProfile \"", profile,
            "\" targets the namespace, but the template has not been "
            "created yet: check that the operator is running (kubectl describe gpuprofile ",
            profile, ")."));
      }
      continue;
    }
    if (f.profile.empty()) f.profile = profile;
    const api::ClaimTemplateSpec& t = w.profile.spec.claim_template;
    std::string how;
    if (t.namespace_selector && !t.namespace_selector->match_labels.empty() &&
        t.namespace_selector->match_expressions.empty()) {
      std::vector<std::string> labels;
      for (const auto& [k, v] : t.namespace_selector->match_labels) {
        labels.push_back(absl::StrCat(k, "=", v));
      }
      how = absl::StrCat("label the namespace (kubectl label namespace ", ns, " ",
                         absl::StrJoin(labels, " "), ") or ");
    } else if (t.namespace_selector) {
      how = absl::StrCat(
          "give the namespace labels that match spec.claimTemplate."
          "namespaceSelector (",
          SelectorText(*t.namespace_selector), ") or ");
    }
    remedies.push_back(absl::StrCat("GpuProfile \"", profile, "\" would put it there: ", how,
                                    "add \"", ns, "\" to its spec.claimTemplate.namespaces."));
  }
  f.evidence["profiles"] = names;
  nlohmann::ordered_json targets = nlohmann::ordered_json::object();
  for (size_t p : owners->second) {
    const profile::ProfilePlan& w = plan_.profiles[p];
    targets[w.profile.metadata.name] = w.namespaces;
  }
  f.evidence["profileNamespaces"] = targets;
  if (!remedies.empty()) {
    f.message = absl::StrCat("The ResourceClaimTemplate \"", name,
                             "\" does not exist in namespace \"", ns, "\"",
                             targeted ? "."
                                      : ": no GpuProfile that generates it targets this "
                                        "namespace.");
    f.remedy = absl::StrJoin(remedies, " ");
    out.insert(out.begin(), std::move(f));
  }
  return out;
}

Explainer::RelaxedMatch Explainer::MatchWithoutCapacity(size_t p) const {
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

Explainer::ClassAnalysis Explainer::Analyse(size_t p) const {
  ClassAnalysis a;
  const profile::ProfilePlan& w = plan_.profiles[p];
  if (!w.selectors) return a;
  profile::FleetMemo memo(plan_.device_values);
  const std::vector<profile::ProfileMatches> matches =
      profile::MatchDevices(view_.inventory, {&*w.selectors}, {}, &memo);
  const std::vector<bool>& matched = matches[0].matched;
  std::vector<dra::DeviceToleration> tolerations;
  for (const api::DeviceTolerationSpec& t : w.profile.spec.tolerations) {
    tolerations.push_back({t.key, t.op, t.value, t.effect, t.toleration_seconds});
  }
  const profile::AllocatableCount count = model_.Count(matched, tolerations);
  const std::vector<dra::Device>& devices = view_.inventory.devices();
  std::set<std::string> holders, taints;
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
        ++a.tainted;
        if (a.sample_tainted.size() < kMaxListedClaims) {
          a.sample_tainted.push_back(absl::StrCat(dev.node(), "/", dev.name()));
        }
        for (const dra::DeviceTaint& t : dev.taints()) {
          if (!t.PreventsScheduling()) continue;
          bool tolerated = false;
          for (const dra::DeviceToleration& tol : tolerations) tolerated |= tol.Tolerates(t);
          if (!tolerated) taints.insert(absl::StrCat(t.key, "=", t.value, ":", t.effect));
        }
        break;
      case DeviceOutcome::kIncompletePool:
      case DeviceOutcome::kCounterLimited:
        ++a.unavailable;
        break;
      case DeviceOutcome::kNotMatched:
        break;
    }
  }
  close_node();
  a.holders.assign(holders.begin(), holders.end());
  a.taints.assign(taints.begin(), taints.end());
  return a;
}

std::vector<Finding> Explainer::ClassCauses(size_t p, int64_t count, bool all,
                                            const ClassAnalysis& a) const {
  std::vector<Finding> out;
  const profile::ProfilePlan& w = plan_.profiles[p];
  const std::string& profile = w.profile.metadata.name;
  const std::string& cls = w.profile.spec.device_class_name;
  const api::GpuProfile* outcome = nullptr;
  for (const profile::ProfileOutcome& o : state_.profiles) {
    if (o.profile.metadata.name == profile) outcome = &o.profile;
  }
  auto base = [&](const char* code) {
    Finding f;
    f.code = code;
    f.profile = profile;
    f.device_class = cls;
    f.evidence["matchedDevices"] = a.matched;
    f.evidence["freeDevices"] = a.free;
    f.evidence["allocatedDevices"] = a.allocated;
    f.evidence["taintedDevices"] = a.tainted;
    return f;
  };
  if (a.matched == 0 && !w.profile.spec.capacity_requests.empty()) {
    // The class asks for devices that allow multiple allocations with at least the requested
    // capacity (selector_compiler.h): do devices match the rest of the selector?
    const RelaxedMatch relaxed = MatchWithoutCapacity(p);
    if (relaxed.matched > 0) {
      Finding f = base("CapacityNotAdmitted");
      std::vector<std::string> wants;
      for (const auto& [name, q] : w.profile.spec.capacity_requests) {
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
      out.push_back(std::move(f));
      return out;
    }
  }
  if (a.matched == 0) {
    Finding f = base("NoMatchingDevice");
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
    out.push_back(std::move(f));
    return out;
  }
  if (a.free == 0) {
    if (a.allocated > 0) {
      Finding f = base("AllDevicesAllocated");
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
      Finding f = base("DevicesTainted");
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
      Finding f = base("DevicesUnavailable");
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
  if (!all && count > 1 && a.nodeless_free < count && a.max_free_on_node < count) {
    Finding f = base("NotEnoughDevicesOnOneNode");
    f.message =
        absl::StrCat("The request asks for ", count, " devices of DeviceClass \"", cls,
                     "\" on one node, but the most free on any node is ", a.max_free_on_node,
                     a.max_free_node.empty() ? "" : absl::StrCat(" (", a.max_free_node, ")"), "; ",
                     a.free, " are free in the whole cluster.");
    f.remedy =
        "Lower the count, wait for devices on one node to be released, or add nodes "
        "with more devices.";
    f.evidence["count"] = count;
    f.evidence["maxFreeOnOneNode"] = a.max_free_on_node;
    if (!a.max_free_node.empty()) f.evidence["node"] = a.max_free_node;
    f.evidence["holders"] = Capped(a.holders);
    f.evidence["holderCount"] = a.holders.size();
    out.push_back(std::move(f));
  }
  return out;
}

void Explainer::DiagnoseClaim(const dra::ResourceClaim& claim, const std::string& pod_claim,
                              std::vector<Finding>* out) const {
  const std::string key = Key(claim.namespace_name, claim.name);
  auto tag = [&](Finding f) {
    f.pod_claim = pod_claim;
    f.resource_claim = key;
    return f;
  };
  if (claim.allocated) {
    Finding f;
    f.code = "ClaimAllocated";
    f.severity = Severity::kOk;
    std::vector<std::string> devices;
    for (const dra::ClaimDeviceResult& r : claim.results) {
      devices.push_back(absl::StrCat(r.driver.str(), "/", r.pool.str(), "/", r.device.str()));
    }
    f.message = absl::StrCat("ResourceClaim \"", key, "\" is allocated (", devices.size(),
                             devices.size() == 1 ? " device" : " devices",
                             "): DRA is not what keeps a pod using it waiting.");
    f.evidence["devices"] = devices;
    f.evidence["reservedFor"] =
        std::vector<std::string>(claim.reserved_for_pods.begin(), claim.reserved_for_pods.end());
    out->push_back(tag(std::move(f)));
    return;
  }
  if (claim.deleting) {
    Finding f;
    f.code = "ClaimBeingDeleted";
    f.message = absl::StrCat("ResourceClaim \"", key,
                             "\" is being deleted; it will not be "
                             "allocated.");
    f.remedy = "Recreate the pod (a claim from a template is made anew for the new pod).";
    out->push_back(tag(std::move(f)));
    return;
  }
  bool blocked_any = false;
  nlohmann::ordered_json free_by_class = nlohmann::ordered_json::object();
  for (const dra::ClaimRequest& r : claim.requests) {
    std::vector<Finding> causes;
    bool feasible = false;
    for (const std::string& cls : r.device_classes) {
      auto named = class_profiles_.find(cls);
      size_t generator = plan_.profiles.size();
      if (named != class_profiles_.end()) {
        for (size_t p : named->second) {
          if (plan_.profiles[p].generates_class) generator = p;
        }
      }
      if (generator == plan_.profiles.size()) {
        // No profile generates the class.
        bool exists = false;
        for (const auto& c : view_.engine.existing_classes) exists |= c->metadata.name == cls;
        if (named != class_profiles_.end()) {
          for (size_t p : named->second) {
            if (!plan_.profiles[p].selectors) {
              causes.push_back(Stalled(p));
            } else {
              Finding f;
              f.code = "ClassNotGenerated";
              f.profile = plan_.profiles[p].profile.metadata.name;
              f.device_class = cls;
              f.message = absl::StrCat("GpuProfile \"", f.profile, "\" names DeviceClass \"", cls,
                                       "\" but does not generate it: ",
                                       absl::StrJoin(plan_.profiles[p].conflicts, "; "));
              f.remedy =
                  "Resolve the conflict (rename the profile's deviceClassName or remove "
                  "the other object).";
              causes.push_back(std::move(f));
            }
          }
        } else if (!exists && view_.live) {
          Finding f;
          f.code = "ClassMissing";
          f.device_class = cls;
          f.message = absl::StrCat("DeviceClass \"", cls,
                                   "\" does not exist and no GpuProfile "
                                   "generates it.");
          f.remedy = "Create the class or a GpuProfile with that deviceClassName.";
          causes.push_back(std::move(f));
        } else {
          // A class this project does not manage: nothing to say about its devices.
          Finding f;
          f.code = "ClassNotManaged";
          f.severity = Severity::kInfo;
          f.device_class = cls;
          f.message = absl::StrCat("DeviceClass \"", cls,
                                   "\" is not generated by a GpuProfile: "
                                   "explain does not evaluate its selectors.");
          causes.push_back(std::move(f));
          feasible = true;  // unknown: do not blame the other alternatives
        }
        continue;
      }
      if (view_.live) {
        bool exists = false;
        for (const auto& c : view_.engine.existing_classes) exists |= c->metadata.name == cls;
        if (!exists) {
          Finding f;
          f.code = "ClassMissing";
          f.device_class = cls;
          f.profile = plan_.profiles[generator].profile.metadata.name;
          f.message = absl::StrCat("DeviceClass \"", cls, "\" does not exist: GpuProfile \"",
                                   f.profile, "\" generates it, but it has not been created.");
          f.remedy = absl::StrCat(
              "Check that the operator is running (kubectl describe "
              "gpuprofile ",
              f.profile, ").");
          causes.push_back(std::move(f));
          continue;
        }
      }
      const ClassAnalysis a = Analyse(generator);
      free_by_class[cls] = a.free;
      std::vector<Finding> class_causes = ClassCauses(generator, r.count, r.all, a);
      if (class_causes.empty()) {
        feasible = true;
        break;
      }
      for (Finding& f : class_causes) causes.push_back(std::move(f));
    }
    if (feasible) {
      for (Finding& f : causes) {
        if (f.severity != Severity::kCause) out->push_back(tag(std::move(f)));
      }
      continue;
    }
    blocked_any = true;
    for (Finding& f : causes) {
      f.evidence["request"] = r.name;
      out->push_back(tag(std::move(f)));
    }
  }
  if (!blocked_any) {
    Finding f;
    f.code = "NoDraCauseFound";
    f.severity = Severity::kInfo;
    f.message = absl::StrCat(
        "ResourceClaim \"", key,
        "\" is not allocated yet, but devices that fit it are free: the "
        "scheduler allocates it when it schedules the pod, so the pod waits for something else "
        "(node selectors, affinity, CPU or memory, or the scheduler has not retried yet).");
    f.remedy = "Read the pod's events (kubectl describe pod) for the scheduler's reason.";
    f.evidence["freeDevicesByClass"] = free_by_class;
    out->push_back(tag(std::move(f)));
  }
}

absl::StatusOr<Diagnosis> Explainer::ExplainPod(const std::string& ns,
                                                const std::string& name) const {
  const Pod* pod = nullptr;
  for (const Pod& p : view_.pods) {
    if (p.namespace_name == ns && p.name == name) pod = &p;
  }
  if (pod == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("pod \"", name, "\" not found in namespace \"", ns, "\""));
  }
  Diagnosis d{"Pod", ns, name, {}};
  std::vector<Finding>& out = d.findings;
  AddDraNotServed(&out);
  for (const PodClaimRef& ref : pod->claims) {
    const dra::ResourceClaim* claim = nullptr;
    if (!ref.claim_name.empty()) {
      claim = FindClaim(ns, ref.claim_name);
      if (claim == nullptr) {
        Finding f;
        f.code = "ClaimNotFound";
        f.pod_claim = ref.name;
        f.resource_claim = Key(ns, ref.claim_name);
        f.message = absl::StrCat("The pod names ResourceClaim \"", ref.claim_name,
                                 "\", which does not exist in namespace \"", ns, "\".");
        f.remedy = "Create the claim, or use a template (resourceClaimTemplateName).";
        out.push_back(std::move(f));
        continue;
      }
    } else {
      const PodClaimStatus* status = pod->StatusOf(ref.name);
      if (status != nullptr && !status->claim_name) continue;  // no claim needed
      if (status != nullptr) claim = FindClaim(ns, *status->claim_name);
      if (claim == nullptr) {
        for (const dra::ResourceClaim& c : view_.claims) {
          if (c.namespace_name == ns && c.owner_pod == name && c.pod_claim_name == ref.name) {
            claim = &c;
          }
        }
      }
      if (claim == nullptr) {
        if (!TemplateExists(ns, ref.template_name)) {
          for (Finding& f : TemplateMissing(ns, ref.template_name)) {
            f.pod_claim = ref.name;
            out.push_back(std::move(f));
          }
        } else {
          Finding f;
          f.code = "ClaimNotCreated";
          f.pod_claim = ref.name;
          f.message =
              absl::StrCat("The template \"", ref.template_name, "\" exists in namespace \"", ns,
                           "\", but no ResourceClaim has been made from it for this pod yet.");
          f.remedy =
              "The resourceclaim controller (kube-controller-manager) makes it: check "
              "the pod's events and that the controller runs with DRA enabled.";
          f.evidence["template"] = ref.template_name;
          out.push_back(std::move(f));
        }
        continue;
      }
    }
    DiagnoseClaim(*claim, ref.name, &out);
  }
  if (pod->claims.empty()) {
    Finding f;
    f.code = "NoResourceClaims";
    f.severity = Severity::kOk;
    f.message = "The pod names no ResourceClaims: DRA is not what keeps it waiting.";
    out.push_back(std::move(f));
  }
  Rank(&out);
  const bool unscheduled =
      pod->node_name.empty() && (!pod->scheduled || pod->scheduled->status != "True");
  if (!d.HasCause() && unscheduled) {
    bool any_pending = false;
    for (const Finding& f : out) any_pending |= f.code == "NoDraCauseFound";
    if (!any_pending) {
      Finding f;
      f.code = "PodPendingNotDra";
      f.severity = Severity::kInfo;
      f.message =
          "Every claim of the pod is allocated or needs nothing, yet the pod is not "
          "scheduled: it is Pending for a reason outside DRA.";
      f.remedy = "Read the pod's events (kubectl describe pod) for the scheduler's reason.";
      out.insert(out.begin(), std::move(f));
    }
  }
  if (pod->scheduled && !out.empty()) {
    nlohmann::ordered_json& e = out.front().evidence;
    e["podScheduled"] = pod->scheduled->status;
    if (!pod->scheduled->reason.empty()) e["schedulerReason"] = pod->scheduled->reason;
    if (!pod->scheduled->message.empty()) e["schedulerMessage"] = pod->scheduled->message;
  }
  return d;
}

absl::StatusOr<Diagnosis> Explainer::ExplainClaim(const std::string& ns,
                                                  const std::string& name) const {
  const dra::ResourceClaim* claim = FindClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("resourceclaim \"", name, "\" not found in namespace \"", ns, "\""));
  }
  Diagnosis d{"ResourceClaim", ns, name, {}};
  AddDraNotServed(&d.findings);
  DiagnoseClaim(*claim, claim->pod_claim_name, &d.findings);
  Rank(&d.findings);
  if (!claim->owner_pod.empty() && !d.findings.empty()) {
    d.findings.front().evidence["ownerPod"] = claim->owner_pod;
  }
  return d;
}

absl::StatusOr<Diagnosis> Explainer::ExplainProfile(const std::string& name) const {
  size_t p = plan_.profiles.size();
  for (size_t i = 0; i < plan_.profiles.size(); ++i) {
    if (plan_.profiles[i].profile.metadata.name == name) p = i;
  }
  if (p == plan_.profiles.size()) {
    return absl::NotFoundError(absl::StrCat("gpuprofile \"", name, "\" not found"));
  }
  Diagnosis d{"GpuProfile", "", name, {}};
  std::vector<Finding>& out = d.findings;
  AddDraNotServed(&out);
  const profile::ProfilePlan& w = plan_.profiles[p];
  const std::string& cls = w.profile.spec.device_class_name;
  if (!w.selectors) {
    out.push_back(Stalled(p));
  } else if (!w.generates_class) {
    Finding f;
    f.code = "ClassNotGenerated";
    f.profile = name;
    f.device_class = cls;
    f.message = absl::StrCat("GpuProfile \"", name, "\" does not generate DeviceClass \"", cls,
                             "\": ", absl::StrJoin(w.conflicts, "; "));
    f.remedy = "Resolve the conflict (rename spec.deviceClassName or remove the other object).";
    out.push_back(std::move(f));
  } else {
    const ClassAnalysis a = Analyse(p);
    const std::optional<int64_t> count = w.profile.spec.EffectiveCount();
    for (Finding& f : ClassCauses(p, count.value_or(1), !count.has_value(), a)) {
      out.push_back(std::move(f));
    }
    // The claims waiting for this class.
    std::vector<std::string> pending;
    for (const dra::ResourceClaim& c : view_.claims) {
      if (c.allocated || c.deleting) continue;
      bool uses = false;
      for (const dra::ClaimRequest& r : c.requests) {
        uses |= std::find(r.device_classes.begin(), r.device_classes.end(), cls) !=
                r.device_classes.end();
      }
      if (uses) pending.push_back(Key(c.namespace_name, c.name));
    }
    std::vector<std::string> missing;
    for (const std::string& ns : w.namespaces) {
      if (!TemplateExists(ns, w.profile.spec.claim_template.name)) missing.push_back(ns);
    }
    if (!missing.empty()) {
      Finding f;
      f.code = "TemplateMissing";
      f.profile = name;
      f.message = absl::StrCat("The profile's template \"", w.profile.spec.claim_template.name,
                               "\" is missing in ", missing.size(), " of the ", w.namespaces.size(),
                               " namespaces it targets.");
      f.remedy = absl::StrCat(
          "Check that the operator runs and the profile's Conflict "
          "condition (kubectl describe gpuprofile ",
          name, ").");
      f.evidence["namespaces"] = missing;
      out.push_back(std::move(f));
    }
    if (!pending.empty()) {
      Finding f;
      f.code = "PendingClaims";
      f.severity = Severity::kInfo;
      f.profile = name;
      f.device_class = cls;
      f.message = absl::StrCat(pending.size(), pending.size() == 1 ? " claim" : " claims",
                               " that may use DeviceClass \"", cls, "\" ",
                               pending.size() == 1 ? "is" : "are",
                               " not allocated (explain resourceclaim/NAME -n NS says why "
                               "for each).");
      f.evidence["claims"] = Capped(pending);
      f.evidence["claimCount"] = pending.size();
      out.push_back(std::move(f));
    }
    if (!d.HasCause()) {
      Finding f;
      f.code = "ProfileServing";
      f.severity = Severity::kOk;
      f.profile = name;
      f.device_class = cls;
      f.message = absl::StrCat("GpuProfile \"", name, "\" is serving: ", a.free, " of the ",
                               a.matched, " devices its class selects are free (", a.allocated,
                               " allocated, ", a.tainted, " tainted).");
      f.evidence["matchedDevices"] = a.matched;
      f.evidence["freeDevices"] = a.free;
      f.evidence["allocatedDevices"] = a.allocated;
      f.evidence["taintedDevices"] = a.tainted;
      f.evidence["maxFreeOnOneNode"] = a.max_free_on_node;
      f.evidence["templateNamespaces"] = w.template_namespaces;
      out.push_back(std::move(f));
    }
  }
  Rank(&out);
  return d;
}

nlohmann::ordered_json EncodeDiagnosis(const Diagnosis& d) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "gpuprofile.io/v1alpha1";
  out["kind"] = "Explanation";
  nlohmann::ordered_json subject;
  subject["kind"] = d.kind;
  if (!d.namespace_name.empty()) subject["namespace"] = d.namespace_name;
  subject["name"] = d.name;
  out["subject"] = subject;
  out["result"] = d.HasCause() ? "CauseFound" : "NoCauseFound";
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const Finding& f : d.findings) {
    nlohmann::ordered_json j;
    j["code"] = f.code;
    j["severity"] = SeverityName(f.severity);
    if (!f.pod_claim.empty()) j["podClaim"] = f.pod_claim;
    if (!f.resource_claim.empty()) j["resourceClaim"] = f.resource_claim;
    if (!f.device_class.empty()) j["deviceClass"] = f.device_class;
    if (!f.profile.empty()) j["profile"] = f.profile;
    j["message"] = f.message;
    if (!f.remedy.empty()) j["remedy"] = f.remedy;
    j["evidence"] = f.evidence;
    findings.push_back(std::move(j));
  }
  out["findings"] = findings;
  return out;
}

namespace {

std::string EvidenceValue(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const auto& item : v) items.push_back(EvidenceValue(item));
    return items.empty() ? "(none)" : absl::StrJoin(items, ", ");
  }
  if (v.is_object()) {
    std::vector<std::string> items;
    for (const auto& [k, item] : v.items())
      items.push_back(absl::StrCat(k, ": ", EvidenceValue(item)));
    return items.empty() ? "(none)" : absl::StrJoin(items, "; ");
  }
  return v.dump();
}

}  // namespace

std::string FormatDiagnosis(const Diagnosis& d) {
  std::string out;
  const std::string subject = d.namespace_name.empty()
                                  ? absl::StrCat(d.kind, " ", d.name)
                                  : absl::StrCat(d.kind, " ", d.namespace_name, "/", d.name);
  int causes = 0;
  for (const Finding& f : d.findings) causes += f.severity == Severity::kCause ? 1 : 0;
  absl::StrAppend(&out, subject, ": ",
                  causes == 0 ? "no DRA cause found"
                              : absl::StrCat(causes, causes == 1 ? " cause" : " causes",
                                             " found, most likely first"),
                  "\n");
  int n = 0;
  for (const Finding& f : d.findings) {
    std::vector<std::string> about;
    if (!f.pod_claim.empty()) about.push_back(absl::StrCat("pod claim ", f.pod_claim));
    if (!f.resource_claim.empty()) about.push_back(absl::StrCat("claim ", f.resource_claim));
    if (!f.profile.empty()) about.push_back(absl::StrCat("profile ", f.profile));
    absl::StrAppend(&out, "\n", ++n, ". ", f.code, " (", SeverityName(f.severity), ")",
                    about.empty() ? "" : absl::StrCat(" [", absl::StrJoin(about, ", "), "]"),
                    "\n   ", f.message, "\n");
    if (!f.remedy.empty()) absl::StrAppend(&out, "   Fix: ", f.remedy, "\n");
    for (const auto& [k, v] : f.evidence.items()) {
      absl::StrAppend(&out, "     ", k, ": ", EvidenceValue(v), "\n");
    }
  }
  return out;
}

}  // namespace gpuprofile::explain
