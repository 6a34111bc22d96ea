// File: controller/profile/device_matcher.cc
#include "controller/profile/device_matcher.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "controller/profile/device_reads.h"
#include "controller/profile/selector_paths.h"

namespace gpuprofile::profile {
namespace {

std::string DeviceName(const dra::Device& device) {
  return absl::StrCat(device.driver(), "/", device.pool(), "/", device.name());
}

void RecordMatch(const SelectorOutcome& outcome, const dra::Device& device, size_t index,
            ProfileMatches* out) {
  if (outcome.matched) {
    out->matched.Insert(index);
    ++out->matched_count;
  } else if (!outcome.error.empty()) {
    if (out->error_count == 0) {
      out->first_error = absl::StrCat(DeviceName(device), ": ", outcome.error);
    }
    ++out->error_count;
  }
}

// The devices of each projection class, in inventory order (a counting sort of the classes):
// a profile's outcome per class then reaches its matched devices without a pass over the fleet.
class DeviceClasses {
 public:
  explicit DeviceClasses(const std::vector<uint32_t>& class_of_device) {
    uint32_t count = 0;
    for (uint32_t c : class_of_device) count = std::max(count, c + 1);
    start_.assign(count + 1, 0);
    for (uint32_t c : class_of_device) ++start_[c + 1];
    for (uint32_t c = 0; c < count; ++c) {
      if (start_[c + 1] != 0) present_.push_back(c);
      start_[c + 1] += start_[c];
    }
    devices_.resize(class_of_device.size());
    std::vector<uint32_t> next(start_.begin(), start_.end() - 1);
    for (uint32_t d = 0; d < class_of_device.size(); ++d) devices_[next[class_of_device[d]]++] = d;
  }
  size_t count() const { return start_.size() - 1; }
  // The classes that have devices, ascending.
  const std::vector<uint32_t>& present() const { return present_; }
  absl::Span<const uint32_t> DevicesOf(uint32_t c) const {
    return absl::MakeConstSpan(devices_).subspan(start_[c], start_[c + 1] - start_[c]);
  }

 private:
  std::vector<uint32_t> start_;  // class c's devices are devices_[start_[c], start_[c + 1])
  std::vector<uint32_t> devices_;
  std::vector<uint32_t> present_;
};

// RecordMatch for every device, a class at a time: the same counts, and the first error is the
// one of the first device in inventory order whose class raised one.
void RecordClassMatches(const DeviceClasses& classes,
                        const std::vector<const SelectorOutcome*>& by_class,
                        const std::vector<dra::Device>& devices, ProfileMatches* out) {
  size_t first_error_device = devices.size();
  const SelectorOutcome* first_error = nullptr;
  for (uint32_t c : classes.present()) {
    const SelectorOutcome& outcome = *by_class[c];
    const absl::Span<const uint32_t> members = classes.DevicesOf(c);
    if (outcome.matched) {
      for (uint32_t d : members) out->matched.Insert(d);
      out->matched_count += static_cast<int64_t>(members.size());
    } else if (!outcome.error.empty()) {
      out->error_count += static_cast<int64_t>(members.size());
      if (members.front() < first_error_device) {
        first_error_device = members.front();
        first_error = &outcome;
      }
    }
  }
  if (first_error != nullptr) {
    out->first_error =
        absl::StrCat(DeviceName(devices[first_error_device]), ": ", first_error->error);
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
  for (ProfileMatches& r : results) r.matched = DeviceSet(devices.size());

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
  NormalizePaths(&union_paths);

  if (!shared.empty()) {
    // Devices grouped by what the shared profiles can observe; one evaluation per class.
    const DeviceClasses classes(memo->ProjectionIds(devices, union_paths));
    std::vector<const SelectorOutcome*> by_class(classes.count());
    for (size_t p : shared) {
      const uint32_t selectors_id = memo->SelectorsId(*profiles[p]);
      // Pointers are taken once every class is evaluated: a later ClassOutcome may move the
      // memo's entries.
      for (uint32_t c : classes.present()) memo->ClassOutcome(selectors_id, *profiles[p], c);
      for (uint32_t c : classes.present()) {
        by_class[c] = &memo->ClassOutcome(selectors_id, *profiles[p], c);
      }
      RecordClassMatches(classes, by_class, devices, &results[p]);
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
