// File: e2e/emulator/dra_admission.h
// What kube-apiserver's resource.k8s.io strategy and validation do to DeviceClass,
// ResourceClaimTemplate, ResourceClaim and ResourceSlice writes of one release
// (docs/dra-reference.md §1-§4): defaulting (allocationMode ExactCount, count 1), dropping the
// fields of disabled feature gates on create (and on update when the old object did not use
// them), immutability (template and claim spec; slice driver, pool name, node name), name, size,
// count and length limits, and compiling every new or changed CEL selector with the project's
// CEL engine for that release ("compilation failed: ..."; "too complex" as Forbidden).
// The gates are the project's FeatureGates (controller/core/feature_gates.h): the release's
// defaults and --feature-gates. Slice validation follows the release: 1.35+ adds the KEP-4815
// rules (devices or sharedCounters, 128/64 devices, 8 counter sets of 32 counters, 2 counter
// consumptions and 16 taints per device, taint effect None), 1.36+ the list-typed attributes
// (48 values per device).
// Objects are in the storage (v1) shape. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/resource_registry.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

// The fields of issue 14 that the release's Go types do not have, as dotted paths into the
// object as written (`wire`, in the request's version): DeviceClass `extendedResourceName`
// (before 1.34), request `firstAvailable` and `tolerations` (1.32), request and subrequest
// `capacity` (before 1.34). The decoder drops them as unknown fields: the caller warns
// (`unknown field "<path>"`), or answers 400 under fieldValidation=Strict.
std::vector<std::string> UnknownDraFields(const ResourceType& type, const KubeVersion& kube,
                                          const nlohmann::json& wire);

// Decoding of the request capacities (`capacity.requests`, 1.34+): each value must be a
// quantity (InvalidArgument with the decoder's message otherwise: the caller answers 400, as the
// API server cannot decode the body) and is stored in canonical form.
absl::Status CanonicalizeDraQuantities(const ResourceType& type, const KubeVersion& kube,
                                       nlohmann::json& object);

// Defaulting and dropping of disabled fields; `old` is the stored object on update.
void DefaultDra(const ResourceType& type, const FeatureGates& gates, nlohmann::json& object,
                const nlohmann::json* old);

// Validation; empty when the object may be stored. `v1beta1_paths` reports request fields
// without the `exactly` segment (the 1.32 internal shape).
std::vector<StatusCause> ValidateDra(const ResourceType& type, const KubeVersion& kube,
                                     const FeatureGates& gates, const nlohmann::json& object,
                                     const nlohmann::json* old);

}  // namespace gpuprofile::e2e
