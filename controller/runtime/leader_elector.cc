// File: controller/runtime/leader_elector.cc
#include "controller/runtime/leader_elector.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuprofile::runtime {
namespace {

// client-go's wait.Jitter factor: renew_deadline must leave room for a jittered retry.
constexpr double kJitterFactor = 1.2;

void RunAll(const std::vector<std::function<void()>>& callbacks) {
  for (const auto& callback : callbacks) callback();
}

}  // namespace

absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config) {
  if (config.lease_namespace.empty() || config.lease_name.empty()) {
    return absl::InvalidArgumentError("leader election: the Lease namespace and name are required");
  }
  if (config.identity.empty()) {
    return absl::InvalidArgumentError("leader election: the candidate identity is required");
  }
  if (config.retry_period <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("leader election: the retry period must be positive");
  }
  if (config.renew_deadline <= config.retry_period * kJitterFactor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "leader election: the renew deadline (", absl::FormatDuration(config.renew_deadline),
        ") must be greater than 1.2 x the retry period (",
        absl::FormatDuration(config.retry_period), ")"));
  }
  if (config.lease_duration <= config.renew_deadline) {
    return absl::InvalidArgumentError(absl::StrCat(
        "leader election: the lease duration (", absl::FormatDuration(config.lease_duration),
        ") must be greater than the renew deadline (", absl::FormatDuration(config.renew_deadline),
        ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LeaderElector>> LeaderElector::Create(LeaderElectionConfig config,
                                                                     LeaseClient* client,
                                                                     Clock* clock) {
  if (absl::Status status = ValidateLeaderElectionConfig(config); !status.ok()) return status;
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config), client, clock));
}

LeaderElector::LeaderElector(LeaderElectionConfig config, LeaseClient* client, Clock* clock)
    : config_(std::move(config)),
      // The Lease stores whole seconds; round up so others never wait less than configured.
      lease_duration_seconds_(static_cast<int32_t>(
          std::max(1.0, std::ceil(absl::ToDoubleSeconds(config_.lease_duration))))),
      client_(client),
      clock_(clock) {
  if (config_.master_status != nullptr) config_.master_status->Set(0);
}

void LeaderElector::ObserveLocked(const Lease& lease, absl::Time now,
                                  std::vector<std::function<void()>>* callbacks) {
  if (have_observed_ && lease.resource_version == observed_.resource_version &&
      lease.spec == observed_.spec) {
    return;
  }
  const bool holder_changed =
      !have_observed_ || lease.spec.holder_identity != observed_.spec.holder_identity;
  have_observed_ = true;
  observed_ = lease;
  observed_at_ = now;
  if (holder_changed && !lease.spec.holder_identity.empty() && config_.callbacks.on_new_leader) {
    callbacks->push_back(
        [this, holder = lease.spec.holder_identity] { config_.callbacks.on_new_leader(holder); });
  }
}

void LeaderElector::StopLeadingLocked(std::vector<std::function<void()>>* callbacks) {
  if (!leading_) return;
  leading_ = false;
  if (config_.master_status != nullptr) config_.master_status->Set(0);
  if (config_.callbacks.on_stopped_leading) {
    callbacks->push_back(config_.callbacks.on_stopped_leading);
  }
}

bool LeaderElector::IsLeaderLocked(absl::Time now) const {
  return leading_ && now < renewed_at_ + config_.renew_deadline;
}

bool LeaderElector::IsLeader() const {
  absl::MutexLock lock(&mu_);
  return IsLeaderLocked(clock_->Now());
}

std::string LeaderElector::ObservedLeader() const {
  absl::MutexLock lock(&mu_);
  return have_observed_ ? observed_.spec.holder_identity : std::string();
}

