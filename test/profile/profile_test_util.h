// File: test/profile/profile_test_util.h
// Shared fixtures for the profile engine's tests: specs built in code and inventories read from
// test/testdata.
#pragma once

#include <string>
#include <vector>

#include "controller/api/gpu_profile.h"
#include "controller/core/quantity.h"
#include "controller/core/version_literal.h"
#include "controller/dra/inventory.h"
#include "controller/dra/manifest_reader.h"
#include "gtest/gtest.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::profile::testing {

// A spec with the decoder's defaults applied (driver gpu.nvidia.com, names from `name`).
inline api::GpuProfileSpec DefaultSpec(const std::string& name = "p") {
  api::GpuProfileSpec spec;
  spec.driver = api::kDefaultDriver;
  spec.device_class_name = name;
  spec.claim_template.name = name;
  spec.claim_template.request_name = api::kDefaultRequestName;
  return spec;
}

inline api::GpuProfile MakeProfile(const std::string& name, api::GpuProfileSpec spec) {
  api::GpuProfile profile;
  profile.metadata.name = name;
  profile.metadata.generation = 1;
  profile.spec = std::move(spec);
  return profile;
}

inline Quantity Q(const std::string& text) { return *Quantity::Parse(text); }
inline Semver V(const std::string& text) { return *NormalizeVersionLiteral(text); }

// Reads and builds an inventory from paths relative to the source tree.
inline dra::Inventory LoadInventory(const std::vector<std::string>& relative_paths) {
  std::vector<std::string> paths;
  for (const std::string& p : relative_paths)
    paths.push_back(::gpuprofile::testing::SourceDir() + "/" + p);
  absl::StatusOr<std::vector<dra::ManifestObject>> objects = dra::ReadManifests(paths);
  EXPECT_TRUE(objects.ok()) << objects.status();
  if (!objects.ok()) return {};
  absl::StatusOr<dra::Inventory> inventory = dra::BuildInventory(*objects);
  EXPECT_TRUE(inventory.ok()) << inventory.status();
  return inventory.ok() ? *std::move(inventory) : dra::Inventory{};
}

inline const char kMixedFleet[] = "test/testdata/profile/mixed-fleet.yaml";
inline const char kSampleFleet[] = "config/samples/fleet";

}  // namespace gpuprofile::profile::testing
