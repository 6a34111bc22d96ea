// File: controller/profile/claim_allocations.h
// What the cluster's ResourceClaims (dra/resource_claim.h) say about devices and classes:
// - which inventory devices a claim holds (input to AllocationModel, allocatable.h), and how
//   many results name a device the inventory does not have (its slice is gone or not yet seen);
// - per device class: devices allocated from it, claims allocated and claims pending for it,
//   and when the oldest pending claim was created.
// A claim is pending when it is not allocated and not being deleted; it is pending for every
// class its requests may be satisfied from (each firstAvailable entry's), since the scheduler
// may pick any of them. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "controller/dra/inventory.h"
#include "controller/dra/resource_claim.h"

namespace gpuprofile::profile {

struct DeviceClaims {
  std::vector<bool> allocated;  // indexed like inventory.devices()
  int64_t allocated_devices = 0;  // distinct inventory devices held
  int64_t results_outside_inventory = 0;
};

DeviceClaims IndexAllocatedDevices(const dra::Inventory& inventory,
                                   absl::Span<const dra::ResourceClaim* const> claims);

struct ClassClaims {
  int64_t allocated_devices = 0;  // allocation results from this class
  int64_t allocated_claims = 0;   // allocated claims with at least one such result
  int64_t pending_claims = 0;
  std::optional<absl::Time> oldest_pending;  // creation time; unset when none or unknown
};

absl::flat_hash_map<std::string, ClassClaims> SummariseClaimsByClass(
    absl::Span<const dra::ResourceClaim* const> claims);

}  // namespace gpuprofile::profile
