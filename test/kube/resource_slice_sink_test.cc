// File: test/kube/resource_slice_sink_test.cc
// ResourceSliceSink: relists and raw watch events land in the store as decoded slices, the
// observers hear every change with the before and after objects, bad slices are skipped and
// counted, text that is not JSON is the watcher's problem; and the whole chain (Watcher ->
// sink -> store) over a scripted transport.
#include "controller/kube/resource_slice_sink.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace {

using json = nlohmann::json;
using runtime::WatchEventType;
using testing::FakeTransport;
using testing::JsonReply;
using testing::QueryParam;
using testing::Reply;

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

struct Observed {
  WatchEventType type;
  std::string now;     // name@generation, or "-"
  std::string before;  // name@generation, or "-"
};

std::string Id(const ResourceSlicePtr& s) {
  return s == nullptr ? "-" : absl::StrCat(s->name, "@", s->pool_generation);
}

class ResourceSliceSinkTest : public ::testing::Test {
 protected:
  ResourceSliceSinkTest() : store_(NewResourceSliceStore()) {
    ResourceSliceSinkOptions options;
    options.on_event = [this](WatchEventType type, ResourceSlicePtr now, ResourceSlicePtr before) {
      absl::MutexLock lock(&mu_);
      events_.push_back({type, Id(now), Id(before)});
    };
    options.on_replace = [this](const std::vector<ResourceSlicePtr>& objects,
                                const std::vector<ResourceSlicePtr>& removed) {
      absl::MutexLock lock(&mu_);
      replaced_.clear();
      for (const auto& o : objects) replaced_.push_back(Id(o));
      removed_.clear();
      for (const auto& o : removed) removed_.push_back(Id(o));
    };
    options.on_undecodable = [this](const absl::Status& status) {
      absl::MutexLock lock(&mu_);
      errors_.push_back(std::string(status.message()));
    };
    sink_ = std::make_unique<ResourceSliceSink>(store_.get(), std::move(options));
  }

  std::vector<std::string> Ids() {
    std::vector<std::string> out;
    for (const auto& s : store_->List()) out.push_back(Id(s));
    return out;
  }

  absl::Mutex mu_;
  std::vector<Observed> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> replaced_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> removed_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> errors_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<runtime::Store<dra::ResourceSlice>> store_;
  std::unique_ptr<ResourceSliceSink> sink_;
};

TEST_F(ResourceSliceSinkTest, ReplaceDecodesEveryVersionAndReportsWhatDisappeared) {
  sink_->Replace({Slice("a", 1), Slice("b", 1, 1, "resource.k8s.io/v1beta1"),
                  Slice("c", 1, 3, "resource.k8s.io/v1beta2")});
  EXPECT_EQ(Ids(), (std::vector<std::string>{"a@1", "b@1", "c@1"}));
  ResourceSlicePtr b = store_->Get("b");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->devices.size(), 1u);
  EXPECT_EQ(b->devices[0].FindAttribute("productName").value().string_value(),
            "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(b->devices[0].node(), "b");
  EXPECT_EQ(store_->Get("c")->devices.size(), 3u);

  sink_->Replace({Slice("a", 2), Slice("d", 1)});
  EXPECT_EQ(Ids(), (std::vector<std::string>{"a@2", "d@1"}));
  absl::MutexLock lock(&mu_);
  EXPECT_EQ(replaced_, (std::vector<std::string>{"a@2", "d@1"}));
  EXPECT_EQ(removed_, (std::vector<std::string>{"b@1", "c@1"}));
  EXPECT_TRUE(events_.empty());
}

TEST_F(ResourceSliceSinkTest, RawEventsUpdateTheStoreAndTheObserverSeesBeforeAndAfter) {
  sink_->Replace({Slice("a", 1)});
  EXPECT_OK(sink_->ApplyRaw(WatchEventType::kAdded, Slice("b", 1).dump()));
  EXPECT_OK(sink_->ApplyRaw(WatchEventType::kModified, Slice("a", 2).dump(2)));
  EXPECT_OK(sink_->ApplyRaw(WatchEventType::kDeleted, Slice("b", 3).dump()));
  // A delete of something the store never had (missed while disconnected) is still reported.
  EXPECT_OK(sink_->ApplyRaw(WatchEventType::kDeleted, Slice("z", 1).dump()));
  EXPECT_EQ(Ids(), std::vector<std::string>{"a@2"});
  EXPECT_EQ(sink_->fallbacks(), 0);
  absl::MutexLock lock(&mu_);
  ASSERT_EQ(events_.size(), 4u);
  EXPECT_EQ(events_[0].type, WatchEventType::kAdded);
  EXPECT_EQ(events_[0].now, "b@1");
  EXPECT_EQ(events_[0].before, "-");
  EXPECT_EQ(events_[1].type, WatchEventType::kModified);
  EXPECT_EQ(events_[1].now, "a@2");
  EXPECT_EQ(events_[1].before, "a@1");
  EXPECT_EQ(events_[2].type, WatchEventType::kDeleted);
  EXPECT_EQ(events_[2].now, "b@3");
  EXPECT_EQ(events_[2].before, "b@1");
  EXPECT_EQ(events_[3].now, "z@1");
  EXPECT_EQ(events_[3].before, "-");
}

