// File: controller/profile/recent_ids.h
// The last few distinct values a pass over the fleet worked out, with their ids, most recent
// first (fleet_memo.cc: node-group signatures and selector projections). A fleet's devices come
// in runs (one node's GPUs) and its nodes in a few kinds that repeat (neighbouring nodes of a few
// node types): a value seen lately is found by comparing it with a handful, instead of building
// its key and looking that up. The values may view device storage: keep a RecentIds no longer
// than the devices it saw. Thread-compatible.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gpuprofile::profile {

template <typename Value>
class RecentIds {
 public:
  // The id of a kept value equal to `value` (which then counts as the most recent), or nullopt.
  std::optional<uint32_t> Find(const Value& value) {
    for (size_t i = 0; i < kept_.size(); ++i) {
      if (kept_[i].first == value) {
        std::rotate(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(i),
                    kept_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        return kept_.front().second;
      }
    }
    return std::nullopt;
  }

  void Clear() { kept_.clear(); }

  // Keeps `value` as the most recent, forgetting the oldest beyond kCapacity.
  void Add(Value value, uint32_t id) {
    if (kept_.size() == kCapacity) kept_.pop_back();
    kept_.insert(kept_.begin(), {std::move(value), id});
  }

 private:
  // Enough for the node types a fleet interleaves; a miss costs kCapacity comparisons more.
  static constexpr size_t kCapacity = 16;
  std::vector<std::pair<Value, uint32_t>> kept_;
};

// The ids worked out for the devices of one storage, by the entries they read (the tokens of
// PathReader and SignatureReader): a device of that storage with the same tokens has the same
// id. A device of another storage starts afresh, since tokens mean nothing across storages.
class StorageTokenIds {
 public:
  // The id of an earlier device of `storage` that read `tokens`, or nullopt.
  std::optional<uint32_t> Find(const void* storage, const std::vector<uint64_t>& tokens) {
    if (storage != storage_) {
      storage_ = storage;
      ids_.Clear();
    }
    return ids_.Find(tokens);
  }
  // Keeps `id` for `tokens`, read by a device of the storage Find last saw.
  void Add(const std::vector<uint64_t>& tokens, uint32_t id) { ids_.Add(tokens, id); }

 private:
  const void* storage_ = nullptr;
  RecentIds<std::vector<uint64_t>> ids_;
};

}  // namespace gpuprofile::profile
