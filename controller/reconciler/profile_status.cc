// File: controller/reconciler/profile_status.cc
#include "controller/reconciler/profile_status.h"

#include "controller/profile/feature_support.h"

#include <utility>

#include "controller/core/rfc3339.h"
#include "controller/profile/profile_conditions.h"

namespace gpuprofile::reconciler {
namespace {

meta::Condition Make(const char* type, meta::ConditionStatus status, const char* reason,
                     std::string message, int64_t generation) {
  meta::Condition c;
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.message = std::move(message);
  c.observed_generation = generation;
  return c;
}

meta::Condition* FindCondition(api::GpuProfileStatus* status, const char* type) {
  for (meta::Condition& c : status->conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

api::GpuProfileStatus DraNotServedStatus(const ProfileObject& object,
                                         const std::string& discovered) {
  const int64_t g = object.metadata.generation;
  api::GpuProfileStatus status;
  status.observed_generation = g;
  if (object.profile.has_value()) status.device_class_name = object.profile->spec.device_class_name;
  const std::string message =
      discovered.empty()
          ? "the API server serves no resource.k8s.io version, so DeviceClasses and "
            "ResourceClaimTemplates cannot be written; enable Dynamic Resource Allocation (on "
            "1.32/1.33: --runtime-config=resource.k8s.io/v1beta1=true and the "
            "DynamicResourceAllocation feature gate); the operator picks it up without a restart"
          : discovered +
                ", so DeviceClasses and ResourceClaimTemplates cannot be written; the operator "
                "picks up a served version without a restart";
  status.conditions = {
      Make(meta::kConditionReady, meta::ConditionStatus::kFalse, kReasonDraNotServed, message, g),
      Make(meta::kConditionReconciling, meta::ConditionStatus::kFalse, kReasonDraNotServed,
           "waiting for resource.k8s.io to be served", g),
      Make(meta::kConditionStalled, meta::ConditionStatus::kTrue, kReasonDraNotServed, message, g),
      Make(meta::kConditionSatisfiable, meta::ConditionStatus::kUnknown, kReasonDraNotServed,
           "no ResourceSlices can be read", g),
      Make(meta::kConditionConflict, meta::ConditionStatus::kFalse, profile::kReasonNoConflict, "",
           g),
  };
  return status;
}

api::GpuProfileStatus UndecodableStatus(const ProfileObject& object) {
  profile::ProfileFacts facts;
  facts.generation = object.metadata.generation;
  facts.valid = false;
  facts.problems = object.decode_error;
  api::GpuProfileStatus status;
  status.observed_generation = object.metadata.generation;
  status.conditions = profile::ProfileConditions(facts);
  return status;
}

void ProgressingOverlay(const std::string& message, api::GpuProfileStatus* status) {
  if (meta::Condition* ready = FindCondition(status, meta::kConditionReady)) {
    if (ready->status == meta::ConditionStatus::kTrue) {
      ready->status = meta::ConditionStatus::kFalse;
      ready->reason = kReasonProgressing;
      ready->message = message;
    }
  }
  if (meta::Condition* reconciling = FindCondition(status, meta::kConditionReconciling)) {
    reconciling->status = meta::ConditionStatus::kTrue;
    reconciling->reason = kReasonProgressing;
    reconciling->message = message;
  }
}

void NotStoredOverlay(const std::string& message, api::GpuProfileStatus* status) {
  for (const char* type : {meta::kConditionReady, meta::kConditionStalled}) {
    if (meta::Condition* c = FindCondition(status, type)) {
      c->status = type == meta::kConditionReady ? meta::ConditionStatus::kFalse
                                                : meta::ConditionStatus::kTrue;
      c->reason = profile::kReasonFeatureNotServed;
      c->message = message;
    }
  }
}

void StampTransitionTimes(const std::map<std::string, StoredCondition>& stored, absl::Time now,
                          api::GpuProfileStatus* status) {
  const std::string stamp = FormatRfc3339Seconds(now);
  for (meta::Condition& c : status->conditions) {
    auto it = stored.find(c.type);
    if (it != stored.end() && it->second.status == meta::ConditionStatusName(c.status) &&
        !it->second.last_transition_time.empty()) {
      c.last_transition_time = it->second.last_transition_time;
    } else {
      c.last_transition_time = stamp;
    }
  }
}

}  // namespace gpuprofile::reconciler
