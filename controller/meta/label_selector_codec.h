// File: controller/meta/label_selector_codec.h
// Strict JSON decoding and encoding of metav1.LabelSelector:
//   {matchLabels: {<qualified name>: <label value>},
//    matchExpressions: [{key: <qualified name>, operator: In|NotIn|Exists|DoesNotExist,
//                        values: [<label value>...]}]}
// In / NotIn need at least one value, Exists / DoesNotExist none; unknown fields are errors.
// Encoding writes matchLabels then matchExpressions ({key, operator, values}), omitting empty
// members: an empty selector encodes as {}.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/label_selector.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// Reports every problem to `errors` under `path` and returns what decoded.
LabelSelector DecodeLabelSelector(const nlohmann::json& value, absl::string_view path,
                                  FieldErrors* errors);

// InvalidArgument listing every problem, one "<path>: <reason>" per line.
absl::StatusOr<LabelSelector> DecodeLabelSelector(const nlohmann::json& value,
                                                  absl::string_view path = "selector");

nlohmann::ordered_json EncodeLabelSelector(const LabelSelector& selector);

// "In", "NotIn", "Exists", "DoesNotExist".
const char* LabelSelectorOperatorName(LabelSelectorRequirement::Operator op);

}  // namespace gpuprofile::meta
