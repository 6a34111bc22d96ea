// File: controller/dra/device_toleration.h
// A DeviceToleration of a claim request (DRADeviceTaints) and whether it tolerates a device
// taint, by the API's rules: an empty effect matches every effect; operator Exists matches any
// value (and, with an empty key, every taint); Equal (the default) needs key and value equal.
// Pure value type; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "controller/dra/device.h"

namespace gpuprofile::dra {

struct DeviceToleration {
  std::string key;
  // "Exists" or "Equal"; "" (as decoded when the field is absent) means Equal, the server's
  // default, and is written back as absent.
  std::string op = "Equal";
  std::string value;
  std::string effect;  // empty: every effect
  // Only with effect NoExecute: how long a pod stays bound after the taint appears; unset:
  // forever. Does not change what Tolerates() answers.
  std::optional<int64_t> toleration_seconds;

  bool Tolerates(const DeviceTaint& taint) const;
};

// Whether one of `tolerations` tolerates every taint of `device` that prevents scheduling.
bool ToleratesDevice(const Device& device, absl::Span<const DeviceToleration> tolerations);

}  // namespace gpuprofile::dra
