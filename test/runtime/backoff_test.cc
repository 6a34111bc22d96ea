// File: test/runtime/backoff_test.cc
#include "controller/runtime/backoff.h"

#include <vector>

#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace backoff_test {
namespace {

TEST(BackoffTest, WithoutJitterDoublesFrom800msAndCapsAt30s) {
  BackoffOptions options;
  options.randomization_factor = 0;
  Backoff backoff(options, [] { return 0.0; });
  std::vector<absl::Duration> delays;
  for (int i = 0; i < 8; ++i) delays.push_back(backoff.Next());
  EXPECT_EQ(delays, (std::vector<absl::Duration>{
                        absl::Milliseconds(800), absl::Milliseconds(1600), absl::Milliseconds(3200),
                        absl::Milliseconds(6400), absl::Milliseconds(12800),
                        absl::Milliseconds(25600), absl::Seconds(30), absl::Seconds(30)}));
}

TEST(BackoffTest, JitterSpreadsEachDelayOverZeroToTwiceTheInterval) {
  double u = 0;
  Backoff backoff(BackoffOptions{}, [&u] { return u; });
  EXPECT_EQ(backoff.Next(), absl::ZeroDuration());  // u = 0: lower end of [0, 1.6 s]
  u = 0.5;
  EXPECT_EQ(backoff.Next(), absl::Milliseconds(1600));  // middle of [0, 3.2 s]
  u = 0.75;
  EXPECT_EQ(backoff.Next(), absl::Milliseconds(4800));  // 3/4 of [0, 6.4 s]
}

TEST(BackoffTest, ResetStartsOver) {
  Backoff backoff(BackoffOptions{}, [] { return 0.5; });
  backoff.Next();
  backoff.Next();
  EXPECT_EQ(backoff.current_interval(), absl::Milliseconds(3200));
  backoff.Reset();
  EXPECT_EQ(backoff.Next(), absl::Milliseconds(800));
}

TEST(BackoffTest, RealRandomnessStaysInRange) {
  absl::BitGen gen;
  Backoff backoff(BackoffOptions{}, UniformFrom(&gen));
  for (int i = 0; i < 100; ++i) {
    const absl::Duration interval = backoff.current_interval();
    const absl::Duration delay = backoff.Next();
    EXPECT_GE(delay, absl::ZeroDuration());
    EXPECT_LE(delay, 2 * interval);
  }
}

}  // namespace
}  // namespace backoff_test
}  // namespace gpuprofile::runtime
