// File: test/core/rfc3339_test.cc
#include "controller/core/rfc3339.h"

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace gpuprofile {
namespace rfc3339_test {
namespace {

TEST(FormatRfc3339SecondsTest, WritesUtcToTheSecond) {
  struct Case {
    absl::Time time;
    std::string want;
  };
  const absl::Time friday = absl::FromUnixSeconds(1234567890);
  const std::vector<Case> cases = {
      {absl::UnixEpoch(), "1970-01-01T00:00:00Z"},
      {friday, "2009-02-13T23:31:30Z"},
      // The fraction is dropped, towards the past, also before the epoch.
      {friday + absl::Milliseconds(999), "2009-02-13T23:31:30Z"},
      {absl::UnixEpoch() - absl::Nanoseconds(1), "1969-12-31T23:59:59Z"},
      // Single-digit fields are zero-padded.
      {absl::FromCivil(absl::CivilSecond(2026, 3, 4, 5, 6, 7), absl::UTCTimeZone()),
       "2026-03-04T05:06:07Z"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatRfc3339Seconds(c.time), c.want) << absl::FormatTime(c.time);
  }
}

TEST(FormatRfc3339SecondsTest, IgnoresTheLocalTimeZone) {
  // An absl::Time is an instant: the same instant gives the same UTC text wherever it was made.
  const absl::TimeZone plus_five = absl::FixedTimeZone(5 * 60 * 60);
  const absl::Time t = absl::FromCivil(absl::CivilSecond(2026, 12, 2, 11, 0, 0), plus_five);
  EXPECT_EQ(FormatRfc3339Seconds(t), "2026-12-02T06:00:00Z");
}

TEST(FormatRfc3339SecondsTest, InfiniteTimesAreNamed) {
  EXPECT_EQ(FormatRfc3339Seconds(absl::InfiniteFuture()), "infinite-future");
  EXPECT_EQ(FormatRfc3339Seconds(absl::InfinitePast()), "infinite-past");
}

}  // namespace
}  // namespace rfc3339_test
}  // namespace gpuprofile
