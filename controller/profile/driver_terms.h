// File: controller/profile/driver_terms.h
// What each DRA driver publishes, so that GpuProfile's structured terms can be compiled to CEL
// for it (reference: the NVIDIA GPU driver, AMD's and Intel's GPU drivers, and Kubernetes'
// example driver). A term whose attribute a driver does not publish is rejected, naming the term
// and the driver; the vendor-neutral terms (`attributes`, `capacity`, `cel`) work for any driver.
// Pure; thread-safe (static tables).
#pragma once

#include <string>
#include <vector>

namespace gpuprofile::profile {

struct DriverTerms {
  std::string driver;  // the DRA driver name, e.g. "gpu.nvidia.com"
  // The string attribute that names the device kind (NVIDIA: "type" = gpu | mig | vfio), or empty
  // when the driver publishes none (then deviceType may not be set explicitly).
  std::string type_attribute;
  std::string default_device_type;        // used when spec.deviceType is not written
  std::vector<std::string> device_types;  // the kinds it publishes, for validation
  // Attribute ids in the driver's domain; empty when the driver has no such attribute.
  std::string product_attribute;              // string
  std::string architecture_attribute;         // string
  std::string compute_capability_attribute;   // version
  std::string driver_version_attribute;       // version
  std::string cuda_driver_version_attribute;  // version
  std::string memory_capacity;                // capacity id (bytes)
  // MIG: the device type of MIG devices and the string attribute naming their MIG profile
  // ("1g.10gb"); empty when the driver publishes none.
  std::string mig_device_type;
  std::string mig_profile_attribute;
  // Sharing (spec.sharing): the apiVersion of the driver's opaque configuration and, per device
  // type, the configuration kind that carries `sharing` (empty: that type cannot be shared), and
  // whether the kind has a time-slice interval.
  struct SharingKind {
    std::string device_type;
    std::string kind;
    bool has_time_slice_interval = false;
  };
  std::string sharing_api_version;
  std::vector<SharingKind> sharing_kinds;
};

// The terms for `driver`: a known driver's table, or the vendor-neutral defaults for any other
// driver (no type attribute; only `memory`, `attributes`, `capacity` and `cel`).
const DriverTerms& TermsForDriver(const std::string& driver);

// True when `driver` is one of the drivers with a table (not the vendor-neutral fallback).
bool IsKnownDriver(const std::string& driver);

// The known drivers' names, sorted (for messages and docs).
std::vector<std::string> KnownDrivers();

}  // namespace gpuprofile::profile
