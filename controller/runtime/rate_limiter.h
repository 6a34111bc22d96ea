// File: controller/runtime/rate_limiter.h
// Per-item rate limiters for the work queue, with controller-runtime's semantics
// (client-go's workqueue.TypedRateLimiter): When(item) says how long to wait before the item may
// be processed again and records a failure; Forget(item) clears its history after a success;
// NumRequeues(item) is the number of failures recorded since.
//
//  - ItemExponentialFailureRateLimiter: base * 2^failures, capped (5 ms -> 1000 s by default).
//  - BucketRateLimiter: one token bucket for all items (10 qps, burst 100 by default); it caps the
//    overall retry rate and keeps no per-item history.
//  - MaxOfRateLimiter: the longest delay of its parts; NumRequeues is the largest of theirs.
//  - DefaultControllerRateLimiter(): max of the two defaults above, as controller-runtime uses.
//
// Thread-safety: every limiter here is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/token_bucket.h"

namespace gpuprofile::runtime {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // The delay before `item` may be retried; counts one failure for it.
  virtual absl::Duration When(const std::string& item) = 0;
  // Forgets `item`'s failures (call after it was processed successfully).
  virtual void Forget(const std::string& item) = 0;
  // Failures counted for `item` since it was last forgotten.
  virtual int NumRequeues(const std::string& item) = 0;
};

class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  static constexpr absl::Duration kDefaultBaseDelay = absl::Milliseconds(5);
  static constexpr absl::Duration kDefaultMaxDelay = absl::Seconds(1000);

  ItemExponentialFailureRateLimiter(absl::Duration base_delay = kDefaultBaseDelay,
                                    absl::Duration max_delay = kDefaultMaxDelay);

  absl::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) override;

 private:
  const absl::Duration base_delay_;
  const absl::Duration max_delay_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, int> failures_ ABSL_GUARDED_BY(mu_);
};

class BucketRateLimiter final : public RateLimiter {
 public:
  static constexpr double kDefaultQps = 10;
  static constexpr int kDefaultBurst = 100;

  // `clock` must outlive the limiter.
  BucketRateLimiter(Clock* clock, double qps = kDefaultQps, int burst = kDefaultBurst);

  absl::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override {}
  int NumRequeues(const std::string& item) override { return 0; }

 private:
  Clock* const clock_;
  absl::Mutex mu_;
  TokenBucket bucket_ ABSL_GUARDED_BY(mu_);
};

class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);

  absl::Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) override;

 private:
  const std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// Max of ItemExponentialFailureRateLimiter(5 ms, 1000 s) and BucketRateLimiter(10 qps, 100).
std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Clock* clock);

}  // namespace gpuprofile::runtime
