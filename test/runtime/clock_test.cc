// File: test/runtime/clock_test.cc
#include "controller/runtime/clock.h"

#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace clock_test {
namespace {

TEST(FakeClockTest, StandsStillUntilAdvanced) {
  FakeClock clock;
  const absl::Time start = clock.Now();
  EXPECT_EQ(clock.Now(), start);
  clock.Advance(absl::Seconds(3));
  EXPECT_EQ(clock.Now(), start + absl::Seconds(3));
  clock.SetTime(start);  // never backwards
  EXPECT_EQ(clock.Now(), start + absl::Seconds(3));
}

TEST(FakeClockTest, AwaitReturnsAtOnceWhenConditionHoldsOrDeadlinePassed) {
  FakeClock clock;
  absl::Mutex mu;
  bool flag = true;
  absl::MutexLock lock(&mu);
  EXPECT_TRUE(clock.AwaitWithDeadline(&mu, absl::Condition(&flag), absl::InfiniteFuture()));
  flag = false;
  EXPECT_FALSE(clock.AwaitWithDeadline(&mu, absl::Condition(&flag), clock.Now()));
}

TEST(FakeClockTest, AdvanceWakesAWaiterAtItsDeadline) {
  FakeClock clock;
  const absl::Time deadline = clock.Now() + absl::Seconds(10);
  absl::Notification woke;
  std::thread waiter([&] {
    clock.SleepUntil(deadline);
    woke.Notify();
  });
  clock.BlockUntilWaiters(1);
  EXPECT_EQ(clock.EarliestDeadline(), deadline);
  clock.Advance(absl::Seconds(9));
  EXPECT_FALSE(woke.HasBeenNotified());
  EXPECT_EQ(clock.NumWaiters(), 1);
  clock.Advance(absl::Seconds(1));
  woke.WaitForNotification();
  waiter.join();
  EXPECT_EQ(clock.NumWaiters(), 0);
}

TEST(FakeClockTest, ConditionChangeWakesAWaiterBeforeItsDeadline) {
  FakeClock clock;
  absl::Mutex mu;
  bool ready = false;
  bool result = false;
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    result = clock.AwaitWithDeadline(&mu, absl::Condition(&ready), absl::InfiniteFuture());
  });
  clock.BlockUntilWaiters(1);
  {
    absl::MutexLock lock(&mu);
    ready = true;
  }
  waiter.join();
  EXPECT_TRUE(result);
}

TEST(TickAtOrBeforeTest, MultiplesOfThePeriodSinceTheEpoch) {
  const absl::Duration tick = absl::Milliseconds(200);
  const absl::Time start = absl::FromUnixSeconds(1700000000);  // a multiple of 200 ms
  EXPECT_EQ(TickAtOrBefore(start, tick), start);
  EXPECT_EQ(TickAtOrBefore(start + absl::Milliseconds(199), tick), start);
  EXPECT_EQ(TickAtOrBefore(start + absl::Milliseconds(200), tick), start + tick);
  EXPECT_EQ(TickAtOrBefore(start - absl::Nanoseconds(1), tick), start - tick);
  EXPECT_EQ(TickAtOrBefore(start + absl::Milliseconds(1234), absl::Seconds(1)),
            start + absl::Seconds(1));
}

TEST(RealClockTest, PastDeadlineDoesNotBlock) {
  RealClock* clock = RealClock::Default();
  absl::Mutex mu;
  const bool never = false;
  absl::MutexLock lock(&mu);
  EXPECT_FALSE(clock->AwaitWithDeadline(&mu, absl::Condition(&never), clock->Now()));
  clock->SleepUntil(absl::InfinitePast());
}

}  // namespace
}  // namespace clock_test
}  // namespace gpuprofile::runtime
