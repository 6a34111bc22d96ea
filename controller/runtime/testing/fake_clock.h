// File: controller/runtime/testing/fake_clock.h
// A Clock for tests: time stands still until the test calls Advance(), which wakes every waiter
// whose deadline has passed. Tests that need a thread to be parked before moving time on call
// BlockUntilWaiters(n) — a condition wait, never a sleep — so they are deterministic.
//
// How waking works: a waiter registers the mutex it waits under, then waits on "its condition or
// the fake time has reached its deadline". Advance() updates the time, then locks and unlocks
// every registered mutex; absl::Mutex re-evaluates waiting conditions when a mutex is released.
// Lock order: the registry's mutex before any waiter's mutex; waiters release their own mutex
// before touching the registry.
//
// Thread-safety: thread-safe. Do not call Advance() while holding a mutex some thread waits under
// through this clock (it would deadlock on that mutex).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::runtime {

class FakeClock final : public Clock {
 public:
  // 2023-11-14T22:13:20Z: a fixed, whole-second start so that printed times are stable.
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1700000000))
      : now_ns_(absl::ToUnixNanos(start)) {}

  absl::Time Now() const override { return absl::FromUnixNanos(now_ns_.load()); }

  // Releases and re-takes `mu` around registering, which the analysis cannot follow.
  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) ABSL_NO_THREAD_SAFETY_ANALYSIS override {
    if (cond.Eval()) return true;
    if (Now() >= deadline) return false;
    mu->Unlock();
    std::multimap<absl::Time, absl::Mutex*>::iterator entry;
    {
      absl::MutexLock lock(&registry_mu_);
      entry = waiters_.emplace(deadline, mu);
    }
    mu->Lock();
    struct WaitArg {
      const absl::Condition* cond;
      const FakeClock* clock;
      absl::Time deadline;
    };
    WaitArg arg{&cond, this, deadline};
    mu->Await(absl::Condition(
        +[](WaitArg* a) { return a->cond->Eval() || a->clock->Now() >= a->deadline; }, &arg));
    mu->Unlock();
    {
      absl::MutexLock lock(&registry_mu_);
      waiters_.erase(entry);
    }
    mu->Lock();
    return cond.Eval();
  }

  // Moves time forward by `d` (>= 0) and wakes the waiters.
  void Advance(absl::Duration d) { SetTime(Now() + d); }

  // Moves time to `t` (never backwards) and wakes the waiters.
  void SetTime(absl::Time t) {
    absl::MutexLock lock(&registry_mu_);
    if (t > Now()) now_ns_.store(absl::ToUnixNanos(t));
    for (const auto& [deadline, mu] : waiters_) {
      mu->Lock();
      mu->Unlock();
    }
  }

  // The number of threads currently blocked in AwaitWithDeadline.
  int NumWaiters() const {
    absl::MutexLock lock(&registry_mu_);
    return static_cast<int>(waiters_.size());
  }

  // Blocks (on a condition, not on time) until at least `n` threads wait on this clock.
  void BlockUntilWaiters(int n) const {
    absl::MutexLock lock(&registry_mu_);
    struct Arg {
      const std::multimap<absl::Time, absl::Mutex*>* waiters;
      int n;
    };
    Arg arg{&waiters_, n};
    registry_mu_.Await(absl::Condition(
        +[](Arg* a) { return static_cast<int>(a->waiters->size()) >= a->n; }, &arg));
  }

  // The earliest deadline among current waiters (InfiniteFuture() counts), if any wait.
  std::optional<absl::Time> EarliestDeadline() const {
    absl::MutexLock lock(&registry_mu_);
    if (waiters_.empty()) return std::nullopt;
    return waiters_.begin()->first;
  }

 private:
  std::atomic<int64_t> now_ns_;
  mutable absl::Mutex registry_mu_;
  std::multimap<absl::Time, absl::Mutex*> waiters_ ABSL_GUARDED_BY(registry_mu_);
};

}  // namespace gpuprofile::runtime
