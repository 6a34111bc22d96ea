// File: controller/runtime/store.h
// The informer cache of one kind: immutable objects (std::shared_ptr<const T>) keyed by
// "namespace/name" (just "name" for cluster-scoped objects, as client-go keys them), with
// secondary indexes, fed by exactly one writer (the watcher) and read by any number of readers
// (reconcilers), as kube-rs' reflector store.
//
//  - Replace(list) swaps in the whole content of a (re)list at once: objects deleted while the
//    watch was down disappear, and readers see either the old or the new content, never a mix.
//    It returns the objects that disappeared, so the informer can tell their owners.
//  - Apply(event) applies one watch event (Added / Modified / Deleted) and returns the object it
//    replaced or removed (null if none).
//  - Indexes are registered at construction: name -> function from an object to its index values
//    (IndexByOwnerUid, IndexByLabel below, or any other); ByIndex(name, value) looks them up.
//  - HasSynced() turns true at the first Replace and stays true.
//  - Reads return shared pointers and vectors built under a reader lock: a consistent snapshot that
//    later writes do not change. Objects are never modified in place; copy before changing.
//
// Thread-safety: thread-safe. Writes are expected from one thread (the watcher) but are safe
// from any.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "controller/meta/object_meta.h"

namespace gpuprofile::runtime {

enum class WatchEventType { kAdded, kModified, kDeleted };

template <typename T>
struct WatchEvent {
  WatchEventType type;
  std::shared_ptr<const T> object;  // for kDeleted, the last known state
};

// client-go's MetaNamespaceKeyFunc: "namespace/name", or "name" when the namespace is empty.
inline std::string MetaNamespaceKey(const meta::ObjectMeta& meta) {
  return meta.namespace_name.empty() ? meta.name
                                     : absl::StrCat(meta.namespace_name, "/", meta.name);
}

// The key type of Store<T>: std::string, unless T declares `using StoreKey = absl::string_view;`
// and its key function returns a view into the object itself (kept alive by the store's entry):
// then the store keeps no copy of the key. For kinds the operator caches by the ten thousand
// (ResourceClaims) that saves the key's heap block and half of each table slot.
template <typename T, typename = void>
struct StoreKeyOf {
  using type = std::string;
};
template <typename T>
struct StoreKeyOf<T, std::void_t<typename T::StoreKey>> {
  using type = typename T::StoreKey;
};

template <typename T>
class Store {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  using Key = typename StoreKeyOf<T>::type;
  using KeyFunc = std::function<Key(const T&)>;
  using IndexFunc = std::function<std::vector<std::string>(const T&)>;

  // `key` gives each object's key; `indexers` name the indexes and their functions.
  explicit Store(KeyFunc key, std::map<std::string, IndexFunc> indexers = {})
      : key_(std::move(key)), indexers_(std::move(indexers)) {}
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Swaps in `objects` as the whole content (null entries are skipped; with duplicate keys the
  // last wins) and marks the store synced. Returns the objects that were present and are not
  // any more, in key order.
  std::vector<ObjectPtr> Replace(std::vector<ObjectPtr> objects) {
    Contents next;
    next.items.reserve(objects.size());  // one table, not every smaller one on the way
    for (ObjectPtr& object : objects) {
      if (object == nullptr) continue;
      PutLocked(&next, std::move(object));
    }
    for (const auto& [key, object] : next.items) IndexLocked(&next, std::string(key), *object);
    std::vector<ObjectPtr> removed;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [key, object] : contents_.items) {
        if (!next.items.contains(key)) removed.push_back(object);
      }
      std::swap(contents_, next);
      synced_ = true;
    }
    // `next` now holds the old content and is freed outside the lock.
    std::sort(removed.begin(), removed.end(),
              [this](const ObjectPtr& a, const ObjectPtr& b) { return key_(*a) < key_(*b); });
    return removed;
  }

  // Applies one watch event; returns the previous object under that key (null if none).
  ObjectPtr Apply(const WatchEvent<T>& event) {
    if (event.object == nullptr) return nullptr;
    const std::string key(key_(*event.object));
    absl::MutexLock lock(&mu_);
    ObjectPtr previous;
    auto it = contents_.items.find(key);
    if (it != contents_.items.end()) {
      previous = it->second;
      UnindexLocked(&contents_, key, *previous);
    }
    if (event.type == WatchEventType::kDeleted) {
      if (it != contents_.items.end()) contents_.items.erase(it);
    } else {
      PutLocked(&contents_, event.object);
      IndexLocked(&contents_, key, *event.object);
    }
    return previous;
  }

  // The key `object` has (or would have) in this store.
  std::string KeyOf(const T& object) const { return std::string(key_(object)); }

  ObjectPtr Get(const std::string& key) const {
    absl::ReaderMutexLock lock(&mu_);
    auto it = contents_.items.find(key);
    return it == contents_.items.end() ? nullptr : it->second;
  }

