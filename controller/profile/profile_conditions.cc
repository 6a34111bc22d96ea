// File: controller/profile/profile_conditions.cc
#include "controller/profile/profile_conditions.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace gpuprofile::profile {
namespace {

meta::Condition Make(const char* type, bool status, const char* reason, std::string message,
                     int64_t generation) {
  meta::Condition c;
  c.type = type;
  c.status = status ? meta::ConditionStatus::kTrue : meta::ConditionStatus::kFalse;
  c.reason = reason;
  c.message = std::move(message);
  c.observed_generation = generation;
  return c;
}

std::string Plural(int64_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// The conditions of a profile that cannot be realised: Stalled, with the problems.
std::vector<meta::Condition> StalledConditions(const ProfileFacts& f) {
  std::vector<meta::Condition> out;
  const int64_t g = f.generation;
  // One line per problem in the spec; conditions hold one message, so join them.
  const std::string problems = absl::StrReplaceAll(f.problems, {{"\n", "; "}});
  const char* reason = f.stalled_reason.empty() ? kReasonInvalidSpec : f.stalled_reason.c_str();
  out.push_back(Make(meta::kConditionReady, false, reason,
                     absl::StrCat("the spec cannot be realised: ", problems), g));
  out.push_back(Make(meta::kConditionReconciling, false, reason,
                     "waiting for the spec (or the cluster) to change", g));
  out.push_back(Make(meta::kConditionStalled, true, reason, problems, g));
  meta::Condition satisfiable =
      Make(meta::kConditionSatisfiable, false, reason,
           "not evaluated: the profile generates nothing until it can be realised", g);
  satisfiable.status = meta::ConditionStatus::kUnknown;
  out.push_back(std::move(satisfiable));
  out.push_back(Make(meta::kConditionConflict, false, kReasonNoConflict, "", g));
  return out;
}

// Of the matched devices, those the scheduler could not allocate and why ("" when none).
std::string LeftOut(const ProfileFacts& f) {
  std::vector<std::string> left_out;
  if (f.tainted_devices > 0) {
    left_out.push_back(
        absl::StrCat(f.tainted_devices, " with a taint the profile does not tolerate"));
  }
  if (f.incomplete_pool_devices > 0) {
    left_out.push_back(absl::StrCat(f.incomplete_pool_devices, " in incomplete pools"));
  }
  if (f.counter_limited_devices > 0) {
    left_out.push_back(absl::StrCat(f.counter_limited_devices,
                                    " not allocatable at the same time (shared counters)"));
  }
  return absl::StrJoin(left_out, ", ");
}

// Satisfiable is about what the scheduler could allocate, not what the selectors select.
meta::Condition SatisfiableCondition(const ProfileFacts& f) {
  std::string matched;
  const char* reason = kReasonDevicesMatched;
  if (f.matched_devices > 0) {
    matched = absl::StrCat(Plural(f.matched_devices, "device", "devices"), " on ",
                           Plural(f.matched_nodes, "node", "nodes"), " in ",
                           Plural(f.matched_node_groups, "node group", "node groups"));
    if (const std::string left_out = LeftOut(f); !left_out.empty()) {
      absl::StrAppend(&matched, "; ", f.schedulable_devices, " schedulable (", left_out, ")");
    }
    if (f.schedulable_devices == 0) {
      reason =
          f.tainted_devices > 0 && f.incomplete_pool_devices == 0 && f.counter_limited_devices == 0
              ? kReasonDevicesTainted
              : kReasonDevicesUnavailable;
    }
  } else {
    matched = "the selectors select no device in the cluster";
    reason = kReasonNoMatchingDevices;
  }
  if (f.error_devices > 0) {
    absl::StrAppend(&matched, "; selectors raised errors on ",
                    Plural(f.error_devices, "device", "devices"), " (first: ", f.first_error, ")");
  }
  if (f.undecodable_slices > 0) {
    absl::StrAppend(&matched, "; ", Plural(f.undecodable_slices, "ResourceSlice", "ResourceSlices"),
                    " could not be decoded and their devices are not counted (first: ",
                    f.first_undecodable_slice, ")");
  }
  return Make(meta::kConditionSatisfiable, f.schedulable_devices > 0, reason, std::move(matched),
              f.generation);
}

}  // namespace

std::vector<meta::Condition> ProfileConditions(const ProfileFacts& f) {
  if (!f.valid) return StalledConditions(f);
  std::vector<meta::Condition> out;
  const int64_t g = f.generation;
  const bool conflict = !f.conflicts.empty();
  const std::string conflicts = absl::StrJoin(f.conflicts, "; ");
  out.push_back(conflict ? Make(meta::kConditionReady, false, kReasonConflict,
                                absl::StrCat("not every object could be generated: ", conflicts), g)
                         : Make(meta::kConditionReady, true, kReasonReconciled,
                                "every generated object is in place", g));
  out.push_back(Make(meta::kConditionReconciling, false, kReasonReconciled, "", g));
  out.push_back(Make(meta::kConditionStalled, false, kReasonReconciled, "", g));
  out.push_back(SatisfiableCondition(f));
  out.push_back(Make(meta::kConditionConflict, conflict,
                     conflict ? kReasonConflict : kReasonNoConflict, conflicts, g));
  return out;
}

}  // namespace gpuprofile::profile
