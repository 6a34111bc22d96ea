// File: e2e/tests/mig_scene_fleet.h
// The fleet of issue 26's scene on Kubernetes 1.35+, as the NVIDIA DRA driver publishes it
// (resource.k8s.io/v1), and the scene's profiles:
//   - a100-node-1, a100-node-2: one NVIDIA A100-SXM4-80GB each, DynamicMIG on. Per GPU a
//     counters-only slice (counter set gpu-0-counter-set: multiprocessors, engines, memory and
//     memorySlice0..7) and a devices slice: the whole GPU gpu-0 (draws every counter in full)
//     and the seven 1g.10gb placements gpu-0-mig-1g10gb-19-<placementStart> (each its share and
//     its memory slice). The pool is the node's, two slices.
//   - h100-node-1: 4 x NVIDIA H100 80GB HBM3, gpu-3 tainted gpu.nvidia.com/xid=79:NoSchedule.
//   - l40s-node-1: 2 x NVIDIA L40S shared through consumable capacity: allowMultipleAllocations,
//     memory 48Gi with requestPolicy {default 8Gi, validRange {min 8Gi, step 8Gi, max 48Gi}}.
// Profiles: training (whole data-centre GPUs with at least 40Gi), mig-small (1g.10gb MIG
// placements), l40s-shared (9Gi of an L40S). UUIDs and PCI addresses are made up.
// Thread-safe (pure functions).
#pragma once

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace gpuprofile::e2e::testing {

inline constexpr char kCounterSetName[] = "gpu-0-counter-set";
inline constexpr char kXidTaintKey[] = "gpu.nvidia.com/xid";

// The name of the 1g.10gb placement of gpu-0 that starts at memory slice `start` (0..6): the
// driver's `gpu-<minor>-mig-<profile without dots>-<giProfileId>-<placementStart>` (a device name
// is a DNS label: the profile's dots go).
std::string MigPlacement(int start);

// The Nodes (seeded: kube-emulator's -f), and the ResourceSlices (created through the API, so
// admission sees them): both slices of each A100 node, the H100 and the L40S node's.
std::vector<nlohmann::json> MigSceneNodes();
std::vector<nlohmann::json> MigSceneSlices();

// The scene's GpuProfiles, each with a template in namespace `ns`.
std::vector<nlohmann::json> MigSceneProfiles(const std::string& ns);

}  // namespace gpuprofile::e2e::testing
