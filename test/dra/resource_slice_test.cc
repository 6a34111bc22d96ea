// File: test/dra/resource_slice_test.cc
#include "controller/dra/resource_slice.h"

#include <optional>
#include <string>
#include <vector>

#include "controller/dra/manifest_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::dra {
namespace resource_slice_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Pointee;
using json = nlohmann::json;

std::string TestData() { return ::gpuprofile::testing::SourceDir() + "/test/testdata/dra/"; }

// The single object in `yaml` (the reader is tested on its own).
json Object(const std::string& yaml) {
  absl::StatusOr<std::vector<ManifestObject>> objects = ParseManifests(yaml, "test.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(objects->size(), 1u);
  return objects->at(0).object;
}

json FromFile(const std::string& name) {
  absl::StatusOr<std::vector<ManifestObject>> objects = ReadManifests({TestData() + name});
  EXPECT_TRUE(objects.ok()) << objects.status();
  EXPECT_EQ(objects->size(), 1u);
  return objects->at(0).object;
}

// A slice in `version` whose single device carries `device_body` (attributes/capacity YAML,
// indented for the device level; wrapped in `basic` for v1beta1).
std::string Slice(const std::string& version, const std::string& device_body,
                  const std::string& extra_spec = "") {
  std::string body;
  const bool basic = version == "v1beta1";
  for (size_t start = 0; start < device_body.size();) {
    size_t end = device_body.find('\n', start);
    if (end == std::string::npos) end = device_body.size();
    body += (basic ? "      " : "    ") + device_body.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return "apiVersion: resource.k8s.io/" + version + R"(
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
)" + extra_spec +
         R"(  devices:
  - name: gpu-0
)" + (basic ? "    basic:\n" : "") +
         body;
}

TEST(DecodeResourceSliceTest, V1ExampleFromTheNvidiaDriver) {
  ASSERT_OK_AND_ASSIGN(std::vector<Device> devices,
                       DecodeResourceSlice(FromFile("resourceslice-a100-40gb.v1.yaml")));
  ASSERT_EQ(devices.size(), 2u);
  const Device& d = devices[0];
  EXPECT_EQ(d.driver(), "gpu.nvidia.com");
  EXPECT_EQ(d.pool(), "a100-node-1");
  EXPECT_EQ(d.pool_generation(), 1);
  EXPECT_EQ(d.slice_name(), "a100-node-1-gpu.nvidia.com-7kq2x");
  EXPECT_EQ(d.node(), "a100-node-1");
  EXPECT_EQ(d.name(), "gpu-0");
  EXPECT_EQ(d.attributes().size(), 10u);
  const AttributeValue product = d.FindAttribute("productName").value();
  EXPECT_EQ(product.kind(), AttributeValue::Kind::kString);
  EXPECT_EQ(product.string_value(), "NVIDIA A100-SXM4-40GB");
  const AttributeValue driver = d.FindAttribute("driverVersion").value();
  EXPECT_EQ(driver.kind(), AttributeValue::Kind::kVersion);
  EXPECT_EQ(driver.string_value(), "550.127.8");
  const std::optional<Semver> driver_version = driver.ParseVersion();
  ASSERT_TRUE(driver_version.has_value());
  EXPECT_EQ(driver_version->major(), 550u);
  EXPECT_EQ(driver_version->minor(), 127u);
  EXPECT_EQ(driver_version->patch(), 8u);
  EXPECT_EQ(d.FindAttribute("resource.kubernetes.io/pciBusID").value().string_value(),
            "0000:07:00.0");
  ASSERT_OK_AND_ASSIGN(Quantity forty_gi, Quantity::Parse("40Gi"));
  EXPECT_THAT(d.FindCapacity("memory"), Pointee(forty_gi));
  EXPECT_EQ(devices[1].name(), "gpu-1");
}

