// File: test/runtime/client_rate_limiter_test.cc
#include "controller/runtime/client_rate_limiter.h"

#include <thread>

#include "absl/synchronization/notification.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace client_rate_limiter_test {
namespace {

TEST(ClientRateLimiterTest, DefaultBurstOfHundredPassesWithoutWaiting) {
  FakeClock clock;
  ClientRateLimiter limiter(&clock);
  for (int i = 0; i < 100; ++i) ASSERT_OK(limiter.Wait());
  EXPECT_FALSE(limiter.TryAccept());
  clock.Advance(absl::Milliseconds(20));  // 50 qps: one token per 20 ms
  EXPECT_TRUE(limiter.TryAccept());
  EXPECT_FALSE(limiter.TryAccept());
}

TEST(ClientRateLimiterTest, WaitBlocksOnTheClockUntilTheTokenIsDue) {
  FakeClock clock;
  ClientRateLimiter limiter(&clock, /*qps=*/2, /*burst=*/1);
  ASSERT_OK(limiter.Wait());
  absl::Notification done;
  absl::Status status;
  std::thread caller([&] {
    status = limiter.Wait();
    done.Notify();
  });
  clock.BlockUntilWaiters(1);
  EXPECT_EQ(clock.EarliestDeadline(), clock.Now() + absl::Milliseconds(500));
  clock.Advance(absl::Milliseconds(499));
  EXPECT_FALSE(done.HasBeenNotified());
  clock.Advance(absl::Milliseconds(1));
  done.WaitForNotification();
  caller.join();
  EXPECT_OK(status);
}

TEST(ClientRateLimiterTest, DeadlineTooSoonFailsAtOnceWithoutTakingTheToken) {
  FakeClock clock;
  ClientRateLimiter limiter(&clock, 1, 1);
  ASSERT_OK(limiter.Wait());
  EXPECT_EQ(limiter.Wait(clock.Now() + absl::Milliseconds(500)).code(),
            absl::StatusCode::kDeadlineExceeded);
  clock.Advance(absl::Seconds(1));
  EXPECT_TRUE(limiter.TryAccept());  // the failed wait did not consume the next token
}

TEST(ClientRateLimiterTest, StopCancelsWaiters) {
  FakeClock clock;
  ClientRateLimiter limiter(&clock, 1, 1);
  ASSERT_OK(limiter.Wait());
  absl::Status status;
  std::thread caller([&] { status = limiter.Wait(); });
  clock.BlockUntilWaiters(1);
  limiter.Stop();
  caller.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(limiter.Wait().code(), absl::StatusCode::kCancelled);
}

TEST(ClientRateLimiterTest, NonPositiveQpsMeansUnlimited) {
  FakeClock clock;
  ClientRateLimiter limiter(&clock, -1, 1);
  for (int i = 0; i < 1000; ++i) ASSERT_OK(limiter.Wait());
  EXPECT_TRUE(limiter.TryAccept());
}

}  // namespace
}  // namespace client_rate_limiter_test
}  // namespace gpuprofile::runtime
