// File: e2e/tests/mig_scene_fleet.cc
#include "e2e/tests/mig_scene_fleet.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuprofile::e2e::testing {
namespace {

using json = nlohmann::json;

constexpr char kA100[] = "NVIDIA A100-SXM4-80GB";
constexpr char kH100[] = "NVIDIA H100 80GB HBM3";
constexpr char kL40s[] = "NVIDIA L40S";
// What one 1g.10gb placement of an A100-SXM4-80GB holds (the driver publishes the same amounts
// as its capacity and as what it draws from the GPU's counters); seven fill the GPU's 98
// multiprocessors and 7 copy engines.
constexpr char kMigMemory[] = "9728Mi";
constexpr int kMigMultiprocessors = 14;
constexpr int kMemorySlices = 8;

json Str(const std::string& s) { return {{"string", s}}; }
json Ver(const std::string& v) { return {{"version", v}}; }
json Val(const json& v) { return {{"value", v}}; }

json Node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}}};
}

// A slice of `node`'s pool (`slices` slices in the pool) with `spec` merged in.
json Slice(const std::string& node, const std::string& suffix, int slices, const json& spec) {
  json slice = {{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceSlice"},
                {"metadata",
                 {{"name", absl::StrCat(node, "-gpu.nvidia.com-", suffix)},
                  {"generateName", absl::StrCat(node, "-gpu.nvidia.com-")}}},
                {"spec",
                 {{"driver", "gpu.nvidia.com"},
                  {"nodeName", node},
                  {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", slices}}}}}};
  slice["spec"].update(spec);
  return slice;
}

// The attributes every NVIDIA device of a product carries (the GPU's, copied to its MIG devices).
json ProductAttributes(const std::string& product, const std::string& arch, const std::string& cc,
                       const std::string& driver, const std::string& bus) {
  return {{"productName", Str(product)},
          {"brand", Str("Nvidia")},
          {"architecture", Str(arch)},
          {"cudaComputeCapability", Ver(cc)},
          {"driverVersion", Ver(driver)},
          {"cudaDriverVersion", Ver(driver == "580.95.5" ? "13.0.0" : "12.8.0")},
          {"resource.kubernetes.io/pciBusID", Str(bus)}};
}

// A whole GPU: type gpu, its uuid and PCIe root, its memory.
json WholeGpu(const std::string& name, const std::string& uuid, json attributes,
              const std::string& root, const std::string& memory) {
  attributes["type"] = Str("gpu");
  attributes["uuid"] = Str(uuid);
  attributes["resource.kubernetes.io/pcieRoot"] = Str(root);
  return {{"name", name}, {"attributes", attributes}, {"capacity", {{"memory", Val(memory)}}}};
}

// The counters of one A100-SXM4-80GB in MIG mode: what the whole GPU draws in full.
json A100Counters() {
  json counters = {{"multiprocessors", Val("98")}, {"copyEngines", Val("7")},
                   {"decoders", Val("5")},         {"jpegEngines", Val("1")},
                   {"ofaEngines", Val("1")},       {"memory", Val("80Gi")}};
  for (int i = 0; i < kMemorySlices; ++i) counters[absl::StrCat("memorySlice", i)] = Val("1");
  return counters;
}

// The 1g.10gb placement of gpu-0 (parent `uuid`) at memory slice `start`.
json MigDevice(int start, const std::string& uuid, json attributes) {
  attributes["type"] = Str("mig");
  attributes["parentUUID"] = Str(uuid);
  attributes["profile"] = Str("1g.10gb");
  const std::string slice = absl::StrCat("memorySlice", start);
  json capacity = {{"multiprocessors", Val(std::to_string(kMigMultiprocessors))},
                   {"copyEngines", Val("1")},
                   {"decoders", Val("0")},
                   {"encoders", Val("0")},
                   {"jpegEngines", Val("0")},
                   {"ofaEngines", Val("0")},
                   {"memory", Val(kMigMemory)},
                   {slice, Val("1")}};
  json draws = {{"multiprocessors", Val(std::to_string(kMigMultiprocessors))},
                {"copyEngines", Val("1")},
                {"memory", Val(kMigMemory)},
                {slice, Val("1")}};
  return {{"name", MigPlacement(start)},
          {"attributes", attributes},
          {"capacity", capacity},
          {"consumesCounters", {{{"counterSet", kCounterSetName}, {"counters", draws}}}}};
}

// An A100 node's two slices: the counters, then the whole GPU and its seven placements.
std::pair<json, json> A100NodeSlices(const std::string& node, int n) {
  const std::string uuid = absl::StrCat("GPU-a1000080-0000-4000-8000-00000000000", n);
  const json attributes =
      ProductAttributes(kA100, "Ampere", "8.0.0", "580.95.5", absl::StrCat("0000:0", n, ":00.0"));
  json gpu = WholeGpu("gpu-0", uuid, attributes, "pci0000:00", "80Gi");
  gpu["consumesCounters"] = {{{"counterSet", kCounterSetName}, {"counters", A100Counters()}}};
  json devices = {gpu};
  for (int start = 0; start < 7; ++start) devices.push_back(MigDevice(start, uuid, attributes));
  json counters =
      Slice(node, "c0unt", 2,
            {{"sharedCounters", {{{"name", kCounterSetName}, {"counters", A100Counters()}}}}});
  return {counters, Slice(node, "d3v1c", 2, {{"devices", devices}})};
}

json H100NodeSlice() {
  json devices = json::array();
  for (int i = 0; i < 4; ++i) {
    const std::string bus = absl::StrCat("0000:", 18 + 16 * i, ":00.0");
    json gpu = WholeGpu(absl::StrCat("gpu-", i),
                        absl::StrCat("GPU-6a1e0f3c-0000-4000-8000-00000000100", i),
                        ProductAttributes(kH100, "Hopper", "9.0.0", "570.133.20", bus),
                        absl::StrCat("pci0000:", 17 + 16 * i), "80Gi");
    // The driver's health check: XID 79, the GPU has fallen off the bus.
    if (i == 3)
      gpu["taints"] = {{{"key", kXidTaintKey}, {"value", "79"}, {"effect", "NoSchedule"}}};
    devices.push_back(gpu);
  }
  return Slice("h100-node-1", "p4x9d", 1, {{"devices", devices}});
}

json L40sNodeSlice() {
  json devices = json::array();
  for (int i = 0; i < 2; ++i) {
    json gpu = WholeGpu(absl::StrCat("gpu-", i),
                        absl::StrCat("GPU-8f3b2c1d-0000-4000-8000-00000000200", i),
                        ProductAttributes(kL40s, "Ada Lovelace", "8.9.0", "570.133.20",
                                          absl::StrCat("0000:", 41 + i, ":00.0")),
                        "pci0000:40", "48Gi");
    gpu["allowMultipleAllocations"] = true;
    gpu["capacity"]["memory"]["requestPolicy"] = {
        {"default", "8Gi"}, {"validRange", {{"min", "8Gi"}, {"step", "8Gi"}, {"max", "48Gi"}}}};
    devices.push_back(gpu);
  }
  return Slice("l40s-node-1", "k7m2q", 1, {{"devices", devices}});
}

json Profile(const std::string& name, const json& spec) {
  return {{"apiVersion", "gpuprofile.io/v1alpha1"},
          {"kind", "GpuProfile"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

}  // namespace

std::string MigPlacement(int start) { return absl::StrCat("gpu-0-mig-1g10gb-19-", start); }

std::vector<json> MigSceneNodes() {
  return {Node("a100-node-1"), Node("a100-node-2"), Node("h100-node-1"), Node("l40s-node-1")};
}

std::vector<json> MigSceneSlices() {
  std::vector<json> slices;
  for (int n = 1; n <= 2; ++n) {
    auto [counters, devices] = A100NodeSlices(absl::StrCat("a100-node-", n), n);
    slices.push_back(counters);
    slices.push_back(devices);
  }
  slices.push_back(H100NodeSlice());
  slices.push_back(L40sNodeSlice());
  return slices;
}

std::vector<json> MigSceneProfiles(const std::string& ns) {
  const json tmpl = {{"namespaces", {ns}}};
  // 40Gi alone would take in the L40S (48Gi): training is for the data-centre parts.
  return {Profile("training",
                  {{"selector",
                    {{"memory", {{"min", "40Gi"}}}, {"architectures", {"Ampere", "Hopper"}}}},
                   {"claimTemplate", tmpl}}),
          Profile("mig-small", {{"deviceType", "mig"},
                                {"selector", {{"migProfiles", {"1g.10gb"}}}},
                                {"claimTemplate", tmpl}}),
          Profile("l40s-shared", {{"selector", {{"productNames", {kL40s}}}},
                                  {"capacityRequests", {{"memory", "9Gi"}}},
                                  {"claimTemplate", tmpl}})};
}

}  // namespace gpuprofile::e2e::testing
