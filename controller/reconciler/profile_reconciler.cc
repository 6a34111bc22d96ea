// File: controller/reconciler/profile_reconciler.cc
#include "controller/reconciler/profile_reconciler.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/core/status_macros.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/kube/api_error.h"
#include "controller/kube/merge_patch.h"
#include "controller/profile/engine.h"
#include "controller/profile/feature_support.h"
#include "controller/profile/profile_conditions.h"
#include "controller/reconciler/object_plan.h"
#include "controller/reconciler/profile_status.h"

namespace gpuprofile::reconciler {
namespace {

constexpr absl::Duration kWaitForSync = absl::Seconds(1);

// "3 ResourceClaimTemplates (in batch, ml-train, team-a)"; "" for no namespaces.
std::string InNamespaces(const char* kind, const std::vector<std::string>& namespaces) {
  if (namespaces.empty()) return "";
  constexpr size_t kMaxNamed = 5;
  std::vector<std::string> named(namespaces.begin(),
                                 namespaces.begin() + std::min(namespaces.size(), kMaxNamed));
  std::string list = absl::StrJoin(named, ", ");
  if (namespaces.size() > kMaxNamed) {
    absl::StrAppend(&list, " and ", namespaces.size() - kMaxNamed, " more");
  }
  return absl::StrCat(namespaces.size(), " ", kind, namespaces.size() == 1 ? "" : "s", " (in ",
                      list, ")");
}

// "created DeviceClass a and 3 ResourceClaimTemplates (in batch, ml-train, team-a)": classes
// are named "DeviceClass <name>", templates "<namespace>/<name>", quotas
// "ResourceQuota <namespace>/<name>" in `what` (Action::Describe).
std::string Summarise(const char* verb, const std::vector<std::string>& what) {
  if (what.empty()) return "";
  constexpr absl::string_view kQuotaPrefix = "ResourceQuota ";
  std::vector<std::string> classes;
  std::vector<std::string> template_namespaces;
  std::vector<std::string> quota_namespaces;
  for (const std::string& item : what) {
    if (absl::StartsWith(item, "DeviceClass ")) {
      classes.push_back(item);
    } else if (absl::StartsWith(item, kQuotaPrefix)) {
      const std::string key = item.substr(kQuotaPrefix.size());
      quota_namespaces.push_back(key.substr(0, key.find('/')));
    } else {
      template_namespaces.push_back(item.substr(0, item.find('/')));
    }
  }
  std::vector<std::string> parts = classes;
  for (std::string part : {InNamespaces("ResourceClaimTemplate", template_namespaces),
                           InNamespaces("ResourceQuota", quota_namespaces)}) {
    if (!part.empty()) parts.push_back(std::move(part));
  }
  return absl::StrCat(verb, " ", absl::StrJoin(parts, " and "));
}

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
// stores do not have (a wiring mistake, reported rather than crashed on).
absl::StatusOr<ObservedObjects> Observe(const ClusterCache& cache, const std::string& name,
                                        const dra::DeviceClass* desired_class) {
  ObservedObjects observed;
  // Quotas are cached whether or not DRA is served.
  const runtime::Store<api::ResourceQuota>* quotas = &cache.quotas();
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
  ASSIGN_OR_RETURN(m.free_devices,
                   registry->RegisterGauge("gpuprofile_free_devices",
                                           "Schedulable devices of the profile no claim holds.",
                                           {"profile"}));
  ASSIGN_OR_RETURN(m.pending_claims,
                   registry->RegisterGauge("gpuprofile_pending_claims",
                                           "Claims not yet allocated that could use the "
                                           "profile's class.",
                                           {"profile"}));
  return m;
}

ProfileReconciler::ProfileReconciler(ProfileReconcilerOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<runtime::ReconcileResult> ProfileReconciler::Reconcile(const std::string& name) {
  ClusterCache& cache = *options_.cache;
  std::shared_ptr<const ProfileObject> object = cache.profiles().Get(name);
  if (object == nullptr) {
    absl::MutexLock lock(&mu_);
    last_status_write_.erase(name);
    last_warning_.erase(name);
    in_place_.erase(name);
    // A deleted profile's gauges drop to 0; a key that never named a profile creates none.
    if (options_.metrics != nullptr) {
      for (runtime::GaugeFamily* gauge :
           {options_.metrics->matched_devices, options_.metrics->matched_nodes,
            options_.metrics->ready, options_.metrics->allocated_devices,
            options_.metrics->free_devices, options_.metrics->pending_claims}) {
        if (runtime::Gauge* series = gauge->Find({name})) series->Set(0);
      }
    }
    return runtime::ReconcileResult{};
  }
  // The served DRA version first, then HasSynced, which covers the DRA informers once a version
  // is set: read the other way round, DRA could be switched on in between and the profile be
  // computed against an empty inventory (Satisfiable=False for a moment).
  const std::optional<dra::DraApiVersion> version = cache.dra_version();
  if (!cache.HasSynced()) return runtime::ReconcileResult{false, kWaitForSync};
  if (object->metadata.deletion_timestamp.has_value()) return Finalize(*object);

  if (!object->HasFinalizer(kCleanupFinalizer)) {
    std::vector<std::string> finalizers = object->metadata.finalizers;
    finalizers.push_back(kCleanupFinalizer);
    absl::Status added = options_.writer->SetProfileFinalizers(object->metadata, finalizers);
    // A conflict means the cache is behind; the update event brings the profile back.
    if (!added.ok()) return added;
  }

  if (!version.has_value()) {
    return WriteStatus(
        *object, DraNotServedStatus(
                     *object, options_.dra_discovery ? options_.dra_discovery() : std::string()));
  }
  if (!object->profile.has_value()) {
    api::GpuProfileStatus status = UndecodableStatus(*object);
    Event(*object, true, profile::kReasonInvalidSpec, "Validate",
          absl::StrCat("spec is invalid: ", object->decode_error));
    return WriteStatus(*object, std::move(status));
  }

  const DesiredSnapshot snapshot = options_.desired->Get();
  const Computed* computed = snapshot.computed.get();
  // A stale snapshot is applied (it is at most a fraction of a second old), and the profile
  // comes back once a fresh one covers every change.
  const runtime::ReconcileResult come_back{false, snapshot.retry_after};
  auto outcome_it = computed->outcome_by_profile.find(name);
  if (outcome_it == computed->outcome_by_profile.end()) {
    // A profile newer than the snapshot: wait for one that has it.
    return runtime::ReconcileResult{
        false, snapshot.fresh() ? absl::Milliseconds(50) : snapshot.retry_after};
  }
  const profile::ProfileOutcome& outcome = *outcome_it->second;
  // A snapshot computed for another incarnation or generation of this profile (re-created under
  // the same name, or edited since) must not be applied: its owner references would name the old
  // uid, and the garbage collector would take the objects.
  if (outcome.profile.metadata.uid != object->metadata.uid ||
      outcome.profile.metadata.generation != object->metadata.generation) {
    return runtime::ReconcileResult{
        false, snapshot.fresh() ? absl::Milliseconds(50) : snapshot.retry_after};
  }
  api::GpuProfileStatus status = outcome.profile.status;
  if (!outcome.valid) {
    // InvalidSpec: the spec is wrong anywhere; FeatureNotServed, InvalidFallback: it is valid but
    // this cluster (or the profiles it falls back to) cannot realise it.
    const bool invalid_spec =
        outcome.stalled_reason.empty() || outcome.stalled_reason == profile::kReasonInvalidSpec;
    Event(*object, true, invalid_spec ? profile::kReasonInvalidSpec : outcome.stalled_reason,
          "Validate",
          absl::StrCat(invalid_spec ? "spec is invalid: " : "spec cannot be realised: ",
                       outcome.problems));
    return Later(WriteStatus(*object, std::move(status)), come_back);
  }

  AppliedChanges changes;
  std::vector<std::string> not_stored;  // templates the server keeps without what was written
  // Read before the objects are: a change during the pass makes the next reconcile plan again.
  const uint64_t owned_version = cache.owned_version();
  std::optional<InPlace> ready_in_place;
  {
    absl::MutexLock lock(&mu_);
    auto it = in_place_.find(name);
    if (it != in_place_.end() && it->second.plan_id == computed->plan_id &&
        it->second.owned_version == owned_version && it->second.uid == object->metadata.uid &&
        it->second.generation == object->metadata.generation) {
      ready_in_place = it->second;
    }
  }
  if (ready_in_place.has_value()) {
    status.claim_templates.ready = ready_in_place->templates_ready;
    status.quotas.ready = ready_in_place->quotas_ready;
  } else {
    const auto class_it = computed->class_by_profile.find(name);
    const dra::DeviceClass* desired_class =
        class_it == computed->class_by_profile.end() ? nullptr : class_it->second;
    const auto templates_it = computed->templates_by_profile.find(name);
    const profile::TemplateSet* desired_templates =
        templates_it == computed->templates_by_profile.end() ? nullptr : templates_it->second;
    const auto quotas_it = computed->quotas_by_profile.find(name);
    const profile::QuotaSet* desired_quotas =
        quotas_it == computed->quotas_by_profile.end() ? nullptr : quotas_it->second;
    ASSIGN_OR_RETURN(ObservedObjects observed, Observe(cache, name, desired_class));
    ObjectPlan plan = PlanProfileObjects(object->metadata.uid, desired_class, desired_templates,
                                         desired_quotas, observed);
    not_stored = WithoutRepeatedRecreates(name, desired_templates, &plan.actions);
    changes = ExecutePlan(plan.actions, *version, options_.writer, options_.foreign);
    RememberWrittenTemplates(name, desired_templates, changes);
    status.claim_templates.ready = plan.templates_in_place + changes.templates_placed;
    status.quotas.ready = plan.quotas_in_place + changes.quotas_placed;
    if (changes.Quiet() && not_stored.empty()) {
      absl::MutexLock lock(&mu_);
      in_place_[name] = {computed->plan_id,
                         owned_version,
                         object->metadata.uid,
                         object->metadata.generation,
                         status.claim_templates.ready,
                         status.quotas.ready};
    }
  }
  if (!not_stored.empty()) {
    const std::string message = absl::StrCat(
        "the API server stores ", absl::StrJoin(not_stored, ", "),
        " without fields the operator wrote, and would again if it re-created them: a feature "
        "gate the cluster has off is on in --feature-gates (fallback: DRAPrioritizedList, "
        "tolerations: DRADeviceTaints, capacityRequests: DRAConsumableCapacity)");
    NotStoredOverlay(message, &status);
    Event(*object, true, profile::kReasonFeatureNotServed, "Apply", message);
  }
  if (!changes.first_error.ok()) {
    ProgressingOverlay(absl::StrCat("applying generated objects: ", changes.first_error.message()),
                       &status);
  } else if (!changes.conflicts.empty()) {
    // The engine has not seen the unmanaged objects yet: recompute before reporting Ready.
    ProgressingOverlay("found existing objects not managed by the operator", &status);
  }
  RecordEvents(*object, changes, status);
  absl::StatusOr<runtime::ReconcileResult> written = WriteStatus(*object, std::move(status));
  if (!changes.first_error.ok()) return changes.first_error;
  if (!changes.conflicts.empty()) return runtime::ReconcileResult{true, absl::ZeroDuration()};
  return Later(written, come_back);
}

std::vector<std::string> ProfileReconciler::WithoutRepeatedRecreates(
    const std::string& profile, const profile::TemplateSet* desired, std::vector<Action>* actions) {
  std::vector<std::string> not_stored;
  if (desired == nullptr) return not_stored;
  std::set<std::string> written;
  {
    absl::MutexLock lock(&mu_);
    auto it = written_templates_.find(profile);
    if (it == written_templates_.end() ||
        !dra::SameDesiredState(desired->prototype, *it->second.prototype)) {
      return not_stored;
    }
    written = it->second.keys;
  }
  std::vector<Action> kept;
  for (Action& a : *actions) {
    if (a.kind == ObjectKind::kClaimTemplate && a.verb == ActionVerb::kRecreate &&
        written.count(a.Describe()) > 0) {
      not_stored.push_back(absl::StrCat("ResourceClaimTemplate ", a.Describe()));
      continue;
    }
    kept.push_back(std::move(a));
  }
  *actions = std::move(kept);
  return not_stored;
}

void ProfileReconciler::RememberWrittenTemplates(const std::string& profile,
                                                 const profile::TemplateSet* desired,
                                                 const AppliedChanges& changes) {
  if (desired == nullptr || (changes.created.empty() && changes.recreated.empty())) return;
  absl::MutexLock lock(&mu_);
  WrittenTemplates& w = written_templates_[profile];
  if (w.prototype == nullptr || !dra::SameDesiredState(desired->prototype, *w.prototype)) {
    w.prototype = std::make_shared<const dra::ResourceClaimTemplate>(desired->prototype);
    w.keys.clear();
  }
  // Describe() names a template "<namespace>/<name>"; classes and quotas carry their kind.
  const std::string suffix = absl::StrCat("/", desired->prototype.metadata.name);
  for (const std::vector<std::string>* done : {&changes.created, &changes.recreated}) {
    for (const std::string& key : *done) {
      if (absl::EndsWith(key, suffix) && absl::StrContains(key, "/") &&
          !absl::StartsWith(key, "DeviceClass ") && !absl::StartsWith(key, "ResourceQuota ")) {
        w.keys.insert(key);
      }
    }
  }
}

absl::StatusOr<runtime::ReconcileResult> ProfileReconciler::Finalize(const ProfileObject& object) {
  if (!object.HasFinalizer(kCleanupFinalizer)) return runtime::ReconcileResult{};
  const bool orphan = object.profile.has_value() &&
                      object.profile->spec.deletion_policy == api::DeletionPolicy::kOrphan;
  const std::optional<dra::DraApiVersion> version = options_.cache->dra_version();
  {
    // Without DRA served the observed objects are the quotas alone (core/v1), and the version
    // handed to the executor is never used.
    ASSIGN_OR_RETURN(ObservedObjects observed,
                     Observe(*options_.cache, object.metadata.name, nullptr));
    const AppliedChanges changes =
        ExecutePlan(PlanProfileCleanup(object.metadata.uid, orphan, observed),
                    version.value_or(dra::DraApiVersion::kV1), options_.writer, options_.foreign);
    const std::vector<std::string>& done = orphan ? changes.released : changes.deleted;
    if (!done.empty()) {
      Event(object, false, orphan ? "Orphaned" : "Deleted", orphan ? "Orphan" : "Delete",
            Summarise(orphan ? "released (ownerReferences removed)" : "deleted", done));
    }
    // The finalizer stays until every object is dealt with.
    if (!changes.first_error.ok()) return changes.first_error;
  }
  std::vector<std::string> finalizers;
  for (const std::string& f : object.metadata.finalizers) {
    if (f != kCleanupFinalizer) finalizers.push_back(f);
  }
  absl::Status removed = options_.writer->SetProfileFinalizers(object.metadata, finalizers);
  if (kube::apierrors::IsNotFound(removed)) return runtime::ReconcileResult{};
  if (!removed.ok()) return removed;
  return runtime::ReconcileResult{};
}

absl::StatusOr<runtime::ReconcileResult> ProfileReconciler::WriteStatus(
    const ProfileObject& object, api::GpuProfileStatus status) {
  const std::string& name = object.metadata.name;
  const absl::Time now = options_.clock->Now();
  StampTransitionTimes(StoredConditions(object.status), now, &status);
  if (options_.metrics != nullptr) {
    options_.metrics->matched_devices->WithLabels({name})->Set(
        static_cast<double>(status.matched_devices));
    options_.metrics->matched_nodes->WithLabels({name})->Set(
        static_cast<double>(status.matched_nodes));
    options_.metrics->allocated_devices->WithLabels({name})->Set(
        static_cast<double>(status.allocation.allocated_devices));
    options_.metrics->free_devices->WithLabels({name})->Set(
        static_cast<double>(status.allocation.free_devices));
    options_.metrics->pending_claims->WithLabels({name})->Set(
        static_cast<double>(status.allocation.pending_claims));
    const api::Condition* ready = api::FindCondition(status.conditions, api::kConditionReady);
    options_.metrics->ready->WithLabels({name})->Set(
        ready != nullptr && ready->status == api::ConditionStatus::kTrue ? 1 : 0);
  }
  const nlohmann::json encoded = api::EncodeGpuProfileStatus(status);
  if (encoded == object.status) return runtime::ReconcileResult{};
  {
    absl::MutexLock lock(&mu_);
    auto last = last_status_write_.find(name);
    if (last != last_status_write_.end() && now - last->second < options_.status_interval) {
      return runtime::ReconcileResult{false, options_.status_interval - (now - last->second)};
    }
    last_status_write_[name] = now;
  }
  // Only what changed, and null for what went away (kube/merge_patch.h).
  absl::Status written =
      options_.writer->PatchProfileStatus(name, kube::CreateMergePatch(object.status, encoded));
  if (kube::apierrors::IsNotFound(written)) return runtime::ReconcileResult{};
  if (!written.ok()) return written;
  return runtime::ReconcileResult{};
}

void ProfileReconciler::RecordEvents(const ProfileObject& object, const AppliedChanges& changes,
                                     const api::GpuProfileStatus& status) {
  std::vector<std::string> parts;
  for (const std::string& part :
       {Summarise("created", changes.created), Summarise("updated", changes.updated),
        Summarise("re-created (spec changed)", changes.recreated),
        Summarise("adopted", changes.adopted), Summarise("deleted", changes.deleted)}) {
    if (!part.empty()) parts.push_back(part);
  }
  if (!parts.empty()) Event(object, false, "Applied", "Apply", absl::StrJoin(parts, "; "));
  const api::Condition* conflict = api::FindCondition(status.conditions, api::kConditionConflict);
  if (conflict != nullptr && conflict->status == api::ConditionStatus::kTrue) {
    Event(object, true, profile::kReasonConflict, "Apply", conflict->message);
  }
  if (!changes.first_error.ok()) {
    Event(object, true, "ApplyFailed", "Apply", std::string(changes.first_error.message()));
  }
}

void ProfileReconciler::Event(const ProfileObject& object, bool warning, const std::string& reason,
                              const std::string& action, const std::string& note) {
  if (options_.events == nullptr) return;
  if (warning) {
    absl::MutexLock lock(&mu_);
    std::string& last = last_warning_[object.metadata.name];
    const std::string key = absl::StrCat(reason, "\n", note);
    if (last == key) return;
    last = key;
  }
  runtime::ObjectReference regarding;
  regarding.api_version = api::kApiVersion;
  regarding.kind = api::kGpuProfileKind;
  regarding.name = object.metadata.name;
  regarding.uid = object.metadata.uid;
  regarding.resource_version = object.metadata.resource_version;
  // Best effort: an event that cannot be written must not fail the reconcile.
  options_.events
      ->Record(regarding, warning ? runtime::EventType::kWarning : runtime::EventType::kNormal,
               reason, action, note)
      .IgnoreError();
}

}  // namespace gpuprofile::reconciler
