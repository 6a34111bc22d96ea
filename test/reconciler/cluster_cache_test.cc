// File: test/reconciler/cluster_cache_test.cc
// The ResourceSlice informer as the operator wires it (NewResourceSliceInformer): every DRA
// version decodes, watch events take the simdjson raw path (the strict decoder's result and
// errors), slices that do not decode are skipped, counted and reported by name, text that is not
// JSON is the watcher's problem, relists keep unchanged slices, lists come in pages of
// kSlicePageSize; DiscoverDraApiVersion against kube-emulator releases; and the ResourceQuota
// informer (always on, the operator's quotas only) and the counters its changes move.
#include "controller/reconciler/cluster_cache.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/kube/discovery.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/emulator_process.h"
#include "test/testing/status_matchers.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::reconciler {
namespace cluster_cache_test {
namespace {

using json = nlohmann::json;
using kube::testing::FakeTransport;
using kube::testing::JsonReply;
using kube::testing::QueryParam;
using kube::testing::Reply;
using runtime::WatchEventType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

json Slice(const std::string& name, int64_t generation, int devices = 2,
           const std::string& api_version = "resource.k8s.io/v1") {
  json list = json::array();
  for (int d = 0; d < devices; ++d) {
    json body = {{"attributes",
                  {{"productName", {{"string", "NVIDIA H100 80GB HBM3"}}},
                   {"driverVersion", {{"version", "550.54.15"}}},
                   {"index", {{"int", d}}}}},
                 {"capacity", {{"memory", {{"value", "80Gi"}}}}}};
    json device = {{"name", absl::StrCat("gpu-", d)}};
    if (api_version == "resource.k8s.io/v1beta1") {
      device["basic"] = body;
    } else {
      device.update(body);
    }
    list.push_back(device);
  }
  return {{"apiVersion", api_version},
          {"kind", "ResourceSlice"},
          {"metadata",
           {{"name", name}, {"resourceVersion", absl::StrCat(generation)}, {"uid", "u-" + name}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", name},
            {"pool", {{"name", name}, {"generation", generation}, {"resourceSliceCount", 1}}},
            {"devices", list}}}};
}

std::string Id(const dra::ResourceSlice* s) {
  return s == nullptr ? "-" : absl::StrCat(s->name, "@", s->pool_generation);
}

class SliceInformerTest : public ::testing::Test {
 protected:
  SliceInformerTest() {
    kube::RestClientOptions client_options;
    client_options.clock = &clock_;
    client_options.max_retries = 0;
    client_ = std::make_unique<kube::RestClient>(&transport_, client_options);
    kube::WatcherOptions watch;
    watch.clock = &clock_;
    watch.uniform = [] { return 0.5; };
    informer_ = NewResourceSliceInformer(client_.get(), watch, dra::DraApiVersion::kV1);
    informer_->AddHandler([this](const dra::ResourceSlice* before,
                                 const dra::ResourceSlice* after) {
      absl::MutexLock lock(&mu_);
      changes_.push_back(absl::StrCat(Id(before), ">", Id(after)));
    });
    informer_->AddUndecodableHandler([this](const kube::UndecodableObject& bad) {
      absl::MutexLock lock(&mu_);
      undecodable_.push_back(absl::StrCat(bad.name, ": ", bad.error.message()));
    });
  }

  kube::WatchSink& sink() { return *informer_; }
  std::vector<std::string> Ids() {
    std::vector<std::string> out;
    for (const auto& s : informer_->store().List()) out.push_back(Id(s.get()));
    return out;
  }
  std::vector<std::string> Changes() {
    absl::MutexLock lock(&mu_);
    return std::exchange(changes_, {});
  }

  runtime::FakeClock clock_;
  FakeTransport transport_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<kube::Informer<dra::ResourceSlice>> informer_;
  absl::Mutex mu_;
  std::vector<std::string> changes_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> undecodable_ ABSL_GUARDED_BY(mu_);
};

TEST_F(SliceInformerTest, ListsDecodeEveryVersionAndRelistsKeepUnchangedSlices) {
  sink().Replace({Slice("a", 1), Slice("b", 1, 1, "resource.k8s.io/v1beta1"),
                  Slice("c", 1, 3, "resource.k8s.io/v1beta2")});
  EXPECT_THAT(Ids(), ElementsAre("a@1", "b@1", "c@1"));
  std::shared_ptr<const dra::ResourceSlice> b = informer_->store().Get("b");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->devices.size(), 1u);
  EXPECT_EQ(b->devices[0].FindAttribute("productName").value().string_value(),
            "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(informer_->store().Get("c")->devices.size(), 3u);
  Changes();

  const std::shared_ptr<const dra::ResourceSlice> a = informer_->store().Get("a");
  sink().Replace({Slice("a", 1), Slice("d", 1)});
  EXPECT_EQ(informer_->store().Get("a"), a);  // same resourceVersion: the cached slice is kept
  EXPECT_THAT(Ids(), ElementsAre("a@1", "d@1"));
  EXPECT_THAT(Changes(), ElementsAre("b@1>-", "c@1>-", "->d@1"));
}

TEST_F(SliceInformerTest, WatchEventsTakeTheRawPath) {
  sink().Replace({Slice("a", 1)});
  Changes();
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kAdded, Slice("b", 1, 1, "resource.k8s.io/v1beta1")
                                                        .dump()));
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kModified, Slice("a", 2).dump(2)));
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kDeleted, Slice("b", 3).dump()));
  // A delete of something the store never had (missed while disconnected) is still announced.
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kDeleted, Slice("z", 1).dump()));
  EXPECT_THAT(Ids(), ElementsAre("a@2"));
  EXPECT_EQ(informer_->raw_fallbacks(), 0);
  EXPECT_THAT(Changes(), ElementsAre("->b@1", "a@1>a@2", "b@1>-", "z@1>-"));
}

