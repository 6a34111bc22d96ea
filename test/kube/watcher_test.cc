// File: test/kube/watcher_test.cc
// The watcher's state machine over a scripted transport: list then watch, resume from the last
// resourceVersion (bookmarks included), relist on 410 (as an ERROR event or an HTTP status),
// backoff between failures on a FakeClock, undecodable input, Stop.
#include "controller/kube/watcher.h"

#include <thread>

#include "absl/time/clock.h"
#include "controller/api/object_meta_codec.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace {

using testing::ErrorReply;
using testing::FakeTransport;
using testing::JsonReply;
using testing::QueryParam;
using testing::Reply;
using testing::StatusReply;
using testing::WatchReply;

struct Named {
  api::ObjectMeta metadata;
  std::string value;
};

absl::StatusOr<std::shared_ptr<const Named>> DecodeNamed(const nlohmann::json& j) {
  auto meta = j.find("metadata");
  if (meta == j.end()) return absl::InvalidArgumentError("no metadata");
  absl::StatusOr<api::ObjectMeta> m = api::DecodeObjectMeta(*meta);
  if (!m.ok()) return m.status();
  auto out = std::make_shared<Named>();
  out->metadata = *m;
  out->value = j.value("value", "");
  return std::shared_ptr<const Named>(std::move(out));
}

nlohmann::json Obj(const std::string& name, const std::string& rv, const std::string& value = "") {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}},
          {"value", value}};
}

nlohmann::json Event(const std::string& type, const nlohmann::json& object) {
  return {{"type", type}, {"object", object}};
}

Reply ListReply(std::vector<nlohmann::json> items, const std::string& rv) {
  return JsonReply(200, {{"apiVersion", "v1"},
                         {"kind", "ConfigMapList"},
                         {"metadata", {{"resourceVersion", rv}}},
                         {"items", items}});
}

bool IsWatch(const HttpRequest& r) { return QueryParam(r.path, "watch") == "true"; }

// Polls `cond` until it holds or 10 s of real time pass.
template <typename F>
bool Eventually(F cond) {
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (absl::Now() < give_up) {
    if (cond()) return true;
    std::this_thread::yield();
  }
  return cond();
}

class WatcherTest : public ::testing::Test {
 protected:
  WatcherTest() : store_(runtime::KeyByMeta<Named>([](const Named& n) -> const api::ObjectMeta& {
                    return n.metadata;
                  })),
                  sink_(&store_, DecodeNamed) {
    RestClientOptions o;
    o.clock = &clock_;
    o.max_retries = 0;  // failures go to the watcher's backoff
    client_ = std::make_unique<RestClient>(&transport_, o);
  }
  ~WatcherTest() override { StopAndJoin(); }

