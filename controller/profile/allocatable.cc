// File: controller/profile/allocatable.cc
#include "controller/profile/allocatable.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "controller/core/quantity.h"

namespace gpuprofile::profile {
namespace {

constexpr uint8_t kTainted = 1;         // has a taint that prevents scheduling
constexpr uint8_t kCounters = 2;        // draws from counters
constexpr uint8_t kIncompletePool = 4;  // its pool is incomplete
constexpr uint8_t kAllocatedFlag = 8;   // a claim holds it

// A matched device's outcome when its flags settle it; none when it is schedulable but for the
// counters it draws from (the greedy pass decides).
std::optional<DeviceOutcome> OutcomeBeforeCounters(
    uint8_t f, const dra::Device& device, absl::Span<const dra::DeviceToleration> tolerations) {
  if ((f & kAllocatedFlag) != 0) return DeviceOutcome::kAllocated;
  if (f == 0) return DeviceOutcome::kSchedulable;
  if ((f & kTainted) != 0 && !dra::ToleratesDevice(device, tolerations)) {
    return DeviceOutcome::kTainted;
  }
  if ((f & kIncompletePool) != 0) return DeviceOutcome::kIncompletePool;
  if ((f & kCounters) == 0) return DeviceOutcome::kSchedulable;
  return std::nullopt;
}

// Sets device `d`'s outcome and counts it.
void RecordAllocatable(DeviceOutcome outcome, size_t d, AllocatableCount* out) {
  out->outcome[d] = outcome;
  switch (outcome) {
    case DeviceOutcome::kSchedulable:
      ++out->schedulable_count;
      break;
    case DeviceOutcome::kTainted:
      ++out->tainted_count;
      break;
    case DeviceOutcome::kIncompletePool:
      ++out->incomplete_pool_count;
      break;
    case DeviceOutcome::kCounterBlocked:
      ++out->counter_blocked_count;
      break;
    case DeviceOutcome::kOverlapping:
      ++out->overlapping_count;
      break;
    case DeviceOutcome::kUnavailable:
      ++out->unavailable_count;
      break;
    case DeviceOutcome::kAllocated:
      ++out->allocated_count;
      break;
    case DeviceOutcome::kNotMatched:
      break;
  }
}

}  // namespace

void AddDeviceState(DeviceOutcome outcome, api::DeviceStates* states, int64_t n) {
  switch (outcome) {
    case DeviceOutcome::kSchedulable:
      states->free += n;
      break;
    case DeviceOutcome::kOverlapping:
      states->overlapping += n;
      break;
    case DeviceOutcome::kAllocated:
      states->allocated += n;
      break;
    case DeviceOutcome::kCounterBlocked:
      states->blocked_by_counters += n;
      break;
    case DeviceOutcome::kTainted:
      states->tainted += n;
      break;
    case DeviceOutcome::kIncompletePool:
      states->incomplete_pool += n;
      break;
    case DeviceOutcome::kUnavailable:
      states->unavailable += n;
      break;
    case DeviceOutcome::kNotMatched:
      break;
  }
}

// One device that draws from counters, for the greedy pass.
struct AllocationModel::Candidate {
  absl::string_view driver;
  absl::string_view pool;
  double share = 0;  // sum over its counters of amount / the set's total
  uint32_t index = 0;
};

// What one device draws, summed per counter (a device may draw one counter twice, from two
// consumption entries). False when a sum cannot be made: the device does not fit.
bool AllocationModel::CounterNeeds(const dra::Device& device,
                                   absl::flat_hash_map<CounterKey, Quantity>* need) {
  bool ok = true;
  for (const dra::CounterUse& use : device.counters_consumed()) {
    auto [it, inserted] = need->try_emplace(CounterKey{use.counter_set, use.counter}, *use.value);
    if (inserted) continue;
    absl::StatusOr<Quantity> sum = it->second.Add(*use.value);
    if (sum.ok()) {
      it->second = *sum;
    } else {
      ok = false;
    }
  }
  return ok;
}

AllocationModel::AllocationModel(const dra::Inventory& inventory) : inventory_(&inventory) {
  const std::vector<dra::Device>& devices = inventory.devices();
  flags_.assign(devices.size(), 0);
  absl::flat_hash_set<std::pair<absl::string_view, absl::string_view>> incomplete;
  for (const dra::PoolInfo& pool : inventory.pools()) {
    if (pool.incomplete) incomplete.emplace(pool.driver, pool.name);
  }
  for (size_t d = 0; d < devices.size(); ++d) {
    const dra::Device& device = devices[d];
    uint8_t f = 0;
    if (device.has_taints() && device.HasSchedulingTaint()) f |= kTainted;
    if (device.consumes_counters()) f |= kCounters;
    if (!incomplete.empty() &&
        incomplete.contains(std::make_pair(device.driver(), device.pool()))) {
      f |= kIncompletePool;
    }
    flags_[d] = f;
    any_flag_ = any_flag_ || f != 0;
    only_allocated_flags_ = only_allocated_flags_ && f == 0;
  }
}

AllocationModel::AllocationModel(const dra::Inventory& inventory,
                                 const std::vector<bool>& allocated)
    : AllocationModel(inventory) {
  const std::vector<dra::Device>& devices = inventory.devices();
  for (size_t d = 0; d < devices.size() && d < allocated.size(); ++d) {
    if (!allocated[d]) continue;
    flags_[d] |= kAllocatedFlag;
    any_flag_ = true;
    const dra::Device& device = devices[d];
    for (const dra::CounterUse& use : device.counters_consumed()) {
      auto [it, inserted] = allocated_use_.try_emplace(
          CounterOfPool{device.driver(), device.pool(), use.counter_set, use.counter}, *use.value);
      if (!inserted) {
        absl::StatusOr<Quantity> sum = it->second.Add(*use.value);
        if (sum.ok()) it->second = *sum;
      }
    }
  }
}

int64_t AllocationModel::SchedulableCount(
    const DeviceSet& matched, absl::Span<const dra::DeviceToleration> tolerations) const {
  if (!only_allocated_flags_) return Count(matched, tolerations).schedulable_count;
  int64_t count = 0;
  matched.ForEach([&](size_t d) { count += d < flags_.size() && flags_[d] == 0 ? 1 : 0; });
  return count;
}

AllocatableCount AllocationModel::Count(const DeviceSet& matched,
                                        absl::Span<const dra::DeviceToleration> tolerations) const {
  const std::vector<dra::Device>& devices = inventory_->devices();
  AllocatableCount out;
  if (!any_flag_) {
    matched.ForEach([&](size_t d) { out.schedulable_count += d < devices.size() ? 1 : 0; });
    return out;
  }
  out.outcome.assign(devices.size(), DeviceOutcome::kNotMatched);
  std::vector<Candidate> candidates = Classify(matched, tolerations, &out);
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.driver, a.pool, a.share, a.index) <
           std::tie(b.driver, b.pool, b.share, b.index);
  });
  TakeCounters(candidates, &out);
  return out;
}

