// File: test/runtime/async_event_sink_test.cc
#include "controller/runtime/async_event_sink.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace async_event_sink_test {
namespace {

// Records every write; while the gate is closed a write blocks after announcing itself, so
// tests can hold one write in flight and fill the queue behind it.
class GatedSink final : public EventSink {
 public:
  struct Call {
    std::string op;
    std::string name;
    int32_t count;  // series count, 0 without a series
  };

  absl::Status Create(const Event& event) override { return Write("create", event); }
  absl::Status UpdateSeries(const Event& event) override { return Write("series", event); }

  void SetGate(bool open) {
    absl::MutexLock lock(&mu_);
    open_ = open;
  }
  void FailWith(absl::Status status) {
    absl::MutexLock lock(&mu_);
    fail_ = std::move(status);
  }
  // Blocks until `n` writes have started.
  void AwaitStarted(int n) {
    absl::MutexLock lock(&mu_);
    struct Arg {
      GatedSink* self;
      int n;
    };
    Arg arg{this, n};
    mu_.Await(absl::Condition(
        +[](Arg* a) ABSL_NO_THREAD_SAFETY_ANALYSIS { return a->self->started_ >= a->n; }, &arg));
  }
  std::vector<Call> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  absl::Status Write(const std::string& op, const Event& event) {
    absl::MutexLock lock(&mu_);
    ++started_;
    mu_.Await(absl::Condition(&open_));
    calls_.push_back({op, event.name, event.series ? event.series->count : 0});
    return fail_;
  }

  mutable absl::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = true;
  int started_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status fail_ ABSL_GUARDED_BY(mu_);
  std::vector<Call> calls_ ABSL_GUARDED_BY(mu_);
};

Event Named(const std::string& name, int32_t count = 0) {
  Event event;
  event.namespace_name = "default";
  event.name = name;
  event.reason = "Reconciled";
  if (count > 0) event.series = EventSeries{count, absl::UnixEpoch()};
  return event;
}

bool operator==(const GatedSink::Call& a, const GatedSink::Call& b) {
  return a.op == b.op && a.name == b.name && a.count == b.count;
}
void PrintTo(const GatedSink::Call& c, std::ostream* os) {
  *os << c.op << " " << c.name << " count=" << c.count;
}

using Calls = std::vector<GatedSink::Call>;

TEST(AsyncEventSinkTest, WritesInOrderAndMergesSeriesUpdatesIntoQueuedWrites) {
  GatedSink target;
  target.SetGate(false);
  AsyncEventSink sink(&target, {});
  ASSERT_OK(sink.Create(Named("a")));
  target.AwaitStarted(1);  // "a" is in flight
  ASSERT_OK(sink.Create(Named("b")));
  ASSERT_OK(sink.UpdateSeries(Named("b", 2)));  // merged into b's queued Create
  ASSERT_OK(sink.UpdateSeries(Named("b", 3)));
  ASSERT_OK(sink.UpdateSeries(Named("a", 2)));  // a's Create is in flight: a write of its own
  ASSERT_OK(sink.UpdateSeries(Named("a", 3)));  // merged into that update
  EXPECT_EQ(sink.pending(), 3u);
  target.SetGate(true);
  ASSERT_TRUE(sink.WaitIdle(absl::InfiniteFuture()));
  EXPECT_EQ(target.calls(), (Calls{{"create", "a", 0}, {"create", "b", 3}, {"series", "a", 3}}));
  AsyncEventSink::Stats stats = sink.stats();
  EXPECT_EQ(stats.written, 3);
  EXPECT_EQ(stats.merged, 3);
  EXPECT_EQ(stats.dropped, 0);
}

TEST(AsyncEventSinkTest, DropsAndCountsWritesWhenTheQueueIsFull) {
  GatedSink target;
  target.SetGate(false);
  Counter dropped;
  AsyncEventSinkOptions options;
  options.capacity = 2;
  options.dropped_total = &dropped;
  AsyncEventSink sink(&target, options);
  ASSERT_OK(sink.Create(Named("in-flight")));
  target.AwaitStarted(1);
  ASSERT_OK(sink.Create(Named("q1")));
  ASSERT_OK(sink.Create(Named("q2")));
  absl::Status full = sink.Create(Named("q3"));
  EXPECT_TRUE(absl::IsResourceExhausted(full)) << full;
  EXPECT_NE(full.message().find("default/q3"), absl::string_view::npos) << full;
  EXPECT_TRUE(absl::IsResourceExhausted(sink.UpdateSeries(Named("in-flight", 2))));
  ASSERT_OK(sink.UpdateSeries(Named("q1", 2)));  // merging needs no free slot
  EXPECT_EQ(dropped.Value(), 2);
  target.SetGate(true);
  ASSERT_TRUE(sink.WaitIdle(absl::InfiniteFuture()));
  EXPECT_EQ(target.calls(),
            (Calls{{"create", "in-flight", 0}, {"create", "q1", 2}, {"create", "q2", 0}}));
  EXPECT_EQ(sink.stats().dropped, 2);
}

TEST(AsyncEventSinkTest, StopDrainsEverythingQueuedThenRefusesWrites) {
  GatedSink target;
  AsyncEventSink sink(&target, {});
  for (int i = 0; i < 20; ++i) ASSERT_OK(sink.Create(Named(absl::StrCat("e", i))));
  ASSERT_OK(sink.Stop(absl::Seconds(30)));
  EXPECT_EQ(target.calls().size(), 20u);
  EXPECT_EQ(sink.stats().written, 20);
  absl::Status late = sink.Create(Named("late"));
  EXPECT_TRUE(absl::IsFailedPrecondition(late)) << late;
  ASSERT_OK(sink.Stop(absl::Seconds(30)));  // idempotent
}

TEST(AsyncEventSinkTest, StopGivesUpAtTheDeadlineAndCountsWhatItDropped) {
  FakeClock clock;
  GatedSink target;
  target.SetGate(false);
  AsyncEventSinkOptions options;
  options.clock = &clock;
  AsyncEventSink sink(&target, options);
  ASSERT_OK(sink.Create(Named("stuck")));
  target.AwaitStarted(1);
  ASSERT_OK(sink.Create(Named("q1")));
  ASSERT_OK(sink.Create(Named("q2")));
  absl::Status stopped;
  std::thread stopper([&] { stopped = sink.Stop(absl::Seconds(5)); });
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Seconds(5));
  // Stop drops the queue before it waits for the write in flight; open the gate only then.
  while (sink.stats().dropped < 2) std::this_thread::yield();
  target.SetGate(true);
  stopper.join();
  EXPECT_TRUE(absl::IsDeadlineExceeded(stopped)) << stopped;
  EXPECT_NE(stopped.message().find("2 queued event writes dropped"), absl::string_view::npos)
      << stopped;
  EXPECT_EQ(target.calls(), (Calls{{"create", "stuck", 0}}));
}

