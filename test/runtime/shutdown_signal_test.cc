// File: test/runtime/shutdown_signal_test.cc
// Raises SIGTERM / SIGINT in-process and sees Wait() return; the second signal ends the process
// with exit code 1 (a death test, in a child process); GracePeriod on a fake clock.
#include "controller/runtime/shutdown_signal.h"

#include <csignal>
#include <memory>
#include <thread>

#include "absl/synchronization/notification.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace shutdown_signal_test {
namespace {

class ShutdownSignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<ShutdownSignal*> installed = ShutdownSignal::Install();
    ASSERT_OK(installed);
    signal_ = *installed;
    signal_->ResetForTesting();
  }
  void TearDown() override {
    if (signal_ != nullptr) signal_->ResetForTesting();
  }
  ShutdownSignal* signal_ = nullptr;
};

TEST_F(ShutdownSignalTest, InstallIsOnce) {
  ASSERT_OK_AND_ASSIGN(ShutdownSignal * again, ShutdownSignal::Install());
  EXPECT_EQ(again, signal_);
  EXPECT_FALSE(signal_->requested());
  EXPECT_EQ(signal_->signal_number(), -1);
}

TEST_F(ShutdownSignalTest, SigtermEndsTheWait) {
  std::thread waiter([this] { signal_->Wait(); });
  ASSERT_EQ(std::raise(SIGTERM), 0);
  waiter.join();  // returns only once the pipe reader saw the signal
  EXPECT_TRUE(signal_->requested());
  EXPECT_EQ(signal_->signal_number(), SIGTERM);
}

TEST_F(ShutdownSignalTest, SigintEndsTheWaitToo) {
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_TRUE(signal_->WaitUntil(absl::InfiniteFuture()));
  EXPECT_EQ(signal_->signal_number(), SIGINT);
}

TEST_F(ShutdownSignalTest, NotifyEndsTheWaitWithoutASignal) {
  FakeClock clock;
  bool requested = true;
  std::thread waiter(
      [&] { requested = signal_->WaitUntil(clock.Now() + absl::Seconds(10), &clock); });
  clock.BlockUntilWaiters(1);
  signal_->Notify();
  waiter.join();
  EXPECT_TRUE(requested);
  EXPECT_EQ(signal_->signal_number(), 0);
}

TEST_F(ShutdownSignalTest, WaitUntilGivesUpAtTheDeadline) {
  FakeClock clock;
  bool requested = true;
  std::thread waiter(
      [&] { requested = signal_->WaitUntil(clock.Now() + absl::Seconds(5), &clock); });
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Seconds(5));
  waiter.join();
  EXPECT_FALSE(requested);
}

TEST(ShutdownSignalDeathTest, SecondSignalExitsAtOnceWithCode1) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        absl::StatusOr<ShutdownSignal*> signal = ShutdownSignal::Install();
        if (!signal.ok()) std::_Exit(3);
        (*signal)->ResetForTesting();
        std::raise(SIGTERM);
        (*signal)->Wait();  // the first signal only requests shutdown
        std::raise(SIGTERM);
        std::_Exit(4);  // not reached
      },
      ::testing::ExitedWithCode(1), "second termination signal: exiting now");
}

TEST(GracePeriodTest, ReturnsOkWhenShutdownFinishesInTime) {
  FakeClock clock;
  GracePeriod grace(absl::Seconds(30), &clock);
  bool ran = false;
  EXPECT_OK(grace.Run([&] { ran = true; }));
  EXPECT_TRUE(ran);
}

TEST(GracePeriodTest, GivesUpAfterTheGracePeriod) {
  FakeClock clock;
  GracePeriod grace(absl::Seconds(30), &clock);
  auto release = std::make_shared<absl::Notification>();
  auto finished = std::make_shared<absl::Notification>();
  absl::Status status;
  std::thread runner([&] {
    status = grace.Run([release, finished] {
      release->WaitForNotification();
      finished->Notify();
    });
  });
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Seconds(29));
  EXPECT_FALSE(finished->HasBeenNotified());
  clock.Advance(absl::Seconds(1));
  runner.join();
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  EXPECT_NE(status.message().find("30s"), absl::string_view::npos) << status;
  // The abandoned function still runs to completion on its detached thread.
  release->Notify();
  finished->WaitForNotification();
}

}  // namespace
}  // namespace shutdown_signal_test
}  // namespace gpuprofile::runtime
