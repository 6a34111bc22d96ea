// File: controller/explain/diagnoser.h
// Internal to controller/explain; diagnosis.h is the interface. The Diagnoser computes once what
// every subject's diagnosis reads (the profiles' plan and desired state, the devices' allocation,
// the claims holding each device) and diagnoses each subject. Its definitions are split by
// subject, one purpose per file:
//   diagnosis.cc          the Explainer, the ranking of findings, the findings any subject may
//                         report (DraNotServed, ProfileStalled) and the shared helpers
//   class_diagnosis.cc    what a profile's class finds on the cluster and the causes that keep a
//                         request of it from being allocated
//   claim_diagnosis.cc    a ResourceClaim
//   pod_diagnosis.cc      a Pod
//   profile_diagnosis.cc  a GpuProfile
//   node_offers.cc        the migration view: who offers each node's GPUs, and what that means
//                         for a subject (NodesOfferedTwice, DevicePluginRequest)
//   diagnosis_format.cc   the JSON and text encodings
// Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "controller/dra/resource_claim.h"
#include "controller/explain/diagnosis.h"
#include "controller/profile/allocatable.h"
#include "controller/profile/claim_allocations.h"
#include "controller/profile/engine.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::explain::internal {

// Ranks causes (most likely first), then info, then OK; ties keep the order found. The same
// finding reached twice is kept once (see diagnosis.cc).
void RankFindings(std::vector<Finding>* findings);

// "namespace/name".
std::string Key(const std::string& ns, const std::string& name);
// The first kMaxListedClaims of `names`.
nlohmann::ordered_json Capped(const std::vector<std::string>& names);

// What one profile's class finds on the cluster now: every matched device in exactly one state
// (status.allocation.deviceStates, the allocation model's outcome with the cluster's claims), and
// the evidence behind each state. (The structs are outside the Diagnoser so that the files'
// local helpers can take them.)
struct ClassAnalysis {
  int64_t matched = 0;
  // The states, adding up to `matched`.
  int64_t free = 0;             // schedulable at once
  int64_t overlapping = 0;      // free on its own, not together with the free ones
  int64_t allocated = 0;        // a claim (any class) holds it
  int64_t blocked = 0;          // blockedByCounters: allocated devices use its counters
  int64_t tainted = 0;          // an untolerated NoSchedule/NoExecute taint
  int64_t incomplete_pool = 0;  // its pool is incomplete
  int64_t unavailable = 0;      // a counter it draws is missing or too small
  int64_t max_free_on_node = 0;
  std::string max_free_node;
  int64_t nodeless_free = 0;         // free devices not tied to one node (any node may get them)
  bool shared_allocated = false;     // an allocated device allows multiple allocations
  std::vector<std::string> holders;  // claims holding matched devices, sorted, distinct
  std::vector<std::string> taints;   // untolerated taints of matched devices, distinct
  std::vector<std::string> sample_tainted;  // "node/device" of some tainted devices
  // "<taint> is a health report: <words>" for the untolerated taints drivers set to report
  // health (dra/device_health.h), distinct.
  std::vector<std::string> health_reports;
  // Per blocked device (the first kMaxListedClaims): the device, the counter sets allocated
  // devices use and the claims holding those devices.
  std::vector<std::string> blocked_devices;
  std::vector<std::string> blocking_claims;      // those claims, sorted, distinct
  std::vector<std::string> overlapping_devices;  // "node/device", the first kMaxListedClaims
  std::vector<std::string> incomplete_pools;     // their names, sorted, distinct
  // Per unavailable device (the first kMaxListedClaims): the counter that is missing or too
  // small.
  std::vector<std::string> missing_counters;
  std::vector<std::string> nodes;  // nodes with matched devices, sorted, distinct
};
// "6 devices match: 0 free, 3 allocated, 2 blocked by counters, 1 tainted": the matched devices,
// the free ones and each other state that has devices (class_diagnosis.cc).
std::string AccountText(const ClassAnalysis& a);
// " The N overlapping devices are free, but share counters ..." when some are; else empty.
std::string OverlappingNote(const ClassAnalysis& a);
// The states as status.allocation.deviceStates writes them (all seven keys).
nlohmann::ordered_json DeviceStates(const ClassAnalysis& a);
// Adds to f->evidence the evidence of each state that has devices: holders, blocked devices and
// the claims blocking them, overlapping devices, taints and health reports, incomplete pools and
// missing counters.
void AddStateEvidence(const ClassAnalysis& a, Finding* f);

// Devices the profile's selector matches without its capacity requests, and how many of
// them allow multiple allocations.
struct RelaxedMatch {
  int64_t matched = 0;
  int64_t shareable = 0;
};

class Diagnoser {
 public:
  // Keeps a reference to `view`, which must outlive the diagnoser.
  explicit Diagnoser(const ClusterView& view);

  absl::StatusOr<Diagnosis> ExplainPod(const std::string& namespace_name,
                                       const std::string& name) const;
  absl::StatusOr<Diagnosis> ExplainClaim(const std::string& namespace_name,
                                         const std::string& name) const;
  absl::StatusOr<Diagnosis> ExplainProfile(const std::string& name) const;

  const profile::DesiredState& state() const { return state_; }

