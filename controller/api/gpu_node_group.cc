// File: controller/api/gpu_node_group.cc
#include "controller/api/gpu_node_group.h"

#include <tuple>

namespace gpuprofile::api {
namespace {

auto Fields(const DeviceSignature& s) {
  return std::tie(s.driver, s.device_type, s.product, s.memory, s.driver_version, s.architecture,
                  s.compute_capability, s.cuda_driver_version);
}

}  // namespace

bool DeviceSignature::operator==(const DeviceSignature& other) const {
  return Fields(*this) == Fields(other);
}

bool DeviceSignature::operator<(const DeviceSignature& other) const {
  return Fields(*this) < Fields(other);
}

}  // namespace gpuprofile::api
