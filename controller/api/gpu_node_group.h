// File: controller/api/gpu_node_group.h
// GpuNodeGroup (gpuprofile.io/v1alpha1, cluster-scoped, status only): one per distinct device
// signature in the cluster (docs/design.md §3). Written only by the operator.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/meta/object_meta.h"

namespace gpuprofile::api {

inline constexpr char kGpuNodeGroupKind[] = "GpuNodeGroup";
inline constexpr int kMaxNodeNamesInStatus = 100;

// What makes two devices "the same kind": each field is the attribute's text as published
// (versions as strings), empty when the device lacks it.
struct DeviceSignature {
  std::string driver;
  std::string device_type;
  std::string product;
  std::string memory;  // canonical quantity text, e.g. "40Gi" / "46068Mi"
  std::string driver_version;
  std::string architecture;
  std::string compute_capability;
  std::string cuda_driver_version;

  bool operator==(const DeviceSignature& other) const;
  bool operator<(const DeviceSignature& other) const;
};

struct IncompletePool {
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  int64_t slices_seen = 0;
  int64_t resource_slice_count = 0;
};

struct GpuNodeGroupStatus {
  DeviceSignature signature;
  int64_t node_count = 0;
  std::vector<std::string> nodes;  // sorted; the first kMaxNodeNamesInStatus
  int64_t devices = 0;
  // Of `devices`: what the scheduler could allocate at once to a claim that tolerates no taint
  // (profile/allocatable.h), and those with a taint that prevents scheduling.
  int64_t schedulable_devices = 0;
  int64_t tainted_devices = 0;
  // Of `devices`: those claims hold, and the schedulable ones no claim holds.
  int64_t allocated_devices = 0;
  int64_t free_devices = 0;
  std::vector<IncompletePool> incomplete_pools;
  std::vector<std::string> profiles;  // sorted names of profiles whose selectors select the group
};

struct GpuNodeGroup {
  ObjectMeta metadata;
  GpuNodeGroupStatus status;
};

}  // namespace gpuprofile::api
