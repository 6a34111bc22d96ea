// runtime::Manager: start and stop order, leader-only runnables only after the caches have
// synced (and never after Stop), start errors that name the runnable, and leader election run by
// the manager on a fake clock and lease store: workers only while leading, the Lease released
// after everything else stopped, lost leadership reported once.
#include "controller/runtime/manager.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "controller/runtime/testing/fake_clock.h"
#include "controller/runtime/testing/fake_lease_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace manager_test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

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

// Forwards to a FakeLeaseClient and journals releases (an update that clears the holder).
class JournalingLeases final : public LeaseClient {
 public:
  JournalingLeases(FakeLeaseClient* inner, Journal* journal) : inner_(inner), journal_(journal) {}
  absl::StatusOr<Lease> Get(const std::string& ns, const std::string& name) override {
    return inner_->Get(ns, name);
  }
  absl::StatusOr<Lease> Create(const Lease& lease) override { return inner_->Create(lease); }
  absl::StatusOr<Lease> Update(const Lease& lease) override {
    if (lease.spec.holder_identity.empty()) journal_->Add("release the lease");
    return inner_->Update(lease);
  }

 private:
  FakeLeaseClient* const inner_;
  Journal* const journal_;
};

// Keeps the manager's log in a journal, as "message key=value ...".
std::function<void(const std::string&, const LogFields&)> LogTo(Journal* log) {
  return [log](const std::string& message, const LogFields& fields) {
    std::string line = message;
    for (const auto& [key, value] : fields) absl::StrAppend(&line, " ", key, "=", value);
    log->Add(std::move(line));
  };
}

constexpr char kLeaseNamespace[] = "gpu-profile-system";
constexpr char kLeaseName[] = "gpu-profile-operator";

ManagerLeaderElection Election(LeaseClient* client, Clock* clock, const std::string& identity) {
  ManagerLeaderElection election;
  election.config.lease_namespace = kLeaseNamespace;
  election.config.lease_name = kLeaseName;
  election.config.identity = identity;
  election.client = client;
  election.clock = clock;
  return election;
}

// A Lease another candidate holds and has just renewed.
Lease HeldBy(const std::string& identity, absl::Time now) {
  Lease lease;
  lease.namespace_name = kLeaseNamespace;
  lease.name = kLeaseName;
  lease.spec.holder_identity = identity;
  lease.spec.lease_duration_seconds = 15;
  lease.spec.acquire_time = now;
  lease.spec.renew_time = now;
  return lease;
}

ManagerOptions Options(Gate* gate) {
  ManagerOptions options;
  options.wait_for_sync = [gate](absl::Time deadline) { return gate->Wait(deadline); };
  return options;
}

std::unique_ptr<Manager> NewManager(ManagerOptions options) {
  absl::StatusOr<std::unique_ptr<Manager>> manager = Manager::Create(std::move(options));
  EXPECT_OK(manager);
  return manager.ok() ? *std::move(manager) : nullptr;
}

TEST(ManagerTest, StartsServersThenCachesAndStopsInReverse) {
  Journal journal;
  Gate gate;
  gate.Open();
  Recorded metrics("metrics", &journal), probes("probes", &journal),
      informers("informers", &journal), controllers("controllers", &journal);
  std::unique_ptr<Manager> manager = NewManager(Options(&gate));
  manager->AddServer("metrics", &metrics);
  manager->AddServer("probes", &probes);
  manager->AddCache("informers", &informers);
  manager->AddLeaderOnly("controllers", &controllers);
  ASSERT_TRUE(manager->Start().ok());
  // Without leader election the manager leads at once.
  controllers.started().WaitForNotification();
  EXPECT_TRUE(manager->IsLeader());
  manager->Stop();
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
  std::unique_ptr<Manager> manager = NewManager(std::move(options));
  manager->AddCache("informers", &informers);
  manager->AddLeaderOnly("controllers", &controllers);
  ASSERT_TRUE(manager->Start().ok());
  EXPECT_FALSE(controllers.started().WaitForNotificationWithTimeout(absl::Milliseconds(50)));
  EXPECT_FALSE(manager->leading());
  gate.Open();
  controllers.started().WaitForNotification();
  manager->Stop();
  EXPECT_THAT(journal.lines(), ElementsAre("start informers", "start controllers",
                                           "stop controllers", "stop informers"));
}

