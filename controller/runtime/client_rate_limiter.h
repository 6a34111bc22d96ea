// File: controller/runtime/client_rate_limiter.h
// The client-side request limiter behind `--kube-api-qps` / `--kube-api-burst` (defaults 50 and
// 100), as client-go's flowcontrol token-bucket limiter: every request to the API server takes a
// token first; requests beyond the burst are spaced 1/qps apart. Waiting is done on the injected
// Clock, so tests drive it with a FakeClock.
//
// Thread-safety: thread-safe; any number of threads may wait at once.
#pragma once

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/token_bucket.h"

namespace gpuprofile::runtime {

class ClientRateLimiter {
 public:
  static constexpr double kDefaultQps = 50;
  static constexpr int kDefaultBurst = 100;

  // `qps` <= 0 disables limiting (every call succeeds at once). `clock` must outlive this.
  ClientRateLimiter(Clock* clock, double qps = kDefaultQps, int burst = kDefaultBurst);

  // Takes a token if one is available now; never waits.
  bool TryAccept();

  // Waits for a token. Returns OK once it is taken; DeadlineExceeded, without taking a token,
  // when the token would only be available after `deadline` (so a caller with a request timeout
  // fails at once instead of waiting in vain); Cancelled when Stop() is called while waiting or
  // before.
  [[nodiscard]] absl::Status Wait(absl::Time deadline = absl::InfiniteFuture());

  // Wakes every waiter with Cancelled; later calls to Wait fail the same way.
  void Stop();

 private:
  Clock* const clock_;
  const bool unlimited_;
  absl::Mutex mu_;
  TokenBucket bucket_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gpuprofile::runtime
