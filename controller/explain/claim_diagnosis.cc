// File: controller/explain/claim_diagnosis.cc
// A ResourceClaim's diagnosis: allocated, being deleted, or each blocked request's causes
// (diagnoser.h).
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/explain/diagnoser.h"

namespace gpuprofile::explain::internal {
namespace {

bool ClassExists(const ClusterView& view, const std::string& cls) {
  bool exists = false;
  for (const auto& c : view.engine.existing_classes) exists |= c->metadata.name == cls;
  return exists;
}

Finding ClaimAllocated(const dra::ResourceClaim& claim, const std::string& key) {
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
  return f;
}

// Whether `c` says something is wrong: False on a condition that is good when True (Ready,
// Healthy), True on one named for a fault (Unhealthy, Degraded, NotReady, ...).
bool ConditionReportsProblem(const dra::DeviceStatusCondition& c) {
  const absl::string_view type = c.type;
  const bool fault = absl::StartsWith(type, "Un") || absl::StartsWith(type, "Not") ||
                     absl::StrContains(type, "Degraded") || absl::StrContains(type, "Fail") ||
                     absl::StrContains(type, "Error");
  return fault ? c.status == "True" : c.status == "False";
}

// ClaimDeviceCondition (Info) for each device of allocated claim `key` whose driver reports a
// problem in the claim's status.devices (`statuses`).
void AddDeviceConditions(const std::string& key,
                         const std::vector<dra::AllocatedDeviceStatus>& statuses,
                         std::vector<Finding>* out) {
  for (const dra::AllocatedDeviceStatus& d : statuses) {
    std::vector<std::string> problems;
    for (const dra::DeviceStatusCondition& c : d.conditions) {
      if (!ConditionReportsProblem(c)) continue;
      std::string text = absl::StrCat(c.type, " is ", c.status);
      if (!c.reason.empty()) absl::StrAppend(&text, " (", c.reason, ")");
      if (!c.message.empty()) absl::StrAppend(&text, ": ", c.message);
      problems.push_back(std::move(text));
    }
    if (problems.empty()) continue;
    const std::string device = absl::StrCat(d.driver, "/", d.pool, "/", d.device);
    Finding f;
    f.code = "ClaimDeviceCondition";
    f.severity = Severity::kInfo;
    f.message =
        absl::StrCat("The DRA driver reports a problem with device ", device,
                     " of ResourceClaim \"", key, "\": ", absl::StrJoin(problems, "; "), ".");
    f.remedy =
        "Check the device on its node (the driver's logs); a pod on a faulty device may fail: "
        "delete it so that its claim is allocated anew.";
    f.evidence["device"] = device;
    f.evidence["conditions"] = problems;
    out->push_back(std::move(f));
  }
}

Finding ClaimBeingDeleted(const std::string& key) {
  Finding f;
  f.code = "ClaimBeingDeleted";
  f.message = absl::StrCat("ResourceClaim \"", key,
                           "\" is being deleted; it will not be "
                           "allocated.");
  f.remedy = "Recreate the pod (a claim from a template is made anew for the new pod).";
  return f;
}

// Profile `w` names DeviceClass `cls` but another object holds the name.
Finding ClassNotGenerated(const profile::ProfilePlan& w, const std::string& cls) {
  Finding f;
  f.code = "ClassNotGenerated";
  f.profile = w.profile.metadata.name;
  f.device_class = cls;
  f.message = absl::StrCat("GpuProfile \"", f.profile, "\" names DeviceClass \"", cls,
                           "\" but does not generate it: ", absl::StrJoin(w.conflicts, "; "));
  f.remedy =
      "Resolve the conflict (rename the profile's deviceClassName or remove "
      "the other object).";
  return f;
}

// Live, a class the operator should have made: it has not (yet).
Finding GeneratedClassMissing(const std::string& cls, const std::string& profile) {
  Finding f;
  f.code = "ClassMissing";
  f.device_class = cls;
  f.profile = profile;
  f.message = absl::StrCat("DeviceClass \"", cls, "\" does not exist: GpuProfile \"", f.profile,
                           "\" generates it, but it has not been created.");
  f.remedy = absl::StrCat(
      "Check that the operator is running (kubectl describe "
      "gpuprofile ",
      f.profile, ").");
  return f;
}

// Every request could be allocated now: the claim waits for the scheduler, not for devices.
Finding NoDraCauseFound(const std::string& key, const nlohmann::ordered_json& free_by_class) {
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
  return f;
}

}  // namespace

size_t Diagnoser::GeneratorOf(const std::string& cls) const {
  size_t generator = plan_.profiles.size();
  auto named = class_profiles_.find(cls);
  if (named != class_profiles_.end()) {
    for (size_t p : named->second) {
      if (plan_.profiles[p].generates_class) generator = p;
    }
  }
  return generator;
}

bool Diagnoser::UngeneratedClassCauses(const std::string& cls, std::vector<Finding>* causes) const {
  auto named = class_profiles_.find(cls);
  if (named != class_profiles_.end()) {
    for (size_t p : named->second) {
      if (!plan_.profiles[p].selectors) {
        causes->push_back(Stalled(p));
      } else {
        causes->push_back(ClassNotGenerated(plan_.profiles[p], cls));
      }
    }
    return false;
  }
  if (!ClassExists(view_, cls) && view_.live) {
    Finding f;
    f.code = "ClassMissing";
    f.device_class = cls;
    f.message = absl::StrCat("DeviceClass \"", cls,
                             "\" does not exist and no GpuProfile "
                             "generates it.");
    f.remedy = "Create the class or a GpuProfile with that deviceClassName.";
    causes->push_back(std::move(f));
    return false;
  }
  // A class this project does not manage: nothing to say about its devices.
  Finding f;
  f.code = "ClassNotManaged";
  f.severity = Severity::kInfo;
  f.device_class = cls;
  f.message = absl::StrCat("DeviceClass \"", cls,
                           "\" is not generated by a GpuProfile: "
                           "explain does not evaluate its selectors.");
  causes->push_back(std::move(f));
  return true;  // unknown: do not blame the other alternatives
}

bool Diagnoser::RequestCauses(const dra::ClaimRequest& r, std::vector<Finding>* causes,
                              nlohmann::ordered_json* free_by_class) const {
  bool feasible = false;
  for (const std::string& cls : r.device_classes) {
    const size_t generator = GeneratorOf(cls);
    if (generator == plan_.profiles.size()) {
      feasible |= UngeneratedClassCauses(cls, causes);
      continue;
    }
    if (view_.live && !ClassExists(view_, cls)) {
      causes->push_back(
          GeneratedClassMissing(cls, plan_.profiles[generator].profile.metadata.name));
      continue;
    }
    const ClassAnalysis a = Analyse(generator);
    (*free_by_class)[cls] = a.free;
    if (std::optional<Finding> twice = OfferedTwiceFinding(generator, a)) {
      causes->push_back(*std::move(twice));
    }
    std::vector<Finding> class_causes = ClassCauses(generator, r.count, r.all, a);
    if (class_causes.empty()) return true;  // this class serves the request: later ones unused
    for (Finding& f : class_causes) causes->push_back(std::move(f));
  }
  return feasible;
}

void Diagnoser::DiagnoseClaim(const dra::ResourceClaim& claim, const std::string& pod_claim,
                              std::vector<Finding>* out) const {
  const std::string key = Key(claim.namespace_name, std::string(claim.name()));
  auto tag = [&](Finding f) {
    f.pod_claim = pod_claim;
    f.resource_claim = key;
    return f;
  };
  if (claim.allocated) {
    out->push_back(tag(ClaimAllocated(claim, key)));
    auto statuses = view_.device_statuses.find(key);
    if (statuses != view_.device_statuses.end()) {
      std::vector<Finding> conditions;
      AddDeviceConditions(key, statuses->second, &conditions);
      for (Finding& f : conditions) out->push_back(tag(std::move(f)));
    }
    return;
  }
  if (claim.deleting) {
    out->push_back(tag(ClaimBeingDeleted(key)));
    return;
  }
  bool blocked_any = false;
  nlohmann::ordered_json free_by_class = nlohmann::ordered_json::object();
  for (const dra::ClaimRequest& r : claim.requests) {
    std::vector<Finding> causes;
    if (RequestCauses(r, &causes, &free_by_class)) {
      // The request can be served: what blocks one of its classes blocks nothing.
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
  if (!blocked_any) out->push_back(tag(NoDraCauseFound(key, free_by_class)));
}

absl::StatusOr<Diagnosis> Diagnoser::ExplainClaim(const std::string& ns,
                                                  const std::string& name) const {
  const dra::ResourceClaim* claim = FindClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("resourceclaim \"", name, "\" not found in namespace \"", ns, "\""));
  }
  Diagnosis d{"ResourceClaim", ns, name, {}, std::nullopt};
  AddDraNotServed(&d.findings);
  DiagnoseClaim(*claim, claim->pod_claim_name, &d.findings);
  RankFindings(&d.findings);
  if (!claim->owner_pod().empty() && !d.findings.empty()) {
    d.findings.front().evidence["ownerPod"] = std::string(claim->owner_pod());
  }
  return d;
}

}  // namespace gpuprofile::explain::internal
