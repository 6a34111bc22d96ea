// File: controller/profile/fleet_memo.cc
#include "controller/profile/fleet_memo.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/profile/node_groups.h"
#include "controller/profile/recent_ids.h"

namespace gpuprofile::profile {
namespace {

constexpr uint32_t kUnset = UINT32_MAX;

// Tables larger than this many entries per live device start afresh at the next Sweep().
constexpr size_t kTableSlack = 4;
constexpr size_t kTableFloor = 4096;

uint64_t PairKey(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }

}  // namespace

SelectorOutcome EvaluateSelectors(const CompiledSelectors& selectors, const cel::Value& device) {
  for (const SelectorTerm& term : selectors.terms) {
    const cel::Value result = term.program->Evaluate({device});
    if (result.is_error()) return {false, absl::StrCat(term.field, ": ", result.error_message())};
    if (!result.IsTrue()) return {false, ""};
  }
  return {true, ""};
}

FleetMemo::FleetMemo(cel::DeviceValueOptions device_values) : values_(device_values) {}
FleetMemo::~FleetMemo() = default;

FleetMemo::StorageEntry& FleetMemo::Entry(const dra::Device& device) {
  StorageEntry& entry = storage_.For(device);
  entry.seen = sweep_generation_;
  return entry;
}

std::vector<uint32_t> FleetMemo::SignatureIds(const std::vector<dra::Device>& devices) {
  std::vector<uint32_t> ids(devices.size());
  // A slice's devices mostly read the same entries (one node's GPUs), and a fleet's slices come
  // in a few node types that repeat. A device that reads the entries another device of its
  // storage read takes that device's id at the cost of a few number comparisons; one whose view
  // was seen lately takes its id without the signature's strings being built or looked up.
  SignatureReader reader;
  std::vector<uint64_t> tokens;
  StorageTokenIds in_storage;
  RecentIds<SignatureView> recent;
  for (size_t d = 0; d < devices.size(); ++d) {
    StorageEntry& entry = Entry(devices[d]);
    uint32_t& id = SlotAt(entry.signature_ids, devices[d], kUnset);
    if (id == kUnset) {
      ++counters_.signatures_computed;
      // The previous device's entries: its id, without a token read.
      if (d > 0 && devices[d].SharesEntriesWith(devices[d - 1])) {
        id = ids[d - 1];
        ids[d] = id;
        continue;
      }
      reader.Tokens(devices[d], &tokens);
      if (std::optional<uint32_t> seen = in_storage.Find(devices[d].storage_id(), tokens)) {
        id = *seen;
      } else {
        const SignatureView view = reader.View(devices[d], tokens);
        if (std::optional<uint32_t> seen_view = recent.Find(view)) {
          id = *seen_view;
        } else {
          auto [it, inserted] = signature_ids_.try_emplace(
              SignatureOf(view), static_cast<uint32_t>(signatures_.size()));
          if (inserted) signatures_.push_back(it->first);
          id = it->second;
          recent.Add(view, id);
        }
        in_storage.Add(tokens, id);
      }
    }
    ids[d] = id;
  }
  return ids;
}

std::vector<uint32_t> FleetMemo::ProjectionIds(const std::vector<dra::Device>& devices,
                                               const std::vector<DevicePath>& paths) {
  if (paths != class_paths_ || classes_stale_) {
    classes_stale_ = false;
    class_paths_ = paths;
    ++class_generation_;
    class_values_.clear();
    class_ids_.clear();
    class_outcomes_.clear();
  }
  std::vector<uint32_t> ids(devices.size());
  std::string key;
  // As SignatureIds: a device that reads the entries another device of its storage read takes
  // its class at the cost of a few number comparisons; one that reads what a recently
  // worked-out device read takes it without a key being built and looked up. (On the render
  // benchmark's fleet, whose node types alternate from one slice to the next, the previous
  // device's values alone missed on every slice: 5,000 keys built for 10 classes.)
  PathReader reader(class_paths_);
  std::vector<uint64_t> tokens;
  StorageTokenIds in_storage;
  std::vector<PathValue> values;
  RecentIds<std::vector<PathValue>> recent;
  for (size_t d = 0; d < devices.size(); ++d) {
    StorageEntry& entry = Entry(devices[d]);
    if (entry.class_generation != class_generation_) {
      entry.class_ids.clear();
      entry.class_generation = class_generation_;
    }
    uint32_t& id = SlotAt(entry.class_ids, devices[d], kUnset);
    if (id == kUnset) {
      ++counters_.projections_computed;
      if (d > 0 && devices[d].SharesEntriesWith(devices[d - 1])) {
        id = ids[d - 1];
        ids[d] = id;
        continue;
      }
      reader.Tokens(devices[d], &tokens);
      if (std::optional<uint32_t> seen = in_storage.Find(devices[d].storage_id(), tokens)) {
        id = *seen;
      } else {
        reader.Values(devices[d], tokens, &values);
        if (std::optional<uint32_t> seen_values = recent.Find(values)) {
          id = *seen_values;
        } else {
          key.clear();
          AppendProjectionKey(values, &key);
          auto [it, inserted] =
              class_ids_.try_emplace(key, static_cast<uint32_t>(class_values_.size()));
          if (inserted) class_values_.push_back(values_.Build(devices[d]));
          id = it->second;
          recent.Add(values, id);
        }
        in_storage.Add(tokens, id);
      }
    }
    ids[d] = id;
  }
  return ids;
}

uint32_t FleetMemo::SelectorsId(const CompiledSelectors& selectors) {
  std::string key;
  for (const SelectorTerm& term : selectors.terms) {
    absl::StrAppend(&key, term.field.size(), ":", term.field, term.expression.size(), ":",
                    term.expression);
  }
  return selectors_ids_.try_emplace(key, static_cast<uint32_t>(selectors_ids_.size()))
      .first->second;
}

const SelectorOutcome& FleetMemo::ClassOutcome(uint32_t selectors_id,
                                               const CompiledSelectors& selectors,
                                               uint32_t class_id) {
  auto [it, inserted] = class_outcomes_.try_emplace(PairKey(selectors_id, class_id));
  if (inserted) {
    ++counters_.evaluations;
    it->second = EvaluateSelectors(selectors, class_values_[class_id]);
  }
  return it->second;
}

const SelectorOutcome& FleetMemo::DeviceOutcome(uint32_t selectors_id,
                                                const CompiledSelectors& selectors,
                                                const dra::Device& device) {
  StorageEntry& entry = Entry(device);
  std::optional<SelectorOutcome>& slot =
      SlotAt(entry.outcomes[selectors_id], device, std::optional<SelectorOutcome>());
  if (!slot.has_value()) {
    ++counters_.evaluations;
    slot = EvaluateSelectors(selectors, values_.Build(device));
  }
  return *slot;
}

void FleetMemo::Sweep() {
  size_t live_devices = 0;
  storage_.EraseIf([&](const StorageEntry& entry) {
    if (entry.seen != sweep_generation_) return true;
    live_devices += entry.signature_ids.size();
    return false;
  });
  ++sweep_generation_;
  const size_t bound = std::max(kTableFloor, kTableSlack * live_devices);
  if (class_values_.size() > bound) classes_stale_ = true;
  if (signatures_.size() > bound || selectors_ids_.size() > bound) {
    // Ids are about to be reused for other values: forget everything that holds one.
    storage_.Clear();
    signatures_.clear();
    signature_ids_.clear();
    selectors_ids_.clear();
    classes_stale_ = true;
    class_outcomes_.clear();
  }
}

}  // namespace gpuprofile::profile
