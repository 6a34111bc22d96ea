// File: controller/reconciler/profile_reconciler.h
// Reconciles one GpuProfile (docs/design.md §4): makes its DeviceClass, ResourceClaimTemplates
// and ResourceQuotas equal to the desired state, and its status true. A pass observes (one read
// of the caches and of what earlier passes remember), decides (profile_decision.h: pure, a plan)
// and acts: the finalizer, the object actions (plan_executor.h), the status and the events, in
// that order. What the decisions are is written in profile_decision.h; what is left here is how
// a plan is carried out:
//  - a create that meets an unmanaged template or quota records it as foreign observed state
//    (foreign_objects.h), and the next computation gives the profile `Conflict`;
//  - the status is written (merge patch of the status subresource, transition times carried
//    over) only when it changed, and at most once per `status_interval` per profile under churn;
//  - a Warning that repeats the profile's last one is not recorded again;
//  - the profile's gauges follow the status it should have; a deleted profile's series are
//    removed.
// Every delete carries a uid precondition; every write goes through ClusterWriter's leader gate.
// Thread-safety: thread-safe; the controller never runs two passes for one profile at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kueue/kueue_config.h"
#include "controller/reconciler/cluster_cache.h"
#include "controller/reconciler/cluster_writer.h"
#include "controller/reconciler/create_expectations.h"
#include "controller/reconciler/desired_state.h"
#include "controller/reconciler/foreign_objects.h"
#include "controller/reconciler/plan_executor.h"
#include "controller/reconciler/profile_decision.h"
#include "controller/reconciler/status_schedule.h"
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
  // gpuprofile_status_condition{profile,type,status} and
  // gpuprofile_oldest_pending_claim_creation_timestamp_seconds{profile} (status_metrics.h).
  runtime::GaugeFamily* status_condition = nullptr;
  runtime::GaugeFamily* oldest_pending_claim = nullptr;
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
  // At most one status write per profile per `status_interval`, counted from the `status_tick`
  // the last write fell in (runtime::TickAtOrBefore), or one tick less when that spreads the
  // profiles' writes over the ticks (status_schedule.h): a status change found sooner is written
  // on that tick. With the desired state's tick, the writes of every profile due in a tick read
  // the one computation made at its start (desired_state.h), so a status is as fresh as its
  // tick. Two writes are at least `status_interval` - 2 `status_tick` apart.
  absl::Duration status_interval = absl::Seconds(1);
  absl::Duration status_tick = kDesiredStateTick;
  // What DRA discovery last found when no usable resource.k8s.io version is served (for the
  // DRANotServed message); may be null. Called from reconcile workers.
  std::function<std::string()> dra_discovery;
  // Kueue's Configuration as last read (run --kueue-config); null: the KueueMapped condition is
  // off. Called from reconcile workers.
  std::function<absl::StatusOr<kueue::KueueConfig>()> kueue_config;
};

class ProfileReconciler {
 public:
  explicit ProfileReconciler(ProfileReconcilerOptions options);

  absl::StatusOr<runtime::ReconcileResult> Reconcile(const std::string& name);
  // An informer event of the ResourceClaimTemplate at `key` ("<namespace>/<name>"): a template
  // this reconciler created is no longer awaited (create_expectations.h).
  void TemplateObserved(const std::string& key) { created_.Observed(key); }
  // How long until profile `name`'s status may be written again (zero: now): a status change
  // found sooner waits for it (ProfileReconcilerOptions::status_interval).
  absl::Duration StatusWait(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // One read of the caches, and of what earlier passes remember of the profile. Errors: an index
  // the stores do not have (a wiring mistake, reported rather than crashed on).
  absl::StatusOr<ProfileObservation> Observe(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<runtime::ReconcileResult> Act(const ProfileObservation& seen, ProfilePlan plan);
  // The object actions, then the plan completed from what they found.
  void ApplyObjects(const ProfileObservation& seen, ProfilePlan* plan) ABSL_LOCKS_EXCLUDED(mu_);
  void Forget(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<runtime::ReconcileResult> WriteStatus(const ProfileObject& object,
                                                       api::GpuProfileStatus status)
      ABSL_LOCKS_EXCLUDED(mu_);
  void ExportGauges(const std::string& name, const api::GpuProfileStatus& status);
  void Event(const ProfileObject& object, const PlannedEvent& event) ABSL_LOCKS_EXCLUDED(mu_);

  const ProfileReconcilerOptions options_;
  CreateExpectations created_;
  absl::Mutex mu_;
  // When each profile's status may next be written.
  StatusSchedule status_schedule_ ABSL_GUARDED_BY(mu_);
  // The last warning note recorded per profile, so a condition that persists is not re-announced
  // on every pass (the recorder aggregates repeats, but each still costs a write).
  std::map<std::string, std::string> last_warning_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, ObjectsInPlace> in_place_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<const WrittenTemplates>> written_templates_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::reconciler
