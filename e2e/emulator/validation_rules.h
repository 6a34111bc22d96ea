// File: e2e/emulator/validation_rules.h
// The x-kubernetes-validations rules of a CRD version's openAPIV3Schema, evaluated on a custom
// object with the project's CEL engine (controller/cel), as apiextensions-apiserver does:
//  - rules at every level of the schema (the root, properties, additionalProperties, items);
//    `self` is the value at that level, typed from the schema (integer, number, string, bool,
//    list, map; int-or-string and untyped values as what they hold); at the root it has
//    apiVersion, kind and metadata.name/generateName only;
//  - transition rules (those that use `oldSelf`) only run on update, where an old value is
//    correlated (object properties, and items of x-kubernetes-list-type=map lists by key);
//  - a failing rule is a cause at the rule's path (plus `fieldPath`) with kube-apiserver's
//    wording: `spec: Invalid value: "object": <message>`, `<nil>: ...` at the root; the message
//    is `messageExpression`'s value, else `message`, else `failed rule: <rule>`; `reason`
//    selects Forbidden, Required or Duplicate instead of Invalid; a runtime error is
//    `<error> evaluating rule: <message or rule>`;
//  - ratcheting (CRDValidationRatcheting, on in every emulated release): on update, a failure
//    of a rule without oldSelf at a value equal to the old one is a warning, not an error.
// Not emulated: cost budgets, format-typed values (date-time, duration, byte stay strings),
// optionalOldSelf, x-kubernetes-embedded-resource roots, allOf rules. A rule the engine cannot
// compile (a feature it lacks, or an invalid rule a real server would have refused with the
// CRD) is skipped and logged once.
// Thread-safe (compiled rules are cached process-wide behind a lock).
#pragma once

#include <string>
#include <vector>

#include "e2e/emulator/api_error.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct RulesOutcome {
  std::vector<StatusCause> errors;
  std::vector<std::string> warnings;  // field errors ratcheted to warnings, rendered
};

// `old` is the stored object on update, nullptr on create.
RulesOutcome ApplyValidationRules(const nlohmann::json& schema, const nlohmann::json& object,
                                  const nlohmann::json* old);

// Whether structural-schema errors stop the rules from running (type, required, enum, too long,
// too many), as kube-apiserver's hasBlockingErr; then the one cause it reports instead.
bool HasBlockingSchemaError(const std::vector<StatusCause>& schema_errors);
StatusCause RulesNotCheckedCause();

}  // namespace gpuprofile::e2e
