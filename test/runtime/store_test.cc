// File: test/runtime/store_test.cc
#include "controller/runtime/store.h"

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "controller/meta/object_meta.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::runtime {
namespace store_test {
namespace {

struct Thing {
  meta::ObjectMeta metadata;
  int value = 0;
};
using ThingPtr = std::shared_ptr<const Thing>;

const meta::ObjectMeta& MetaOf(const Thing& t) { return t.metadata; }

ThingPtr Make(const std::string& ns, const std::string& name, int value = 0,
              const std::string& owner_uid = "", const std::string& profile = "") {
  auto t = std::make_shared<Thing>();
  t->metadata.namespace_name = ns;
  t->metadata.name = name;
  t->value = value;
  if (!owner_uid.empty()) t->metadata.owner_references.push_back({"v1", "K", "o", owner_uid});
  if (!profile.empty()) t->metadata.labels["gpuprofile.io/profile"] = profile;
  return t;
}

std::vector<std::string> Names(const std::vector<ThingPtr>& things) {
  std::vector<std::string> out;
  for (const auto& t : things) out.push_back(t->metadata.name);
  return out;
}

// A kind whose store key is a view into the object, like the compact ResourceClaim. Its
// destructor scribbles over the key, so a store still viewing a destroyed object's key fails
// the lookups below instead of passing by luck.
struct Viewed {
  using StoreKey = absl::string_view;
  explicit Viewed(std::string k, int v) : key(std::move(k)), value(v) {}
  ~Viewed() { std::fill(key.begin(), key.end(), 'x'); }
  std::string key;
  int value;
};

TEST(ViewKeyStoreTest, KeysViewTheObjectTheEntryHolds) {
  Store<Viewed> store([](const Viewed& v) { return absl::string_view(v.key); });
  static_assert(std::is_same_v<Store<Viewed>::Key, absl::string_view>);
  // Duplicate keys in a list: the last wins, and its own key is the entry's.
  store.Replace({std::make_shared<const Viewed>("ns/a", 1), std::make_shared<const Viewed>("ns/b", 1),
                 std::make_shared<const Viewed>("ns/a", 2)});
  ASSERT_NE(store.Get("ns/a"), nullptr);
  EXPECT_EQ(store.Get("ns/a")->value, 2);
  // Modified: the old object is destroyed (scribbled); the entry must view the new one.
  store.Apply({WatchEventType::kModified, std::make_shared<const Viewed>("ns/b", 3)});
  ASSERT_NE(store.Get("ns/b"), nullptr);
  EXPECT_EQ(store.Get("ns/b")->value, 3);
  EXPECT_THAT(store.ListKeys(), ::testing::ElementsAre("ns/a", "ns/b"));
  store.Apply({WatchEventType::kDeleted, std::make_shared<const Viewed>("ns/a", 0)});
  EXPECT_EQ(store.Get("ns/a"), nullptr);
  EXPECT_EQ(store.Size(), 1u);
  // A relist that keeps b and adds c.
  std::vector<std::shared_ptr<const Viewed>> removed =
      store.Replace({std::make_shared<const Viewed>("ns/c", 4), store.Get("ns/b")});
  EXPECT_TRUE(removed.empty());
  int visited = 0, sum = 0;
  store.ForEach([&](const Viewed& v) {
    ++visited;
    sum += v.value;
  });
  EXPECT_EQ(visited, 2);
  EXPECT_EQ(sum, 7);
  std::vector<std::shared_ptr<const Viewed>> all = store.List();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->key, "ns/b");
  EXPECT_EQ(all[1]->key, "ns/c");
}

class StoreTest : public ::testing::Test {
 protected:
  StoreTest()
      : store_(KeyByMeta<Thing>(MetaOf),
               {{"owner", IndexByOwnerUid<Thing>(MetaOf)},
                {"profile", IndexByLabel<Thing>("gpuprofile.io/profile", MetaOf)}}) {}
  Store<Thing> store_;
};

TEST(MetaNamespaceKeyTest, ClusterScopedObjectsAreKeyedByName) {
  meta::ObjectMeta meta;
  meta.name = "a";
  EXPECT_EQ(MetaNamespaceKey(meta), "a");
  meta.namespace_name = "ns";
  EXPECT_EQ(MetaNamespaceKey(meta), "ns/a");
}

TEST_F(StoreTest, NotSyncedUntilTheFirstReplace) {
  EXPECT_FALSE(store_.HasSynced());
  store_.Apply({WatchEventType::kAdded, Make("ns", "a")});
  EXPECT_FALSE(store_.HasSynced());
  store_.Replace({});
  EXPECT_TRUE(store_.HasSynced());
}

TEST_F(StoreTest, ApplyAddsModifiesAndDeletes) {
  EXPECT_EQ(store_.Apply({WatchEventType::kAdded, Make("ns", "a", 1)}), nullptr);
  ThingPtr previous = store_.Apply({WatchEventType::kModified, Make("ns", "a", 2)});
  ASSERT_NE(previous, nullptr);
  EXPECT_EQ(previous->value, 1);
  EXPECT_EQ(store_.Get("ns/a")->value, 2);
  previous = store_.Apply({WatchEventType::kDeleted, Make("ns", "a", 2)});
  EXPECT_EQ(previous->value, 2);
  EXPECT_EQ(store_.Get("ns/a"), nullptr);
  EXPECT_EQ(store_.Apply({WatchEventType::kDeleted, Make("ns", "gone")}), nullptr);
  EXPECT_EQ(store_.Size(), 0u);
}

TEST_F(StoreTest, ReplaceDropsObjectsMissedWhileDisconnected) {
  store_.Replace({Make("ns", "a"), Make("ns", "b"), Make("", "c")});
  const std::vector<ThingPtr> removed = store_.Replace({Make("ns", "b", 5), Make("ns", "d")});
  EXPECT_THAT(Names(removed), ::testing::ElementsAre("c", "a"));  // key order: "c" < "ns/a"
  EXPECT_THAT(store_.ListKeys(), ::testing::ElementsAre("ns/b", "ns/d"));
  EXPECT_EQ(store_.Get("ns/b")->value, 5);
}

TEST_F(StoreTest, ReadsAreSnapshotsThatLaterWritesDoNotChange) {
  store_.Replace({Make("ns", "a", 1), Make("ns", "b", 1)});
  const std::vector<ThingPtr> before = store_.List();
  ThingPtr held = store_.Get("ns/a");
  store_.Replace({Make("ns", "a", 2)});
  EXPECT_THAT(Names(before), ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(held->value, 1);
  EXPECT_EQ(store_.Get("ns/a")->value, 2);
}

TEST_F(StoreTest, IndexesFollowEveryWrite) {
  store_.Replace({Make("ns", "a", 0, "uid-1", "p1"), Make("ns", "b", 0, "uid-1", "p2"),
                  Make("ns", "c", 0, "uid-2", "p1")});
  ASSERT_OK_AND_ASSIGN(auto owned, store_.ByIndex("owner", "uid-1"));
  EXPECT_THAT(Names(owned), ::testing::ElementsAre("a", "b"));
  ASSERT_OK_AND_ASSIGN(auto labelled, store_.ByIndex("profile", "p1"));
  EXPECT_THAT(Names(labelled), ::testing::ElementsAre("a", "c"));

  store_.Apply({WatchEventType::kModified, Make("ns", "a", 0, "uid-2", "p2")});
  ASSERT_OK_AND_ASSIGN(owned, store_.ByIndex("owner", "uid-1"));
  EXPECT_THAT(Names(owned), ::testing::ElementsAre("b"));
  ASSERT_OK_AND_ASSIGN(owned, store_.ByIndex("owner", "uid-2"));
  EXPECT_THAT(Names(owned), ::testing::ElementsAre("a", "c"));

  store_.Apply({WatchEventType::kDeleted, Make("ns", "c")});
  ASSERT_OK_AND_ASSIGN(labelled, store_.ByIndex("profile", "p1"));
  EXPECT_TRUE(labelled.empty());

  store_.Replace({});
  ASSERT_OK_AND_ASSIGN(owned, store_.ByIndex("owner", "uid-2"));
  EXPECT_TRUE(owned.empty());
  EXPECT_EQ(store_.ByIndex("nope", "x").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StoreTest, CustomIndexFunction) {
  Store<Thing> store(KeyByMeta<Thing>(MetaOf),
                     {{"parity", [](const Thing& t) {
                         return std::vector<std::string>{t.value % 2 ? "odd" : "even"};
                       }}});
  store.Replace({Make("", "one", 1), Make("", "two", 2), Make("", "three", 3)});
  ASSERT_OK_AND_ASSIGN(auto odd, store.ByIndex("parity", "odd"));
  EXPECT_THAT(Names(odd), ::testing::ElementsAre("one", "three"));
}

TEST_F(StoreTest, ReadersSeeEitherTheOldOrTheNewListNeverAMix) {
  std::vector<ThingPtr> generation_a, generation_b;
  for (int i = 0; i < 50; ++i) {
    generation_a.push_back(Make("ns", "a" + std::to_string(i), 1));
    generation_b.push_back(Make("ns", "b" + std::to_string(i), 2));
  }
  store_.Replace(generation_a);
  std::atomic<bool> mixed{false};
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {
      const std::vector<ThingPtr> all = store_.List();
      if (all.size() != 50) mixed = true;
      for (const auto& t : all) {
        if (t->value != all.front()->value) mixed = true;
      }
    }
  });
  for (int i = 0; i < 200; ++i) store_.Replace(i % 2 ? generation_a : generation_b);
  done = true;
  reader.join();
  EXPECT_FALSE(mixed.load());
}

}  // namespace
}  // namespace store_test
}  // namespace gpuprofile::runtime