TEST(AsyncEventSinkTest, TargetFailuresAreCountedAndReported) {
  GatedSink target;
  target.FailWith(absl::UnavailableError("api server down"));
  Counter failed;
  std::vector<std::string> reported;
  absl::Mutex mu;
  AsyncEventSinkOptions options;
  options.failed_total = &failed;
  options.on_error = [&](const absl::Status& status, const Event& event) {
    absl::MutexLock lock(&mu);
    reported.push_back(absl::StrCat(event.name, ": ", status.message()));
  };
  AsyncEventSink sink(&target, options);
  ASSERT_OK(sink.Create(Named("x")));
  ASSERT_TRUE(sink.WaitIdle(absl::InfiniteFuture()));
  EXPECT_EQ(sink.stats().failed, 1);
  EXPECT_EQ(failed.Value(), 1);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(reported, std::vector<std::string>{"x: api server down"});
}

TEST(AsyncEventSinkTest, RecorderRepeatsBecomeOneWriteWithTheLatestCount) {
  FakeClock clock;
  GatedSink target;
  target.SetGate(false);
  AsyncEventSink sink(&target, {});
  EventRecorderOptions options;
  options.reporting_controller = "gpuprofile.io/gpu-profile-operator";
  options.clock = &clock;
  options.sink = &sink;
  EventRecorder recorder(options);
  ObjectReference first{"v1", "ConfigMap", "default", "first", "", ""};
  ObjectReference node{"v1", "Node", "", "node-1", "", ""};
  ASSERT_OK(recorder.Record(first, EventType::kNormal, "Seen", "Observe", "hello"));
  target.AwaitStarted(1);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(recorder.Record(node, EventType::kWarning, "NoDriver", "Observe", "no driver"));
    clock.Advance(absl::Seconds(1));
  }
  target.SetGate(true);
  ASSERT_TRUE(sink.WaitIdle(absl::InfiniteFuture()));
  std::vector<GatedSink::Call> calls = target.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].op, "create");
  EXPECT_EQ(calls[1].count, 3);
}

}  // namespace
}  // namespace async_event_sink_test
}  // namespace gpuprofile::runtime
