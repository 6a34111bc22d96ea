// File: controller/cel/device_value.h
// The CEL `device` variable of DRA selectors, built from the internal device model:
//   device.driver                      string
//   device.attributes[domain][id]      int | bool | string | kubernetes.Semver
//   device.capacity[domain][id]        kubernetes.Quantity
// Unqualified attribute names live in the driver's domain; qualified ones
// ("resource.kubernetes.io/pcieRoot") in their own. An unknown domain reads as an empty map; an
// unknown id inside a domain is a runtime error "no such key: <id>" (Kubernetes' behaviour).
//
// Build the value once per device and reuse it for every selector: it is immutable and may be
// shared across threads.
#pragma once

#include "controller/cel/value.h"
#include "controller/dra/device.h"

namespace gpuprofile::cel {

Value MakeDeviceValue(const dra::Device& device);

}  // namespace gpuprofile::cel
