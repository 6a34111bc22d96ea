// File: controller/profile/sharing_config.h
// spec.sharing compiled into the driver's own opaque configuration on the DeviceClass
// (docs/design.md §3 "Sharing"). For gpu.nvidia.com: a resource.nvidia.com/v1beta1 GpuConfig for
// full GPUs ({sharing: {strategy, timeSlicingConfig: {interval}, mpsConfig: {...}}}) or a
// MigDeviceConfig for MIG devices ({sharing: {strategy, mpsConfig}}: no interval). Exclusive
// needs no configuration (it is the driver's default). The driver reads these with a strict
// decoder, so only the members it knows are written.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/api/gpu_profile.h"
#include "controller/dra/device_class.h"

namespace gpuprofile::profile {

struct SharingConfigResult {
  std::optional<dra::OpaqueDeviceConfig> config;  // unset: nothing to write
  std::vector<std::string> problems;              // "<field path>: <reason>" each
};

// The configuration for `spec.sharing` on `spec.driver` and its device type. Problems: a driver
// with no known sharing configuration (naming the driver and the ones known), a device type
// that cannot be shared, a time-slice interval where the kind has none, and a spec.config entry
// of the same driver and kind (two configurations would fight over `sharing`).
SharingConfigResult CompileSharing(const api::GpuProfileSpec& spec);

}  // namespace gpuprofile::profile
