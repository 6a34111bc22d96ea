// File: controller/api/gpu_profile.cc
#include "controller/api/gpu_profile.h"

#include <tuple>

namespace gpuprofile::api {

const char* AllocationModeName(AllocationMode mode) {
  switch (mode) {
    case AllocationMode::kExactCount:
      return "ExactCount";
    case AllocationMode::kAll:
      return "All";
  }
  return "ExactCount";
}

const char* DeletionPolicyName(DeletionPolicy policy) {
  switch (policy) {
    case DeletionPolicy::kDelete:
      return "Delete";
    case DeletionPolicy::kOrphan:
      return "Orphan";
  }
  return "Delete";
}

const char* SharingStrategyName(SharingStrategy strategy) {
  switch (strategy) {
    case SharingStrategy::kExclusive:
      return "Exclusive";
    case SharingStrategy::kTimeSlicing:
      return "TimeSlicing";
    case SharingStrategy::kMps:
      return "MPS";
  }
  return "Exclusive";
}

bool DeviceStates::operator==(const DeviceStates& other) const {
  const auto fields = [](const DeviceStates& s) {
    return std::tie(s.free, s.overlapping, s.allocated, s.blocked_by_counters, s.tainted,
                    s.incomplete_pool, s.unavailable);
  };
  return fields(*this) == fields(other);
}

const std::string& GpuProfileSpec::EffectiveDeviceType() const {
  static const std::string* const kDefault = new std::string(kDefaultDeviceType);
  return device_type.has_value() ? *device_type : *kDefault;
}

std::optional<int64_t> GpuProfileSpec::EffectiveCount() const {
  if (allocation_mode == AllocationMode::kAll) return std::nullopt;
  return count.value_or(kDefaultCount);
}

}  // namespace gpuprofile::api
