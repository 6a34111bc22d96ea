// File: test/runtime/work_queue_test.cc
#include "controller/runtime/work_queue.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace work_queue_test {
namespace {

class WorkQueueTest : public ::testing::Test {
 protected:
  std::unique_ptr<WorkQueue> MakeQueue(std::unique_ptr<RateLimiter> limiter = nullptr) {
    WorkQueueOptions options;
    options.name = "test";
    options.clock = &clock_;
    options.rate_limiter = std::move(limiter);
    options.metrics = WorkQueueMetrics{&depth_, &adds_, &retries_};
    return std::make_unique<WorkQueue>(std::move(options));
  }

  FakeClock clock_;
  Gauge depth_;
  Counter adds_;
  Counter retries_;
};

TEST_F(WorkQueueTest, IsFifoAndDeduplicatesQueuedKeys) {
  auto q = MakeQueue();
  q->Add("a");
  q->Add("b");
  q->Add("a");
  EXPECT_EQ(q->Len(), 2);
  EXPECT_EQ(adds_.Value(), 2);
  EXPECT_EQ(depth_.Value(), 2);
  EXPECT_EQ(q->Get(), "a");
  EXPECT_EQ(q->Get(), "b");
  EXPECT_EQ(depth_.Value(), 0);
}

TEST_F(WorkQueueTest, KeyAddedWhileProcessingIsRequeuedOnlyAfterDone) {
  auto q = MakeQueue();
  q->Add("a");
  ASSERT_EQ(q->Get(), "a");
  q->Add("a");
  q->Add("a");
  EXPECT_EQ(q->Len(), 0);  // held back: "a" is being processed
  q->Done("a");
  EXPECT_EQ(q->Len(), 1);
  EXPECT_EQ(q->Get(), "a");
  q->Done("a");
  EXPECT_EQ(q->Len(), 0);
}

TEST_F(WorkQueueTest, AddAfterWaitsForTheClockAndKeepsTheEarlierTime) {
  auto q = MakeQueue();
  q->AddAfter("a", absl::Seconds(10));
  q->AddAfter("a", absl::Seconds(5));
  q->AddAfter("a", absl::Seconds(20));
  q->AddAfter("b", absl::Seconds(7));
  EXPECT_EQ(q->Len(), 0);
  EXPECT_EQ(q->NumWaiting(), 2);
  clock_.Advance(absl::Seconds(5));
  EXPECT_EQ(q->Len(), 1);
  EXPECT_EQ(q->Get(), "a");
  clock_.Advance(absl::Seconds(2));
  EXPECT_EQ(q->Get(), "b");
  EXPECT_EQ(q->NumWaiting(), 0);
  EXPECT_EQ(retries_.Value(), 4);
}

TEST_F(WorkQueueTest, AddAfterWithoutDelayAddsAtOnce) {
  auto q = MakeQueue();
  q->AddAfter("a", absl::ZeroDuration());
  EXPECT_EQ(q->Len(), 1);
}

TEST_F(WorkQueueTest, BlockedGetWakesWhenTheDelayPasses) {
  auto q = MakeQueue();
  q->AddAfter("late", absl::Seconds(30));
  std::optional<std::string> got;
  std::thread worker([&] { got = q->Get(); });
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(clock_.EarliestDeadline(), clock_.Now() + absl::Seconds(30));
  // An earlier delayed key re-arms the sleeping worker.
  q->AddAfter("early", absl::Seconds(1));
  clock_.Advance(absl::Seconds(1));
  worker.join();
  EXPECT_EQ(got, "early");
}

TEST_F(WorkQueueTest, BlockedGetWakesOnAdd) {
  auto q = MakeQueue();
  std::optional<std::string> got;
  std::thread worker([&] { got = q->Get(); });
  clock_.BlockUntilWaiters(1);
  q->Add("a");
  worker.join();
  EXPECT_EQ(got, "a");
}

TEST_F(WorkQueueTest, AddRateLimitedBacksOffPerKeyUntilForget) {
  auto q = MakeQueue(std::make_unique<ItemExponentialFailureRateLimiter>());
  q->AddRateLimited("a");
  EXPECT_EQ(q->Len(), 0);
  clock_.Advance(absl::Milliseconds(5));
  ASSERT_EQ(q->Get(), "a");
  q->Done("a");
  q->AddRateLimited("a");
  EXPECT_EQ(q->NumRequeues("a"), 2);
  clock_.Advance(absl::Milliseconds(9));
  EXPECT_EQ(q->Len(), 0);
  clock_.Advance(absl::Milliseconds(1));
  EXPECT_EQ(q->Len(), 1);
  q->Forget("a");
  EXPECT_EQ(q->NumRequeues("a"), 0);
  EXPECT_EQ(retries_.Value(), 2);
}

TEST_F(WorkQueueTest, ShutDownHandsOutQueuedKeysThenEnds) {
  auto q = MakeQueue();
  q->Add("a");
  q->AddAfter("delayed", absl::Seconds(1));
  q->ShutDown();
  EXPECT_TRUE(q->ShuttingDown());
  q->Add("b");  // ignored
  EXPECT_EQ(q->Get(), "a");
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(q->Get(), std::nullopt);  // "delayed" was dropped
}

TEST_F(WorkQueueTest, ShutDownWakesBlockedWorkers) {
  auto q = MakeQueue();
  std::vector<std::thread> workers;
  std::atomic<int> ended{0};
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      if (!q->Get().has_value()) ++ended;
    });
  }
  clock_.BlockUntilWaiters(3);
  q->ShutDown();
  for (auto& w : workers) w.join();
  EXPECT_EQ(ended.load(), 3);
}

