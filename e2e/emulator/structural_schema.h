// File: e2e/emulator/structural_schema.h
// What apiextensions-apiserver does with a custom object against its version's
// openAPIV3Schema: defaulting, pruning of unknown fields (unless
// x-kubernetes-preserve-unknown-fields), and validation of types, required, enum, pattern,
// minimum/maximum (and exclusive), min/maxLength, min/maxItems, min/maxProperties, nullable,
// x-kubernetes-int-or-string and additionalProperties. Error wording follows kube-openapi's
// validator ("spec.x in body must be of type integer: \"string\"").
// Not done: format checks, allOf/anyOf/oneOf/not. x-kubernetes-validations (CEL rules) are in
// validation_rules.h.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "e2e/emulator/api_error.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct SchemaOutcome {
  std::vector<StatusCause> errors;
  std::vector<std::string> pruned_fields;  // "spec.foo", for fieldValidation Strict/Warn
};

// Applies `schema` (an openAPIV3Schema) to a whole custom object. apiVersion, kind and metadata
// are left alone at the top level.
SchemaOutcome ApplyStructuralSchema(const nlohmann::json& schema, nlohmann::json& object);

}  // namespace gpuprofile::e2e
