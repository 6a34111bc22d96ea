// File: controller/profile/claim_allocations.cc
#include "controller/profile/claim_allocations.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::profile {
namespace {

// Value order of (driver, pool, device): what an inventory device is looked up by.
std::tuple<absl::string_view, absl::string_view, absl::string_view> Key(
    dra::ClaimSymbol driver, dra::ClaimSymbol pool, dra::ClaimSymbol device) {
  return {driver.str(), pool.str(), device.str()};
}

// Adds `value` to `set` unless it is there (claims name one to a few classes: a linear scan
// beats a hash set and needs no heap).
void AddOnce(absl::InlinedVector<dra::ClaimSymbol, 2>* set, dra::ClaimSymbol value) {
  if (std::find(set->begin(), set->end(), value) == set->end()) set->push_back(value);
}

}  // namespace

void HeldMemo::Begin(uint64_t ledger_id) {
  if (ledger_id != ledger_id_) {
    by_storage_.Clear();
    ledger_id_ = ledger_id;
  }
  ++call_;
}

uint32_t& HeldMemo::Slot(const dra::Device& device) {
  Entry& entry = by_storage_.For(device);
  entry.call = call_;
  return SlotAt(entry.slots, device, kUnknown);
}

void HeldMemo::End() {
  by_storage_.EraseIf([this](const Entry& entry) { return entry.call != call_; });
}

ClaimLedger::ClaimLedger(absl::Span<const dra::ResourceClaim* const> claims) {
  size_t results = 0;
  for (const dra::ResourceClaim* claim : claims) results += claim->results.size();
  Reserve(results);
  for (const dra::ResourceClaim* claim : claims) Add(*claim);
  Finish();
}

void ClaimLedger::Add(const dra::ResourceClaim& claim_ref) {
  const dra::ResourceClaim* claim = &claim_ref;
  absl::InlinedVector<dra::ClaimSymbol, 2> classes;
  if (claim->allocated && claim->consumed_capacity != nullptr) {
    for (size_t i = 0; i < claim->consumed_capacity->size(); ++i) {
      const dra::ConsumedCapacity& c = (*claim->consumed_capacity)[i];
      if (c.result >= claim->results.size()) continue;
      const dra::ClaimDeviceResult& r = claim->results[c.result];
      pending_taken_.push_back({HeldDevice{r.driver, r.pool, r.device, 0}, claim->consumed_capacity, i});
    }
  }
  if (claim->allocated) {
    for (const dra::ClaimDeviceResult& result : claim->results) {
      held_.push_back(HeldDevice{result.driver, result.pool, result.device, 1});
      ++results_;
      const dra::ClaimSymbol device_class = claim->ClassOfResult(result);
      if (device_class.empty()) continue;
      ++by_class_[device_class.str()].allocated_devices;
      AddOnce(&classes, device_class);
    }
    for (dra::ClaimSymbol device_class : classes) ++by_class_[device_class.str()].allocated_claims;
    return;
  }
  if (claim->deleting) return;
  for (const dra::ClaimRequest& request : claim->requests) {
    for (dra::ClaimSymbol device_class : request.device_classes) AddOnce(&classes, device_class);
  }
  const std::optional<absl::Time> created = claim->created();
  for (dra::ClaimSymbol device_class : classes) {
    ClassClaims& summary = by_class_[device_class.str()];
    ++summary.pending_claims;
    if (created && (!summary.oldest_pending || *created < *summary.oldest_pending)) {
      summary.oldest_pending = created;
    }
  }
}

void ClaimLedger::Clear() {
  held_.clear();
  taken_.clear();
  pools_.clear();
  by_class_.clear();
  results_ = 0;
  pending_taken_.clear();
}

void ClaimLedger::Finish() {
  // Never 0 (a memo's "no ledger yet"), never reused.
  static std::atomic<uint64_t> next_id{1};
  id_ = next_id.fetch_add(1, std::memory_order_relaxed);
  // Sorted by value, equal devices merged: Held() walks the inventory and finds each pool's
  // range by binary search.
  std::sort(held_.begin(), held_.end(), [](const HeldDevice& a, const HeldDevice& b) {
    return Key(a.driver, a.pool, a.device) < Key(b.driver, b.pool, b.device);
  });
  size_t out = 0;
  for (size_t i = 0; i < held_.size(); ++i) {
    if (out > 0 && held_[out - 1].driver == held_[i].driver && held_[out - 1].pool == held_[i].pool &&
        held_[out - 1].device == held_[i].device) {
      held_[out - 1].results += held_[i].results;
      continue;
    }
    held_[out++] = held_[i];
  }
  held_.resize(out);  // no shrink_to_fit: a second copy of the table, for a few entries
  for (uint32_t i = 0; i < held_.size();) {
    uint32_t j = i + 1;
    while (j < held_.size() && held_[j].driver == held_[i].driver && held_[j].pool == held_[i].pool) {
      ++j;
    }
    pools_.emplace(std::make_pair(absl::string_view(held_[i].driver.str()),
                                  absl::string_view(held_[i].pool.str())),
                   std::make_pair(i, j));
    i = j;
  }
  for (const PendingTaken& pending : pending_taken_) {
    const HeldDevice& device = pending.device;
    const dra::ConsumedCapacity* entry = &(*pending.list)[pending.entry];
    auto h = std::lower_bound(held_.begin(), held_.end(), device,
                              [](const HeldDevice& a, const HeldDevice& b) {
                                return Key(a.driver, a.pool, a.device) <
                                       Key(b.driver, b.pool, b.device);
                              });
    if (h == held_.end() || h->driver != device.driver || h->pool != device.pool ||
        h->device != device.device) {
      continue;
    }
    CapacityTaken& taken = taken_[static_cast<uint32_t>(h - held_.begin())];
    auto same = std::find_if(taken.begin(), taken.end(),
                             [&](const auto& t) { return t.first == entry->name.str(); });
    if (same == taken.end()) {
      taken.emplace_back(entry->name.str(), entry->amount);
    } else if (absl::StatusOr<Quantity> sum = same->second.Add(entry->amount); sum.ok()) {
      same->second = *sum;
    }
  }
  pending_taken_.clear();
  pending_taken_.shrink_to_fit();
}

