// File: test/kube/watcher_emulator_test.cc
// The watcher against the real kube-emulator over HTTP: the store must end equal to the server's
// content (every key at the server's resourceVersion) through writes, dropped watches, a forced
// compaction (410 -> relist) and periodic drops injected as a fault, and no object may ever be
// reported deleted (by a DELETED event or by disappearing in a relist) while it still exists.
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "controller/meta/object_meta_codec.h"
#include "controller/kube/api_error.h"
#include "controller/kube/watcher.h"
#include "gtest/gtest.h"
#include "test/kube/testing/kube_emulator.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace watcher_emulator_test {
namespace {

using testing::KubeEmulator;

const ResourcePath kConfigMaps{"", "v1", "configmaps", "default", "", ""};

struct ConfigMapLite {
  meta::ObjectMeta metadata;
};

const meta::ObjectMeta& MetaOf(const ConfigMapLite& c) { return c.metadata; }

absl::StatusOr<std::shared_ptr<const ConfigMapLite>> Decode(const nlohmann::json& j) {
  auto meta = j.find("metadata");
  if (meta == j.end()) return absl::InvalidArgumentError("no metadata");
  absl::StatusOr<meta::ObjectMeta> m = meta::DecodeObjectMeta(*meta);
  if (!m.ok()) return m.status();
  auto out = std::make_shared<ConfigMapLite>();
  out->metadata = *std::move(m);
  return std::shared_ptr<const ConfigMapLite>(std::move(out));
}

// Feeds the store and remembers every key it was told is gone.
class RecordingSink final : public WatchSink {
 public:
  explicit RecordingSink(runtime::Store<ConfigMapLite>* store) : store_(store) {}

  void Replace(std::vector<nlohmann::json> items) override {
    std::vector<std::shared_ptr<const ConfigMapLite>> objects;
    for (const nlohmann::json& item : items) {
      if (auto o = Decode(item); o.ok()) objects.push_back(*o);
    }
    for (const auto& removed : store_->Replace(std::move(objects))) {
      Record(runtime::MetaNamespaceKey(removed->metadata));
    }
  }
  void Apply(runtime::WatchEventType type, const nlohmann::json& object) override {
    absl::StatusOr<std::shared_ptr<const ConfigMapLite>> o = Decode(object);
    if (!o.ok()) return;
    if (type == runtime::WatchEventType::kDeleted) Record(runtime::MetaNamespaceKey((*o)->metadata));
    store_->Apply({type, *o});
  }
  std::set<std::string> deleted() const {
    absl::MutexLock lock(&mu_);
    return deleted_;
  }

 private:
  void Record(const std::string& key) {
    absl::MutexLock lock(&mu_);
    deleted_.insert(key);
  }
  runtime::Store<ConfigMapLite>* const store_;
  mutable absl::Mutex mu_;
  std::set<std::string> deleted_ ABSL_GUARDED_BY(mu_);
};

class WatcherEmulatorTest : public ::testing::Test {
 protected:
  WatcherEmulatorTest()
      : emu_({"--bookmark-interval", "200ms"}),
        store_(runtime::KeyByMeta<ConfigMapLite>(&MetaOf)),
        sink_(&store_) {}

  void SetUp() override {
    ASSERT_TRUE(emu_.ok()) << emu_.error();
    client_ = emu_.client();
  }
  void TearDown() override {
    if (watcher_) watcher_->Stop();
    if (thread_.joinable()) thread_.join();
  }

  void StartWatcher() {
    WatcherOptions o;
    o.collection = kConfigMaps;
    o.page_size = 4;  // the (re)lists page
    o.timeout_seconds = 60;
    o.backoff = {absl::Milliseconds(5), absl::Milliseconds(50), 2.0, 1.0};
    watcher_ = std::make_unique<Watcher>(client_, &sink_, o);
    thread_ = std::thread([this] { watcher_->Run(); });
    ASSERT_TRUE(watcher_->WaitForSync(absl::Now() + absl::Seconds(20)))
        << watcher_->last_error();
  }

  std::map<std::string, std::string> ServerState() {
    absl::StatusOr<ObjectList> list = client_->ListAll(kConfigMaps, {});
    EXPECT_TRUE(list.ok()) << list.status();
    std::map<std::string, std::string> out;
    if (!list.ok()) return out;
    for (const nlohmann::json& item : list->items) {
      out[absl::StrCat("default/", item["metadata"]["name"].get<std::string>())] =
          item["metadata"]["resourceVersion"];
    }
    return out;
  }
  std::map<std::string, std::string> StoreState() {
    std::map<std::string, std::string> out;
    for (const auto& o : store_.List()) {
      out[runtime::MetaNamespaceKey(o->metadata)] = o->metadata.resource_version;
    }
    return out;
  }
  // Polls (every 10 ms, up to 20 s) until the store equals the server's content.
  ::testing::AssertionResult Converges() {
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    std::map<std::string, std::string> server, cached;
    do {
      server = ServerState();
      cached = StoreState();
      if (server == cached) return ::testing::AssertionSuccess();
      absl::SleepFor(absl::Milliseconds(10));
    } while (absl::Now() < give_up);
    return ::testing::AssertionFailure()
           << "store has " << cached.size() << " objects, server " << server.size()
           << "; last error: " << watcher_->last_error();
  }
  // No key reported deleted exists on the server (names are never reused in these tests).
  void ExpectNoFalseDeletes() {
    for (const std::string& key : sink_.deleted()) {
      std::string name = key.substr(key.find('/') + 1);
      absl::Status s = client_->Get(kConfigMaps.WithName(name)).status();
      EXPECT_TRUE(apierrors::IsNotFound(s)) << key << " was reported deleted but exists";
    }
  }

