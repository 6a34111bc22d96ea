// File: controller/reconciler/profile_decision.h
// The profile reconciler's decisions as data (docs/design.md §4). A pass is
//   observe (ProfileObservation: one read of the caches and of what earlier passes remember)
//   -> decide (DecideProfile: pure, returns a ProfilePlan)
//   -> act (profile_reconciler.cc carries the plan out through ClusterWriter)
//   -> conclude (ConcludeProfile: pure, completes the plan from what the object writes found)
//   -> act again (status, events, the finalizer).
// Everything a pass writes is an item of the plan: the finalizer, the object actions
// (object_plan.h), the status, the events and when to come back. A test checks a decision by
// comparing plans (test/reconciler/profile_decision_test.cc), with no cache, writer or clock.
//
// The decisions, for profile P:
//  1. P gone: forget what is remembered of it (nothing to write: the garbage collector follows
//     ownerReferences). Caches not synced: come back in a second (never act on half a picture).
//  2. P being deleted: deletionPolicy Delete deletes P's objects, Orphan releases them; once every
//     one is dealt with, the `gpuprofile.io/cleanup` finalizer is dropped.
//  3. The finalizer is added if missing (first: a failure ends the pass).
//  4. resource.k8s.io not served: status Stalled/DRANotServed. Spec does not decode: Stalled/
//     InvalidSpec naming the field, and a Warning. A snapshot not computed for this incarnation
//     and generation of P: come back when one is.
//  5. Spec invalid or not realisable (FeatureNotServed, InvalidFallback): status Stalled with a
//     Warning; P's objects are left alone, so running workloads keep their class.
//  6. Otherwise the object plan, unless the plan and P's cached objects are unchanged since a
//     pass found everything in place; re-creations of templates the server already stored
//     without what was written are dropped (FeatureNotServed: re-creating would loop).
//  With --kueue-config, every status of a profile that generates a class also says whether Kueue
//  maps the classes its requests name (KueueMapped, kueue/kueue_mapped.h).
//  7. Conclusion: ready counts from what is in place, Ready False / Reconciling True while a
//     write failed or met an unmanaged object, one Event per change set, a Warning for conflicts
//     and failures; the pass's error is the first write error.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "controller/api/gpu_profile.h"
#include "controller/dra/api_version.h"
#include "controller/kueue/kueue_config.h"
#include "controller/reconciler/cluster_objects.h"
#include "controller/reconciler/desired_state.h"
#include "controller/reconciler/object_plan.h"
#include "controller/reconciler/plan_executor.h"
#include "controller/runtime/controller.h"

