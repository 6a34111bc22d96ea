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

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "controller/api/gpu_node_group.h"
#include "controller/core/quantity.h"
#include "controller/dra/inventory.h"
#include "controller/meta/node.h"
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

// What a signature is made of, as views of the device's storage: devices with equal views have
// equal signatures (and, but for a zero memory published in two formats, the converse holds),
// and comparing views allocates nothing (a fleet's neighbouring devices mostly share their
// signature: fleet_memo.cc).
struct SignatureView {
  absl::string_view driver, device_type, product, driver_version, architecture, compute_capability,
      cuda_driver_version;
  const Quantity* memory = nullptr;  // null when not published
  bool operator==(const SignatureView& other) const;
};
SignatureView SignatureViewOf(const dra::Device& device);

// The attribute ids a signature reads of a device of `driver`, in its own domain ("" where the
// driver has none), and the union of them over every driver (device_reads.h).
std::vector<std::string> SignatureIds(const std::string& driver);
std::vector<std::string> SignatureIdsOfAnyDriver();

// SignatureViewOf for many devices in a row, in two steps (as PathReader, selector_paths.h):
// Tokens() names the storage entries a signature is read from (a number per attribute read,
// and the memory's address), so that two devices of one storage with equal tokens have equal
// views; View() reads the view from them. Keeps the driver's names and Device::EntryHints
// (so: one reader per pass over devices that stay alive meanwhile).
class SignatureReader {
 public:
  void Tokens(const dra::Device& device, std::vector<uint64_t>* tokens);
  SignatureView View(const dra::Device& device, const std::vector<uint64_t>& tokens) const;

 private:
  // The attribute ids read for `driver` (a token each, in this order, then the memory's).
  void UseDriver(absl::string_view driver);

  std::string driver_;
  bool known_driver_ = false;
  std::string memory_capacity_;
  std::vector<std::string> ids_, qualified_ids_;  // "id" and "driver/id"; "" when none
  std::vector<dra::Device::EntryHint> id_hints_, qualified_hints_;
};
api::DeviceSignature SignatureOf(const SignatureView& view);

// The name a signature gets when it collides with no other.
std::string BaseNodeGroupName(const api::DeviceSignature& signature);

// FNV-1a (32-bit) of the signature's fields, as 8 lowercase hex digits.
std::string SignatureHash(const api::DeviceSignature& signature);

// `memo` (optional) keeps the devices' signatures between calls (fleet_memo.h); the result is
// the same with or without it.
NodeGroups BuildNodeGroups(const dra::Inventory& inventory, FleetMemo* memo = nullptr);

// The migration view (api/gpu_node_group.h, offeredBy). Marks each group of `groups` DRA, or
// Both with the OfferedTwice condition when any of its nodes also offers device-plugin GPUs
// (`nodes`: the cluster's Nodes; empty when unknown, e.g. `render` without Node objects).
void MarkDevicePluginNodes(absl::Span<const meta::NodeGpus> nodes, const dra::Inventory& inventory,
                           NodeGroups* groups);

// Groups of the nodes whose GPUs only the device plugin offers (device-plugin resources in
// their allocatable and no device in the inventory), one per GPU Feature Discovery product and
// memory label pair, named `<product slug>-device-plugin` (hashed like other names when that
// collides with `taken` or is too long). Offered by DevicePlugin; the devices are the plugin's
// allocatable count. Sorted by name.
std::vector<api::GpuNodeGroup> DevicePluginGroups(absl::Span<const meta::NodeGpus> nodes,
                                                  const dra::Inventory& inventory,
                                                  const std::vector<api::GpuNodeGroup>& taken);

}  // namespace gpuprofile::profile
