// File: controller/reconciler/node_group_reconciler.cc
#include "controller/reconciler/node_group_reconciler.h"

#include <utility>

#include "absl/time/time.h"
#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile.h"
#include "controller/core/rfc3339.h"
#include "controller/core/status_macros.h"
#include "controller/kube/api_error.h"
#include "controller/kube/merge_patch.h"
#include "controller/profile/engine.h"

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
  return m;
}

NodeGroupReconciler::NodeGroupReconciler(NodeGroupReconcilerOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<runtime::ReconcileResult> NodeGroupReconciler::Reconcile() {
  ClusterCache& cache = *options_.cache;
  if (!cache.dra_version().has_value()) return runtime::ReconcileResult{};
  // After reading the version: HasSynced then covers the DRA informers.
  if (!cache.HasSynced()) return runtime::ReconcileResult{false, absl::Seconds(1)};
  const DesiredSnapshot snapshot = options_.desired->Get();
  const Computed* computed = snapshot.computed.get();
  absl::Status first_error;
  const auto fail = [&](absl::Status status) {
    if (first_error.ok()) first_error = std::move(status);
  };

  std::set<std::string> desired_names;
  for (const api::GpuNodeGroup& desired : computed->desired.node_groups) {
    const std::string& name = desired.metadata.name;
    desired_names.insert(name);
    std::shared_ptr<const NodeGroupObject> actual = cache.node_groups().Get(name);
    // A condition keeps the time it last changed status (the engine has no clock); a new one,
    // an OfferedTwice, is also a Warning event on the group.
    api::GpuNodeGroup group = desired;
    for (api::Condition& c : group.status.conditions) {
      const api::Condition* before =
          actual != nullptr ? api::FindCondition(actual->group.status.conditions, c.type) : nullptr;
      if (before != nullptr && before->status == c.status) {
        c.last_transition_time = before->last_transition_time;
        continue;
      }
      c.last_transition_time = FormatRfc3339Seconds(options_.clock->Now());
      if (c.type == api::kConditionOfferedTwice && c.status == api::ConditionStatus::kTrue &&
          options_.events != nullptr) {
        runtime::ObjectReference regarding;
        regarding.api_version = api::kApiVersion;
        regarding.kind = api::kGpuNodeGroupKind;
        regarding.name = name;
        if (actual != nullptr) regarding.uid = actual->group.metadata.uid;
        // Best effort: an event that cannot be written must not fail the reconcile.
        options_.events
            ->Record(regarding, runtime::EventType::kWarning, c.reason, "Observe", c.message)
            .IgnoreError();
      }
    }
    const nlohmann::json status = api::EncodeGpuNodeGroupStatus(group.status);
    if (actual == nullptr) {
      api::GpuNodeGroup labelled = group;
      labelled.metadata.labels[profile::kManagedByLabel] = profile::kManagedByValue;
      nlohmann::json object = api::EncodeGpuNodeGroup(labelled, false);
      object.erase("status");
      absl::Status created = options_.writer->CreateNodeGroup(object);
      if (!created.ok() && !kube::apierrors::IsAlreadyExists(created)) {
        fail(created);
        continue;
      }
      fail(options_.writer->PatchNodeGroupStatus(name, status));
    } else if (actual->status != status) {
      fail(options_.writer->PatchNodeGroupStatus(name,
                                                 kube::CreateMergePatch(actual->status, status)));
    }
  }
  for (const auto& actual : cache.node_groups().List()) {
    const api::ObjectMeta& meta = actual->group.metadata;
    if (desired_names.count(meta.name) > 0) continue;
    fail(options_.writer->DeleteNodeGroup(meta.name, meta.uid));
  }

  if (options_.metrics != nullptr) {
    absl::MutexLock lock(&mu_);
    for (const std::string& gone : exported_) {
      if (desired_names.count(gone) > 0) continue;
      options_.metrics->devices->WithLabels({gone})->Set(0);
      options_.metrics->nodes->WithLabels({gone})->Set(0);
      options_.metrics->schedulable->WithLabels({gone})->Set(0);
      options_.metrics->tainted->WithLabels({gone})->Set(0);
      options_.metrics->allocated->WithLabels({gone})->Set(0);
      options_.metrics->free->WithLabels({gone})->Set(0);
    }
    for (const api::GpuNodeGroup& group : computed->desired.node_groups) {
      options_.metrics->devices->WithLabels({group.metadata.name})
          ->Set(static_cast<double>(group.status.devices));
      options_.metrics->nodes->WithLabels({group.metadata.name})
          ->Set(static_cast<double>(group.status.node_count));
      options_.metrics->schedulable->WithLabels({group.metadata.name})
          ->Set(static_cast<double>(group.status.schedulable_devices));
      options_.metrics->tainted->WithLabels({group.metadata.name})
          ->Set(static_cast<double>(group.status.tainted_devices));
      options_.metrics->allocated->WithLabels({group.metadata.name})
          ->Set(static_cast<double>(group.status.allocated_devices));
      options_.metrics->free->WithLabels({group.metadata.name})
          ->Set(static_cast<double>(group.status.free_devices));
    }
    options_.metrics->undecodable_slices->WithLabels({})->Set(
        static_cast<double>(computed->undecodable_slices));
    exported_ = desired_names;
  }
  if (!first_error.ok()) return first_error;
  // A stale snapshot: come back once a fresh one covers every change.
  return runtime::ReconcileResult{false, snapshot.retry_after};
}

}  // namespace gpuprofile::reconciler
