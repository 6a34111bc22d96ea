// File: test/kube/lease_rest_client_test.cc
// RestLeaseClient against the real kube-emulator over HTTP: the Lease codec, a round trip, the
// error codes leader election relies on (NotFound, AlreadyExists, Aborted on a stale
// resourceVersion), fields it does not model surviving an update, and the point of it all: two
// LeaderElectors with short lease durations (1 s / 0.5 s / 0.1 s) on the real clock never lead at
// once, across hand-overs on release, a leader cut off from the server, and a leader that stops
// without releasing.
#include "controller/kube/lease_rest_client.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "controller/kube/api_error.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/leader_elector.h"
#include "gtest/gtest.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace lease_rest_client_test {
namespace {

using runtime::Lease;
using runtime::LeaseSpec;
using testing::KubeEmulator;

#define ASSERT_EMULATOR(emu) ASSERT_TRUE((emu).ok()) << (emu).error()

const ResourcePath kLeases{"coordination.k8s.io", "v1", "leases", "default", "", ""};

// A whole-microsecond time, so that it survives the MicroTime round trip exactly.
absl::Time Micros(int64_t micros) { return absl::FromUnixMicros(micros); }

Lease MakeLease(const std::string& name, const std::string& holder) {
  Lease lease;
  lease.namespace_name = "default";
  lease.name = name;
  lease.spec.holder_identity = holder;
  lease.spec.lease_duration_seconds = 15;
  lease.spec.acquire_time = Micros(1700000000123456);
  lease.spec.renew_time = Micros(1700000005654321);
  lease.spec.lease_transitions = 3;
  return lease;
}

TEST(LeaseCodecTest, EncodesMicroTimesAndEveryModelledField) {
  nlohmann::json encoded = EncodeLease(MakeLease("op", "pod-a_1"));
  EXPECT_EQ(encoded["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(encoded["kind"], "Lease");
  EXPECT_EQ(encoded["metadata"], (nlohmann::json{{"name", "op"}, {"namespace", "default"}}));
  EXPECT_EQ(encoded["spec"], (nlohmann::json{{"holderIdentity", "pod-a_1"},
                                             {"leaseDurationSeconds", 15},
                                             {"acquireTime", "2023-11-14T22:13:20.123456Z"},
                                             {"renewTime", "2023-11-14T22:13:25.654321Z"},
                                             {"leaseTransitions", 3}}));
}

TEST(LeaseCodecTest, EncodingOverABaseKeepsWhatIsNotModelled) {
  nlohmann::json base = {
      {"metadata", {{"name", "op"}, {"labels", {{"app", "x"}}}, {"resourceVersion", "7"}}},
      {"spec", {{"preferredHolder", "pod-b"}, {"holderIdentity", "old"}}}};
  Lease lease = MakeLease("op", "pod-a");
  lease.resource_version = "7";
  nlohmann::json encoded = EncodeLease(lease, base);
  EXPECT_EQ(encoded["metadata"]["labels"]["app"], "x");
  EXPECT_EQ(encoded["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(encoded["spec"]["preferredHolder"], "pod-b");
  EXPECT_EQ(encoded["spec"]["holderIdentity"], "pod-a");
}

TEST(LeaseCodecTest, DecodesAnyRfc3339PrecisionAndDefaultsAbsentFields) {
  nlohmann::json object = {
      {"metadata", {{"name", "op"}, {"namespace", "ns"}, {"resourceVersion", "42"}}},
      {"spec",
       {{"holderIdentity", "pod-a"},
        {"leaseDurationSeconds", 10},
        {"acquireTime", "2023-11-14T22:13:20Z"},
        {"renewTime", "2023-11-14T23:13:20.5+01:00"}}}};
  ASSERT_OK_AND_ASSIGN(Lease lease, DecodeLease(object));
  EXPECT_EQ(lease.namespace_name, "ns");
  EXPECT_EQ(lease.name, "op");
  EXPECT_EQ(lease.resource_version, "42");
  EXPECT_EQ(lease.spec.holder_identity, "pod-a");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 10);
  EXPECT_EQ(lease.spec.acquire_time, absl::FromUnixSeconds(1700000000));
  EXPECT_EQ(lease.spec.renew_time, absl::FromUnixMillis(1700000000500));
  EXPECT_EQ(lease.spec.lease_transitions, 0);

  ASSERT_OK_AND_ASSIGN(Lease empty, DecodeLease({{"metadata", {{"name", "op"}}}}));
  EXPECT_EQ(empty.spec, LeaseSpec{});
}

TEST(LeaseCodecTest, MalformedFieldsAreDataLossNamingTheField) {
  struct Case {
    nlohmann::json spec;
    std::string field;
  };
  const std::vector<Case> cases = {
      {{{"holderIdentity", 5}}, "spec.holderIdentity"},
      {{{"leaseDurationSeconds", "15"}}, "spec.leaseDurationSeconds"},
      {{{"leaseTransitions", 1e12}}, "spec.leaseTransitions"},
      {{{"leaseTransitions", int64_t{1} << 40}}, "spec.leaseTransitions"},
      {{{"renewTime", "yesterday"}}, "spec.renewTime"},
      {{{"acquireTime", 17}}, "spec.acquireTime"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Lease> lease =
        DecodeLease({{"metadata", {{"name", "op"}, {"namespace", "ns"}}}, {"spec", c.spec}});
    ASSERT_FALSE(lease.ok()) << c.spec;
    EXPECT_EQ(lease.status().code(), absl::StatusCode::kDataLoss) << lease.status();
    EXPECT_NE(lease.status().message().find(c.field), absl::string_view::npos) << lease.status();
    EXPECT_NE(lease.status().message().find("Lease ns/op"), absl::string_view::npos)
        << lease.status();
  }
  EXPECT_FALSE(DecodeLease(nlohmann::json::array()).ok());
  EXPECT_FALSE(ParseMicroTime("2023-11-14 22:13:20").ok());
}

TEST(RestLeaseClientTest, CreateGetUpdateRoundTrip) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  RestLeaseClient leases(emu.client());
  const Lease want = MakeLease("round-trip", "pod-a_1");
  ASSERT_OK_AND_ASSIGN(Lease created, leases.Create(want));
  EXPECT_FALSE(created.resource_version.empty());
  EXPECT_EQ(created.namespace_name, "default");
  EXPECT_EQ(created.name, "round-trip");
  EXPECT_EQ(created.spec, want.spec);

  ASSERT_OK_AND_ASSIGN(Lease got, leases.Get("default", "round-trip"));
  EXPECT_EQ(got.resource_version, created.resource_version);
  EXPECT_EQ(got.spec, want.spec);

  // A release: empty holder, as the elector writes it; the holder must be stored as "".
  Lease released = got;
  released.spec.holder_identity.clear();
  released.spec.lease_duration_seconds = 1;
  released.spec.renew_time = Micros(1700000009000001);
  ASSERT_OK_AND_ASSIGN(Lease updated, leases.Update(released));
  EXPECT_NE(updated.resource_version, got.resource_version);
  EXPECT_EQ(updated.spec, released.spec);
  ASSERT_OK_AND_ASSIGN(nlohmann::json raw, emu.client()->Get(kLeases.WithName("round-trip")));
  EXPECT_EQ(raw["spec"]["holderIdentity"], "");
  EXPECT_EQ(raw["spec"]["renewTime"], "2023-11-14T22:13:29.000001Z");

  // Sub-microsecond parts are truncated by the MicroTime encoding.
  Lease precise = updated;
  precise.spec.renew_time = Micros(1700000010000000) + absl::Nanoseconds(999);
  ASSERT_OK_AND_ASSIGN(Lease truncated, leases.Update(precise));
  EXPECT_EQ(truncated.spec.renew_time, Micros(1700000010000000));
}

TEST(RestLeaseClientTest, ErrorsUseTheCodesLeaderElectionExpects) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  RestLeaseClient leases(emu.client());
  absl::Status missing = leases.Get("default", "absent").status();
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
  EXPECT_TRUE(apierrors::IsNotFound(missing)) << missing;  // the typed error is kept

  Lease absent = MakeLease("absent", "pod-a");
  absent.resource_version = "1";
  absl::Status update_missing = leases.Update(absent).status();
  EXPECT_TRUE(absl::IsNotFound(update_missing)) << update_missing;

  ASSERT_OK_AND_ASSIGN(Lease first, leases.Create(MakeLease("contended", "pod-a")));
  absl::Status second = leases.Create(MakeLease("contended", "pod-b")).status();
  EXPECT_TRUE(absl::IsAlreadyExists(second)) << second;

  // Two candidates that both read `first` race to update it: one wins, the other conflicts.
  Lease by_a = first;
  by_a.spec.renew_time = Micros(1700000020000000);
  Lease by_b = first;
  by_b.spec.holder_identity = "pod-b";
  by_b.spec.lease_transitions = first.spec.lease_transitions + 1;
  ASSERT_OK(leases.Update(by_a));
  absl::Status conflict = leases.Update(by_b).status();
  EXPECT_TRUE(runtime::IsConflict(conflict)) << conflict;
  EXPECT_TRUE(apierrors::IsConflict(conflict)) << conflict;
  ASSERT_OK_AND_ASSIGN(Lease now, leases.Get("default", "contended"));
  EXPECT_EQ(now.spec.holder_identity, "pod-a");

  Lease no_version = now;
  no_version.resource_version.clear();
  EXPECT_TRUE(absl::IsInvalidArgument(leases.Update(no_version).status()));
}

TEST(RestLeaseClientTest, UpdateKeepsLabelsAndSpecFieldsItDoesNotModel) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  nlohmann::json object = EncodeLease(MakeLease("kept", "pod-a"));
  object["metadata"]["labels"] = {{"app", "gpu-profile-operator"}};
  object["spec"]["preferredHolder"] = "pod-b";
  ASSERT_OK(emu.client()->Create(kLeases, object));
  RestLeaseClient leases(emu.client());
  ASSERT_OK_AND_ASSIGN(Lease got, leases.Get("default", "kept"));
  got.spec.holder_identity = "pod-c";
  ASSERT_OK(leases.Update(got));
  ASSERT_OK_AND_ASSIGN(nlohmann::json raw, emu.client()->Get(kLeases.WithName("kept")));
  EXPECT_EQ(raw["metadata"]["labels"]["app"], "gpu-profile-operator");
  EXPECT_EQ(raw["spec"]["preferredHolder"], "pod-b");
  EXPECT_EQ(raw["spec"]["holderIdentity"], "pod-c");
}

// ---- Two electors over real HTTP ----

// A LeaseClient that can be cut off from the server (every call fails), as a partitioned pod.
class PartitionableLeaseClient final : public runtime::LeaseClient {
 public:
  explicit PartitionableLeaseClient(runtime::LeaseClient* inner) : inner_(inner) {}
  absl::StatusOr<Lease> Get(const std::string& ns, const std::string& name) override {
    if (partitioned_) return absl::UnavailableError("partitioned");
    return inner_->Get(ns, name);
  }
  absl::StatusOr<Lease> Create(const Lease& lease) override {
    if (partitioned_) return absl::UnavailableError("partitioned");
    return inner_->Create(lease);
  }
  absl::StatusOr<Lease> Update(const Lease& lease) override {
    if (partitioned_) return absl::UnavailableError("partitioned");
    return inner_->Update(lease);
  }
  void Partition(bool on) { partitioned_ = on; }

 private:
  runtime::LeaseClient* inner_;
  std::atomic<bool> partitioned_{false};
};

// Leading intervals as the callbacks report them, on the real clock.
class Timeline {
 public:
  struct Interval {
    std::string who;
    absl::Time start;
    absl::Time end = absl::InfiniteFuture();  // open while leading
  };

  void Started(const std::string& who) {
    absl::MutexLock lock(&mu_);
    open_[who] = intervals_.size();
    intervals_.push_back({who, absl::Now(), absl::InfiniteFuture()});
  }
  void Stopped(const std::string& who) {
    absl::MutexLock lock(&mu_);
    auto it = open_.find(who);
    if (it == open_.end()) return;
    intervals_[it->second].end = absl::Now();
    open_.erase(it);
  }

  // The candidate whose interval is open, waiting up to `timeout` for one other than `not_who`.
  std::string AwaitLeaderOtherThan(const std::string& not_who, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    struct Arg {
      Timeline* self;
      const std::string* not_who;
    };
    Arg arg{this, &not_who};
    mu_.AwaitWithTimeout(absl::Condition(
                             +[](Arg* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                               for (const auto& [who, index] : a->self->open_) {
                                 if (who != *a->not_who) return true;
                               }
                               return false;
                             },
                             &arg),
                         timeout);
    for (const auto& [who, index] : open_) {
      if (who != not_who) return who;
    }
    return "";
  }

  std::vector<Interval> intervals() const {
    absl::MutexLock lock(&mu_);
    return intervals_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<Interval> intervals_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, size_t> open_ ABSL_GUARDED_BY(mu_);
};

// One candidate "process": its own RestClient, lease client, elector and Run() thread.
class Candidate {
 public:
  Candidate(KubeEmulator* emu, const std::string& identity, Timeline* timeline)
      : identity_(identity) {
    RestClientOptions options;
    // Short requests and no retries keep each Step well inside the renew deadline.
    options.request_timeout = absl::Milliseconds(200);
    options.max_retries = 0;
    client_ = emu->NewClient(options);
    rest_leases_ = std::make_unique<RestLeaseClient>(client_.get());
    leases_ = std::make_unique<PartitionableLeaseClient>(rest_leases_.get());
    runtime::LeaderElectionConfig config;
    config.lease_namespace = "default";
    config.lease_name = "gpu-profile-operator";
    config.identity = identity;
    config.lease_duration = absl::Seconds(1);
    config.renew_deadline = absl::Milliseconds(500);
    config.retry_period = absl::Milliseconds(100);
    config.callbacks.on_started_leading = [timeline, identity] { timeline->Started(identity); };
    config.callbacks.on_stopped_leading = [timeline, identity] { timeline->Stopped(identity); };
    auto elector =
        runtime::LeaderElector::Create(config, leases_.get(), runtime::RealClock::Default());
    EXPECT_TRUE(elector.ok()) << elector.status();
    elector_ = *std::move(elector);
    thread_ = std::thread([this] { elector_->Run(); });
  }
  ~Candidate() { StopAndJoin(); }

  void StopAndJoin() {
    if (!thread_.joinable()) return;
    elector_->Stop();
    thread_.join();
  }
  void Partition(bool on) { leases_->Partition(on); }
  bool IsLeader() const { return elector_->IsLeader(); }
  const std::string& identity() const { return identity_; }

 private:
  const std::string identity_;
  std::unique_ptr<RestClient> client_;
  std::unique_ptr<RestLeaseClient> rest_leases_;
  std::unique_ptr<PartitionableLeaseClient> leases_;
  std::unique_ptr<runtime::LeaderElector> elector_;
  std::thread thread_;
};

TEST(RestLeaseClientTest, TwoElectorsNeverLeadAtOnceOverRealHttp) {
  KubeEmulator emu;
  ASSERT_EMULATOR(emu);
  Timeline timeline;

  absl::Mutex mu;
  std::vector<std::shared_ptr<Candidate>> live;  // guarded by mu
  bool done = false;                             // guarded by mu
  int samples = 0;
  std::vector<std::string> violations;
  int next_id = 0;
  auto spawn = [&] {
    auto c = std::make_shared<Candidate>(&emu, absl::StrCat("pod-", next_id++), &timeline);
    absl::MutexLock lock(&mu);
    live.push_back(c);
  };
  auto find = [&](const std::string& identity) {
    absl::MutexLock lock(&mu);
    for (const auto& c : live) {
      if (c->identity() == identity) return c;
    }
    return std::shared_ptr<Candidate>();
  };
  auto retire = [&](const std::string& identity) {
    absl::MutexLock lock(&mu);
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](const auto& c) { return c->identity() == identity; }),
               live.end());
  };

