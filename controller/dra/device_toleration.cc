// File: controller/dra/device_toleration.cc
#include "controller/dra/device_toleration.h"

namespace gpuprofile::dra {

bool DeviceToleration::Tolerates(const DeviceTaint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (op == "Exists") return key.empty() || key == taint.key;
  return key == taint.key && value == taint.value;
}

bool ToleratesDevice(const Device& device, absl::Span<const DeviceToleration> tolerations) {
  if (!device.has_taints()) return true;
  for (const DeviceTaint& taint : device.taints()) {
    if (!taint.PreventsScheduling()) continue;
    bool tolerated = false;
    for (const DeviceToleration& t : tolerations) tolerated = tolerated || t.Tolerates(taint);
    if (!tolerated) return false;
  }
  return true;
}

}  // namespace gpuprofile::dra
