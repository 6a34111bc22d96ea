// File: controller/dra_cel/device_value.h
// The CEL `device` variable of DRA selectors, built from the internal device model:
//   device.driver                      string
//   device.attributes[domain][id]      int | bool | string | kubernetes.Semver
//   device.capacity[domain][id]        kubernetes.Quantity
// Unqualified attribute names live in the driver's domain; qualified ones
// ("resource.kubernetes.io/pcieRoot") in their own. An unknown domain reads as an empty map; an
// unknown id inside a domain is a runtime error "no such key: <id>" (Kubernetes' behaviour).
//
// Build each device's value once and reuse it for every selector: values are immutable and may
// be shared across threads.
#pragma once

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "controller/cel/value.h"
#include "controller/dra/device.h"

namespace gpuprofile::cel {

// Builds device values for a whole inventory. Devices of one node group repeat almost every
// value (driver, type, product, versions, memory), so the builder shares one payload per
// distinct value, and one map per distinct set of capacities or attributes: a fleet of 100,000
// devices then needs little memory and evaluation touches few cache lines.
// Thread-compatible: use one builder per thread (the values it returns are thread-safe).
class DeviceValueBuilder {
 public:
  DeviceValueBuilder();
  ~DeviceValueBuilder();
  Value Build(const dra::Device& device);

 private:
  struct Caches;
  std::unique_ptr<Caches> caches_;
};

// One device, without sharing across devices.
Value MakeDeviceValue(const dra::Device& device);

}  // namespace gpuprofile::cel
