// File: test/reconciler/desired_state_test.cc
// DesiredStateCache over a real ClusterCache whose informers are fed through their watch sinks
// (no API server: the DRA informers' watchers fail their first list and wait on a clock that
// never moves): a snapshot is computed once and reused while nothing changes; a change yields a
// fresh snapshot after the interval, replanning the spec side only for the changes that can
// change it; in between, the last snapshot comes back stale with the time left; foreign objects
// recompute it; profiles added and removed come and go in its outcomes and indexes.
#include "controller/reconciler/desired_state.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/meta/condition.h"
#include "controller/reconciler/cluster_cache.h"
#include "controller/reconciler/foreign_objects.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/kube/testing/fake_transport.h"

namespace gpuprofile::reconciler {
namespace desired_state_test {
namespace {

using json = nlohmann::json;
using runtime::WatchEventType;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr absl::Duration kMinInterval = absl::Milliseconds(200);

json Profile(const std::string& name, const std::string& ns = "ml") {
  return {{"apiVersion", "gpuprofile.io/v1alpha1"},
          {"kind", "GpuProfile"},
          {"metadata",
           {{"name", name},
            {"uid", "u-" + name},
            {"generation", 1},
            {"resourceVersion", "1"},
            {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"spec", {{"claimTemplate", {{"namespaces", json::array({ns})}}}}}};
}

json Namespace(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}, {"uid", "u-" + name}, {"resourceVersion", "1"}}}};
}

// A node's ResourceSlice of `devices` H100 GPUs (pool and node named `node`).
json Slice(const std::string& node, int devices) {
  json list = json::array();
  for (int d = 0; d < devices; ++d) {
    list.push_back({{"name", absl::StrCat("gpu-", d)},
                    {"attributes",
                     {{"type", {{"string", "gpu"}}},
                      {"productName", {{"string", "NVIDIA H100 80GB HBM3"}}},
                      {"driverVersion", {{"version", "550.54.15"}}},
                      {"index", {{"int", d}}}}},
                    {"capacity", {{"memory", {{"value", "80Gi"}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", node}, {"resourceVersion", "1"}, {"uid", "u-" + node}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", list}}}};
}

// A claim on class `device_class` holding `node`'s gpu-0.
json AllocatedClaim(const std::string& name, const std::string& device_class,
                    const std::string& node) {
  const json request = {{"name", "gpu"}, {"exactly", {{"deviceClassName", device_class}}}};
  const json result = {
      {"request", "gpu"}, {"driver", "gpu.nvidia.com"}, {"pool", node}, {"device", "gpu-0"}};
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"uid", "u-" + name},
            {"resourceVersion", "1"},
            {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"spec", {{"devices", {{"requests", json::array({request})}}}}},
          {"status", {{"allocation", {{"devices", {{"results", json::array({result})}}}}}}}};
}

// An unmanaged ResourceClaimTemplate (no managed-by label), as the executor notes one a create
// met.
dra::ResourceClaimTemplate ForeignTemplate(const std::string& ns, const std::string& name) {
  dra::ResourceClaimTemplate t;
  t.metadata.namespace_name = ns;
  t.metadata.name = name;
  return t;
}

class DesiredStateCacheTest : public ::testing::Test {
 public:
  // The informers' watch sinks, through which the tests change the cache.
  kube::WatchSink& profiles() { return cache_->profile_informer(); }
  kube::WatchSink& namespaces() { return cache_->namespace_informer(); }
  kube::WatchSink& slices() { return *slices_; }
  kube::WatchSink& claims() { return *claims_; }

 protected:
  DesiredStateCacheTest() {
    // The DRA informers start with EnableDra: their lists fail, and their watchers wait for a
    // retry on watch_clock_, which the tests never move, until the cache stops.
    transport_.SetHandler([](const kube::HttpRequest&) {
      return kube::testing::ErrorReply(absl::UnavailableError("no API server in this test"));
    });
    kube::RestClientOptions client_options;
    client_options.clock = &watch_clock_;
    client_options.max_retries = 0;
    client_ = std::make_unique<kube::RestClient>(&transport_, client_options);
    ClusterCacheOptions options;
    options.client = client_.get();
    options.watch.clock = &watch_clock_;
    options.watch.uniform = [] { return 0.5; };
    cache_ = std::make_unique<ClusterCache>(options);
    cache_->SetDraWiring([this](kube::Informer<dra::ResourceSlice>& slices,
                                kube::Informer<dra::DeviceClass>&, kube::Informer<TemplateObject>&,
                                kube::Informer<dra::ResourceClaim>& claims) {
      slices_ = &slices;
      claims_ = &claims;
    });
    EXPECT_TRUE(cache_->EnableDra(dra::DraApiVersion::kV1));
    desired_ = std::make_unique<DesiredStateCache>(cache_.get(), &foreign_, KubeVersion{34},
                                                   &clock_, kMinInterval);
  }
  ~DesiredStateCacheTest() override {
    desired_.reset();
    cache_->Stop();
  }

  // The usual start: profile p (class and template "p") targeting namespace ml, one node of two
  // GPUs.
  void Populate() {
    namespaces().Replace({Namespace("ml")});
    profiles().Replace({Profile("p")});
    slices().Replace({Slice("node-1", 2)});
    claims().Replace({});
  }

  // A fresh snapshot after the interval since the last computation has passed.
  DesiredSnapshot GetAfterInterval() {
    clock_.Advance(kMinInterval);
    return desired_->Get();
  }

  runtime::FakeClock clock_;
  runtime::FakeClock watch_clock_;  // never advanced
  kube::testing::FakeTransport transport_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<ClusterCache> cache_;
  kube::Informer<dra::ResourceSlice>* slices_ = nullptr;
  kube::Informer<dra::ResourceClaim>* claims_ = nullptr;
  ForeignObjects foreign_{&clock_};
  std::unique_ptr<DesiredStateCache> desired_;
};

std::vector<std::string> Keys(const std::map<std::string, const profile::ProfileOutcome*>& m) {
  std::vector<std::string> out;
  for (const auto& [name, outcome] : m) out.push_back(name);
  return out;
}

TEST_F(DesiredStateCacheTest, ComputesOnceAndReusesTheSnapshotWhileNothingChanges) {
  Populate();
  const DesiredSnapshot first = desired_->Get();
  ASSERT_NE(first.computed, nullptr);
  EXPECT_TRUE(first.fresh());
  EXPECT_EQ(first.computed->cache_version, cache_->version());
  EXPECT_EQ(first.computed->devices, 2);
  EXPECT_EQ(first.computed->pools, 1);
  EXPECT_EQ(first.computed->plan_id, 1);
  EXPECT_THAT(Keys(first.computed->outcome_by_profile), ElementsAre("p"));
  EXPECT_EQ(first.computed->outcome_by_profile.at("p")->profile.status.matched_devices, 2);
  ASSERT_EQ(first.computed->class_by_profile.count("p"), 1u);
  EXPECT_EQ(first.computed->class_by_profile.at("p")->metadata.name, "p");
  ASSERT_EQ(first.computed->templates_by_profile.count("p"), 1u);
  EXPECT_THAT(first.computed->templates_by_profile.at("p")->namespaces, ElementsAre("ml"));
  EXPECT_THAT(first.computed->quotas_by_profile, IsEmpty());

  // At once and long after: the same computation, fresh, with nothing computed again.
  for (absl::Duration later : {absl::ZeroDuration(), absl::Minutes(10)}) {
    clock_.Advance(later);
    const DesiredSnapshot again = desired_->Get();
    EXPECT_EQ(again.computed, first.computed);
    EXPECT_TRUE(again.fresh());
  }
  EXPECT_EQ(desired_->computations(), 1);
  EXPECT_EQ(desired_->plans(), 1);
}

// Each change the cache counts gives a fresh snapshot once the interval has passed; only changes
// of the spec side (profiles, namespaces) plan the profiles again: the plan id, and the desired
// objects with it, stay for device and claim changes.
TEST_F(DesiredStateCacheTest, ACacheChangeGivesAFreshSnapshotAndReplansOnlyForTheSpecSide) {
  struct Case {
    std::string name;
    std::function<void(DesiredStateCacheTest*)> change;
    bool replans;
    std::function<void(const Computed&)> check;
  };
  const std::vector<Case> cases = {
      {"a slice added",
       [](DesiredStateCacheTest* t) {
         ASSERT_TRUE(t->slices().ApplyRaw(WatchEventType::kAdded, Slice("node-2", 3).dump()).ok());
       },
       false,
       [](const Computed& c) {
         EXPECT_EQ(c.devices, 5);
         EXPECT_EQ(c.outcome_by_profile.at("p")->profile.status.matched_nodes, 2);
       }},
      {"a claim allocated",
       [](DesiredStateCacheTest* t) {
         t->claims().Apply(WatchEventType::kAdded, AllocatedClaim("c", "p", "node-1"));
       },
       false,
       [](const Computed& c) {
         EXPECT_EQ(c.claims, 1);
         const api::GpuProfileStatus& s = c.outcome_by_profile.at("p")->profile.status;
         EXPECT_EQ(s.allocation.allocated_claims, 1);
         EXPECT_EQ(s.allocation.free_devices, 1);
       }},
      {"a namespace added",
       [](DesiredStateCacheTest* t) {
         t->namespaces().Apply(WatchEventType::kAdded, Namespace("batch"));
       },
       true, [](const Computed&) {}},
      {"a profile's spec changed",
       [](DesiredStateCacheTest* t) {
         json changed = Profile("p", "batch");
         changed["metadata"]["generation"] = 2;
         changed["metadata"]["resourceVersion"] = "2";
         t->namespaces().Apply(WatchEventType::kAdded, Namespace("batch"));
         t->profiles().Apply(WatchEventType::kModified, changed);
       },
       true,
       [](const Computed& c) {
         EXPECT_THAT(c.templates_by_profile.at("p")->namespaces, ElementsAre("batch"));
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Populate();
    const DesiredSnapshot before = GetAfterInterval();
    const int64_t plans = desired_->plans();
    const int64_t computations = desired_->computations();
    c.change(this);
    const DesiredSnapshot after = GetAfterInterval();
    ASSERT_NE(after.computed, nullptr);
    EXPECT_NE(after.computed, before.computed);
    EXPECT_TRUE(after.fresh());
    EXPECT_EQ(after.computed->cache_version, cache_->version());
    EXPECT_GT(after.computed->cache_version, before.computed->cache_version);
    EXPECT_EQ(desired_->computations(), computations + 1);
    EXPECT_EQ(desired_->plans(), plans + (c.replans ? 1 : 0));
    if (c.replans) {
      EXPECT_NE(after.computed->plan_id, before.computed->plan_id);
    } else {
      EXPECT_EQ(after.computed->plan_id, before.computed->plan_id);
    }
    c.check(*after.computed);
    // Back to the usual start for the next case.
    profiles().Replace({});
    namespaces().Replace({});
  }
}

// The ticks are counted from the epoch, not from the last computation: a change in a later tick
// is computed at once, and one computation serves every caller of its tick.
TEST_F(DesiredStateCacheTest, OneComputationPerTickCountedFromTheEpoch) {
  Populate();
  clock_.Advance(absl::Milliseconds(150));  // 150 ms into a tick
  const DesiredSnapshot first = desired_->Get();
  ASSERT_TRUE(first.fresh());
  EXPECT_EQ(desired_->UntilNextCompute(), absl::Milliseconds(50));
  ASSERT_TRUE(slices().ApplyRaw(WatchEventType::kAdded, Slice("node-2", 1).dump()).ok());
  const DesiredSnapshot stale = desired_->Get();
  EXPECT_EQ(stale.computed, first.computed);
  EXPECT_EQ(stale.retry_after, absl::Milliseconds(50));

  clock_.Advance(absl::Milliseconds(50));  // the next tick: 50 ms after the computation
  EXPECT_EQ(desired_->UntilNextCompute(), absl::ZeroDuration());
  const DesiredSnapshot next = desired_->Get();
  EXPECT_TRUE(next.fresh());
  EXPECT_NE(next.computed, first.computed);
  EXPECT_EQ(desired_->computations(), 2);
}

// Within the interval after a computation, a change is not computed at once: the last snapshot
// comes back stale, with the time left until the interval ends; then one computation covers it.
TEST_F(DesiredStateCacheTest, WithinTheIntervalTheLastSnapshotComesBackStale) {
  Populate();
  const DesiredSnapshot first = desired_->Get();
  ASSERT_TRUE(first.fresh());
  ASSERT_TRUE(slices().ApplyRaw(WatchEventType::kAdded, Slice("node-2", 1).dump()).ok());

  struct Step {
    absl::Duration advance;
    absl::Duration retry_after;
  };
  for (const Step& step : {Step{absl::ZeroDuration(), kMinInterval},
                           Step{absl::Milliseconds(150), absl::Milliseconds(50)},
                           Step{absl::Milliseconds(49), absl::Milliseconds(1)}}) {
    clock_.Advance(step.advance);
    const DesiredSnapshot stale = desired_->Get();
    EXPECT_EQ(stale.computed, first.computed);
    EXPECT_FALSE(stale.fresh());
    EXPECT_EQ(stale.retry_after, step.retry_after);
  }
  EXPECT_EQ(desired_->computations(), 1);

  clock_.Advance(absl::Milliseconds(1));
  const DesiredSnapshot fresh = desired_->Get();
  EXPECT_TRUE(fresh.fresh());
  EXPECT_NE(fresh.computed, first.computed);
  EXPECT_EQ(fresh.computed->devices, 3);
  EXPECT_EQ(desired_->computations(), 2);
  EXPECT_EQ(desired_->plans(), 1);
}

// An unmanaged template a create met (ForeignObjects) is one more input: the cache's version does
// not move, yet the desired state is computed and planned again, the profile reports Conflict and
// generates no template there. When the entry expires, the template comes back.
TEST_F(DesiredStateCacheTest, ForeignObjectsAreComputedIn) {
  Populate();
  const DesiredSnapshot first = desired_->Get();
  ASSERT_EQ(first.computed->templates_by_profile.count("p"), 1u);
  const uint64_t version = cache_->version();

  foreign_.AddTemplate(ForeignTemplate("ml", "p"));
  const DesiredSnapshot conflicted = GetAfterInterval();
  EXPECT_TRUE(conflicted.fresh());
  EXPECT_NE(conflicted.computed, first.computed);
  EXPECT_EQ(cache_->version(), version);
  EXPECT_EQ(desired_->plans(), 2);
  EXPECT_EQ(conflicted.computed->templates_by_profile.count("p"), 0u);
  const profile::ProfileOutcome& p = *conflicted.computed->outcome_by_profile.at("p");
  const meta::Condition* conflict =
      meta::FindCondition(p.profile.status.conditions, meta::kConditionConflict);
  ASSERT_NE(conflict, nullptr);
  EXPECT_EQ(conflict->status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(desired_->Get().computed, conflicted.computed);  // and kept while nothing changes

  clock_.Advance(absl::Seconds(61));  // the entry's ttl
  const DesiredSnapshot expired = desired_->Get();
  EXPECT_NE(expired.computed, conflicted.computed);
  EXPECT_EQ(desired_->plans(), 3);
  EXPECT_EQ(expired.computed->templates_by_profile.count("p"), 1u);
}

TEST_F(DesiredStateCacheTest, ProfilesAddedAndRemovedComeAndGo) {
  Populate();
  EXPECT_THAT(Keys(desired_->Get().computed->outcome_by_profile), ElementsAre("p"));

  profiles().Apply(WatchEventType::kAdded, Profile("q"));
  std::shared_ptr<const Computed> both = GetAfterInterval().computed;
  EXPECT_THAT(Keys(both->outcome_by_profile), ElementsAre("p", "q"));
  EXPECT_EQ(both->class_by_profile.count("q"), 1u);
  EXPECT_EQ(both->templates_by_profile.count("q"), 1u);
  EXPECT_EQ(both->desired.node_groups.size(), 1u);
  EXPECT_THAT(both->desired.node_groups[0].status.profiles, ElementsAre("p", "q"));

  profiles().Apply(WatchEventType::kDeleted, Profile("p"));
  std::shared_ptr<const Computed> only_q = GetAfterInterval().computed;
  EXPECT_THAT(Keys(only_q->outcome_by_profile), ElementsAre("q"));
  EXPECT_EQ(only_q->class_by_profile.count("p"), 0u);
  EXPECT_EQ(only_q->templates_by_profile.count("p"), 0u);
  EXPECT_THAT(only_q->desired.node_groups[0].status.profiles, ElementsAre("q"));

  profiles().Apply(WatchEventType::kDeleted, Profile("q"));
  std::shared_ptr<const Computed> none = GetAfterInterval().computed;
  EXPECT_THAT(none->outcome_by_profile, IsEmpty());
  EXPECT_THAT(none->desired.device_classes, IsEmpty());
  EXPECT_THAT(none->desired.template_sets, IsEmpty());
  EXPECT_EQ(none->devices, 2);  // the fleet stays
  EXPECT_EQ(desired_->plans(), 4);
}

}  // namespace
}  // namespace desired_state_test
}  // namespace gpuprofile::reconciler
