// File: controller/profile/device_set.cc
#include "controller/profile/device_set.h"

namespace gpuprofile::profile {

DeviceSet DeviceSet::Of(const std::vector<bool>& bits) {
  DeviceSet set(bits.size());
  for (size_t d = 0; d < bits.size(); ++d) {
    if (bits[d]) set.Insert(d);
  }
  return set;
}

}  // namespace gpuprofile::profile
