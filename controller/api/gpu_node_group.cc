// File: controller/api/gpu_node_group.cc
#include "controller/api/gpu_node_group.h"

#include <algorithm>
#include <tuple>

namespace gpuprofile::api {
namespace {

auto Fields(const DeviceSignature& s) {
  return std::tie(s.driver, s.device_type, s.product, s.memory, s.driver_version, s.architecture,
                  s.compute_capability, s.cuda_driver_version);
}

auto Fields(const IncompletePool& p) {
  return std::tie(p.driver, p.pool, p.generation, p.slices_seen, p.resource_slice_count);
}

// Every field but the conditions.
auto Fields(const GpuNodeGroupStatus& s) {
  return std::tie(s.signature, s.node_count, s.nodes, s.devices, s.schedulable_devices,
                  s.tainted_devices, s.allocated_devices, s.free_devices, s.blocked_devices,
                  s.unhealthy_devices, s.incomplete_pools, s.profiles, s.offered_by,
                  s.device_plugin_nodes, s.offered_twice);
}

bool SameButTransitionTime(const meta::Condition& a, const meta::Condition& b) {
  return a.type == b.type && a.status == b.status &&
         a.observed_generation == b.observed_generation && a.reason == b.reason &&
         a.message == b.message;
}

}  // namespace

bool IncompletePool::operator==(const IncompletePool& other) const {
  return Fields(*this) == Fields(other);
}

bool EqualButTransitionTimes(const GpuNodeGroupStatus& a, const GpuNodeGroupStatus& b) {
  return Fields(a) == Fields(b) &&
         std::equal(a.conditions.begin(), a.conditions.end(), b.conditions.begin(),
                    b.conditions.end(), SameButTransitionTime);
}

bool DeviceSignature::operator==(const DeviceSignature& other) const {
  return Fields(*this) == Fields(other);
}

bool DeviceSignature::operator<(const DeviceSignature& other) const {
  return Fields(*this) < Fields(other);
}

}  // namespace gpuprofile::api
