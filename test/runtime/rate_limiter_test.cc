// File: test/runtime/rate_limiter_test.cc
#include "controller/runtime/rate_limiter.h"

#include <memory>
#include <utility>
#include <vector>

#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace rate_limiter_test {
namespace {

TEST(ItemExponentialFailureRateLimiterTest, DoublesFrom5msPerItemAndForgets) {
  ItemExponentialFailureRateLimiter limiter;
  EXPECT_EQ(limiter.When("a"), absl::Milliseconds(5));
  EXPECT_EQ(limiter.When("a"), absl::Milliseconds(10));
  EXPECT_EQ(limiter.When("a"), absl::Milliseconds(20));
  EXPECT_EQ(limiter.When("b"), absl::Milliseconds(5));
  EXPECT_EQ(limiter.NumRequeues("a"), 3);
  EXPECT_EQ(limiter.NumRequeues("b"), 1);
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.When("a"), absl::Milliseconds(5));
}

TEST(ItemExponentialFailureRateLimiterTest, CapsAt1000sAndNeverOverflows) {
  ItemExponentialFailureRateLimiter limiter;
  absl::Duration last;
  for (int i = 0; i < 1000; ++i) last = limiter.When("a");
  EXPECT_EQ(last, absl::Seconds(1000));
  // 5 ms * 2^17 = 655.36 s, * 2^18 = 1310.72 s -> capped
  ItemExponentialFailureRateLimiter fresh;
  for (int i = 0; i < 17; ++i) fresh.When("x");
  EXPECT_EQ(fresh.When("x"), absl::Milliseconds(655360));
  EXPECT_EQ(fresh.When("x"), absl::Seconds(1000));
}

TEST(BucketRateLimiterTest, HundredFreeThenTenPerSecond) {
  FakeClock clock;
  BucketRateLimiter limiter(&clock);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.When("k"), absl::ZeroDuration()) << i;
  EXPECT_EQ(limiter.When("k"), absl::Milliseconds(100));
  EXPECT_EQ(limiter.When("other"), absl::Milliseconds(200));
  EXPECT_EQ(limiter.NumRequeues("k"), 0);
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(limiter.When("k"), absl::ZeroDuration());
}

TEST(MaxOfRateLimiterTest, DefaultTakesTheLongerDelay) {
  FakeClock clock;
  std::unique_ptr<RateLimiter> limiter = DefaultControllerRateLimiter(&clock);
  // Per-item backoff dominates while the bucket has tokens.
  EXPECT_EQ(limiter->When("a"), absl::Milliseconds(5));
  EXPECT_EQ(limiter->When("a"), absl::Milliseconds(10));
  EXPECT_EQ(limiter->NumRequeues("a"), 2);
  // Drain the bucket with other items: the bucket's delay wins for a fresh item.
  for (int i = 0; i < 98; ++i) limiter->When("item" + std::to_string(i));
  EXPECT_EQ(limiter->When("fresh"), absl::Milliseconds(100));
  limiter->Forget("a");
  EXPECT_EQ(limiter->NumRequeues("a"), 0);
}

}  // namespace
}  // namespace rate_limiter_test
}  // namespace gpuprofile::runtime
