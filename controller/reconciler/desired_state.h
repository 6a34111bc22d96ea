// File: controller/reconciler/desired_state.h
// The desired state of everything the operator owns, computed by the pure profile engine
// (profile/engine.h) from the cluster cache, and memoised: workers reconciling 100 profiles
// after one ResourceSlice change share one computation, and nothing is recomputed while the
// cache has not changed (ClusterCache::version()).
//
// A ResourceSlice change recomputes only what it can change: the spec side (compiled selectors,
// namespaces, names won and lost: profile::PlanProfiles) is kept, and of the per-device work
// (node-group signatures, projections, selector evaluations) only the changed slices' devices are
// worked out (profile/fleet_memo.h); what remains is the inventory's order and per-profile counts,
// linear passes over the devices (bench/desired_state_benchmark.cc).
//
// Under churn (100 ResourceSlice updates a second) the whole computation is not redone for
// every change: at most one computation starts per tick of `tick` (200 ms, counted from the Unix
// epoch: runtime::TickAtOrBefore), and none within the last computation's duration of its end,
// so computing takes at most about half of the time. Meanwhile Get() returns the last (slightly
// stale) result with `retry_after` set, and the caller comes back after that delay, when the next
// computation covers every change since. Ticks line the computations up with the work that
// needs them: a profile's status is written on the same ticks (profile_reconciler.h), and the
// first reconcile of a tick computes what every other one of that tick reads, so a status is
// never older than its tick. Results are monotonic: never older than one already handed out.
//
// Unmanaged ResourceClaimTemplates and ResourceQuotas are not cached (only labelled ones are
// watched); those a create met are observed state of their own (foreign_objects.h), read here as
// one more input, so that the engine sees them and the profile gets `Conflict`.
// Thread-safety: thread-safe; one computation at a time, others wait for its result.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/dra/inventory.h"
#include "controller/profile/engine.h"
#include "controller/reconciler/cluster_cache.h"
#include "controller/reconciler/foreign_objects.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::reconciler {

struct Computed {
  uint64_t cache_version = 0;
  // Changes whenever the spec side (classes, templates, quotas, conflicts) was planned anew; equal
  // ids mean equal desired DeviceClasses, ResourceClaimTemplates and ResourceQuotas.
  int64_t plan_id = 0;
  profile::DesiredState desired;
  // Indexes into desired.
  std::map<std::string, const profile::ProfileOutcome*> outcome_by_profile;
  std::map<std::string, const dra::DeviceClass*> class_by_profile;
  std::map<std::string, const profile::TemplateSet*> templates_by_profile;
  std::map<std::string, const profile::QuotaSet*> quotas_by_profile;
  int64_t devices = 0;
  int64_t pools = 0;
  int64_t incomplete_pools = 0;
  int64_t undecodable_slices = 0;  // ResourceSlices whose current version does not decode
  int64_t claims = 0;              // ResourceClaims cached
  absl::Duration compute_time;
};

struct DesiredSnapshot {
  std::shared_ptr<const Computed> computed;
  // Zero when `computed` covers the cache's current content; otherwise it may miss changes
  // made since, and the caller should come back after this long.
  absl::Duration retry_after = absl::ZeroDuration();
  bool fresh() const { return retry_after == absl::ZeroDuration(); }
};

// The period of the desired state's computations under churn (see above).
inline constexpr absl::Duration kDesiredStateTick = absl::Milliseconds(200);

class DesiredStateCache {
 public:
  // `cache`, `foreign` and `clock` must outlive this.
  // `gates`: the cluster's release and feature gates (the selectors' CEL environment, how the
  // scheduler reads devices).
  DesiredStateCache(const ClusterCache* cache, ForeignObjects* foreign, FeatureGates gates,
                    runtime::Clock* clock, absl::Duration tick = kDesiredStateTick);
  // The release's default gates.
  DesiredStateCache(const ClusterCache* cache, ForeignObjects* foreign, KubeVersion kube,
                    runtime::Clock* clock, absl::Duration tick = kDesiredStateTick)
      : DesiredStateCache(cache, foreign, FeatureGates(kube), clock, tick) {}

