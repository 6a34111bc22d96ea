// File: controller/dra/device_class.h
// The internal, version-independent model of a DeviceClass as the operator generates it and
// reads it back. Per-version JSON shapes are in dra_object_codec.h.
// Pure value types; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/meta/object_meta.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {

struct OpaqueDeviceConfig {
  std::string driver;
  nlohmann::json parameters;  // a JSON object
  // Only on claim configs: the requests the config applies to (empty: all).
  std::vector<std::string> requests;
};

struct DeviceClass {
  meta::ObjectMeta metadata;
  std::vector<std::string> selectors;  // CEL expressions, in order
  std::vector<OpaqueDeviceConfig> config;
  // v1 1.34+, gate DRAExtendedResource; nullopt when unset (or dropped by the server).
  std::optional<std::string> extended_resource_name;
};

}  // namespace gpuprofile::dra
