// File: controller/explain/profile_diagnosis.cc
// A GpuProfile's diagnosis: Stalled, not generating its class, the causes its class blocks
// on, missing templates and pending claims, or serving (diagnoser.h).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/explain/diagnoser.h"

namespace gpuprofile::explain::internal {
namespace {

// A finding about GpuProfile `name` and, when not empty, its DeviceClass `cls`.
Finding ProfileFinding(const char* code, Severity severity, const std::string& name,
                       const std::string& cls) {
  Finding f;
  f.code = code;
  f.severity = severity;
  f.profile = name;
  f.device_class = cls;
  return f;
}

// The claims ("namespace/name") not allocated, nor being deleted, with a request that may use
// DeviceClass `cls`.
std::vector<std::string> PendingClaimsOf(const std::vector<dra::ResourceClaim>& claims,
                                         const std::string& cls) {
  std::vector<std::string> pending;
  for (const dra::ResourceClaim& c : claims) {
    if (c.allocated || c.deleting) continue;
    bool uses = false;
    for (const dra::ClaimRequest& r : c.requests) {
      uses |= std::find(r.device_classes.begin(), r.device_classes.end(), cls) !=
              r.device_classes.end();
    }
    if (uses) pending.push_back(Key(c.namespace_name, std::string(c.name())));
  }
  return pending;
}

// The profile's template is missing in namespaces it targets (`missing`, of `targeted`).
Finding TemplatesMissing(const std::string& name, const std::string& template_name,
                         const std::vector<std::string>& missing, size_t targeted) {
  Finding f = ProfileFinding("TemplateMissing", Severity::kCause, name, "");
  f.message = absl::StrCat("The profile's template \"", template_name, "\" is missing in ",
                           missing.size(), " of the ", targeted, " namespaces it targets.");
  f.remedy = absl::StrCat(
      "Check that the operator runs and the profile's Conflict "
      "condition (kubectl describe gpuprofile ",
      name, ").");
  f.evidence["namespaces"] = missing;
  return f;
}

// Claims not allocated yet that may use the profile's class: each explained on its own.
Finding PendingClaims(const std::string& name, const std::string& cls,
                      const std::vector<std::string>& pending) {
  Finding f = ProfileFinding("PendingClaims", Severity::kInfo, name, cls);
  f.message =
      absl::StrCat(pending.size(), pending.size() == 1 ? " claim" : " claims",
                   " that may use DeviceClass \"", cls, "\" ", pending.size() == 1 ? "is" : "are",
                   " not allocated (explain resourceclaim/NAME -n NS says why "
                   "for each).");
  f.evidence["claims"] = Capped(pending);
  f.evidence["claimCount"] = pending.size();
  return f;
}

// No cause: the profile `w` serves, and its class finds `a`: the whole account of its devices,
// with each state's evidence.
Finding ProfileServing(const profile::ProfilePlan& w, const ClassAnalysis& a) {
  const std::string& name = w.profile.metadata.name;
  Finding f =
      ProfileFinding("ProfileServing", Severity::kOk, name, w.profile.spec.device_class_name);
  f.message = absl::StrCat("GpuProfile \"", name, "\" is serving: ", AccountText(a), ".",
                           OverlappingNote(a));
  f.evidence["matchedDevices"] = a.matched;
  f.evidence["freeDevices"] = a.free;
  f.evidence["allocatedDevices"] = a.allocated;
  f.evidence["taintedDevices"] = a.tainted;
  f.evidence["deviceStates"] = DeviceStates(a);
  f.evidence["maxFreeOnOneNode"] = a.max_free_on_node;
  f.evidence["templateNamespaces"] = w.template_namespaces;
  AddStateEvidence(a, &f);
  return f;
}

}  // namespace

absl::StatusOr<Diagnosis> Diagnoser::ExplainProfile(const std::string& name) const {
  size_t p = plan_.profiles.size();
  for (size_t i = 0; i < plan_.profiles.size(); ++i) {
    if (plan_.profiles[i].profile.metadata.name == name) p = i;
  }
  if (p == plan_.profiles.size()) {
    return absl::NotFoundError(absl::StrCat("gpuprofile \"", name, "\" not found"));
  }
  Diagnosis d{"GpuProfile", "", name, {}, std::nullopt};
  std::vector<Finding>& out = d.findings;
  AddDraNotServed(&out);
  const profile::ProfilePlan& w = plan_.profiles[p];
  const std::string& cls = w.profile.spec.device_class_name;
  if (!w.selectors) {
    out.push_back(Stalled(p));
    RankFindings(&out);
    return d;
  }
  if (!w.generates_class) {
    Finding f = ProfileFinding("ClassNotGenerated", Severity::kCause, name, cls);
    f.message = absl::StrCat("GpuProfile \"", name, "\" does not generate DeviceClass \"", cls,
                             "\": ", absl::StrJoin(w.conflicts, "; "));
    f.remedy = "Resolve the conflict (rename spec.deviceClassName or remove the other object).";
    out.push_back(std::move(f));
    RankFindings(&out);
    return d;
  }
  const ClassAnalysis a = Analyse(p);
  const std::optional<int64_t> count = w.profile.spec.EffectiveCount();
  for (Finding& f : ClassCauses(p, count.value_or(1), !count.has_value(), a)) {
    out.push_back(std::move(f));
  }
  if (std::optional<Finding> twice = OfferedTwiceFinding(p, a)) out.push_back(*std::move(twice));
  if (view_.nodes_known) d.node_offers = OffersOf(p, a);
  const std::string& template_name = w.profile.spec.claim_template.name;
  std::vector<std::string> missing;
  for (const std::string& ns : w.namespaces) {
    if (!TemplateExists(ns, template_name)) missing.push_back(ns);
  }
  if (!missing.empty()) {
    out.push_back(TemplatesMissing(name, template_name, missing, w.namespaces.size()));
  }
  const std::vector<std::string> pending = PendingClaimsOf(view_.claims, cls);
  if (!pending.empty()) out.push_back(PendingClaims(name, cls, pending));
  if (!d.HasCause()) out.push_back(ProfileServing(w, a));
  RankFindings(&out);
  return d;
}

}  // namespace gpuprofile::explain::internal
