// File: controller/dra/device.h
// The internal, version-independent model of one device published in a ResourceSlice, as every
// consumer (CEL evaluation, inventory, node groups, `cel match`) sees it, whichever
// resource.k8s.io version it was read from.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "controller/core/quantity.h"
#include "controller/core/semver.h"

namespace gpuprofile::dra {

// A DeviceAttribute: exactly one of int, bool, string, version.
struct AttributeValue {
  enum class Kind { kInt, kBool, kString, kVersion };
  Kind kind = Kind::kString;
  int64_t int_value = 0;
  bool bool_value = false;
  std::string string_value;  // kString; for kVersion the text as published
  // kVersion: the parsed version, or nullopt when the text is not strict semver (CEL then
  // reports an error when the attribute is read, as Kubernetes does).
  std::optional<Semver> version;
};

struct Device {
  std::string driver;      // spec.driver of its slice
  std::string pool;        // spec.pool.name
  int64_t pool_generation = 0;
  std::string slice_name;  // metadata.name of its slice
  // spec.nodeName of its slice (or the device's own nodeName); empty when the device is not tied
  // to one node (nodeSelector / allNodes).
  std::string node;
  std::string name;        // devices[].name
  // Attribute names as published: unqualified ("productName": the driver's domain) or qualified
  // ("resource.kubernetes.io/pcieRoot"). Sorted for deterministic output.
  std::map<std::string, AttributeValue> attributes;
  std::map<std::string, Quantity> capacity;
};

}  // namespace gpuprofile::dra
