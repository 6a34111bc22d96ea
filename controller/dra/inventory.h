// File: controller/dra/inventory.h
// The device inventory: every device published in the newest generation of its pool.
// - A pool is identified by (driver, pool name): two drivers on one node both name their pool
//   after the node, and those are different pools.
// - Only slices at a pool's highest spec.pool.generation count; older ones are stale (a driver
//   is part-way through replacing them) and are ignored, but counted.
// - A pool whose newest generation has a different number of distinct slices than its
//   resourceSliceCount (normally: fewer, while the driver is still publishing) is incomplete;
//   its devices still count, and the pool is reported.
// - Counter sets (spec.sharedCounters, DRAPartitionableDevices) of the newest generation are kept
//   per pool: devices draw from the sets of their own pool.
// Slices are identified by name (they are cluster-scoped); when the same name appears twice, the
// later one replaces the earlier, as applying both would.
// Inventory is a value, immutable once built but for Rebuild; thread-safe for concurrent readers.
// Copies share the devices (copying an inventory is cheap).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/dra/device.h"
#include "controller/dra/manifest_loader.h"
#include "controller/dra/manifest_reader.h"
#include "controller/dra/resource_slice.h"

namespace gpuprofile::dra {

struct PoolInfo {
  std::string driver;
  std::string name;
  int64_t generation = 0;            // the newest generation seen
  int64_t slice_count_seen = 0;      // distinct slices at that generation
  int64_t resource_slice_count = 0;  // the largest spec.pool.resourceSliceCount among them
  bool incomplete = false;           // slice_count_seen != resource_slice_count
  int64_t device_count = 0;          // devices in those slices
  int64_t counter_set_count = 0;     // counter sets in those slices
};

// A ResourceSlice the operator's cache could not decode: its devices are not in the inventory
// (and its pool, missing a slice, is reported incomplete).
struct UndecodableSlice {
  std::string name;
  std::string error;
};

// A counter set of a pool's newest generation.
struct PoolCounterSet {
  std::string driver;
  std::string pool;
  CounterSet set;
};

class Inventory {
 public:
  Inventory() = default;

  // Builds the inventory from decoded slices, in any order. The inventory shares the slices'
  // device storage (see device.h), not the slices themselves.
  static Inventory FromSlices(std::vector<ResourceSlice> slices);
  static Inventory FromSlices(std::vector<std::shared_ptr<const ResourceSlice>> slices,
                              std::vector<UndecodableSlice> undecodable = {});
  // Builds this inventory again from `slices`, as FromSlices does, in the tables it already
  // has: the operator rebuilds it on every slice change, and new tables of 40,000 devices and
  // 5,000 pools were fresh memory each time, faulted in page by page (11 us a page on the
  // benchmark's machine; docs/performance.md). The devices' tables (two, taking turns: the
  // devices of unchanged slices move from the last build's) are reused only when no copy of
  // this inventory shares them.
  void Rebuild(std::vector<std::shared_ptr<const ResourceSlice>> slices,
               std::vector<UndecodableSlice> undecodable = {});

  // Devices of every pool's newest generation, sorted by node, pool, device name, then driver
  // (and slice name, so that the order is total).
  const std::vector<Device>& devices() const;
  // For each device (same index), the number of its node among the distinct nodes in devices()
  // order (so: ascending), or kNoNode when it has none. Lets callers count nodes without
  // comparing names.
  static constexpr uint32_t kNoNode = UINT32_MAX;
  const std::vector<uint32_t>& node_index() const { return node_index_; }
  // Distinct nodes among the devices.
  uint32_t node_count() const { return node_count_; }
  // Pools sorted by driver, then name.
  const std::vector<PoolInfo>& pools() const { return pools_; }
  // Counter sets of every pool's newest generation, sorted by driver, pool, then set name; and
  // the one of that name in that pool, or nullptr.
  const std::vector<PoolCounterSet>& counter_sets() const { return counter_sets_; }
  const PoolCounterSet* FindCounterSet(absl::string_view driver, absl::string_view pool,
                                       absl::string_view name) const;
  // Slices that could not be decoded, by name (the operator's cache reports them; files that do
  // not decode are an error of BuildInventory instead).
  const std::vector<UndecodableSlice>& undecodable_slices() const { return undecodable_; }
  // Slices ignored because their pool has a newer generation.
  int stale_slices_ignored() const { return stale_slices_ignored_; }
  // The incomplete pools, in pools() order.
  std::vector<PoolInfo> IncompletePools() const;

 private:
  // Where each slice's devices lie in devices_, when the last build took the usual fleet's
  // short way (inventory.cc, ConcatenatedInOrder); empty otherwise. The next Rebuild moves the
  // devices of every slice whose storage is unchanged from there instead of copying them from
  // the slice and checking their order again: under churn nearly every slice is unchanged.
  struct SliceRun {
    const void* storage = nullptr;  // the slice's device storage (Device::storage_id)
    uint32_t begin = 0;
    uint32_t count = 0;
  };

  // The usual fleet's way (inventory.cc, ConcatenatedInOrder): each slice's devices in turn, and
  // the nodes numbered per slice. `previous` (may be null) is the last build's table, owned by
  // this inventory alone, whose runs may be moved from.
  void ConcatenateSlices(const std::vector<const ResourceSlice*>& slices,
                         std::vector<Device>* previous, const std::vector<SliceRun>& previous_runs);
  // node_index_ and node_count_ from devices_, device by device.
  void IndexNodes();

  std::shared_ptr<std::vector<Device>> devices_;  // null until built
  std::vector<SliceRun> runs_;
  // The table of the build before last, emptied, kept for its room (see Rebuild).
  std::shared_ptr<std::vector<Device>> spare_devices_;
  std::vector<uint32_t> node_index_;
  uint32_t node_count_ = 0;
  std::vector<PoolInfo> pools_;
  std::vector<PoolCounterSet> counter_sets_;
  std::vector<UndecodableSlice> undecodable_;
  int stale_slices_ignored_ = 0;
};

// Decodes every `kind: ResourceSlice` object (resource.k8s.io, any version) among `objects`,
// ignoring other kinds, and builds the inventory. On failure returns InvalidArgument listing
// every problem, one per line, each naming the file, the object and the field, e.g.
//   fleet/a100.yaml (document 1): ResourceSlice "a100-node-1-gpu.nvidia.com-7kq2x":
//   spec.pool.generation: must be an integer, got string
// Two different objects with the same slice name are an error too (identical copies are not).
absl::StatusOr<Inventory> BuildInventory(const std::vector<ManifestObject>& objects);

// The same for what LoadManifests returned: the slices it decoded, plus the ResourceSlices among
// `objects` (decoded here, with the same errors as above). A decoded slice whose name is read
// again is reported as a conflict (LoadManifests never returns one).
absl::StatusOr<Inventory> BuildInventory(std::vector<LoadedSlice> slices,
                                         const std::vector<ManifestObject>& objects);

}  // namespace gpuprofile::dra
