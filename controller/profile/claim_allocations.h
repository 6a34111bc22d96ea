// File: controller/profile/claim_allocations.h
// What the cluster's ResourceClaims (dra/resource_claim.h) say about devices and classes:
// - which inventory devices a claim holds (input to AllocationModel, allocatable.h), and how
//   many results name a device the inventory does not have (its slice is gone or not yet seen);
// - per device class: devices allocated from it, claims allocated and claims pending for it,
//   and when the oldest pending claim was created.
// A claim is pending when it is not allocated and not being deleted; it is pending for every
// class its requests may be satisfied from (each firstAvailable entry's), since the scheduler
// may pick any of them.
//
// ClaimLedger is both, worked out once per change of the claims: the operator recomputes its
// desired state on every ResourceSlice change too, and at 30,000 claims re-reading them for
// each slice change cost more than the rest of the computation (bench/desired_state_benchmark,
// BM_OperatorPathWithClaims). Matching the held devices to an inventory then walks the
// inventory once, looking each pool up once. The ledger refers to the claims' interned names
// (ClaimSymbol), which live as long as the process, not to the claims themselves.
// Pure; immutable after construction, so thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "controller/core/quantity.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"
#include "controller/profile/storage_table.h"

namespace gpuprofile::profile {

// What one device's claims take of it (their results' consumedCapacity, summed per name).
using CapacityTaken = std::vector<std::pair<std::string, Quantity>>;

struct DeviceClaims {
  std::vector<bool> allocated;  // indexed like inventory.devices()
  int64_t allocated_devices = 0;  // distinct inventory devices held
  int64_t results_outside_inventory = 0;
  // Held devices whose claims recorded consumed capacity (shared devices), by inventory index.
  absl::flat_hash_map<uint32_t, CapacityTaken> taken;
};

struct ClassClaims {
  int64_t allocated_devices = 0;  // allocation results from this class
  int64_t allocated_claims = 0;   // allocated claims with at least one such result
  int64_t pending_claims = 0;
  std::optional<absl::Time> oldest_pending;  // creation time; unset when none or unknown
};

// What ClaimLedger::Held found for each device, kept between calls per device storage
// (dra::Device::storage_id: one per decoded slice), so that after a ResourceSlice change only
// the devices of the changed slices are looked up in the ledger again. At 5,000 nodes with
// 30,000 claims the lookups took about a sixth of each computation of the desired state, which
// the operator repeats on every slice change while the claims stay as they were. Forgets
// everything when asked about another ledger, and, at the end of each call, the storage that
// call did not see (it holds what it remembers alive, so an address is never taken for another
// storage's). Thread-compatible: one per caller.
class HeldMemo {
 public:
  HeldMemo() = default;
  HeldMemo(const HeldMemo&) = delete;
  HeldMemo& operator=(const HeldMemo&) = delete;

  size_t storage_entries() const { return by_storage_.size(); }

 private:
  friend class ClaimLedger;
  struct Entry {
    uint64_t call = 0;            // the last call that saw it
    std::vector<uint32_t> slots;  // by storage index; kUnknown until looked up
  };
  static constexpr uint32_t kUnknown = UINT32_MAX;

  void Begin(uint64_t ledger_id);
  // The slot of `device`: kUnknown until the caller fills it.
  uint32_t& Slot(const dra::Device& device);
  void End();

  uint64_t ledger_id_ = 0;
  uint64_t call_ = 0;
  StorageTable<Entry> by_storage_;
};

class ClaimLedger {
 public:
  ClaimLedger() = default;  // no claims
  explicit ClaimLedger(absl::Span<const dra::ResourceClaim* const> claims);

  // Building one claim at a time (a cache's ForEach): Reserve (optional) for about `results`
  // allocation results, Add each claim, then Finish once before any query.
  void Reserve(size_t results) { held_.reserve(results); }
  void Add(const dra::ResourceClaim& claim);
  void Finish();
  // Empties the ledger for building again, keeping its tables' room: a caller that refolds on
  // every claim change then allocates no new table each time.
  void Clear();

  // The devices of `inventory` the claims hold.
  // With a `memo`, only the devices it does not know for this ledger are looked up; the result
  // is the same whatever the memo holds.
  DeviceClaims Held(const dra::Inventory& inventory, HeldMemo* memo = nullptr) const;
  // The class's summary; null when no claim asks for or holds a device of it.
  const ClassClaims* ForClass(absl::string_view device_class) const;
  // Keyed by the interned class names (they outlive the ledger).
  const absl::flat_hash_map<absl::string_view, ClassClaims>& by_class() const { return by_class_; }
  // Allocation results in all (a device held by two claims counts twice).
  int64_t results() const { return results_; }

 private:
  // One held device and how many results name it, sorted by (driver, pool, device) value.
  struct HeldDevice {
    dra::ClaimSymbol driver;
    dra::ClaimSymbol pool;
    dra::ClaimSymbol device;
    uint32_t results;
  };
  // Where Held walks: the pool of the last device looked up and its range in held_.
  struct PoolCursor {
    absl::string_view driver, pool;
    bool valid = false;
    uint32_t begin = 0, end = 0;
  };
  static constexpr uint32_t kNotHeld = UINT32_MAX - 1;
  // The index of `device` in held_, or kNotHeld.
  uint32_t Find(const dra::Device& device, PoolCursor* cursor) const;

  // Unique per Finish() in the process (HeldMemo tells ledgers apart by it).
  uint64_t id_ = 0;
  std::vector<HeldDevice> held_;
  // What the claims take of the shared ones among held_, by index in held_.
  absl::flat_hash_map<uint32_t, CapacityTaken> taken_;
  // Each pool's range [first, last) in held_, keyed by (driver, pool).
  absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>, std::pair<uint32_t, uint32_t>>
      pools_;
  absl::flat_hash_map<absl::string_view, ClassClaims> by_class_;
  int64_t results_ = 0;
  // Consumed capacity until Finish places it in taken_: the device, and the claim's list with
  // the entry's index (the shared list outlives the claim, which may go before Finish).
  struct PendingTaken {
    HeldDevice device;
    std::shared_ptr<const std::vector<dra::ConsumedCapacity>> list;
    size_t entry;
  };
  std::vector<PendingTaken> pending_taken_;
};

// Shorthands for one-off callers (tests, explain): a ledger of `claims`, then its answer.
DeviceClaims IndexAllocatedDevices(const dra::Inventory& inventory,
                                   absl::Span<const dra::ResourceClaim* const> claims);
absl::flat_hash_map<std::string, ClassClaims> SummariseClaimsByClass(
    absl::Span<const dra::ResourceClaim* const> claims);

}  // namespace gpuprofile::profile
