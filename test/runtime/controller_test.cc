// Tests of runtime::Controller: result semantics (success, error, terminal error, requeue,
// requeue_after), one worker per key, metrics, stop with drain. Time is a FakeClock.
#include "controller/runtime/controller.h"

#include <atomic>
#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "controller/runtime/metrics.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace controller_test {
namespace {

// Records calls per key; answers with a scripted result per call.
class Script {
 public:
  void Answer(const std::string& key, absl::StatusOr<ReconcileResult> result) {
    absl::MutexLock lock(&mu_);
    answers_[key].push_back(std::move(result));
  }
  absl::StatusOr<ReconcileResult> Call(const std::string& key) {
    absl::MutexLock lock(&mu_);
    ++calls_[key];
    auto& queue = answers_[key];
    if (queue.empty()) return ReconcileResult{};
    absl::StatusOr<ReconcileResult> result = queue.front();
    queue.erase(queue.begin());
    return result;
  }
  int Calls(const std::string& key) {
    absl::MutexLock lock(&mu_);
    return calls_[key];
  }
  // Waits (real time, bounded) until `key` has been reconciled `n` times.
  bool WaitCalls(const std::string& key, int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return calls_[key] >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::vector<absl::StatusOr<ReconcileResult>>> answers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> calls_ ABSL_GUARDED_BY(mu_);
};

class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest() {
    metrics_ = *ControllerRuntimeMetrics::Register(&registry_);
    ControllerOptions options;
    options.name = "test";
    options.workers = 2;
    options.clock = &clock_;
    options.metrics = &metrics_;
    controller_ = std::make_unique<Controller>(
        std::move(options), [this](const std::string& key) { return script_.Call(key); });
    controller_->Start();
  }
  ~ControllerTest() override { controller_->Stop(); }

  double Total(const char* result) {
    return metrics_.reconcile_total->WithLabels({"test", result})->Value();
  }

  // Waits until the controller has finished `n` reconciles in all.
  void WaitReconciles(int64_t n) {
    ASSERT_TRUE(controller_->AwaitReconciles(n, absl::Seconds(10))) << controller_->reconciles();
  }

  FakeClock clock_;
  MetricsRegistry registry_;
  ControllerRuntimeMetrics metrics_;
  Script script_;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, SuccessIsCountedAndForgotten) {
  controller_->queue()->Add("a");
  ASSERT_TRUE(script_.WaitCalls("a", 1));
  WaitReconciles(1);
  EXPECT_EQ(Total(kReconcileResultSuccess), 1);
  EXPECT_EQ(controller_->queue()->NumRequeues("a"), 0);
}

TEST_F(ControllerTest, RetryableErrorIsRetriedWithBackoff) {
  script_.Answer("a", absl::UnavailableError("server down"));
  controller_->queue()->Add("a");
  ASSERT_TRUE(script_.WaitCalls("a", 1));
  WaitReconciles(1);
  EXPECT_EQ(Total(kReconcileResultError), 1);
  EXPECT_EQ(metrics_.reconcile_errors_total->WithLabels({"test"})->Value(), 1);
  // The retry waits for the per-key backoff (5 ms first), on the fake clock.
  EXPECT_EQ(script_.Calls("a"), 1);
  clock_.Advance(absl::Milliseconds(5));
  ASSERT_TRUE(script_.WaitCalls("a", 2));
  WaitReconciles(2);
  EXPECT_EQ(Total(kReconcileResultSuccess), 1);
}

TEST_F(ControllerTest, TerminalErrorIsNotRetried) {
  script_.Answer("a", TerminalError(absl::InvalidArgumentError("bad spec")));
  controller_->queue()->Add("a");
  ASSERT_TRUE(script_.WaitCalls("a", 1));
  WaitReconciles(1);
  clock_.Advance(absl::Hours(1));
  // Not queued, not waiting, not running: nothing can call it again.
  EXPECT_TRUE(controller_->queue()->Idle());
  EXPECT_EQ(script_.Calls("a"), 1);
  EXPECT_EQ(controller_->queue()->NumRequeues("a"), 0);
  EXPECT_EQ(Total(kReconcileResultError), 1);
}

TEST_F(ControllerTest, RequeueAfterWaitsExactlyThatLong) {
  script_.Answer("a", ReconcileResult{false, absl::Seconds(30)});
  controller_->queue()->Add("a");
  ASSERT_TRUE(script_.WaitCalls("a", 1));
  WaitReconciles(1);
  EXPECT_EQ(Total(kReconcileResultRequeueAfter), 1);
  clock_.Advance(absl::Seconds(29));
  // Still waiting for its delay (NumWaiting promotes what is due), so it cannot have run.
  EXPECT_EQ(controller_->queue()->NumWaiting(), 1);
  EXPECT_EQ(controller_->queue()->Len(), 0);
  EXPECT_EQ(script_.Calls("a"), 1);
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(script_.WaitCalls("a", 2));
}

TEST_F(ControllerTest, RequeueUsesTheRateLimiter) {
  script_.Answer("a", ReconcileResult{true, absl::ZeroDuration()});
  controller_->queue()->Add("a");
  ASSERT_TRUE(script_.WaitCalls("a", 1));
  WaitReconciles(1);
  EXPECT_EQ(Total(kReconcileResultRequeue), 1);
  EXPECT_EQ(controller_->queue()->NumRequeues("a"), 1);
  // A reconcile is counted once its requeue is in the queue: the key waits for its 5 ms already.
  ASSERT_EQ(controller_->queue()->NumWaiting(), 1);
  clock_.Advance(absl::Milliseconds(5));
  ASSERT_TRUE(script_.WaitCalls("a", 2));
}

TEST(TerminalErrorTest, MarksOnlyFailures) {
  EXPECT_TRUE(TerminalError(absl::OkStatus()).ok());
  EXPECT_FALSE(IsTerminalError(absl::OkStatus()));
  EXPECT_FALSE(IsTerminalError(absl::InternalError("x")));
  absl::Status terminal = TerminalError(absl::InternalError("x"));
  EXPECT_TRUE(IsTerminalError(terminal));
  EXPECT_EQ(terminal.message(), "x");
}

TEST(ControllerWorkersTest, NeverRunsOneKeyOnTwoWorkersAndStopDrains) {
  FakeClock clock;
  absl::Mutex mu;
  std::map<std::string, int> running;
  bool overlap = false;
  std::atomic<int> done{0};
  ControllerOptions options;
  options.name = "workers";
  options.workers = 4;
  options.clock = &clock;
  Controller controller(std::move(options), [&](const std::string& key) {
    {
      absl::MutexLock lock(&mu);
      if (running[key]++ > 0) overlap = true;
    }
    absl::SleepFor(absl::Microseconds(200));
    {
      absl::MutexLock lock(&mu);
      --running[key];
    }
    ++done;
    return absl::StatusOr<ReconcileResult>(ReconcileResult{});
  });
  controller.Start();
  for (int i = 0; i < 400; ++i) controller.queue()->Add(std::to_string(i % 5));
  controller.Stop();
  absl::MutexLock lock(&mu);
  EXPECT_FALSE(overlap);
  for (const auto& [key, n] : running) EXPECT_EQ(n, 0) << key;
  EXPECT_GE(done.load(), 5);
}

}  // namespace
}  // namespace controller_test
}  // namespace gpuprofile::runtime
