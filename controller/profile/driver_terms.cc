// File: controller/profile/driver_terms.cc
// Attribute names come from each driver's published device attributes
// (docs/dra-reference.md §5-§6):
// - gpu.nvidia.com: type, productName, architecture, cudaComputeCapability (version),
//   driverVersion (version), cudaDriverVersion (version); capacity memory. MIG devices have
//   type mig and their MIG profile in `profile`. Sharing: resource.nvidia.com/v1beta1 GpuConfig
//   (full GPUs: `sharing` with strategy TimeSlicing | MPS, timeSlicingConfig.interval,
//   mpsConfig) and MigDeviceConfig (MIG devices: strategy and mpsConfig, no interval); vfio
//   devices have no sharing (the driver's api/nvidia.com/resource/v1beta1, v0.4).
// - gpu.amd.com: type (amdgpu | amdgpu-partition), productName, driverVersion (version);
//   capacity memory. No compute capability or architecture.
// - gpu.intel.com: type (gpu | vf), model; capacity memory. Its `driver` attribute is the
//   kernel driver's name, not a version.
// - gpu.example.com (Kubernetes' example driver): model, driverVersion (version); capacity
//   memory; no type attribute.
#include "controller/profile/driver_terms.h"

#include <algorithm>

namespace gpuprofile::profile {
namespace {

const std::vector<DriverTerms>& KnownTables() {
  static const auto* const kTables = new std::vector<DriverTerms>{
      {"gpu.nvidia.com",
       "type",
       "gpu",
       {"gpu", "mig", "vfio"},
       "productName",
       "architecture",
       "cudaComputeCapability",
       "driverVersion",
       "cudaDriverVersion",
       "memory",
       "mig",
       "profile",
       "resource.nvidia.com/v1beta1",
       {{"gpu", "GpuConfig", true}, {"mig", "MigDeviceConfig", false}}},
      {"gpu.amd.com",
       "type",
       "amdgpu",
       {"amdgpu", "amdgpu-partition"},
       "productName",
       "",
       "",
       "driverVersion",
       "",
       "memory",
       "",
       "",
       "",
       {}},
      {"gpu.intel.com", "type", "gpu", {"gpu", "vf"}, "model", "", "", "", "", "memory", "", "",
       "", {}},
      {"gpu.example.com", "", "", {}, "model", "", "", "driverVersion", "", "memory", "", "", "",
       {}},
  };
  return *kTables;
}

}  // namespace

const DriverTerms& TermsForDriver(const std::string& driver) {
  for (const DriverTerms& terms : KnownTables()) {
    if (terms.driver == driver) return terms;
  }
  // Every driver in the survey publishes its device memory as capacity "memory" in bytes, so
  // the memory term stays available for drivers without a table.
  static const auto* const kNeutral = new DriverTerms{"", "", "", {}, "", "", "", "", "", "memory", "", "", "", {}};
  return *kNeutral;
}

bool IsKnownDriver(const std::string& driver) { return !TermsForDriver(driver).driver.empty(); }

std::vector<std::string> KnownDrivers() {
  std::vector<std::string> names;
  for (const DriverTerms& terms : KnownTables()) names.push_back(terms.driver);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace gpuprofile::profile
