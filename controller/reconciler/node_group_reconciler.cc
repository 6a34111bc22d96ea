// File: controller/reconciler/node_group_reconciler.cc
#include "controller/reconciler/node_group_reconciler.h"

#include <utility>

#include "absl/time/time.h"
#include "controller/api/gpu_profile.h"
#include "controller/core/status_macros.h"
#include "controller/kube/api_error.h"
#include "controller/reconciler/status_metrics.h"

namespace gpuprofile::reconciler {

absl::StatusOr<NodeGroupMetrics> NodeGroupMetrics::Register(runtime::MetricsRegistry* registry) {
  NodeGroupMetrics m;
  ASSIGN_OR_RETURN(m.devices,
                   registry->RegisterGauge("gpunodegroup_devices",
                                           "Devices published in the node group.", {"node_group"}));
  ASSIGN_OR_RETURN(m.nodes, registry->RegisterGauge("gpunodegroup_nodes",
                                                    "Nodes in the node group.", {"node_group"}));
  ASSIGN_OR_RETURN(m.schedulable,
                   registry->RegisterGauge("gpunodegroup_schedulable_devices",
                                           "Devices of the node group the scheduler could allocate "
                                           "at once to claims that tolerate no taint.",
                                           {"node_group"}));
  ASSIGN_OR_RETURN(m.tainted, registry->RegisterGauge(
                                  "gpunodegroup_tainted_devices",
                                  "Devices of the node group with a NoSchedule or NoExecute taint.",
                                  {"node_group"}));
  ASSIGN_OR_RETURN(m.allocated, registry->RegisterGauge("gpunodegroup_allocated_devices",
                                                        "Devices of the node group claims hold.",
                                                        {"node_group"}));
  ASSIGN_OR_RETURN(m.free,
                   registry->RegisterGauge("gpunodegroup_free_devices",
                                           "Schedulable devices of the node group no claim holds.",
                                           {"node_group"}));
  ASSIGN_OR_RETURN(m.undecodable_slices,
                   registry->RegisterGauge("gpuprofile_undecodable_resourceslices",
                                           "ResourceSlices whose current version does not decode "
                                           "(their devices are not counted).",
                                           {}));
  ASSIGN_OR_RETURN(m.status_condition,
                   registry->RegisterGauge("gpunodegroup_status_condition",
                                           "1 for the status the node group's condition of this "
                                           "type has (True, False or Unknown), else 0.",
                                           {"node_group", "type", "status"}));
  return m;
}

NodeGroupReconciler::NodeGroupReconciler(NodeGroupReconcilerOptions options)
    : options_(std::move(options)), schedule_(options_.status_interval, kDesiredStateTick) {}

absl::StatusOr<runtime::ReconcileResult> NodeGroupReconciler::Reconcile() {
  ClusterCache& cache = *options_.cache;
  if (!cache.dra_version().has_value()) return runtime::ReconcileResult{};
  // After reading the version: HasSynced then covers the DRA informers.
  if (!cache.HasSynced()) return runtime::ReconcileResult{false, absl::Seconds(1)};
  const DesiredSnapshot snapshot = options_.desired->Get();
  absl::MutexLock lock(&written_mu_);
  NodeGroupObservation seen;
  seen.desired = &snapshot.computed->desired.node_groups;
  seen.stored = cache.node_groups().List();
  seen.now = options_.clock->Now();
  for (auto it = written_.begin(); it != written_.end();) {
    it = seen.now - it->second.at >= kWrittenStatusGrace ? written_.erase(it) : std::next(it);
  }
  seen.written = &written_;
  seen.schedule = &schedule_;
  const NodeGroupPlan plan = DecideNodeGroups(seen);
  for (const NodeGroupEvent& warning : plan.warnings) Warn(warning);
  absl::Status first_error;
  for (const NodeGroupWrite& write : plan.writes) {
    absl::Status written = Write(write);
    if (written.ok() && write.verb != NodeGroupWrite::Verb::kDelete) {
      written_[write.name] = WrittenStatus{write.full_status, seen.now};
      schedule_.Wrote(write.name, seen.now);
    } else {
      written_.erase(write.name);
      if (write.verb == NodeGroupWrite::Verb::kDelete) schedule_.Forget(write.name);
    }
    if (first_error.ok()) first_error = std::move(written);
  }
  ExportGauges(*snapshot.computed);
  if (!first_error.ok()) return first_error;
  // A stale snapshot: come back once a fresh one covers every change; a status held back for a
  // recent write: once its grace ends.
  absl::Duration after = snapshot.retry_after;
  if (plan.recheck_after > absl::ZeroDuration() &&
      (after == absl::ZeroDuration() || plan.recheck_after < after)) {
    after = plan.recheck_after;
  }
  return runtime::ReconcileResult{false, after};
}

absl::Status NodeGroupReconciler::Write(const NodeGroupWrite& write) {
  ClusterWriter& writer = *options_.writer;
  switch (write.verb) {
    case NodeGroupWrite::Verb::kCreate: {
      absl::Status created = writer.CreateNodeGroup(write.object);
      if (!created.ok() && !kube::apierrors::IsAlreadyExists(created)) return created;
      return writer.PatchNodeGroupStatus(write.name, write.status);
    }
    case NodeGroupWrite::Verb::kPatchStatus:
      return writer.PatchNodeGroupStatus(write.name, write.status);
    case NodeGroupWrite::Verb::kDelete:
      return writer.DeleteNodeGroup(write.name, write.uid);
  }
  return absl::InternalError("unknown node group write");
}

void NodeGroupReconciler::Warn(const NodeGroupEvent& warning) {
  if (options_.events == nullptr) return;
  runtime::ObjectReference regarding;
  regarding.api_version = api::kApiVersion;
  regarding.kind = api::kGpuNodeGroupKind;
  regarding.name = warning.name;
  regarding.uid = warning.uid;
  // Best effort: an event that cannot be written must not fail the reconcile.
  options_.events
      ->Record(regarding, runtime::EventType::kWarning, warning.reason, "Observe", warning.message)
      .IgnoreError();
}

void NodeGroupReconciler::ExportGauges(const Computed& computed) {
  if (options_.metrics == nullptr) return;
  const NodeGroupMetrics& m = *options_.metrics;
  const auto set = [&m](const std::string& group, const api::GpuNodeGroupStatus& status) {
    const auto value = [&status](int64_t api::GpuNodeGroupStatus::*field) {
      return static_cast<double>(status.*field);
    };
    m.devices->WithLabels({group})->Set(value(&api::GpuNodeGroupStatus::devices));
    m.nodes->WithLabels({group})->Set(value(&api::GpuNodeGroupStatus::node_count));
    m.schedulable->WithLabels({group})->Set(value(&api::GpuNodeGroupStatus::schedulable_devices));
    m.tainted->WithLabels({group})->Set(value(&api::GpuNodeGroupStatus::tainted_devices));
    m.allocated->WithLabels({group})->Set(value(&api::GpuNodeGroupStatus::allocated_devices));
    m.free->WithLabels({group})->Set(value(&api::GpuNodeGroupStatus::free_devices));
    // OfferedTwice is present only when True.
    SetConditionGauges(m.status_condition, group, NodeGroupConditionTypes(), status.conditions,
                       meta::ConditionStatus::kFalse);
  };
  // A group that is gone loses its series (Prometheus marks them stale).
  const auto remove = [&m](const std::string& group) {
    for (runtime::GaugeFamily* gauge :
         {m.devices, m.nodes, m.schedulable, m.tainted, m.allocated, m.free}) {
      gauge->Remove({group});
    }
    RemoveConditionGauges(m.status_condition, group, NodeGroupConditionTypes());
  };
  std::set<std::string> desired_names;
  for (const api::GpuNodeGroup& group : computed.desired.node_groups) {
    desired_names.insert(group.metadata.name);
  }
  absl::MutexLock lock(&mu_);
  for (const std::string& gone : exported_) {
    if (desired_names.count(gone) == 0) remove(gone);
  }
  for (const api::GpuNodeGroup& group : computed.desired.node_groups) {
    set(group.metadata.name, group.status);
  }
  m.undecodable_slices->WithLabels({})->Set(static_cast<double>(computed.undecodable_slices));
  exported_ = std::move(desired_names);
}

}  // namespace gpuprofile::reconciler