namespace gpuprofile::reconciler {

// A pass that found every object of a profile in place (no write, no error, no conflict): for
// which plan and cached objects, and how many templates and quotas were ready. While neither
// moves (ResourceSlice churn), the objects cannot need a write and a pass only recomputes the
// status.
struct ObjectsInPlace {
  int64_t plan_id = 0;
  uint64_t owned_version = 0;
  std::string uid;
  int64_t generation = 0;
  int64_t templates_ready = 0;
  int64_t quotas_ready = 0;
};

// The template spec (prototype) a profile last wrote, and the templates ("<ns>/<name>") it
// created or re-created with it. A later plan that wants to re-create one of those for the same
// spec means the API server does not store what the operator writes (it drops the fields of a
// gate the cluster has off, though --feature-gates says on).
struct WrittenTemplates {
  std::shared_ptr<const dra::ResourceClaimTemplate> prototype;
  std::set<std::string> keys;
};

struct ProfileObservation {
  std::string name;
  std::shared_ptr<const ProfileObject> object;  // null: the profile is gone
  // The served DRA version, read before `synced` (see ProfileReconciler::Observe).
  std::optional<dra::DraApiVersion> dra_version;
  bool synced = false;
  // What DRA discovery last found when no usable resource.k8s.io version is served.
  std::string dra_discovery;
  // The desired state; set when the caches have synced, DRA is served and the spec decodes.
  DesiredSnapshot snapshot;
  // What earlier passes remember: the in-place record when it matches the snapshot's plan, the
  // cached objects and this incarnation and generation; the templates written.
  std::optional<ObjectsInPlace> in_place;
  std::shared_ptr<const WrittenTemplates> written;  // null: none
  // Templates this process created that the cache does not show yet (create_expectations.h).
  std::set<std::string> awaited_templates;
  // ClusterCache::owned_version() read before `objects`: a change during the pass plans again.
  uint64_t owned_version = 0;
  // The profile's objects as cached: read when it is being deleted, or applying and not known to
  // be in place.
  std::optional<ObservedObjects> objects;
  // Kueue's Configuration as read (run --kueue-config), or why not; unset when the flag is off.
  // With it, the status carries the KueueMapped condition (kueue/kueue_mapped.h).
  std::optional<absl::StatusOr<kueue::KueueConfig>> kueue;
};

struct PlannedEvent {
  bool warning = false;
  std::string reason;
  std::string action;
  std::string note;
  bool operator==(const PlannedEvent& other) const {
    return warning == other.warning && reason == other.reason && action == other.action &&
           note == other.note;
  }
};

// What one pass writes, in the order the reconciler carries it out.
struct ProfilePlan {
  enum class Purpose {
    kForget,   // the profile is gone: forget it, zero its gauges
    kWait,     // come back after `result.requeue_after`; nothing written
    kReport,   // a status (and events) only
    kApply,    // object actions, then a conclusion
    kCleanup,  // the finalizer's actions, then a conclusion
  };
  Purpose purpose = Purpose::kWait;
  // 1. Finalizers to write first (the cleanup finalizer added); a failure ends the pass.
  std::optional<std::vector<std::string>> finalizers_before;
  // 2. Object writes, every one tried (plan_executor.h).
  std::vector<Action> actions;
  // kApply: desired objects already in place, and templates the server keeps without what was
  // written (their re-creation dropped from `actions`). kCleanup: release rather than delete.
  int64_t templates_in_place = 0;
  int64_t quotas_in_place = 0;
  std::vector<ObjectRef> not_stored;
  // kApply: creates dropped because the template was created and its event is awaited; counted
  // in templates_in_place.
  int64_t templates_awaited = 0;
  bool orphan = false;
  // 3. Filled by ConcludeProfile for kApply and kCleanup.
  std::vector<PlannedEvent> events;
  std::optional<api::GpuProfileStatus> status;  // written when it differs from the stored one
  std::optional<ObjectsInPlace> remember_in_place;
  std::optional<std::vector<std::string>> finalizers_after;  // the cleanup finalizer dropped
  // 4. The pass's outcome: the first write error, else `result` (combined with the status
  // write's: the sooner requeue wins).
  absl::Status error;
  runtime::ReconcileResult result;
};

// How soon a profile comes back while Kueue's ConfigMap is not read yet (Unavailable: not listed
// yet, or forbidden), so that KueueMapped follows without a ConfigMap event.
inline constexpr absl::Duration kKueueRecheck = absl::Seconds(5);

ProfilePlan DecideProfile(const ProfileObservation& seen);

// Completes `plan` (kApply, kCleanup) from what the object writes found.
void ConcludeProfile(const ProfileObservation& seen, const AppliedChanges& changes,
                     ProfilePlan* plan);

// The written-templates record after `changes`, for the profile whose desired templates are
// `desired`: `before` itself when nothing was created or re-created (a write that failed is not
// recorded, so it is retried).
std::shared_ptr<const WrittenTemplates> TemplatesWrittenAfter(
    std::shared_ptr<const WrittenTemplates> before, const profile::TemplateSet* desired,
    const AppliedChanges& changes);

// The desired objects of profile `name` in a snapshot (null: none).
const dra::DeviceClass* DesiredClassOf(const Computed& computed, const std::string& name);
const profile::TemplateSet* DesiredTemplatesOf(const Computed& computed, const std::string& name);
const profile::QuotaSet* DesiredQuotasOf(const Computed& computed, const std::string& name);

}  // namespace gpuprofile::reconciler
