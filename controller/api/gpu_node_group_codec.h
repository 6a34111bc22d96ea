// File: controller/api/gpu_node_group_codec.h
// JSON encoding and decoding of GpuNodeGroup (gpuprofile.io/v1alpha1, cluster-scoped, status
// only). The CRD (crds/) is written from the field names below.
//
// Encoding (nlohmann::ordered_json, keys in this order):
//   apiVersion: gpuprofile.io/v1alpha1
//   kind: GpuNodeGroup
//   metadata: (object_meta_codec.h)
//   status:
//     driver, deviceType, productName, memory, driverVersion, architecture, computeCapability,
//       cudaDriverVersion: strings, the signature (DeviceSignature); each omitted when empty
//     nodeCount: integer, always written
//     nodes: [string], sorted, at most kMaxNodeNamesInStatus; always written
//     devices, schedulableDevices, taintedDevices, allocatedDevices, freeDevices: integers,
//       always written
//     incompletePools: [{driver, pool, generation, slicesSeen, resourceSliceCount}]; omitted
//       when empty
//     profiles: [string], sorted; always written
//     offeredBy: DRA | DevicePlugin | Both; omitted when empty
//     devicePluginNodes: integer, always written
//     offeredTwiceNodes: [string], sorted, at most kMaxNodeNamesInStatus; omitted when empty
//     conditions: [{type, status, lastTransitionTime (omitted when empty), reason, message}];
//       omitted when empty
// There is no spec.
//
// Decoding (what the operator reads back from the server) checks apiVersion, kind and types;
// unknown fields are ignored. Errors are InvalidArgument, one "<path>: <reason>" per line.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "controller/api/gpu_node_group.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::api {

// True when `object` says apiVersion gpuprofile.io/v1alpha1, kind GpuNodeGroup.
bool IsGpuNodeGroup(const nlohmann::json& object);

absl::StatusOr<GpuNodeGroup> DecodeGpuNodeGroup(const nlohmann::json& object);

nlohmann::ordered_json EncodeGpuNodeGroup(const GpuNodeGroup& group, bool include_server_fields);
// The `status` member alone (what a status update writes).
nlohmann::ordered_json EncodeGpuNodeGroupStatus(const GpuNodeGroupStatus& status);

}  // namespace gpuprofile::api
