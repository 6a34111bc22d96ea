// File: controller/profile/selector_paths.h
// Which parts of the `device` variable a CEL selector reads. When a selector only reads
// `device.driver` and named attributes / capacities (`device.attributes['d'].id`,
// `device.capacity['d']['id']`, `'id' in device.attributes['d']`, optional selects), its result
// depends only on those values, so devices that agree on them (devices of one node group agree
// on almost everything selectors read) can share one evaluation.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/dra/device.h"

namespace gpuprofile::profile {

struct DevicePath {
  enum class Kind { kDriver, kAttribute, kCapacity, kOtherField };
  Kind kind = Kind::kDriver;
  std::string domain;  // kAttribute / kCapacity
  std::string id;      // kAttribute / kCapacity; the field name for kOtherField

  bool operator==(const DevicePath& other) const;
  bool operator<(const DevicePath& other) const;
};

// The paths `expression` reads, sorted and unique; nullopt when it reads `device` some other
// way (a whole domain map, a computed key, a comprehension over attributes...) or does not
// parse.
std::optional<std::vector<DevicePath>> ReadPaths(absl::string_view expression);

// Appends to `key` an encoding of the values `device` has at `paths` (absence included), such
// that two devices get the same key exactly when every path reads the same value.
void AppendProjectionKey(const dra::Device& device, const std::vector<DevicePath>& paths,
                         std::string* key);

}  // namespace gpuprofile::profile
