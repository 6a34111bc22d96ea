// File: controller/runtime/rate_limiter.cc
#include "controller/runtime/rate_limiter.h"

#include <algorithm>
#include <utility>

namespace gpuprofile::runtime {

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(absl::Duration base_delay,
                                                                     absl::Duration max_delay)
    : base_delay_(base_delay), max_delay_(max_delay) {}

absl::Duration ItemExponentialFailureRateLimiter::When(const std::string& item) {
  int exponent;
  {
    absl::MutexLock lock(&mu_);
    exponent = failures_[item]++;
  }
  // Doubling stops as soon as the cap is reached, so large failure counts cannot overflow.
  absl::Duration delay = base_delay_;
  for (int i = 0; i < exponent && delay < max_delay_; ++i) delay *= 2;
  return std::min(delay, max_delay_);
}

void ItemExponentialFailureRateLimiter::Forget(const std::string& item) {
  absl::MutexLock lock(&mu_);
  failures_.erase(item);
}

int ItemExponentialFailureRateLimiter::NumRequeues(const std::string& item) {
  absl::MutexLock lock(&mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(Clock* clock, double qps, int burst)
    : clock_(clock), bucket_(qps, burst, clock->Now()) {}

absl::Duration BucketRateLimiter::When(const std::string& item) {
  absl::MutexLock lock(&mu_);
  return bucket_.Reserve(clock_->Now());
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

absl::Duration MaxOfRateLimiter::When(const std::string& item) {
  absl::Duration longest = absl::ZeroDuration();
  for (const auto& limiter : limiters_) longest = std::max(longest, limiter->When(item));
  return longest;
}

void MaxOfRateLimiter::Forget(const std::string& item) {
  for (const auto& limiter : limiters_) limiter->Forget(item);
}

int MaxOfRateLimiter::NumRequeues(const std::string& item) {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->NumRequeues(item));
  return most;
}

std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Clock* clock) {
  std::vector<std::unique_ptr<RateLimiter>> parts;
  parts.push_back(std::make_unique<ItemExponentialFailureRateLimiter>());
  parts.push_back(std::make_unique<BucketRateLimiter>(clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(parts));
}

}  // namespace gpuprofile::runtime
