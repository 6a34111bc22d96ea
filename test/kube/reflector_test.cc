// File: test/kube/reflector_test.cc
// kube::Reflector, the one decode -> store -> fan-out path of every cache, fed as a WatchSink
// directly (no server, no thread): lists decoded page by page and swapped at EndList, relists
// keeping unchanged objects (SetVersionOf); the raw path (raw decoder, fallback to the DOM path,
// text that is not JSON); undecodable objects counted and reported; handlers' order.
#include "controller/kube/reflector.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/meta/object_meta_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace reflector_test {
namespace {

using runtime::WatchEventType;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

struct Obj {
  meta::ObjectMeta metadata;
  std::string value;
};

// The DOM decoder: needs metadata.name and a string "value".
absl::StatusOr<std::shared_ptr<const Obj>> Decode(const nlohmann::json& j) {
  if (!j.contains("metadata")) return absl::InvalidArgumentError("no metadata");
  absl::StatusOr<meta::ObjectMeta> meta = meta::DecodeObjectMeta(j.at("metadata"));
  if (!meta.ok()) return meta.status();
  auto value = j.find("value");
  if (value == j.end() || !value->is_string()) return absl::InvalidArgumentError("value: bad");
  return std::make_shared<const Obj>(Obj{*std::move(meta), value->get<std::string>()});
}

nlohmann::json Item(const std::string& name, const std::string& rv, const std::string& value) {
  return {{"metadata", {{"name", name}, {"resourceVersion", rv}}}, {"value", value}};
}

std::string Name(const Obj* o) { return o != nullptr ? o->value : "-"; }

class ReflectorTest : public ::testing::Test {
 protected:
  explicit ReflectorTest(bool by_version = true)
      : reflector_(
            [this](const nlohmann::json& j) {
              ++dom_calls_;
              return Decode(j);
            },
            runtime::KeyByMeta<Obj>(
                [](const Obj& o) -> const meta::ObjectMeta& { return o.metadata; })) {
    if (by_version) {
      reflector_.SetVersionOf(
          [](const Obj& o) -> absl::string_view { return o.metadata.resource_version; });
    }
    reflector_.AddHandler([this](const Obj* before, const Obj* after) {
      changes_.push_back(absl::StrCat(Name(before), ">", Name(after)));
    });
    reflector_.AddUndecodableHandler([this](const UndecodableObject& bad) {
      undecodable_.push_back(absl::StrCat(static_cast<int>(bad.source), ":", bad.namespace_name,
                                          "/", bad.name, ":", bad.error.message()));
    });
  }

  // A raw decoder that reads the text itself (here with nlohmann, standing in for a fast parser)
  // and refuses objects marked "raw": false, as a fast path refuses what it does not handle.
  void UseRawDecoder() {
    reflector_.SetRawDecoder(
        [this](absl::string_view text) -> absl::StatusOr<std::shared_ptr<const Obj>> {
          ++raw_calls_;
          raw_texts_.emplace_back(text);
          nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
          if (!j.is_object() || j.value("raw", true) == false) {
            return absl::UnimplementedError("not for the raw path");
          }
          absl::StatusOr<std::shared_ptr<const Obj>> decoded = Decode(j);
          if (!decoded.ok()) return decoded.status();
          Obj copy = **decoded;
          copy.value = absl::StrCat("raw:", copy.value);
          return std::make_shared<const Obj>(std::move(copy));
        });
  }

  void List(std::vector<std::vector<nlohmann::json>> pages) {
    WatchSink& sink = reflector_;
    sink.BeginList();
    for (auto& page : pages) sink.ListPage(std::move(page));
    sink.EndList();
  }
  absl::Status Raw(WatchEventType type, const nlohmann::json& object) {
    return static_cast<WatchSink&>(reflector_).ApplyRaw(type, object.dump());
  }
  std::string ValueOf(const std::string& key) {
    std::shared_ptr<const Obj> o = reflector_.store().Get(key);
    return o != nullptr ? o->value : "<none>";
  }
  // After ListOnePageWithABadAndABrokenItem: both skipped, counted and reported as listed.
  void ExpectTheBadAndTheBrokenItemSkipped() {
    EXPECT_EQ(reflector_.undecodable(), 2);
    EXPECT_THAT(undecodable_,
                ElementsAre("0:/bad:value: bad",
                            "0:/:a list item is not valid JSON: "
                            R"({"metadata":{"name":"broken"},"value":tru})"));
    EXPECT_THAT(reflector_.store().ListKeys(), ElementsAre("a", "b"));
  }

