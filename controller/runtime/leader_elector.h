// File: controller/runtime/leader_elector.h
// Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics and defaults
// (lease duration 15 s, renew deadline 10 s, retry period 2 s):
//  - a candidate takes the Lease when it is free (no holder, or released), held by itself, or
//    expired: unchanged for a full lease duration as measured on the candidate's own clock from
//    when it first saw that version (never from timestamps written by another machine);
//  - the leader renews every retry period and stops leading when the renew deadline passes
//    without a successful renewal (measured from the start of the last successful attempt), or at
//    once when it sees another holder. Because renew deadline < lease duration, a leader always
//    stops before any other candidate may take over, so two leaders never act at once;
//  - on shutdown the leader releases the Lease (empty holder, 1 s duration), so a successor takes
//    over on its next attempt instead of waiting for expiry;
//  - writes use the Lease's resourceVersion: a conflict only fails that attempt.
//
// Step() performs one attempt and is what tests drive; Run() loops Step() on the injected clock
// until Stop(). IsLeader() is the check workers should use before acting: it is false as soon as
// the renew deadline passes, even before the next Step() notices.
//
// Callbacks run on the thread calling Step()/Run()/Release(), outside the elector's state lock;
// they must return quickly (start workers elsewhere) and must not call Step() or Release().
// Thread-safety: thread-safe; Step() and Release() are serialised.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/lease_client.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::runtime {

struct LeaderElectionCallbacks {
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // The holder seen in the Lease changed (to another candidate or to this one).
  std::function<void(const std::string& identity)> on_new_leader;
};

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per process, e.g. "<pod name>_<uuid>"
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  bool release_on_cancel = true;
  LeaderElectionCallbacks callbacks;
  Gauge* master_status = nullptr;  // e.g. leader_election_master_status{name}; may be null
};

// InvalidArgument unless names and identity are set and
// lease_duration > renew_deadline > 1.2 * retry_period > 0 (client-go's constraints).
absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

class LeaderElector {
 public:
  // `client` and `clock` must outlive the elector.
  static absl::StatusOr<std::unique_ptr<LeaderElector>> Create(LeaderElectionConfig config,
                                                               LeaseClient* client, Clock* clock);

  // One attempt to acquire or renew; returns when the next attempt is due.
  absl::Time Step();

  // Loops Step() until Stop(), then releases the Lease (with release_on_cancel) or just stops
  // leading.
  void Run();
  void Stop();

  // Leading, and the renew deadline has not passed.
  bool IsLeader() const;
  // The holder in the last Lease seen (empty if none or released).
  std::string ObservedLeader() const;

  // Stops leading and, if the Lease still names this candidate, clears its holder. OK when not
  // leading; the LeaseClient's error when the write fails.
  absl::Status Release();

  const LeaderElectionConfig& config() const { return config_; }

 private:
  LeaderElector(LeaderElectionConfig config, LeaseClient* client, Clock* clock);

  // Returns true when this candidate holds the Lease after the attempt.
  bool TryAcquireOrRenew(absl::Time attempt_start, std::vector<std::function<void()>>* callbacks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  // Records `lease` as seen now; queues on_new_leader when the holder changed.
  void ObserveLocked(const Lease& lease, absl::Time now,
                     std::vector<std::function<void()>>* callbacks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stops leading (queues on_stopped_leading) if leading.
  void StopLeadingLocked(std::vector<std::function<void()>>* callbacks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsLeaderLocked(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const LeaderElectionConfig config_;
  const int32_t lease_duration_seconds_;
  LeaseClient* const client_;
  Clock* const clock_;

  absl::Mutex step_mu_;  // serialises Step() and Release(); held across LeaseClient calls
  mutable absl::Mutex mu_ ABSL_ACQUIRED_AFTER(step_mu_);
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time renewed_at_ ABSL_GUARDED_BY(mu_);  // start of the last successful attempt
  bool have_observed_ ABSL_GUARDED_BY(mu_) = false;
  Lease observed_ ABSL_GUARDED_BY(mu_);
  absl::Time observed_at_ ABSL_GUARDED_BY(mu_);  // local time `observed_` was first seen
  bool stop_requested_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gpuprofile::runtime
