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
//   LabelSelector; productNames, architectures and deviceType non-empty strings of at most 64
//   characters (what a DRA string attribute can hold); cel entries non-empty strings; at most 32
//   config entries, each {driver, parameters} with parameters a JSON object.
// - Defaults applied to the result: driver gpu.nvidia.com; deviceClassName and claimTemplate.name
//   the profile's name; claimTemplate.requestName "gpu"; allocationMode ExactCount;
//   deletionPolicy Delete; valueType String. `count` and `deviceType` stay as written (see
//   GpuProfileSpec::EffectiveCount / EffectiveDeviceType).
// - Errors: InvalidArgument whose message is one "<field path>: <reason>" line per problem, e.g.
//   "spec.selector.memory.min: invalid value \"40GB\": quantities must match ...". The message
//   does not name the object: callers prefix its location.
// - status (present in `kubectl get -o yaml` output) is decoded leniently: members of the wrong
//   type are skipped, never an error.
//
// Encoding (nlohmann::ordered_json; insertion order is the output order, so the same profile
// always gives the same bytes):
//   apiVersion, kind, metadata (object_meta_codec.h order), spec, status.
//   spec: description (omitted when empty), driver, deviceType (when set), selector (omitted when
//     it has no term), count (when set), allocationMode, config (omitted when empty),
//     deviceClassName, claimTemplate {name, requestName, namespaces (omitted when empty),
//     namespaceSelector (when set; {} selects all)}, deletionPolicy.
//   spec.selector: memory {min, max}, productNames, architectures, computeCapability {min, max},
//     driverVersion {min, max}, cudaDriverVersion {min, max}, attributes [{name, operator,
//     valueType, values}], capacity [{name, min, max}], cel; absent bounds and empty lists are
//     omitted. Quantities are written canonically (Quantity::ToString), versions normalised, and
//     attribute values as strings in their canonical text (ints in decimal, bools "true"/"false").
//   status (always written, zeros and empty lists included): observedGeneration, conditions
//     [{type, status, observedGeneration, lastTransitionTime (omitted when empty), reason,
//     message}], deviceClassName, selectors, matchedDevices, matchedNodes, nodeGroups [{name,
//     devices, nodes}], claimTemplates {desired, ready}.
// Decoding what EncodeGpuProfile wrote gives the same profile back.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "controller/api/gpu_profile.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::api {

inline constexpr int kMaxConfigEntries = 32;  // DRA's DeviceConfigMaxSize

// True when `object` says apiVersion gpuprofile.io/v1alpha1, kind GpuProfile.
bool IsGpuProfile(const nlohmann::json& object);

absl::StatusOr<GpuProfile> DecodeGpuProfile(const nlohmann::json& object);

nlohmann::ordered_json EncodeGpuProfile(const GpuProfile& profile, bool include_server_fields);
// The `status` member alone (what a status update writes).
nlohmann::ordered_json EncodeGpuProfileStatus(const GpuProfileStatus& status);

// Enum names as written in the API: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Ge", "Lt",
// "Le"; "String", "Int", "Bool", "Version".
const char* AttributeOperatorName(AttributeTerm::Operator op);
const char* AttributeValueTypeName(AttributeTerm::ValueType type);

}  // namespace gpuprofile::api
