// File: controller/dra/inventory.cc
#include "controller/dra/inventory.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {
namespace {

bool DeviceLess(const Device& a, const Device& b) {
  const absl::string_view an = a.node(), bn = b.node();
  if (an != bn) return an < bn;
  return std::make_tuple(a.pool(), a.name(), a.driver(), a.slice_name()) <
         std::make_tuple(b.pool(), b.name(), b.driver(), b.slice_name());
}

}  // namespace

Inventory Inventory::FromSlices(std::vector<ResourceSlice> slices) {
  std::vector<std::shared_ptr<const ResourceSlice>> shared;
  shared.reserve(slices.size());
  for (ResourceSlice& slice : slices) {
    shared.push_back(std::make_shared<const ResourceSlice>(std::move(slice)));
  }
  return FromSlices(std::move(shared));
}

Inventory Inventory::FromSlices(std::vector<std::shared_ptr<const ResourceSlice>> slices) {
  // The last slice of each name wins; std::map keeps the names sorted for determinism.
  std::map<absl::string_view, const ResourceSlice*> by_name;
  for (const std::shared_ptr<const ResourceSlice>& slice : slices) {
    if (slice != nullptr) by_name[slice->name] = slice.get();
  }

  using PoolKey = std::pair<absl::string_view, absl::string_view>;  // (driver, pool name)
  std::map<PoolKey, int64_t> newest;
  for (const auto& [name, slice] : by_name) {
    auto [it, inserted] =
        newest.emplace(PoolKey{slice->driver, slice->pool}, slice->pool_generation);
    if (!inserted) it->second = std::max(it->second, slice->pool_generation);
  }

  Inventory inventory;
  size_t device_count = 0;
  for (const auto& [name, slice] : by_name) device_count += slice->devices.size();
  auto devices = std::make_shared<std::vector<Device>>();
  devices->reserve(device_count);
  std::map<PoolKey, PoolInfo> pools;
  for (const auto& [name, slice] : by_name) {
    const PoolKey key{slice->driver, slice->pool};
    const int64_t generation = newest[key];
    if (slice->pool_generation < generation) {
      ++inventory.stale_slices_ignored_;
      continue;
    }
    PoolInfo& pool = pools[key];
    pool.driver = slice->driver;
    pool.name = slice->pool;
    pool.generation = generation;
    ++pool.slice_count_seen;
    pool.resource_slice_count = std::max(pool.resource_slice_count, slice->resource_slice_count);
    pool.device_count += static_cast<int64_t>(slice->devices.size());
    // Devices are handles on their slice's storage: copying them copies no attribute.
    devices->insert(devices->end(), slice->devices.begin(), slice->devices.end());
  }
  for (auto& [key, pool] : pools) {
    pool.incomplete = pool.slice_count_seen != pool.resource_slice_count;
    inventory.pools_.push_back(std::move(pool));
  }
  std::sort(devices->begin(), devices->end(), DeviceLess);
  if (!devices->empty()) inventory.devices_ = std::move(devices);
  return inventory;
}

const std::vector<Device>& Inventory::devices() const {
  static const std::vector<Device>* const kNone = new std::vector<Device>();
  return devices_ != nullptr ? *devices_ : *kNone;
}

std::vector<PoolInfo> Inventory::IncompletePools() const {
  std::vector<PoolInfo> out;
  for (const PoolInfo& pool : pools_) {
    if (pool.incomplete) out.push_back(pool);
  }
  return out;
}

namespace {

// Decodes the ResourceSlices among `objects` into `slices`, with BuildInventory's errors; records
// where each name was first read.
void DecodeObjects(const std::vector<ManifestObject>& objects, std::vector<ResourceSlice>* slices,
                   std::map<std::string, const ManifestObject*>* first_by_name,
                   std::vector<std::string>* errors) {
  for (const ManifestObject& object : objects) {
    if (!IsResourceSlice(object.object)) continue;
    absl::StatusOr<ResourceSlice> slice = DecodeSlice(object.object);
    if (!slice.ok()) {
      for (absl::string_view line : absl::StrSplit(slice.status().message(), '\n')) {
        errors->push_back(absl::StrCat(object.Location(), ": ", line));
      }
      continue;
    }
    auto [it, inserted] = first_by_name->emplace(slice->name, &object);
    if (!inserted) {
      if (it->second->object == object.object) continue;  // the same object read twice
      errors->push_back(absl::StrCat(object.Location(), ": ", object.Describe(),
                                     ": metadata.name: another, different ResourceSlice with this "
                                     "name was read from ",
                                     it->second->Location()));
      continue;
    }
    slices->push_back(*std::move(slice));
  }
}

}  // namespace

absl::StatusOr<Inventory> BuildInventory(const std::vector<ManifestObject>& objects) {
  std::vector<std::string> errors;
  std::vector<ResourceSlice> slices;
  std::map<std::string, const ManifestObject*> first_by_name;
  DecodeObjects(objects, &slices, &first_by_name, &errors);
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  return Inventory::FromSlices(std::move(slices));
}

absl::StatusOr<Inventory> BuildInventory(std::vector<LoadedSlice> loaded,
                                         const std::vector<ManifestObject>& objects) {
  std::vector<std::string> errors;
  std::vector<ResourceSlice> slices;
  std::map<std::string, const ManifestObject*> first_by_name;
  DecodeObjects(objects, &slices, &first_by_name, &errors);
  std::map<std::string, const LoadedSlice*> loaded_by_name;
  for (const LoadedSlice& s : loaded) {
    std::string other;
    if (auto it = first_by_name.find(s.slice.name); it != first_by_name.end()) {
      other = it->second->Location();
    } else if (auto [at, inserted] = loaded_by_name.emplace(s.slice.name, &s); !inserted) {
      other = at->second->Location();
    }
    if (!other.empty()) {
      errors.push_back(absl::StrCat(s.Location(), ": ResourceSlice \"", s.slice.name,
                                    "\": metadata.name: another, different ResourceSlice with "
                                    "this name was read from ",
                                    other));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
  slices.reserve(slices.size() + loaded.size());
  for (LoadedSlice& s : loaded) slices.push_back(std::move(s.slice));
  std::vector<LoadedSlice>().swap(loaded);
  return Inventory::FromSlices(std::move(slices));
}

}  // namespace gpuprofile::dra
