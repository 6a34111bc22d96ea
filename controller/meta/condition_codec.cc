// File: controller/meta/condition_codec.cc
#include "controller/meta/condition_codec.h"

#include <string>
#include <utility>
#include <vector>

#include "controller/meta/json_object.h"

namespace gpuprofile::meta {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

ConditionStatus StatusNamed(const std::string& name) {
  return name == "True"    ? ConditionStatus::kTrue
         : name == "False" ? ConditionStatus::kFalse
                           : ConditionStatus::kUnknown;
}

// One entry, which must be an object. `required`: type and status must be there and not empty.
Condition DecodeCondition(const json& entry, absl::string_view path, bool required,
                          ConditionGeneration generation, FieldErrors* errors) {
  Condition c;
  c.type = StringField(entry, "type", path, required, errors).value_or("");
  c.status = StatusNamed(StringField(entry, "status", path, required, errors).value_or(""));
  if (generation == ConditionGeneration::kIncluded) {
    c.observed_generation = IntField(entry, "observedGeneration", path, false, errors).value_or(0);
  }
  c.last_transition_time =
      StringField(entry, "lastTransitionTime", path, false, errors).value_or("");
  c.reason = StringField(entry, "reason", path, false, errors).value_or("");
  c.message = StringField(entry, "message", path, false, errors).value_or("");
  return c;
}

}  // namespace

ordered_json EncodeConditions(const std::vector<Condition>& conditions,
                              ConditionGeneration generation) {
  ordered_json out = ordered_json::array();
  for (const Condition& c : conditions) {
    ordered_json condition = ObjectWithRoom(6);
    condition["type"] = c.type;
    condition["status"] = ConditionStatusName(c.status);
    if (generation == ConditionGeneration::kIncluded) {
      condition["observedGeneration"] = c.observed_generation;
    }
    if (!c.last_transition_time.empty()) condition["lastTransitionTime"] = c.last_transition_time;
    condition["reason"] = c.reason;
    condition["message"] = c.message;
    out.push_back(std::move(condition));
  }
  return out;
}

std::vector<Condition> DecodeConditions(const json& conditions, absl::string_view path,
                                        ConditionGeneration generation, FieldErrors* errors) {
  std::vector<Condition> out;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const std::string entry_path = FieldIndex(path, i);
    const json& entry = conditions[i];
    if (!CheckObject(entry, entry_path, errors)) continue;
    out.push_back(DecodeCondition(entry, entry_path, /*required=*/true, generation, errors));
  }
  return out;
}

std::vector<Condition> DecodeConditionsLeniently(const json& conditions) {
  std::vector<Condition> out;
  for (const json& entry : conditions) {
    if (!entry.is_object()) continue;
    FieldErrors ignored;  // a field of the wrong type reads as empty (0)
    Condition c =
        DecodeCondition(entry, "", /*required=*/false, ConditionGeneration::kIncluded, &ignored);
    if (c.type.empty()) continue;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpuprofile::meta