  // Every object, in key order. Sorted under the reader lock by the stored keys, so no key is
  // copied: at tens of thousands of objects (ResourceClaims) a copy of every key made each
  // List() a few megabytes of garbage.
  std::vector<ObjectPtr> List() const {
    std::vector<std::pair<const Key*, const ObjectPtr*>> entries;
    std::vector<ObjectPtr> out;
    absl::ReaderMutexLock lock(&mu_);
    entries.reserve(contents_.items.size());
    for (const auto& [key, object] : contents_.items) entries.emplace_back(&key, &object);
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return *a.first < *b.first; });
    out.reserve(entries.size());
    for (const auto& entry : entries) out.push_back(*entry.second);
    return out;
  }

  // Calls `visit` with every object, in no particular order, under the reader lock (writers
  // wait until it returns): for a reader that folds tens of thousands of objects into a summary
  // without the copy of every pointer List() makes.
  void ForEach(absl::FunctionRef<void(const T&)> visit) const {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& entry : contents_.items) visit(*entry.second);
  }

  std::vector<std::string> ListKeys() const {
    std::vector<std::string> keys;
    {
      absl::ReaderMutexLock lock(&mu_);
      for (const auto& entry : contents_.items) keys.emplace_back(entry.first);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  // Objects whose index `index_name` yields `value`, in key order. NotFound for an index that
  // was not registered.
  absl::StatusOr<std::vector<ObjectPtr>> ByIndex(const std::string& index_name,
                                                 const std::string& value) const {
    if (!indexers_.count(index_name)) {
      return absl::NotFoundError(absl::StrCat("store has no index \"", index_name, "\""));
    }
    std::vector<ObjectPtr> out;
    absl::ReaderMutexLock lock(&mu_);
    auto index = contents_.indexes.find(index_name);
    if (index == contents_.indexes.end()) return out;
    auto keys = index->second.find(value);
    if (keys == index->second.end()) return out;
    for (const std::string& key : keys->second) out.push_back(contents_.items.find(key)->second);
    return out;
  }

  bool HasSynced() const {
    absl::ReaderMutexLock lock(&mu_);
    return synced_;
  }

  size_t Size() const {
    absl::ReaderMutexLock lock(&mu_);
    return contents_.items.size();
  }

 private:
  struct Contents {
    absl::flat_hash_map<Key, ObjectPtr> items;
    // index name -> index value -> keys (ordered, so lookups come out in key order)
    absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, std::set<std::string>>>
        indexes;
  };

  // Stores `object` under its key, replacing the entry of an equal key. The entry is made anew
  // rather than assigned: with a view key, the key must view the object the entry holds.
  // Not annotated: also used on a Contents no other thread can see yet (Replace).
  void PutLocked(Contents* contents, ObjectPtr object) const {
    const Key key = key_(*object);
    auto it = contents->items.find(key);
    if (it != contents->items.end()) contents->items.erase(it);
    contents->items.emplace(key, std::move(object));
  }

  // Not annotated: also used on a Contents no other thread can see yet (Replace).
  void IndexLocked(Contents* contents, const std::string& key, const T& object) const {
    for (const auto& [name, func] : indexers_) {
      for (const std::string& value : func(object)) contents->indexes[name][value].insert(key);
    }
  }

  void UnindexLocked(Contents* contents, const std::string& key, const T& object) const {
    for (const auto& [name, func] : indexers_) {
      auto index = contents->indexes.find(name);
      if (index == contents->indexes.end()) continue;
      for (const std::string& value : func(object)) {
        auto keys = index->second.find(value);
        if (keys == index->second.end()) continue;
        keys->second.erase(key);
        if (keys->second.empty()) index->second.erase(keys);
      }
    }
  }

  const KeyFunc key_;
  const std::map<std::string, IndexFunc> indexers_;
  mutable absl::Mutex mu_;
  Contents contents_ ABSL_GUARDED_BY(mu_);
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
};

// Index functions over the ObjectMeta of T, reached through `meta` (e.g.
// [](const GpuProfile& p) -> const meta::ObjectMeta& { return p.metadata; }).
template <typename T>
using MetaFunc = std::function<const meta::ObjectMeta&(const T&)>;

// Index values: the uid of every owner reference.
template <typename T>
typename Store<T>::IndexFunc IndexByOwnerUid(MetaFunc<T> meta) {
  return [meta = std::move(meta)](const T& object) {
    std::vector<std::string> uids;
    for (const meta::OwnerReference& ref : meta(object).owner_references) uids.push_back(ref.uid);
    return uids;
  };
}

// Index value: the value of label `label_key`, when the object has it.
template <typename T>
typename Store<T>::IndexFunc IndexByLabel(std::string label_key, MetaFunc<T> meta) {
  return [label_key = std::move(label_key), meta = std::move(meta)](const T& object) {
    const auto& labels = meta(object).labels;
    auto it = labels.find(label_key);
    return it == labels.end() ? std::vector<std::string>{} : std::vector<std::string>{it->second};
  };
}

// A key function over the ObjectMeta of T.
template <typename T>
typename Store<T>::KeyFunc KeyByMeta(MetaFunc<T> meta) {
  return [meta = std::move(meta)](const T& object) { return MetaNamespaceKey(meta(object)); };
}

}  // namespace gpuprofile::runtime
