// File: controller/runtime/clock.h
// The runtime's only access to time. Every component that waits (work queue, rate limiters,
// leader election, event aggregation) takes a Clock*, so tests drive time with a FakeClock
// (controller/runtime/testing/fake_clock.h) instead of sleeping.
//
// Waiting is expressed against the caller's own mutex: AwaitWithDeadline blocks until a condition
// over state guarded by that mutex holds, or until the clock reaches a deadline. A wake-up from
// another thread is a change to that state under the mutex (absl::Mutex re-evaluates conditions
// when it is released), so "wait until deadline or notified" needs no separate primitive.
//
// Thread-safety: implementations are thread-safe.
#pragma once

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gpuprofile::runtime {

class Clock {
 public:
  virtual ~Clock() = default;

  virtual absl::Time Now() const = 0;

  // Requires `mu` held. Blocks until `cond` is true or Now() >= `deadline` (absl::InfiniteFuture()
  // waits for the condition only) and returns with `mu` held; returns whether `cond` held at
  // return. `mu` may be released while waiting, as with absl::Mutex::AwaitWithDeadline; callers
  // re-check their state after the call.
  virtual bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) = 0;

  // Blocks until Now() >= `deadline`. Not interruptible: use AwaitWithDeadline with a stop flag
  // when the wait must end early.
  void SleepUntil(absl::Time deadline);
};

// The system clock (absl::Now) and absl::Mutex's own timed waits.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override;
  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) override;

  // A process-wide instance, never destroyed.
  static RealClock* Default();
};

// The last multiple of `period` (> 0) since the Unix epoch at or before `t`: work scheduled on
// the ticks of one period lines up, whoever schedules it.
absl::Time TickAtOrBefore(absl::Time t, absl::Duration period);

}  // namespace gpuprofile::runtime
