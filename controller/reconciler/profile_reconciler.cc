// File: controller/reconciler/profile_reconciler.cc
#include "controller/reconciler/profile_reconciler.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/core/status_macros.h"
#include "controller/kube/api_error.h"
#include "controller/kube/merge_patch.h"
#include "controller/reconciler/profile_status.h"
#include "controller/reconciler/status_metrics.h"

namespace gpuprofile::reconciler {
namespace {

// The sooner of two results' requeue times (errors win).
absl::StatusOr<runtime::ReconcileResult> Later(absl::StatusOr<runtime::ReconcileResult> result,
                                               const runtime::ReconcileResult& also) {
  if (!result.ok() || also.requeue_after <= absl::ZeroDuration()) return result;
  if (result->requeue_after <= absl::ZeroDuration() || also.requeue_after < result->requeue_after) {
    result->requeue_after = also.requeue_after;
  }
  return result;
}

// What the caches hold that concerns profile `name` (object_plan.h). Errors: an index the
// stores do not have.
absl::StatusOr<ObservedObjects> ObserveObjects(const ClusterCache& cache, const std::string& name,
                                               const dra::DeviceClass* desired_class) {
  ObservedObjects observed;
  // Quotas are cached whether or not DRA is served.
  const runtime::Store<meta::ResourceQuota>* quotas = &cache.quotas();
  ASSIGN_OR_RETURN(observed.labelled_quotas, quotas->ByIndex(kByProfileLabel, name));
  observed.quota_at = [quotas](const std::string& ns, const std::string& quota_name) {
    return quotas->Get(absl::StrCat(ns, "/", quota_name));
  };
  const auto* classes = cache.device_classes();
  const auto* templates = cache.claim_templates();
  if (classes == nullptr || templates == nullptr) return observed;
  if (desired_class != nullptr) {
    observed.class_with_desired_name = classes->Get(desired_class->metadata.name);
  }
  ASSIGN_OR_RETURN(observed.labelled_classes, classes->ByIndex(kByProfileLabel, name));
  ASSIGN_OR_RETURN(observed.labelled_templates, templates->ByIndex(kByProfileLabel, name));
  observed.template_at = [templates](const std::string& ns, const std::string& template_name) {
    return templates->Get(absl::StrCat(ns, "/", template_name));
  };
  return observed;
}

// Whether `record` was made for this snapshot's plan, these cached objects and this incarnation
// and generation of the profile.
bool StillInPlace(const ObjectsInPlace& record, const ProfileObservation& seen) {
  const meta::ObjectMeta& meta = seen.object->metadata;
  return record.plan_id == seen.snapshot.computed->plan_id &&
         record.owned_version == seen.owned_version && record.uid == meta.uid &&
         record.generation == meta.generation;
}

}  // namespace

absl::StatusOr<ProfileMetrics> ProfileMetrics::Register(runtime::MetricsRegistry* registry) {
  ProfileMetrics m;
  ASSIGN_OR_RETURN(m.matched_devices,
                   registry->RegisterGauge("gpuprofile_matched_devices",
                                           "Devices the profile's selectors select.", {"profile"}));
  ASSIGN_OR_RETURN(m.matched_nodes,
                   registry->RegisterGauge("gpuprofile_matched_nodes",
                                           "Nodes with devices the profile selects.", {"profile"}));
  ASSIGN_OR_RETURN(m.ready,
                   registry->RegisterGauge("gpuprofile_ready",
                                           "1 when the profile's Ready condition is True, else 0.",
                                           {"profile"}));
  ASSIGN_OR_RETURN(m.allocated_devices,
                   registry->RegisterGauge("gpuprofile_allocated_devices",
                                           "Devices allocated to claims from the profile's class.",
                                           {"profile"}));
  ASSIGN_OR_RETURN(
      m.free_devices,
      registry->RegisterGauge("gpuprofile_free_devices",
                              "Schedulable devices of the profile no claim holds.", {"profile"}));
  ASSIGN_OR_RETURN(m.pending_claims,
                   registry->RegisterGauge("gpuprofile_pending_claims",
                                           "Claims not yet allocated that could use the "
                                           "profile's class.",
                                           {"profile"}));
  ASSIGN_OR_RETURN(m.status_condition,
                   registry->RegisterGauge("gpuprofile_status_condition",
                                           "1 for the status the profile's condition of this "
                                           "type has (True, False or Unknown), else 0.",
                                           {"profile", "type", "status"}));
  ASSIGN_OR_RETURN(m.oldest_pending_claim,
                   registry->RegisterGauge(
                       "gpuprofile_oldest_pending_claim_creation_timestamp_seconds",
                       "Creation time (Unix seconds) of the oldest pending claim that could use "
                       "the profile's class; no series when none is pending.",
                       {"profile"}));
  return m;
}

ProfileReconciler::ProfileReconciler(ProfileReconcilerOptions options)
    : options_(std::move(options)),
      created_(options_.clock),
      status_schedule_(options_.status_interval, options_.status_tick) {}

absl::StatusOr<runtime::ReconcileResult> ProfileReconciler::Reconcile(const std::string& name) {
  ASSIGN_OR_RETURN(ProfileObservation seen, Observe(name));
  return Act(seen, DecideProfile(seen));
}

absl::StatusOr<ProfileObservation> ProfileReconciler::Observe(const std::string& name) {
  const ClusterCache& cache = *options_.cache;
  ProfileObservation seen;
  seen.name = name;
  seen.object = cache.profiles().Get(name);
  if (seen.object == nullptr) return seen;
  // The served DRA version first, then HasSynced, which covers the DRA informers once a version
  // is set: read the other way round, DRA could be switched on in between and the profile be
  // computed against an empty inventory (Satisfiable=False for a moment).
  seen.dra_version = cache.dra_version();
  seen.synced = cache.HasSynced();
  if (!seen.synced) return seen;
  if (seen.object->metadata.deletion_timestamp.has_value()) {
    // Without DRA served the observed objects are the quotas alone (core/v1).
    ASSIGN_OR_RETURN(seen.objects, ObserveObjects(cache, name, nullptr));
    return seen;
  }
  if (!seen.dra_version.has_value()) {
    if (options_.dra_discovery) seen.dra_discovery = options_.dra_discovery();
    return seen;
  }
  if (!seen.object->profile.has_value()) return seen;
  seen.snapshot = options_.desired->Get();
  if (options_.kueue_config) seen.kueue = options_.kueue_config();
  // Read before the objects are: a change during the pass makes the next pass plan again.
  seen.owned_version = cache.owned_version();
  {
    absl::MutexLock lock(&mu_);
    if (auto it = in_place_.find(name); it != in_place_.end() && StillInPlace(it->second, seen)) {
      seen.in_place = it->second;
    }
    if (auto it = written_templates_.find(name); it != written_templates_.end()) {
      seen.written = it->second;
    }
  }
  if (!seen.in_place.has_value()) {
    ASSIGN_OR_RETURN(seen.objects,
                     ObserveObjects(cache, name, DesiredClassOf(*seen.snapshot.computed, name)));
    if (const auto* templates = cache.claim_templates()) {
      seen.awaited_templates = created_.Awaited(
          name, [templates](const std::string& key) { return templates->Get(key) != nullptr; });
    }
  }
  return seen;
}

absl::StatusOr<runtime::ReconcileResult> ProfileReconciler::Act(const ProfileObservation& seen,
                                                                ProfilePlan plan) {
  if (plan.purpose == ProfilePlan::Purpose::kForget) {
    Forget(seen.name);
    return runtime::ReconcileResult{};
  }
  const ProfileObject& object = *seen.object;
  if (plan.finalizers_before.has_value()) {
    // A conflict means the cache is behind; the update event brings the profile back.
    RETURN_IF_ERROR(
        options_.writer->SetProfileFinalizers(object.metadata, *plan.finalizers_before));
  }
  if (plan.purpose == ProfilePlan::Purpose::kApply ||
      plan.purpose == ProfilePlan::Purpose::kCleanup) {
    ApplyObjects(seen, &plan);
  }
  for (const PlannedEvent& event : plan.events) Event(object, event);
  absl::StatusOr<runtime::ReconcileResult> written = runtime::ReconcileResult{};
  if (plan.status.has_value()) written = WriteStatus(object, *std::move(plan.status));
  if (!plan.error.ok()) return plan.error;
  if (plan.finalizers_after.has_value()) {
    absl::Status removed =
        options_.writer->SetProfileFinalizers(object.metadata, *plan.finalizers_after);
    if (!removed.ok() && !kube::apierrors::IsNotFound(removed)) return removed;
    return runtime::ReconcileResult{};
  }
  if (plan.result.requeue) return plan.result;
  return Later(written, plan.result);
}

void ProfileReconciler::ApplyObjects(const ProfileObservation& seen, ProfilePlan* plan) {
  // Without DRA served (a cleanup of quotas alone) the version handed to the executor is never
  // used.
  const AppliedChanges changes =
      ExecutePlan(plan->actions, seen.dra_version.value_or(dra::DraApiVersion::kV1),
                  options_.writer, options_.foreign);
  ConcludeProfile(seen, changes, plan);
  if (plan->purpose != ProfilePlan::Purpose::kApply) return;
  const profile::TemplateSet* desired = DesiredTemplatesOf(*seen.snapshot.computed, seen.name);
  std::shared_ptr<const WrittenTemplates> written =
      TemplatesWrittenAfter(seen.written, desired, changes);
  for (const ObjectRef& object : changes.created) {
    if (object.kind == ObjectKind::kClaimTemplate) created_.Expect(seen.name, object.Key());
  }
  absl::MutexLock lock(&mu_);
  if (written != seen.written) written_templates_[seen.name] = std::move(written);
  if (plan->remember_in_place.has_value()) in_place_[seen.name] = *plan->remember_in_place;
}

absl::Duration ProfileReconciler::StatusWait(const std::string& name) {
  const absl::Time now = options_.clock->Now();
  absl::MutexLock lock(&mu_);
  return status_schedule_.Wait(name, now);
}

void ProfileReconciler::Forget(const std::string& name) {
  created_.Forget(name);
  absl::MutexLock lock(&mu_);
  status_schedule_.Forget(name);
  last_warning_.erase(name);
  in_place_.erase(name);
  // A deleted profile's series go (Prometheus marks them stale), so no alert or dashboard keeps
  // a profile that is gone; a key that never named a profile has none.
  if (options_.metrics == nullptr) return;
  const ProfileMetrics& m = *options_.metrics;
  for (runtime::GaugeFamily* gauge :
       {m.matched_devices, m.matched_nodes, m.ready, m.allocated_devices, m.free_devices,
        m.pending_claims, m.oldest_pending_claim}) {
    gauge->Remove({name});
  }
  RemoveConditionGauges(m.status_condition, name, ProfileConditionTypes());
}

absl::StatusOr<runtime::ReconcileResult> ProfileReconciler::WriteStatus(
    const ProfileObject& object, api::GpuProfileStatus status) {
  const std::string& name = object.metadata.name;
  const absl::Time now = options_.clock->Now();
  StampTransitionTimes(StoredConditions(object.status), now, &status);
  ExportGauges(name, status);
  const nlohmann::json encoded = api::EncodeGpuProfileStatus(status);
  if (encoded == object.status) return runtime::ReconcileResult{};
  {
    absl::MutexLock lock(&mu_);
    const absl::Duration wait = status_schedule_.Wait(name, now);
    if (wait > absl::ZeroDuration()) return runtime::ReconcileResult{false, wait};
    status_schedule_.Wrote(name, now);
  }
  // Only what changed, and null for what went away (kube/merge_patch.h).
  absl::Status written =
      options_.writer->PatchProfileStatus(name, kube::CreateMergePatch(object.status, encoded));
  if (kube::apierrors::IsNotFound(written)) return runtime::ReconcileResult{};
  if (!written.ok()) return written;
  return runtime::ReconcileResult{};
}

void ProfileReconciler::ExportGauges(const std::string& name, const api::GpuProfileStatus& status) {
  if (options_.metrics == nullptr) return;
  const ProfileMetrics& m = *options_.metrics;
  m.matched_devices->WithLabels({name})->Set(static_cast<double>(status.matched_devices));
  m.matched_nodes->WithLabels({name})->Set(static_cast<double>(status.matched_nodes));
  m.allocated_devices->WithLabels({name})->Set(
      static_cast<double>(status.allocation.allocated_devices));
  m.free_devices->WithLabels({name})->Set(static_cast<double>(status.allocation.free_devices));
  m.pending_claims->WithLabels({name})->Set(static_cast<double>(status.allocation.pending_claims));
  const meta::Condition* ready = meta::FindCondition(status.conditions, meta::kConditionReady);
  m.ready->WithLabels({name})->Set(
      ready != nullptr && ready->status == meta::ConditionStatus::kTrue ? 1 : 0);
  SetConditionGauges(m.status_condition, name, ProfileConditionTypes(), status.conditions,
                     meta::ConditionStatus::kUnknown);
  SetOldestPendingClaim(m.oldest_pending_claim, name, status.allocation);
}

void ProfileReconciler::Event(const ProfileObject& object, const PlannedEvent& event) {
  if (options_.events == nullptr) return;
  if (event.warning) {
    absl::MutexLock lock(&mu_);
    std::string& last = last_warning_[object.metadata.name];
    std::string key = absl::StrCat(event.reason, "\n", event.note);
    if (last == key) return;
    last = std::move(key);
  }
  runtime::ObjectReference regarding;
  regarding.api_version = api::kApiVersion;
  regarding.kind = api::kGpuProfileKind;
  regarding.name = object.metadata.name;
  regarding.uid = object.metadata.uid;
  regarding.resource_version = object.metadata.resource_version;
  // Best effort: an event that cannot be written must not fail the reconcile.
  options_.events
      ->Record(regarding,
               event.warning ? runtime::EventType::kWarning : runtime::EventType::kNormal,
               event.reason, event.action, event.note)
      .IgnoreError();
}

}  // namespace gpuprofile::reconciler
