// File: e2e/emulator/selectors.h
// Label and field selectors in the query-string syntax kube-apiserver accepts
// (`app=x,tier!=db,env in (a,b),!legacy` and `metadata.name=x,spec.driver!=y`), and the small
// JSON lookups that field selectors, printer columns and sorting use.
// Pure functions; thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct LabelRequirement {
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op = Op::kEquals;
  std::vector<std::string> values;
};

// InvalidArgument with kube-apiserver's wording on syntax errors.
absl::StatusOr<std::vector<LabelRequirement>> ParseLabelSelector(const std::string& text);
bool MatchesLabels(const std::vector<LabelRequirement>& selector, const nlohmann::json& object);

struct FieldRequirement {
  std::string field;
  bool equals = true;
  std::string value;
};

absl::StatusOr<std::vector<FieldRequirement>> ParseFieldSelector(const std::string& text);
// Every requirement holds; the object's field value is rendered as a string ("" when absent,
// "true"/"false" for booleans).
bool MatchesFields(const std::vector<FieldRequirement>& selector, const nlohmann::json& object);

// Both selectors of a list, watch or deletecollection request.
struct Selectors {
  std::vector<LabelRequirement> labels;
  std::vector<FieldRequirement> fields;
};
// Parses `labelSelector` and `fieldSelector`; the first syntax error (labels first), as above.
absl::StatusOr<Selectors> ParseSelectors(const std::string& label_selector,
                                         const std::string& field_selector);
// InvalidArgument "field label not supported: F" for a field other than metadata.name,
// metadata.namespace and those of `supported`.
absl::Status CheckFieldLabels(const std::vector<FieldRequirement>& fields,
                              const std::set<std::string>& supported);

// The value at a dotted path ("spec.pool.name"), or nullptr.
const nlohmann::json* Lookup(const nlohmann::json& object, const std::string& dotted_path);
std::string FieldString(const nlohmann::json& object, const std::string& dotted_path);

// Evaluates the JSONPath subset CRD printer columns use: `.a.b`, `.a[0].b`, `.a[*].b` and
// `.a[?(@.type=="Ready")].b`. Returns every match (empty when nothing matches).
std::vector<nlohmann::json> EvaluateJsonPath(const nlohmann::json& object, const std::string& path);

}  // namespace gpuprofile::e2e
