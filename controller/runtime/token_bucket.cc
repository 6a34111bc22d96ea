// File: controller/runtime/token_bucket.cc
#include "controller/runtime/token_bucket.h"

#include <algorithm>

namespace gpuprofile::runtime {

TokenBucket::TokenBucket(double qps, int burst, absl::Time start)
    : interval_(absl::Seconds(1) / (qps > 0 ? qps : 1.0)),
      burst_(std::max(burst, 1)),
      full_at_(start) {}

absl::Duration TokenBucket::Reserve(absl::Time now) {
  full_at_ = std::max(full_at_, now) + interval_;
  return std::max(absl::ZeroDuration(), full_at_ - now - burst_ * interval_);
}

bool TokenBucket::TryTake(absl::Time now) {
  const absl::Time next = std::max(full_at_, now) + interval_;
  if (next - now > burst_ * interval_) return false;
  full_at_ = next;
  return true;
}

void TokenBucket::Return(absl::Time now) { full_at_ = std::max(now, full_at_ - interval_); }

double TokenBucket::Tokens(absl::Time now) {
  const absl::Duration debt = std::max(absl::ZeroDuration(), full_at_ - now);
  return burst_ - absl::FDivDuration(debt, interval_);
}

}  // namespace gpuprofile::runtime
