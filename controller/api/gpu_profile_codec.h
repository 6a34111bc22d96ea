// File: controller/api/gpu_profile_codec.h
// JSON decoding (strict, every problem with its field path) and encoding of GpuProfile
// (gpuprofile.io/v1alpha1, docs/design.md §3).
//
// Decoding
// - apiVersion must be gpuprofile.io/v1alpha1 and kind GpuProfile; metadata.name is required and a
//   DNS label. Other top-level members are ignored; metadata is decoded by object_meta_codec.h.
// - spec is strict: an unknown field at any depth is an error, except inside
//   `config[].parameters` (opaque driver configuration, any JSON object). A missing spec is an
//   empty one. A null member counts as absent, and so does an empty string for driver,
//   deviceType, deviceClassName, claimTemplate.name and claimTemplate.requestName.
// - Values: quantities (strings or numbers) must parse as Kubernetes quantities; versions
//   (strings, or integers such as `12`; an unquoted YAML `8.0` is a float and is rejected) are
//   normalised ("8.0" -> 8.0.0, "550.54.05" -> 550.54.5); ranges need min or max and min <= max;
//   count >= 1 and only with allocationMode ExactCount; attribute values are checked per
//   operator (Exists/DoesNotExist: none; Gt/Ge/Lt/Le: exactly one, valueType Int or Version only;
//   In/NotIn: at least one) and per valueType (String: at most 64 characters; Int: integers or
//   numeric strings, kept in canonical decimal; Bool: booleans or "true"/"false"; Version:
//   normalised); attribute and capacity names are DRA qualified names; driver and config[].driver
//   DRA driver names; deviceClassName and claimTemplate.name DNS subdomains; requestName and
//   namespaces DNS labels, namespaces without duplicates; namespaceSelector a strict
//   LabelSelector; productNames, migProfiles, architectures and deviceType non-empty strings of at
//   most 64 characters (what a DRA string attribute can hold), migProfiles without duplicates and
//   only when deviceType is "mig" (error at spec.selector.migProfiles; an empty list is no term);
//   cel entries non-empty strings; at most 32 config entries, each {driver, parameters} with
//   parameters a JSON object.
// - sharing: strategy Exclusive | TimeSlicing | MPS (Exclusive when sharing is present without
//   one); timeSlicing {interval: Default | Short | Medium | Long (optional)} only with
//   TimeSlicing and mps {defaultActiveThreadPercentage: integer 0..100,
//   defaultPinnedDeviceMemoryLimit: quantity > 0 (both optional)} only with MPS, each reported at
//   its own path. Which driver has a sharing configuration is the engine's business.
// - capacityRequests: at most 32 entries name -> quantity > 0, names DRA qualified names (as for
//   selector.capacity); "memory" and "<driver>/memory" are the same capacity (an error reported
//   at the qualified one). Allowed with allocationMode All (Kubernetes defines that case).
// - fallback: at most 7 profile names (a firstAvailable list holds 8 subrequests, this profile's
//   class first), DNS labels, no duplicates, not the profile's own name.
// - extendedResourceName: non-empty; an extended resource name as DeviceClass validation checks
//   it (Kubernetes' IsExtendedResourceName): a domain prefix, not in the kubernetes.io domain (no
//   "kubernetes.io/" anywhere), not starting with "requests.", and "requests." + name a qualified
//   name.
// - tolerations: at most 16, each {key, operator, value, effect, tolerationSeconds} with
//   resource.k8s.io DeviceToleration's rules: key empty or a qualified name (label key); operator
//   Equal (default) | Exists; with Exists the value is empty, with Equal the key is not empty and
//   the value is a label value; effect "" (every effect) | NoSchedule | NoExecute;
//   tolerationSeconds >= 0 and only with effect NoExecute. (The API server ignores an empty key
//   with Equal and tolerationSeconds without NoExecute; here they are errors.)
// - quota: {devicesPerNamespace: integer >= 0, required}.
// - Defaults applied to the result: driver gpu.nvidia.com; deviceClassName and claimTemplate.name
//   the profile's name; claimTemplate.requestName "gpu"; allocationMode ExactCount;
//   deletionPolicy Delete; valueType String; sharing.strategy Exclusive; tolerations[].operator
//   Equal. `count` and `deviceType` stay as written (see GpuProfileSpec::EffectiveCount /
//   EffectiveDeviceType).
// - Errors: InvalidArgument whose message is one "<field path>: <reason>" line per problem, e.g.
//   "spec.selector.memory.min: invalid value \"40GB\": quantities must match ...". Map members are
//   named with brackets (spec.capacityRequests[memory]). The message does not name the object:
//   callers prefix its location.
// - status (present in `kubectl get -o yaml` output) is decoded leniently: members of the wrong
//   type are skipped, never an error.
//
// Encoding (nlohmann::ordered_json; insertion order is the output order, so the same profile
// always gives the same bytes):
//   apiVersion, kind, metadata (object_meta_codec.h order), spec, status.
//   spec: description (omitted when empty), driver, deviceType (when set), selector (omitted when
//     it has no term), count (when set), allocationMode, config (omitted when empty), sharing
//     {strategy, timeSlicing {interval (when set)} (when set), mps {defaultActiveThreadPercentage,
//     defaultPinnedDeviceMemoryLimit (each when set)} (when set)} (when set), capacityRequests
//     (sorted by name, canonical quantities; omitted when empty), fallback (omitted when empty),
//     extendedResourceName (when set), tolerations [{key (omitted when empty), operator, value
//     (omitted when empty), effect (omitted when empty), tolerationSeconds (when set)}] (omitted
//     when empty), quota {devicesPerNamespace} (when set), deviceClassName, claimTemplate {name,
//     requestName, namespaces (omitted when empty), namespaceSelector (when set; {} selects
//     all)}, deletionPolicy.
//   spec.selector: memory {min, max}, productNames, migProfiles, architectures, computeCapability
//     {min, max}, driverVersion {min, max}, cudaDriverVersion {min, max}, attributes [{name,
//     operator, valueType, values}], capacity [{name, min, max}], cel; absent bounds and empty
//     lists are omitted. Quantities are written canonically (Quantity::ToString), versions
//     normalised, and attribute values as strings in their canonical text (ints in decimal,
//     bools "true"/"false").
//   status (zeros and empty lists included unless said otherwise): observedGeneration,
//     conditions [{type, status, observedGeneration, lastTransitionTime (omitted when empty),
//     reason, message}], deviceClassName, selectors, matchedDevices, matchedNodes,
//     schedulableDevices, taintedDevices, nodeGroups [{name, devices, nodes, schedulableDevices,
//     taintedDevices}], claimTemplates {desired, ready}, extendedResourceName (omitted when
//     empty), schedulableClaims (when set; 0 is written), quotas {desired, ready}, allocation
//     {allocatedDevices, allocatedClaims, freeDevices, pendingClaims, oldestPendingClaimTime
//     (omitted when empty)}.
// Decoding what EncodeGpuProfile wrote gives the same profile back.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "controller/api/gpu_profile.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::api {

