// File: controller/profile/allocatable.h
// Of the devices a profile's selectors match, how many the scheduler could allocate at once
// (status.schedulableDevices, and the Satisfiable condition). A matched device is left out when
// - it carries a taint that prevents scheduling (NoSchedule or NoExecute; None and effects this
//   project does not know do not, as the API prescribes) and the profile's claims do not
//   tolerate it;
// - its pool is incomplete (not every slice of its newest generation is published): the
//   scheduler allocates no device of such a pool;
// - it draws from counters (partitionable devices: MIG placements, memory slices) that are
//   missing or already used up by the devices counted before it.
// Counters are shared: the full GPU and each MIG placement of it draw from the same counter set,
// so counting every matched placement would overstate what can run at once. Within each pool
// the devices that draw from counters are taken smallest first (by the share of their counter
// sets they use, then in inventory order), each counted only if every counter it draws still
// has enough left; the result is one allocation the scheduler could make, so the count never
// exceeds what fits (it can fall short of the best packing in contrived layouts).
// With the cluster's allocations (ResourceClaims' results, see allocations.h), a matched device a
// claim holds is Allocated rather than free, and every allocated device of a pool (matched or
// not: another profile's claim on a MIG placement uses the same GPU) draws its counters before
// the free devices are counted, so `schedulable_count` is then what is free right now.
// Thread-compatible; the model is immutable after construction and may be shared for reading.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "controller/api/gpu_profile.h"
#include "controller/core/quantity.h"
#include "controller/dra/device_toleration.h"
#include "controller/dra/inventory.h"
#include "controller/profile/device_set.h"

namespace gpuprofile::profile {

// What became of one device.
enum class DeviceOutcome : uint8_t {
  kNotMatched,
  kSchedulable,
  kTainted,         // an untolerated taint
  kIncompletePool,  // its pool is incomplete
  // Draws counters that allocated devices (any claim's, of any class) use up: taken alone, it
  // does not fit in what they leave (a whole GPU blocked by its allocated MIG placements).
  kCounterBlocked,
  // Fits alone, but draws counters that the devices counted schedulable before it use: free, yet
  // not at the same time as those (a whole GPU and its free MIG placements).
  kOverlapping,
  // A counter it draws is missing from its pool, or it draws more than the counter holds (or
  // its sum overflows): the scheduler never allocates it.
  kUnavailable,
  kAllocated,  // a claim holds it (only with allocations)
};

struct AllocatableCount {
  // Indexed like inventory.devices(); empty when nothing in the inventory can keep a device from
  // being allocated (no taint, counter or incomplete pool): use Of().
  std::vector<DeviceOutcome> outcome;
  DeviceOutcome Of(size_t device, const DeviceSet& matched) const {
    if (!outcome.empty()) return outcome[device];
    return matched[device] ? DeviceOutcome::kSchedulable : DeviceOutcome::kNotMatched;
  }
  // For callers holding a std::vector<bool> (tests): converts it on every call.
  DeviceOutcome Of(size_t device, const std::vector<bool>& matched) const {
    return Of(device, DeviceSet::Of(matched));
  }
  int64_t schedulable_count = 0;
  // Matched devices left out because of an untolerated taint.
  int64_t tainted_count = 0;
  // Matched, untainted devices left out for their pool (incomplete) or their counters.
  int64_t incomplete_pool_count = 0;
  int64_t counter_blocked_count = 0;
  int64_t overlapping_count = 0;
  int64_t unavailable_count = 0;
  // Left out for their counters, whatever the reason.
  int64_t counter_limited_count() const {
    return counter_blocked_count + overlapping_count + unavailable_count;
  }
  // Matched devices a claim holds (only with allocations). A device that allows multiple
  // allocations counts here once it holds a claim; what room it has left is not modelled.
  int64_t allocated_count = 0;
};

// Adds `n` matched devices of one outcome to the state they are counted in (api::DeviceStates:
// with claims, kSchedulable is free and kCounterBlocked blockedByCounters). kNotMatched adds
// nothing.
void AddDeviceState(DeviceOutcome outcome, api::DeviceStates* states, int64_t n = 1);

class AllocationModel {
 public:
  // Reads the inventory once (taints, counters, incomplete pools); keeps a pointer to it.
  explicit AllocationModel(const dra::Inventory& inventory);
  // The same, with the devices claims hold: `allocated` is indexed like inventory.devices() (a
  // shorter vector leaves the rest free).
  AllocationModel(const dra::Inventory& inventory, const std::vector<bool>& allocated);

