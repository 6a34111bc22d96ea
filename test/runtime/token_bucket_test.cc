// File: test/runtime/token_bucket_test.cc
#include "controller/runtime/token_bucket.h"

#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace token_bucket_test {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1000);

TEST(TokenBucketTest, BurstIsFreeThenReservationsAreSpacedByTheRate) {
  TokenBucket bucket(10, 3, kStart);
  EXPECT_EQ(bucket.Reserve(kStart), absl::ZeroDuration());
  EXPECT_EQ(bucket.Reserve(kStart), absl::ZeroDuration());
  EXPECT_EQ(bucket.Reserve(kStart), absl::ZeroDuration());
  EXPECT_EQ(bucket.Reserve(kStart), absl::Milliseconds(100));
  EXPECT_EQ(bucket.Reserve(kStart), absl::Milliseconds(200));
  EXPECT_DOUBLE_EQ(bucket.Tokens(kStart), -2);
}

TEST(TokenBucketTest, RefillsAtTheRateUpToTheBurst) {
  TokenBucket bucket(10, 2, kStart);
  bucket.Reserve(kStart);
  bucket.Reserve(kStart);
  EXPECT_DOUBLE_EQ(bucket.Tokens(kStart + absl::Milliseconds(150)), 1.5);
  EXPECT_DOUBLE_EQ(bucket.Tokens(kStart + absl::Hours(1)), 2);
  EXPECT_EQ(bucket.Reserve(kStart + absl::Hours(1)), absl::ZeroDuration());
}

TEST(TokenBucketTest, TryTakeNeverGoesIntoDebt) {
  TokenBucket bucket(1, 1, kStart);
  EXPECT_TRUE(bucket.TryTake(kStart));
  EXPECT_FALSE(bucket.TryTake(kStart));
  EXPECT_FALSE(bucket.TryTake(kStart + absl::Milliseconds(999)));
  EXPECT_TRUE(bucket.TryTake(kStart + absl::Seconds(1)));
}

TEST(TokenBucketTest, ReturnGivesBackAnUnusedReservation) {
  TokenBucket bucket(1, 1, kStart);
  bucket.Reserve(kStart);
  EXPECT_EQ(bucket.Reserve(kStart), absl::Seconds(1));
  bucket.Return(kStart);
  EXPECT_EQ(bucket.Reserve(kStart), absl::Seconds(1));
}

}  // namespace
}  // namespace token_bucket_test
}  // namespace gpuprofile::runtime