inline constexpr int kMaxConfigEntries = 32;  // DRA's DeviceConfigMaxSize
// spec.capacityRequests: as many as a device can have attributes and capacities.
inline constexpr int kMaxCapacityRequests = 32;
// spec.fallback: a firstAvailable list holds at most 8 subrequests, this profile's class first.
inline constexpr int kMaxFallbackProfiles = 7;
inline constexpr int kMaxTolerations = 16;  // DRA's DeviceTolerationsMaxLength

// True when `object` says apiVersion gpuprofile.io/v1alpha1, kind GpuProfile.
bool IsGpuProfile(const nlohmann::json& object);

absl::StatusOr<GpuProfile> DecodeGpuProfile(const nlohmann::json& object);

nlohmann::ordered_json EncodeGpuProfile(const GpuProfile& profile, bool include_server_fields);
// The `status` member alone (what a status update writes).
nlohmann::ordered_json EncodeGpuProfileStatus(const GpuProfileStatus& status);
// status.allocation.deviceStates (and explain's evidence of the same name): every key, or
// (`non_zero_only`, as per node group) only those above 0.
nlohmann::ordered_json EncodeDeviceStates(const DeviceStates& states, bool non_zero_only);

// Enum names as written in the API: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Ge", "Lt",
// "Le"; "String", "Int", "Bool", "Version".
const char* AttributeOperatorName(AttributeTerm::Operator op);
const char* AttributeValueTypeName(AttributeTerm::ValueType type);

}  // namespace gpuprofile::api
