// File: test/profile/profile_test_util.h
// Shared fixtures for the profile engine's tests: specs built in code and inventories read from
// test/testdata.
#pragma once

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/core/quantity.h"
#include "controller/core/version_literal.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/dra/inventory.h"
#include "controller/dra/manifest_reader.h"
#include "controller/meta/namespace.h"
#include "controller/profile/engine.h"
#include "gtest/gtest.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::profile::testing {

// A slice of the pool named after its node (generation 1), the pool announcing `slice_count`
// slices; devices and counters are the caller's to add.
inline dra::ResourceSlice PoolSlice(std::string name, std::string node, int64_t slice_count = 1,
                                    std::string driver = "gpu.nvidia.com") {
  dra::ResourceSlice slice;
  slice.name = std::move(name);
  slice.driver = std::move(driver);
  slice.pool = node;
  slice.pool_generation = 1;
  slice.resource_slice_count = slice_count;
  slice.node_name = std::move(node);
  return slice;
}

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

inline meta::Namespace Ns(const std::string& name, std::map<std::string, std::string> labels = {},
                          bool terminating = false) {
  meta::Namespace ns;
  ns.metadata.name = name;
  ns.metadata.labels = std::move(labels);
  ns.terminating = terminating;
  return ns;
}

// The outcome's condition of `type` (a test failure, and an empty condition, when it has none).
inline const meta::Condition& Cond(const ProfileOutcome& p, const char* type) {
  const meta::Condition* c = meta::FindCondition(p.profile.status.conditions, type);
  EXPECT_NE(c, nullptr) << type;
  static const meta::Condition kMissing;
  return c ? *c : kMissing;
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

// Specs that exercise the matcher: shared and per-device evaluation, a per-device value, a
// selector raising errors, another driver.
inline std::vector<api::GpuProfileSpec> VariedSpecs() {
  std::vector<api::GpuProfileSpec> specs;
  specs.push_back(DefaultSpec());
  api::GpuProfileSpec large = DefaultSpec();
  large.selector.memory = api::QuantityRange{Q("40Gi"), std::nullopt};
  specs.push_back(large);
  api::GpuProfileSpec xl = DefaultSpec();
  xl.selector.memory = api::QuantityRange{Q("48Gi"), std::nullopt};
  specs.push_back(xl);
  api::GpuProfileSpec mig = DefaultSpec();
  mig.device_type = "mig";
  specs.push_back(mig);
  api::GpuProfileSpec cc = DefaultSpec();
  cc.selector.compute_capability = api::VersionRange{V("8.0"), std::nullopt};
  cc.selector.cuda_driver_version = api::VersionRange{V("12.4"), std::nullopt};
  specs.push_back(cc);
  // Not reducible to named reads: evaluated per device.
  api::GpuProfileSpec whole_map = DefaultSpec();
  whole_map.selector.cel = {"device.attributes['gpu.nvidia.com'].exists(k, k == 'uuid')"};
  specs.push_back(whole_map);
  // Reads a per-device value: reducible, but every device is its own class.
  api::GpuProfileSpec by_uuid = DefaultSpec();
  by_uuid.selector.cel = {
      "'uuid' in device.attributes['gpu.nvidia.com'] && "
      "device.attributes['gpu.nvidia.com'].uuid.endsWith('1')"};
  specs.push_back(by_uuid);
  // Raises "no such key" on devices without uuid.
  api::GpuProfileSpec raising = DefaultSpec();
  raising.selector.cel = {"device.attributes['gpu.nvidia.com'].uuid.startsWith('GPU-')"};
  specs.push_back(raising);
  api::GpuProfileSpec amd = DefaultSpec();
  amd.driver = "gpu.amd.com";
  specs.push_back(amd);
  // Tests a per-device value for presence only: devices share classes whatever their UUIDs.
  api::GpuProfileSpec has_uuid = DefaultSpec();
  has_uuid.selector.cel = {"'uuid' in device.attributes['gpu.nvidia.com']"};
  specs.push_back(has_uuid);
  return specs;
}

// Devices of one storage (one slice's, of `driver`), each random in what node groups and
// selectors read: a product name absent, a string, a version or published qualified; an index;
// a PCIe root; an attribute more ahead of the others (another layout); memory absent, 40Gi,
// the same in bytes, or 80Gi. For the readers that compare devices of one storage by entry.
inline std::vector<dra::Device> VariedStorage(const std::string& driver, uint32_t seed,
                                              int count = 80) {
  std::mt19937 random(seed);
  dra::DeviceSetBuilder builder(driver, "pool", 1, "slice");
  const std::vector<Quantity> memory = {Q("40Gi"), Q("42949672960"), Q("80Gi")};
  for (int i = 0; i < count; ++i) {
    builder.AddDevice("gpu-" + std::to_string(i), "node");
    if (random() % 3 == 0) builder.AddAttribute("aaa", dra::AttributeValue::Int(i));
    builder.AddAttribute("type", dra::AttributeValue::String("gpu"));
    switch (random() % 5) {
      case 0:
        break;
      case 1:
        builder.AddAttribute("productName", dra::AttributeValue::String("A"));
        break;
      case 2:
        builder.AddAttribute("productName", dra::AttributeValue::String("B"));
        break;
      case 3:
        builder.AddAttribute("productName", dra::AttributeValue::Version("1.0.0"));
        break;
      default:
        builder.AddAttribute(driver + "/productName", dra::AttributeValue::String("A"));
        break;
    }
    if (random() % 4 != 0) {
      builder.AddAttribute("index", dra::AttributeValue::Int(static_cast<int64_t>(random() % 2)));
    }
    if (random() % 4 != 0) {
      builder.AddAttribute("resource.kubernetes.io/pcieRoot",
                           dra::AttributeValue::String(random() % 2 == 0 ? "r0" : "r1"));
    }
    builder.AddAttribute("driverVersion", dra::AttributeValue::Version("550.54.15"));
    if (const uint32_t m = random() % 4; m < memory.size()) {
      builder.AddCapacity("memory", memory[m]);
    }
  }
  return std::move(builder).Build();
}

inline const char kMixedFleet[] = "test/testdata/profile/mixed-fleet.yaml";
inline const char kSampleFleet[] = "config/samples/fleet";

// An engine input of one profile per spec, named p0, p1, ... (their classes and templates too),
// for Kubernetes `kube`.
inline EngineInput ProfilesInput(const std::vector<api::GpuProfileSpec>& specs,
                                 const std::string& kube = "1.34") {
  EngineInput input;
  input.kube_version = *KubeVersion::Parse(kube);
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string name = absl::StrCat("p", i);
    api::GpuProfileSpec spec = specs[i];
    spec.device_class_name = name;
    spec.claim_template.name = name;
    input.profiles.push_back(MakeProfile(name, spec));
  }
  return input;
}

