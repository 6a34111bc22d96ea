// File: controller/reconciler/node_group_decision.cc
#include "controller/reconciler/node_group_decision.h"

#include <map>
#include <set>
#include <utility>

#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile.h"
#include "controller/core/rfc3339.h"
#include "controller/kube/merge_patch.h"
#include "controller/profile/engine.h"

namespace gpuprofile::reconciler {
namespace {

// `group`'s conditions with the transition times they had in `stored` when their status did not
// change, else `now`; a new OfferedTwice=True is a warning.
void StampConditions(const NodeGroupObject* stored, absl::Time now, api::GpuNodeGroup* group,
                     std::vector<NodeGroupEvent>* warnings) {
  for (meta::Condition& c : group->status.conditions) {
    const meta::Condition* before =
        stored != nullptr ? meta::FindCondition(stored->group.status.conditions, c.type) : nullptr;
    if (before != nullptr && before->status == c.status) {
      c.last_transition_time = before->last_transition_time;
      continue;
    }
    c.last_transition_time = FormatRfc3339Seconds(now);
    if (c.type == api::kConditionOfferedTwice && c.status == meta::ConditionStatus::kTrue) {
      warnings->push_back(NodeGroupEvent{group->metadata.name,
                                         stored != nullptr ? stored->group.metadata.uid : "",
                                         c.reason, c.message});
    }
  }
}

// The plan comes back after `wait` at the latest.
void RecheckWithin(absl::Duration wait, absl::Duration* recheck_after) {
  if (*recheck_after == absl::ZeroDuration() || wait < *recheck_after) *recheck_after = wait;
}

// What this process wrote for `name` less than the grace ago (null: nothing).
const WrittenStatus* RecentWrite(const NodeGroupObservation& seen, const std::string& name) {
  if (seen.written == nullptr) return nullptr;
  const auto it = seen.written->find(name);
  if (it == seen.written->end() || it->second.at + kWrittenStatusGrace <= seen.now) return nullptr;
  return &it->second;
}

// Whether `full_status` is what this process wrote for `name` less than the grace ago; if so,
// the plan comes back when the grace ends.
bool WrittenRecently(const NodeGroupObservation& seen, const std::string& name,
                     const nlohmann::json& full_status, absl::Duration* recheck_after) {
  const WrittenStatus* recent = RecentWrite(seen, name);
  if (recent == nullptr || recent->status != full_status) return false;
  RecheckWithin(recent->at + kWrittenStatusGrace - seen.now, recheck_after);
  return true;
}

// The writes that make `stored` (null: none) equal to `group`.
void PlanGroup(const NodeGroupObservation& seen, const NodeGroupObject* stored,
               const api::GpuNodeGroup& group, NodeGroupPlan* plan) {
  nlohmann::json status = api::EncodeGpuNodeGroupStatus(group.status);
  NodeGroupWrite write;
  write.name = group.metadata.name;
  write.full_status = WithoutTransitionTimes(status);
  const WrittenStatus* recent = stored == nullptr ? RecentWrite(seen, write.name) : nullptr;
  if (recent != nullptr) {
    // Created by this process moments ago, and not in the cache yet: not created again (that
    // would be a 409), and its status patched only if it changed since.
    if (WrittenRecently(seen, write.name, write.full_status, &plan->recheck_after)) return;
    write.verb = NodeGroupWrite::Verb::kPatchStatus;
    write.status = kube::CreateMergePatch(recent->status, status);
  } else if (stored == nullptr) {
    api::GpuNodeGroup labelled = group;
    labelled.metadata.labels[profile::kManagedByLabel] = profile::kManagedByValue;
    write.verb = NodeGroupWrite::Verb::kCreate;
    write.object = api::EncodeGpuNodeGroup(labelled, false);
    write.object.erase("status");
    write.status = std::move(status);
  } else if (stored->status != status) {
    // The schedule was asked before (HeldBySchedule).
    if (WrittenRecently(seen, write.name, write.full_status, &plan->recheck_after)) return;
    write.verb = NodeGroupWrite::Verb::kPatchStatus;
    write.status = kube::CreateMergePatch(stored->status, status);
  } else {
    return;
  }
  plan->writes.push_back(std::move(write));
}

// Whether the stored group already has `desired`'s status: compared typed, which costs no
// encoding (node groups' statuses hold up to 100 node names each, and this runs on every pass,
// most of which change nothing of a group). Only when the stored status round-trips, so that the
// typed comparison is the stored one's.
bool Unchanged(const NodeGroupObject& stored, const api::GpuNodeGroup& desired) {
  return stored.status_round_trips &&
         api::EqualButTransitionTimes(desired.status, stored.group.status);
}

// Whether the stored group's status may not be written yet (status_schedule.h); if so, the plan
// comes back when it may. Asked before the status is encoded: under churn a group's status
// changes on most computations and waits on most passes.
bool HeldBySchedule(const NodeGroupObservation& seen, const std::string& name,
                    absl::Duration* recheck_after) {
  if (seen.schedule == nullptr) return false;
  const absl::Duration wait = seen.schedule->Wait(name, seen.now);
  if (wait <= absl::ZeroDuration()) return false;
  RecheckWithin(wait, recheck_after);
  return true;
}

}  // namespace

nlohmann::json WithoutTransitionTimes(nlohmann::json status) {
  auto conditions = status.find("conditions");
  if (conditions != status.end() && conditions->is_array()) {
    for (nlohmann::json& c : *conditions) {
      if (c.is_object()) c.erase("lastTransitionTime");
    }
  }
  return status;
}

NodeGroupPlan DecideNodeGroups(const NodeGroupObservation& seen) {
  NodeGroupPlan plan;
  std::map<std::string, const NodeGroupObject*> stored_by_name;
  for (const auto& stored : seen.stored) stored_by_name[stored->group.metadata.name] = stored.get();
  std::set<std::string> desired_names;
  for (const api::GpuNodeGroup& desired : *seen.desired) {
    const std::string& name = desired.metadata.name;
    desired_names.insert(name);
    const auto it = stored_by_name.find(name);
    const NodeGroupObject* stored = it == stored_by_name.end() ? nullptr : it->second;
    if (stored != nullptr && (Unchanged(*stored, desired) ||
                              HeldBySchedule(seen, name, &plan.recheck_after))) {
      continue;
    }
    api::GpuNodeGroup group = desired;
    StampConditions(stored, seen.now, &group, &plan.warnings);
    PlanGroup(seen, stored, group, &plan);
  }
  for (const auto& stored : seen.stored) {
    const meta::ObjectMeta& meta = stored->group.metadata;
    if (desired_names.count(meta.name) > 0) continue;
    NodeGroupWrite remove;
    remove.verb = NodeGroupWrite::Verb::kDelete;
    remove.name = meta.name;
    remove.uid = meta.uid;
    plan.writes.push_back(std::move(remove));
  }
  return plan;
}

}  // namespace gpuprofile::reconciler
