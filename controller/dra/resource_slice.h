// File: controller/dra/resource_slice.h
// Decodes ResourceSlice objects (resource.k8s.io v1beta1, v1beta2 and v1) into the
// version-independent device model (dra::Device).
// - v1beta1 wraps each device's fields in `basic`; v1beta2 and v1 put them on the device.
// - Attributes are `{int: N}`, `{bool: B}`, `{string: S}` or `{version: V}`, or (1.36+,
//   DRAListTypeAttributes) `{ints: [...]}`, `{bools: ...}`, `{strings: ...}`, `{versions: ...}`:
//   exactly one. A value with none of these but another member (a newer release's kind) is kept
//   as opaque, so that the slice still decodes. A version that is not strict semver is kept as
//   text (ParseVersion() is nullopt), as Kubernetes stores it; CEL reports the error only when it
//   is read.
// - Capacities are `{value: Quantity}`; the quantity may be a string or a JSON number.
// - The node is spec.nodeName, else the device's own nodeName (per-device node selection), else
//   empty (nodeSelector / allNodes; Device::node_scope() says which).
// - 1.35–1.37 fields the model keeps: taints, consumesCounters, allowMultipleAllocations, the
//   slice's sharedCounters (a counters-only slice has no devices). Others (requestPolicy,
//   bindsToNode, binding conditions, ...) are ignored like any unknown field.
// Decoding is strict about what it reads (types, required fields, one-of rules) and ignores
// fields it does not know, so slices from newer servers still decode. Errors are
// InvalidArgument; each line of the message names the object and the field path, e.g.
//   ResourceSlice "a100-node-1-gpu.nvidia.com-7kq2x": spec.devices[0].attributes.memory:
//   attribute must have exactly one of int, bool, string, version
// and every problem in the object is listed, one per line.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/core/quantity.h"
#include "controller/dra/device.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {

inline constexpr char kResourceApiGroup[] = "resource.k8s.io";

// A named set of counters (spec.sharedCounters[]), which devices of the same pool draw from.
struct CounterSet {
  std::string name;
  std::vector<std::pair<std::string, Quantity>> counters;  // sorted by name
  friend bool operator==(const CounterSet& a, const CounterSet& b) {
    return a.name == b.name && a.counters == b.counters;
  }
};

// A decoded slice: what the inventory needs besides the devices (slices may carry no devices,
// e.g. the counters-only slice of NVIDIA's DynamicMIG mode).
struct ResourceSlice {
  std::string name;              // metadata.name
  std::string resource_version;  // metadata.resourceVersion, empty when absent
  std::string api_version;       // "resource.k8s.io/v1", ...
  std::string driver;            // spec.driver
  std::string pool;              // spec.pool.name
  int64_t pool_generation = 0;
  int64_t resource_slice_count = 0;
  std::string node_name;        // spec.nodeName, empty when absent
  // spec.nodeName (kNode), spec.nodeSelector or spec.allNodes; kNode also when none is set
  // (per-device node selection, or a file that leaves the node out).
  NodeScope node_scope = NodeScope::kNode;
  bool per_device_node_selection = false;  // spec.perDeviceNodeSelection
  std::vector<CounterSet> shared_counters;  // spec.sharedCounters, in order
  std::vector<Device> devices;  // in the order of spec.devices
};

// How a slice's spec.nodeName, allNodes and nodeSelector tie its devices to nodes (both
// decoders use these, so that they agree).
NodeScope SliceNodeScope(absl::string_view node_name, bool all_nodes, bool node_selector);

// A device's node and scope: the slice's node when the slice names one; otherwise (per-device
// node selection) the device's own nodeName, allNodes or nodeSelector; else the slice's scope.
// `node` views `slice.node_name` or `device_node`.
struct DeviceNodes {
  absl::string_view node;
  NodeScope scope = NodeScope::kNode;
};
DeviceNodes DeviceNodeScope(const ResourceSlice& slice, absl::string_view device_node,
                            bool all_nodes, bool node_selector);

// True for `kind: ResourceSlice` objects of the resource.k8s.io group (any version, served or
// not; DecodeSlice rejects versions it does not know).
bool IsResourceSlice(const nlohmann::json& obj);

// Decodes a whole ResourceSlice object.
absl::StatusOr<ResourceSlice> DecodeSlice(const nlohmann::json& obj);

// Decodes a ResourceSlice object into its devices (DecodeSlice(obj)->devices).
absl::StatusOr<std::vector<Device>> DecodeResourceSlice(const nlohmann::json& obj);

}  // namespace gpuprofile::dra
