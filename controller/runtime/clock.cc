// File: controller/runtime/clock.cc
#include "controller/runtime/clock.h"

namespace gpuprofile::runtime {

void Clock::SleepUntil(absl::Time deadline) {
  absl::Mutex mu;
  const bool never = false;
  absl::MutexLock lock(&mu);
  while (Now() < deadline) AwaitWithDeadline(&mu, absl::Condition(&never), deadline);
}

absl::Time RealClock::Now() const { return absl::Now(); }

bool RealClock::AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond,
                                  absl::Time deadline) {
  return mu->AwaitWithDeadline(cond, deadline);
}

RealClock* RealClock::Default() {
  static RealClock* const clock = new RealClock();
  return clock;
}

absl::Time TickAtOrBefore(absl::Time t, absl::Duration period) {
  return absl::UnixEpoch() + absl::Floor(t - absl::UnixEpoch(), period);
}

}  // namespace gpuprofile::runtime
