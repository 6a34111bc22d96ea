// File: controller/profile/node_groups.h
// GpuNodeGroups from the inventory (docs/design.md §3): one group per distinct device signature
// (driver, device type, product, memory, driver version; architecture, compute capability and
// CUDA version come with them). Named by the lowercase slug of product and driver version
// (`nvidia-a100-sxm4-40gb-535.161.8`); when that is longer than 63 characters, or when two
// signatures would get the same name (e.g. MIG devices of different sizes next to their parent
// GPU), each affected name is shortened/suffixed with an 8-hex-digit hash of its signature, so
// names are stable as the fleet changes.
// Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/api/gpu_node_group.h"
#include "controller/dra/inventory.h"
#include "controller/profile/fleet_memo.h"

namespace gpuprofile::profile {

inline constexpr size_t kMaxNodeGroupNameLength = 63;

struct NodeGroups {
  // Sorted by name; status complete except `profiles` (filled by the engine).
  std::vector<api::GpuNodeGroup> groups;
  // For each device of the inventory (same index), the index of its group.
  std::vector<uint32_t> group_of_device;
};

// The signature of one device as published (see DeviceSignature for field meanings).
api::DeviceSignature SignatureOf(const dra::Device& device);

// The name a signature gets when it collides with no other.
std::string BaseNodeGroupName(const api::DeviceSignature& signature);

// FNV-1a (32-bit) of the signature's fields, as 8 lowercase hex digits.
std::string SignatureHash(const api::DeviceSignature& signature);

// `memo` (optional) keeps the devices' signatures between calls (fleet_memo.h); the result is
// the same with or without it.
NodeGroups BuildNodeGroups(const dra::Inventory& inventory, FleetMemo* memo = nullptr);

}  // namespace gpuprofile::profile