  WatcherOptions Options(bool no_backoff = true) {
    WatcherOptions o;
    o.collection = {"", "v1", "configmaps", "default", "", ""};
    o.clock = &clock_;
    o.uniform = [] { return 0.5; };
    if (no_backoff) o.backoff.initial = absl::ZeroDuration();
    return o;
  }
  void Start(WatcherOptions options) {
    watcher_ = std::make_unique<Watcher>(client_.get(), &sink_, std::move(options));
    thread_ = std::thread([this] { watcher_->Run(); });
  }
  void StopAndJoin() {
    if (watcher_) watcher_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  std::vector<std::string> Keys() { return store_.ListKeys(); }
  std::string ValueOf(const std::string& key) {
    auto o = store_.Get(key);
    return o ? o->value : "<none>";
  }

  runtime::FakeClock clock_;
  FakeTransport transport_;
  std::unique_ptr<RestClient> client_;
  runtime::Store<Named> store_;
  StoreSink<Named> sink_;
  std::unique_ptr<Watcher> watcher_;
  std::thread thread_;
};

TEST_F(WatcherTest, ListsThenWatchesAndResumesFromTheLastVersionSeen) {
  transport_.Push(ListReply({Obj("a", "5"), Obj("b", "6")}, "10"));
  transport_.Push(WatchReply({Event("MODIFIED", Obj("a", "11", "new")),
                              Event("BOOKMARK", {{"metadata", {{"resourceVersion", "12"}}}})}));
  transport_.Push(WatchReply({Event("DELETED", Obj("b", "13"))}, absl::OkStatus(),
                             /*hold_open=*/true));
  Start(Options());
  ASSERT_TRUE(watcher_->WaitForSync(absl::InfiniteFuture()));
  transport_.WaitForRequests(3);
  ASSERT_TRUE(Eventually([&] { return Keys() == std::vector<std::string>{"default/a"}; }));
  EXPECT_EQ(ValueOf("default/a"), "new");
  std::vector<HttpRequest> r = transport_.requests();
  EXPECT_EQ(QueryParam(r[0].path, "limit"), "500");
  EXPECT_FALSE(IsWatch(r[0]));
  EXPECT_EQ(QueryParam(r[1].path, "resourceVersion"), "10");
  EXPECT_EQ(QueryParam(r[1].path, "allowWatchBookmarks"), "true");
  EXPECT_EQ(QueryParam(r[1].path, "timeoutSeconds"), "300");
  EXPECT_EQ(r[1].timeout, absl::Seconds(330));  // idle detection: timeoutSeconds + 30 s
  EXPECT_EQ(QueryParam(r[2].path, "resourceVersion"), "12");  // from the bookmark
  EXPECT_TRUE(Eventually([&] { return watcher_->resource_version() == "13"; }));
  StopAndJoin();
  WatcherStats s = watcher_->stats();
  EXPECT_EQ(s.lists, 1);
  EXPECT_EQ(s.events, 2);
  EXPECT_EQ(s.bookmarks, 1);
  EXPECT_EQ(s.failures, 0);
}

TEST_F(WatcherTest, ErrorEventWith410RelistsAndDropsObjectsDeletedMeanwhile) {
  transport_.Push(ListReply({Obj("a", "5"), Obj("b", "6")}, "10"));
  transport_.Push(WatchReply({Event("ERROR", {{"kind", "Status"},
                                              {"status", "Failure"},
                                              {"reason", "Expired"},
                                              {"message", "too old resource version: 10 (15)"},
                                              {"code", 410}})}));
  transport_.Push(ListReply({Obj("a", "16", "relisted")}, "20"));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  Start(Options());
  transport_.WaitForRequests(4);
  EXPECT_EQ(Keys(), std::vector<std::string>{"default/a"});
  EXPECT_EQ(ValueOf("default/a"), "relisted");
  std::vector<HttpRequest> r = transport_.requests();
  EXPECT_FALSE(IsWatch(r[2]));
  EXPECT_EQ(QueryParam(r[3].path, "resourceVersion"), "20");
  StopAndJoin();
  EXPECT_EQ(watcher_->stats().relists_gone, 1);
  EXPECT_EQ(watcher_->stats().lists, 2);
}

TEST_F(WatcherTest, Http410OnTheWatchRequestRelistsToo) {
  transport_.Push(ListReply({Obj("a", "5")}, "10"));
  transport_.Push(StatusReply(410, "Gone", "too old"));
  transport_.Push(ListReply({}, "30"));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  Start(Options());
  transport_.WaitForRequests(4);
  EXPECT_TRUE(Keys().empty());
  EXPECT_EQ(QueryParam(transport_.requests()[3].path, "resourceVersion"), "30");
}

TEST_F(WatcherTest, BacksOffBetweenFailuresAndResetsAfterProgress) {
  transport_.Push(StatusReply(500, "InternalError", "etcd down"));
  transport_.Push(ErrorReply(absl::UnavailableError("connection refused")));
  transport_.Push(ListReply({Obj("a", "5")}, "10"));
  // The list succeeded: back to 0.8 s for the watch that fails without a word.
  transport_.Push(ErrorReply(absl::DeadlineExceededError("idle")));
  // A watch that delivered an event and then broke: reset, so 0.8 s again (not 1.6 s).
  transport_.Push(WatchReply({Event("ADDED", Obj("b", "11"))}, absl::UnavailableError("reset")));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  Start(Options(/*no_backoff=*/false));
  absl::Time at = clock_.Now();
  for (absl::Duration d : {absl::Milliseconds(800), absl::Milliseconds(1600),
                           absl::Milliseconds(800), absl::Milliseconds(800)}) {
    at += d;
    ASSERT_TRUE(Eventually([&] { return clock_.EarliestDeadline() == at; }))
        << "expected a wait until " << at;
    clock_.SetTime(at);
  }
  transport_.WaitForRequests(6);
  EXPECT_EQ(QueryParam(transport_.requests()[5].path, "resourceVersion"), "11");
  EXPECT_EQ(Keys(), (std::vector<std::string>{"default/a", "default/b"}));
  StopAndJoin();
  EXPECT_EQ(watcher_->stats().failures, 4);
  EXPECT_FALSE(watcher_->last_error().ok());
}

TEST_F(WatcherTest, CorruptLineEndsTheStreamAndResumesFromTheLastGoodVersion) {
  transport_.Push(ListReply({}, "10"));
  Reply corrupt = WatchReply({Event("ADDED", Obj("a", "11"))});
  corrupt.lines.push_back("{not json");
  corrupt.lines.push_back(Event("ADDED", Obj("never", "12")).dump());
  transport_.Push(corrupt);
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  Start(Options());
  transport_.WaitForRequests(3);
  EXPECT_EQ(QueryParam(transport_.requests()[2].path, "resourceVersion"), "11");
  EXPECT_EQ(Keys(), std::vector<std::string>{"default/a"});
  StopAndJoin();
  EXPECT_EQ(watcher_->stats().undecodable, 1);
}

TEST_F(WatcherTest, ObjectsThatDoNotDecodeAreSkipped) {
  transport_.Push(ListReply({Obj("a", "1"), {{"no", "metadata"}}}, "10"));
  transport_.Push(WatchReply({Event("ADDED", {{"metadata", {{"labels", 7}}}})}, absl::OkStatus(),
                             /*hold_open=*/true));
  Start(Options());
  transport_.WaitForRequests(2);
  EXPECT_EQ(Keys(), std::vector<std::string>{"default/a"});
}

TEST_F(WatcherTest, StopEndsAnOpenWatchAndStopBeforeRunReturnsAtOnce) {
  transport_.Push(ListReply({}, "1"));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  Start(Options());
  transport_.WaitForRequests(2);
  EXPECT_TRUE(watcher_->HasSynced());
  StopAndJoin();  // returns: the held stream was cancelled

  Watcher idle(client_.get(), &sink_, Options());
  idle.Stop();
  idle.Run();
  EXPECT_FALSE(idle.HasSynced());
}

}  // namespace
}  // namespace gpuprofile::kube
