// File: controller/meta/condition.cc
#include "controller/meta/condition.h"

namespace gpuprofile::meta {

const char* ConditionStatusName(ConditionStatus status) {
  switch (status) {
    case ConditionStatus::kTrue:
      return "True";
    case ConditionStatus::kFalse:
      return "False";
    case ConditionStatus::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

bool Condition::operator==(const Condition& other) const {
  return type == other.type && status == other.status &&
         observed_generation == other.observed_generation &&
         last_transition_time == other.last_transition_time && reason == other.reason &&
         message == other.message;
}

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const Condition& condition : conditions) {
    if (condition.type == type) return &condition;
  }
  return nullptr;
}

}  // namespace gpuprofile::meta
