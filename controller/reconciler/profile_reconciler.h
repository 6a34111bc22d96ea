// File: controller/reconciler/profile_reconciler.h
// Reconciles one GpuProfile (docs/design.md §4): makes its DeviceClass, ResourceClaimTemplates
// and ResourceQuotas equal to the desired state, and its status true.
//
// One pass, for profile P:
//  1. P gone: nothing to do (the API server's garbage collector follows ownerReferences).
//     P being deleted: deletionPolicy Delete deletes P's objects, Orphan removes P's
//     ownerReferences from them; then the `gpuprofile.io/cleanup` finalizer is dropped.
//  2. The finalizer is added if missing.
//  3. resource.k8s.io not served: status Stalled/DRANotServed, nothing else.
//     Caches not synced yet: come back in a second (never act on half a picture).
//  4. Spec invalid (does not decode, or the engine rejects it) or not realisable on this cluster
//     (FeatureNotServed, InvalidFallback): status Stalled naming the field, a Warning Event with
//     that reason; P's existing objects are left alone, so running workloads keep their class.
//  5. P's DeviceClass, ResourceClaimTemplates and ResourceQuotas: the pure plan (object_plan.h)
//  decides from the
//     desired state and the cached objects, the executor (plan_executor.h) writes; a create
//     that meets an unmanaged template or quota records it as foreign observed state
//     (foreign_objects.h), and the next computation gives P `Conflict` and leaves the object alone.
//     Skipped while neither the plan nor the cached objects moved since a pass found everything in
//     place.
//  6. Status from the engine (counts, conditions), with ready counts (claimTemplates, quotas)
//     from what is in place,
//     Ready False / Reconciling True while a write failed, transition times carried over;
//     written (merge patch of the status subresource) only when it changed, and at most once per
//     `status_interval` per profile under churn.
//  7. One Event per change set ("created DeviceClass x; created 3 ResourceClaimTemplates: ..."),
//     a Warning for conflicts and invalid specs.
// Every delete carries a uid precondition; every write goes through ClusterWriter's leader gate.
// Thread-safety: thread-safe; the controller never runs two passes for one profile at once.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/reconciler/cluster_cache.h"
#include "controller/reconciler/cluster_writer.h"
#include "controller/reconciler/desired_state.h"
#include "controller/reconciler/foreign_objects.h"
#include "controller/reconciler/plan_executor.h"
#include "controller/runtime/controller.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::reconciler {

struct ProfileMetrics {
  runtime::GaugeFamily* matched_devices = nullptr;  // gpuprofile_matched_devices{profile}
  runtime::GaugeFamily* matched_nodes = nullptr;    // gpuprofile_matched_nodes{profile}
  runtime::GaugeFamily* ready = nullptr;            // gpuprofile_ready{profile}
  // status.allocation: gpuprofile_allocated_devices, gpuprofile_free_devices and
  // gpuprofile_pending_claims{profile}.
  runtime::GaugeFamily* allocated_devices = nullptr;
  runtime::GaugeFamily* free_devices = nullptr;
  runtime::GaugeFamily* pending_claims = nullptr;
  static absl::StatusOr<ProfileMetrics> Register(runtime::MetricsRegistry* registry);
};

struct ProfileReconcilerOptions {
  ClusterCache* cache = nullptr;             // required
  DesiredStateCache* desired = nullptr;      // required
  ClusterWriter* writer = nullptr;           // required
  ForeignObjects* foreign = nullptr;         // required: templates met on create
  runtime::Clock* clock = nullptr;           // required
  runtime::EventRecorder* events = nullptr;  // may be null
  const ProfileMetrics* metrics = nullptr;   // may be null
  absl::Duration status_interval = absl::Seconds(1);
  // What DRA discovery last found when no usable resource.k8s.io version is served (for the
  // DRANotServed message); may be null. Called from reconcile workers.
  std::function<std::string()> dra_discovery;
};

class ProfileReconciler {
 public:
  explicit ProfileReconciler(ProfileReconcilerOptions options);

  absl::StatusOr<runtime::ReconcileResult> Reconcile(const std::string& name);

 private:
  absl::StatusOr<runtime::ReconcileResult> Finalize(const ProfileObject& object);
  // Drops from `actions` the re-creations of templates whose spec the profile already wrote
  // (written_templates_) and returns them, "ResourceClaimTemplate <ns>/<name>" each.
  std::vector<std::string> WithoutRepeatedRecreates(const std::string& profile,
                                                    const profile::TemplateSet* desired,
                                                    std::vector<Action>* actions)
      ABSL_LOCKS_EXCLUDED(mu_);
  void RememberWrittenTemplates(const std::string& profile, const profile::TemplateSet* desired,
                                const AppliedChanges& changes) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<runtime::ReconcileResult> WriteStatus(const ProfileObject& object,
                                                       api::GpuProfileStatus status);
  void RecordEvents(const ProfileObject& object, const AppliedChanges& changes,
                    const api::GpuProfileStatus& status);
  void Event(const ProfileObject& object, bool warning, const std::string& reason,
             const std::string& action, const std::string& note);

  const ProfileReconcilerOptions options_;
  absl::Mutex mu_;
  std::map<std::string, absl::Time> last_status_write_ ABSL_GUARDED_BY(mu_);
  // The last warning note recorded per profile, so a condition that persists is not re-announced
  // on every pass (the recorder aggregates repeats, but each still costs a write).
  std::map<std::string, std::string> last_warning_ ABSL_GUARDED_BY(mu_);
  // Per profile: when ApplyClass/ApplyTemplates last found every object in place (no write, no
  // error, no conflict), for which plan and cached owned objects, and how many templates were in
  // place. While neither moves (ResourceSlice churn), the objects cannot need a write and a
  // reconcile only recomputes the status.
  struct InPlace {
    int64_t plan_id = 0;
    uint64_t owned_version = 0;
    std::string uid;
    int64_t generation = 0;
    int64_t templates_ready = 0;
    int64_t quotas_ready = 0;
  };
  std::map<std::string, InPlace> in_place_ ABSL_GUARDED_BY(mu_);
  // Per profile, the template spec (prototype) it last wrote and the templates ("<ns>/<name>")
  // it created or re-created with it. A later plan that wants to re-create one of those for the
  // same spec means the API server does not store what the operator writes (it drops the fields
  // of a gate the cluster has off, though --feature-gates says on): re-creating again would loop,
  // so the operator stops and says so (FeatureNotServed) until the template spec changes. A
  // write that failed is not recorded, so it is retried.
  struct WrittenTemplates {
    std::shared_ptr<const dra::ResourceClaimTemplate> prototype;
    std::set<std::string> keys;
  };
  std::map<std::string, WrittenTemplates> written_templates_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::reconciler
