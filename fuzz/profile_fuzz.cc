// File: fuzz/profile_fuzz.cc
// libFuzzer target for what `render` does with untrusted manifests: YAML/JSON parsing, strict
// GpuProfile decoding, selector compilation (structured terms and raw CEL) and the engine over a
// small fixed fleet, then encoding. Any crash, sanitizer report, leak or hang is a bug: bad input
// must only ever produce error messages.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "controller/api/gpu_profile_codec.h"
#include "controller/meta/namespace_codec.h"
#include "controller/dra/inventory.h"
#include "controller/dra/manifest_reader.h"
#include "controller/profile/engine.h"

namespace {

constexpr char kFleet[] = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      type: {string: gpu}
      productName: {string: NVIDIA L40S}
      architecture: {string: Ada Lovelace}
      cudaComputeCapability: {version: 8.9.0}
      driverVersion: {version: 570.133.20}
    capacity:
      memory: {value: 46068Mi}
  - name: gpu-1
    attributes:
      type: {string: mig}
      productName: {string: NVIDIA L40S}
    capacity:
      multiprocessors: {value: "14"}
)";

const gpuprofile::dra::Inventory& Fleet() {
  static const auto* const inventory = [] {
    auto objects = gpuprofile::dra::ParseManifests(kFleet, "fleet.yaml");
    return new gpuprofile::dra::Inventory(*gpuprofile::dra::BuildInventory(*objects));
  }();
  return *inventory;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<gpuprofile::dra::ManifestObject>> objects =
      gpuprofile::dra::ParseManifests(text, "input.yaml");
  if (!objects.ok()) return 0;
  gpuprofile::profile::EngineInput input;
  input.kube_version = gpuprofile::KubeVersion::Newest();
  for (const gpuprofile::dra::ManifestObject& object : *objects) {
    if (gpuprofile::api::IsGpuProfile(object.object)) {
      absl::StatusOr<gpuprofile::api::GpuProfile> profile =
          gpuprofile::api::DecodeGpuProfile(object.object);
      if (profile.ok()) input.profiles.push_back(*std::move(profile));
    } else if (gpuprofile::meta::IsNamespace(object.object)) {
      absl::StatusOr<gpuprofile::meta::Namespace> ns =
          gpuprofile::meta::DecodeNamespace(object.object);
      if (ns.ok()) input.namespaces.push_back(*std::move(ns));
    }
  }
  const gpuprofile::profile::DesiredState state =
      gpuprofile::profile::ComputeDesiredState(input, Fleet());
  for (const gpuprofile::profile::ProfileOutcome& outcome : state.profiles) {
    // As render prints it: bytes that are not UTF-8 are replaced, never thrown on.
    (void)gpuprofile::api::EncodeGpuProfile(outcome.profile, false)
        .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }
  return 0;
}
