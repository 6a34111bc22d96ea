// File: controller/dra/resource_claim.h
// The compact form of a ResourceClaim (resource.k8s.io v1beta1, v1beta2 and v1): only what
// allocation accounting and "why is this pod Pending" read. A busy cluster holds tens of
// thousands of claims, so the operator keeps neither the selectors, the config nor the
// allocation's node selector:
// - per request: its name, the device classes it can be satisfied from (one for an exact
//   request; each subrequest's, in priority order, for `firstAvailable`), the count or `All`,
//   and whether it asks for capacity;
// - the allocation results (request, driver, pool, device, shareID), each naming the device
//   the claim holds;
// - the owning pod (the controller ownerReference of kind Pod, as the resourceclaim controller
//   sets for claims made from a template), the pod claim name annotation, reservedFor's pods,
//   the creation time and whether the claim is being deleted.
// v1beta1 puts the exact fields on the request; v1beta2 and v1 nest them under `exactly`.
// Decoding is strict about what it reads (types, required fields, one-of) and ignores fields it
// does not know, so claims from newer servers still decode. Errors are InvalidArgument, one
// line per problem, each naming the claim and the field path. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {

// The annotation the resourceclaim controller puts on a claim it made for a pod: the name of
// the pod's `spec.resourceClaims[]` entry.
inline constexpr char kPodClaimNameAnnotation[] = "resource.kubernetes.io/pod-claim-name";

struct ClaimRequest {
  std::string name;
  // One class for an exact request; for firstAvailable, each subrequest's class in order.
  std::vector<std::string> device_classes;
  // For firstAvailable, the subrequest names (parallel to device_classes); empty otherwise.
  std::vector<std::string> subrequests;
  // allocationMode All: every matching device on the chosen node.
  bool all = false;
  // ExactCount's count (the server's default 1 when unset). For firstAvailable, the first
  // subrequest's.
  int64_t count = 1;
  // `capacity.requests` is set (on the request or any subrequest): the request takes a share
  // of a device that allows multiple allocations.
  bool requests_capacity = false;
};

// One entry of status.allocation.devices.results.
struct ClaimDeviceResult {
  std::string request;  // "req", or "req/sub" for a firstAvailable subrequest
  std::string driver;
  std::string pool;
  std::string device;
  std::string share_id;  // DRAConsumableCapacity: set when the device is shared
};

struct ResourceClaim {
  std::string namespace_name;
  std::string name;
  std::string resource_version;
  std::optional<absl::Time> created;  // metadata.creationTimestamp
  bool deleting = false;              // metadata.deletionTimestamp is set
  std::string owner_pod;              // controller ownerReference of kind Pod (core/v1)
  std::string pod_claim_name;         // kPodClaimNameAnnotation
  std::vector<ClaimRequest> requests;
  bool allocated = false;  // status.allocation is set
  std::vector<ClaimDeviceResult> results;
  std::vector<std::string> reserved_for_pods;  // status.reservedFor[] with resource "pods"

  // The device class a result was allocated from: the request's class, or the named
  // subrequest's. Empty when the result names no request of this claim.
  std::string ClassOfResult(const ClaimDeviceResult& result) const;
};

bool IsResourceClaim(const nlohmann::json& obj);

absl::StatusOr<ResourceClaim> DecodeResourceClaim(const nlohmann::json& obj);

}  // namespace gpuprofile::dra
