// File: controller/profile/feature_support.h
// Which GpuProfile fields a cluster can express (docs/design.md §4.2). Each field that becomes
// a DRA API field is written only where the release has it and its feature gate is on:
//   spec.fallback             -> request firstAvailable   (DRAPrioritizedList, from 1.33)
//   spec.tolerations          -> request tolerations      (DRADeviceTaints, from 1.33)
//   spec.capacityRequests     -> request capacity.requests and device.allowMultipleAllocations
//                                in the class's CEL        (DRAConsumableCapacity, from 1.34)
//   spec.extendedResourceName -> DeviceClass.extendedResourceName (DRAExtendedResource, 1.34)
// A server with the gate off drops the field silently, so writing it anyway would generate
// objects that mean something else (a request without its fallback, a class nobody can request
// by name). Such a profile is Stalled with reason FeatureNotServed and nothing is written.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "controller/api/gpu_profile.h"
#include "controller/core/feature_gates.h"

namespace gpuprofile::profile {

inline constexpr char kReasonFeatureNotServed[] = "FeatureNotServed";

// One line per field the cluster cannot express, "<field path>: <reason>", naming the
// Kubernetes version and the gate (and whether the gate is missing on the release, or off).
std::vector<std::string> UnservedFields(const api::GpuProfileSpec& spec,
                                        const FeatureGates& gates);

// Whether the cluster serves DRA extended resources (DeviceClass.extendedResourceName and the
// implicit deviceclass.resource.kubernetes.io/<class> names).
bool ServesExtendedResources(const FeatureGates& gates);

}  // namespace gpuprofile::profile
