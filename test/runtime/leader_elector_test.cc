// File: test/runtime/leader_elector_test.cc
#include "controller/runtime/leader_elector.h"

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "controller/runtime/testing/fake_clock.h"
#include "controller/runtime/testing/fake_lease_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace leader_elector_test {
namespace {

using ::testing::ElementsAre;

// Forwards to a FakeLeaseClient; a hook can run just before an Update reaches it, to interleave
// another candidate between this one's read and write.
class InterleavingLeaseClient final : public LeaseClient {
 public:
  explicit InterleavingLeaseClient(FakeLeaseClient* inner) : inner_(inner) {}
  absl::StatusOr<Lease> Get(const std::string& ns, const std::string& name) override {
    return inner_->Get(ns, name);
  }
  absl::StatusOr<Lease> Create(const Lease& lease) override { return inner_->Create(lease); }
  absl::StatusOr<Lease> Update(const Lease& lease) override {
    if (before_update) std::exchange(before_update, nullptr)();
    return inner_->Update(lease);
  }
  std::function<void()> before_update;  // one-shot

 private:
  FakeLeaseClient* inner_;
};

struct Recorded {
  int started = 0;
  int stopped = 0;
  std::vector<std::string> leaders;
};

class LeaderElectorTest : public ::testing::Test {
 protected:
  std::unique_ptr<LeaderElector> MakeElector(const std::string& identity, Recorded* recorded,
                                             LeaseClient* client = nullptr,
                                             LeaderElectionConfig config = {}) {
    config.lease_namespace = "gpu-profile-system";
    config.lease_name = "gpu-profile-operator";
    config.identity = identity;
    config.callbacks.on_started_leading = [recorded] { ++recorded->started; };
    config.callbacks.on_stopped_leading = [recorded] { ++recorded->stopped; };
    config.callbacks.on_new_leader = [recorded](const std::string& id) {
      recorded->leaders.push_back(id);
    };
    auto elector = LeaderElector::Create(std::move(config), client ? client : &leases_, &clock_);
    EXPECT_TRUE(elector.ok()) << elector.status();
    return std::move(elector).value();
  }

  Lease StoredLease() {
    absl::StatusOr<Lease> lease = leases_.Get("gpu-profile-system", "gpu-profile-operator");
    EXPECT_TRUE(lease.ok()) << lease.status();
    return lease.ok() ? *lease : Lease{};
  }

  FakeClock clock_;
  FakeLeaseClient leases_;
};

TEST(LeaderElectionConfigTest, EnforcesClientGoConstraints) {
  LeaderElectionConfig config;
  config.lease_namespace = "ns";
  config.lease_name = "lease";
  config.identity = "me";
  EXPECT_OK(ValidateLeaderElectionConfig(config));  // 15 s / 10 s / 2 s
  LeaderElectionConfig bad = config;
  bad.renew_deadline = absl::Seconds(15);
  EXPECT_FALSE(ValidateLeaderElectionConfig(bad).ok());
  bad = config;
  bad.retry_period = absl::Seconds(9);  // 1.2 x 9 > 10
  EXPECT_FALSE(ValidateLeaderElectionConfig(bad).ok());
  bad = config;
  bad.identity.clear();
  EXPECT_FALSE(ValidateLeaderElectionConfig(bad).ok());
}

TEST_F(LeaderElectorTest, FirstCandidateCreatesTheLeaseAndLeads) {
  Recorded a_events;
  Gauge master_status;
  LeaderElectionConfig config;
  config.master_status = &master_status;
  auto a = MakeElector("a", &a_events, nullptr, config);
  const absl::Time next = a->Step();
  EXPECT_EQ(next, clock_.Now() + absl::Seconds(2));
  EXPECT_TRUE(a->IsLeader());
  EXPECT_EQ(a_events.started, 1);
  EXPECT_THAT(a_events.leaders, ElementsAre("a"));
  EXPECT_EQ(master_status.Value(), 1);
  const Lease lease = StoredLease();
  EXPECT_EQ(lease.spec.holder_identity, "a");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.acquire_time, clock_.Now());
  EXPECT_EQ(lease.spec.lease_transitions, 0);
}

