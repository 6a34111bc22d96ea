// File: controller/meta/condition.h
// metav1.Condition, and the condition types and reasons GpuProfile uses (docs/design.md §3).
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuprofile::meta {

enum class ConditionStatus { kTrue, kFalse, kUnknown };

// "True" / "False" / "Unknown".
const char* ConditionStatusName(ConditionStatus status);

struct Condition {
  std::string type;
  ConditionStatus status = ConditionStatus::kUnknown;
  int64_t observed_generation = 0;
  // RFC 3339; set by whoever writes the status (the operator from its clock; `render` leaves it
  // empty so that its output is byte-for-byte reproducible).
  std::string last_transition_time;
  std::string reason;   // CamelCase, as metav1.Condition requires
  std::string message;

  bool operator==(const Condition& other) const;
};

// Condition types.
inline constexpr char kConditionReady[] = "Ready";
inline constexpr char kConditionReconciling[] = "Reconciling";
inline constexpr char kConditionStalled[] = "Stalled";
inline constexpr char kConditionSatisfiable[] = "Satisfiable";
inline constexpr char kConditionConflict[] = "Conflict";

// Finds a condition by type; nullptr when absent.
const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type);

}  // namespace gpuprofile::meta
