// File: controller/explain/diagnosis.cc
// The Explainer, the ranking of findings, the findings any subject may report and what the
// Diagnoser computes once (diagnoser.h).
#include "controller/explain/diagnosis.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/explain/diagnoser.h"

namespace gpuprofile::explain {
namespace internal {
namespace {

// Rank of each cause: lower is more likely to be what keeps the pod Pending (the earlier a
// cause sits in the chain pod -> template -> claim -> class -> devices, the more it explains).
int Rank(const std::string& code) {
  static const std::map<std::string, int>* ranks = new std::map<std::string, int>{
      {"DraNotServed", 0},
      {"ProfileStalled", 1},
      {"TemplateMissing", 2},
      {"ClaimNotFound", 2},
      {"DevicePluginNotOffered", 2},
      {"ClaimNotCreated", 3},
      {"ClassMissing", 3},
      {"ClassNotGenerated", 3},
      {"NoMatchingDevice", 4},
      {"CapacityNotAdmitted", 5},
      {"AllDevicesAllocated", 6},
      {"DevicesTainted", 6},
      // The allocator checks a device's taints before its counters.
      {"DevicesBlockedByCounters", 7},
      {"DevicesUnavailable", 8},
      {"NotEnoughDevicesOnOneNode", 9},
      {"ClaimBeingDeleted", 10},
  };
  auto it = ranks->find(code);
  return it == ranks->end() ? 11 : it->second;
}

// Rank of each Info finding: what the pod asks the device plugin for comes first (it says why a
// pod with nothing pending in DRA waits), the migration view's warning last; the rest as found.
int InfoRank(const std::string& code) {
  if (code == "DevicePluginRequest") return 0;
  if (code == "NodesOfferedTwice") return 2;
  return 1;
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

std::string DeviceKey(absl::string_view driver, absl::string_view pool, absl::string_view device) {
  return absl::StrCat(driver, "\x1f", pool, "\x1f", device);
}

}  // namespace

// Ranks causes, then info, then OK; ties keep the order found. The same cause reached twice
// (e.g. one profile Stalled behind two claims) is kept once, and so is a profile's
// NodesOfferedTwice.
void RankFindings(std::vector<Finding>* findings) {
  std::vector<Finding> unique;
  std::set<std::string> seen;
  for (Finding& f : *findings) {
    std::string key = absl::StrCat(f.code, "\x1f", f.pod_claim, "\x1f", f.resource_claim, "\x1f",
                                   f.device_class, "\x1f", f.profile);
    if (f.code == "ProfileStalled" || f.code == "DraNotServed" || f.code == "NodesOfferedTwice") {
      key = absl::StrCat(f.code, "\x1f", f.profile);  // one per profile, whoever reached it
    }
    if (f.code == "ClaimDeviceCondition" || f.code == "KubeletDeviceHealth") {
      absl::StrAppend(&key, "\x1f", f.message);  // one per device
    }
    if (!seen.insert(key).second) continue;
    unique.push_back(std::move(f));
  }
  std::stable_sort(unique.begin(), unique.end(), [](const Finding& a, const Finding& b) {
    const int sa = SeverityRank(a.severity), sb = SeverityRank(b.severity);
    if (sa != sb) return sa < sb;
    if (a.severity == Severity::kCause) return Rank(a.code) < Rank(b.code);
    return a.severity == Severity::kInfo && InfoRank(a.code) < InfoRank(b.code);
  });
  *findings = std::move(unique);
}

std::string Key(const std::string& ns, const std::string& name) {
  return absl::StrCat(ns, "/", name);
}

nlohmann::ordered_json Capped(const std::vector<std::string>& names) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < names.size() && i < kMaxListedClaims; ++i) out.push_back(names[i]);
  return out;
}

Diagnoser::Diagnoser(const ClusterView& view)
    : view_(view),
      plan_(profile::PlanProfiles(view.engine)),
      claim_ptrs_([&view] {
        std::vector<const dra::ResourceClaim*> out;
        for (const dra::ResourceClaim& c : view.claims) out.push_back(&c);
        return out;
      }()),
      held_(profile::IndexAllocatedDevices(view.inventory, claim_ptrs_)),
      model_(view.inventory, held_.allocated) {
  // With the Nodes, the node groups carry the migration view as `run` writes it.
  const profile::ClaimLedger ledger(claim_ptrs_);
  state_ = profile::AssembleDesiredState(plan_, view.inventory, nullptr, &ledger, view.nodes);
  for (const meta::NodeGpus& node : view.nodes) {
    if (node.device_plugin_devices > 0) plugin_nodes_.insert(node.name);
  }
  for (const api::GpuNodeGroup& group : state_.node_groups) {
    const api::GpuNodeGroupStatus& status = group.status;
    offered_twice_.insert(status.offered_twice.begin(), status.offered_twice.end());
    if (status.offered_by == api::kOfferedByBoth &&
        status.device_plugin_nodes > static_cast<int64_t>(status.offered_twice.size())) {
      offered_twice_complete_ = false;
    }
  }
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
      const std::string key = Key(c.namespace_name, std::string(c.name()));
      if (std::find(h.begin(), h.end(), key) == h.end()) h.push_back(key);
    }
  }
  IndexCounterUsers();
  for (size_t p = 0; p < plan_.profiles.size(); ++p) {
    const api::GpuProfileSpec& spec = plan_.profiles[p].profile.spec;
    class_profiles_[spec.device_class_name].push_back(p);
    template_profiles_[spec.claim_template.name].push_back(p);
  }
}