TEST_F(ResourceSliceSinkTest, NlohmannEventsTakeTheSamePath) {
  sink_->Apply(WatchEventType::kAdded, Slice("a", 4));
  EXPECT_EQ(Ids(), std::vector<std::string>{"a@4"});
  absl::MutexLock lock(&mu_);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].now, "a@4");
}

TEST_F(ResourceSliceSinkTest, SlicesThatDoNotDecodeAreSkippedAndCounted) {
  json bad = Slice("bad", 1);
  bad["spec"]["devices"][0]["attributes"]["index"] = {{"int", 1}, {"bool", true}};
  sink_->Replace({Slice("a", 1), bad});
  EXPECT_OK(sink_->ApplyRaw(WatchEventType::kAdded, bad.dump()));
  EXPECT_OK(sink_->ApplyRaw(WatchEventType::kAdded, R"({"kind": "ConfigMap"})"));
  EXPECT_EQ(Ids(), std::vector<std::string>{"a@1"});
  EXPECT_EQ(sink_->undecodable(), 3);
  absl::MutexLock lock(&mu_);
  ASSERT_EQ(errors_.size(), 3u);
  EXPECT_NE(errors_[0].find("spec.devices[0].attributes.index"), std::string::npos) << errors_[0];
  EXPECT_EQ(errors_[0], errors_[1]);  // the fast decoder words errors as the strict one
  EXPECT_TRUE(events_.empty());
}

TEST_F(ResourceSliceSinkTest, TextThatIsNotJsonIsTheWatchersProblem) {
  absl::Status s = sink_->ApplyRaw(WatchEventType::kAdded, R"({"kind": "ResourceSlice", )");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_EQ(sink_->undecodable(), 0);
  EXPECT_EQ(store_->Size(), 0u);
}

TEST_F(ResourceSliceSinkTest, WatcherFeedsTheStoreThroughTheRawPath) {
  runtime::FakeClock clock;
  FakeTransport transport;
  RestClientOptions client_options;
  client_options.clock = &clock;
  client_options.max_retries = 0;
  RestClient client(&transport, client_options);
  json list_a = Slice("a", 1), list_b = Slice("b", 1);
  list_a.erase("apiVersion");  // servers omit them in lists; the REST client fills them in
  list_a.erase("kind");
  transport.Push(JsonReply(200, {{"apiVersion", "resource.k8s.io/v1"},
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
  transport.Push(watch);
  WatcherOptions options;
  options.collection = {"resource.k8s.io", "v1", "resourceslices", "", "", ""};
  options.clock = &clock;
  options.uniform = [] { return 0.5; };
  Watcher watcher(&client, sink_.get(), options);
  std::thread thread([&] { watcher.Run(); });
  ASSERT_TRUE(watcher.WaitForSync(absl::InfiniteFuture()));
  transport.WaitForRequests(2);
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (watcher.stats().events < 2 && absl::Now() < give_up) std::this_thread::yield();
  watcher.Stop();
  thread.join();
  EXPECT_EQ(Ids(), std::vector<std::string>{"a@2"});
  EXPECT_EQ(watcher.resource_version(), "1");  // the DELETED object's own version
  EXPECT_EQ(watcher.stats().bookmarks, 1);
  EXPECT_EQ(sink_->fallbacks(), 0);
  absl::MutexLock lock(&mu_);
  EXPECT_EQ(replaced_, (std::vector<std::string>{"a@1", "b@1"}));
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[0].before, "a@1");
  EXPECT_EQ(events_[1].type, WatchEventType::kDeleted);
}

}  // namespace
}  // namespace gpuprofile::kube