  // Samples IsLeader() of every live candidate every millisecond or so.
  std::thread sampler([&] {
    absl::MutexLock lock(&mu);
    while (!done) {
      std::vector<std::shared_ptr<Candidate>> now = live;
      mu.Unlock();
      std::vector<std::string> leaders;
      for (const auto& c : now) {
        if (c->IsLeader()) leaders.push_back(c->identity());
      }
      ++samples;
      if (leaders.size() > 1) {
        violations.push_back(absl::StrCat(absl::FormatTime(absl::Now()), ": ",
                                          absl::StrJoin(leaders, ", "), " lead at once"));
      }
      mu.Lock();
      mu.AwaitWithTimeout(absl::Condition(&done), absl::Milliseconds(1));
    }
  });

  spawn();
  spawn();
  std::string leader = timeline.AwaitLeaderOtherThan("", absl::Seconds(5));
  ASSERT_NE(leader, "");
  int handovers = 0;
  enum class How { kRelease, kPartition, kStopWithoutRelease };
  const std::vector<How> rounds = {How::kRelease,
                                   How::kRelease,
                                   How::kPartition,
                                   How::kRelease,
                                   How::kStopWithoutRelease,
                                   How::kRelease,
                                   How::kPartition,
                                   How::kRelease,
                                   How::kStopWithoutRelease,
                                   How::kRelease};
  for (How how : rounds) {
    // Let the leader renew a few times with a rival candidate polling. (On a starved machine
    // it may miss its renew deadline and lose the Lease; that is safe, so follow it.)
    if (std::string other = timeline.AwaitLeaderOtherThan(leader, absl::Milliseconds(300));
        !other.empty()) {
      leader = other;
    }
    std::shared_ptr<Candidate> old = find(leader);
    ASSERT_NE(old, nullptr) << leader;
    const absl::Time cut = absl::Now();
    switch (how) {
      case How::kRelease:
        old->StopAndJoin();  // releases the Lease
        break;
      case How::kPartition:
        old->Partition(true);  // alive but unable to renew: must step down by itself
        break;
      case How::kStopWithoutRelease:
        old->Partition(true);  // the release fails: the Lease must expire
        old->StopAndJoin();
        break;
    }
    std::string next = timeline.AwaitLeaderOtherThan(leader, absl::Seconds(5));
    ASSERT_NE(next, "") << "nobody took over from " << leader;
    const absl::Duration took = absl::Now() - cut;
    if (how == How::kRelease) {
      EXPECT_LT(took, absl::Seconds(1)) << "a released Lease is taken at once";
    } else {
      // The rival counts the lease duration from when it first saw the last renewal, which
      // may be up to a retry period (plus a request) before the cut.
      EXPECT_GE(took, absl::Milliseconds(800)) << "an unreleased Lease is taken only on expiry";
    }
    ++handovers;
    old->StopAndJoin();
    retire(leader);
    leader = next;
    spawn();  // a new pod replaces the old one
  }
  {
    absl::MutexLock lock(&mu);
    done = true;
  }
  sampler.join();
  std::vector<std::shared_ptr<Candidate>> rest;
  {
    absl::MutexLock lock(&mu);
    rest.swap(live);
  }
  for (const auto& c : rest) c->StopAndJoin();

  EXPECT_EQ(handovers, static_cast<int>(rounds.size()));
  EXPECT_GT(samples, 200);
  EXPECT_TRUE(violations.empty()) << absl::StrJoin(violations, "\n");
  std::vector<Timeline::Interval> intervals = timeline.intervals();
  std::sort(intervals.begin(), intervals.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  EXPECT_GT(intervals.size(), rounds.size());
  for (size_t i = 1; i < intervals.size(); ++i) {
    EXPECT_LE(intervals[i - 1].end, intervals[i].start)
        << intervals[i - 1].who << " led until " << absl::FormatTime(intervals[i - 1].end)
        << " but " << intervals[i].who << " started at " << absl::FormatTime(intervals[i].start);
  }
  RestLeaseClient leases(emu.client());
  ASSERT_OK_AND_ASSIGN(Lease final_lease, leases.Get("default", "gpu-profile-operator"));
  EXPECT_GE(final_lease.spec.lease_transitions, static_cast<int32_t>(rounds.size()));
}

}  // namespace
}  // namespace lease_rest_client_test
}  // namespace gpuprofile::kube