  Reflector<Obj> reflector_;
  int dom_calls_ = 0;
  int raw_calls_ = 0;
  std::vector<std::string> raw_texts_;  // what the raw decoder was given
  std::vector<std::string> changes_;
  std::vector<std::string> undecodable_;
};

TEST_F(ReflectorTest, ARelistKeepsUnchangedObjectsAndAnnouncesOnlyChanges) {
  List({{Item("a", "1", "a1"), Item("b", "2", "b2")}, {Item("c", "3", "c3")}});
  EXPECT_THAT(changes_, ElementsAre("->a1", "->b2", "->c3"));
  const std::shared_ptr<const Obj> a = reflector_.store().Get("a");
  changes_.clear();

  // a unchanged, b modified, c deleted, d added; over two pages. What disappeared is announced
  // first, then the rest in list order.
  List({{Item("a", "1", "a1"), Item("b", "4", "b4")}, {Item("d", "5", "d5")}});
  EXPECT_EQ(reflector_.store().Get("a"), a);  // the cached object itself, not a new copy
  EXPECT_EQ(ValueOf("b"), "b4");
  EXPECT_EQ(reflector_.store().Get("c"), nullptr);
  EXPECT_THAT(changes_, ElementsAre("c3>-", "b2>b4", "->d5"));
}

TEST_F(ReflectorTest, NothingChangesBeforeEndListAndARestartDropsThePagesSoFar) {
  List({{Item("a", "1", "a1")}});
  changes_.clear();
  WatchSink& sink = reflector_;
  sink.BeginList();
  sink.ListPage({Item("a", "2", "a2"), Item("x", "3", "x3")});
  EXPECT_EQ(ValueOf("a"), "a1");
  EXPECT_THAT(changes_, IsEmpty());
  sink.BeginList();  // the list started over (expired continue token)
  sink.ListPage({Item("a", "2", "a2")});
  sink.EndList();
  EXPECT_EQ(reflector_.store().Get("x"), nullptr);
  EXPECT_THAT(changes_, ElementsAre("a1>a2"));
}

class ReflectorWithoutVersionsTest : public ReflectorTest {
 protected:
  ReflectorWithoutVersionsTest() : ReflectorTest(/*by_version=*/false) {}
};

TEST_F(ReflectorWithoutVersionsTest, EveryListedObjectIsAnnouncedWithWhatItReplaces) {
  List({{Item("a", "1", "a1")}});
  changes_.clear();
  List({{Item("a", "1", "a1"), Item("b", "2", "b2")}});
  EXPECT_THAT(changes_, ElementsAre("a1>a1", "->b2"));
}

TEST_F(ReflectorTest, AnEmptyResourceVersionIsNeverTakenAsUnchanged) {
  List({{Item("a", "", "old")}});
  changes_.clear();
  List({{Item("a", "", "new")}});
  EXPECT_EQ(ValueOf("a"), "new");
  EXPECT_THAT(changes_, ElementsAre("old>new"));
}

TEST_F(ReflectorTest, WatchEventsUpdateTheStoreAndHandlersHearBeforeAndAfter) {
  WatchSink& sink = reflector_;
  sink.Apply(WatchEventType::kAdded, Item("a", "1", "a1"));
  sink.Apply(WatchEventType::kModified, Item("a", "2", "a2"));
  // A delete announces the cached object (its last state), not the event's copy.
  sink.Apply(WatchEventType::kDeleted, Item("a", "3", "final"));
  // A delete of an object never seen: announced with the event's copy.
  sink.Apply(WatchEventType::kDeleted, Item("z", "4", "z4"));
  EXPECT_THAT(changes_, ElementsAre("->a1", "a1>a2", "a2>-", "z4>-"));
  EXPECT_EQ(reflector_.store().Size(), 0u);
}

TEST_F(ReflectorTest, WithoutARawDecoderRawEventsTakeTheDomPath) {
  ASSERT_OK(Raw(WatchEventType::kAdded, Item("a", "1", "a1")));
  EXPECT_EQ(ValueOf("a"), "a1");
  EXPECT_EQ(dom_calls_, 1);
  EXPECT_EQ(reflector_.raw_fallbacks(), 0);
}

TEST_F(ReflectorTest, TheRawDecoderDecodesWatchEventsWithoutTheDomPath) {
  UseRawDecoder();
  ASSERT_OK(Raw(WatchEventType::kAdded, Item("a", "1", "a1")));
  ASSERT_OK(Raw(WatchEventType::kModified, Item("a", "2", "a2")));
  EXPECT_EQ(ValueOf("a"), "raw:a2");
  EXPECT_EQ(raw_calls_, 2);
  EXPECT_EQ(dom_calls_, 0);
  EXPECT_EQ(reflector_.raw_fallbacks(), 0);
  EXPECT_THAT(changes_, ElementsAre("->raw:a1", "raw:a1>raw:a2"));
}

TEST_F(ReflectorTest, WhatTheRawDecoderRefusesFallsBackToTheDomPath) {
  UseRawDecoder();
  nlohmann::json refused = Item("a", "1", "a1");
  refused["raw"] = false;
  ASSERT_OK(Raw(WatchEventType::kAdded, refused));
  EXPECT_EQ(ValueOf("a"), "a1");  // decoded by the DOM decoder
  EXPECT_EQ(raw_calls_, 1);
  EXPECT_EQ(dom_calls_, 1);
  EXPECT_EQ(reflector_.raw_fallbacks(), 1);
  EXPECT_EQ(reflector_.undecodable(), 0);
  EXPECT_THAT(changes_, ElementsAre("->a1"));
}

// A relist of one page as text: item "a", `second`, an item "bad" that does not decode and an
// item "broken" that is not JSON.
void ListOnePageWithABadAndABrokenItem(WatchSink& sink, const nlohmann::json& second) {
  nlohmann::json list = {{"apiVersion", "test/v1"},
                         {"kind", "ObjList"},
                         {"metadata", {{"resourceVersion", "9"}}},
                         {"items",
                          {Item("a", "1", "a1"), second,
                           {{"metadata", {{"name", "bad"}}}, {"value", 7}}}}};
  std::string body = list.dump();
  body.insert(body.rfind(']'), R"(,{"metadata":{"name":"broken"},"value":tru})");
  ASSERT_OK_AND_ASSIGN(RawListPage page, ParseRawListPage(body, "GET /objs"));
  sink.BeginList();
  sink.ListPageRaw(page);
  sink.EndList();
}

// A relist through the raw decoder (what the watcher does when TakesRawPages): items that lack
// apiVersion and kind get the list's, what the raw decoder refuses takes the DOM path, and what
// neither decodes is skipped, counted and reported as a listed object.
TEST_F(ReflectorTest, RawListPagesGoThroughTheRawDecoderWithTheListsTypeMeta) {
  UseRawDecoder();
  WatchSink& sink = reflector_;
  ASSERT_TRUE(sink.TakesRawPages());
  nlohmann::json refused = Item("b", "1", "b1");
  refused["raw"] = false;
  ListOnePageWithABadAndABrokenItem(sink, refused);
  EXPECT_EQ(ValueOf("a"), "raw:a1");
  EXPECT_EQ(ValueOf("b"), "b1");  // the DOM decoder's
  EXPECT_EQ(reflector_.raw_fallbacks(), 3);
  ExpectTheBadAndTheBrokenItemSkipped();
  ASSERT_EQ(raw_texts_.size(), 4u);
  EXPECT_EQ(raw_texts_[0].rfind("{\"apiVersion\":\"test/v1\",\"kind\":\"Obj\",", 0), 0u)
      << raw_texts_[0];
}

// Without a raw decoder, pages still arrive as text: each item is parsed alone and decoded by
// the DOM decoder, with the list's apiVersion and kind; what does not parse or decode is skipped
// and reported as on the DOM path.
TEST_F(ReflectorTest, RawListPagesWithoutARawDecoderAreDecodedItemByItem) {
  WatchSink& sink = reflector_;
  ASSERT_TRUE(sink.TakesRawPages());
  ListOnePageWithABadAndABrokenItem(sink, Item("b", "1", "b1"));
  EXPECT_EQ(ValueOf("a"), "a1");
  EXPECT_EQ(ValueOf("b"), "b1");
  EXPECT_EQ(dom_calls_, 3);
  EXPECT_EQ(raw_calls_, 0);
  EXPECT_EQ(reflector_.raw_fallbacks(), 0);
  ExpectTheBadAndTheBrokenItemSkipped();
}

TEST_F(ReflectorTest, TextThatIsNotJsonIsTheWatchersProblem) {
  UseRawDecoder();
  WatchSink& sink = reflector_;
  for (const std::string text : {"{\"metadata\":", "[1,2]", "not json", ""}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(sink.ApplyRaw(WatchEventType::kAdded, text).code(), absl::StatusCode::kDataLoss);
  }
  EXPECT_EQ(reflector_.store().Size(), 0u);
  EXPECT_EQ(reflector_.raw_fallbacks(), 4);
  // Not an undecodable object: the watcher counts the line and resumes the stream.
  EXPECT_EQ(reflector_.undecodable(), 0);
  EXPECT_THAT(undecodable_, IsEmpty());
  EXPECT_THAT(changes_, IsEmpty());
}

TEST_F(ReflectorTest, UndecodableObjectsAreSkippedCountedAndReportedWithTheirName) {
  UseRawDecoder();
  List({{Item("a", "1", "a1"),
         {{"metadata", {{"name", "bad-list"}, {"namespace", "ns"}}}, {"value", 7}}}});
  // Raw path: refused by the raw decoder, then by the DOM decoder.
  ASSERT_OK(Raw(WatchEventType::kModified, {{"metadata", {{"name", "bad-raw"}}}, {"value", 7}}));
  WatchSink& sink = reflector_;
  sink.Apply(WatchEventType::kAdded, {{"value", "no metadata"}});
  EXPECT_EQ(reflector_.undecodable(), 3);
  EXPECT_EQ(reflector_.first_decode_error().message(), "value: bad");
  EXPECT_THAT(undecodable_, ElementsAre("0:ns/bad-list:value: bad", "2:/bad-raw:value: bad",
                                        "1:/:no metadata"));
  EXPECT_THAT(reflector_.store().ListKeys(), ElementsAre("a"));
  EXPECT_THAT(changes_, ElementsAre("->a1"));
}

// Without DropUndecodable a cache keeps serving the older version; with it, an Added or
// Modified event that does not decode removes what is cached under that key (a deletion to the
// handlers, announced before the undecodable handlers run), and a later version that decodes
// brings the object back.
TEST_F(ReflectorTest, WithoutDropUndecodableTheOlderVersionStays) {
  List({{Item("a", "1", "a1")}});
  WatchSink& sink = reflector_;
  sink.Apply(WatchEventType::kModified, {{"metadata", {{"name", "a"}}}, {"value", 7}});
  EXPECT_EQ(ValueOf("a"), "a1");
}

TEST_F(ReflectorTest, DropUndecodableRemovesTheOlderVersion) {
  reflector_.DropUndecodable([](absl::string_view ns, absl::string_view name) {
    return ns.empty() ? std::string(name) : absl::StrCat(ns, "/", name);
  });
  List({{Item("a", "1", "a1"), Item("b", "1", "b1")}});
  WatchSink& sink = reflector_;
  sink.Apply(WatchEventType::kModified, {{"metadata", {{"name", "a"}}}, {"value", 7}});
  EXPECT_EQ(ValueOf("a"), "<none>");
  EXPECT_EQ(ValueOf("b"), "b1");
  EXPECT_THAT(changes_, ElementsAre("->a1", "->b1", "a1>-"));
  EXPECT_THAT(undecodable_, ElementsAre("2:/a:value: bad"));
  // An undecodable object never cached, and an undecodable deletion, remove nothing.
  sink.Apply(WatchEventType::kAdded, {{"metadata", {{"name", "c"}}}, {"value", 7}});
  sink.Apply(WatchEventType::kDeleted, {{"metadata", {{"name", "b"}}}, {"value", 7}});
  EXPECT_EQ(ValueOf("b"), "b1");
  EXPECT_EQ(changes_.size(), 3u);
  // A version that decodes again is an addition.
  sink.Apply(WatchEventType::kModified, Item("a", "3", "a3"));
  EXPECT_EQ(ValueOf("a"), "a3");
  EXPECT_EQ(changes_.back(), "->a3");
}

TEST_F(ReflectorTest, HandlersRunInTheOrderTheyWereAddedAfterTheStoreChanged) {
  std::vector<std::string> calls;
  Reflector<Obj> reflector(
      Decode,
      runtime::KeyByMeta<Obj>([](const Obj& o) -> const meta::ObjectMeta& { return o.metadata; }));
  for (const std::string name : {"first", "second", "third"}) {
    reflector.AddHandler([&calls, &reflector, name](const Obj*, const Obj* after) {
      // The store already holds the object the handler hears about.
      const bool stored = after != nullptr && reflector.store().Get(after->metadata.name) != nullptr;
      calls.push_back(absl::StrCat(name, stored ? "+" : "-"));
    });
  }
  WatchSink& sink = reflector;
  sink.Apply(WatchEventType::kAdded, Item("a", "1", "a1"));
  sink.Apply(WatchEventType::kDeleted, Item("a", "2", "a1"));
  EXPECT_THAT(calls, ElementsAre("first+", "second+", "third+", "first-", "second-", "third-"));
}

}  // namespace
}  // namespace reflector_test
}  // namespace gpuprofile::kube
