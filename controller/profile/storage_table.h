// File: controller/profile/storage_table.h
// An entry per device storage (dra::Device::storage_id(): one per decoded slice), for the memos
// that keep what they worked out about each device between computations (fleet_memo.h,
// claim_allocations.h's HeldMemo). An entry holds its storage alive, so that while it is kept its
// address never names another storage. The last storage looked up is remembered: a slice's
// devices are next to each other in the inventory. Thread-compatible.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "controller/dra/device.h"

namespace gpuprofile::profile {

// `device`'s slot in `v`, an entry's answers by device index within the storage
// (dra::Device::storage_index()). `v` grows to the storage's size at once, filled with `fill`,
// rather than a device at a time (a reallocation every time the size doubled).
template <typename T>
T& SlotAt(std::vector<T>& v, const dra::Device& device, const T& fill) {
  const uint32_t index = device.storage_index();
  if (index >= v.size()) v.resize(std::max(index + 1, device.storage_size()), fill);
  return v[index];
}

template <typename Entry>
class StorageTable {
 public:
  // The entry of `device`'s storage, value-initialised on the storage's first sight.
  Entry& For(const dra::Device& device) {
    const void* id = device.storage_id();
    if (id != last_storage_ || last_ == nullptr) {
      std::unique_ptr<Kept>& kept = table_[id];
      if (kept == nullptr) {
        kept = std::make_unique<Kept>();
        kept->storage = device.storage();
      }
      last_storage_ = id;
      last_ = kept.get();
    }
    return last_->entry;
  }

  // Forgets the entries for which `drop(entry)` is true.
  template <typename Predicate>
  void EraseIf(Predicate drop) {
    absl::erase_if(table_, [&drop](const auto& kept) { return drop(kept.second->entry); });
    ForgetLast();
  }

  void Clear() {
    table_.clear();
    ForgetLast();
  }

  size_t size() const { return table_.size(); }

 private:
  struct Kept {
    std::shared_ptr<const void> storage;
    Entry entry{};
  };

  void ForgetLast() {
    last_storage_ = nullptr;
    last_ = nullptr;
  }

  absl::flat_hash_map<const void*, std::unique_ptr<Kept>> table_;
  const void* last_storage_ = nullptr;
  Kept* last_ = nullptr;
};

}  // namespace gpuprofile::profile
