// File: controller/runtime/token_bucket.h
// A token bucket with the semantics of Go's golang.org/x/time/rate.Limiter, which both
// controller-runtime's queue bucket and client-go's client-side limiter build on: the bucket
// starts full (`burst` tokens), refills at `qps` tokens per second up to `burst`, and a
// reservation always succeeds, driving the balance negative; the reservation's delay is how long
// until the balance is back at zero, so callers that honour delays are spaced 1/qps apart.
// Kept as the time at which the bucket is full again (each token costs 1/qps of refill), so the
// arithmetic is exact absl::Duration arithmetic, not floating point.
// Pure: time is passed in. Thread-compatible (callers lock).
#pragma once

#include "absl/time/time.h"

namespace gpuprofile::runtime {

class TokenBucket {
 public:
  // `qps` > 0 and `burst` >= 1; the bucket is full at `start`.
  TokenBucket(double qps, int burst, absl::Time start);

  // Takes one token now; returns how long the caller must wait before acting (zero when a token
  // was available).
  absl::Duration Reserve(absl::Time now);

  // Takes one token only if one is available now, without going into debt.
  bool TryTake(absl::Time now);

  // Returns one token taken by Reserve (a reservation the caller did not use).
  void Return(absl::Time now);

  // Tokens available at `now` (may be negative after reservations).
  double Tokens(absl::Time now);

  absl::Duration interval() const { return interval_; }
  int burst() const { return burst_; }

 private:
  absl::Duration interval_;  // refill time of one token
  int burst_;
  absl::Time full_at_;  // the bucket holds `burst` tokens from this time on
};

}  // namespace gpuprofile::runtime
