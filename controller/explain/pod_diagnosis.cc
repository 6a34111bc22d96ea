// File: controller/explain/pod_diagnosis.cc
// A Pod's diagnosis: each of its spec.resourceClaims (a claim by name, or one made from a
// template that may be missing), then what is not DRA's (diagnoser.h).
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/explain/diagnoser.h"

namespace gpuprofile::explain::internal {
namespace {

std::string OperatorName(meta::LabelSelectorRequirement::Operator op) {
  switch (op) {
    case meta::LabelSelectorRequirement::Operator::kIn:
      return "In";
    case meta::LabelSelectorRequirement::Operator::kNotIn:
      return "NotIn";
    case meta::LabelSelectorRequirement::Operator::kExists:
      return "Exists";
    case meta::LabelSelectorRequirement::Operator::kDoesNotExist:
      return "DoesNotExist";
  }
  return "?";
}

// "gpu-profiles=enabled, tier In (a, b)".
std::string SelectorText(const meta::LabelSelector& s) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : s.match_labels) parts.push_back(absl::StrCat(k, "=", v));
  for (const meta::LabelSelectorRequirement& r : s.match_expressions) {
    std::string part = absl::StrCat(r.key, " ", OperatorName(r.op));
    if (!r.values.empty()) absl::StrAppend(&part, " (", absl::StrJoin(r.values, ", "), ")");
    parts.push_back(std::move(part));
  }
  return parts.empty() ? "{} (every namespace)" : absl::StrJoin(parts, ", ");
}

// Profile `w` targets namespace `ns`, yet its template is not there: why, and what to do.
std::string TargetedRemedy(const profile::ProfilePlan& w, const std::string& ns) {
  const std::string& profile = w.profile.metadata.name;
  if (std::find(w.template_namespaces.begin(), w.template_namespaces.end(), ns) ==
      w.template_namespaces.end()) {
    return absl::StrCat("GpuProfile \"", profile,
                        "\" targets the namespace but another object holds the "
                        "name: ",
                        absl::StrJoin(w.conflicts, "; "));
  }
  return absl::StrCat(
      "GpuProfile \"", profile,
      "\" targets the namespace, but the template has not been "
      "created yet: check that the operator is running (kubectl describe gpuprofile ",
      profile, ").");
}

