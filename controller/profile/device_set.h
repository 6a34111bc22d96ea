// File: controller/profile/device_set.h
// A set of devices of one inventory, by their index in inventory.devices(): one bit each. The
// profile engine keeps one per profile (the devices its selectors match) and walks it once per
// count; walking the set bits a word at a time skips the unmatched part of a 40,000-device fleet
// 64 devices per step, where std::vector<bool> read every device (about a sixth of the
// operator's CPU under slice churn went to those reads).
// Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/numeric/bits.h"

namespace gpuprofile::profile {

class DeviceSet {
 public:
  DeviceSet() = default;
  // Empty, over devices [0, size).
  explicit DeviceSet(size_t size) : size_(size), words_((size + 63) / 64, 0) {}
  // The devices whose entry in `bits` is true.
  static DeviceSet Of(const std::vector<bool>& bits);

  size_t size() const { return size_; }  // the devices it is over, not how many it holds
  bool operator[](size_t d) const { return ((words_[d / 64] >> (d % 64)) & 1) != 0; }
  void Insert(size_t d) { words_[d / 64] |= uint64_t{1} << (d % 64); }
  // Calls fn(d) for every device in the set, ascending.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
        fn(w * 64 + static_cast<size_t>(absl::countr_zero(bits)));
      }
    }
  }

  friend bool operator==(const DeviceSet& a, const DeviceSet& b) {
    return a.size_ == b.size_ && a.words_ == b.words_;
  }
  friend bool operator!=(const DeviceSet& a, const DeviceSet& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const DeviceSet& s) {
    return H::combine(std::move(h), s.size_, s.words_);
  }

 private:
  size_t size_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace gpuprofile::profile