TEST(DecodeResourceSliceTest, V1Beta1ExampleUnwrapsBasic) {
  ASSERT_OK_AND_ASSIGN(
      ResourceSlice slice,
      DecodeSlice(FromFile("resourceslice-a100-40gb.v1beta1-k8s132-driver25.3.yaml")));
  EXPECT_EQ(slice.api_version, "resource.k8s.io/v1beta1");
  EXPECT_EQ(slice.resource_slice_count, 1);
  ASSERT_EQ(slice.devices.size(), 2u);
  const Device& gpu = slice.devices[0];
  EXPECT_EQ(gpu.FindAttribute("minor").value().kind(), AttributeValue::Kind::kInt);
  EXPECT_EQ(gpu.FindAttribute("minor").value().int_value(), 0);
  EXPECT_EQ(gpu.FindAttribute("pcieBusID").value().string_value(), "0000:07:00.0");
  EXPECT_FALSE(gpu.FindAttribute("resource.kubernetes.io/pciBusID").has_value());
  const Device& mig = slice.devices[1];
  EXPECT_EQ(mig.name(), "gpu-0-mig-19-0-1");
  EXPECT_EQ(mig.FindAttribute("type").value().string_value(), "mig");
  EXPECT_EQ(mig.capacity().size(), 8u);
  ASSERT_OK_AND_ASSIGN(Quantity mig_memory, Quantity::Parse("4864Mi"));
  EXPECT_THAT(mig.FindCapacity("memory"), Pointee(mig_memory));
}