// Profile `p` does not target namespace `ns`: how to make it (labels its namespaceSelector
// matches, or the namespace in its list).
std::string UntargetedRemedy(const api::GpuProfile& p, const std::string& ns) {
  const api::ClaimTemplateSpec& t = p.spec.claim_template;
  std::string how;
  if (t.namespace_selector && !t.namespace_selector->match_labels.empty() &&
      t.namespace_selector->match_expressions.empty()) {
    // Labels alone: the one command that makes the namespace match.
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
  return absl::StrCat("GpuProfile \"", p.metadata.name, "\" would put it there: ", how, "add \"",
                      ns, "\" to its spec.claimTemplate.namespaces.");
}

Finding ClaimNotFound(const std::string& ns, const PodClaimRef& ref) {
  Finding f;
  f.code = "ClaimNotFound";
  f.pod_claim = ref.name;
  f.resource_claim = Key(ns, ref.claim_name);
  f.message = absl::StrCat("The pod names ResourceClaim \"", ref.claim_name,
                           "\", which does not exist in namespace \"", ns, "\".");
  f.remedy = "Create the claim, or use a template (resourceClaimTemplateName).";
  return f;
}

Finding ClaimNotCreated(const std::string& ns, const PodClaimRef& ref) {
  Finding f;
  f.code = "ClaimNotCreated";
  f.pod_claim = ref.name;
  f.message = absl::StrCat("The template \"", ref.template_name, "\" exists in namespace \"", ns,
                           "\", but no ResourceClaim has been made from it for this pod yet.");
  f.remedy =
      "The resourceclaim controller (kube-controller-manager) makes it: check "
      "the pod's events and that the controller runs with DRA enabled.";
  f.evidence["template"] = ref.template_name;
  return f;
}

Finding NoResourceClaims() {
  Finding f;
  f.code = "NoResourceClaims";
  f.severity = Severity::kOk;
  f.message = "The pod names no ResourceClaims: DRA is not what keeps it waiting.";
  return f;
}

// A pod that is not scheduled, though nothing DRA's blocks it and no claim waits for the
// scheduler (NoDraCauseFound says so already): PodPendingNotDra points outside DRA.
void AddPendingNotDra(const Pod& pod, Diagnosis* d) {
  const bool unscheduled =
      pod.node_name.empty() && (!pod.scheduled || pod.scheduled->status != "True");
  if (d->HasCause() || !unscheduled) return;
  std::vector<Finding>& out = d->findings;
  bool any_pending = false;
  for (const Finding& f : out) any_pending |= f.code == "NoDraCauseFound";
  if (any_pending) return;
  Finding f;
  f.code = "PodPendingNotDra";
  f.severity = Severity::kInfo;
  f.message =
      "Every claim of the pod is allocated or needs nothing, yet the pod is not "
      "scheduled: it is Pending for a reason outside DRA.";
  f.remedy = "Read the pod's events (kubectl describe pod) for the scheduler's reason.";
  out.insert(out.begin(), std::move(f));
  RankFindings(&out);  // DevicePluginRequest, when there is one, says more: it goes first
}

// The ResourceClaim ("namespace/name") of the pod's spec.resourceClaims entry `entry`: the one it
// names, or the one made for it from a template; empty when not known.
std::string ClaimOfEntry(const Pod& pod, const std::string& entry) {
  for (const PodClaimRef& ref : pod.claims) {
    if (ref.name != entry) continue;
    if (!ref.claim_name.empty()) return Key(pod.namespace_name, ref.claim_name);
    const PodClaimStatus* status = pod.StatusOf(entry);
    if (status != nullptr && status->claim_name) {
      return Key(pod.namespace_name, *status->claim_name);
    }
  }
  return "";
}

// What a ResourceHealth value means.
std::string HealthWords(const std::string& health) {
  if (health == "Unhealthy") return "Unhealthy (the device reports a fault)";
  if (health == "Unknown") {
    return "Unknown (its health cannot be determined: the driver or device plugin does not "
           "report it now)";
  }
  return health;
}

// KubeletDeviceHealth (Info) for each device the kubelet reports as not Healthy in the pod's
// allocatedResourcesStatus: one per device and resource, naming its containers.
std::vector<Finding> KubeletDeviceHealth(const Pod& pod) {
  std::vector<Finding> out;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::string>> seen;
  std::vector<const PodDeviceHealth*> order;
  for (const PodDeviceHealth& h : pod.device_health) {
    if (h.health.empty() || h.health == "Healthy") continue;
    auto [it, inserted] = seen.try_emplace({h.resource, h.resource_id, h.health});
    if (inserted) order.push_back(&h);
    it->second.push_back(h.container);
  }
  for (const PodDeviceHealth* h : order) {
    const std::vector<std::string>& containers = seen[{h->resource, h->resource_id, h->health}];
    Finding f;
    f.code = "KubeletDeviceHealth";
    f.severity = Severity::kInfo;
    f.pod_claim = h->pod_claim;
    if (!h->pod_claim.empty()) f.resource_claim = ClaimOfEntry(pod, h->pod_claim);
    f.message = absl::StrCat("The kubelet reports device ", h->resource_id, " (", h->resource,
                             ") of container", containers.size() == 1 ? " " : "s ",
                             absl::StrJoin(containers, ", "), " as ", HealthWords(h->health),
                             h->message.empty() ? "" : absl::StrCat(": ", h->message), ".");
    f.remedy =
        "Check the device on the pod's node; a pod on a faulty device may fail or hang: delete "
        "it so that it gets a healthy device.";
    f.evidence["resource"] = h->resource;
    f.evidence["resourceID"] = h->resource_id;
    f.evidence["health"] = h->health;
    f.evidence["containers"] = containers;
    if (!h->request.empty()) f.evidence["request"] = h->request;
    out.push_back(std::move(f));
  }
  return out;
}

// The scheduler's own word (the PodScheduled condition), on the first finding.
void AddSchedulerEvidence(const Pod& pod, std::vector<Finding>* out) {
  if (!pod.scheduled || out->empty()) return;
  nlohmann::ordered_json& e = out->front().evidence;
  e["podScheduled"] = pod.scheduled->status;
  if (!pod.scheduled->reason.empty()) e["schedulerReason"] = pod.scheduled->reason;
  if (!pod.scheduled->message.empty()) e["schedulerMessage"] = pod.scheduled->message;
}

}  // namespace

