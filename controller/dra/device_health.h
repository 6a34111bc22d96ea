// File: controller/dra/device_health.h
// What a device's taints say about its health, in words a user understands. Drivers report
// health as device taints (DRADeviceTaints); the NVIDIA DRA driver's health monitor uses
//   gpu.nvidia.com/xid          value: the XID code; NoSchedule for a fatal XID, None otherwise
//   gpu.nvidia.com/gpu-lost     NoSchedule: the driver cannot reach the GPU any more
//   gpu.nvidia.com/unmonitored  None: NVML cannot watch the device, so its health is unknown
// Other taints (an admin's maintenance taint, a DeviceTaintRule) are not health reports.
// Pure.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "controller/dra/device.h"

namespace gpuprofile::dra {

enum class DeviceHealth {
  kHealthy,      // no health taint, or only a non-fatal XID (effect None)
  kUnmonitored,  // the driver cannot watch it: health unknown
  kUnhealthy,    // a fatal XID or a lost GPU
};

// Whether `taint` is one the driver sets to report health.
bool IsHealthTaint(const DeviceTaint& taint);

// The device's health as its taints report it (the worst of them).
DeviceHealth HealthOf(const Device& device);

// A sentence for a health taint, e.g. "XID 79 (the GPU has fallen off the bus), reported by the
// NVIDIA driver's health monitor"; none for a taint that is not a health report.
std::optional<std::string> DescribeHealthTaint(const DeviceTaint& taint);

// What NVIDIA documents an XID code to mean, in a few words; empty for a code not in the table.
absl::string_view XidMeaning(absl::string_view code);

}  // namespace gpuprofile::dra