std::vector<AllocationModel::Candidate> AllocationModel::Classify(
    const DeviceSet& matched, absl::Span<const dra::DeviceToleration> tolerations,
    AllocatableCount* out) const {
  const std::vector<dra::Device>& devices = inventory_->devices();
  std::vector<Candidate> candidates;
  matched.ForEach([&](size_t d) {
    if (d >= devices.size()) return;
    if (std::optional<DeviceOutcome> outcome =
            OutcomeBeforeCounters(flags_[d], devices[d], tolerations)) {
      RecordAllocatable(*outcome, d, out);
      return;
    }
    const dra::Device& device = devices[d];
    Candidate c{device.driver(), device.pool(), 0, static_cast<uint32_t>(d)};
    for (const dra::CounterUse& use : device.counters_consumed()) {
      const dra::PoolCounterSet* set =
          inventory_->FindCounterSet(device.driver(), device.pool(), use.counter_set);
      if (set == nullptr) continue;
      for (const auto& [name, total] : set->set.counters) {
        if (name != use.counter) continue;
        const double t = total.AsApproximateDouble();
        if (t > 0) c.share += use.value->AsApproximateDouble() / t;
      }
    }
    candidates.push_back(c);
  });
  return candidates;
}

void AllocationModel::TakeCounters(const std::vector<Candidate>& candidates,
                                   AllocatableCount* out) const {
  const std::vector<dra::Device>& devices = inventory_->devices();
  // What is left of each counter of the current pool; filled from the inventory on first use.
  absl::flat_hash_map<CounterKey, Quantity> left;
  absl::string_view pool_driver, pool_name;
  for (const Candidate& c : candidates) {
    if (c.driver != pool_driver || c.pool != pool_name) {
      left.clear();
      pool_driver = c.driver;
      pool_name = c.pool;
    }
    // Fits when every counter it draws exists and has enough left.
    absl::flat_hash_map<CounterKey, Quantity> need;
    if (!CounterNeeds(devices[c.index], &need)) {
      RecordAllocatable(DeviceOutcome::kUnavailable, c.index, out);
      continue;
    }
    if (!Fits(c, need, &left)) {
      RecordAllocatable(WhyNotFits(c, need), c.index, out);
      continue;
    }
    for (const auto& [key, amount] : need) {
      absl::StatusOr<Quantity> rest = left.at(key).Sub(amount);
      if (rest.ok()) left.at(key) = *rest;
    }
    RecordAllocatable(DeviceOutcome::kSchedulable, c.index, out);
  }
}