TEST(ManagerTest, StopBeforeTheCachesSyncNeverStartsTheLeaderOnlyRunnables) {
  Journal journal;
  Gate gate;
  Recorded controllers("controllers", &journal);
  FunctionRunnable informers([] { return absl::OkStatus(); }, [&gate] { gate.Close(); });
  std::unique_ptr<Manager> manager = NewManager(Options(&gate));
  manager->AddCache("informers", &informers);
  manager->AddLeaderOnly("controllers", &controllers);
  ASSERT_TRUE(manager->Start().ok());
  manager->Stop();  // returns: the waiting thread wakes when the caches stop
  EXPECT_THAT(journal.lines(), ElementsAre("stop controllers"));
  EXPECT_FALSE(manager->leading());
}

TEST(ManagerTest, AStartErrorNamesTheRunnable) {
  Journal journal;
  Gate gate;
  Recorded probes("probes", &journal, absl::UnavailableError("address in use"));
  Recorded informers("informers", &journal);
  std::unique_ptr<Manager> manager = NewManager(Options(&gate));
  manager->AddServer("the health probe server", &probes);
  manager->AddCache("informers", &informers);
  const absl::Status started = manager->Start();
  EXPECT_TRUE(absl::IsUnavailable(started));
  EXPECT_THAT(started.message(), HasSubstr("starting the health probe server: address in use"));
  EXPECT_THAT(journal.lines(), ElementsAre("start probes"));  // nothing after the failure
}

// A replica "replica-a" whose caches have synced, on a fake clock and lease store.
class ManagerLeaderElectionTest : public ::testing::Test {
 protected:
  void SetUp() override { gate_.Open(); }
  ManagerOptions ElectionOptions() {
    ManagerOptions options = Options(&gate_);
    options.leader_election = Election(&leases_, &clock_, "replica-a");
    options.log = LogTo(&log_);
    return options;
  }
  std::string Holder() { return store_.Get(kLeaseNamespace, kLeaseName)->spec.holder_identity; }

  Journal journal_;  // runnables and Lease releases
  Journal log_;
  Gate gate_;
  FakeClock clock_;
  FakeLeaseClient store_;
  JournalingLeases leases_{&store_, &journal_};
};

// The elector runs on the manager's injected clock: its first attempt takes the free Lease at once,
// the workers start once the caches have synced, and Stop() releases the Lease after every
// runnable has stopped, without reporting that as lost leadership.
TEST_F(ManagerLeaderElectionTest, LeadsWhenItTakesTheLeaseAndReleasesItLast) {
  std::atomic<int> lost{0};
  ManagerOptions options = ElectionOptions();
  options.on_lost_leadership = [&lost] { ++lost; };
  std::unique_ptr<Manager> manager = NewManager(std::move(options));
  Recorded metrics("metrics", &journal_), informers("informers", &journal_),
      controllers("controllers", &journal_);
  manager->AddServer("metrics", &metrics);
  manager->AddCache("informers", &informers);
  manager->AddLeaderOnly("controllers", &controllers);
  ASSERT_OK(manager->Start());
  controllers.started().WaitForNotification();
  EXPECT_TRUE(manager->IsLeader());
  EXPECT_EQ(Holder(), "replica-a");
  manager->Stop();
  EXPECT_THAT(journal_.lines(), ElementsAre("start metrics", "start informers", "start controllers",
                                            "stop controllers", "stop informers", "stop metrics",
                                            "release the lease"));
  EXPECT_EQ(Holder(), "");
  EXPECT_FALSE(manager->IsLeader());
  EXPECT_EQ(lost.load(), 0);
  const std::vector<std::string> lines = log_.lines();
  EXPECT_THAT(lines, Contains("campaigning for leadership lease=gpu-profile-system/"
                              "gpu-profile-operator identity=replica-a"));
  EXPECT_THAT(lines, Contains("became the leader: starting workers once the caches have synced"));
  EXPECT_THAT(lines, Not(Contains(HasSubstr("another replica leads"))));
}