TEST_F(LeaderElectorTest, RenewingLeaderKeepsTheLeaseAgainstAnotherCandidate) {
  Recorded a_events, b_events;
  auto a = MakeElector("a", &a_events);
  auto b = MakeElector("b", &b_events);
  a->Step();
  for (int i = 0; i < 30; ++i) {
    clock_.Advance(absl::Seconds(2));
    a->Step();
    b->Step();
    ASSERT_TRUE(a->IsLeader());
    ASSERT_FALSE(b->IsLeader());
  }
  EXPECT_EQ(a_events.started, 1);
  EXPECT_EQ(b_events.started, 0);
  EXPECT_EQ(b->ObservedLeader(), "a");
  EXPECT_EQ(StoredLease().spec.renew_time, clock_.Now());
}

TEST_F(LeaderElectorTest, TakeoverOnlyAfterAFullLeaseDurationWithoutRenewal) {
  Recorded a_events, b_events;
  auto a = MakeElector("a", &a_events);
  auto b = MakeElector("b", &b_events);
  a->Step();
  b->Step();  // b sees a's lease now
  const absl::Time seen = clock_.Now();
  // a stops renewing (stalled); it stops counting itself leader after the renew deadline.
  clock_.SetTime(seen + absl::Seconds(10) - absl::Nanoseconds(1));
  EXPECT_TRUE(a->IsLeader());
  clock_.SetTime(seen + absl::Seconds(10));
  EXPECT_FALSE(a->IsLeader());
  clock_.SetTime(seen + absl::Seconds(15) - absl::Nanoseconds(1));
  b->Step();
  EXPECT_FALSE(b->IsLeader());
  clock_.SetTime(seen + absl::Seconds(15));
  b->Step();
  EXPECT_TRUE(b->IsLeader());
  const Lease lease = StoredLease();
  EXPECT_EQ(lease.spec.holder_identity, "b");
  EXPECT_EQ(lease.spec.lease_transitions, 1);
  // a wakes up: it sees b's lease and reports that it stopped leading.
  a->Step();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a_events.stopped, 1);
  EXPECT_THAT(a_events.leaders, ElementsAre("a", "b"));
}

TEST_F(LeaderElectorTest, LeaderStepsDownWhenRenewalsFailUntilTheDeadline) {
  Recorded a_events;
  auto a = MakeElector("a", &a_events);
  a->Step();
  leases_.FailNext(1000, absl::UnavailableError("apiserver down"));
  for (int i = 0; i < 4; ++i) {
    clock_.Advance(absl::Seconds(2));
    EXPECT_EQ(a->Step(), clock_.Now() + absl::Seconds(2));
    EXPECT_TRUE(a->IsLeader());
  }
  clock_.Advance(absl::Seconds(2));  // 10 s since the last successful renewal
  a->Step();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a_events.stopped, 1);
  // Once the server answers again, a takes its own lease back.
  leases_.FailNext(0, absl::OkStatus());
  clock_.Advance(absl::Seconds(2));
  a->Step();
  EXPECT_TRUE(a->IsLeader());
  EXPECT_EQ(a_events.started, 2);
}

TEST_F(LeaderElectorTest, ReleaseHandsOverAtOnce) {
  Recorded a_events, b_events;
  auto a = MakeElector("a", &a_events);
  auto b = MakeElector("b", &b_events);
  a->Step();
  b->Step();
  ASSERT_OK(a->Release());
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a_events.stopped, 1);
  EXPECT_EQ(StoredLease().spec.holder_identity, "");
  EXPECT_EQ(StoredLease().spec.lease_duration_seconds, 1);
  b->Step();  // same instant: no waiting for expiry
  EXPECT_TRUE(b->IsLeader());
  EXPECT_EQ(StoredLease().spec.lease_transitions, 1);
  EXPECT_OK(a->Release());  // not leading: nothing to do
  EXPECT_EQ(StoredLease().spec.holder_identity, "b");
}

TEST_F(LeaderElectorTest, ConflictingWriteFailsOnlyThatAttempt) {
  Recorded a_events, b_events;
  InterleavingLeaseClient a_client(&leases_);
  auto a = MakeElector("a", &a_events, &a_client);
  auto b = MakeElector("b", &b_events);
  Lease free;
  free.namespace_name = "gpu-profile-system";
  free.name = "gpu-profile-operator";
  leases_.Put(free);
  // a reads the free lease, then b takes it before a's write lands.
  a_client.before_update = [&] { b->Step(); };
  a->Step();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_TRUE(b->IsLeader());
  EXPECT_EQ(StoredLease().spec.holder_identity, "b");
  a->Step();  // a now sees b's fresh lease
  EXPECT_FALSE(a->IsLeader());
}

