// File: controller/api/gpu_node_group.h
// GpuNodeGroup (gpuprofile.io/v1alpha1, cluster-scoped, status only): one per distinct device
// signature in the cluster (docs/design.md §3). Written only by the operator.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/meta/condition.h"
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

  bool operator==(const IncompletePool& other) const;
};

// Who offers a group's GPUs to pods (the migration view): DRA (ResourceSlices), the NVIDIA device
// plugin (Node allocatable), or both on some node of the group.
inline constexpr char kOfferedByDra[] = "DRA";
inline constexpr char kOfferedByDevicePlugin[] = "DevicePlugin";
inline constexpr char kOfferedByBoth[] = "Both";
// The node group's condition when a node offers its GPUs through both (True only; absent
// otherwise): the two would hand out the same GPUs twice.
inline constexpr char kConditionOfferedTwice[] = "OfferedTwice";
inline constexpr char kReasonDevicePluginAndDra[] = "DevicePluginAndDRA";

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
  // Of `devices`: those blocked by counters that allocated devices use (for a claim that
  // tolerates no taint: a whole GPU whose MIG placements claims hold), and those the driver's
  // health taints mark unhealthy (dra/device_health.h).
  int64_t blocked_devices = 0;
  int64_t unhealthy_devices = 0;
  std::vector<IncompletePool> incomplete_pools;
  std::vector<std::string> profiles;  // sorted names of profiles whose selectors select the group
  // The migration view. A group of DRA devices is offered by DRA, or Both when any of its nodes
  // also offers device-plugin GPUs; nodes the device plugin alone serves form groups of their
  // own (by their GPU Feature Discovery labels), offered by DevicePlugin.
  std::string offered_by;
  int64_t device_plugin_nodes = 0;          // nodes offering device-plugin GPUs
  std::vector<std::string> offered_twice;   // sorted; the first kMaxNodeNamesInStatus
  std::vector<meta::Condition> conditions;  // OfferedTwice when offered_twice is not empty
};

// Whether `a` and `b` are equal in every field, their conditions' lastTransitionTime aside (the
// operator stamps those when it writes; node_group_decision.h).
bool EqualButTransitionTimes(const GpuNodeGroupStatus& a, const GpuNodeGroupStatus& b);

struct GpuNodeGroup {
  meta::ObjectMeta metadata;
  GpuNodeGroupStatus status;
};

}  // namespace gpuprofile::api