  // The desired state for the cache's content (see above for staleness under churn).
  DesiredSnapshot Get();
  // How long until Get() computes again for a changed cache (zero: it would now). A change of
  // the cache reaches a result no sooner, so event handlers delay the work it causes by this.
  absl::Duration UntilNextCompute() const ABSL_LOCKS_EXCLUDED(mu_);
  // Computations so far, and how many of them planned the spec side anew (for tests).
  int64_t computations() const;
  int64_t plans() const;

  const KubeVersion& kube_version() const { return kube_; }

 private:
  absl::Duration UntilNextComputeLocked(absl::Time now) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // One computation for the cache's `version`: brings the plan, inventory and claim ledger up to
  // date (each only when its inputs changed), then assembles the desired state and its indexes.
  std::shared_ptr<const Computed> Compute(uint64_t version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(compute_mu_);
  void UpdatePlan() ABSL_EXCLUSIVE_LOCKS_REQUIRED(compute_mu_);
  void UpdateInventory() ABSL_EXCLUSIVE_LOCKS_REQUIRED(compute_mu_);
  void UpdateLedger() ABSL_EXCLUSIVE_LOCKS_REQUIRED(compute_mu_);

  const ClusterCache* const cache_;
  ForeignObjects* const foreign_;
  const KubeVersion kube_;
  const FeatureGates gates_;
  runtime::Clock* const clock_;
  const absl::Duration tick_;

  mutable absl::Mutex compute_mu_;  // one computation at a time
  mutable absl::Mutex mu_ ABSL_ACQUIRED_AFTER(compute_mu_);
  std::shared_ptr<const Computed> last_ ABSL_GUARDED_BY(mu_);
  // The inventory of the last computation, reused while no ResourceSlice changed (building it
  // copies every device), and rebuilt in its own tables when one did (Inventory::Rebuild). Only
  // Compute touches these, under compute_mu_. `inventory_built_`: it has been built once.
  dra::Inventory inventory_ ABSL_GUARDED_BY(compute_mu_);
  bool inventory_built_ ABSL_GUARDED_BY(compute_mu_) = false;
  uint64_t inventory_version_ ABSL_GUARDED_BY(compute_mu_) = 0;
  // Per-slice work (signatures, projections, selector outcomes) kept between computations:
  // after a ResourceSlice change, only the changed slices' devices are worked out again.
  profile::FleetMemo memo_ ABSL_GUARDED_BY(compute_mu_);
  // What the cached ResourceClaims say (held devices, per-class counts), reused while no claim
  // changed: slices change far more often than claims are allocated, and re-reading 30,000
  // claims for every slice change doubled the computation (bench/desired_state_benchmark).
  // Only computations under compute_mu_ read it (AssembleDesiredState copies what it needs).
  std::unique_ptr<profile::ClaimLedger> ledger_ ABSL_GUARDED_BY(compute_mu_);
  uint64_t ledger_version_ ABSL_GUARDED_BY(compute_mu_) = 0;
  int64_t ledger_claims_ ABSL_GUARDED_BY(compute_mu_) = 0;
  // The spec side of the last computation (profile/engine.h), reused while spec_version() and
  // the foreign objects' version stay the same.
  std::shared_ptr<const profile::SpecPlan> plan_ ABSL_GUARDED_BY(compute_mu_);
  uint64_t plan_version_ ABSL_GUARDED_BY(compute_mu_) = 0;
  int64_t plans_ ABSL_GUARDED_BY(compute_mu_) = 0;
  absl::Time last_started_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time last_finished_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int64_t computations_ ABSL_GUARDED_BY(mu_) = 0;
  // The foreign objects' version the current plan covers.
  uint64_t plan_foreign_version_ ABSL_GUARDED_BY(compute_mu_) = 0;
};

}  // namespace gpuprofile::reconciler