std::vector<Finding> Diagnoser::TemplateMissing(const std::string& ns,
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
      remedies.push_back(TargetedRemedy(w, ns));
      continue;
    }
    if (f.profile.empty()) f.profile = profile;
    remedies.push_back(UntargetedRemedy(w.profile, ns));
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

const dra::ResourceClaim* Diagnoser::ClaimMadeFor(const Pod& pod, const PodClaimRef& ref,
                                                  const PodClaimStatus* status) const {
  const dra::ResourceClaim* claim =
      status != nullptr ? FindClaim(pod.namespace_name, *status->claim_name) : nullptr;
  if (claim != nullptr) return claim;
  for (const dra::ResourceClaim& c : view_.claims) {
    if (c.namespace_name == pod.namespace_name && c.owner_pod() == pod.name &&
        c.pod_claim_name == ref.name) {
      claim = &c;
    }
  }
  return claim;
}

void Diagnoser::DiagnosePodClaim(const Pod& pod, const PodClaimRef& ref,
                                 std::vector<Finding>* out) const {
  const std::string& ns = pod.namespace_name;
  if (!ref.claim_name.empty()) {
    const dra::ResourceClaim* claim = FindClaim(ns, ref.claim_name);
    if (claim == nullptr) {
      out->push_back(ClaimNotFound(ns, ref));
    } else {
      DiagnoseClaim(*claim, ref.name, out);
    }
    return;
  }
  const PodClaimStatus* status = pod.StatusOf(ref.name);
  if (status != nullptr && !status->claim_name) return;  // no claim needed
  if (const dra::ResourceClaim* claim = ClaimMadeFor(pod, ref, status)) {
    DiagnoseClaim(*claim, ref.name, out);
  } else if (!TemplateExists(ns, ref.template_name)) {
    for (Finding& f : TemplateMissing(ns, ref.template_name)) {
      f.pod_claim = ref.name;
      out->push_back(std::move(f));
    }
  } else {
    out->push_back(ClaimNotCreated(ns, ref));
  }
}

absl::StatusOr<Diagnosis> Diagnoser::ExplainPod(const std::string& ns,
                                                const std::string& name) const {
  const Pod* pod = nullptr;
  for (const Pod& p : view_.pods) {
    if (p.namespace_name == ns && p.name == name) pod = &p;
  }
  if (pod == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("pod \"", name, "\" not found in namespace \"", ns, "\""));
  }
  Diagnosis d{"Pod", ns, name, {}, std::nullopt};
  std::vector<Finding>& out = d.findings;
  AddDraNotServed(&out);
  for (const PodClaimRef& ref : pod->claims) DiagnosePodClaim(*pod, ref, &out);
  for (Finding& f : DevicePluginFindings(*pod)) out.push_back(std::move(f));
  for (Finding& f : KubeletDeviceHealth(*pod)) out.push_back(std::move(f));
  if (pod->claims.empty()) out.push_back(NoResourceClaims());
  RankFindings(&out);
  AddPendingNotDra(*pod, &d);
  AddSchedulerEvidence(*pod, &out);
  return d;
}

}  // namespace gpuprofile::explain::internal
