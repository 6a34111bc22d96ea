// File: e2e/emulator/object_store.h
// Every object the emulator holds, in its storage form, with one resourceVersion counter for
// all writes (as etcd's revision) and a bounded history of write events that watches replay
// from. Events older than the history window are compacted: a watch or continue token from
// before oldest_watchable_rv() gets 410 Gone.
// Thread-compatible: the API server serializes every call with its lock.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

struct StoreEvent {
  uint64_t rv = 0;
  std::string type;  // ADDED, MODIFIED, DELETED
  std::string storage_key;
  ObjectPtr object;    // after the write (for DELETED: the last state, with the deletion's rv)
  ObjectPtr previous;  // before the write (nullptr for ADDED)
};

class ObjectStore {
 public:
  explicit ObjectStore(size_t history_capacity) : history_capacity_(history_capacity) {}

  uint64_t resource_version() const { return rv_; }
  // Watches may start from any rv >= this; older ones are compacted.
  uint64_t oldest_watchable_rv() const { return compacted_rv_; }

  // Objects with a deletionTimestamp or ownerReferences: while there are none, the garbage
  // collector and the namespace lifecycle have nothing to do.
  size_t gc_relevant() const { return gc_relevant_; }
  // Objects with a deletionTimestamp: while there are none, only a written object's own owner
  // references can need collecting (ApiServer::Collect's fast path).
  size_t deleting() const { return deleting_; }
  bool HasUid(const std::string& uid) const { return uids_.count(uid) > 0; }

  ObjectPtr Get(const std::string& key, const std::string& ns, const std::string& name) const;
  // Sorted by namespace, then name. Empty `ns` lists every namespace. With `after`, only the
  // objects past that (namespace, name): a continued list page starts there in O(log n), as the
  // API server's range read does, instead of skipping the pages before it.
  std::vector<ObjectPtr> List(
      const std::string& key, const std::string& ns,
      const std::optional<std::pair<std::string, std::string>>& after = std::nullopt) const;
  // Every object of every key, with its key.
  std::vector<std::pair<std::string, ObjectPtr>> All() const;

  // Writes stamp metadata.resourceVersion with the next rv, record the event and call the
  // listener. Create expects the object to be absent, Update and Remove present.
  ObjectPtr Create(const std::string& key, nlohmann::json object);
  ObjectPtr Update(const std::string& key, nlohmann::json object);
  ObjectPtr Remove(const std::string& key, const std::string& ns, const std::string& name);

  // Events with rv > `after` for `key` (all keys when empty), oldest first. The caller checks
  // `after >= oldest_watchable_rv()` first.
  std::vector<StoreEvent> EventsSince(const std::string& key, uint64_t after) const;
  // Forgets the whole history: every rv handed out so far gets 410 (the rv advances by one).
  void Compact();
  void SetListener(std::function<void(const StoreEvent&)> listener) {
    listener_ = std::move(listener);
  }

  // Replaces everything (state restore); no events.
  void Restore(uint64_t rv, std::vector<std::pair<std::string, nlohmann::json>> objects);

 private:
  void Record(StoreEvent event);
  // Adds (+1) or removes (-1) `object` from the counters and the uid index.
  void Account(const nlohmann::json& object, int delta);

  using Bucket = std::map<std::pair<std::string, std::string>, ObjectPtr>;
  std::map<std::string, Bucket> objects_;
  size_t gc_relevant_ = 0;
  size_t deleting_ = 0;
  std::unordered_map<std::string, int> uids_;
  uint64_t rv_ = 1;
  uint64_t compacted_rv_ = 1;
  size_t history_capacity_;
  std::deque<StoreEvent> history_;
  std::function<void(const StoreEvent&)> listener_;
};

std::string NamespaceOf(const nlohmann::json& object);
std::string NameOf(const nlohmann::json& object);

}  // namespace gpuprofile::e2e
