// File: test/kube/watcher_test.cc
// The watcher's state machine over a scripted transport: list then watch, resume from the last
// resourceVersion (bookmarks included), relist on 410 (as an ERROR event or an HTTP status),
// backoff between failures on a FakeClock, undecodable input, Stop; the raw event path (the
// envelope read without a DOM, the object's text handed to WatchSink::ApplyRaw).
#include "controller/kube/watcher.h"

#include "controller/kube/reflector.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "controller/meta/object_meta_codec.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace watcher_test {
namespace {

using testing::ErrorReply;
using testing::FakeTransport;
using testing::JsonReply;
using testing::QueryParam;
using testing::Reply;
using testing::StatusReply;
using testing::WatchReply;

struct Named {
  meta::ObjectMeta metadata;
  std::string value;
};

absl::StatusOr<std::shared_ptr<const Named>> DecodeNamed(const nlohmann::json& j) {
  auto meta = j.find("metadata");
  if (meta == j.end()) return absl::InvalidArgumentError("no metadata");
  absl::StatusOr<meta::ObjectMeta> m = meta::DecodeObjectMeta(*meta);
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
  WatcherTest()
      : sink_(DecodeNamed, runtime::KeyByMeta<Named>([](const Named& n) -> const meta::ObjectMeta& {
                return n.metadata;
              })) {
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
  void Start(WatcherOptions options, WatchSink* sink = nullptr) {
    watcher_ = std::make_unique<Watcher>(client_.get(), sink != nullptr ? sink : &sink_,
                                         std::move(options));
    thread_ = std::thread([this] { watcher_->Run(); });
  }
  void StopAndJoin() {
    if (watcher_) watcher_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  std::vector<std::string> Keys() { return sink_.store().ListKeys(); }
  std::string ValueOf(const std::string& key) {
    auto o = sink_.store().Get(key);
    return o ? o->value : "<none>";
  }

  runtime::FakeClock clock_;
  FakeTransport transport_;
  std::unique_ptr<RestClient> client_;
  Reflector<Named> sink_;
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

// Records what reaches ApplyRaw; Apply must not be called (the watcher parses no DOM).
class RawSink final : public WatchSink {
 public:
  struct Event {
    runtime::WatchEventType type;
    std::string text;
  };
  void Replace(std::vector<nlohmann::json> items) override {}
  void Apply(runtime::WatchEventType type, const nlohmann::json& object) override {
    ADD_FAILURE() << "Apply called instead of ApplyRaw";
  }
  absl::Status ApplyRaw(runtime::WatchEventType type, absl::string_view text) override {
    absl::MutexLock lock(&mu_);
    events_.push_back({type, std::string(text)});
    return absl::OkStatus();
  }
  std::vector<Event> events() const {
    absl::MutexLock lock(&mu_);
    return events_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
};

Reply Lines(std::vector<std::string> lines, bool hold_open) {
  Reply r = WatchReply({}, absl::OkStatus(), hold_open);
  r.lines = std::move(lines);
  return r;
}

TEST_F(WatcherTest, RawPathHandsTheObjectsTextToApplyRawAndReadsOnlyTheEnvelope) {
  const std::string added = R"({"metadata":{"name":"a","resourceVersion":"11"},"value":"x"})";
  // Members in any order, whitespace, a nested resourceVersion that is not the object's.
  const std::string modified =
      R"({"metadata": {"resourceVersion": "12", "name": "b"}, "spec": {"metadata": )"
      R"({"resourceVersion": "999"}}, "s": "\u00e9\"}"})";
  const std::string deleted = R"({"metadata":{"name":"a","resourceVersion":"14"}})";
  transport_.Push(ListReply({}, "10"));
  transport_.Push(Lines(
      {absl::StrCat(R"({"type":"ADDED","object":)", added, "}"),
       absl::StrCat(R"( { "object" : )", modified, "\n , \"type\" : \"MODIFIED\" }  "),
       R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"13"}}})",
       absl::StrCat(R"({"t\u0079pe":"DELETED","extra":[1,{"type":"ADDED"}],"object":)", deleted,
                    "}")},
      /*hold_open=*/false));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  RawSink raw;
  Start(Options(), &raw);
  transport_.WaitForRequests(3);
  EXPECT_EQ(QueryParam(transport_.requests()[2].path, "resourceVersion"), "14");
  StopAndJoin();
  std::vector<RawSink::Event> events = raw.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, runtime::WatchEventType::kAdded);
  EXPECT_EQ(events[0].text, added);
  EXPECT_EQ(events[1].type, runtime::WatchEventType::kModified);
  EXPECT_EQ(events[1].text, modified);
  EXPECT_EQ(events[2].type, runtime::WatchEventType::kDeleted);
  EXPECT_EQ(events[2].text, deleted);
  WatcherStats s = watcher_->stats();
  EXPECT_EQ(s.events, 3);
  EXPECT_EQ(s.bookmarks, 1);
  EXPECT_EQ(s.undecodable, 0);
}

