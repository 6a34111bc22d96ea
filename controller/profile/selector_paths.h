// File: controller/profile/selector_paths.h
// Which parts of the `device` variable a CEL selector reads. When a selector only reads
// `device.driver` and named attributes / capacities (`device.attributes['d'].id`,
// `device.capacity['d']['id']`, `'id' in device.attributes['d']`, optional selects), its result
// depends only on those values, so devices that agree on them (devices of one node group agree
// on almost everything selectors read) can share one evaluation.
// The engine says which paths a compiled program reads (cel::Program::ReadPaths); this file maps
// them onto the device model.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/cel/program.h"
#include "controller/core/quantity.h"
#include "controller/dra/device.h"

namespace gpuprofile::profile {

struct DevicePath {
  enum class Kind { kDriver, kAttribute, kCapacity, kOtherField };
  Kind kind = Kind::kDriver;
  std::string domain;  // kAttribute / kCapacity
  std::string id;      // kAttribute / kCapacity; the field name for kOtherField
  // kAttribute / kCapacity: only whether the device has the entry is read (`'uuid' in
  // device.attributes['d']`), so devices that differ in its value (one UUID each) still share a
  // projection class.
  bool presence_only = false;

  bool operator==(const DevicePath& other) const;
  bool operator<(const DevicePath& other) const;
};

// The paths `program` (a device selector) reads, normalized (NormalizePaths); nullopt when it
// reads `device` some other way (a whole domain map, a computed key, a comprehension over
// attributes...) or was compiled without type checking.
std::optional<std::vector<DevicePath>> ReadPaths(const cel::Program& program);

// Sorts `paths`, drops repeats, and drops a presence test of an entry that is also read for its
// value (the value says whether it is there).
void NormalizePaths(std::vector<DevicePath>* paths);

// Appends to `key` an encoding of what `device` reads at `paths` (values, absence included, and
// for presence tests only whether the entry is there), such that two devices get the same key
// exactly when every path reads the same.
void AppendProjectionKey(const dra::Device& device, const std::vector<DevicePath>& paths,
                         std::string* key);

// What a device reads at one path, as views of its storage. Equal values have equal projection
// keys (and, but for a zero capacity published in two formats, the converse holds); comparing
// allocates nothing.
struct PathValue {
  DevicePath::Kind kind = DevicePath::Kind::kOtherField;
  bool presence_only = false;                    // the path's: then only `present` is read
  bool present = false;                          // presence_only
  std::optional<dra::AttributeValue> attribute;  // kAttribute; nullopt when absent
  const Quantity* capacity = nullptr;            // kCapacity; null when absent
  absl::string_view driver;                      // kDriver
  bool operator==(const PathValue& other) const;
};
// What `device` reads at each of `paths` (same index), into *values (replaced).
void ReadPathValues(const dra::Device& device, const std::vector<DevicePath>& paths,
                    std::vector<PathValue>* values);

// ReadPathValues for many devices in a row, in two steps. Tokens() says, per path, which entry
// of the device's storage it reads (a number; 0 for the driver, which the storage fixes, and
// for absent values; 1 for a presence test of an entry that is there): two devices of one
// storage with equal tokens read the same everywhere,
// and the tokens cost no value, key or string. Values() turns them into what ReadPathValues
// gives. Keeps the qualified names and Device::EntryHints (so: one reader per pass over devices
// that stay alive meanwhile).
class PathReader {
 public:
  explicit PathReader(const std::vector<DevicePath>& paths);
  void Tokens(const dra::Device& device, std::vector<uint64_t>* tokens);
  void Values(const dra::Device& device, const std::vector<uint64_t>& tokens,
              std::vector<PathValue>* values) const;

 private:
  const std::vector<DevicePath>& paths_;
  std::vector<std::string> qualified_;  // per path: "domain/id"
  std::vector<dra::Device::EntryHint> id_hints_, qualified_hints_;
};
// AppendProjectionKey for what ReadPathValues gave.
void AppendProjectionKey(const std::vector<PathValue>& values, std::string* key);

}  // namespace gpuprofile::profile