  // `matched` is over inventory.devices().
  AllocatableCount Count(const DeviceSet& matched,
                         absl::Span<const dra::DeviceToleration> tolerations = {}) const;
  AllocatableCount Count(const std::vector<bool>& matched,
                         absl::Span<const dra::DeviceToleration> tolerations = {}) const {
    return Count(DeviceSet::Of(matched), tolerations);
  }
  // True when nothing in the inventory keeps a device from being allocated: every matched device
  // is schedulable (the common fleet, which then pays nothing for this model).
  bool AllSchedulable() const { return !any_flag_; }
  // True when claims are the only thing keeping devices back (no taint, counter or incomplete
  // pool anywhere): a matched device is then allocated when a claim holds it, else schedulable,
  // and a caller need not pay for Count's per-device outcomes.
  bool OnlyClaimsMatter() const { return only_allocated_flags_; }
  // Count(matched, tolerations).schedulable_count, without the per-device outcomes: when claims
  // are the only thing keeping devices back (no taint, counter or incomplete pool anywhere: the
  // common fleet), a count of the matched devices no claim holds.
  int64_t SchedulableCount(const DeviceSet& matched,
                           absl::Span<const dra::DeviceToleration> tolerations = {}) const;
  int64_t SchedulableCount(const std::vector<bool>& matched,
                           absl::Span<const dra::DeviceToleration> tolerations = {}) const {
    return SchedulableCount(DeviceSet::Of(matched), tolerations);
  }

 private:
  struct Candidate;  // a matched device that draws from counters (allocatable.cc)
  // Counter key within one pool: (set, counter).
  using CounterKey = std::pair<absl::string_view, absl::string_view>;

  // Count's stages. Classify settles each matched device its flags decide (setting its outcome
  // in `out`) and returns those that draw from counters; TakeCounters then walks these, smallest
  // first within each pool, and counts each only if every counter it draws has enough left.
  std::vector<Candidate> Classify(const DeviceSet& matched,
                                  absl::Span<const dra::DeviceToleration> tolerations,
                                  AllocatableCount* out) const;
  void TakeCounters(const std::vector<Candidate>& candidates, AllocatableCount* out) const;
  static bool CounterNeeds(const dra::Device& device,
                           absl::flat_hash_map<CounterKey, Quantity>* need);
  // Whether `left` (what is left of the pool's counters, filled on first use) covers `need`.
  bool Fits(const Candidate& c, const absl::flat_hash_map<CounterKey, Quantity>& need,
            absl::flat_hash_map<CounterKey, Quantity>* left) const;
  // Why a candidate that does not fit now is left out: kUnavailable when a counter it draws is
  // missing or smaller than its need, kCounterBlocked when allocated devices leave too little,
  // kOverlapping when only the devices counted before it do.
  DeviceOutcome WhyNotFits(const Candidate& c,
                           const absl::flat_hash_map<CounterKey, Quantity>& need) const;
  // One counter of a pool: its total; none when the pool has no such counter.
  const Quantity* CounterTotal(absl::string_view driver, absl::string_view pool,
                               const CounterKey& key) const;
  // What allocated devices leave of one counter of a pool; none when the pool has no such
  // counter.
  std::optional<Quantity> CounterFree(absl::string_view driver, absl::string_view pool,
                                      const CounterKey& key) const;

  const dra::Inventory* inventory_;
  std::vector<uint8_t> flags_;  // per device: kTainted | kCounters | kIncompletePool | kAllocated
  // Per (driver, pool, counter set, counter): what allocated devices draw. The names point into
  // the inventory's device storage, which outlives the model: no string is copied per key.
  using CounterOfPool =
      std::tuple<absl::string_view, absl::string_view, absl::string_view, absl::string_view>;
  absl::flat_hash_map<CounterOfPool, Quantity> allocated_use_;
  bool any_flag_ = false;
  bool only_allocated_flags_ = true;  // no device has a flag but kAllocated
};

}  // namespace gpuprofile::profile
