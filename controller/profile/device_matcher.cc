// File: controller/profile/device_matcher.cc
#include "controller/profile/device_matcher.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/device_value.h"
#include "controller/profile/selector_paths.h"

namespace gpuprofile::profile {
namespace {

struct Outcome {
  bool matched = false;
  std::string error;  // non-empty when a selector raised an error
};

Outcome Evaluate(const CompiledSelectors& selectors, const cel::Value& device) {
  for (const SelectorTerm& term : selectors.terms) {
    const cel::Value result = term.program->Evaluate({device});
    if (result.is_error()) {
      return {false, absl::StrCat(term.field, ": ", result.error_message())};
    }
    if (!result.IsTrue()) return {false, ""};
  }
  return {true, ""};
}

// The paths every selector of a profile reads, or nullopt when one of them is not reducible.
std::optional<std::vector<DevicePath>> ProfilePaths(const CompiledSelectors& selectors) {
  std::vector<DevicePath> all;
  for (const SelectorTerm& term : selectors.terms) {
    std::optional<std::vector<DevicePath>> paths = ReadPaths(term.expression);
    if (!paths) return std::nullopt;
    all.insert(all.end(), paths->begin(), paths->end());
  }
  return all;
}

std::string DeviceName(const dra::Device& device) {
  return absl::StrCat(device.driver(), "/", device.pool(), "/", device.name());
}

void Record(const Outcome& outcome, const dra::Device& device, size_t index, ProfileMatches* out) {
  if (outcome.matched) {
    out->matched[index] = true;
    ++out->matched_count;
  } else if (!outcome.error.empty()) {
    if (out->error_count == 0) {
      out->first_error = absl::StrCat(DeviceName(device), ": ", outcome.error);
    }
    ++out->error_count;
  }
}

}  // namespace

std::vector<ProfileMatches> MatchDevices(const dra::Inventory& inventory,
                                         const std::vector<const CompiledSelectors*>& profiles,
                                         const MatchOptions& options) {
  const std::vector<dra::Device>& devices = inventory.devices();
  std::vector<ProfileMatches> results(profiles.size());
  for (ProfileMatches& r : results) r.matched.assign(devices.size(), false);

  // Split profiles into those evaluated per distinct projection and those evaluated per device.
  std::vector<size_t> shared, per_device;
  std::vector<DevicePath> union_paths;
  for (size_t p = 0; p < profiles.size(); ++p) {
    if (profiles[p] == nullptr) continue;
    std::optional<std::vector<DevicePath>> paths;
    if (!options.per_device) paths = ProfilePaths(*profiles[p]);
    if (!paths) {
      per_device.push_back(p);
      continue;
    }
    shared.push_back(p);
    union_paths.insert(union_paths.end(), paths->begin(), paths->end());
  }
  std::sort(union_paths.begin(), union_paths.end());
  union_paths.erase(std::unique(union_paths.begin(), union_paths.end()), union_paths.end());

  cel::DeviceValueBuilder values;
  if (!shared.empty()) {
    // Group devices by what the shared profiles can observe; evaluate on one representative.
    absl::flat_hash_map<std::string, size_t> class_of_key;
    std::vector<size_t> representative;  // class -> device index
    std::vector<size_t> device_class(devices.size());
    std::string key;
    for (size_t d = 0; d < devices.size(); ++d) {
      key.clear();
      AppendProjectionKey(devices[d], union_paths, &key);
      auto [it, inserted] = class_of_key.try_emplace(key, representative.size());
      if (inserted) representative.push_back(d);
      device_class[d] = it->second;
    }
    std::vector<cel::Value> class_values;
    class_values.reserve(representative.size());
    for (size_t d : representative) class_values.push_back(values.Build(devices[d]));
    std::vector<Outcome> outcomes(representative.size());
    for (size_t p : shared) {
      for (size_t c = 0; c < representative.size(); ++c) {
        outcomes[c] = Evaluate(*profiles[p], class_values[c]);
      }
      for (size_t d = 0; d < devices.size(); ++d) {
        Record(outcomes[device_class[d]], devices[d], d, &results[p]);
      }
    }
  }
  if (!per_device.empty()) {
    for (size_t d = 0; d < devices.size(); ++d) {
      const cel::Value device = values.Build(devices[d]);
      for (size_t p : per_device)
        Record(Evaluate(*profiles[p], device), devices[d], d, &results[p]);
    }
  }
  return results;
}

}  // namespace gpuprofile::profile