bool AllocationModel::Fits(const Candidate& c,
                           const absl::flat_hash_map<CounterKey, Quantity>& need,
                           absl::flat_hash_map<CounterKey, Quantity>* left) const {
  for (const auto& [key, amount] : need) {
    auto it = left->find(key);
    if (it == left->end()) {
      std::optional<Quantity> free = CounterFree(c.driver, c.pool, key);
      // The scheduler cannot allocate a device whose counter is unknown.
      if (!free.has_value()) return false;
      it = left->emplace(key, *free).first;
    }
    if (it->second < amount) return false;
  }
  return true;
}

DeviceOutcome AllocationModel::WhyNotFits(
    const Candidate& c, const absl::flat_hash_map<CounterKey, Quantity>& need) const {
  bool blocked = false;
  for (const auto& [key, amount] : need) {
    const Quantity* total = CounterTotal(c.driver, c.pool, key);
    if (total == nullptr || *total < amount) return DeviceOutcome::kUnavailable;
    std::optional<Quantity> free = CounterFree(c.driver, c.pool, key);
    blocked = blocked || !free.has_value() || *free < amount;
  }
  return blocked ? DeviceOutcome::kCounterBlocked : DeviceOutcome::kOverlapping;
}

const Quantity* AllocationModel::CounterTotal(absl::string_view driver, absl::string_view pool,
                                              const CounterKey& key) const {
  const dra::PoolCounterSet* set = inventory_->FindCounterSet(driver, pool, key.first);
  if (set == nullptr) return nullptr;
  const Quantity* total = nullptr;
  for (const auto& [name, q] : set->set.counters) {
    if (name == key.second) total = &q;
  }
  return total;
}

std::optional<Quantity> AllocationModel::CounterFree(absl::string_view driver,
                                                     absl::string_view pool,
                                                     const CounterKey& key) const {
  const Quantity* total = CounterTotal(driver, pool, key);
  if (total == nullptr) return std::nullopt;
  Quantity free = *total;
  if (!allocated_use_.empty()) {
    auto used = allocated_use_.find(CounterOfPool{driver, pool, key.first, key.second});
    if (used != allocated_use_.end()) {
      absl::StatusOr<Quantity> rest = free.Sub(used->second);
      // More allocated than the set holds (a stale slice): nothing is left.
      free = rest.ok() && !(*rest < Quantity()) ? *rest : Quantity();
    }
  }
  return free;
}

}  // namespace gpuprofile::profile