 private:
  // diagnosis.cc
  const dra::ResourceClaim* FindClaim(const std::string& ns, const std::string& name) const;
  bool TemplateExists(const std::string& ns, const std::string& name) const;
  void AddDraNotServed(std::vector<Finding>* out) const;
  Finding Stalled(size_t p) const;

  // class_diagnosis.cc
  ClassAnalysis Analyse(size_t p) const;
  // Fills counter_users_ (called once, by the constructor).
  void IndexCounterUsers();
  // Why device `d`, blocked by counters, is: the counter sets of its pool that allocated devices
  // use, those devices and the claims holding them (added to *claims).
  std::string BlockedEvidence(size_t d, std::set<std::string>* claims) const;
  RelaxedMatch MatchWithoutCapacity(size_t p) const;
  // Causes that keep a request of `count` devices (all: allocationMode All) of profile `p`'s
  // class from being allocated; empty when the class could satisfy it now.
  std::vector<Finding> ClassCauses(size_t p, int64_t count, bool all, const ClassAnalysis& a) const;
  // NoMatchingDevice: profile `p`'s class, which finds `a`, selects no device.
  Finding NoMatchingDevice(size_t p, const ClassAnalysis& a) const;

  // claim_diagnosis.cc: findings for one claim (not found, allocated, or each blocked request's
  // causes).
  void DiagnoseClaim(const dra::ResourceClaim& claim, const std::string& pod_claim,
                     std::vector<Finding>* out) const;
  // Appends to *causes what the classes of request `r` find, and the free devices of each class
  // to *free_by_class. Returns whether the request could be allocated now (or explain cannot
  // tell: a class it does not manage).
  bool RequestCauses(const dra::ClaimRequest& r, std::vector<Finding>* causes,
                     nlohmann::ordered_json* free_by_class) const;
  // The profile (index into plan_.profiles) that generates DeviceClass `cls`;
  // plan_.profiles.size() when none does.
  size_t GeneratorOf(const std::string& cls) const;
  // Appends to *causes why no profile generates `cls`. Returns true when explain cannot judge
  // the class (ClassNotManaged).
  bool UngeneratedClassCauses(const std::string& cls, std::vector<Finding>* causes) const;

  // pod_diagnosis.cc
  std::vector<Finding> TemplateMissing(const std::string& ns, const std::string& name) const;
  // Findings for the pod's spec.resourceClaims entry `ref`: its claim's, or why it has none.
  void DiagnosePodClaim(const Pod& pod, const PodClaimRef& ref, std::vector<Finding>* out) const;
  // The claim made from template entry `ref` for `pod`: the one its claim status (`status`, may
  // be null) names, else one the pod owns for the entry (made, but not yet in the pod's
  // status); nullptr when none is found.
  const dra::ResourceClaim* ClaimMadeFor(const Pod& pod, const PodClaimRef& ref,
                                         const PodClaimStatus* status) const;

  // node_offers.cc
  // Whether `node`, which has DRA devices, also offers device-plugin GPUs: it is in a node
  // group's offeredTwiceNodes as the engine wrote them; past the names a group's status keeps
  // (api::kMaxNodeNamesInStatus), by the Node's allocatable, the engine's own rule.
  bool OfferedTwice(const std::string& node) const;
  // The per-node view of profile `p`, whose class finds `a`.
  NodeOffers OffersOf(size_t p, const ClassAnalysis& a) const;
  // NodesOfferedTwice (Info) when some of `a`'s nodes offer their GPUs through both.
  std::optional<Finding> OfferedTwiceFinding(size_t p, const ClassAnalysis& a) const;
  // For a pod that asks the device plugin for GPUs while DRA offers devices:
  // DevicePluginNotOffered (Cause) when the pod is not scheduled and no node offers
  // device-plugin GPUs, else DevicePluginRequest (Info). Empty when the pod asks for none, DRA
  // offers no device, or a profile's class serves each resource it asks for
  // (status.extendedResourceName).
  std::vector<Finding> DevicePluginFindings(const Pod& pod) const;

  const ClusterView& view_;
  profile::SpecPlan plan_;
  profile::DesiredState state_;
  std::vector<const dra::ResourceClaim*> claim_ptrs_;
  profile::DeviceClaims held_;
  profile::AllocationModel model_;
  // Per inventory device, the claims ("namespace/name") holding it.
  std::vector<std::vector<std::string>> holders_;
  // Per counter set of a pool (driver, pool and set joined by '\x1f'), the allocated devices
  // (inventory indices) that draw from it.
  std::map<std::string, std::vector<size_t>> counter_users_;
  // Class name -> the profiles (indices into plan_.profiles) that name it; template name -> the
  // profiles that name it.
  std::map<std::string, std::vector<size_t>> class_profiles_;
  std::map<std::string, std::vector<size_t>> template_profiles_;
  // The migration view (node_offers.cc): every node group's offeredTwiceNodes, whether none of
  // those lists was cut short, and the Nodes offering device-plugin GPUs.
  absl::flat_hash_set<std::string> offered_twice_;
  bool offered_twice_complete_ = true;
  std::set<std::string> plugin_nodes_;
};

}  // namespace gpuprofile::explain::internal
