// File: controller/dra/device_health.cc
#include "controller/dra/device_health.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gpuprofile::dra {
namespace {

constexpr absl::string_view kXid = "gpu.nvidia.com/xid";
constexpr absl::string_view kGpuLost = "gpu.nvidia.com/gpu-lost";
constexpr absl::string_view kUnmonitored = "gpu.nvidia.com/unmonitored";
constexpr absl::string_view kReporter = "reported by the NVIDIA driver's health monitor";

// The XID codes operators meet most, as NVIDIA's XID catalogue describes them.
struct Xid {
  absl::string_view code;
  absl::string_view meaning;
};
constexpr Xid kXids[] = {
    {"13", "graphics engine exception"},
    {"31", "GPU memory page fault"},
    {"43", "GPU stopped processing"},
    {"45", "preemptive cleanup after earlier errors"},
    {"48", "double-bit ECC memory error"},
    {"61", "internal micro-controller breakpoint"},
    {"62", "internal micro-controller halt"},
    {"63", "ECC page retirement or row remapping recorded"},
    {"64", "ECC page retirement or row remapping failed"},
    {"74", "NVLink error"},
    {"79", "the GPU has fallen off the bus"},
    {"92", "high single-bit ECC error rate"},
    {"94", "contained ECC error"},
    {"95", "uncontained ECC error"},
    {"119", "GSP firmware RPC timeout"},
    {"120", "GSP firmware error"},
};

}  // namespace

bool IsHealthTaint(const DeviceTaint& taint) {
  return taint.key == kXid || taint.key == kGpuLost || taint.key == kUnmonitored;
}

DeviceHealth HealthOf(const Device& device) {
  if (!device.has_taints()) return DeviceHealth::kHealthy;
  DeviceHealth health = DeviceHealth::kHealthy;
  for (const DeviceTaint& taint : device.taints()) {
    if (taint.key == kGpuLost || (taint.key == kXid && taint.PreventsScheduling())) {
      return DeviceHealth::kUnhealthy;
    }
    if (taint.key == kUnmonitored) health = DeviceHealth::kUnmonitored;
  }
  return health;
}

absl::string_view XidMeaning(absl::string_view code) {
  for (const Xid& xid : kXids) {
    if (xid.code == code) return xid.meaning;
  }
  return {};
}

std::optional<std::string> DescribeHealthTaint(const DeviceTaint& taint) {
  if (taint.key == kXid) {
    absl::string_view meaning = XidMeaning(taint.value);
    std::string what = taint.value.empty() ? std::string("an XID error")
                                           : absl::StrCat("XID ", taint.value);
    if (!meaning.empty()) absl::StrAppend(&what, " (", meaning, ")");
    absl::StrAppend(&what, taint.PreventsScheduling() ? ", a fatal GPU error, "
                                                      : ", a non-fatal GPU error, ",
                    kReporter);
    return what;
  }
  if (taint.key == kGpuLost) {
    return absl::StrCat("the driver lost contact with the GPU, ", kReporter);
  }
  if (taint.key == kUnmonitored) {
    return absl::StrCat("the GPU's health cannot be monitored (health unknown), ", kReporter);
  }
  return std::nullopt;
}

}  // namespace gpuprofile::dra