  void Create(const std::string& name) {
    ASSERT_OK(client_->Create(kConfigMaps, {{"apiVersion", "v1"},
                                            {"kind", "ConfigMap"},
                                            {"metadata", {{"name", name}}},
                                            {"data", {{"v", "0"}}}}));
  }
  void Touch(const std::string& name, int v) {
    ASSERT_OK(client_->Patch(kConfigMaps.WithName(name), PatchType::kMerge,
                             {{"data", {{"v", absl::StrCat(v)}}}}));
  }
  void Remove(const std::string& name) { ASSERT_OK(client_->Delete(kConfigMaps.WithName(name))); }

  KubeEmulator emu_;
  RestClient* client_ = nullptr;
  runtime::Store<ConfigMapLite> store_;
  RecordingSink sink_;
  std::unique_ptr<Watcher> watcher_;
  std::thread thread_;
};

TEST_F(WatcherEmulatorTest, StoreFollowsWritesAcrossDroppedWatchesAndCompaction) {
  for (int i = 0; i < 10; ++i) Create(absl::StrCat("pre-", i));
  StartWatcher();
  EXPECT_EQ(store_.Size(), 10u);

  // Writes over the live watch.
  for (int i = 0; i < 5; ++i) Create(absl::StrCat("live-", i));
  Touch("pre-0", 1);
  Remove("pre-1");
  ASSERT_TRUE(Converges());
  EXPECT_EQ(watcher_->stats().lists, 1);

  // Dropped watches: resumed from the last version seen, no relist needed.
  ASSERT_OK(emu_.DropWatches());
  Create("after-drop");
  Touch("pre-2", 2);
  Remove("pre-3");
  ASSERT_OK(emu_.DropWatches());
  Touch("pre-4", 4);
  ASSERT_TRUE(Converges());
  EXPECT_EQ(watcher_->stats().lists, 1);
  EXPECT_GE(watcher_->stats().watches, 2);

  // Compaction, then a drop: resuming gets 410, the watcher lists again.
  ASSERT_OK(emu_.Compact());
  ASSERT_OK(emu_.DropWatches());
  Remove("pre-5");
  Create("after-compact");
  ASSERT_TRUE(Converges());
  EXPECT_GE(watcher_->stats().relists_gone, 1);
  EXPECT_GE(watcher_->stats().lists, 2);
  ExpectNoFalseDeletes();
  EXPECT_EQ(sink_.deleted(),
            (std::set<std::string>{"default/pre-1", "default/pre-3", "default/pre-5"}));
}

TEST_F(WatcherEmulatorTest, SurvivesPeriodicDropsAndCompactionUnderConstantWrites) {
  for (int i = 0; i < 6; ++i) Create(absl::StrCat("base-", i));
  StartWatcher();
  ASSERT_OK(emu_.SetFaults("drop-watches-every=150ms"));
  int next = 0;
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 5; ++i) Create(absl::StrCat("obj-", next++));
    Touch(absl::StrCat("obj-", next - 3), round);
    Remove(absl::StrCat("obj-", next - 5));
    if (round == 3) {
      ASSERT_OK(emu_.Compact());
    }
    // Let a drop and a reconnect land between the rounds (polling, with a deadline).
    const int64_t watches = watcher_->stats().watches;
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (watcher_->stats().watches == watches && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(5));
    }
  }
  ASSERT_OK(emu_.SetFaults(""));
  ASSERT_TRUE(Converges());
  ExpectNoFalseDeletes();
  EXPECT_GE(watcher_->stats().watches, 7);
  EXPECT_GE(watcher_->stats().relists_gone, 1);
}

TEST_F(WatcherEmulatorTest, BookmarksAdvanceTheVersionOfAQuietWatch) {
  StartWatcher();
  const std::string listed = watcher_->resource_version();
  // Another collection moves the global resourceVersion; bookmarks carry it to this watch.
  ASSERT_OK(client_->Create({"", "v1", "namespaces", "", "", ""},
                            {{"apiVersion", "v1"}, {"kind", "Namespace"},
                             {"metadata", {{"name", "elsewhere"}}}}));
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (watcher_->stats().bookmarks == 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_GT(watcher_->stats().bookmarks, 0);
  EXPECT_NE(watcher_->resource_version(), listed);
}

}  // namespace
}  // namespace watcher_emulator_test
}  // namespace gpuprofile::kube
