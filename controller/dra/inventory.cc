// File: controller/dra/inventory.cc
#include "controller/dra/inventory.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {
namespace {

// The rank of each distinct string among `values`, in sorted order: comparing ranks compares
// the strings.
class Ranks {
 public:
  void Add(absl::string_view value) {
    if (rank_.try_emplace(value, 0).second) values_.push_back(value);
  }
  void Assign() {
    // Values arrive in slice-name order, which usually is their own order (slices are named
    // after their node): checking is cheaper than sorting.
    if (!std::is_sorted(values_.begin(), values_.end())) std::sort(values_.begin(), values_.end());
    for (uint32_t i = 0; i < values_.size(); ++i) rank_[values_[i]] = i;
  }
  uint32_t Of(absl::string_view value) const { return rank_.at(value); }

 private:
  absl::flat_hash_map<absl::string_view, uint32_t> rank_;
  std::vector<absl::string_view> values_;  // in order of first Add
};

// The devices of `slices` (sorted by name), sorted by node, pool, device name, driver, then
// slice name. The operator rebuilds the inventory of 40,000 devices on every slice change:
// comparing ranks, most of them worked out once per slice, takes a fraction of the time of
// comparing the strings through the devices' storage.
//
// The usual fleet takes a shorter way (ConcatenatedInOrder, Inventory::ConcatenateSlices).
// Appends to `sorted` (empty).
void SortedDevices(const std::vector<const ResourceSlice*>& slices, std::vector<Device>* sorted);

// Whether the order above is each slice's devices in turn, in name order within each: every
// slice names its node, and the slices (sorted by name) ascend strictly by (node, pool): one
// slice per node and pool, named after its node, as drivers publish them. The check reads two
// strings per slice, where the general order ranks every node, pool and driver in hash maps and
// sorts a key per device.
bool ConcatenatedInOrder(const std::vector<const ResourceSlice*>& slices) {
  for (size_t s = 0; s < slices.size(); ++s) {
    if (slices[s]->node_name.empty()) return false;
    if (s == 0) continue;
    const ResourceSlice& a = *slices[s - 1];
    const ResourceSlice& b = *slices[s];
    if (!(std::tie(a.node_name, a.pool) < std::tie(b.node_name, b.pool))) return false;
  }
  return true;
}

// Whether `run` holds `slice`'s devices in the slice's own order: the same storage and index,
// device by device. Pointer and integer comparisons only: no name is read.
bool SameDevices(const ResourceSlice& slice, const void* storage,
                 std::vector<Device>::const_iterator run) {
  for (const Device& device : slice.devices) {
    if (device.storage_id() != storage || run->storage_id() != storage ||
        run->storage_index() != device.storage_index()) {
      return false;
    }
    ++run;
  }
  return true;
}

void SortedDevices(const std::vector<const ResourceSlice*>& slices, std::vector<Device>* sorted) {
  // Nodes, pools and drivers are ranked (few, and mostly one per slice); device names are
  // compared as text, which happens only between devices of one node and pool.
  Ranks nodes, pools, drivers;
  size_t count = 0;
  for (const ResourceSlice* slice : slices) {
    pools.Add(slice->pool);
    drivers.Add(slice->driver);
    if (!slice->node_name.empty()) nodes.Add(slice->node_name);
    for (const Device& d : slice->devices) {
      if (slice->node_name.empty()) nodes.Add(d.node());
    }
    count += slice->devices.size();
  }
  for (Ranks* r : {&nodes, &pools, &drivers}) r->Assign();
  struct Key {
    uint32_t node, pool, driver, slice;  // ranks; slices are sorted by name
    absl::string_view name;
    const Device* device;
  };
  std::vector<Key> keys;
  keys.reserve(count);
  for (uint32_t s = 0; s < slices.size(); ++s) {
    const ResourceSlice& slice = *slices[s];
    const uint32_t pool = pools.Of(slice.pool), driver = drivers.Of(slice.driver);
    const bool per_device_node = slice.node_name.empty();
    const uint32_t node = per_device_node ? 0 : nodes.Of(slice.node_name);
    for (const Device& d : slice.devices) {
      keys.push_back({per_device_node ? nodes.Of(d.node()) : node, pool, driver, s, d.name(), &d});
    }
  }
  const auto less = [](const Key& a, const Key& b) {
    if (a.node != b.node) return a.node < b.node;
    if (a.pool != b.pool) return a.pool < b.pool;
    if (a.name != b.name) return a.name < b.name;
    return std::tie(a.driver, a.slice) < std::tie(b.driver, b.slice);
  };
  // Usually in node and pool order already (one slice per node, named after it), with at most
  // a few devices out of name order within a node (a driver that appends "gpu-10" after
  // "gpu-9"): then only those runs are sorted, not the whole fleet, which the operator would
  // otherwise do on every slice change.
  const auto node_pool_less = [](const Key& a, const Key& b) {
    return std::tie(a.node, a.pool) < std::tie(b.node, b.pool);
  };
  if (std::is_sorted(keys.begin(), keys.end(), node_pool_less)) {
    for (auto run = keys.begin(); run != keys.end();) {
      auto end = std::find_if(run, keys.end(), [&](const Key& k) {
        return k.node != run->node || k.pool != run->pool;
      });
      if (!std::is_sorted(run, end, less)) std::sort(run, end, less);
      run = end;
    }
  } else {
    std::sort(keys.begin(), keys.end(), less);
  }
  sorted->reserve(keys.size());
  for (const Key& key : keys) sorted->push_back(*key.device);
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

Inventory Inventory::FromSlices(std::vector<std::shared_ptr<const ResourceSlice>> slices,
                               std::vector<UndecodableSlice> undecodable) {
  Inventory inventory;
  inventory.Rebuild(std::move(slices), std::move(undecodable));
  return inventory;
}

void Inventory::Rebuild(std::vector<std::shared_ptr<const ResourceSlice>> slices,
                        std::vector<UndecodableSlice> undecodable) {
  // Emptied, keeping the tables' room. The last build's devices stay until the new table is
  // built (ConcatenateSlices moves runs from them); the devices' tables are reused only when no
  // copy shares them.
  std::shared_ptr<std::vector<Device>> previous = std::move(devices_);
  const bool previous_owned = previous != nullptr && previous.use_count() == 1;
  std::vector<SliceRun> previous_runs;
  previous_runs.swap(runs_);
  if (spare_devices_ != nullptr && spare_devices_.use_count() == 1) {
    devices_ = std::move(spare_devices_);
    devices_->clear();
  } else {
    devices_ = std::make_shared<std::vector<Device>>();
  }
  node_index_.clear();
  node_count_ = 0;
  pools_.clear();
  counter_sets_.clear();
  stale_slices_ignored_ = 0;

  // The last slice of each name wins; sorted by name for determinism.
  std::vector<const ResourceSlice*> by_name;
  by_name.reserve(slices.size());
  for (const std::shared_ptr<const ResourceSlice>& slice : slices) {
    if (slice != nullptr) by_name.push_back(slice.get());
  }
  const auto by_slice_name = [](const ResourceSlice* a, const ResourceSlice* b) {
    return a->name < b->name;
  };
  // The slice cache lists by name already; a stable sort keeps equal names in input order.
  if (!std::is_sorted(by_name.begin(), by_name.end(), by_slice_name)) {
    std::stable_sort(by_name.begin(), by_name.end(), by_slice_name);
  }
  {
    std::vector<const ResourceSlice*> last_of_name;
    last_of_name.reserve(by_name.size());
    for (size_t i = 0; i < by_name.size(); ++i) {
      if (i + 1 < by_name.size() && by_name[i + 1]->name == by_name[i]->name) continue;
      last_of_name.push_back(by_name[i]);
    }
    by_name = std::move(last_of_name);
  }

  using PoolKey = std::pair<absl::string_view, absl::string_view>;  // (driver, pool name)
  // Pools in order of first sight (slice-name order, usually their own order: see Ranks).
  // Sized for a pool per slice (the usual case: a node's slice is its pool) rather than grown:
  // this runs on every slice change, and doubling copied the pools twice over.
  absl::flat_hash_map<PoolKey, size_t> pool_index;
  pool_index.reserve(by_name.size());
  std::vector<PoolInfo>& pools = pools_;
  pools.reserve(by_name.size());
  std::vector<size_t> pool_of_slice;
  pool_of_slice.reserve(by_name.size());
  for (const ResourceSlice* slice : by_name) {
    auto [it, inserted] = pool_index.try_emplace(PoolKey{slice->driver, slice->pool}, pools.size());
    if (inserted) {
      pools.emplace_back();
      pools.back().driver = slice->driver;
      pools.back().name = slice->pool;
    }
    PoolInfo& pool = pools[it->second];
    pool.generation = std::max(pool.generation, slice->pool_generation);
    pool_of_slice.push_back(it->second);
  }

  undecodable_ = std::move(undecodable);
  std::vector<const ResourceSlice*> kept;  // by name
  kept.reserve(by_name.size());
  for (size_t i = 0; i < by_name.size(); ++i) {
    const ResourceSlice* slice = by_name[i];
    PoolInfo& pool = pools[pool_of_slice[i]];
    if (slice->pool_generation < pool.generation) {
      ++stale_slices_ignored_;
      continue;
    }
    ++pool.slice_count_seen;
    pool.resource_slice_count = std::max(pool.resource_slice_count, slice->resource_slice_count);
    pool.device_count += static_cast<int64_t>(slice->devices.size());
    pool.counter_set_count += static_cast<int64_t>(slice->shared_counters.size());
    for (const CounterSet& set : slice->shared_counters) {
      counter_sets_.push_back(PoolCounterSet{slice->driver, slice->pool, set});
    }
    kept.push_back(slice);
  }
  std::stable_sort(counter_sets_.begin(), counter_sets_.end(),
                   [](const PoolCounterSet& a, const PoolCounterSet& b) {
                     return std::tie(a.driver, a.pool, a.set.name) <
                            std::tie(b.driver, b.pool, b.set.name);
                   });
  for (PoolInfo& pool : pools) {
    pool.incomplete = pool.slice_count_seen != pool.resource_slice_count;
  }
  const auto pool_less = [](const PoolInfo& a, const PoolInfo& b) {
    return std::tie(a.driver, a.name) < std::tie(b.driver, b.name);
  };
  if (!std::is_sorted(pools.begin(), pools.end(), pool_less)) {
    std::sort(pools.begin(), pools.end(), pool_less);
  }
  // Devices are handles on their slice's storage: copying them copies no attribute.
  if (ConcatenatedInOrder(kept)) {
    ConcatenateSlices(kept, previous_owned ? previous.get() : nullptr, previous_runs);
  } else {
    SortedDevices(kept, devices_.get());
    IndexNodes();
  }
  if (previous_owned) {
    previous->clear();  // moved-from handles, most of them: nothing to release
    spare_devices_ = std::move(previous);
  }
}

void Inventory::IndexNodes() {
  node_index_.reserve(devices_->size());
  absl::string_view previous;
  for (const Device& device : *devices_) {
    const absl::string_view node = device.node();
    if (node.empty()) {
      node_index_.push_back(kNoNode);
      continue;
    }
    if (node_count_ == 0 || node != previous) ++node_count_;
    previous = node;
    node_index_.push_back(node_count_ - 1);
  }
}

void Inventory::ConcatenateSlices(const std::vector<const ResourceSlice*>& slices,
                                  std::vector<Device>* previous,
                                  const std::vector<SliceRun>& previous_runs) {
  // The last build's runs by storage. A run is taken at most once: two slices that share one
  // storage would otherwise both take the same, moved-from, run.
  absl::flat_hash_map<const void*, uint32_t> run_of;
  if (previous != nullptr) {
    run_of.reserve(previous_runs.size());
    for (uint32_t r = 0; r < previous_runs.size(); ++r) {
      run_of.emplace(previous_runs[r].storage, r);
    }
  }
  size_t count = 0;
  for (const ResourceSlice* slice : slices) count += slice->devices.size();
  std::vector<Device>& sorted = *devices_;
  sorted.reserve(count);
  node_index_.reserve(count);
  runs_.reserve(slices.size());
  const auto by_name = [](const Device& a, const Device& b) { return a.name() < b.name(); };
  absl::string_view previous_node;
  for (const ResourceSlice* slice : slices) {
    if (slice->devices.empty()) continue;
    const void* storage = slice->devices.front().storage_id();
    const size_t begin = sorted.size();
    const size_t size = slice->devices.size();
    auto taken = run_of.find(storage);
    const SliceRun* run = taken != run_of.end() ? &previous_runs[taken->second] : nullptr;
    if (run != nullptr && run->count == size &&
        SameDevices(*slice, storage, previous->cbegin() + run->begin)) {
      // Unchanged since the last build, and in name order then (the run was sorted, and holds
      // the slice's devices in the slice's order): moved, not copied, and not checked again.
      const auto first = previous->begin() + run->begin;
      sorted.insert(sorted.end(), std::make_move_iterator(first),
                    std::make_move_iterator(first + static_cast<ptrdiff_t>(size)));
      run_of.erase(taken);
    } else {
      const auto copied = sorted.insert(sorted.end(), slice->devices.begin(), slice->devices.end());
      // Driver and slice are the same within one slice: name order is the whole order.
      if (!std::is_sorted(copied, sorted.end(), by_name)) {
        std::stable_sort(copied, sorted.end(), by_name);
      }
    }
    runs_.push_back({storage, static_cast<uint32_t>(begin), static_cast<uint32_t>(size)});
    // Every device of a slice with a node name is on that node (DeviceNodeScope), and the
    // slices ascend by node: one comparison per slice numbers the nodes.
    if (node_count_ == 0 || slice->node_name != previous_node) ++node_count_;
    previous_node = slice->node_name;
    node_index_.insert(node_index_.end(), size, node_count_ - 1);
  }
}

const std::vector<Device>& Inventory::devices() const {
  static const std::vector<Device>* const kNone = new std::vector<Device>();
  return devices_ != nullptr ? *devices_ : *kNone;
}

const PoolCounterSet* Inventory::FindCounterSet(absl::string_view driver, absl::string_view pool,
                                                absl::string_view name) const {
  auto it = std::lower_bound(
      counter_sets_.begin(), counter_sets_.end(), std::make_tuple(driver, pool, name),
      [](const PoolCounterSet& s, const std::tuple<absl::string_view, absl::string_view,
                                                   absl::string_view>& key) {
        return std::make_tuple(absl::string_view(s.driver), absl::string_view(s.pool),
                               absl::string_view(s.set.name)) < key;
      });
  if (it == counter_sets_.end() || it->driver != driver || it->pool != pool ||
      it->set.name != name) {
    return nullptr;
  }
  return &*it;
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
  // Views of the slices' names: `loaded` is not touched until the check is done.
  absl::flat_hash_map<absl::string_view, const LoadedSlice*> loaded_by_name;
  loaded_by_name.reserve(loaded.size());
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
