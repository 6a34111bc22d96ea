// File: controller/reconciler/status_metrics.cc
#include "controller/reconciler/status_metrics.h"

#include "absl/time/time.h"
#include "controller/api/gpu_node_group.h"

namespace gpuprofile::reconciler {
namespace {

constexpr meta::ConditionStatus kConditionStatuses[] = {
    meta::ConditionStatus::kTrue, meta::ConditionStatus::kFalse, meta::ConditionStatus::kUnknown};

}  // namespace

const std::vector<std::string>& ProfileConditionTypes() {
  static const std::vector<std::string>* const types = new std::vector<std::string>{
      meta::kConditionReady, meta::kConditionReconciling, meta::kConditionStalled,
      meta::kConditionSatisfiable, meta::kConditionConflict};
  return *types;
}

const std::vector<std::string>& NodeGroupConditionTypes() {
  static const std::vector<std::string>* const types =
      new std::vector<std::string>{api::kConditionOfferedTwice};
  return *types;
}

void SetConditionGauges(runtime::GaugeFamily* family, const std::string& object,
                        const std::vector<std::string>& types,
                        const std::vector<meta::Condition>& conditions,
                        meta::ConditionStatus absent) {
  for (const std::string& type : types) {
    const meta::Condition* condition = meta::FindCondition(conditions, type);
    const meta::ConditionStatus current = condition == nullptr ? absent : condition->status;
    for (meta::ConditionStatus status : kConditionStatuses) {
      family->WithLabels({object, type, meta::ConditionStatusName(status)})
          ->Set(status == current ? 1 : 0);
    }
  }
}

void RemoveConditionGauges(runtime::GaugeFamily* family, const std::string& object,
                           const std::vector<std::string>& types) {
  for (const std::string& type : types) {
    for (meta::ConditionStatus status : kConditionStatuses) {
      family->Remove({object, type, meta::ConditionStatusName(status)});
    }
  }
}

void SetOldestPendingClaim(runtime::GaugeFamily* family, const std::string& profile,
                           const api::AllocationCounts& allocation) {
  absl::Time created;
  std::string error;
  if (allocation.pending_claims <= 0 || allocation.oldest_pending_claim_time.empty() ||
      !absl::ParseTime(absl::RFC3339_full, allocation.oldest_pending_claim_time, &created,
                       &error)) {
    family->Remove({profile});
    return;
  }
  family->WithLabels({profile})->Set(absl::ToDoubleSeconds(created - absl::UnixEpoch()));
}

}  // namespace gpuprofile::reconciler