// Everything the engine decides, as text (a failing comparison shows the difference).
inline std::string DescribeState(const DesiredState& state) {
  std::string out;
  for (const api::GpuNodeGroup& g : state.node_groups) {
    absl::StrAppend(&out, api::EncodeGpuNodeGroup(g, true).dump(), "\n");
  }
  for (const dra::DeviceClass& c : state.device_classes) {
    absl::StrAppend(
        &out,
        dra::EncodeDeviceClass(c, dra::DraApiVersion::kV1, *KubeVersion::Parse("1.34"), true)
            .dump(),
        "\n");
  }
  for (const TemplateSet& set : state.template_sets) {
    absl::StrAppend(&out, set.prototype.metadata.name, " in ", set.namespaces.size(), "\n");
  }
  for (const ProfileOutcome& p : state.profiles) {
    absl::StrAppend(&out, api::EncodeGpuProfile(p.profile, true).dump(), " valid=", p.valid,
                    " problems=", p.problems, "\n");
  }
  return out;
}

// The ResourceSlices of kMixedFleet and kSampleFleet, as JSON objects.
inline std::vector<nlohmann::json> FleetJson() {
  std::vector<nlohmann::json> out;
  for (const char* path : {kMixedFleet, kSampleFleet}) {
    absl::StatusOr<std::vector<dra::ManifestObject>> objects =
        dra::ReadManifests({::gpuprofile::testing::SourceDir() + "/" + path});
    EXPECT_TRUE(objects.ok()) << objects.status();
    if (!objects.ok()) continue;
    for (const dra::ManifestObject& o : *objects) {
      if (dra::IsResourceSlice(o.object)) out.push_back(o.object);
    }
  }
  return out;
}

}  // namespace gpuprofile::profile::testing
