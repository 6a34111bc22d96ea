// File: controller/explain/diagnosis.h
// "Why is my pod Pending": given a pod, a ResourceClaim or a GpuProfile and a view of the
// cluster (the objects `render` reads plus pods and claims), the findings that explain why the
// subject's claims are not allocated, most likely cause first, each with a stable code, a
// sentence in plain words, a remedy where there is one and the evidence (docs/design.md,
// "explain"). `gpu-profile-controller explain` prints them (cmd/explain_command.h).
//
// The profiles' outcome is the engine's own (profile/engine.h: the same desired state `run`
// writes and `render` prints), and the devices' state the allocation model's
// (profile/allocatable.h with the claims' allocations), so what `explain` says agrees with the
// profiles' status; who offers each node's GPUs (the migration view) is the engine's node
// groups' offeredBy and offeredTwiceNodes, so `explain` agrees with `kubectl get gpunodegroups`.
// Causes, in the order they are ranked:
//   DraNotServed, ProfileStalled, TemplateMissing, ClaimNotFound, DevicePluginNotOffered,
//   ClaimNotCreated, ClassMissing, ClassNotGenerated, NoMatchingDevice, CapacityNotAdmitted,
//   AllDevicesAllocated, DevicesTainted, DevicesBlockedByCounters, DevicesUnavailable,
//   NotEnoughDevicesOnOneNode, ClaimBeingDeleted.
// Every matched device of a class is in one state (free, overlapping, allocated,
// blockedByCounters, tainted, incompletePool, unavailable: status.allocation.deviceStates); when
// none is free, each other state with devices is a cause with its evidence, and every class
// finding carries the whole account.
// Not causes: ClaimAllocated, ProfileServing, NoResourceClaims (OK); in the order they are
// ranked, DevicePluginRequest, then PodPendingNotDra, NoDraCauseFound, ClassNotManaged,
// PendingClaims, ClaimDeviceCondition (a driver's condition on an allocated device, from the
// claim's status.devices), KubeletDeviceHealth (the kubelet's Unhealthy or Unknown device health,
// from the pod's allocatedResourcesStatus) (as found), then NodesOfferedTwice (Info).
// A request with several classes (firstAvailable) is blocked only when every class is; it then
// reports the causes of each class. The count of a firstAvailable request is its first
// subrequest's (the compact claim keeps no more).
// Pure: no I/O, no clock. Thread-compatible; an Explainer may be used from one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/explain/pod.h"
#include "controller/meta/node.h"
#include "controller/profile/engine.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::explain {

// Everything `explain` reads, live or from files.
struct ClusterView {
  // Profiles, namespaces, the DeviceClasses and ResourceClaimTemplates that exist, the release
  // and its gates, as for the engine.
  profile::EngineInput engine;
  dra::Inventory inventory;
  std::vector<dra::ResourceClaim> claims;  // every claim of the cluster (any may hold devices)
  // status.devices of the claims that have any, by "namespace/name": what the drivers report
  // about the devices they prepared (the compact claim keeps none of it).
  std::map<std::string, std::vector<dra::AllocatedDeviceStatus>> device_statuses;
  std::vector<Pod> pods;
  // Whether the cluster serves resource.k8s.io and, when not, why (discovery's answer live; the
  // DynamicResourceAllocation gate of the release offline).
  bool dra_served = true;
  std::string dra_not_served_reason;
  // Live: engine.existing_templates / existing_classes are every one the cluster has, and a
  // template or class the operator would generate but that does not exist is missing. Offline
  // (files): the operator's desired state counts as existing (the preview after it reconciled).
  bool live = false;
  // The Nodes' device-plugin GPUs (meta/node.h), for the migration view. nodes_known is false
  // when the Nodes were not read (files without Node objects, or listing them was forbidden):
  // explain then says nothing about who offers the GPUs.
  std::vector<meta::NodeGpus> nodes;
  bool nodes_known = false;
};

