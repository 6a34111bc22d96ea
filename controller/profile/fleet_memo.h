// File: controller/profile/fleet_memo.h
// What the engine works out about each device, kept between computations so that after a
// ResourceSlice change only the devices of the changed slices are looked at again (issue: "a
// ResourceSlice change recomputes only what it can change").
//
// Per device storage (dra::Device::storage(): one per decoded slice) the memo keeps each
// device's node-group signature and its projection class (device_matcher.h); per (profile
// selectors, projection class) the outcome of the selectors; and per (profile selectors,
// device), for selectors that cannot share evaluations, the outcome per device. The operator's
// slice cache keeps the decoded object of a slice that did not change, so its storage and the
// memo's results carry over; a changed slice is decoded into new storage and is worked out anew.
//
// The profile engine takes a memo optionally (engine.h); without one it uses a fresh memo, so
// the result never depends on what a memo holds (tested: a long-lived memo gives exactly what a
// fresh one does after any sequence of changes). Projection classes are for one set of paths:
// when the profiles' paths change, classes and their outcomes are forgotten. Sweep() forgets the
// storage not seen since the previous Sweep(), and bounds the tables.
// A memo serves one Kubernetes version (selectors are compiled for it). Thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "controller/api/gpu_node_group.h"
#include "controller/cel/value.h"
#include "controller/dra/device.h"
#include "controller/dra_cel/device_value.h"
#include "controller/profile/claim_allocations.h"
#include "controller/profile/selector_compiler.h"
#include "controller/profile/selector_paths.h"
#include "controller/profile/storage_table.h"

namespace gpuprofile::profile {

// What a profile's selectors make of a device.
struct SelectorOutcome {
  bool matched = false;
  std::string error;  // "<selector field>: <message>" when a selector raised an error
};

// Evaluates the selectors in order, stopping at the first that is not true.
SelectorOutcome EvaluateSelectors(const CompiledSelectors& selectors, const cel::Value& device);

class FleetMemo {
 public:
  // Work done since construction, for tests and the benchmark.
  struct Counters {
    int64_t signatures_computed = 0;   // devices whose signature was worked out
    int64_t projections_computed = 0;  // devices whose projection class was worked out
    int64_t evaluations = 0;           // selector evaluations (shared or per device)
  };

  // Device values as `device_values` says (the scheduler of one release and its gates).
  explicit FleetMemo(cel::DeviceValueOptions device_values = {});
  ~FleetMemo();
  FleetMemo(const FleetMemo&) = delete;
  FleetMemo& operator=(const FleetMemo&) = delete;

  // The node-group signature id of each of `devices` (same index); Signature(id) is the
  // signature.
  std::vector<uint32_t> SignatureIds(const std::vector<dra::Device>& devices);
  const api::DeviceSignature& Signature(uint32_t id) const { return signatures_[id]; }

  // The projection class of each of `devices` for `paths` (sorted, unique): devices of one
  // class read the same values at every path. ClassValue(id) is the CEL value of one device of
  // the class.
  std::vector<uint32_t> ProjectionIds(const std::vector<dra::Device>& devices,
                                      const std::vector<DevicePath>& paths);
  const cel::Value& ClassValue(uint32_t id) const { return class_values_[id]; }

  // An id for `selectors` (equal expressions and fields: equal ids).
  uint32_t SelectorsId(const CompiledSelectors& selectors);

  // The outcome of selectors `selectors_id` (compiled as `selectors`) on projection class
  // `class_id`, evaluated on the first call.
  const SelectorOutcome& ClassOutcome(uint32_t selectors_id, const CompiledSelectors& selectors,
                                      uint32_t class_id);
  // The outcome on one device, evaluated on the first call for the device's storage.
  const SelectorOutcome& DeviceOutcome(uint32_t selectors_id, const CompiledSelectors& selectors,
                                       const dra::Device& device);

  // Forgets the storage not seen (by SignatureIds, ProjectionIds or DeviceOutcome) since the
  // previous Sweep(), and starts the tables afresh when they have grown far beyond what is
  // live (a fleet whose values keep changing).
  void Sweep();

  // What the claim ledger found for each device (claim_allocations.h), kept beside the rest.
  HeldMemo* held() { return &held_; }

  const Counters& counters() const { return counters_; }
  size_t storage_entries() const { return storage_.size(); }

 private:
  // What the memo keeps per device storage.
  struct StorageEntry {
    uint64_t seen = 0;                    // the sweep generation it was last seen in
    std::vector<uint32_t> signature_ids;  // by storage index; kUnset until computed
    uint64_t class_generation = 0;        // of class_ids
    std::vector<uint32_t> class_ids;      // by storage index; kUnset until computed
    // selectors id -> outcome by storage index (absent: not evaluated yet).
    absl::flat_hash_map<uint32_t, std::vector<std::optional<SelectorOutcome>>> outcomes;
  };
  StorageEntry& Entry(const dra::Device& device);

  Counters counters_;
  uint64_t sweep_generation_ = 1;
  StorageTable<StorageEntry> storage_;

  std::vector<api::DeviceSignature> signatures_;
  std::map<api::DeviceSignature, uint32_t> signature_ids_;

  std::vector<DevicePath> class_paths_;
  uint64_t class_generation_ = 0;  // bumped whenever the classes start afresh
  bool classes_stale_ = true;      // the next ProjectionIds starts afresh
  std::vector<cel::Value> class_values_;
  absl::flat_hash_map<std::string, uint32_t> class_ids_;  // by projection key

  absl::flat_hash_map<std::string, uint32_t> selectors_ids_;
  absl::flat_hash_map<uint64_t, SelectorOutcome> class_outcomes_;  // (selectors id, class id)
  cel::DeviceValueBuilder values_;
  HeldMemo held_;
};

}  // namespace gpuprofile::profile
