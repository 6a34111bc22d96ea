// File: controller/runtime/client_rate_limiter.cc
#include "controller/runtime/client_rate_limiter.h"

namespace gpuprofile::runtime {

ClientRateLimiter::ClientRateLimiter(Clock* clock, double qps, int burst)
    : clock_(clock), unlimited_(qps <= 0), bucket_(qps > 0 ? qps : 1, burst, clock->Now()) {}

bool ClientRateLimiter::TryAccept() {
  if (unlimited_) return true;
  absl::MutexLock lock(&mu_);
  return !stopped_ && bucket_.TryTake(clock_->Now());
}

absl::Status ClientRateLimiter::Wait(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  if (stopped_) return absl::CancelledError("client rate limiter stopped");
  if (unlimited_) return absl::OkStatus();
  const absl::Time now = clock_->Now();
  const absl::Duration delay = bucket_.Reserve(now);
  if (delay == absl::ZeroDuration()) return absl::OkStatus();
  const absl::Time ready = now + delay;
  if (ready > deadline) {
    bucket_.Return(now);
    return absl::DeadlineExceededError(
        "client rate limiter: waiting for a request token would exceed the deadline");
  }
  // The token is reserved: only the clock or Stop() can end the wait.
  while (!stopped_ && clock_->Now() < ready) {
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&stopped_), ready);
  }
  if (stopped_) return absl::CancelledError("client rate limiter stopped");
  return absl::OkStatus();
}

void ClientRateLimiter::Stop() {
  absl::MutexLock lock(&mu_);
  stopped_ = true;
}

}  // namespace gpuprofile::runtime