TEST_F(WatcherTest, BookmarksOnTheRawPathAdvanceTheVersionWithoutReachingTheSink) {
  transport_.Push(ListReply({}, "10"));
  transport_.Push(Lines({R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"20"}}})",
                         R"({"object":{"metadata":{"resourceVersion":"21"}},"type":"BOOKMARK"})"},
                        /*hold_open=*/false));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  RawSink raw;
  Start(Options(), &raw);
  transport_.WaitForRequests(3);
  EXPECT_EQ(QueryParam(transport_.requests()[2].path, "resourceVersion"), "21");
  StopAndJoin();
  EXPECT_TRUE(raw.events().empty());
  EXPECT_EQ(watcher_->stats().bookmarks, 2);
  EXPECT_EQ(watcher_->stats().events, 0);
}

TEST_F(WatcherTest, ErrorEventsOnTheRawPath) {
  // 410 as a reason without a code: relist. Another error: a failure, then a watch from the same
  // version (no relist).
  transport_.Push(ListReply({Obj("a", "5")}, "10"));
  transport_.Push(Lines({R"({"type":"ERROR","object":{"kind":"Status","status":"Failure",)"
                         R"("reason":"Gone","message":"gone"}})"},
                        /*hold_open=*/false));
  transport_.Push(ListReply({Obj("a", "16", "relisted")}, "20"));
  transport_.Push(Lines({R"({"type":"ERROR","object":{"kind":"Status","status":"Failure",)"
                         R"("reason":"InternalError","message":"etcd timeout","code":500}})"},
                        /*hold_open=*/false));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  Start(Options());
  transport_.WaitForRequests(5);
  std::vector<HttpRequest> r = transport_.requests();
  EXPECT_FALSE(IsWatch(r[2]));
  EXPECT_EQ(QueryParam(r[4].path, "resourceVersion"), "20");
  EXPECT_EQ(ValueOf("default/a"), "relisted");
  StopAndJoin();
  WatcherStats s = watcher_->stats();
  EXPECT_EQ(s.relists_gone, 1);
  EXPECT_EQ(s.lists, 2);
  EXPECT_EQ(s.failures, 1);
  EXPECT_NE(watcher_->last_error().ToString().find("etcd timeout"), std::string::npos)
      << watcher_->last_error();
}

