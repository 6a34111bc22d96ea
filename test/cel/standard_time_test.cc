// File: test/cel/standard_time_test.cc
// Timestamp and duration text forms (time_format.h), time arithmetic and the timestamp/duration
// accessors of the standard library, including time zones.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/cel/internal/operators.h"
#include "controller/cel/internal/time_format.h"
#include "controller/cel/value.h"
#include "gtest/gtest.h"
#include "test/cel/standard_library_test_util.h"

namespace gpuprofile::cel::internal {
namespace standard_time_test {
namespace {

using testing::Call;
using testing::RunCases;
using testing::SameValue;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Value I(int64_t v) { return Value::Int(v); }
Value S(std::string v) { return Value::String(std::move(v)); }
Value E(std::string m) { return Value::Error(std::move(m)); }
Value Ts(int64_t unix_seconds, int64_t nanos = 0) {
  return Value::Timestamp(absl::FromUnixSeconds(unix_seconds) + absl::Nanoseconds(nanos));
}
Value Dur(absl::Duration d) { return Value::Duration(d); }

// 2009-02-13T23:31:30.123456789Z, a Friday, the 44th day of the year.
const int64_t kFriday = 1234567890;

TEST(TimeFormatTest, FormatsRfc3339Nano) {
  EXPECT_EQ(FormatRfc3339Nano(absl::FromUnixSeconds(kFriday)), "2009-02-13T23:31:30Z");
  EXPECT_EQ(FormatRfc3339Nano(absl::FromUnixSeconds(kFriday) + absl::Milliseconds(120)),
            "2009-02-13T23:31:30.12Z");
  EXPECT_EQ(FormatRfc3339Nano(absl::FromUnixSeconds(0) - absl::Nanoseconds(1)),
            "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(FormatRfc3339Nano(absl::FromUnixSeconds(kMinTimestampSeconds)),
            "0001-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339Nano(absl::FromUnixSeconds(kMaxTimestampSeconds)),
            "9999-12-31T23:59:59Z");
  // Never crashes on absl's infinities.
  EXPECT_FALSE(FormatRfc3339Nano(absl::InfiniteFuture()).empty());
  EXPECT_FALSE(FormatRfc3339Nano(absl::InfinitePast()).empty());
}

TEST(TimeFormatTest, ParsesRfc3339) {
  struct Row {
    const char* text;
    absl::Time want;
  };
  const absl::Time base = absl::FromUnixSeconds(kFriday);
  for (const Row& r : std::vector<Row>{
           {"2009-02-13T23:31:30Z", base},
           {"2009-02-13T23:31:30.5Z", base + absl::Milliseconds(500)},
           {"2009-02-13T23:31:30,25Z", base + absl::Milliseconds(250)},
           {"2009-02-13T23:31:30.1234567891234Z", base + absl::Nanoseconds(123456789)},
           {"2009-02-14T01:01:30+01:30", base},
           {"2009-02-13T15:31:30-08:00", base},
           {"2000-02-29T00:00:00Z", absl::FromUnixSeconds(951782400)},
       }) {
    absl::StatusOr<absl::Time> t = ParseRfc3339(r.text);
    ASSERT_TRUE(t.ok()) << r.text << ": " << t.status();
    EXPECT_EQ(*t, r.want) << r.text;
  }
  for (const char* bad : {"", "2009-02-13", "2009-02-13T23:31:30", "2009-02-13 23:31:30Z",
                          "2009-02-13T23:31:30z", "2009-13-01T00:00:00Z", "2009-02-29T00:00:00Z",
                          "2009-02-13T24:00:00Z", "2009-02-13T23:60:00Z", "2009-02-13T23:31:60Z",
                          "2009-02-13T23:31:30.Z", "2009-02-13T23:31:30+0100",
                          "2009-02-13T23:31:30Zjunk", "+2009-02-13T23:31:30Z",
                          "2009-02-13T23:31:30+24:00"}) {
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
  }
}

TEST(TimeFormatTest, FormatsDurationsAsSeconds) {
  EXPECT_EQ(FormatDurationSeconds(absl::Seconds(90)), "90s");
  EXPECT_EQ(FormatDurationSeconds(absl::Milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDurationSeconds(absl::Nanoseconds(-1)), "-0.000000001s");
  EXPECT_EQ(FormatDurationSeconds(absl::ZeroDuration()), "0s");
  EXPECT_EQ(FormatDurationSeconds(absl::Hours(1)), "3600s");
  // As Go: the nanoseconds of the largest duration do not survive float64.
  EXPECT_EQ(FormatDurationSeconds(absl::Nanoseconds(kMax)), "9223372036.854776s");
}

TEST(TimeFormatTest, ParsesGoDurations) {
  struct Row {
    const char* text;
    absl::Duration want;
  };
  for (const Row& r : std::vector<Row>{
           {"0", absl::ZeroDuration()},
           {"-0", absl::ZeroDuration()},
           {"1h2m3.5s", absl::Hours(1) + absl::Minutes(2) + absl::Milliseconds(3500)},
           {"-1.5h", -absl::Minutes(90)},
           {"+10s", absl::Seconds(10)},
           {"300ms", absl::Milliseconds(300)},
           {"1us", absl::Microseconds(1)},
           {"1\xc2\xb5s", absl::Microseconds(1)},
           {"1\xce\xbcs", absl::Microseconds(1)},
           {"7ns", absl::Nanoseconds(7)},
           {".5s", absl::Milliseconds(500)},
           {"1.s", absl::Seconds(1)},
           {"1h1h", absl::Hours(2)},
           {"9223372036854775807ns", absl::Nanoseconds(kMax)},
           {"-9223372036854775808ns", absl::Nanoseconds(kMin)},
           {"2562047h47m16.854775807s", absl::Nanoseconds(kMax)},
           {"0.0000000001s", absl::ZeroDuration()},
       }) {
    absl::StatusOr<absl::Duration> d = ParseGoDuration(r.text);
    ASSERT_TRUE(d.ok()) << r.text << ": " << d.status();
    EXPECT_EQ(*d, r.want) << r.text;
  }
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"", "time: invalid duration \"\""},
           {"1", "time: missing unit in duration \"1\""},
           {"1d", "time: unknown unit \"d\" in duration \"1d\""},
           {"-", "time: invalid duration \"-\""},
           {".s", "time: invalid duration \".s\""},
           {"1h-1m", "time: unknown unit \"h-\" in duration \"1h-1m\""},
           {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
           {"3000000h", "time: invalid duration \"3000000h\""},
           {"99999999999999999999s", "time: invalid duration \"99999999999999999999s\""},
           {"1\xff", "time: unknown unit \"\\xff\" in duration \"1\\xff\""},
           {" 1s", "time: invalid duration \" 1s\""},
       }) {
    absl::StatusOr<absl::Duration> d = ParseGoDuration(b.text);
    ASSERT_FALSE(d.ok()) << b.text;
    EXPECT_EQ(d.status().message(), b.message) << b.text;
  }
}

TEST(StandardTimeTest, TimestampAccessorsInUtc) {
  const Value t = Ts(kFriday, 123456789);
  RunCases({
      {"getFullYear", "timestamp_to_year", {t}, I(2009)},
      {"getMonth", "timestamp_to_month", {t}, I(1)},
      {"getDayOfYear", "timestamp_to_day_of_year", {t}, I(43)},
      {"getDayOfMonth", "timestamp_to_day_of_month", {t}, I(12)},
      {"getDate", "timestamp_to_day_of_month_1_based", {t}, I(13)},
      {"getDayOfWeek", "timestamp_to_day_of_week", {t}, I(5)},
      {"getHours", "timestamp_to_hours", {t}, I(23)},
      {"getMinutes", "timestamp_to_minutes", {t}, I(31)},
      {"getSeconds", "timestamp_to_seconds", {t}, I(30)},
      {"getMilliseconds", "timestamp_to_milliseconds", {t}, I(123)},
      {"getDayOfWeek", "timestamp_to_day_of_week", {Ts(kFriday + 2 * 86400)}, I(0)},
      {"getMilliseconds", "timestamp_to_milliseconds", {Ts(-1, 999000000)}, I(999)},
      {"getFullYear", "timestamp_to_year", {Ts(kMinTimestampSeconds)}, I(1)},
  });
}

TEST(StandardTimeTest, TimestampAccessorsInTimeZones) {
  const Value t = Ts(kFriday);  // 23:31:30 UTC on Friday 13 February
  RunCases({
      {"getHours", "timestamp_to_hours_with_tz", {t, S("America/Los_Angeles")}, I(15)},
      {"getHours", "timestamp_to_hours_with_tz", {t, S("Asia/Kolkata")}, I(5)},
      {"getMinutes", "timestamp_to_minutes_with_tz", {t, S("Asia/Kolkata")}, I(1)},
      {"getDate", "timestamp_to_day_of_month_1_based_with_tz", {t, S("Asia/Tokyo")}, I(14)},
      {"getDayOfWeek", "timestamp_to_day_of_week_with_tz", {t, S("Asia/Tokyo")}, I(6)},
      {"getHours", "timestamp_to_hours_with_tz", {t, S("UTC")}, I(23)},
      {"getHours", "timestamp_to_hours_with_tz", {t, S("")}, I(23)},
      {"getHours", "timestamp_to_hours_with_tz", {t, S("+05:30")}, I(5)},
      {"getMinutes", "timestamp_to_minutes_with_tz", {t, S("+05:30")}, I(1)},
      {"getHours", "timestamp_to_hours_with_tz", {t, S("-08:00")}, I(15)},
      {"getMinutes", "timestamp_to_minutes_with_tz", {t, S("-00:30")}, I(1)},
      {"getFullYear", "timestamp_to_year_with_tz", {Ts(1230768000), S("-01:00")}, I(2008)},
      {"getSeconds", "timestamp_to_seconds_tz", {t, S("Europe/Berlin")}, I(30)},
      {"getMonth", "timestamp_to_month_with_tz", {Ts(1230768000), S("-01:00")}, I(11)},
      {"getDayOfYear", "timestamp_to_day_of_year_with_tz", {Ts(1230768000), S("-01:00")},
       I(365)},
      {"getMilliseconds", "timestamp_to_milliseconds_with_tz", {Ts(0, 5000000), S("+01:00")},
       I(5)},
      {"getDayOfMonth", "timestamp_to_day_of_month_with_tz", {t, S("Pacific/Kiritimati")}, I(13)},
  });
}

TEST(StandardTimeTest, BadTimeZonesAreErrors) {
  const Value t = Ts(kFriday);
  for (const char* tz : {"Mars/Olympus_Mons", "../../../../etc/passwd", "/etc/localtime",
                         "+5:xx", "ab:cd", ":", "+99:00", "+999999999999:00", "Europe/Berlin\n"}) {
    Value v = Call("getHours", "timestamp_to_hours_with_tz", {t, S(tz)});
    EXPECT_TRUE(v.is_error()) << tz << " -> " << v.DebugString();
  }
  EXPECT_TRUE(SameValue(Call("getHours", "timestamp_to_hours_with_tz", {t, S("Nowhere/Land")}),
                        E("unknown time zone Nowhere/Land")));
}

TEST(StandardTimeTest, DurationAccessorsTruncateTotals) {
  const Value d = Dur(absl::Hours(2) + absl::Minutes(30) + absl::Milliseconds(1500));
  const Value neg = Dur(-(absl::Minutes(90) + absl::Nanoseconds(1)));
  RunCases({
      {"getHours", "duration_to_hours", {d}, I(2)},
      {"getMinutes", "duration_to_minutes", {d}, I(150)},
      {"getSeconds", "duration_to_seconds", {d}, I(9001)},
      {"getMilliseconds", "duration_to_milliseconds", {d}, I(9001500)},
      {"getHours", "duration_to_hours", {neg}, I(-1)},
      {"getMinutes", "duration_to_minutes", {neg}, I(-90)},
      {"getHours", "duration_to_hours", {Dur(absl::Nanoseconds(kMin))}, I(-2562047)},
      {"getMilliseconds", "duration_to_milliseconds", {Dur(absl::Nanoseconds(kMax))},
       I(9223372036854)},
  });
}

TEST(StandardTimeTest, TimestampAndDurationArithmetic) {
  RunCases({
      {op::kAdd, "add_timestamp_duration", {Ts(100), Dur(absl::Seconds(5))}, Ts(105)},
      {op::kAdd, "add_duration_timestamp", {Dur(absl::Nanoseconds(-1)), Ts(0)}, Ts(-1, 999999999)},
      {op::kAdd, "add_timestamp_duration", {Ts(kMaxTimestampSeconds), Dur(absl::Seconds(1))},
       E("timestamp overflow")},
      {op::kAdd, "add_timestamp_duration",
       {Ts(kMaxTimestampSeconds), Dur(absl::Nanoseconds(999999999))},
       Ts(kMaxTimestampSeconds, 999999999)},
      {op::kSubtract, "subtract_timestamp_duration",
       {Ts(kMinTimestampSeconds), Dur(absl::Nanoseconds(1))}, E("timestamp overflow")},
      {op::kSubtract, "subtract_timestamp_duration", {Ts(0), Dur(absl::Nanoseconds(kMin))},
       E("integer overflow")},
      {op::kSubtract, "subtract_timestamp_timestamp", {Ts(10), Ts(4, 500000000)},
       Dur(absl::Milliseconds(5500))},
      {op::kSubtract, "subtract_timestamp_timestamp",
       {Ts(kMaxTimestampSeconds), Ts(kMinTimestampSeconds)}, E("integer overflow")},
      {op::kAdd, "add_duration_duration", {Dur(absl::Seconds(1)), Dur(absl::Seconds(2))},
       Dur(absl::Seconds(3))},
      {op::kAdd, "add_duration_duration",
       {Dur(absl::Nanoseconds(kMax)), Dur(absl::Nanoseconds(1))}, E("integer overflow")},
      {op::kSubtract, "subtract_duration_duration",
       {Dur(absl::Nanoseconds(kMin)), Dur(absl::Nanoseconds(1))}, E("integer overflow")},
      {op::kAdd, "add_timestamp_duration",
       {Value::Timestamp(absl::InfiniteFuture()), Dur(absl::Seconds(1))},
       E("timestamp overflow")},
  });
}

}  // namespace
}  // namespace standard_time_test
}  // namespace gpuprofile::cel::internal
