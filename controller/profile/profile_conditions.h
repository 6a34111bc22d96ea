// File: controller/profile/profile_conditions.h
// A GpuProfile's conditions (docs/design.md §3), kstatus-compatible, from what the engine found.
// Always all five types, in the order Ready, Reconciling, Stalled, Satisfiable, Conflict, each
// with observedGeneration; lastTransitionTime is left empty (the operator carries it over from
// the previous status or stamps it from its clock; `render` prints none).
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/meta/condition.h"

namespace gpuprofile::profile {

// Reasons.
inline constexpr char kReasonReconciled[] = "Reconciled";
inline constexpr char kReasonInvalidSpec[] = "InvalidSpec";
inline constexpr char kReasonConflict[] = "Conflict";
inline constexpr char kReasonNoConflict[] = "NoConflict";
inline constexpr char kReasonDevicesMatched[] = "DevicesMatched";
inline constexpr char kReasonNoMatchingDevices[] = "NoMatchingDevices";
// Devices match, but none can be allocated: every one carries a taint the profile does not
// tolerate, or (DevicesUnavailable) their pools are incomplete or their counters used up.
inline constexpr char kReasonDevicesTainted[] = "DevicesTainted";
inline constexpr char kReasonDevicesUnavailable[] = "DevicesUnavailable";

struct ProfileFacts {
  int64_t generation = 0;
  bool valid = true;
  // When not valid: the Stalled reason (InvalidSpec when empty; FeatureNotServed,
  // InvalidFallback) and the problems, "<field>: <reason>" lines.
  std::string stalled_reason;
  std::string problems;
  std::vector<std::string> conflicts;  // one sentence per conflicting object
  int64_t matched_devices = 0;
  int64_t matched_nodes = 0;
  int64_t matched_node_groups = 0;
  // Of the matched devices (profile/allocatable.h).
  int64_t schedulable_devices = 0;
  int64_t tainted_devices = 0;
  int64_t incomplete_pool_devices = 0;
  int64_t counter_limited_devices = 0;
  // ResourceSlices whose devices could not be read (the operator's cache), and the first as
  // "<name>: <error>".
  int64_t undecodable_slices = 0;
  std::string first_undecodable_slice;
  int64_t error_devices = 0;  // devices on which a selector raised an error
  std::string first_error;
};

std::vector<meta::Condition> ProfileConditions(const ProfileFacts& facts);

}  // namespace gpuprofile::profile