TEST_F(SliceInformerTest, SlicesThatDoNotDecodeAreSkippedCountedAndReportedByName) {
  json bad = Slice("bad", 1);
  bad["spec"]["devices"][0]["attributes"]["index"] = {{"int", 1}, {"bool", true}};
  sink().Replace({Slice("a", 1), bad});
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kModified, bad.dump()));
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kAdded, R"({"kind": "ConfigMap"})"));
  EXPECT_THAT(Ids(), ElementsAre("a@1"));
  EXPECT_EQ(informer_->undecodable(), 3);
  EXPECT_THAT(informer_->first_decode_error().message(),
              HasSubstr("spec.devices[0].attributes.index"));
  absl::MutexLock lock(&mu_);
  ASSERT_EQ(undecodable_.size(), 3u);
  EXPECT_THAT(undecodable_[0], ::testing::StartsWith("bad: "));
  EXPECT_THAT(undecodable_[0], HasSubstr("spec.devices[0].attributes.index"));
  EXPECT_EQ(undecodable_[0], undecodable_[1]);  // the raw path words errors as the DOM path
  EXPECT_THAT(undecodable_[2], ::testing::StartsWith(": "));  // no name to report
}

// The cache must not keep serving the older version of a slice whose new version does not
// decode: its devices would count as if nothing had changed.
TEST_F(SliceInformerTest, AVersionThatDoesNotDecodeDropsTheCachedOne) {
  sink().Replace({Slice("a", 1), Slice("b", 1)});
  Changes();
  json bad = Slice("a", 2);
  bad["spec"]["devices"][0]["attributes"]["index"] = {{"int", 1}, {"bool", true}};
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kModified, bad.dump()));
  EXPECT_THAT(Ids(), ElementsAre("b@1"));
  EXPECT_THAT(Changes(), ElementsAre("a@1>-"));
  EXPECT_OK(sink().ApplyRaw(WatchEventType::kModified, Slice("a", 3).dump()));
  EXPECT_THAT(Ids(), ElementsAre("a@3", "b@1"));
  EXPECT_THAT(Changes(), ElementsAre("->a@3"));
}

TEST_F(SliceInformerTest, TextThatIsNotJsonIsTheWatchersProblem) {
  absl::Status s = sink().ApplyRaw(WatchEventType::kAdded, R"({"kind": "ResourceSlice", )");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_EQ(informer_->undecodable(), 0);
  EXPECT_EQ(informer_->store().Size(), 0u);
  EXPECT_THAT(Changes(), IsEmpty());
}

TEST_F(SliceInformerTest, TheWatcherFeedsTheStoreInPagesAndThroughTheRawPath) {
  json list_a = Slice("a", 1), list_b = Slice("b", 1);
  list_a.erase("apiVersion");  // servers omit them in lists; the REST client fills them in
  list_a.erase("kind");
  transport_.Push(JsonReply(200, {{"apiVersion", "resource.k8s.io/v1"},
                                  {"kind", "ResourceSliceList"},
                                  {"metadata", {{"resourceVersion", "10"}}},
                                  {"items", {list_a, list_b}}}));
  Reply watch;
  watch.response.status = 200;
  watch.hold_open = true;
  json modified = Slice("a", 2);
  modified["metadata"]["resourceVersion"] = "11";
  watch.lines = {
      json{{"type", "MODIFIED"}, {"object", modified}}.dump(),
      json{{"type", "BOOKMARK"}, {"object", {{"metadata", {{"resourceVersion", "12"}}}}}}.dump(),
      json{{"type", "DELETED"}, {"object", Slice("b", 1)}}.dump()};
  transport_.Push(watch);
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(absl::InfiniteFuture()));
  transport_.WaitForRequests(2);
  // The watch's events are delivered on the informer's thread; wait for both to be applied.
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (informer_->watcher().stats().events < 2 && absl::Now() < give_up) {
    std::this_thread::yield();
  }
  informer_->Stop();
  EXPECT_THAT(Ids(), ElementsAre("a@2"));
  EXPECT_EQ(informer_->raw_fallbacks(), 0);
  EXPECT_EQ(QueryParam(transport_.requests()[0].path, "limit"), absl::StrCat(kSlicePageSize));
  EXPECT_THAT(Changes(), ElementsAre("->a@1", "->b@1", "a@1>a@2", "b@1>-"));
}

