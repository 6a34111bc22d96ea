// File: controller/kueue/kueue_render.h
// `render --kueue` (docs/kueue.md): what Kueue needs to know of the operator's DeviceClasses,
// computed from the same desired state `run` reconciles:
//  1. a Kueue `Configuration` (config.kueue.x-k8s.io/v1beta2) holding only
//     `resources.deviceClassMappings`: one entry per generated DeviceClass, named
//     `gpuprofile.io/<profile>` and mapping that profile's class. A fallback chain's alternatives
//     are other profiles' classes, so each is mapped by its own profile's entry (Kueue accepts a
//     class in one mapping only);
//  2. a `ResourceFlavor` (kueue.x-k8s.io/v1beta2) with an empty spec: the DRA scheduler, not
//     node labels, places claims on the devices a class selects;
//  3. a `ClusterQueue` (kueue.x-k8s.io/v1beta2) with one resource group covering those
//     resources on that flavor, and a namespaceSelector for the namespaces holding the profiles'
//     templates. nominalQuota per resource: with spec.quota, devicesPerNamespace times the
//     namespaces the profile writes a ResourceQuota in (the sum those quotas allow); without
//     spec.quota, the devices the profile's class matches in the fleet read (status
//     .matchedDevices): no more than the fleet could hold at once.
// Documents in that order; mappings and resources sorted by profile name.
// Limits checked (those of Kueue's validation, pkg/config/validation.go and the ClusterQueue
// webhook/CRD, at the version docs/kueue.md names): at most 16 mappings and 64 covered
// resources per group; mapping and resource names and class names must be qualified names
// ([<DNS subdomain>/]<name of at most 63 characters>). A profile name longer than 63 characters
// cannot form a resource name: an error naming it.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/profile/engine.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kueue {

inline constexpr char kResourcePrefix[] = "gpuprofile.io/";
inline constexpr char kKueueApiVersion[] = "kueue.x-k8s.io/v1beta2";
inline constexpr char kDefaultQueueName[] = "gpu-profiles";
// Kueue's limits (pkg/config/validation.go, the ClusterQueue CRD).
inline constexpr size_t kMaxDeviceClassMappings = 16;
inline constexpr size_t kMaxCoveredResources = 64;

struct KueueRenderOptions {
  // metadata.name of the ResourceFlavor and of the ClusterQueue.
  std::string flavor_name = kDefaultQueueName;
  std::string queue_name = kDefaultQueueName;
};

struct KueueRender {
  std::vector<nlohmann::ordered_json> documents;  // Configuration, ResourceFlavor, ClusterQueue
  // What a reader should know (quota taken from matched devices, requests Kueue does not admit),
  // one line each, naming the profile.
  std::vector<std::string> notes;
};

// The quota resource of profile `profile`: "gpuprofile.io/<profile>". Errors when Kueue would
// refuse it (a profile name longer than 63 characters).
absl::StatusOr<std::string> QuotaResourceName(const std::string& profile);

// From the engine's desired state (valid profiles only; Stalled ones generate no class). Errors
// (every problem, one per line): no profile generates a class, a Kueue limit exceeded, a name
// Kueue would refuse.
absl::StatusOr<KueueRender> RenderKueue(const profile::DesiredState& state,
                                        const KueueRenderOptions& options = {});

}  // namespace gpuprofile::kueue
