// Tests of kube::Informer's list handling: pages decoded as they arrive, the store swapped at
// EndList, and (with SetVersionOf) unchanged objects kept from the cache and not re-announced.
// The informer is fed as a WatchSink directly, so no server is needed.
#include "controller/kube/informer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/meta/object_meta_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

struct Obj {
  api::ObjectMeta metadata;
  std::string value;
};

absl::StatusOr<std::shared_ptr<const Obj>> Decode(const nlohmann::json& j) {
  absl::StatusOr<api::ObjectMeta> meta = api::DecodeObjectMeta(j.at("metadata"));
  if (!meta.ok()) return meta.status();
  return std::make_shared<const Obj>(Obj{*std::move(meta), j.value("value", "")});
}

nlohmann::json Item(const std::string& name, const std::string& rv, const std::string& value) {
  return {{"metadata", {{"name", name}, {"resourceVersion", rv}}}, {"value", value}};
}

class InformerListTest : public ::testing::Test {
 protected:
  explicit InformerListTest(bool by_version = true)
      : informer_(nullptr, WatcherOptions{}, Decode,
                  runtime::KeyByMeta<Obj>(
                      [](const Obj& o) -> const api::ObjectMeta& { return o.metadata; })) {
    if (by_version) {
      informer_.SetVersionOf(
          [](const Obj& o) -> absl::string_view { return o.metadata.resource_version; });
    }
    informer_.AddHandler([this](const Obj* before, const Obj* after) {
      changes_.push_back(absl::StrCat(before != nullptr ? before->value : "-", ">",
                                      after != nullptr ? after->value : "-"));
    });
  }

  void List(std::vector<std::vector<nlohmann::json>> pages) {
    WatchSink& sink = informer_;
    sink.BeginList();
    for (auto& page : pages) sink.ListPage(std::move(page));
    sink.EndList();
  }

  Informer<Obj> informer_;
  std::vector<std::string> changes_;
};

TEST_F(InformerListTest, ARelistKeepsUnchangedObjectsAndAnnouncesOnlyChanges) {
  List({{Item("a", "1", "a1"), Item("b", "2", "b2")}, {Item("c", "3", "c3")}});
  EXPECT_THAT(changes_, UnorderedElementsAre("->a1", "->b2", "->c3"));
  const std::shared_ptr<const Obj> a = informer_.store().Get("a");
  changes_.clear();

  // a unchanged, b modified, c deleted, d added; over two pages.
  List({{Item("a", "1", "a1"), Item("b", "4", "b4")}, {Item("d", "5", "d5")}});
  EXPECT_EQ(informer_.store().Get("a"), a);  // the cached object itself, not a new copy
  EXPECT_EQ(informer_.store().Get("b")->value, "b4");
  EXPECT_EQ(informer_.store().Get("c"), nullptr);
  EXPECT_THAT(changes_, UnorderedElementsAre("b2>b4", "c3>-", "->d5"));
}

TEST_F(InformerListTest, NothingChangesBeforeEndListAndARestartDropsThePagesSoFar) {
  List({{Item("a", "1", "a1")}});
  changes_.clear();
  WatchSink& sink = informer_;
  sink.BeginList();
  sink.ListPage({Item("a", "2", "a2"), Item("x", "3", "x3")});
  EXPECT_EQ(informer_.store().Get("a")->value, "a1");
  EXPECT_THAT(changes_, ElementsAre());
  sink.BeginList();  // the list started over (expired continue token)
  sink.ListPage({Item("a", "2", "a2")});
  sink.EndList();
  EXPECT_EQ(informer_.store().Get("x"), nullptr);
  EXPECT_THAT(changes_, ElementsAre("a1>a2"));
}

class InformerListWithoutVersionsTest : public InformerListTest {
 protected:
  InformerListWithoutVersionsTest() : InformerListTest(/*by_version=*/false) {}
};

TEST_F(InformerListWithoutVersionsTest, EveryListedObjectIsAnnouncedWithWhatItReplaces) {
  List({{Item("a", "1", "a1")}});
  changes_.clear();
  List({{Item("a", "1", "a1"), Item("b", "2", "b2")}});
  EXPECT_THAT(changes_, UnorderedElementsAre("a1>a1", "->b2"));
}

TEST_F(InformerListTest, AnEmptyResourceVersionIsNeverTakenAsUnchanged) {
  List({{Item("a", "", "old")}});
  changes_.clear();
  List({{Item("a", "", "new")}});
  EXPECT_EQ(informer_.store().Get("a")->value, "new");
  EXPECT_THAT(changes_, ElementsAre("old>new"));
}

}  // namespace
}  // namespace gpuprofile::kube
