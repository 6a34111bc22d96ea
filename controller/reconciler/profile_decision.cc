// File: controller/reconciler/profile_decision.cc
#include "controller/reconciler/profile_decision.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/kueue/kueue_mapped.h"
#include "controller/profile/engine.h"
#include "controller/profile/feature_support.h"
#include "controller/profile/profile_conditions.h"
#include "controller/reconciler/change_summary.h"
#include "controller/reconciler/create_expectations.h"
#include "controller/reconciler/profile_status.h"

namespace gpuprofile::reconciler {
namespace {

constexpr absl::Duration kWaitForSync = absl::Seconds(1);
// A profile newer than the snapshot (or edited since): how soon to look again once the snapshot
// is fresh.
constexpr absl::Duration kWaitForSnapshot = absl::Milliseconds(50);

template <typename T>
const T* FindProfileEntry(const std::map<std::string, const T*>& by_profile,
                          const std::string& name) {
  const auto it = by_profile.find(name);
  return it == by_profile.end() ? nullptr : it->second;
}

ProfilePlan Wait(absl::Duration after) {
  ProfilePlan plan;
  plan.purpose = ProfilePlan::Purpose::kWait;
  plan.result = runtime::ReconcileResult{false, after};
  return plan;
}

PlannedEvent Warning(std::string reason, std::string action, std::string note) {
  return PlannedEvent{true, std::move(reason), std::move(action), std::move(note)};
}

// The profile is being deleted: its objects are deleted (Delete) or released (Orphan).
ProfilePlan DecideCleanup(const ProfileObservation& seen) {
  const ProfileObject& object = *seen.object;
  if (!object.HasFinalizer(kCleanupFinalizer)) return Wait(absl::ZeroDuration());
  ProfilePlan plan;
  plan.purpose = ProfilePlan::Purpose::kCleanup;
  plan.orphan = object.profile.has_value() &&
                object.profile->spec.deletion_policy == api::DeletionPolicy::kOrphan;
  plan.actions = PlanProfileCleanup(object.metadata.uid, plan.orphan, *seen.objects);
  return plan;
}

// The template actions of `verb` on the keys in `keys`, taken out of `actions` and returned.
std::vector<ObjectRef> DropTemplateActions(ActionVerb verb, const std::set<std::string>& keys,
                                           std::vector<Action>* actions) {
  std::vector<ObjectRef> dropped;
  if (keys.empty()) return dropped;
  std::vector<Action> kept;
  for (Action& a : *actions) {
    if (a.kind == ObjectKind::kClaimTemplate && a.verb == verb && keys.count(a.ref().Key()) > 0) {
      dropped.push_back(a.ref());
      continue;
    }
    kept.push_back(std::move(a));
  }
  *actions = std::move(kept);
  return dropped;
}

// Re-creations of templates whose spec the profile already wrote are dropped from `actions` and
// returned: re-creating them again would loop (WrittenTemplates).
std::vector<ObjectRef> WithoutRepeatedRecreates(const WrittenTemplates* written,
                                                const profile::TemplateSet* desired,
                                                std::vector<Action>* actions) {
  if (desired == nullptr || written == nullptr ||
      !dra::SameDesiredState(desired->prototype, *written->prototype)) {
    return {};
  }
  return DropTemplateActions(ActionVerb::kRecreate, written->keys, actions);
}

// The engine's outcome for the profile is valid: its objects are brought in place, unless a
// pass already found them so for this plan and these cached objects.
void DecideObjects(const ProfileObservation& seen, const Computed& computed, ProfilePlan* plan) {
  plan->purpose = ProfilePlan::Purpose::kApply;
  if (seen.in_place.has_value()) {
    plan->templates_in_place = seen.in_place->templates_ready;
    plan->quotas_in_place = seen.in_place->quotas_ready;
    return;
  }
  const profile::TemplateSet* templates = DesiredTemplatesOf(computed, seen.name);
  ObjectPlan objects =
      PlanProfileObjects(seen.object->metadata.uid, DesiredClassOf(computed, seen.name), templates,
                         DesiredQuotasOf(computed, seen.name), *seen.objects);
  plan->not_stored = WithoutRepeatedRecreates(seen.written.get(), templates, &objects.actions);
  // Creates of templates this process created and whose watch event has not arrived: creating
  // them again would meet them (409, then a GET).
  plan->templates_awaited = static_cast<int64_t>(
      DropTemplateActions(ActionVerb::kCreate, seen.awaited_templates, &objects.actions).size());
  plan->actions = std::move(objects.actions);
  plan->templates_in_place = objects.templates_in_place + plan->templates_awaited;
  plan->quotas_in_place = objects.quotas_in_place;
}

// The profile decodes and DRA is served: what the snapshot says of it.
ProfilePlan DecideFromSnapshot(const ProfileObservation& seen) {
  const ProfileObject& object = *seen.object;
  const DesiredSnapshot& snapshot = seen.snapshot;
  const Computed& computed = *snapshot.computed;
  const profile::ProfileOutcome* outcome = FindProfileEntry(computed.outcome_by_profile, seen.name);
  // A snapshot without this profile, or computed for another incarnation or generation of it
  // (re-created under the same name, or edited since), must not be applied: its owner references
  // would name the old uid, and the garbage collector would take the objects.
  if (outcome == nullptr || outcome->profile.metadata.uid != object.metadata.uid ||
      outcome->profile.metadata.generation != object.metadata.generation) {
    return Wait(snapshot.fresh() ? kWaitForSnapshot : snapshot.retry_after);
  }
  ProfilePlan plan;
  plan.status = outcome->profile.status;
  // A stale snapshot is applied (it is at most a fraction of a second old), and the profile
  // comes back once a fresh one covers every change.
  plan.result = runtime::ReconcileResult{false, snapshot.retry_after};
  if (!outcome->valid) {
    // InvalidSpec: the spec is wrong anywhere; FeatureNotServed, InvalidFallback: it is valid but
    // this cluster (or the profiles it falls back to) cannot realise it.
    const bool invalid_spec =
        outcome->stalled_reason.empty() || outcome->stalled_reason == profile::kReasonInvalidSpec;
    plan.purpose = ProfilePlan::Purpose::kReport;
    plan.events.push_back(
        Warning(invalid_spec ? profile::kReasonInvalidSpec : outcome->stalled_reason, "Validate",
                absl::StrCat(invalid_spec ? "spec is invalid: " : "spec cannot be realised: ",
                             outcome->problems)));
    return plan;
  }
  DecideObjects(seen, computed, &plan);
  return plan;
}

// The events of an applied plan: one Normal event per change set, Warnings for conflicts and
// failures.
void ApplyEvents(const AppliedChanges& changes, const api::GpuProfileStatus& status,
                 std::vector<PlannedEvent>* events) {
  std::vector<std::string> parts;
  for (const std::string& part :
       {SummariseChanges("created", changes.created), SummariseChanges("updated", changes.updated),
        SummariseChanges("re-created (spec changed)", changes.recreated),
        SummariseChanges("adopted", changes.adopted),
        SummariseChanges("deleted", changes.deleted)}) {
    if (!part.empty()) parts.push_back(part);
  }
  if (!parts.empty()) {
    events->push_back(PlannedEvent{false, "Applied", "Apply", absl::StrJoin(parts, "; ")});
  }
  const meta::Condition* conflict =
      meta::FindCondition(status.conditions, meta::kConditionConflict);
  if (conflict != nullptr && conflict->status == meta::ConditionStatus::kTrue) {
    events->push_back(Warning(profile::kReasonConflict, "Apply", conflict->message));
  }
  if (!changes.first_error.ok()) {
    events->push_back(Warning("ApplyFailed", "Apply", std::string(changes.first_error.message())));
  }
}

void ConcludeApply(const ProfileObservation& seen, const AppliedChanges& changes,
                   ProfilePlan* plan) {
  api::GpuProfileStatus& status = *plan->status;
  status.claim_templates.ready = plan->templates_in_place + changes.templates_placed;
  status.quotas.ready = plan->quotas_in_place + changes.quotas_placed;
  // With templates awaited, the pass is not remembered: their events (or, if one is lost, the
  // recheck) bring the profile back to read them from the cache.
  if (changes.Quiet() && plan->not_stored.empty() && plan->templates_awaited == 0) {
    const ProfileObject& object = *seen.object;
    plan->remember_in_place = ObjectsInPlace{
        seen.snapshot.computed->plan_id, seen.owned_version,           object.metadata.uid,
        object.metadata.generation,      status.claim_templates.ready, status.quotas.ready};
  }
  if (!plan->not_stored.empty()) {
    std::vector<std::string> named;
    for (const ObjectRef& t : plan->not_stored) {
      named.push_back(absl::StrCat("ResourceClaimTemplate ", t.Key()));
    }
    const std::string message = absl::StrCat(
        "the API server stores ", absl::StrJoin(named, ", "),
        " without fields the operator wrote, and would again if it re-created them: a feature "
        "gate the cluster has off is on in --feature-gates (fallback: DRAPrioritizedList, "
        "tolerations: DRADeviceTaints, capacityRequests: DRAConsumableCapacity)");
    NotStoredOverlay(message, &status);
    plan->events.push_back(Warning(profile::kReasonFeatureNotServed, "Apply", message));
  }
  if (!changes.first_error.ok()) {
    ProgressingOverlay(absl::StrCat("applying generated objects: ", changes.first_error.message()),
                       &status);
  } else if (!changes.conflicts.empty()) {
    // The engine has not seen the unmanaged objects yet: recompute before reporting Ready.
    ProgressingOverlay("found existing objects not managed by the operator", &status);
  }
  ApplyEvents(changes, status, &plan->events);
  plan->error = changes.first_error;
  if (!changes.conflicts.empty()) {
    plan->result = runtime::ReconcileResult{true, absl::ZeroDuration()};
  } else if (plan->templates_awaited > 0 &&
             (plan->result.requeue_after <= absl::ZeroDuration() ||
              plan->result.requeue_after > kAwaitedRecheck)) {
    plan->result.requeue_after = kAwaitedRecheck;
  }
}

void ConcludeCleanup(const ProfileObservation& seen, const AppliedChanges& changes,
                     ProfilePlan* plan) {
  const bool orphan = plan->orphan;
  const std::vector<ObjectRef>& done = orphan ? changes.released : changes.deleted;
  if (!done.empty()) {
    plan->events.push_back(PlannedEvent{
        false, orphan ? "Orphaned" : "Deleted", orphan ? "Orphan" : "Delete",
        SummariseChanges(orphan ? "released (ownerReferences removed)" : "deleted", done)});
  }
  // The finalizer stays until every object is dealt with.
  plan->error = changes.first_error;
  if (!changes.first_error.ok()) return;
  std::vector<std::string> finalizers;
  for (const std::string& f : seen.object->metadata.finalizers) {
    if (f != kCleanupFinalizer) finalizers.push_back(f);
  }
  plan->finalizers_after = std::move(finalizers);
}

}  // namespace

const dra::DeviceClass* DesiredClassOf(const Computed& computed, const std::string& name) {
  return FindProfileEntry(computed.class_by_profile, name);
}
const profile::TemplateSet* DesiredTemplatesOf(const Computed& computed, const std::string& name) {
  return FindProfileEntry(computed.templates_by_profile, name);
}
const profile::QuotaSet* DesiredQuotasOf(const Computed& computed, const std::string& name) {
  return FindProfileEntry(computed.quotas_by_profile, name);
}

namespace {

// The classes profile `name`'s requests may name, its own first: its class, then every class its
// template's requests name (a firstAvailable request: the fallback chain). Empty when it
// generates no class.
std::vector<std::string> KueueClassesOf(const Computed& computed, const std::string& name) {
  std::vector<std::string> classes;
  const dra::DeviceClass* own = DesiredClassOf(computed, name);
  if (own == nullptr) return classes;
  classes.push_back(own->metadata.name);
  if (const profile::TemplateSet* templates = DesiredTemplatesOf(computed, name)) {
    for (const dra::ExactDeviceRequest& r : templates->prototype.requests) {
      if (r.first_available.empty()) classes.push_back(r.device_class_name);
      for (const dra::ExactDeviceRequest& sub : r.first_available) {
        classes.push_back(sub.device_class_name);
      }
    }
  }
  return classes;
}

}  // namespace

ProfilePlan DecideProfile(const ProfileObservation& seen) {
  if (seen.object == nullptr) {
    ProfilePlan plan;
    plan.purpose = ProfilePlan::Purpose::kForget;
    return plan;
  }
  if (!seen.synced) return Wait(kWaitForSync);
  const ProfileObject& object = *seen.object;
  if (object.metadata.deletion_timestamp.has_value()) return DecideCleanup(seen);

  ProfilePlan plan;
  if (!seen.dra_version.has_value()) {
    plan.purpose = ProfilePlan::Purpose::kReport;
    plan.status = DraNotServedStatus(object, seen.dra_discovery);
  } else if (!object.profile.has_value()) {
    plan.purpose = ProfilePlan::Purpose::kReport;
    plan.status = UndecodableStatus(object);
    plan.events.push_back(Warning(profile::kReasonInvalidSpec, "Validate",
                                  absl::StrCat("spec is invalid: ", object.decode_error)));
  } else {
    plan = DecideFromSnapshot(seen);
    if (plan.status.has_value() && seen.kueue.has_value()) {
      kueue::SetKueueMapped(*seen.kueue, KueueClassesOf(*seen.snapshot.computed, seen.name),
                            object.metadata.generation, &*plan.status);
      if (!seen.kueue->ok() && absl::IsUnavailable(seen.kueue->status()) &&
          (plan.result.requeue_after <= absl::ZeroDuration() ||
           plan.result.requeue_after > kKueueRecheck)) {
        plan.result.requeue_after = kKueueRecheck;
      }
    }
  }
  if (!object.HasFinalizer(kCleanupFinalizer)) {
    std::vector<std::string> finalizers = object.metadata.finalizers;
    finalizers.push_back(kCleanupFinalizer);
    plan.finalizers_before = std::move(finalizers);
  }
  return plan;
}

void ConcludeProfile(const ProfileObservation& seen, const AppliedChanges& changes,
                     ProfilePlan* plan) {
  if (plan->purpose == ProfilePlan::Purpose::kApply) ConcludeApply(seen, changes, plan);
  if (plan->purpose == ProfilePlan::Purpose::kCleanup) ConcludeCleanup(seen, changes, plan);
}

std::shared_ptr<const WrittenTemplates> TemplatesWrittenAfter(
    std::shared_ptr<const WrittenTemplates> before, const profile::TemplateSet* desired,
    const AppliedChanges& changes) {
  if (desired == nullptr || (changes.created.empty() && changes.recreated.empty())) return before;
  auto after = std::make_shared<WrittenTemplates>();
  if (before != nullptr && dra::SameDesiredState(desired->prototype, *before->prototype)) {
    *after = *before;
  } else {
    after->prototype = std::make_shared<const dra::ResourceClaimTemplate>(desired->prototype);
  }
  for (const std::vector<ObjectRef>* done : {&changes.created, &changes.recreated}) {
    for (const ObjectRef& object : *done) {
      if (object.kind == ObjectKind::kClaimTemplate &&
          object.name == desired->prototype.metadata.name) {
        after->keys.insert(object.Key());
      }
    }
  }
  return after;
}

}  // namespace gpuprofile::reconciler
