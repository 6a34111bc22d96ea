// File: controller/profile/claim_allocations.cc
#include "controller/profile/claim_allocations.h"

#include <string>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::profile {
namespace {

using DeviceKey = std::tuple<absl::string_view, absl::string_view, absl::string_view>;

}  // namespace

DeviceClaims IndexAllocatedDevices(const dra::Inventory& inventory,
                                   absl::Span<const dra::ResourceClaim* const> claims) {
  const std::vector<dra::Device>& devices = inventory.devices();
  DeviceClaims out;
  out.allocated.assign(devices.size(), false);
  absl::flat_hash_map<DeviceKey, uint32_t> index;
  index.reserve(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    index.emplace(DeviceKey{devices[d].driver(), devices[d].pool(), devices[d].name()},
                  static_cast<uint32_t>(d));
  }
  for (const dra::ResourceClaim* claim : claims) {
    for (const dra::ClaimDeviceResult& result : claim->results) {
      auto it =
          index.find(DeviceKey{result.driver.str(), result.pool.str(), result.device.str()});
      if (it == index.end()) {
        ++out.results_outside_inventory;
        continue;
      }
      if (!out.allocated[it->second]) ++out.allocated_devices;
      out.allocated[it->second] = true;
    }
  }
  return out;
}

absl::flat_hash_map<std::string, ClassClaims> SummariseClaimsByClass(
    absl::Span<const dra::ResourceClaim* const> claims) {
  absl::flat_hash_map<std::string, ClassClaims> out;
  for (const dra::ResourceClaim* claim : claims) {
    if (claim->allocated) {
      absl::flat_hash_set<std::string> classes;
      for (const dra::ClaimDeviceResult& result : claim->results) {
        std::string device_class = claim->ClassOfResult(result);
        if (device_class.empty()) continue;
        ++out[device_class].allocated_devices;
        classes.insert(std::move(device_class));
      }
      for (const std::string& device_class : classes) ++out[device_class].allocated_claims;
      continue;
    }
    if (claim->deleting) continue;
    absl::flat_hash_set<absl::string_view> classes;
    for (const dra::ClaimRequest& request : claim->requests) {
      for (const std::string& device_class : request.device_classes) classes.insert(device_class);
    }
    for (absl::string_view device_class : classes) {
      ClassClaims& summary = out[device_class];
      ++summary.pending_claims;
      if (claim->created &&
          (!summary.oldest_pending || *claim->created < *summary.oldest_pending)) {
        summary.oldest_pending = claim->created;
      }
    }
  }
  return out;
}

}  // namespace gpuprofile::profile