const dra::ResourceClaim* Diagnoser::FindClaim(const std::string& ns,
                                               const std::string& name) const {
  for (const dra::ResourceClaim& c : view_.claims) {
    if (c.namespace_name == ns && c.name() == name) return &c;
  }
  return nullptr;
}

bool Diagnoser::TemplateExists(const std::string& ns, const std::string& name) const {
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

void Diagnoser::AddDraNotServed(std::vector<Finding>* out) const {
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

Finding Diagnoser::Stalled(size_t p) const {
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

}  // namespace internal

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

absl::Status AddClaimObject(const nlohmann::json& obj, ClusterView* view) {
  absl::StatusOr<dra::ResourceClaim> claim = dra::DecodeResourceClaim(obj);
  if (!claim.ok()) return claim.status();
  absl::StatusOr<std::vector<dra::AllocatedDeviceStatus>> statuses =
      dra::DecodeClaimDeviceStatuses(obj);
  if (!statuses.ok()) return statuses.status();
  if (claim->namespace_name.empty()) claim->namespace_name = "default";
  if (!statuses->empty()) {
    view->device_statuses[internal::Key(claim->namespace_name, std::string(claim->name()))] =
        *std::move(statuses);
  }
  view->claims.push_back(*std::move(claim));
  return absl::OkStatus();
}

bool Diagnosis::HasCause() const {
  for (const Finding& f : findings) {
    if (f.severity == Severity::kCause) return true;
  }
  return false;
}

Explainer::Explainer(const ClusterView& view)
    : diagnoser_(std::make_unique<const internal::Diagnoser>(view)) {}

Explainer::~Explainer() = default;

absl::StatusOr<Diagnosis> Explainer::ExplainPod(const std::string& namespace_name,
                                                const std::string& name) const {
  return diagnoser_->ExplainPod(namespace_name, name);
}

absl::StatusOr<Diagnosis> Explainer::ExplainClaim(const std::string& namespace_name,
                                                  const std::string& name) const {
  return diagnoser_->ExplainClaim(namespace_name, name);
}

absl::StatusOr<Diagnosis> Explainer::ExplainProfile(const std::string& name) const {
  return diagnoser_->ExplainProfile(name);
}

const profile::DesiredState& Explainer::state() const { return diagnoser_->state(); }

}  // namespace gpuprofile::explain