// While another replica holds the Lease, this one keeps its caches warm and starts no workers;
// stopping it leaves the other's Lease alone.
TEST_F(ManagerLeaderElectionTest, AStandbyStartsNoWorkers) {
  store_.Put(HeldBy("replica-b", clock_.Now()));
  std::unique_ptr<Manager> manager = NewManager(ElectionOptions());
  Recorded informers("informers", &journal_), controllers("controllers", &journal_);
  manager->AddCache("informers", &informers);
  manager->AddLeaderOnly("controllers", &controllers);
  ASSERT_OK(manager->Start());
  clock_.BlockUntilWaiters(1);  // the elector tried once and waits for its retry period
  EXPECT_FALSE(manager->IsLeader());
  EXPECT_FALSE(manager->leading());
  EXPECT_THAT(log_.lines(), Contains("another replica leads leader=replica-b"));
  manager->Stop();
  // Stop() stops every runnable, started or not (Runnable::Stop is idempotent).
  EXPECT_THAT(journal_.lines(),
              ElementsAre("start informers", "stop controllers", "stop informers"));
  EXPECT_EQ(Holder(), "replica-b");
}

// Another replica takes the Lease (as after this replica stalled for a lease duration): the next
// attempt on the fake clock sees it, and the manager reports the loss once; Stop() does not report
// it again.
TEST_F(ManagerLeaderElectionTest, LostLeadershipIsReportedOnce) {
  std::atomic<int> lost{0};
  absl::Notification lost_once;
  ManagerOptions options = ElectionOptions();
  options.on_lost_leadership = [&] {
    ++lost;
    lost_once.Notify();
  };
  std::unique_ptr<Manager> manager = NewManager(std::move(options));
  Recorded controllers("controllers", &journal_);
  manager->AddLeaderOnly("controllers", &controllers);
  ASSERT_OK(manager->Start());
  controllers.started().WaitForNotification();
  clock_.BlockUntilWaiters(1);  // the elector waits for its next renewal
  store_.Put(HeldBy("replica-b", clock_.Now()));
  clock_.Advance(absl::Seconds(2));
  lost_once.WaitForNotification();
  EXPECT_FALSE(manager->IsLeader());
  manager->Stop();
  EXPECT_EQ(lost.load(), 1);
  // The workers ran until Stop(); the Lease is replica-b's, so there was nothing to release.
  EXPECT_THAT(journal_.lines(), ElementsAre("start controllers", "stop controllers"));
  EXPECT_EQ(Holder(), "replica-b");
}

TEST_F(ManagerLeaderElectionTest, InvalidSettingsAreRejectedByCreate) {
  ManagerOptions options = ElectionOptions();
  options.leader_election->config.renew_deadline = absl::Seconds(15);  // not below the duration
  absl::StatusOr<std::unique_ptr<Manager>> manager = Manager::Create(std::move(options));
  EXPECT_TRUE(absl::IsInvalidArgument(manager.status()));
  EXPECT_THAT(manager.status().message(), HasSubstr("leader election: the lease duration"));

  options = ElectionOptions();
  options.leader_election->client = nullptr;
  EXPECT_TRUE(absl::IsInvalidArgument(Manager::Create(std::move(options)).status()));
}

}  // namespace
}  // namespace manager_test
}  // namespace gpuprofile::runtime