uint32_t ClaimLedger::Find(const dra::Device& device, PoolCursor* cursor) const {
  // A slice's devices share its driver and pool strings: comparing addresses first saves
  // comparing the strings for nearly every device.
  const absl::string_view driver = device.driver();
  const absl::string_view pool = device.pool();
  const auto same = [](absl::string_view a, absl::string_view b) {
    return (a.data() == b.data() && a.size() == b.size()) || a == b;
  };
  if (!cursor->valid || !same(driver, cursor->driver) || !same(pool, cursor->pool)) {
    // The inventory keeps a pool's devices together (slice by slice): most devices reuse the
    // previous device's range.
    cursor->driver = driver;
    cursor->pool = pool;
    cursor->valid = true;
    auto range = pools_.find(std::make_pair(driver, pool));
    cursor->begin = range == pools_.end() ? 0 : range->second.first;
    cursor->end = range == pools_.end() ? 0 : range->second.second;
  }
  if (cursor->begin == cursor->end) return kNotHeld;
  const auto begin = held_.begin() + cursor->begin, end = held_.begin() + cursor->end;
  const absl::string_view name = device.name();
  auto it = std::lower_bound(begin, end, name, [](const HeldDevice& h, absl::string_view n) {
    return absl::string_view(h.device.str()) < n;
  });
  if (it == end || it->device != name) return kNotHeld;
  return static_cast<uint32_t>(it - held_.begin());
}

DeviceClaims ClaimLedger::Held(const dra::Inventory& inventory, HeldMemo* memo) const {
  const std::vector<dra::Device>& devices = inventory.devices();
  DeviceClaims out;
  out.allocated.assign(devices.size(), false);
  int64_t matched_results = 0;
  // A device name listed twice in the inventory (a stale slice beside its successor) counts
  // once, at its first place, as the scheduler sees one device.
  std::vector<bool> matched(held_.size(), false);
  if (!held_.empty()) {
    if (memo != nullptr) memo->Begin(id_);
    PoolCursor cursor;
    for (size_t d = 0; d < devices.size(); ++d) {
      const dra::Device& device = devices[d];
      uint32_t h;
      if (memo == nullptr) {
        h = Find(device, &cursor);
      } else {
        uint32_t& slot = memo->Slot(device);
        if (slot == HeldMemo::kUnknown) slot = Find(device, &cursor);
        h = slot;
      }
      if (h == kNotHeld || matched[h]) continue;
      matched[h] = true;
      if (auto t = taken_.find(h); t != taken_.end()) {
        out.taken.emplace(static_cast<uint32_t>(d), t->second);
      }
      out.allocated[d] = true;
      ++out.allocated_devices;
      matched_results += held_[h].results;
    }
    if (memo != nullptr) memo->End();
  }
  out.results_outside_inventory = results_ - matched_results;
  return out;
}

const ClassClaims* ClaimLedger::ForClass(absl::string_view device_class) const {
  auto it = by_class_.find(device_class);
  return it == by_class_.end() ? nullptr : &it->second;
}

DeviceClaims IndexAllocatedDevices(const dra::Inventory& inventory,
                                   absl::Span<const dra::ResourceClaim* const> claims) {
  return ClaimLedger(claims).Held(inventory);
}

absl::flat_hash_map<std::string, ClassClaims> SummariseClaimsByClass(
    absl::Span<const dra::ResourceClaim* const> claims) {
  absl::flat_hash_map<std::string, ClassClaims> out;
  const ClaimLedger ledger(claims);  // named: a range-for over a temporary's member dangles
  for (const auto& [device_class, summary] : ledger.by_class()) {
    out.emplace(std::string(device_class), summary);
  }
  return out;
}

}  // namespace gpuprofile::profile
