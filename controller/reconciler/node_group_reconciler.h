// File: controller/reconciler/node_group_reconciler.h
// Keeps the GpuNodeGroups equal to the fleet (docs/design.md §3): one per device signature in
// the desired state. A pass observes (the desired groups, the stored ones, the time), decides
// (node_group_decision.h: pure, the writes and warnings) and acts (every write tried, the first
// error returned). They have a controller of their own (gpu_profile_operator.h) whose queue holds
// one key, kFleetKey: all groups come from one computation, and a slice change can move devices
// between groups, so they are reconciled together. Also exports the gpunodegroup_* gauges
// {node_group} (a group that is gone loses its series). Thread-safety: thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "controller/reconciler/cluster_cache.h"
#include "controller/reconciler/cluster_writer.h"
#include "controller/reconciler/desired_state.h"
#include "controller/reconciler/node_group_decision.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/controller.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::reconciler {

// The node-group controller's only key: the whole fleet.
inline constexpr char kFleetKey[] = "fleet";

struct NodeGroupMetrics {
  runtime::GaugeFamily* devices = nullptr;
  runtime::GaugeFamily* nodes = nullptr;
  runtime::GaugeFamily* schedulable = nullptr;  // gpunodegroup_schedulable_devices{node_group}
  runtime::GaugeFamily* tainted = nullptr;      // gpunodegroup_tainted_devices{node_group}
  runtime::GaugeFamily* allocated = nullptr;    // gpunodegroup_allocated_devices{node_group}
  runtime::GaugeFamily* free = nullptr;         // gpunodegroup_free_devices{node_group}
  // gpuprofile_undecodable_resourceslices: slices whose current version does not decode.
  runtime::GaugeFamily* undecodable_slices = nullptr;
  // gpunodegroup_status_condition{node_group,type,status} (status_metrics.h): OfferedTwice.
  runtime::GaugeFamily* status_condition = nullptr;
  static absl::StatusOr<NodeGroupMetrics> Register(runtime::MetricsRegistry* registry);
};

struct NodeGroupReconcilerOptions {
  ClusterCache* cache = nullptr;
  DesiredStateCache* desired = nullptr;
  ClusterWriter* writer = nullptr;
  const NodeGroupMetrics* metrics = nullptr;  // may be null
  runtime::Clock* clock = nullptr;            // required: condition transition times
  runtime::EventRecorder* events = nullptr;   // may be null: OfferedTwice warnings
  // At most one status patch per group per interval under churn, on the desired state's ticks
  // (status_schedule.h), as for profiles; zero: on every computation that changes it.
  absl::Duration status_interval = absl::ZeroDuration();
};

class NodeGroupReconciler {
 public:
  explicit NodeGroupReconciler(NodeGroupReconcilerOptions options);
  absl::StatusOr<runtime::ReconcileResult> Reconcile();

 private:
  absl::Status Write(const NodeGroupWrite& write);
  void Warn(const NodeGroupEvent& warning);
  void ExportGauges(const Computed& computed) ABSL_LOCKS_EXCLUDED(mu_);

  const NodeGroupReconcilerOptions options_;
  absl::Mutex mu_;
  std::set<std::string> exported_ ABSL_GUARDED_BY(mu_);  // groups with gauges
  // The statuses written in the last kWrittenStatusGrace (node_group_decision.h).
  absl::Mutex written_mu_;
  std::map<std::string, WrittenStatus> written_ ABSL_GUARDED_BY(written_mu_);
  StatusSchedule schedule_ ABSL_GUARDED_BY(written_mu_);
};

}  // namespace gpuprofile::reconciler
