// runtime::Manager: start and stop order, leader-only runnables only after the caches have
// synced (and never after Stop), and start errors that name the runnable.
#include "controller/runtime/manager.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Records "start x" / "stop x" in a shared journal.
class Journal {
 public:
  void Add(std::string line) {
    absl::MutexLock lock(&mu_);
    lines_.push_back(std::move(line));
  }
  std::vector<std::string> lines() const {
    absl::MutexLock lock(&mu_);
    return lines_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

class Recorded final : public Runnable {
 public:
  Recorded(std::string name, Journal* journal, absl::Status start_result = absl::OkStatus())
      : name_(std::move(name)), journal_(journal), start_result_(std::move(start_result)) {}
  absl::Status Start() override {
    journal_->Add("start " + name_);
    if (!started_.HasBeenNotified()) started_.Notify();
    return start_result_;
  }
  void Stop() override { journal_->Add("stop " + name_); }
  absl::Notification& started() { return started_; }

 private:
  const std::string name_;
  Journal* const journal_;
  const absl::Status start_result_;
  absl::Notification started_;
};

// Caches that sync when the test says so, and stop waiting when stopped.
class Gate {
 public:
  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }
  void Close() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  bool Wait(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return open_ || closed_; };
    mu_.AwaitWithDeadline(absl::Condition(&done), deadline);
    return open_;
  }

 private:
  absl::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

ManagerOptions Options(Gate* gate) {
  ManagerOptions options;
  options.wait_for_sync = [gate](absl::Time deadline) { return gate->Wait(deadline); };
  return options;
}

TEST(ManagerTest, StartsServersThenCachesAndStopsInReverse) {
  Journal journal;
  Gate gate;
  gate.Open();
  Recorded metrics("metrics", &journal), probes("probes", &journal),
      informers("informers", &journal), controllers("controllers", &journal);
  Manager manager(Options(&gate));
  manager.AddServer("metrics", &metrics);
  manager.AddServer("probes", &probes);
  manager.AddCache("informers", &informers);
  manager.AddLeaderOnly("controllers", &controllers);
  ASSERT_TRUE(manager.Start().ok());
  manager.StartLeading();
  controllers.started().WaitForNotification();
  manager.Stop();
  EXPECT_THAT(journal.lines(),
              ElementsAre("start metrics", "start probes", "start informers", "start controllers",
                          "stop controllers", "stop informers", "stop probes", "stop metrics"));
}

TEST(ManagerTest, LeaderOnlyRunnablesWaitForTheCaches) {
  Journal journal;
  Gate gate;
  Recorded informers("informers", &journal), controllers("controllers", &journal);
  ManagerOptions options = Options(&gate);
  options.sync_report_interval = absl::Milliseconds(5);  // several waits before the gate opens
  Manager manager(std::move(options));
  manager.AddCache("informers", &informers);
  manager.AddLeaderOnly("controllers", &controllers);
  ASSERT_TRUE(manager.Start().ok());
  manager.StartLeading();
  EXPECT_FALSE(controllers.started().WaitForNotificationWithTimeout(absl::Milliseconds(50)));
  EXPECT_FALSE(manager.leading());
  gate.Open();
  controllers.started().WaitForNotification();
  manager.Stop();
  EXPECT_THAT(journal.lines(), ElementsAre("start informers", "start controllers",
                                           "stop controllers", "stop informers"));
}

TEST(ManagerTest, StopBeforeTheCachesSyncNeverStartsTheLeaderOnlyRunnables) {
  Journal journal;
  Gate gate;
  Recorded controllers("controllers", &journal);
  FunctionRunnable informers([] { return absl::OkStatus(); }, [&gate] { gate.Close(); });
  Manager manager(Options(&gate));
  manager.AddCache("informers", &informers);
  manager.AddLeaderOnly("controllers", &controllers);
  ASSERT_TRUE(manager.Start().ok());
  manager.StartLeading();
  manager.Stop();  // returns: the waiting thread wakes when the caches stop
  EXPECT_THAT(journal.lines(), ElementsAre("stop controllers"));
  EXPECT_FALSE(manager.leading());
}

TEST(ManagerTest, AStartErrorNamesTheRunnable) {
  Journal journal;
  Gate gate;
  Recorded probes("probes", &journal, absl::UnavailableError("address in use"));
  Recorded informers("informers", &journal);
  Manager manager(Options(&gate));
  manager.AddServer("the health probe server", &probes);
  manager.AddCache("informers", &informers);
  const absl::Status started = manager.Start();
  EXPECT_TRUE(absl::IsUnavailable(started));
  EXPECT_THAT(started.message(), HasSubstr("starting the health probe server: address in use"));
  EXPECT_THAT(journal.lines(), ElementsAre("start probes"));  // nothing after the failure
}

}  // namespace
}  // namespace gpuprofile::runtime