bool LeaderElector::TryAcquireOrRenew(absl::Time attempt_start,
                                      std::vector<std::function<void()>>* callbacks) {
  absl::StatusOr<Lease> current = client_->Get(config_.lease_namespace, config_.lease_name);
  if (absl::IsNotFound(current.status())) {
    Lease lease;
    lease.namespace_name = config_.lease_namespace;
    lease.name = config_.lease_name;
    lease.spec.holder_identity = config_.identity;
    lease.spec.lease_duration_seconds = lease_duration_seconds_;
    lease.spec.acquire_time = attempt_start;
    lease.spec.renew_time = attempt_start;
    absl::StatusOr<Lease> created = client_->Create(lease);
    if (!created.ok()) return false;  // e.g. AlreadyExists: another candidate was faster
    absl::MutexLock lock(&mu_);
    ObserveLocked(*created, clock_->Now(), callbacks);
    return true;
  }
  if (!current.ok()) return false;

  const LeaseSpec& old = current->spec;
  {
    absl::MutexLock lock(&mu_);
    // Observation time is taken after the read, so expiry is never judged early.
    ObserveLocked(*current, clock_->Now(), callbacks);
    const bool held_by_other =
        !old.holder_identity.empty() && old.holder_identity != config_.identity &&
        attempt_start < observed_at_ + absl::Seconds(old.lease_duration_seconds);
    if (held_by_other) return false;
  }

  Lease next = *current;
  next.spec.holder_identity = config_.identity;
  next.spec.lease_duration_seconds = lease_duration_seconds_;
  next.spec.renew_time = attempt_start;
  if (old.holder_identity != config_.identity) {
    next.spec.acquire_time = attempt_start;
    next.spec.lease_transitions = old.lease_transitions + 1;
  }
  absl::StatusOr<Lease> updated = client_->Update(next);
  if (!updated.ok()) return false;  // a conflict means someone else wrote first: retry later
  absl::MutexLock lock(&mu_);
  ObserveLocked(*updated, clock_->Now(), callbacks);
  return true;
}

absl::Time LeaderElector::Step() {
  absl::MutexLock step_lock(&step_mu_);
  std::vector<std::function<void()>> callbacks;
  const absl::Time attempt_start = clock_->Now();
  {
    absl::MutexLock lock(&mu_);
    if (leading_ && !IsLeaderLocked(attempt_start)) StopLeadingLocked(&callbacks);
  }
  const bool holds = TryAcquireOrRenew(attempt_start, &callbacks);
  absl::Time next_attempt = attempt_start + config_.retry_period;
  {
    absl::MutexLock lock(&mu_);
    if (holds) {
      renewed_at_ = attempt_start;
      // Only start leading if the attempt did not itself outlast the renew deadline.
      if (!leading_ && clock_->Now() < attempt_start + config_.renew_deadline) {
        leading_ = true;
        if (config_.master_status != nullptr) config_.master_status->Set(1);
        if (config_.callbacks.on_started_leading) {
          callbacks.push_back(config_.callbacks.on_started_leading);
        }
      }
    } else if (leading_ && have_observed_ && !observed_.spec.holder_identity.empty() &&
               observed_.spec.holder_identity != config_.identity) {
      StopLeadingLocked(&callbacks);  // someone else holds the Lease: step down now
    }
    if (leading_ && !IsLeaderLocked(clock_->Now())) StopLeadingLocked(&callbacks);
    if (leading_) next_attempt = std::min(next_attempt, renewed_at_ + config_.renew_deadline);
  }
  RunAll(callbacks);
  return next_attempt;
}

absl::Status LeaderElector::Release() {
  absl::MutexLock step_lock(&step_mu_);
  std::vector<std::function<void()>> callbacks;
  bool was_leading;
  {
    absl::MutexLock lock(&mu_);
    was_leading = leading_;
    StopLeadingLocked(&callbacks);
  }
  RunAll(callbacks);
  if (!was_leading) return absl::OkStatus();
  absl::StatusOr<Lease> current = client_->Get(config_.lease_namespace, config_.lease_name);
  if (absl::IsNotFound(current.status())) return absl::OkStatus();
  if (!current.ok()) return current.status();
  if (current->spec.holder_identity != config_.identity) return absl::OkStatus();
  Lease released = *current;
  const absl::Time now = clock_->Now();
  released.spec.holder_identity.clear();
  released.spec.lease_duration_seconds = 1;
  released.spec.acquire_time = now;
  released.spec.renew_time = now;
  absl::StatusOr<Lease> updated = client_->Update(released);
  if (!updated.ok()) return updated.status();
  callbacks.clear();
  {
    absl::MutexLock lock(&mu_);
    ObserveLocked(*updated, clock_->Now(), &callbacks);
  }
  RunAll(callbacks);
  return absl::OkStatus();
}

void LeaderElector::Run() {
  while (true) {
    const absl::Time next_attempt = Step();
    absl::MutexLock lock(&mu_);
    while (!stop_requested_ && clock_->Now() < next_attempt) {
      clock_->AwaitWithDeadline(&mu_, absl::Condition(&stop_requested_), next_attempt);
    }
    if (stop_requested_) break;
  }
  if (config_.release_on_cancel) {
    // A failed release only delays the successor until the Lease expires.
    (void)Release();
    return;
  }
  std::vector<std::function<void()>> callbacks;
  {
    absl::MutexLock lock(&mu_);
    StopLeadingLocked(&callbacks);
  }
  RunAll(callbacks);
}

void LeaderElector::Stop() {
  absl::MutexLock lock(&mu_);
  stop_requested_ = true;
}

}  // namespace gpuprofile::runtime
