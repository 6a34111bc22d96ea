// File: controller/kueue/kueue_mapped.h
// The KueueMapped condition of a GpuProfile (docs/kueue.md, docs/design.md §3): whether Kueue's
// Configuration maps every DeviceClass a claim from the profile's template may name (its own
// class, then its fallback chain's) to a quota resource. Kueue rejects a workload whose claim
// names an unmapped class, so False is a workload that will never be admitted.
//   True    DeviceClassesMapped        every class is mapped; the message names the resources
//   False   MissingDeviceClassMapping  the message names each unmapped class
//   Unknown KueueConfigUnreadable      the ConfigMap is not read yet, missing, or malformed; the
//                                      message is the error, naming the ConfigMap and field
// Kueue reads its Configuration at startup, so a True condition after an edit of the ConfigMap
// holds once Kueue's manager has restarted; the messages say so.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/api/gpu_profile.h"
#include "controller/kueue/kueue_config.h"
#include "controller/meta/condition.h"

namespace gpuprofile::kueue {

inline constexpr char kConditionKueueMapped[] = "KueueMapped";
inline constexpr char kReasonDeviceClassesMapped[] = "DeviceClassesMapped";
inline constexpr char kReasonMissingDeviceClassMapping[] = "MissingDeviceClassMapping";
inline constexpr char kReasonKueueConfigUnreadable[] = "KueueConfigUnreadable";

// `config`: the Configuration as read (or why it could not be); `classes`: the classes the
// profile's requests name, in request order (duplicates are ignored); `generation`: the
// profile's metadata.generation (observedGeneration).
meta::Condition KueueMappedCondition(const absl::StatusOr<KueueConfig>& config,
                                     const std::vector<std::string>& classes, int64_t generation);

// Sets (replaces) the KueueMapped condition in `status`; with no class (a profile that
// generates nothing) removes it instead.
void SetKueueMapped(const absl::StatusOr<KueueConfig>& config,
                    const std::vector<std::string>& classes, int64_t generation,
                    api::GpuProfileStatus* status);

}  // namespace gpuprofile::kueue
