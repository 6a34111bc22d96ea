// File: controller/profile/device_matcher.cc
#include "controller/profile/device_matcher.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "controller/profile/selector_paths.h"

namespace gpuprofile::profile {
namespace {

// The paths every selector of a profile reads, or nullopt when one of them is not reducible.
std::optional<std::vector<DevicePath>> ProfilePaths(const CompiledSelectors& selectors) {
  std::vector<DevicePath> all;
  for (const SelectorTerm& term : selectors.terms) {
    if (term.program == nullptr) return std::nullopt;
    std::optional<std::vector<DevicePath>> paths = ReadPaths(*term.program);
    if (!paths) return std::nullopt;
    all.insert(all.end(), paths->begin(), paths->end());
  }
  return all;
}

std::string DeviceName(const dra::Device& device) {
  return absl::StrCat(device.driver(), "/", device.pool(), "/", device.name());
}

void RecordMatch(const SelectorOutcome& outcome, const dra::Device& device, size_t index,
            ProfileMatches* out) {
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
                                         const MatchOptions& options, FleetMemo* memo) {
  FleetMemo local;
  if (memo == nullptr) memo = &local;
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

  if (!shared.empty()) {
    // Devices grouped by what the shared profiles can observe; one evaluation per class.
    const std::vector<uint32_t> class_of_device = memo->ProjectionIds(devices, union_paths);
    std::vector<uint32_t> classes(class_of_device);
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
    const size_t class_count = classes.empty() ? 0 : classes.back() + 1;
    for (size_t p : shared) {
      const uint32_t selectors_id = memo->SelectorsId(*profiles[p]);
      // Copies: a later ClassOutcome may move the memo's entries.
      std::vector<SelectorOutcome> by_class(class_count);
      for (uint32_t c : classes) by_class[c] = memo->ClassOutcome(selectors_id, *profiles[p], c);
      for (size_t d = 0; d < devices.size(); ++d) {
        RecordMatch(by_class[class_of_device[d]], devices[d], d, &results[p]);
      }
    }
  }
  for (size_t p : per_device) {
    const uint32_t selectors_id = memo->SelectorsId(*profiles[p]);
    for (size_t d = 0; d < devices.size(); ++d) {
      RecordMatch(memo->DeviceOutcome(selectors_id, *profiles[p], devices[d]), devices[d], d,
             &results[p]);
    }
  }
  return results;
}

}  // namespace gpuprofile::profile