TEST_F(LeaderElectorTest, CreateRaceLosesCleanly) {
  Recorded a_events;
  auto a = MakeElector("a", &a_events);
  leases_.FailNext(1, absl::NotFoundError("not found"));  // a's Get
  Lease theirs;
  theirs.namespace_name = "gpu-profile-system";
  theirs.name = "gpu-profile-operator";
  theirs.spec.holder_identity = "z";
  theirs.spec.lease_duration_seconds = 15;
  leases_.Put(theirs);  // so a's Create finds it: AlreadyExists
  a->Step();
  EXPECT_FALSE(a->IsLeader());
}

TEST_F(LeaderElectorTest, RunLoopsOnTheClockAndReleasesOnStop) {
  Recorded a_events, b_events;
  auto a = MakeElector("a", &a_events);
  auto b = MakeElector("b", &b_events);
  std::thread runner([&] { a->Run(); });
  clock_.BlockUntilWaiters(1);  // a stepped once and waits for its retry period
  EXPECT_TRUE(a->IsLeader());
  EXPECT_EQ(clock_.EarliestDeadline(), clock_.Now() + absl::Seconds(2));
  for (int i = 0; i < 10; ++i) {
    const int writes = leases_.writes();
    clock_.Advance(absl::Seconds(2));
    // Wait (on the lease store, not on time) until a renewed.
    while (leases_.writes() == writes) {
    }
    clock_.BlockUntilWaiters(1);
  }
  EXPECT_TRUE(a->IsLeader());
  a->Stop();
  runner.join();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a_events.stopped, 1);
  b->Step();
  EXPECT_TRUE(b->IsLeader());
}

// Many rounds of random steps, stalls, clock jumps, server failures, releases and interleaved
// writes with short durations: at no point do two candidates consider themselves leader.
TEST_F(LeaderElectorTest, NeverTwoLeadersAtOnce) {
  constexpr int kCandidates = 3;
  LeaderElectionConfig config;
  config.lease_duration = absl::Seconds(3);
  config.renew_deadline = absl::Seconds(2);
  config.retry_period = absl::Milliseconds(500);
  std::vector<std::unique_ptr<InterleavingLeaseClient>> clients;
  std::vector<std::unique_ptr<LeaderElector>> electors;
  std::vector<Recorded> recorded(kCandidates);
  for (int i = 0; i < kCandidates; ++i) {
    clients.push_back(std::make_unique<InterleavingLeaseClient>(&leases_));
    electors.push_back(
        MakeElector("candidate-" + std::to_string(i), &recorded[i], clients.back().get(), config));
  }
  auto leaders = [&] {
    int n = 0;
    for (const auto& e : electors) n += e->IsLeader() ? 1 : 0;
    return n;
  };
  // Interleaving runs one candidate's Step inside another's write, on one thread; in production
  // they are separate processes. The nesting order varies, which absl's lock-order checker would
  // report as a potential cycle between the electors' own (distinct) mutexes.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::mt19937 rng(20240601);
  int rounds_with_leader = 0;
  for (int round = 0; round < 20000; ++round) {
    const int who = static_cast<int>(rng() % kCandidates);
    const int action = static_cast<int>(rng() % 100);
    if (action < 55) {
      electors[who]->Step();
    } else if (action < 85) {
      clock_.Advance(absl::Milliseconds(rng() % 800));
    } else if (action < 90) {
      leases_.FailNext(static_cast<int>(rng() % 4), absl::UnavailableError("injected"));
    } else if (action < 93) {
      (void)electors[who]->Release();
    } else {
      const int other = (who + 1 + static_cast<int>(rng() % (kCandidates - 1))) % kCandidates;
      clients[who]->before_update = [&, other] {
        electors[other]->Step();
        ASSERT_LE(leaders(), 1) << "inside an interleaved write, round " << round;
      };
      electors[who]->Step();
      clients[who]->before_update = nullptr;
    }
    ASSERT_LE(leaders(), 1) << "round " << round;
    if (leaders() == 1) ++rounds_with_leader;
  }
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
  // The test is only meaningful if leadership actually moved around.
  int started = 0;
  for (const Recorded& r : recorded) {
    EXPECT_GT(r.started, 0);
    started += r.started;
  }
  EXPECT_GT(started, 10);
  EXPECT_GT(rounds_with_leader, 5000);
}

}  // namespace
}  // namespace leader_elector_test
}  // namespace gpuprofile::runtime
