// File: test/reconciler/status_schedule_test.cc
#include "controller/reconciler/status_schedule.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace {

constexpr absl::Duration kInterval = absl::Seconds(1);
constexpr absl::Duration kTick = absl::Milliseconds(200);
// A tick's start (ticks count from the epoch), and 30 ms into it.
const absl::Time kTickStart = absl::FromUnixSeconds(1800000000);
const absl::Time kInTick = kTickStart + absl::Milliseconds(30);

TEST(StatusScheduleTest, FirstWriteIsFreeAndTheNextWaitsAnInterval) {
  StatusSchedule schedule(kInterval, kTick);
  EXPECT_EQ(schedule.Wait("a", kInTick), absl::ZeroDuration());
  schedule.Wrote("a", kInTick);
  // Counted from the tick the write fell in.
  EXPECT_EQ(schedule.Wait("a", kInTick), kInterval - absl::Milliseconds(30));
  EXPECT_EQ(schedule.Wait("a", kTickStart + kInterval), absl::ZeroDuration());
  EXPECT_EQ(schedule.Wait("b", kInTick), absl::ZeroDuration());
  schedule.Forget("a");
  EXPECT_EQ(schedule.Wait("a", kInTick), absl::ZeroDuration());
}

TEST(StatusScheduleTest, ZeroIntervalNeverWaits) {
  StatusSchedule schedule(absl::ZeroDuration(), kTick);
  schedule.Wrote("a", kInTick);
  EXPECT_EQ(schedule.Wait("a", kInTick), absl::ZeroDuration());
}

// 50 profiles made due together by one burst, then written as soon as each may be, for 20
// seconds: after some intervals (about 7 here) the writes are spread over the five ticks of a
// second, each profile still writes once per interval, none ever waits longer than the
// interval, and two writes of one are at least interval - 2 ticks apart.
TEST(StatusScheduleTest, ABurstSpreadsOverTheTicksAndNeverWaitsLonger) {
  StatusSchedule schedule(kInterval, kTick);
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back(absl::StrCat("p", i));
  std::map<std::string, absl::Time> last;
  std::map<int, int> writes_per_tick;  // tick number within the run -> writes
  for (int t = 0; t < 100; ++t) {
    const absl::Time now = kTickStart + t * kTick + absl::Milliseconds(5);
    for (const std::string& name : names) {
      if (schedule.Wait(name, now) > absl::ZeroDuration()) continue;
      if (auto it = last.find(name); it != last.end()) {
        EXPECT_GE(now - it->second, kInterval - 2 * kTick) << name;
        EXPECT_LE(now - it->second, kInterval) << name;
      }
      schedule.Wrote(name, now);
      last[name] = now;
      ++writes_per_tick[t];
    }
  }
  EXPECT_EQ(writes_per_tick[0], 50);
  for (int t = 80; t < 100; ++t) {
    // Every profile once per interval, and no tick with more than a quarter of them (all 50
    // stayed on one tick of five before).
    int window = 0;
    for (int u = t - 4; u <= t; ++u) window += writes_per_tick[u];
    EXPECT_EQ(window, 50) << "ticks " << t - 4 << ".." << t;
    EXPECT_GE(writes_per_tick[t], 5) << "tick " << t;
    EXPECT_LE(writes_per_tick[t], 13) << "tick " << t;
  }
}

}  // namespace
}  // namespace gpuprofile::reconciler