TEST(DecodeResourceSliceTest, V1Beta2IsFlat) {
  ASSERT_OK_AND_ASSIGN(std::vector<Device> devices, DecodeResourceSlice(Object(Slice("v1beta2", R"(
attributes:
  productName: {string: NVIDIA L40S}
  cudaComputeCapability: {version: 8.9.0}
  sriov: {bool: false}
  numa: {int: 1}
capacity:
  memory: {value: 46068Mi})"))));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].FindAttribute("productName").value().string_value(), "NVIDIA L40S");
  EXPECT_EQ(devices[0].FindAttribute("sriov").value().kind(), AttributeValue::Kind::kBool);
  EXPECT_FALSE(devices[0].FindAttribute("sriov").value().bool_value());
  EXPECT_EQ(devices[0].FindAttribute("numa").value().int_value(), 1);
  ASSERT_OK_AND_ASSIGN(Quantity memory, Quantity::Parse("46068Mi"));
  EXPECT_THAT(devices[0].FindCapacity("memory"), Pointee(memory));
}

TEST(DecodeResourceSliceTest, SameDataInEveryVersionDecodesTheSame) {
  const std::string body = R"(attributes:
  type: {string: gpu}
  driverVersion: {version: 570.133.20}
capacity:
  memory: {value: 46068Mi})";
  ASSERT_OK_AND_ASSIGN(auto v1, DecodeResourceSlice(Object(Slice("v1", body))));
  ASSERT_OK_AND_ASSIGN(auto v1beta2, DecodeResourceSlice(Object(Slice("v1beta2", body))));
  ASSERT_OK_AND_ASSIGN(auto v1beta1, DecodeResourceSlice(Object(Slice("v1beta1", body))));
  for (const auto* devices : {&v1beta2, &v1beta1}) {
    ASSERT_EQ(devices->size(), 1u);
    EXPECT_EQ(devices->at(0).attributes().size(), v1[0].attributes().size());
    EXPECT_EQ(devices->at(0).FindAttribute("driverVersion").value().string_value(), "570.133.20");
    const Quantity* v1_memory = v1[0].FindCapacity("memory");
    ASSERT_NE(v1_memory, nullptr);
    EXPECT_THAT(devices->at(0).FindCapacity("memory"), Pointee(*v1_memory));
  }
}

TEST(DecodeResourceSliceTest, NumericCapacityIsAQuantity) {
  ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(Slice("v1", R"(capacity:
  multiprocessors: {value: 14}
  quoted: {value: "14"})"))));
  EXPECT_THAT(devices[0].FindCapacity("multiprocessors"), Pointee(Quantity::FromInt(14)));
  EXPECT_THAT(devices[0].FindCapacity("quoted"), Pointee(Quantity::FromInt(14)));
}

TEST(DecodeResourceSliceTest, VersionThatIsNotStrictSemverKeepsItsText) {
  ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(Slice("v1", R"(attributes:
  driverVersion: {version: 550.127.08}
  cc: {version: "8.0"})"))));
  const AttributeValue driver = devices[0].FindAttribute("driverVersion").value();
  EXPECT_EQ(driver.kind(), AttributeValue::Kind::kVersion);
  EXPECT_EQ(driver.string_value(), "550.127.08");
  EXPECT_FALSE(driver.ParseVersion().has_value());
  const AttributeValue cc = devices[0].FindAttribute("cc").value();
  EXPECT_FALSE(cc.ParseVersion().has_value());
}

TEST(DecodeResourceSliceTest, CounterOnlySliceHasNoDevices) {
  ASSERT_OK_AND_ASSIGN(ResourceSlice slice, DecodeSlice(Object(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-counters}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 3, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counter-set
    counters:
      memory: {value: 40Gi}
)")));
  EXPECT_TRUE(slice.devices.empty());
  EXPECT_EQ(slice.pool_generation, 3);
  EXPECT_EQ(slice.resource_slice_count, 2);
  ASSERT_EQ(slice.shared_counters.size(), 1u);
  EXPECT_EQ(slice.shared_counters[0].name, "gpu-0-counter-set");
  ASSERT_EQ(slice.shared_counters[0].counters.size(), 1u);
  EXPECT_EQ(slice.shared_counters[0].counters[0].first, "memory");
  EXPECT_EQ(slice.shared_counters[0].counters[0].second, *Quantity::Parse("40Gi"));
}

// 1.36+ (DRAListTypeAttributes): one of ints, bools, strings, versions; in every version.
TEST(DecodeResourceSliceTest, ListTypedAttributesInEveryVersion) {
  for (const char* version : {"v1", "v1beta2", "v1beta1"}) {
    SCOPED_TRACE(version);
    ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(Slice(version, R"(attributes:
  resource.kubernetes.io/numaNode: {ints: [0]}
  modes: {strings: [a, b]}
  flags: {bools: [true, false]}
  drivers: {versions: ["1.2.3", "not-semver"]}
  empty: {ints: []})"))));
    ASSERT_EQ(devices.size(), 1u);
    std::optional<AttributeValue> numa =
        devices[0].FindAttribute("resource.kubernetes.io/numaNode");
    ASSERT_TRUE(numa.has_value());
    EXPECT_EQ(numa->kind(), AttributeValue::Kind::kIntList);
    ASSERT_EQ(numa->list_size(), 1u);
    EXPECT_EQ(numa->list_item(0), AttributeValue::Int(0));
    std::optional<AttributeValue> modes = devices[0].FindAttribute("modes");
    ASSERT_TRUE(modes.has_value());
    EXPECT_EQ(modes->kind(), AttributeValue::Kind::kStringList);
    ASSERT_EQ(modes->list_size(), 2u);
    EXPECT_EQ(modes->list_item(1).string_value(), "b");
    EXPECT_EQ(devices[0].FindAttribute("flags")->list_item(0), AttributeValue::Bool(true));
    std::optional<AttributeValue> drivers = devices[0].FindAttribute("drivers");
    EXPECT_EQ(drivers->kind(), AttributeValue::Kind::kVersionList);
    EXPECT_TRUE(drivers->list_item(0).ParseVersion().has_value());
    EXPECT_FALSE(drivers->list_item(1).ParseVersion().has_value());
    EXPECT_EQ(devices[0].FindAttribute("empty")->list_size(), 0u);
  }
}

TEST(DecodeResourceSliceTest, ListItemsOfTheWrongTypeNameTheirIndex) {
  absl::StatusOr<std::vector<Device>> result =
      DecodeResourceSlice(Object(Slice("v1", "attributes:\n  numa: {ints: [0, \"1\"]}")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("spec.devices[0].attributes.numa.ints[1]: must be an integer, got string"));
  result = DecodeResourceSlice(Object(Slice("v1", "attributes:\n  numa: {ints: 0}")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("spec.devices[0].attributes.numa.ints: must be a list, got integer"));
  result = DecodeResourceSlice(Object(Slice("v1", "attributes:\n  numa: {int: 0, ints: [0]}")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("exactly one of"));
}

// A kind from a newer release is kept whole; the device and its other attributes stay.
TEST(DecodeResourceSliceTest, UnknownAttributeKindIsKeptOpaque) {
  ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(Slice("v1", R"(attributes:
  ratio: {floats: [1.5]}
  type: {string: gpu})"))));
  ASSERT_EQ(devices.size(), 1u);
  std::optional<AttributeValue> ratio = devices[0].FindAttribute("ratio");
  ASSERT_TRUE(ratio.has_value());
  EXPECT_EQ(ratio->kind(), AttributeValue::Kind::kOpaque);
  EXPECT_EQ(ratio->string_value(), R"({"floats":[1.5]})");
  EXPECT_EQ(devices[0].FindAttribute("type"), AttributeValue::String("gpu"));
}

TEST(DecodeResourceSliceTest, TaintsCountersAndSharing) {
  for (const char* version : {"v1", "v1beta2", "v1beta1"}) {
    SCOPED_TRACE(version);
    ASSERT_OK_AND_ASSIGN(auto devices,
                         DecodeResourceSlice(Object(Slice(version, R"(allowMultipleAllocations: true
taints:
- {key: gpu.nvidia.com/xid, value: "79", effect: NoSchedule, timeAdded: "2026-11-30T10:00:00Z"}
- {key: gpu.nvidia.com/unmonitored, effect: None}
consumesCounters:
- counterSet: gpu-0-counter-set
  counters:
    memory: {value: 5Gi}
    multiprocessors: {value: "14"}
bindsToNode: true
bindingConditions: [attached]
capacity:
  memory:
    value: 40Gi
    requestPolicy: {default: 1Gi, validRange: {min: 1Mi, step: 1Mi}})"))));
    ASSERT_EQ(devices.size(), 1u);
    const Device& d = devices[0];
    EXPECT_TRUE(d.allow_multiple_allocations());
    std::vector<DeviceTaint> taints = d.taints();
    ASSERT_EQ(taints.size(), 2u);
    EXPECT_EQ(taints[0].key, "gpu.nvidia.com/xid");
    EXPECT_EQ(taints[0].value, "79");
    EXPECT_EQ(taints[0].effect, "NoSchedule");
    EXPECT_TRUE(taints[0].PreventsScheduling());
    EXPECT_FALSE(taints[1].PreventsScheduling());
    EXPECT_TRUE(d.HasSchedulingTaint());
    std::vector<CounterUse> uses = d.counters_consumed();
    ASSERT_EQ(uses.size(), 2u);
    EXPECT_EQ(uses[0].counter_set, "gpu-0-counter-set");
    EXPECT_EQ(uses[0].counter, "memory");
    EXPECT_EQ(*uses[0].value, *Quantity::Parse("5Gi"));
    EXPECT_EQ(uses[1].counter, "multiprocessors");
    EXPECT_EQ(d.FindCapacity("memory")->ToString(), "40Gi");
  }
}

TEST(DecodeResourceSliceTest, CapacityRequestPolicies) {
  ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(Slice("v1", R"(capacity:
  memory:
    value: 48Gi
    requestPolicy: {default: 8Gi, validRange: {min: 8Gi, max: 48Gi, step: 8Gi}}
  shares:
    value: "4"
    requestPolicy: {default: "1", validValues: ["1", "2", 4]}
  cores: {value: "64"}
  bandwidth:
    value: 100G
    requestPolicy: {validRange: {min: 1G}, future: {x: 1}})"))));
  ASSERT_EQ(devices.size(), 1u);
  const Device& d = devices[0];
  const CapacityRequestPolicy* memory = d.FindRequestPolicy("memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->default_value->ToString(), "8Gi");
  EXPECT_TRUE(memory->valid_values.empty());
  ASSERT_TRUE(memory->valid_range.has_value());
  EXPECT_EQ(memory->valid_range->min.ToString(), "8Gi");
  EXPECT_EQ(memory->valid_range->max->ToString(), "48Gi");
  EXPECT_EQ(memory->valid_range->step->ToString(), "8Gi");
  const CapacityRequestPolicy* shares = d.FindRequestPolicy("shares");
  ASSERT_NE(shares, nullptr);
  ASSERT_EQ(shares->valid_values.size(), 3u);
  EXPECT_EQ(shares->valid_values[2].ToString(), "4");
  EXPECT_FALSE(shares->valid_range.has_value());
  EXPECT_EQ(d.FindRequestPolicy("cores"), nullptr);
  const CapacityRequestPolicy* bandwidth = d.FindRequestPolicy("bandwidth");
  ASSERT_NE(bandwidth, nullptr);  // members of a newer release are ignored
  EXPECT_FALSE(bandwidth->default_value.has_value());
  EXPECT_FALSE(bandwidth->valid_range->max.has_value());
  EXPECT_FALSE(bandwidth->valid_range->step.has_value());
}

TEST(DecodeResourceSliceTest, InvalidRequestPoliciesNameTheSliceAndField) {
  struct Case {
    const char* policy;
    const char* error;
  };
  const Case cases[] = {
      {"requestPolicy: 8Gi", "capacity.memory.requestPolicy: must be an object"},
      {"requestPolicy: {default: {x: 1}}",
       "capacity.memory.requestPolicy.default: must be a quantity"},
      {"requestPolicy: {validValues: 8Gi}", "capacity.memory.requestPolicy.validValues: must be"},
      {"requestPolicy: {validValues: [8Gi, lots]}",
       "capacity.memory.requestPolicy.validValues[1]: invalid quantity \"lots\""},
      {"requestPolicy: {validRange: {max: 8Gi}}",
       "capacity.memory.requestPolicy.validRange.min: required"},
      {"requestPolicy: {validRange: {min: 1Gi, step: true}}",
       "capacity.memory.requestPolicy.validRange.step: must be a quantity"},
      {"requestPolicy: {validValues: [8Gi], validRange: {min: 1Gi}}",
       "capacity.memory.requestPolicy: validValues and validRange are mutually exclusive"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.policy);
    absl::StatusOr<ResourceSlice> result = DecodeSlice(
        Object(Slice("v1", std::string("capacity:\n  memory:\n    value: 48Gi\n    ") + c.policy)));
    ASSERT_FALSE(result.ok());
    EXPECT_THAT(std::string(result.status().message()), HasSubstr("s1"));
    EXPECT_THAT(std::string(result.status().message()),
                HasSubstr(std::string("spec.devices[0].") + c.error));
  }
}

TEST(DecodeResourceSliceTest, TaintAndCounterShapesAreChecked) {
  absl::StatusOr<std::vector<Device>> result =
      DecodeResourceSlice(Object(Slice("v1", "taints:\n- {value: x, effect: NoSchedule}")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("spec.devices[0].taints[0].key: required"));
  result = DecodeResourceSlice(Object(Slice("v1", "consumesCounters: {counterSet: x}")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("spec.devices[0].consumesCounters: must be a list, got object"));
  result = DecodeResourceSlice(Object(Slice("v1", "allowMultipleAllocations: \"yes\"")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("spec.devices[0].allowMultipleAllocations: must be a boolean"));
}

TEST(DecodeResourceSliceTest, SlicesForSelectedOrAllNodes) {
  ASSERT_OK_AND_ASSIGN(ResourceSlice all, DecodeSlice(Object(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: fabric.example.com
  allNodes: true
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices:
  - name: link-0
)")));
  EXPECT_EQ(all.node_scope, NodeScope::kAllNodes);
  ASSERT_EQ(all.devices.size(), 1u);
  EXPECT_EQ(all.devices[0].node_scope(), NodeScope::kAllNodes);
  EXPECT_EQ(all.devices[0].node(), "");
  ASSERT_OK_AND_ASSIGN(ResourceSlice selected, DecodeSlice(Object(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: rack}
spec:
  driver: fabric.example.com
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: rack, operator: In, values: ["1"]}]
  pool: {name: rack-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: link-0
)")));
  EXPECT_EQ(selected.node_scope, NodeScope::kNodeSelector);
  EXPECT_EQ(selected.devices[0].node_scope(), NodeScope::kNodeSelector);
}

TEST(DecodeResourceSliceTest, PerDeviceNodeNameIsUsedWhenTheSliceHasNone) {
  ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: shared}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: rack-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    nodeName: node-b
  - name: gpu-1
    allNodes: true
)")));
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].node(), "node-b");
  EXPECT_EQ(devices[0].node_scope(), NodeScope::kNode);
  EXPECT_EQ(devices[1].node(), "");
  EXPECT_EQ(devices[1].node_scope(), NodeScope::kAllNodes);
}

TEST(DecodeResourceSliceTest, UnknownFieldsAreIgnored) {
  ASSERT_OK_AND_ASSIGN(auto devices, DecodeResourceSlice(Object(Slice("v1", R"(attributes:
  type: {string: gpu}
capacity:
  memory:
    value: 40Gi
    requestPolicy: {default: 1Gi, validRange: {min: 1Gi}}
futureDeviceField: {anything: [1, 2]})",
                                                                      "  futureSpecField: x\n"))));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].attributes().size(), 1u);
}

TEST(DecodeResourceSliceTest, AttributeWithoutKindNamesObjectAndField) {
  json obj = FromFile("resourceslice-a100-40gb.v1.yaml");
  obj["spec"]["devices"][0]["attributes"]["memory"] = json::object();
  auto result = DecodeResourceSlice(obj);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      result.status().message(),
      "ResourceSlice \"a100-node-1-gpu.nvidia.com-7kq2x\": spec.devices[0].attributes.memory: "
      "attribute must have exactly one of int, bool, string, version, ints, bools, strings, "
      "versions");
}

TEST(DecodeResourceSliceTest, AttributeWithTwoKindsIsRejected) {
  auto result = DecodeResourceSlice(Object(Slice("v1beta1", R"(attributes:
  index: {int: 0, string: "0"})")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("spec.devices[0].basic.attributes.index: attribute must have exactly one"));
}

TEST(DecodeResourceSliceTest, WrongTypesAreReportedWithTheirPath) {
  struct Case {
    std::string body;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"attributes:\n  minor: {int: \"0\"}",
       "spec.devices[0].attributes.minor.int: must be an "
       "integer, got string"},
      {"attributes:\n  minor: {int: 1.5}", "attributes.minor.int: must be an integer, got number"},
      {"attributes:\n  sriov: {bool: \"true\"}", "attributes.sriov.bool: must be a boolean"},
      {"attributes:\n  label: {string: 3}",
       "attributes.label.string: must be a string, got integer"},
      {"attributes:\n  v: {version: 12.4}",
       "attributes.v.version: must be a string (a semantic version), got number"},
      {"attributes:\n  v: gpu", "attributes.v: attribute must be an object"},
      {"attributes: [a]", "spec.devices[0].attributes: must be an object, got array"},
      {"attributes:\n  resource.kubernetes.io/pcieRoot: {}",
       "spec.devices[0].attributes[resource.kubernetes.io/pcieRoot]: attribute must have"},
      {"capacity:\n  memory: 40Gi",
       "capacity.memory: capacity must be an object {value: "
       "<quantity>}, got string"},
      {"capacity:\n  memory: {}", "capacity.memory.value: required"},
      {"capacity:\n  memory: {value: true}", "capacity.memory.value: must be a quantity"},
  };
  for (const Case& c : cases) {
    auto result = DecodeResourceSlice(Object(Slice("v1", c.body)));
    ASSERT_FALSE(result.ok()) << c.body;
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(c.expected)) << c.body;
  }
}

TEST(DecodeResourceSliceTest, BadQuantityNamesTheField) {
  auto result = DecodeResourceSlice(Object(Slice("v1", "capacity:\n  memory: {value: 40GB}")));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("ResourceSlice \"s1\": spec.devices[0].capacity.memory.value: invalid "
                        "quantity \"40GB\""));
}

TEST(DecodeResourceSliceTest, SpecFieldsAreChecked) {
  auto result = DecodeResourceSlice(Object(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: broken}
spec:
  pool: {name: p, generation: "1", resourceSliceCount: 0}
  nodeName: 7
  devices:
  - name: gpu-0
  - name: gpu-0
  - {}
)"));
  ASSERT_FALSE(result.ok());
  const std::string message(result.status().message());
  EXPECT_THAT(message, HasSubstr("ResourceSlice \"broken\": spec.driver: required"));
  EXPECT_THAT(message, HasSubstr("ResourceSlice \"broken\": spec.pool.generation: must be an "
                                 "integer, got string"));
  EXPECT_THAT(message, HasSubstr("spec.pool.resourceSliceCount: must be greater than zero"));
  EXPECT_THAT(message, HasSubstr("spec.nodeName: must be a string, got integer"));
  EXPECT_THAT(message, HasSubstr("spec.devices[1].name: duplicate device name \"gpu-0\""));
  EXPECT_THAT(message, HasSubstr("spec.devices[2].name: required"));
}

TEST(DecodeResourceSliceTest, MissingSpecAndPool) {
  auto no_spec = DecodeResourceSlice(
      Object("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: x}\n"));
  ASSERT_FALSE(no_spec.ok());
  EXPECT_THAT(std::string(no_spec.status().message()),
              HasSubstr("ResourceSlice \"x\": spec: required"));
  auto no_pool = DecodeResourceSlice(
      Object("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: x}\n"
             "spec: {driver: d}\n"));
  ASSERT_FALSE(no_pool.ok());
  EXPECT_THAT(std::string(no_pool.status().message()), HasSubstr("spec.pool: required"));
}

TEST(DecodeResourceSliceTest, WrongShapeForTheVersion) {
  auto flat_in_v1beta1 = DecodeResourceSlice(Object(R"(
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  nodeName: n
  pool: {name: n, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {type: {string: gpu}}
)"));
  ASSERT_FALSE(flat_in_v1beta1.ok());
  EXPECT_THAT(std::string(flat_in_v1beta1.status().message()),
              HasSubstr("spec.devices[0]: attributes and capacity must be under \"basic\" in "
                        "resource.k8s.io/v1beta1"));
  auto basic_in_v1 = DecodeResourceSlice(Object(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  nodeName: n
  pool: {name: n, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic: {attributes: {type: {string: gpu}}}
)"));
  ASSERT_FALSE(basic_in_v1.ok());
  EXPECT_THAT(std::string(basic_in_v1.status().message()),
              HasSubstr("spec.devices[0].basic: not part of resource.k8s.io/v1"));
}

TEST(DecodeResourceSliceTest, UnsupportedVersionAndKind) {
  auto alpha = DecodeResourceSlice(
      Object("apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\nmetadata: {name: a}\n"));
  ASSERT_FALSE(alpha.ok());
  EXPECT_THAT(std::string(alpha.status().message()),
              HasSubstr("ResourceSlice \"a\": apiVersion: unsupported apiVersion "
                        "\"resource.k8s.io/v1alpha3\""));
  auto kind = DecodeResourceSlice(
      Object("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\nspec: {}\n"));
  ASSERT_FALSE(kind.ok());
  EXPECT_THAT(std::string(kind.status().message()), HasSubstr("kind: expected ResourceSlice"));
  EXPECT_FALSE(DecodeResourceSlice(json::array()).ok());
}

TEST(IsResourceSliceTest, MatchesKindAndGroup) {
  EXPECT_TRUE(
      IsResourceSlice(json{{"apiVersion", "resource.k8s.io/v1beta2"}, {"kind", "ResourceSlice"}}));
  EXPECT_FALSE(IsResourceSlice(json{{"apiVersion", "example.com/v1"}, {"kind", "ResourceSlice"}}));
  EXPECT_FALSE(
      IsResourceSlice(json{{"apiVersion", "resource.k8s.io/v1"}, {"kind", "DeviceClass"}}));
  EXPECT_FALSE(IsResourceSlice(json("ResourceSlice")));
}

}  // namespace
}  // namespace resource_slice_test
}  // namespace gpuprofile::dra
