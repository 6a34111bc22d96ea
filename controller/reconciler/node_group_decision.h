// File: controller/reconciler/node_group_decision.h
// The node-group reconciler's decisions as data (docs/design.md §3): from one observation of the
// desired node groups and the stored ones, the writes that make the stored ones equal, and the
// events that go with them. Pure: the reconciler (node_group_reconciler.h) observes and acts.
//
// The decisions:
//  - a desired group not stored: create it, then write its status (a create ignores status);
//    unless this process created it less than kWrittenStatusGrace ago (the cache is behind):
//    then only its status, and only if it changed since;
//  - stored with another status: merge-patch the status subresource with what changed, once the
//    group's status may be written again (status_schedule.h; created groups are written at once).
//    A stored status that round-trips (NodeGroupObject::status_round_trips) is compared typed,
//    and the schedule asked, before anything is encoded;
//  - stored and not desired: delete (uid precondition); GpuNodeGroups are written only by the
//    operator, so every one not desired is the operator's to remove;
//  - a condition keeps the time it last changed status (the engine has no clock), and one that
//    turns OfferedTwice True is a Warning event on the group, raised with the write.
// Thread-safety: pure functions over immutable inputs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/api/gpu_node_group.h"
#include "controller/reconciler/cluster_objects.h"
#include "controller/reconciler/status_schedule.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::reconciler {

// How long a status this process wrote stands in for a cache that does not show it yet.
inline constexpr absl::Duration kWrittenStatusGrace = absl::Seconds(5);

// A status this process wrote (the whole status, conditions without transition times), and when.
struct WrittenStatus {
  nlohmann::json status;
  absl::Time at;
};

struct NodeGroupObservation {
  // The groups the desired state wants (engine output, conditions without times).
  const std::vector<api::GpuNodeGroup>* desired = nullptr;
  // Every stored group (the cache), and the one stored under a name (null: none).
  std::vector<std::shared_ptr<const NodeGroupObject>> stored;
  // The statuses this process wrote, by group name (may be null). A pass that runs right after
  // the one that wrote a status can read a cache its watch has not brought the write to yet:
  // when the status it would write is the one written less than kWrittenStatusGrace ago, it
  // does not write it again (the benchmark saw the last group of a pass patched twice, 6 ms
  // apart), and comes back once the grace ends to check against the cache.
  const std::map<std::string, WrittenStatus>* written = nullptr;
  // When each group's status may next be patched (may be null: whenever it changes). Under
  // churn a group's status changes on every computation; a patch before its time waits for it.
  const StatusSchedule* schedule = nullptr;
  absl::Time now;
};

struct NodeGroupWrite {
  enum class Verb {
    kCreate,       // create `object`, then write `status` whole
    kPatchStatus,  // merge-patch the status subresource with `status`
    kDelete,       // delete `name` with the `uid` precondition
  };
  Verb verb = Verb::kCreate;
  std::string name;
  std::string uid;
  nlohmann::json object;
  nlohmann::json status;
  // kCreate and kPatchStatus: the whole status the group has after the write, conditions without
  // transition times (what WrittenStatus keeps).
  nlohmann::json full_status;
  bool operator==(const NodeGroupWrite& other) const {
    return verb == other.verb && name == other.name && uid == other.uid && object == other.object &&
           status == other.status;
  }
};

struct NodeGroupEvent {
  std::string name;
  std::string uid;  // empty: the group is not stored yet
  std::string reason;
  std::string message;
  bool operator==(const NodeGroupEvent& other) const {
    return name == other.name && uid == other.uid && reason == other.reason &&
           message == other.message;
  }
};

struct NodeGroupPlan {
  std::vector<NodeGroupEvent> warnings;  // recorded first
  std::vector<NodeGroupWrite> writes;    // every one tried, in this order
  // Non-zero when a status write was held back for a recent one: reconcile again after this.
  absl::Duration recheck_after = absl::ZeroDuration();
};

// `status` (an encoded GpuNodeGroupStatus) without its conditions' transition times.
nlohmann::json WithoutTransitionTimes(nlohmann::json status);

NodeGroupPlan DecideNodeGroups(const NodeGroupObservation& seen);

}  // namespace gpuprofile::reconciler