#define ASSERT_EMULATOR(emu) ASSERT_TRUE((emu).ok()) << (emu).error()

TEST(DiscoverDraApiVersionTest, FollowsTheRelease) {
  struct Case {
    std::string release;
    dra::DraApiVersion expected;
  };
  for (const Case& c : {Case{"1.32", dra::DraApiVersion::kV1beta1},
                        Case{"1.33", dra::DraApiVersion::kV1beta2},
                        Case{"1.34", dra::DraApiVersion::kV1}}) {
    kube::testing::KubeEmulator emu({"--kube-version", c.release});
    ASSERT_EMULATOR(emu);
    kube::Discovery discovery(emu.client());
    ASSERT_OK_AND_ASSIGN(dra::DraApiVersion version, DiscoverDraApiVersion(&discovery));
    EXPECT_EQ(version, c.expected) << c.release;
  }
}

json Quota(const std::string& name, const std::string& profile, const std::string& limit) {
  json metadata = {{"name", name}, {"namespace", "batch"}};
  if (!profile.empty()) {
    metadata["labels"] = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                          {"gpuprofile.io/profile", profile}};
  }
  return {{"apiVersion", "v1"},
          {"kind", "ResourceQuota"},
          {"metadata", metadata},
          {"spec", {{"hard", {{"gpu.deviceclass.resource.k8s.io/devices", limit}}}}}};
}

// ResourceQuotas are core/v1: their informer runs with the always-on ones, DRA or not. Only the
// operator's quotas are cached (by "<namespace>/<name>", indexed by profile); every change of one
// moves owned_version (the plan may have to repair it), a change of its profile label moves the
// spec counters too (the engine reads ownership labels), a change of its limits does not.
TEST(ClusterCacheQuotaTest, CachesTheOperatorsQuotasWithoutDra) {
  // The CRDs: the profile and node group informers must sync too.
  kube::testing::KubeEmulator emu(
      {"--kube-version", "1.34", "-f", gpuprofile::testing::SourceDir() + "/crds"});
  ASSERT_EMULATOR(emu);
  const kube::ResourcePath quotas = ResourceQuotasPath().WithNamespace("batch");
  ASSERT_OK(
      emu.client()
          ->Create(NamespacesPath(),
                   {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "batch"}}}})
          .status());
  ASSERT_OK(emu.client()->Create(quotas, Quota("gpu-profile-p", "p", "2")).status());
  ASSERT_OK(emu.client()->Create(quotas, Quota("theirs", "", "5")).status());

  ClusterCacheOptions options;
  options.client = emu.client();
  ClusterCache cache(options);
  cache.Start();
  cache.MarkDraChecked();  // DRA is never enabled here
  ASSERT_TRUE(cache.WaitForSync(absl::Now() + absl::Seconds(20)));
  EXPECT_THAT(cache.quotas().ListKeys(), ElementsAre("batch/gpu-profile-p"));
  ASSERT_OK_AND_ASSIGN(auto of_p, cache.quotas().ByIndex(kByProfileLabel, "p"));
  ASSERT_EQ(of_p.size(), 1u);
  EXPECT_EQ(of_p[0]->hard.at("gpu.deviceclass.resource.k8s.io/devices"), Quantity::FromInt(2));

  const uint64_t owned = cache.owned_version();
  const uint64_t spec = cache.spec_version();
  ASSERT_OK(emu.client()
                ->Patch(quotas.WithName("gpu-profile-p"), kube::PatchType::kMerge,
                        {{"spec", {{"hard", {{"gpu.deviceclass.resource.k8s.io/devices", "3"}}}}}})
                .status());
  // The store is updated before the handlers run (reflector.h), so the counters are polled with
  // the object: reading them right after the store shows the change would race the handlers.
  ASSERT_TRUE(e2e::testing::PollUntil(
      [&] {
        auto q = cache.quotas().Get("batch/gpu-profile-p");
        return q != nullptr &&
               q->hard.at("gpu.deviceclass.resource.k8s.io/devices") == Quantity::FromInt(3) &&
               cache.owned_version() > owned;
      },
      absl::Seconds(20)));
  EXPECT_EQ(cache.spec_version(), spec);

  ASSERT_OK(emu.client()
                ->Patch(quotas.WithName("gpu-profile-p"), kube::PatchType::kMerge,
                        {{"metadata", {{"labels", {{"gpuprofile.io/profile", "q"}}}}}})
                .status());
  ASSERT_TRUE(e2e::testing::PollUntil(
      [&] {
        auto of_q = cache.quotas().ByIndex(kByProfileLabel, "q");
        return of_q.ok() && of_q->size() == 1 && cache.spec_version() > spec;
      },
      absl::Seconds(20)));
  EXPECT_TRUE(cache.HasSynced());
  EXPECT_FALSE(cache.dra_version().has_value());
  cache.Stop();
}

}  // namespace
}  // namespace cluster_cache_test
}  // namespace gpuprofile::reconciler
