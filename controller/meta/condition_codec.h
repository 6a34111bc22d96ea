// File: controller/meta/condition_codec.h
// JSON encoding and decoding of a list of metav1.Condition (condition.h): the `conditions` of
// GpuProfile's and GpuNodeGroup's status. The CRDs (crds/) are written from these field names.
//
// Encoding (nlohmann::ordered_json, an array of objects with keys in this order): type, status
// ("True" / "False" / "Unknown"), observedGeneration (only with ConditionGeneration::kIncluded),
// lastTransitionTime (omitted when empty), reason, message.
//
// Decoding, two ways:
//  - DecodeConditions (an object decoder that reports every problem): an entry that is not an
//    object is reported and skipped; type and status are required; a field of the wrong type is
//    reported and reads as empty (0). Errors go to `errors` as "<path>[i].<field>: <reason>".
//  - DecodeConditionsLeniently (a status read back, which must never fail a decode): what does
//    not fit is skipped silently: entries that are not objects or have no type; a field of the
//    wrong type reads as empty (0).
// Both read a status other than "True" or "False" as kUnknown.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/meta/condition.h"
#include "controller/meta/field_codec.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// Whether a kind's conditions carry observedGeneration: GpuProfile's do (the generation of the
// spec they were computed from); GpuNodeGroup's do not (it has no spec), and its CRD has no such
// field.
enum class ConditionGeneration { kOmitted, kIncluded };

// The JSON array of `conditions`, in their order.
nlohmann::ordered_json EncodeConditions(const std::vector<Condition>& conditions,
                                        ConditionGeneration generation);

// `conditions` must be an array (the caller checks and reports its type); `path` is its field
// path (e.g. "status.conditions"). With kOmitted, observedGeneration is not read (stays 0).
std::vector<Condition> DecodeConditions(const nlohmann::json& conditions, absl::string_view path,
                                        ConditionGeneration generation, FieldErrors* errors);

// `conditions` must be an array. observedGeneration is read.
std::vector<Condition> DecodeConditionsLeniently(const nlohmann::json& conditions);

}  // namespace gpuprofile::meta