TEST_F(WorkQueueTest, ShutDownWithDrainWaitsForKeysInProcessing) {
  auto q = MakeQueue();
  q->Add("a");
  ASSERT_EQ(q->Get(), "a");
  absl::Notification drained;
  std::thread closer([&] {
    q->ShutDownWithDrain();
    drained.Notify();
  });
  // The closer is blocked until "a" is done; nothing else can release it. (A spin on the queue's
  // own state, not a sleep.)
  while (!q->ShuttingDown()) {
  }
  EXPECT_FALSE(drained.HasBeenNotified());
  q->Done("a");
  drained.WaitForNotification();
  closer.join();
  EXPECT_EQ(q->Get(), std::nullopt);
}

// Several workers, keys re-added at random moments: a key is never held by two workers at once,
// and every key added is processed at least once after its last add.
TEST_F(WorkQueueTest, NeverTheSameKeyInTwoWorkers) {
  auto q = MakeQueue();
  constexpr int kWorkers = 4;
  constexpr int kKeys = 8;
  constexpr int kRounds = 2000;
  absl::Mutex mu;
  std::vector<int> holders(kKeys, 0);
  std::vector<int> processed(kKeys, 0);
  std::atomic<bool> violation{false};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (std::optional<std::string> key = q->Get()) {
        const int k = std::stoi(*key);
        {
          absl::MutexLock lock(&mu);
          if (++holders[k] > 1) violation = true;
        }
        // Re-adding the key being processed must not hand it to another worker.
        if (k % 2 == 0) q->Add(*key);
        {
          absl::MutexLock lock(&mu);
          --holders[k];
          ++processed[k];
        }
        q->Done(*key);
      }
    });
  }
  for (int i = 0; i < kRounds; ++i) q->Add(std::to_string(i % kKeys));
  q->ShutDownWithDrain();
  for (auto& w : workers) w.join();
  EXPECT_FALSE(violation.load());
  for (int k = 0; k < kKeys; ++k) EXPECT_GE(processed[k], 1) << k;
}

}  // namespace
}  // namespace work_queue_test
}  // namespace gpuprofile::runtime

namespace gpuprofile::runtime {
namespace work_queue_test {
namespace {

TEST(WorkQueueUrgentTest, UrgentKeysGoAheadOfTheBacklog) {
  FakeClock clock;
  WorkQueueOptions options;
  options.name = "urgent";
  options.clock = &clock;
  WorkQueue queue(std::move(options));
  queue.Add("a");
  queue.Add("b");
  queue.Add("c");
  queue.AddUrgent("new");  // not queued yet: goes first
  queue.AddUrgent("c");    // queued: moves to the front
  EXPECT_EQ(queue.Len(), 4);
  EXPECT_EQ(*queue.Get(), "c");
  EXPECT_EQ(*queue.Get(), "new");
  EXPECT_EQ(*queue.Get(), "a");
  // A key being processed is not handed out twice; Done queues it again.
  queue.AddUrgent("a");
  EXPECT_EQ(*queue.Get(), "b");
  queue.Done("a");
  EXPECT_EQ(*queue.Get(), "a");
}

}  // namespace
}  // namespace work_queue_test
}  // namespace gpuprofile::runtime
