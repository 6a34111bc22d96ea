// File: controller/meta/node.h
// What the migration view needs of a core/v1 Node: whether the NVIDIA device plugin offers GPUs
// on it (`nvidia.com/gpu`, or MIG resources `nvidia.com/mig-<profile>` under the plugin's
// mixed strategy, in status.allocatable) and, for nodes that only the device plugin serves, the
// labels GPU Feature Discovery puts on them to say which GPU it is (`nvidia.com/gpu.product`,
// e.g. NVIDIA-A100-SXM4-40GB; `nvidia.com/gpu.memory`, MiB).
// Pure value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>

namespace gpuprofile::meta {

inline constexpr char kDevicePluginGpuResource[] = "nvidia.com/gpu";
inline constexpr char kDevicePluginMigResourcePrefix[] = "nvidia.com/mig-";
inline constexpr char kGpuProductLabel[] = "nvidia.com/gpu.product";
inline constexpr char kGpuMemoryLabel[] = "nvidia.com/gpu.memory";

struct NodeGpus {
  std::string name;
  std::string resource_version;
  // Devices the device plugin offers: the sum of the allocatable nvidia.com/gpu and
  // nvidia.com/mig-* resources (0: the plugin offers none).
  int64_t device_plugin_devices = 0;
  std::string product;     // kGpuProductLabel, empty when absent
  std::string memory_mib;  // kGpuMemoryLabel, empty when absent
};

}  // namespace gpuprofile::meta
