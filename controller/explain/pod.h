// File: controller/explain/pod.h
// The compact form of a Pod that `explain` reads: its name, the ResourceClaims it names
// (spec.resourceClaims[]: a claim by name, or a template the resourceclaim controller makes a
// claim from), the claims made for it (status.resourceClaimStatuses[]), its phase, node and
// PodScheduled condition. Nothing else of the pod is kept.
// Decoding is strict about what it reads (types, one of resourceClaimName /
// resourceClaimTemplateName, whole numbers of device-plugin devices) and ignores every other
// field (the containers' allocatedResourcesStatus is read as well). Errors are InvalidArgument, one
// line per problem, each naming the pod and the field path. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::explain {

// One entry of spec.resourceClaims.
struct PodClaimRef {
  std::string name;           // the entry's name (containers refer to it)
  std::string claim_name;     // resourceClaimName: an existing claim
  std::string template_name;  // resourceClaimTemplateName: a claim made for this pod
};

// One entry of status.resourceClaimStatuses: the claim made for a template entry. An entry
// without resourceClaimName means no claim was needed (the API's rule).
struct PodClaimStatus {
  std::string name;
  std::optional<std::string> claim_name;
};

// status.conditions[type=PodScheduled].
struct PodScheduledCondition {
  std::string status;  // "True" / "False" / "Unknown"
  std::string reason;  // "Unschedulable", ...
  std::string message;
};

// One device's health as the kubelet reports it (KEP-4680, the ResourceHealthStatus gate):
// status.containerStatuses[] (and initContainerStatuses[], ephemeralContainerStatuses[])
// .allocatedResourcesStatus[] (core/v1 ResourceStatus {name, resources[]}) .resources[]
// (ResourceHealth {resourceID, health, message}); shapes checked against kubernetes/api
// release-1.33 to 1.37 (message since 1.36).
struct PodDeviceHealth {
  std::string container;
  // ResourceStatus.name: "claim:<entry>/<request>" or "claim:<entry>" for DRA (the entry is the
  // pod's spec.resourceClaims[] name), a device-plugin resource name otherwise.
  std::string resource;
  std::string pod_claim;    // <entry> of a "claim:" name; empty otherwise
  std::string request;      // <request> of a "claim:" name; may be empty
  std::string resource_id;  // DRA: "<driver>/<pool>/<device>"; device plugin: the device ID
  std::string health;       // Healthy, Unhealthy, Unknown; empty when not reported
  std::string message;
};

struct Pod {
  std::string namespace_name;
  std::string name;
  std::string phase;      // status.phase; "" when absent
  std::string node_name;  // spec.nodeName; "" when not bound
  std::vector<PodClaimRef> claims;
  std::vector<PodClaimStatus> claim_statuses;
  std::optional<PodScheduledCondition> scheduled;
  // The device-plugin resources (meta/node.h: nvidia.com/gpu, nvidia.com/mig-*) the pod asks
  // for, as the scheduler counts them: the sum over its containers and sidecars (init containers
  // with restartPolicy Always), or more when one init container asks for more. Each container's
  // limit, else its request. Resources asked for 0 are left out.
  std::map<std::string, int64_t> device_plugin_requests;
  // Every device health the kubelet reports for the pod's containers, in their order.
  std::vector<PodDeviceHealth> device_health;

  // The claim status of entry `name`, or nullptr.
  const PodClaimStatus* StatusOf(const std::string& name) const;
};

bool IsPod(const nlohmann::json& obj);

absl::StatusOr<Pod> DecodePod(const nlohmann::json& obj);

}  // namespace gpuprofile::explain
