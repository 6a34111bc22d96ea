// File: e2e/emulator/claim_status_validation.h
// What kube-apiserver's ResourceClaim status strategy does to a write of
// `resourceclaims/NAME/status` (PUT, PATCH and server-side apply) of one release 1.32-1.37
// (pkg/registry/resource/resourceclaim/strategy.go and pkg/apis/resource/validation/
// validation.go ValidateResourceClaimStatusUpdate):
//  - decoding: the status fields the release's Go types lack are dropped as unknown fields
//    (a warning, or 400 under fieldValidation=Strict);
//  - PrepareForUpdate: the fields of disabled feature gates are dropped unless the stored claim
//    already uses them (results' adminAccess; status.devices; shareID and consumedCapacity;
//    bindingConditions), then the status of devices no longer allocated;
//  - validation: reservedFor (at most 32 on 1.32, 256 later; resource, name and uid required,
//    uids unique; only while allocated; no new entries once the claim is being deleted), the
//    allocation immutable once set (it may be cleared), and a new allocation's results (at most
//    32, each naming a request or `request/subrequest` of the claim's spec, driver, pool and
//    device names, binding conditions from 1.34, shareID from 1.35), its config and node
//    selector, and status.devices (allocated devices only, conditions, data, network data).
// The caller has already reset spec and metadata to the stored ones (the claim's spec and
// deletionTimestamp are the stored claim's). Objects are in the storage (v1) shape: the status
// has the same fields in every served version. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/http_types.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

// The dotted paths of the status fields of `claim` that the release's types do not have
// (`status.allocation.devices.results[0].shareID` before 1.34, ...).
std::vector<std::string> UnknownClaimStatusFields(const KubeVersion& kube,
                                                  const nlohmann::json& claim);

// Decoding and PrepareForUpdate: removes the unknown fields and the fields the release's gates
// drop; `old` is the stored claim.
void PrepareClaimStatus(const KubeVersion& kube, const FeatureGates& gates, nlohmann::json& claim,
                        const nlohmann::json& old);

// ValidateResourceClaimStatusUpdate; empty when the status may be stored.
std::vector<StatusCause> ValidateClaimStatus(const KubeVersion& kube, const nlohmann::json& claim,
                                             const nlohmann::json& old);

// All of the above for one /status write: nullopt when `claim` (prepared in place) may be
// stored, else the answer (400 strict decoding error, or 422 Invalid). Unknown-field warnings
// go to `warnings` unless `field_validation` is "Ignore".
std::optional<HttpResponse> AdmitClaimStatus(const KubeVersion& kube, const FeatureGates& gates,
                                             const std::string& field_validation,
                                             nlohmann::json& claim, const nlohmann::json& old,
                                             std::vector<std::string>& warnings);

}  // namespace gpuprofile::e2e
