// File: controller/kueue/kueue_mapped.cc
#include "controller/kueue/kueue_mapped.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::kueue {

meta::Condition KueueMappedCondition(const absl::StatusOr<KueueConfig>& config,
                                     const std::vector<std::string>& classes, int64_t generation) {
  meta::Condition c;
  c.type = kConditionKueueMapped;
  c.observed_generation = generation;
  if (!config.ok()) {
    c.status = meta::ConditionStatus::kUnknown;
    c.reason = kReasonKueueConfigUnreadable;
    c.message = absl::StrCat("cannot read Kueue's Configuration: ", config.status().message());
    return c;
  }
  std::vector<std::string> missing, mapped;
  std::set<std::string> seen;
  for (const std::string& cls : classes) {
    if (!seen.insert(cls).second) continue;
    const std::string resource = config->ResourceOf(cls);
    if (resource.empty()) {
      missing.push_back(cls);
    } else {
      mapped.push_back(absl::StrCat(cls, " -> ", resource));
    }
  }
  if (!missing.empty()) {
    c.status = meta::ConditionStatus::kFalse;
    c.reason = kReasonMissingDeviceClassMapping;
    c.message = absl::StrCat(
        "Kueue's resources.deviceClassMappings does not map DeviceClass",
        missing.size() == 1 ? " " : "es ", absl::StrJoin(missing, ", "),
        ": Kueue will not admit workloads whose claims name ", missing.size() == 1 ? "it" : "them",
        " (add the mappings `gpu-profile-controller render --kueue` prints, then restart Kueue's "
        "manager, which reads its Configuration at startup)");
    return c;
  }
  c.status = meta::ConditionStatus::kTrue;
  c.reason = kReasonDeviceClassesMapped;
  c.message = absl::StrCat("mapped in Kueue's Configuration: ", absl::StrJoin(mapped, ", "),
                           " (Kueue applies it from its manager's last restart)");
  return c;
}

void SetKueueMapped(const absl::StatusOr<KueueConfig>& config,
                    const std::vector<std::string>& classes, int64_t generation,
                    api::GpuProfileStatus* status) {
  std::vector<meta::Condition>& conditions = status->conditions;
  conditions.erase(
      std::remove_if(conditions.begin(), conditions.end(),
                     [](const meta::Condition& c) { return c.type == kConditionKueueMapped; }),
      conditions.end());
  if (classes.empty()) return;
  conditions.push_back(KueueMappedCondition(config, classes, generation));
}

}  // namespace gpuprofile::kueue