// Each malformed line is counted once, ends the stream, and the watch resumes from the last
// good version; what follows the bad line is never applied. The Reflector has no raw decoder,
// so it takes the default ApplyRaw, which reports an object that is not JSON.
// ApplyRaw, which reports an object that is not JSON.
TEST(WatcherRawPathTest, MalformedLinesAreUndecodableAndTheStreamResumes) {
  for (const std::string& bad : {
           std::string("{not json"),
           std::string(""),
           std::string("[]"),
           std::string(R"("ADDED")"),
           std::string(R"({"type":"ADDED"})"),
           std::string(R"({"object":{"metadata":{}}})"),
           std::string(R"({"type":"ADDED","object":null})"),
           std::string(R"({"type":"ADDED","object":[]})"),
           std::string(R"({"type":7,"object":{}})"),
           std::string(R"({"type":"ADDED","object":{}} {"x":1})"),
           std::string(R"({"type":"ADDED","object":{"a":1]})"),
           std::string(R"({"type":"ADDED","object":{"a":1})"),
           std::string(R"({"type":"ADDED","object":{"metadata":{"name":"x"},"a":tru}})"),
           std::string(R"({"type":"ADDED","object":{"metadata":{"name":"x"},"a":1.2.3}})"),
           std::string("{\"type\":\"ADDED\",\"object\":{\"a\":\"\xff\"}}"),
           // Nested past limits::kMaxNestingDepth: refused before any parser sees it.
           std::string(R"({"type":"ADDED","object":{"a":)") + std::string(100'000, '['),
       }) {
    SCOPED_TRACE(bad);
    runtime::FakeClock clock;
    FakeTransport transport;
    RestClientOptions client_options;
    client_options.clock = &clock;
    client_options.max_retries = 0;
    RestClient client(&transport, client_options);
    Reflector<Named> sink(
        DecodeNamed, runtime::KeyByMeta<Named>(
                         [](const Named& n) -> const meta::ObjectMeta& { return n.metadata; }));
    transport.Push(ListReply({}, "10"));
    Reply reply = WatchReply({Event("ADDED", Obj("a", "11"))});
    reply.lines.push_back(bad);
    reply.lines.push_back(Event("ADDED", Obj("never", "12")).dump());
    transport.Push(reply);
    transport.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
    WatcherOptions options;
    options.collection = {"", "v1", "configmaps", "default", "", ""};
    options.clock = &clock;
    options.uniform = [] { return 0.5; };
    options.backoff.initial = absl::ZeroDuration();
    Watcher watcher(&client, &sink, options);
    std::thread thread([&] { watcher.Run(); });
    transport.WaitForRequests(3);
    watcher.Stop();
    thread.join();
    EXPECT_EQ(QueryParam(transport.requests()[2].path, "resourceVersion"), "11");
    EXPECT_EQ(sink.store().ListKeys(), std::vector<std::string>{"default/a"});
    WatcherStats stats = watcher.stats();
    EXPECT_EQ(stats.undecodable, 1);
    EXPECT_EQ(stats.events, 1);
    EXPECT_EQ(stats.failures, 1);
    EXPECT_EQ(watcher.last_error().code(), absl::StatusCode::kDataLoss) << watcher.last_error();
  }
}

// Records the list protocol: every call, and the page sizes.
struct PageRecorder final : WatchSink {
  void Replace(std::vector<nlohmann::json> items) override {
    calls.push_back(absl::StrCat("Replace(", items.size(), ")"));
  }
  void BeginList() override { calls.push_back("Begin"); }
  void ListPage(std::vector<nlohmann::json> items) override {
    calls.push_back(absl::StrCat("Page(", items.size(), ")"));
  }
  void EndList() override { calls.push_back("End"); }
  void Apply(runtime::WatchEventType, const nlohmann::json&) override {}
  std::vector<std::string> calls;
};

Reply Page(std::vector<nlohmann::json> items, const std::string& rv, const std::string& next) {
  return JsonReply(200, {{"apiVersion", "v1"},
                         {"kind", "ConfigMapList"},
                         {"metadata", {{"resourceVersion", rv}, {"continue", next}}},
                         {"items", items}});
}

TEST_F(WatcherTest, ListPagesReachTheSinkOneByOneAndAnExpiredContinueTokenStartsOver) {
  transport_.Push(Page({Obj("a", "1"), Obj("b", "2")}, "10", "token-1"));
  transport_.Push(StatusReply(410, "Expired", "continue token expired"));
  transport_.Push(Page({Obj("a", "1"), Obj("b", "2")}, "20", "token-2"));
  transport_.Push(Page({Obj("c", "3")}, "20", ""));
  transport_.Push(WatchReply({}, absl::OkStatus(), /*hold_open=*/true));
  PageRecorder recorder;
  WatcherOptions options = Options();
  options.page_size = 2;
  Start(options, &recorder);
  ASSERT_TRUE(watcher_->WaitForSync(absl::InfiniteFuture()));
  EXPECT_EQ(recorder.calls, (std::vector<std::string>{"Begin", "Page(2)", "Begin", "Page(2)",
                                                       "Page(1)", "End"}));
  EXPECT_EQ(watcher_->resource_version(), "20");
  std::vector<HttpRequest> r = transport_.requests();
  ASSERT_GE(r.size(), 4u);
  EXPECT_EQ(QueryParam(r[1].path, "continue"), "token-1");
  EXPECT_EQ(QueryParam(r[2].path, "continue"), "");
  EXPECT_EQ(QueryParam(r[3].path, "continue"), "token-2");
  StopAndJoin();
}

TEST_F(WatcherTest, AListThatFailsPartWayLeavesTheStoreAsItWas) {
  transport_.Push(ListReply({Obj("a", "1")}, "10"));
  // The watch makes progress, then its version expires: relist at once.
  transport_.Push(WatchReply({Event("MODIFIED", Obj("a", "11", "kept")),
                              Event("ERROR", {{"kind", "Status"}, {"code", 410}})}));
  transport_.Push(Page({Obj("b", "2")}, "20", "token-1"));
  transport_.Push(StatusReply(500, "InternalError", "boom"));  // second page fails
  // With backoff on the fake clock, the watcher then waits (the clock never moves).
  Start(Options(/*no_backoff=*/false));
  ASSERT_TRUE(watcher_->WaitForSync(absl::InfiniteFuture()));
  transport_.WaitForRequests(4);
  ASSERT_TRUE(Eventually([&] { return watcher_->stats().failures >= 1; }));
  // The store is as the watch left it; the half-read relist changed nothing.
  EXPECT_EQ(Keys(), std::vector<std::string>{"default/a"});
  EXPECT_EQ(ValueOf("default/a"), "kept");
  StopAndJoin();
}

// A sink with only Replace and Apply: the WatchSink defaults do the rest.
struct MinimalSink final : WatchSink {
  void Replace(std::vector<nlohmann::json> items) override {
    replaced.clear();
    for (const nlohmann::json& item : items) replaced.push_back(item["metadata"]["name"]);
  }
  void Apply(runtime::WatchEventType, const nlohmann::json& object) override {
    applied.push_back(object.dump());
  }
  std::vector<std::string> replaced;
  std::vector<std::string> applied;
};

TEST(WatchSinkTest, DefaultListProtocolCollectsThePagesIntoOneReplace) {
  MinimalSink sink;
  WatchSink& base = sink;
  base.Replace({Obj("old", "1")});
  base.BeginList();
  base.ListPage({Obj("stale", "1")});
  base.BeginList();  // the list started over: the first page is dropped
  base.ListPage({Obj("a", "1")});
  base.ListPage({Obj("b", "2")});
  EXPECT_EQ(sink.replaced, std::vector<std::string>{"old"});  // nothing changes before EndList
  base.EndList();
  EXPECT_EQ(sink.replaced, (std::vector<std::string>{"a", "b"}));
}

TEST(WatchSinkTest, DefaultApplyRawParsesAndCallsApply) {
  MinimalSink sink;
  WatchSink& base = sink;
  EXPECT_OK(base.ApplyRaw(runtime::WatchEventType::kAdded, Obj("a", "1", "v").dump()));
  EXPECT_EQ(sink.applied, std::vector<std::string>{Obj("a", "1", "v").dump()});
  EXPECT_EQ(base.ApplyRaw(runtime::WatchEventType::kAdded, "{\"a\":").code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(base.ApplyRaw(runtime::WatchEventType::kAdded, "[1]").code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(sink.applied.size(), 1u);
}

}  // namespace
}  // namespace watcher_test
}  // namespace gpuprofile::kube
