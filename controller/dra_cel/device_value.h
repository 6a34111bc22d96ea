// File: controller/dra_cel/device_value.h
// The CEL `device` variable of DRA selectors, built from the internal device model:
//   device.driver                      string
//   device.allowMultipleAllocations    bool (false when unset, as the scheduler sets it)
//   device.attributes[domain][id]      int | bool | string | kubernetes.Semver, or a list of one
//                                      of them (list-typed attributes, DRAListTypeAttributes)
//   device.capacity[domain][id]        kubernetes.Quantity
// Unqualified attribute names live in the driver's domain; qualified ones
// ("resource.kubernetes.io/pcieRoot") in their own. An unknown domain reads as an empty map; an
// unknown id inside a domain is a runtime error "no such key: <id>" (Kubernetes' behaviour).
//
// A device the scheduler cannot turn into a CEL value fails every selector with the scheduler's
// error "attribute <name>: unsupported attribute value" (DeviceMatches builds all attributes
// before it evaluates): one with an attribute of a kind this project does not know
// (AttributeValue::kOpaque: the scheduler's Go types drop it too), or with a list value on a
// release whose scheduler does not read lists (1.35 and earlier; 1.36 without
// DRAListTypeAttributes). Build then returns that error as the whole value, so every read of
// `device` fails with it; callers that must fail even selectors that do not read `device` check
// UnsupportedAttributeError first. A version that is not semver fails only the attribute.
//
// Build each device's value once and reuse it for every selector: values are immutable and may
// be shared across threads.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "controller/cel/value.h"
#include "controller/core/feature_gates.h"
#include "controller/dra/device.h"

namespace gpuprofile::cel {

struct DeviceValueOptions {
  // Whether list-typed attribute values are CEL lists; when false a device with one cannot be
  // evaluated (see above). The default is the newest release's scheduler.
  bool list_type_attributes = true;

  // The scheduler of `gates.version()` with these gates.
  static DeviceValueOptions For(const FeatureGates& gates);
};

// The scheduler's error for a device it cannot evaluate any selector on, or nullopt.
std::optional<std::string> UnsupportedAttributeError(const dra::Device& device,
                                                     const DeviceValueOptions& options = {});

// Builds device values for a whole inventory. Devices of one node group repeat almost every
// value (driver, type, product, versions, memory), so the builder shares one payload per
// distinct value, and one map per distinct set of capacities or attributes: a fleet of 100,000
// devices then needs little memory and evaluation touches few cache lines.
// Thread-compatible: use one builder per thread (the values it returns are thread-safe).
class DeviceValueBuilder {
 public:
  explicit DeviceValueBuilder(DeviceValueOptions options = {});
  ~DeviceValueBuilder();
  Value Build(const dra::Device& device);

 private:
  struct Caches;
  DeviceValueOptions options_;
  std::unique_ptr<Caches> caches_;
};

// One device, without sharing across devices.
Value MakeDeviceValue(const dra::Device& device, DeviceValueOptions options = {});

}  // namespace gpuprofile::cel