// Decodes ResourceClaim object `obj` into `view`: the claim, and its status.devices into
// device_statuses. A claim without a namespace is read as in "default". Both the live and the
// offline reader use it, so that they see the same. InvalidArgument naming the claim and the
// field when it does not decode.
absl::Status AddClaimObject(const nlohmann::json& obj, ClusterView* view);

enum class Severity { kCause, kInfo, kOk };
// "Cause", "Info", "OK".
const char* SeverityName(Severity severity);

struct Finding {
  std::string code;  // stable, CamelCase (see above)
  Severity severity = Severity::kCause;
  // What the finding is about; empty when it does not apply.
  std::string pod_claim;       // the pod's spec.resourceClaims[] entry
  std::string resource_claim;  // "namespace/name"
  std::string device_class;
  std::string profile;
  std::string message;  // one or more sentences in plain words
  std::string remedy;   // what to do; empty when nothing obvious
  // Facts behind the message, as a JSON object (numbers, strings, lists of strings).
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
};

// At most this many node names are listed per kind of offer; the counts count them all.
inline constexpr size_t kMaxListedNodes = 10;

// The nodes of some offer (NodeOffers).
struct OfferedNodes {
  int64_t count = 0;
  std::vector<std::string> names;  // sorted; the first kMaxListedNodes
};

// Per node, who offers a profile's GPUs (explain gpuprofile/NAME when the Nodes were read): the
// nodes with devices its class selects, offered by DRA alone or by Both (the device plugin too:
// the same GPUs could be handed out twice), and the nodes with the same GPU product (the devices'
// productName, GPU Feature Discovery's nvidia.com/gpu.product label, compared without case and
// punctuation) that the device plugin alone offers, not yet moved to DRA.
struct NodeOffers {
  OfferedNodes both;
  OfferedNodes dra;
  OfferedNodes device_plugin;
  // The node groups of those nodes, sorted by name, each with its status.offeredBy as the
  // engine writes it (DRA, Both, DevicePlugin).
  std::vector<std::pair<std::string, std::string>> node_groups;
};

struct Diagnosis {
  std::string kind;  // "Pod", "ResourceClaim", "GpuProfile"
  std::string namespace_name;
  std::string name;
  std::vector<Finding> findings;  // ranked: causes first (most likely first), then info, then OK
  std::optional<NodeOffers> node_offers;  // GpuProfile subjects, when the Nodes were read

  bool HasCause() const;
};

// At most this many claims are named where a finding lists claims (holders, pending claims);
// the evidence counts them all.
inline constexpr size_t kMaxListedClaims = 10;

namespace internal {
class Diagnoser;
}  // namespace internal

class Explainer {
 public:
  // Computes the profiles' desired state and the devices' allocation once. Keeps a reference
  // to `view`, which must outlive the explainer.
  explicit Explainer(const ClusterView& view);
  ~Explainer();
  Explainer(const Explainer&) = delete;
  Explainer& operator=(const Explainer&) = delete;

  // NotFound naming the object when the subject is not in the view.
  absl::StatusOr<Diagnosis> ExplainPod(const std::string& namespace_name,
                                       const std::string& name) const;
  absl::StatusOr<Diagnosis> ExplainClaim(const std::string& namespace_name,
                                         const std::string& name) const;
  absl::StatusOr<Diagnosis> ExplainProfile(const std::string& name) const;

  // The engine's outcome the diagnoses read (the same as `run` and `render` compute).
  const profile::DesiredState& state() const;

 private:
  std::unique_ptr<const internal::Diagnoser> diagnoser_;
};

// The stable JSON shape (docs/design.md "explain": apiVersion gpuprofile.io/v1alpha1, kind
// Explanation).
nlohmann::ordered_json EncodeDiagnosis(const Diagnosis& diagnosis);
// Text for people: a heading, then each finding numbered with its remedy and evidence.
std::string FormatDiagnosis(const Diagnosis& diagnosis);

}  // namespace gpuprofile::explain
