// File: test/api/gpu_profile_codec_test.cc
// Strict GpuProfile decoding (one test row per kind of bad input, each naming its field path),
// defaulting, lenient status decoding, encoding order and round trips.
#include "controller/api/gpu_profile_codec.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::api {
namespace gpu_profile_codec_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using json = nlohmann::json;

// A valid profile using every spec field; each bad-input row breaks one thing.
json FullProfile() {
  return json::parse(R"({
    "apiVersion": "gpuprofile.io/v1alpha1",
    "kind": "GpuProfile",
    "metadata": {"name": "large-memory", "labels": {"team": "ml"}},
    "spec": {
      "description": "Fine-tuning: any data-centre GPU with at least 40 GiB",
      "driver": "gpu.nvidia.com",
      "deviceType": "gpu",
      "selector": {
        "memory": {"min": "40Gi"},
        "productNames": ["NVIDIA A100-SXM4-40GB", "NVIDIA L40S"],
        "architectures": ["Ampere", "Ada Lovelace", "Hopper"],
        "computeCapability": {"min": "8.0"},
        "driverVersion": {"min": "550.0", "max": "580.95.05"},
        "cudaDriverVersion": {"min": "12.4"},
        "attributes": [
          {"name": "resource.kubernetes.io/pcieRoot", "operator": "Exists"},
          {"name": "brand", "operator": "In", "values": ["Nvidia", "Tesla"]},
          {"name": "cudaDriverVersion", "operator": "Ge", "valueType": "Version", "values": ["12.4"]}
        ],
        "capacity": [{"name": "multiprocessors", "min": "14"}],
        "cel": ["device.attributes['gpu.nvidia.com'].index >= 0"]
      },
      "count": 2,
      "allocationMode": "ExactCount",
      "config": [{"driver": "gpu.nvidia.com",
                  "parameters": {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
                                 "sharing": {"strategy": "TimeSlicing"}}}],
      "sharing": {"strategy": "TimeSlicing", "timeSlicing": {"interval": "Long"}},
      "capacityRequests": {"memory": "10Gi", "gpu.example.com/shares": 2},
      "fallback": ["a100-40gb", "any-gpu"],
      "extendedResourceName": "example.com/large-memory",
      "tolerations": [
        {"key": "gpu.nvidia.com/xid", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 300},
        {"key": "maintenance", "value": "planned", "effect": "NoSchedule"}
      ],
      "quota": {"devicesPerNamespace": 8},
      "deviceClassName": "large-memory-class",
      "claimTemplate": {
        "name": "large-memory-claim",
        "requestName": "gpus",
        "namespaces": ["ml-train", "ml-eval"],
        "namespaceSelector": {"matchLabels": {"gpu-profiles": "enabled"}}
      },
      "deletionPolicy": "Orphan"
    }
  })");
}

// A MIG profile: migProfiles needs deviceType mig.
json MigProfile() {
  return json::parse(R"({"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
      "metadata": {"name": "small-mig"},
      "spec": {"deviceType": "mig",
               "selector": {"migProfiles": ["1g.10gb", "3g.40gb"]},
               "sharing": {"strategy": "MPS",
                           "mps": {"defaultActiveThreadPercentage": 50,
                                   "defaultPinnedDeviceMemoryLimit": "5Gi"}}}})");
}

// The smallest valid profile.
json MinimalProfile() {
  return json::parse(R"({"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
                         "metadata": {"name": "any-gpu"}, "spec": {}})");
}

std::string ErrorOf(const json& object) {
  absl::StatusOr<GpuProfile> profile = DecodeGpuProfile(object);
  if (profile.ok()) return "<decoded OK>";
  EXPECT_EQ(profile.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(profile.status().message());
}

json::json_pointer P(const std::string& pointer) { return json::json_pointer(pointer); }

struct BadCase {
  std::string name;
  std::function<void(json&)> mutate;
  std::string expected;  // a substring of the message: the field path, a colon, the reason
};

void Set(json& j, const std::string& pointer, json value) { j[P(pointer)] = std::move(value); }

std::vector<BadCase> BadCases() {
  auto set = [](std::string pointer, json value) {
    return [pointer, value](json& j) { Set(j, pointer, value); };
  };
  auto erase = [](std::string parent, std::string key) {
    return [parent, key](json& j) { j[P(parent)].erase(key); };
  };
  const std::string long_string(65, 's');
  return {
      // apiVersion, kind, metadata
      {"wrong apiVersion", set("/apiVersion", "gpuprofile.io/v1"),
       "apiVersion: unsupported value \"gpuprofile.io/v1\": supported values: "
       "\"gpuprofile.io/v1alpha1\""},
      {"wrong kind", set("/kind", "GpuProfiles"), "kind: unsupported value \"GpuProfiles\""},
      {"missing kind", erase("", "kind"), "kind: required"},
      {"missing metadata", erase("", "metadata"), "metadata: required"},
      {"missing name", erase("/metadata", "name"), "metadata.name: required"},
      {"empty name", set("/metadata/name", ""), "metadata.name: required"},
      {"name not a DNS label", set("/metadata/name", "Large_Memory"),
       "metadata.name: invalid value \"Large_Memory\": a lowercase RFC 1123 label"},
      {"name too long", set("/metadata/name", std::string(64, 'n')),
       "metadata.name: invalid value \"" + std::string(64, 'n') +
           "\": must be no more than 63 characters"},
      {"name with dots", set("/metadata/name", "large.memory"),
       "metadata.name: invalid value \"large.memory\": must not contain dots"},
      {"label of wrong type", set("/metadata/labels/team", 1),
       "metadata.labels[team]: must be a string, got integer"},
      {"spec not an object", set("/spec", json::array()), "spec: must be an object, got array"},
      // unknown fields, at every depth of the spec
      {"unknown spec field", set("/spec/devicetype", "gpu"), "spec.devicetype: unknown field"},
      {"unknown selector field", set("/spec/selector/memoryMin", "1Gi"),
       "spec.selector.memoryMin: unknown field"},
      {"unknown memory field", set("/spec/selector/memory/minimum", "1Gi"),
       "spec.selector.memory.minimum: unknown field"},
      {"unknown version range field", set("/spec/selector/driverVersion/atLeast", "1"),
       "spec.selector.driverVersion.atLeast: unknown field"},
      {"unknown attribute field", set("/spec/selector/attributes/1/value", "x"),
       "spec.selector.attributes[1].value: unknown field"},
      {"unknown capacity field", set("/spec/selector/capacity/0/value", "1"),
       "spec.selector.capacity[0].value: unknown field"},
      {"unknown config field", set("/spec/config/0/opaque", json::object()),
       "spec.config[0].opaque: unknown field"},
      {"unknown claimTemplate field", set("/spec/claimTemplate/namespace", "x"),
       "spec.claimTemplate.namespace: unknown field"},
      {"unknown namespaceSelector field",
       set("/spec/claimTemplate/namespaceSelector/matchLabel", json::object()),
       "spec.claimTemplate.namespaceSelector.matchLabel: unknown field"},
      // wrong types
      {"count as string", set("/spec/count", "2"), "spec.count: must be an integer, got string"},
      {"count as float", set("/spec/count", 1.5), "spec.count: must be an integer, got number"},
      {"description as number", set("/spec/description", 5),
       "spec.description: must be a string, got integer"},
      {"selector as list", set("/spec/selector", json::array()),
       "spec.selector: must be an object, got array"},
      {"productNames as string", set("/spec/selector/productNames", "NVIDIA L40S"),
       "spec.selector.productNames: must be a list, got string"},
      {"productName entry as number", set("/spec/selector/productNames/1", 40),
       "spec.selector.productNames[1]: must be a string, got integer"},
      {"architecture entry empty", set("/spec/selector/architectures/0", ""),
       "spec.selector.architectures[0]: must not be empty"},
      {"productName too long", set("/spec/selector/productNames/0", long_string),
       "spec.selector.productNames[0]: invalid value \"" + long_string +
           "\": must be no more than 64 characters"},
      {"attributes as object", set("/spec/selector/attributes", json::object()),
       "spec.selector.attributes: must be a list, got object"},
      {"attribute entry as string", set("/spec/selector/attributes/0", "brand"),
       "spec.selector.attributes[0]: must be an object, got string"},
      {"namespaces as string", set("/spec/claimTemplate/namespaces", "ml-train"),
       "spec.claimTemplate.namespaces: must be a list, got string"},
      {"memory as string", set("/spec/selector/memory", "40Gi"),
       "spec.selector.memory: must be an object, got string"},
      {"quantity as bool", set("/spec/selector/memory/min", true),
       "spec.selector.memory.min: must be a quantity"},
      // quantities and versions
      {"bad quantity", set("/spec/selector/memory/min", "40GB"),
       "spec.selector.memory.min: invalid value \"40GB\": "},
      {"bad capacity quantity", set("/spec/selector/capacity/0/min", "many"),
       "spec.selector.capacity[0].min: invalid value \"many\""},
      {"bad version", set("/spec/selector/driverVersion/min", "five-fifty"),
       "spec.selector.driverVersion.min: \"five-fifty\" is not a version"},
      {"unquoted float version", set("/spec/selector/computeCapability/min", 8.0),
       "spec.selector.computeCapability.min: must be a string, got number 8.0 (quote versions"},
      {"version as bool", set("/spec/selector/cudaDriverVersion/max", false),
       "spec.selector.cudaDriverVersion.max: must be a string (a version), got boolean"},
      // ranges
      {"memory min > max", set("/spec/selector/memory", {{"min", "80Gi"}, {"max", "40Gi"}}),
       "spec.selector.memory.min: invalid value \"80Gi\": must be less than or equal to max "
       "(40Gi)"},
      {"memory min > max across suffixes",
       set("/spec/selector/memory", {{"min", "50G"}, {"max", "40Gi"}}),
       "spec.selector.memory.min: invalid value \"50G\""},
      {"version min > max (after normalising)",
       set("/spec/selector/computeCapability", {{"min", "9.0"}, {"max", "8.9"}}),
       "spec.selector.computeCapability.min: invalid value \"9.0.0\": must be less than or "
       "equal to max (8.9.0)"},
      {"capacity min > max",
       set("/spec/selector/capacity/0", {{"name", "multiprocessors"}, {"min", "14"}, {"max", "7"}}),
       "spec.selector.capacity[0].min: invalid value \"14\": must be less than or equal to max "
       "(7)"},
      {"empty memory range", set("/spec/selector/memory", json::object()),
       "spec.selector.memory: must set min, max or both"},
      {"empty version range", set("/spec/selector/driverVersion", json::object()),
       "spec.selector.driverVersion: must set min, max or both"},
      {"capacity without bounds", set("/spec/selector/capacity/0", {{"name", "multiprocessors"}}),
       "spec.selector.capacity[0]: must set min, max or both"},
      {"capacity without name", set("/spec/selector/capacity/0", {{"min", "1"}}),
       "spec.selector.capacity[0].name: required"},
      {"capacity name not qualified", set("/spec/selector/capacity/0/name", "multi-processors"),
       "spec.selector.capacity[0].name: invalid value \"multi-processors\": a valid C identifier"},
      // count and allocation mode
      {"count zero", set("/spec/count", 0),
       "spec.count: invalid value \"0\": must be greater than or equal to 1"},
      {"count negative", set("/spec/count", -3), "spec.count: invalid value \"-3\""},
      {"count with All", set("/spec/allocationMode", "All"),
       "spec.count: must not be set when allocationMode is All"},
      // enums
      {"bad allocationMode", set("/spec/allocationMode", "exactCount"),
       "spec.allocationMode: unsupported value \"exactCount\": supported values: \"ExactCount\", "
       "\"All\""},
      {"bad deletionPolicy", set("/spec/deletionPolicy", "Retain"),
       "spec.deletionPolicy: unsupported value \"Retain\": supported values: \"Delete\", "
       "\"Orphan\""},
      {"bad attribute operator", set("/spec/selector/attributes/1/operator", "Equals"),
       "spec.selector.attributes[1].operator: unsupported value \"Equals\": supported values: "
       "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Ge\", \"Lt\", \"Le\""},
      {"missing attribute operator", erase("/spec/selector/attributes/1", "operator"),
       "spec.selector.attributes[1].operator: required"},
      {"bad valueType", set("/spec/selector/attributes/1/valueType", "Float"),
       "spec.selector.attributes[1].valueType: unsupported value \"Float\": supported values: "
       "\"String\", \"Int\", \"Bool\", \"Version\""},
      // attribute values per operator
      {"Exists with values", set("/spec/selector/attributes/0/values", {"x"}),
       "spec.selector.attributes[0].values: must be empty when operator is Exists"},
      {"DoesNotExist with values",
       set("/spec/selector/attributes/0",
           {{"name", "x"}, {"operator", "DoesNotExist"}, {"values", {"y"}}}),
       "spec.selector.attributes[0].values: must be empty when operator is DoesNotExist"},
      {"In without values", erase("/spec/selector/attributes/1", "values"),
       "spec.selector.attributes[1].values: must have at least one value when operator is In"},
      {"NotIn with empty values",
       set("/spec/selector/attributes/1",
           {{"name", "brand"}, {"operator", "NotIn"}, {"values", json::array()}}),
       "spec.selector.attributes[1].values: must have at least one value when operator is NotIn"},
      {"Ge with two values", set("/spec/selector/attributes/2/values", {"12.4", "12.5"}),
       "spec.selector.attributes[2].values: must have exactly one value when operator is Ge, got "
       "2"},
      {"Lt without values",
       set("/spec/selector/attributes/2",
           {{"name", "index"}, {"operator", "Lt"}, {"valueType", "Int"}}),
       "spec.selector.attributes[2].values: must have exactly one value when operator is Lt, got "
       "0"},
      {"Gt on a String",
       set("/spec/selector/attributes/1",
           {{"name", "brand"}, {"operator", "Gt"}, {"values", {"A"}}}),
       "spec.selector.attributes[1].operator: invalid value \"Gt\": Gt, Ge, Lt and Le need "
       "valueType Int or Version, not String"},
      {"Le on a Bool",
       set("/spec/selector/attributes/1",
           {{"name", "mig"}, {"operator", "Le"}, {"valueType", "Bool"}, {"values", {true}}}),
       "spec.selector.attributes[1].operator: invalid value \"Le\""},
      // attribute values per type
      {"String value as number", set("/spec/selector/attributes/1/values/1", 7),
       "spec.selector.attributes[1].values[1]: must be a string, got integer"},
      {"String value too long", set("/spec/selector/attributes/1/values/0", long_string),
       "spec.selector.attributes[1].values[0]: invalid value \"" + long_string +
           "\": must be no more than 64 characters"},
      {"Int value not a number",
       set("/spec/selector/attributes/1",
           {{"name", "index"}, {"operator", "In"}, {"valueType", "Int"}, {"values", {"1", "one"}}}),
       "spec.selector.attributes[1].values[1]: invalid value \"one\": must be a 64-bit integer"},
      {"Int value as float",
       set("/spec/selector/attributes/1",
           {{"name", "index"}, {"operator", "In"}, {"valueType", "Int"}, {"values", {2.5}}}),
       "spec.selector.attributes[1].values[0]: must be an integer (or a string holding one), got "
       "number"},
      {"Int value out of range",
       set("/spec/selector/attributes/1", {{"name", "index"},
                                           {"operator", "In"},
                                           {"valueType", "Int"},
                                           {"values", {"99999999999999999999"}}}),
       "spec.selector.attributes[1].values[0]: invalid value \"99999999999999999999\""},
      {"Bool value not a bool",
       set("/spec/selector/attributes/1",
           {{"name", "mig"}, {"operator", "In"}, {"valueType", "Bool"}, {"values", {"yes"}}}),
       "spec.selector.attributes[1].values[0]: invalid value \"yes\": must be true or false"},
      {"Version value not a version", set("/spec/selector/attributes/2/values/0", "twelve"),
       "spec.selector.attributes[2].values[0]: \"twelve\" is not a version"},
      // names
      {"attribute name with dash", set("/spec/selector/attributes/1/name", "brand-name"),
       "spec.selector.attributes[1].name: invalid value \"brand-name\": a valid C identifier"},
      {"attribute name too long", set("/spec/selector/attributes/1/name", std::string(33, 'b')),
       "spec.selector.attributes[1].name: invalid value \"" + std::string(33, 'b') +
           "\": must be no more than 32 characters"},
      {"attribute domain too long",
       set("/spec/selector/attributes/1/name", std::string(60, 'd') + ".com/brand"),
       "spec.selector.attributes[1].name: invalid value \"" + std::string(60, 'd') +
           ".com/brand\": domain part must be no more than 63 characters"},
      {"attribute name with two slashes", set("/spec/selector/attributes/1/name", "a.com/b/c"),
       "spec.selector.attributes[1].name: invalid value \"a.com/b/c\": must be either a C "
       "identifier or a domain/C identifier"},
      {"missing attribute name", erase("/spec/selector/attributes/1", "name"),
       "spec.selector.attributes[1].name: required"},
      {"bad driver", set("/spec/driver", "gpu_nvidia"),
       "spec.driver: invalid value \"gpu_nvidia\": a lowercase RFC 1123 subdomain"},
      {"driver too long", set("/spec/driver", std::string(60, 'd') + ".com"),
       "spec.driver: invalid value \"" + std::string(60, 'd') +
           ".com\": must be no more than 63 characters"},
      {"deviceType too long", set("/spec/deviceType", long_string),
       "spec.deviceType: invalid value \"" + long_string + "\""},
      {"bad deviceClassName", set("/spec/deviceClassName", "Large_Memory"),
       "spec.deviceClassName: invalid value \"Large_Memory\": a lowercase RFC 1123 subdomain"},
      {"bad claimTemplate name", set("/spec/claimTemplate/name", "claim/x"),
       "spec.claimTemplate.name: invalid value \"claim/x\": a lowercase RFC 1123 subdomain"},
      {"bad requestName", set("/spec/claimTemplate/requestName", "gpu.0"),
       "spec.claimTemplate.requestName: invalid value \"gpu.0\": must not contain dots"},
      {"bad namespace", set("/spec/claimTemplate/namespaces/1", "ML-Eval"),
       "spec.claimTemplate.namespaces[1]: invalid value \"ML-Eval\": a lowercase RFC 1123 label"},
      {"duplicate namespace", set("/spec/claimTemplate/namespaces/1", "ml-train"),
       "spec.claimTemplate.namespaces[1]: duplicate value \"ml-train\""},
      {"bad namespaceSelector operator",
       set("/spec/claimTemplate/namespaceSelector/matchExpressions",
           {{{"key", "team"}, {"operator", "Has"}}}),
       "spec.claimTemplate.namespaceSelector.matchExpressions[0].operator: unsupported value "
       "\"Has\""},
      {"namespaceSelector In without values",
       set("/spec/claimTemplate/namespaceSelector/matchExpressions",
           {{{"key", "team"}, {"operator", "In"}}}),
       "spec.claimTemplate.namespaceSelector.matchExpressions[0].values: must be specified"},
      {"bad namespaceSelector label value",
       set("/spec/claimTemplate/namespaceSelector/matchLabels/gpu-profiles", "on!"),
       "spec.claimTemplate.namespaceSelector.matchLabels[gpu-profiles]: invalid value \"on!\""},
      // cel and config
      {"empty cel", set("/spec/selector/cel/0", ""), "spec.selector.cel[0]: must not be empty"},
      {"blank cel", set("/spec/selector/cel/0", "  \n"), "spec.selector.cel[0]: must not be empty"},
      {"cel as object", set("/spec/selector/cel/0", json::object()),
       "spec.selector.cel[0]: must be a string, got object"},
      {"config without driver", erase("/spec/config/0", "driver"),
       "spec.config[0].driver: required"},
      {"config with bad driver", set("/spec/config/0/driver", "Not A Driver"),
       "spec.config[0].driver: invalid value \"Not A Driver\""},
      {"config without parameters", erase("/spec/config/0", "parameters"),
       "spec.config[0].parameters: required"},
      {"config parameters not an object", set("/spec/config/0/parameters", "{}"),
       "spec.config[0].parameters: must be an object, got string"},
      {"too many config entries",
       [](json& j) {
         json entry = j[P("/spec/config/0")];
         for (int i = 0; i < 32; ++i) j[P("/spec/config")].push_back(entry);
       },
       "spec.config: must have at most 32 entries, got 33"},
      // selector.migProfiles
      {"migProfiles with deviceType gpu", set("/spec/selector/migProfiles", {"1g.10gb"}),
       "spec.selector.migProfiles: must be empty unless deviceType is \"mig\" (deviceType is "
       "\"gpu\")"},
      {"migProfiles without deviceType",
       [](json& j) {
         j[P("/spec")].erase("deviceType");
         Set(j, "/spec/selector/migProfiles", {"1g.10gb"});
       },
       "spec.selector.migProfiles: must be empty unless deviceType is \"mig\" (deviceType is not "
       "set: the default \"gpu\")"},
      {"duplicate migProfile",
       [](json& j) {
         Set(j, "/spec/deviceType", "mig");
         Set(j, "/spec/selector/migProfiles", {"1g.10gb", "2g.20gb", "1g.10gb"});
       },
       "spec.selector.migProfiles[2]: duplicate value \"1g.10gb\""},
      {"empty migProfile",
       [](json& j) {
         Set(j, "/spec/deviceType", "mig");
         Set(j, "/spec/selector/migProfiles", {""});
       },
       "spec.selector.migProfiles[0]: must not be empty"},
      {"migProfile too long",
       [long_string](json& j) {
         Set(j, "/spec/deviceType", "mig");
         Set(j, "/spec/selector/migProfiles", {long_string});
       },
       "spec.selector.migProfiles[0]: invalid value \"" + long_string +
           "\": must be no more than 64 characters"},
      {"migProfiles as string", set("/spec/selector/migProfiles", "1g.10gb"),
       "spec.selector.migProfiles: must be a list, got string"},
      // sharing
      {"sharing as string", set("/spec/sharing", "MPS"),
       "spec.sharing: must be an object, got string"},
      {"unknown sharing field", set("/spec/sharing/timeslicing", json::object()),
       "spec.sharing.timeslicing: unknown field"},
      {"bad sharing strategy", set("/spec/sharing/strategy", "Mps"),
       "spec.sharing.strategy: unsupported value \"Mps\": supported values: \"Exclusive\", "
       "\"TimeSlicing\", \"MPS\""},
      {"sharing strategy as number", set("/spec/sharing/strategy", 1),
       "spec.sharing.strategy: must be a string, got integer"},
      {"timeSlicing with MPS", set("/spec/sharing/strategy", "MPS"),
       "spec.sharing.timeSlicing: must not be set unless strategy is TimeSlicing (strategy is "
       "MPS)"},
      {"timeSlicing with the default strategy", erase("/spec/sharing", "strategy"),
       "spec.sharing.timeSlicing: must not be set unless strategy is TimeSlicing (strategy is "
       "Exclusive)"},
      {"mps with TimeSlicing", set("/spec/sharing/mps", {{"defaultActiveThreadPercentage", 10}}),
       "spec.sharing.mps: must not be set unless strategy is MPS (strategy is TimeSlicing)"},
      {"mps with Exclusive",
       set("/spec/sharing", {{"strategy", "Exclusive"}, {"mps", json::object()}}),
       "spec.sharing.mps: must not be set unless strategy is MPS (strategy is Exclusive)"},
      {"bad time-slice interval", set("/spec/sharing/timeSlicing/interval", "Longest"),
       "spec.sharing.timeSlicing.interval: unsupported value \"Longest\": supported values: "
       "\"Default\", \"Short\", \"Medium\", \"Long\""},
      {"empty time-slice interval", set("/spec/sharing/timeSlicing/interval", ""),
       "spec.sharing.timeSlicing.interval: unsupported value \"\""},
      {"unknown timeSlicing field", set("/spec/sharing/timeSlicing/seconds", 5),
       "spec.sharing.timeSlicing.seconds: unknown field"},
      {"timeSlicing as list", set("/spec/sharing/timeSlicing", json::array()),
       "spec.sharing.timeSlicing: must be an object, got array"},
      {"MPS thread percentage over 100",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultActiveThreadPercentage", 101}}}}),
       "spec.sharing.mps.defaultActiveThreadPercentage: invalid value \"101\": must be between 0 "
       "and 100, inclusive"},
      {"MPS thread percentage negative",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultActiveThreadPercentage", -1}}}}),
       "spec.sharing.mps.defaultActiveThreadPercentage: invalid value \"-1\""},
      {"MPS thread percentage as float",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultActiveThreadPercentage", 50.5}}}}),
       "spec.sharing.mps.defaultActiveThreadPercentage: must be an integer, got number"},
      {"MPS memory limit zero",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultPinnedDeviceMemoryLimit", "0Gi"}}}}),
       "spec.sharing.mps.defaultPinnedDeviceMemoryLimit: invalid value \"0\": must be greater "
       "than zero"},
      {"MPS memory limit negative",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultPinnedDeviceMemoryLimit", "-1Gi"}}}}),
       "spec.sharing.mps.defaultPinnedDeviceMemoryLimit: invalid value \"-1Gi\": must be greater "
       "than zero"},
      {"MPS memory limit not a quantity",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultPinnedDeviceMemoryLimit", "5GB"}}}}),
       "spec.sharing.mps.defaultPinnedDeviceMemoryLimit: invalid value \"5GB\""},
      {"unknown mps field",
       set("/spec/sharing",
           {{"strategy", "MPS"}, {"mps", {{"defaultPerDevicePinnedMemoryLimit", "1Gi"}}}}),
       "spec.sharing.mps.defaultPerDevicePinnedMemoryLimit: unknown field"},
      // capacityRequests
      {"capacityRequests as list", set("/spec/capacityRequests", json::array()),
       "spec.capacityRequests: must be an object, got array"},
      {"capacity request name not qualified", set("/spec/capacityRequests/multi-processors", 1),
       "spec.capacityRequests[multi-processors]: invalid value \"multi-processors\": a valid C "
       "identifier"},
      {"capacity request zero", set("/spec/capacityRequests/memory", "0"),
       "spec.capacityRequests[memory]: invalid value \"0\": must be greater than zero"},
      {"capacity request negative", set("/spec/capacityRequests/memory", "-10Gi"),
       "spec.capacityRequests[memory]: invalid value \"-10Gi\": must be greater than zero"},
      {"capacity request not a quantity", set("/spec/capacityRequests/memory", "ten"),
       "spec.capacityRequests[memory]: invalid value \"ten\""},
      {"capacity request null", set("/spec/capacityRequests/memory", nullptr),
       "spec.capacityRequests[memory]: must be a quantity"},
      {"capacity request as bool", set("/spec/capacityRequests/memory", true),
       "spec.capacityRequests[memory]: must be a quantity"},
      {"capacity request in the driver's domain and unqualified",
       set("/spec/capacityRequests/gpu.nvidia.com~1memory", "20Gi"),
       "spec.capacityRequests[gpu.nvidia.com/memory]: duplicate of \"memory\" (unqualified names "
       "live in the driver's domain, gpu.nvidia.com)"},
      {"too many capacity requests",
       [](json& j) {
         for (int i = 0; i < 31; ++i) Set(j, "/spec/capacityRequests/c" + std::to_string(i), 1);
       },
       "spec.capacityRequests: must have at most 32 entries, got 33"},
      // fallback
      {"fallback as string", set("/spec/fallback", "any-gpu"),
       "spec.fallback: must be a list, got string"},
      {"fallback entry as number", set("/spec/fallback/1", 1),
       "spec.fallback[1]: must be a string, got integer"},
      {"fallback not a DNS label", set("/spec/fallback/1", "A100"),
       "spec.fallback[1]: invalid value \"A100\": a lowercase RFC 1123 label"},
      {"fallback to itself", set("/spec/fallback/1", "large-memory"),
       "spec.fallback[1]: invalid value \"large-memory\": must not name the profile itself"},
      {"duplicate fallback", set("/spec/fallback/1", "a100-40gb"),
       "spec.fallback[1]: duplicate value \"a100-40gb\""},
      {"too many fallbacks",
       set("/spec/fallback", {"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}),
       "spec.fallback: must have at most 7 entries (a firstAvailable list holds at most 8 "
       "subrequests, this profile's class first), got 8"},
      // extendedResourceName
      {"extendedResourceName without a domain", set("/spec/extendedResourceName", "large-memory"),
       "spec.extendedResourceName: invalid value \"large-memory\": must be a valid extended "
       "resource name: must have a domain prefix"},
      {"extendedResourceName in kubernetes.io",
       set("/spec/extendedResourceName", "kubernetes.io/gpu"),
       "spec.extendedResourceName: invalid value \"kubernetes.io/gpu\": must be a valid extended "
       "resource name: must not be in the kubernetes.io domain"},
      {"extendedResourceName in a kubernetes.io subdomain",
       set("/spec/extendedResourceName", "deviceclass.resource.kubernetes.io/large-memory"),
       "must not be in the kubernetes.io domain"},
      {"extendedResourceName with the quota prefix",
       set("/spec/extendedResourceName", "requests.example.com/gpu"),
       "spec.extendedResourceName: invalid value \"requests.example.com/gpu\": must be a valid "
       "extended resource name: must not start with \"requests.\""},
      {"extendedResourceName with a bad name part",
       set("/spec/extendedResourceName", "example.com/-gpu"),
       "spec.extendedResourceName: invalid value \"example.com/-gpu\": must be a valid extended "
       "resource name: its quota key \"requests.<name>\" must be a qualified name: name part must "
       "consist of alphanumeric characters"},
      {"extendedResourceName with a bad domain",
       set("/spec/extendedResourceName", "Example.com/gpu"),
       "its quota key \"requests.<name>\" must be a qualified name: prefix part a lowercase RFC "
       "1123 subdomain"},
      {"extendedResourceName with two slashes", set("/spec/extendedResourceName", "a.com/b/c"),
       "spec.extendedResourceName: invalid value \"a.com/b/c\": must be a valid extended resource "
       "name: its quota key \"requests.<name>\" must be a qualified name: a qualified name"},
      {"empty extendedResourceName", set("/spec/extendedResourceName", ""),
       "spec.extendedResourceName: must not be empty (leave it out for no extended resource "
       "name)"},
      {"extendedResourceName as list", set("/spec/extendedResourceName", {"example.com/gpu"}),
       "spec.extendedResourceName: must be a string, got array"},
      // tolerations
      {"tolerations as object", set("/spec/tolerations", json::object()),
       "spec.tolerations: must be a list, got object"},
      {"toleration as string", set("/spec/tolerations/0", "gpu.nvidia.com/xid"),
       "spec.tolerations[0]: must be an object, got string"},
      {"unknown toleration field", set("/spec/tolerations/1/timeAdded", "2026-01-01T00:00:00Z"),
       "spec.tolerations[1].timeAdded: unknown field"},
      {"toleration key not a label name", set("/spec/tolerations/1/key", "bad key"),
       "spec.tolerations[1].key: invalid value \"bad key\": name part must consist of "
       "alphanumeric characters"},
      {"bad toleration operator", set("/spec/tolerations/1/operator", "In"),
       "spec.tolerations[1].operator: unsupported value \"In\": supported values: \"Equal\", "
       "\"Exists\""},
      {"Exists with a value", set("/spec/tolerations/0/value", "48"),
       "spec.tolerations[0].value: invalid value \"48\": must be empty when operator is Exists"},
      {"Equal without a key", erase("/spec/tolerations/1", "key"),
       "spec.tolerations[1].operator: invalid value \"Equal\": must be Exists when key is empty"},
      {"Equal with a value that is no label value", set("/spec/tolerations/1/value", "not planned"),
       "spec.tolerations[1].value: invalid value \"not planned\": a valid label must be an empty "
       "string or consist of alphanumeric characters"},
      {"bad toleration effect", set("/spec/tolerations/1/effect", "PreferNoSchedule"),
       "spec.tolerations[1].effect: unsupported value \"PreferNoSchedule\": supported values: "
       "\"NoSchedule\", \"NoExecute\""},
      {"tolerationSeconds with NoSchedule", set("/spec/tolerations/1/tolerationSeconds", 60),
       "spec.tolerations[1].tolerationSeconds: must not be set unless effect is NoExecute (effect "
       "is \"NoSchedule\")"},
      {"tolerationSeconds without an effect", erase("/spec/tolerations/0", "effect"),
       "spec.tolerations[0].tolerationSeconds: must not be set unless effect is NoExecute (effect "
       "is empty)"},
      {"negative tolerationSeconds", set("/spec/tolerations/0/tolerationSeconds", -5),
       "spec.tolerations[0].tolerationSeconds: invalid value \"-5\": must be greater than or "
       "equal to 0"},
      {"tolerationSeconds as string", set("/spec/tolerations/0/tolerationSeconds", "300"),
       "spec.tolerations[0].tolerationSeconds: must be an integer, got string"},
      {"too many tolerations",
       [](json& j) {
         json entry = j[P("/spec/tolerations/1")];
         for (int i = 0; i < 15; ++i) j[P("/spec/tolerations")].push_back(entry);
       },
       "spec.tolerations: must have at most 16 entries, got 17"},
      // quota
      {"quota as number", set("/spec/quota", 8), "spec.quota: must be an object, got integer"},
      {"quota without devicesPerNamespace", set("/spec/quota", json::object()),
       "spec.quota.devicesPerNamespace: required"},
      {"negative devicesPerNamespace", set("/spec/quota/devicesPerNamespace", -1),
       "spec.quota.devicesPerNamespace: invalid value \"-1\": must be greater than or equal to 0"},
      {"devicesPerNamespace as string", set("/spec/quota/devicesPerNamespace", "8"),
       "spec.quota.devicesPerNamespace: must be an integer, got string"},
      {"unknown quota field", set("/spec/quota/claimsPerNamespace", 2),
       "spec.quota.claimsPerNamespace: unknown field"},
  };
}

TEST(GpuProfileCodecTest, FullProfileDecodes) {
  ASSERT_OK(DecodeGpuProfile(FullProfile()));
  ASSERT_OK(DecodeGpuProfile(MinimalProfile()));
}

TEST(GpuProfileCodecTest, EachBadInputIsReportedAtItsFieldPath) {
  for (const BadCase& c : BadCases()) {
    json object = FullProfile();
    c.mutate(object);
    const std::string message = ErrorOf(object);
    EXPECT_THAT(message, HasSubstr(c.expected)) << c.name;
    // One thing broken, one problem reported.
    EXPECT_THAT(message, Not(HasSubstr("\n"))) << c.name;
  }
}

TEST(GpuProfileCodecTest, ReportsEveryProblemOnePerLine) {
  json object = FullProfile();
  Set(object, "/spec/count", 0);
  Set(object, "/spec/selector/memory/min", "lots");
  Set(object, "/spec/selector/attributes/1/operator", "Equals");
  Set(object, "/spec/claimTemplate/extra", 1);
  Set(object, "/metadata/name", "Bad_Name");
  const std::vector<std::string> lines = absl::StrSplit(ErrorOf(object), '\n');
  EXPECT_THAT(lines, SizeIs(5));
  for (const std::string& line : lines) {
    EXPECT_THAT(line, ::testing::MatchesRegex("^(metadata|spec)[^ ]*: .*")) << line;
  }
}

TEST(GpuProfileCodecTest, ValuesOfTheWrongTypeAreReportedOnce) {
  json object = FullProfile();
  Set(object, "/spec/selector/attributes/1/values", "Nvidia");
  EXPECT_EQ(ErrorOf(object), "spec.selector.attributes[1].values: must be a list, got string");
}

TEST(GpuProfileCodecTest, NotAnObject) {
  EXPECT_THAT(ErrorOf(json::array()), HasSubstr("(root): must be an object, got array"));
}

TEST(GpuProfileCodecTest, ConfigParametersAreOpaque) {
  json object = FullProfile();
  Set(object, "/spec/config/0/parameters", json::parse(R"({"anything": {"goes": [1, null, {}]}})"));
  ASSERT_OK_AND_ASSIGN(GpuProfile profile, DecodeGpuProfile(object));
  ASSERT_THAT(profile.spec.config, SizeIs(1));
  EXPECT_EQ(profile.spec.config[0].driver, "gpu.nvidia.com");
  EXPECT_EQ(profile.spec.config[0].parameters["anything"]["goes"][0], 1);
}

TEST(GpuProfileCodecTest, NullMembersCountAsAbsent) {
  json object = MinimalProfile();
  Set(object, "/spec/selector", nullptr);
  Set(object, "/spec/count", nullptr);
  Set(object, "/spec/description", nullptr);
  ASSERT_OK_AND_ASSIGN(GpuProfile profile, DecodeGpuProfile(object));
  EXPECT_FALSE(profile.spec.count.has_value());
}

TEST(GpuProfileCodecTest, DecodesEveryField) {
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(FullProfile()));
  EXPECT_EQ(p.metadata.name, "large-memory");
  EXPECT_EQ(p.metadata.labels.at("team"), "ml");
  const GpuProfileSpec& s = p.spec;
  EXPECT_EQ(s.description, "Fine-tuning: any data-centre GPU with at least 40 GiB");
  EXPECT_EQ(s.driver, "gpu.nvidia.com");
  EXPECT_EQ(s.device_type, "gpu");
  ASSERT_TRUE(s.selector.memory.has_value());
  EXPECT_EQ(s.selector.memory->min->ToString(), "40Gi");
  EXPECT_FALSE(s.selector.memory->max.has_value());
  EXPECT_THAT(s.selector.product_names, ElementsAre("NVIDIA A100-SXM4-40GB", "NVIDIA L40S"));
  EXPECT_THAT(s.selector.architectures, ElementsAre("Ampere", "Ada Lovelace", "Hopper"));
  EXPECT_EQ(s.selector.compute_capability->min->ToString(), "8.0.0");
  EXPECT_EQ(s.selector.driver_version->min->ToString(), "550.0.0");
  EXPECT_EQ(s.selector.driver_version->max->ToString(), "580.95.5");
  EXPECT_EQ(s.selector.cuda_driver_version->min->ToString(), "12.4.0");
  ASSERT_THAT(s.selector.attributes, SizeIs(3));
  EXPECT_EQ(s.selector.attributes[0].name, "resource.kubernetes.io/pcieRoot");
  EXPECT_EQ(s.selector.attributes[0].op, AttributeTerm::Operator::kExists);
  EXPECT_EQ(s.selector.attributes[0].value_type, AttributeTerm::ValueType::kString);
  EXPECT_TRUE(s.selector.attributes[0].values.empty());
  EXPECT_EQ(s.selector.attributes[1].op, AttributeTerm::Operator::kIn);
  EXPECT_THAT(s.selector.attributes[1].values, ElementsAre("Nvidia", "Tesla"));
  EXPECT_EQ(s.selector.attributes[2].op, AttributeTerm::Operator::kGe);
  EXPECT_EQ(s.selector.attributes[2].value_type, AttributeTerm::ValueType::kVersion);
  EXPECT_THAT(s.selector.attributes[2].values, ElementsAre("12.4.0"));
  ASSERT_THAT(s.selector.capacity, SizeIs(1));
  EXPECT_EQ(s.selector.capacity[0].name, "multiprocessors");
  EXPECT_EQ(s.selector.capacity[0].range.min->ToString(), "14");
  EXPECT_THAT(s.selector.cel, ElementsAre("device.attributes['gpu.nvidia.com'].index >= 0"));
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(s.EffectiveCount(), 2);
  EXPECT_EQ(s.allocation_mode, AllocationMode::kExactCount);
  EXPECT_EQ(s.device_class_name, "large-memory-class");
  EXPECT_EQ(s.claim_template.name, "large-memory-claim");
  EXPECT_EQ(s.claim_template.request_name, "gpus");
  EXPECT_THAT(s.claim_template.namespaces, ElementsAre("ml-train", "ml-eval"));
  ASSERT_TRUE(s.claim_template.namespace_selector.has_value());
  EXPECT_EQ(s.claim_template.namespace_selector->match_labels.at("gpu-profiles"), "enabled");
  EXPECT_EQ(s.deletion_policy, DeletionPolicy::kOrphan);
}

TEST(GpuProfileCodecTest, AppliesDefaults) {
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(MinimalProfile()));
  EXPECT_EQ(p.spec.driver, "gpu.nvidia.com");
  EXPECT_EQ(p.spec.device_class_name, "any-gpu");
  EXPECT_EQ(p.spec.claim_template.name, "any-gpu");
  EXPECT_EQ(p.spec.claim_template.request_name, "gpu");
  EXPECT_EQ(p.spec.allocation_mode, AllocationMode::kExactCount);
  EXPECT_EQ(p.spec.deletion_policy, DeletionPolicy::kDelete);
  // Kept as written: the engine needs to know whether they were set.
  EXPECT_FALSE(p.spec.count.has_value());
  EXPECT_FALSE(p.spec.device_type.has_value());
  EXPECT_EQ(p.spec.EffectiveCount(), 1);
  EXPECT_EQ(p.spec.EffectiveDeviceType(), "gpu");
  EXPECT_FALSE(p.spec.claim_template.namespace_selector.has_value());
  EXPECT_TRUE(p.spec.claim_template.namespaces.empty());
}

TEST(GpuProfileCodecTest, MissingSpecIsEmptySpec) {
  json object = MinimalProfile();
  object.erase("spec");
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(p.spec.driver, "gpu.nvidia.com");
}

TEST(GpuProfileCodecTest, EmptyStringsTakeTheDefault) {
  json object = MinimalProfile();
  Set(object, "/spec/driver", "");
  Set(object, "/spec/deviceType", "");
  Set(object, "/spec/deviceClassName", "");
  Set(object, "/spec/claimTemplate", {{"name", ""}, {"requestName", ""}});
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(p.spec.driver, "gpu.nvidia.com");
  EXPECT_FALSE(p.spec.device_type.has_value());
  EXPECT_EQ(p.spec.device_class_name, "any-gpu");
  EXPECT_EQ(p.spec.claim_template.name, "any-gpu");
  EXPECT_EQ(p.spec.claim_template.request_name, "gpu");
}

TEST(GpuProfileCodecTest, AllModeHasNoCount) {
  json object = MinimalProfile();
  Set(object, "/spec/allocationMode", "All");
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(p.spec.allocation_mode, AllocationMode::kAll);
  EXPECT_FALSE(p.spec.EffectiveCount().has_value());
}

TEST(GpuProfileCodecTest, EmptyNamespaceSelectorSelectsAll) {
  json object = MinimalProfile();
  Set(object, "/spec/claimTemplate/namespaceSelector", json::object());
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  ASSERT_TRUE(p.spec.claim_template.namespace_selector.has_value());
  EXPECT_TRUE(p.spec.claim_template.namespace_selector->Empty());
}

TEST(GpuProfileCodecTest, CanonicalisesAttributeValuesPerType) {
  json object = MinimalProfile();
  Set(object, "/spec/selector/attributes", json::parse(R"([
      {"name": "index", "operator": "In", "valueType": "Int", "values": [3, "+007", "-12", "0"]},
      {"name": "mig", "operator": "NotIn", "valueType": "Bool", "values": [true, "false"]},
      {"name": "driverVersion", "operator": "Lt", "valueType": "Version", "values": ["v580.95.05"]},
      {"name": "cudaDriverVersion", "operator": "Ge", "valueType": "Version", "values": [12]},
      {"name": "minor", "operator": "Gt", "valueType": "Int", "values": [-1]}
  ])"));
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  const std::vector<AttributeTerm>& a = p.spec.selector.attributes;
  ASSERT_THAT(a, SizeIs(5));
  EXPECT_THAT(a[0].values, ElementsAre("3", "7", "-12", "0"));
  EXPECT_THAT(a[1].values, ElementsAre("true", "false"));
  EXPECT_THAT(a[2].values, ElementsAre("580.95.5"));
  EXPECT_THAT(a[3].values, ElementsAre("12.0.0"));
  EXPECT_THAT(a[4].values, ElementsAre("-1"));
}

TEST(GpuProfileCodecTest, QuantitiesMayBeNumbers) {
  json object = MinimalProfile();
  Set(object, "/spec/selector/capacity",
      json::parse(R"([{"name": "multiprocessors", "min": 14, "max": 98}])"));
  Set(object, "/spec/selector/memory", json::parse(R"({"max": "81920Mi"})"));
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(p.spec.selector.capacity[0].range.min->ToString(), "14");
  EXPECT_EQ(p.spec.selector.capacity[0].range.max->ToString(), "98");
  EXPECT_EQ(p.spec.selector.memory->max->ToString(), "80Gi");
}

TEST(GpuProfileCodecTest, EqualBoundsAreAllowed) {
  json object = MinimalProfile();
  Set(object, "/spec/selector/memory", {{"min", "40Gi"}, {"max", "40960Mi"}});
  Set(object, "/spec/selector/driverVersion", {{"min", "550"}, {"max", "550.0.0"}});
  ASSERT_OK(DecodeGpuProfile(object));
}

TEST(GpuProfileCodecTest, StatusIsDecodedLeniently) {
  json object = MinimalProfile();
  object["status"] = json::parse(R"({
      "observedGeneration": 3,
      "conditions": [
        {"type": "Ready", "status": "True", "observedGeneration": 3, "reason": "Reconciled",
         "message": "ok", "lastTransitionTime": "2025-01-01T00:00:00Z"},
        {"type": "Satisfiable", "status": "maybe", "observedGeneration": "x"},
        "garbage",
        {"status": "True"}
      ],
      "deviceClassName": 7,
      "selectors": ["a", 1, "b"],
      "matchedDevices": 14,
      "matchedNodes": "five",
      "nodeGroups": [{"name": "g", "devices": 12, "nodes": 3}, 4],
      "claimTemplates": {"desired": 4, "ready": 2},
      "somethingNew": {}
  })");
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(p.status.observed_generation, 3);
  ASSERT_THAT(p.status.conditions, SizeIs(2));
  EXPECT_EQ(p.status.conditions[0].type, "Ready");
  EXPECT_EQ(p.status.conditions[0].status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(p.status.conditions[0].last_transition_time, "2025-01-01T00:00:00Z");
  EXPECT_EQ(p.status.conditions[1].status, meta::ConditionStatus::kUnknown);
  EXPECT_EQ(p.status.conditions[1].observed_generation, 0);
  EXPECT_EQ(p.status.device_class_name, "");
  EXPECT_THAT(p.status.selectors, ElementsAre("a", "b"));
  EXPECT_EQ(p.status.matched_devices, 14);
  EXPECT_EQ(p.status.matched_nodes, 0);
  ASSERT_THAT(p.status.node_groups, SizeIs(1));
  EXPECT_EQ(p.status.node_groups[0].devices, 12);
  EXPECT_EQ(p.status.claim_templates.desired, 4);
  EXPECT_EQ(p.status.claim_templates.ready, 2);

  object["status"] = "not even an object";
  ASSERT_OK(DecodeGpuProfile(object));
}

TEST(GpuProfileCodecTest, EncodesDefaultsAndCanonicalValuesInOrder) {
  json object = MinimalProfile();
  Set(object, "/metadata/uid", "1234");
  Set(object, "/metadata/generation", 2);
  Set(object, "/spec/selector", json::parse(R"({
      "cel": ["true"],
      "memory": {"min": "40960Mi"},
      "driverVersion": {"min": "550.54.05"},
      "attributes": [{"name": "index", "operator": "Ge", "valueType": "Int", "values": ["+1"]}]
  })"));
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(EncodeGpuProfile(p, /*include_server_fields=*/false).dump(2), R"({
  "apiVersion": "gpuprofile.io/v1alpha1",
  "kind": "GpuProfile",
  "metadata": {
    "name": "any-gpu"
  },
  "spec": {
    "driver": "gpu.nvidia.com",
    "selector": {
      "memory": {
        "min": "40Gi"
      },
      "driverVersion": {
        "min": "550.54.5"
      },
      "attributes": [
        {
          "name": "index",
          "operator": "Ge",
          "valueType": "Int",
          "values": [
            "1"
          ]
        }
      ],
      "cel": [
        "true"
      ]
    },
    "allocationMode": "ExactCount",
    "deviceClassName": "any-gpu",
    "claimTemplate": {
      "name": "any-gpu",
      "requestName": "gpu"
    },
    "deletionPolicy": "Delete"
  },
  "status": {
    "observedGeneration": 0,
    "conditions": [],
    "deviceClassName": "",
    "selectors": [],
    "matchedDevices": 0,
    "matchedNodes": 0,
    "schedulableDevices": 0,
    "taintedDevices": 0,
    "nodeGroups": [],
    "claimTemplates": {
      "desired": 0,
      "ready": 0
    },
    "quotas": {
      "desired": 0,
      "ready": 0
    },
    "allocation": {
      "allocatedDevices": 0,
      "allocatedClaims": 0,
      "freeDevices": 0,
      "pendingClaims": 0,
      "deviceStates": {
        "free": 0,
        "overlapping": 0,
        "allocated": 0,
        "blockedByCounters": 0,
        "tainted": 0,
        "incompletePool": 0,
        "unavailable": 0
      }
    }
  }
})");
  const nlohmann::ordered_json with_server = EncodeGpuProfile(p, true);
  EXPECT_EQ(with_server["metadata"].dump(), R"({"name":"any-gpu","uid":"1234","generation":2})");
}

TEST(GpuProfileCodecTest, EncodesStatus) {
  GpuProfileStatus status;
  status.observed_generation = 3;
  status.conditions.push_back({"Ready", meta::ConditionStatus::kTrue, 3, "", "Reconciled", "done"});
  status.conditions.push_back({"Satisfiable", meta::ConditionStatus::kFalse, 3,
                               "2025-01-01T00:00:00Z", "NoMatchingDevices", ""});
  status.device_class_name = "large-memory";
  status.selectors = {"device.driver == 'gpu.nvidia.com'"};
  status.matched_devices = 14;
  status.matched_nodes = 5;
  status.node_groups.push_back({"nvidia-a100-sxm4-40gb-535.161.8", 12, 3, 0, 0, {}});
  status.claim_templates = {4, 4};
  EXPECT_EQ(EncodeGpuProfileStatus(status).dump(),
            R"({"observedGeneration":3,"conditions":[)"
            R"({"type":"Ready","status":"True","observedGeneration":3,"reason":"Reconciled",)"
            R"("message":"done"},)"
            R"({"type":"Satisfiable","status":"False","observedGeneration":3,)"
            R"("lastTransitionTime":"2025-01-01T00:00:00Z","reason":"NoMatchingDevices",)"
            R"("message":""}],)"
            R"("deviceClassName":"large-memory",)"
            R"("selectors":["device.driver == 'gpu.nvidia.com'"],"matchedDevices":14,)"
            R"("matchedNodes":5,"schedulableDevices":0,"taintedDevices":0,)"
            R"("nodeGroups":[{"name":"nvidia-a100-sxm4-40gb-535.161.8",)"
            R"("devices":12,"nodes":3,"schedulableDevices":0,"taintedDevices":0}],)"
            R"("claimTemplates":{"desired":4,"ready":4},"quotas":{"desired":0,"ready":0},)"
            R"("allocation":{"allocatedDevices":0,"allocatedClaims":0,"freeDevices":0,)"
            R"("pendingClaims":0,"deviceStates":{"free":0,"overlapping":0,"allocated":0,)"
            R"("blockedByCounters":0,"tainted":0,"incompletePool":0,"unavailable":0}}})");
}

// decode -> encode -> decode -> encode gives the same bytes, and the decoded profiles agree.
TEST(GpuProfileCodecTest, RoundTrips) {
  json full_with_status = FullProfile();
  full_with_status["status"] = json::parse(R"({"observedGeneration": 1, "conditions": [
      {"type": "Ready", "status": "False", "observedGeneration": 1, "reason": "Pending",
       "message": "waiting"}], "deviceClassName": "large-memory-class", "selectors": ["x"],
      "matchedDevices": 2, "matchedNodes": 1, "nodeGroups": [], "claimTemplates": {"desired": 2,
      "ready": 1}})");
  json all_mode = MinimalProfile();
  Set(all_mode, "/spec/allocationMode", "All");
  Set(all_mode, "/spec/claimTemplate/namespaceSelector", json::object());
  for (const json& input : {FullProfile(), MinimalProfile(), full_with_status, all_mode}) {
    ASSERT_OK_AND_ASSIGN(GpuProfile first, DecodeGpuProfile(input));
    const nlohmann::ordered_json encoded = EncodeGpuProfile(first, true);
    ASSERT_OK_AND_ASSIGN(GpuProfile second, DecodeGpuProfile(json::parse(encoded.dump())));
    EXPECT_EQ(EncodeGpuProfile(second, true).dump(), encoded.dump());
    EXPECT_EQ(second.spec.count, first.spec.count);
    EXPECT_EQ(second.spec.device_type, first.spec.device_type);
    EXPECT_EQ(second.spec.claim_template.namespace_selector.has_value(),
              first.spec.claim_template.namespace_selector.has_value());
    EXPECT_EQ(second.status.conditions, first.status.conditions);
  }
}

TEST(GpuProfileCodecTest, EncodingIsDeterministic) {
  ASSERT_OK_AND_ASSIGN(GpuProfile a, DecodeGpuProfile(FullProfile()));
  // The same object with members in another order decodes and encodes to the same bytes.
  json reordered = json::parse(FullProfile().dump());  // nlohmann::json sorts keys
  ASSERT_OK_AND_ASSIGN(GpuProfile b, DecodeGpuProfile(reordered));
  EXPECT_EQ(EncodeGpuProfile(a, false).dump(), EncodeGpuProfile(b, false).dump());
}

// ---- the fields of MIG, sharing, capacity requests, fallback, extended resources, tolerations
// and quota ----

TEST(GpuProfileCodecTest, DecodesWorkloadFields) {
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(FullProfile()));
  const GpuProfileSpec& s = p.spec;
  ASSERT_TRUE(s.sharing.has_value());
  EXPECT_EQ(s.sharing->strategy, SharingStrategy::kTimeSlicing);
  ASSERT_TRUE(s.sharing->time_slicing.has_value());
  EXPECT_EQ(s.sharing->time_slicing->interval, "Long");
  EXPECT_FALSE(s.sharing->mps.has_value());
  ASSERT_THAT(s.capacity_requests, SizeIs(2));
  EXPECT_EQ(s.capacity_requests.at("memory").ToString(), "10Gi");
  EXPECT_EQ(s.capacity_requests.at("gpu.example.com/shares").ToString(), "2");
  EXPECT_THAT(s.fallback, ElementsAre("a100-40gb", "any-gpu"));
  EXPECT_EQ(s.extended_resource_name, "example.com/large-memory");
  ASSERT_THAT(s.tolerations, SizeIs(2));
  EXPECT_EQ(s.tolerations[0].key, "gpu.nvidia.com/xid");
  EXPECT_EQ(s.tolerations[0].op, "Exists");
  EXPECT_EQ(s.tolerations[0].value, "");
  EXPECT_EQ(s.tolerations[0].effect, "NoExecute");
  EXPECT_EQ(s.tolerations[0].toleration_seconds, 300);
  EXPECT_EQ(s.tolerations[1].key, "maintenance");
  EXPECT_EQ(s.tolerations[1].op, "Equal");  // the default
  EXPECT_EQ(s.tolerations[1].value, "planned");
  EXPECT_EQ(s.tolerations[1].effect, "NoSchedule");
  EXPECT_FALSE(s.tolerations[1].toleration_seconds.has_value());
  ASSERT_TRUE(s.quota.has_value());
  EXPECT_EQ(s.quota->devices_per_namespace, 8);
}

TEST(GpuProfileCodecTest, WorkloadFieldsAreAbsentUnlessWritten) {
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(MinimalProfile()));
  EXPECT_TRUE(p.spec.selector.mig_profiles.empty());
  EXPECT_FALSE(p.spec.sharing.has_value());
  EXPECT_TRUE(p.spec.capacity_requests.empty());
  EXPECT_TRUE(p.spec.fallback.empty());
  EXPECT_FALSE(p.spec.extended_resource_name.has_value());
  EXPECT_TRUE(p.spec.tolerations.empty());
  EXPECT_FALSE(p.spec.quota.has_value());
}

TEST(GpuProfileCodecTest, DecodesMigProfilesWithDeviceTypeMig) {
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(MigProfile()));
  EXPECT_EQ(p.spec.device_type, "mig");
  EXPECT_THAT(p.spec.selector.mig_profiles, ElementsAre("1g.10gb", "3g.40gb"));
  ASSERT_TRUE(p.spec.sharing.has_value());
  EXPECT_EQ(p.spec.sharing->strategy, SharingStrategy::kMps);
  ASSERT_TRUE(p.spec.sharing->mps.has_value());
  EXPECT_EQ(p.spec.sharing->mps->default_active_thread_percentage, 50);
  EXPECT_EQ(p.spec.sharing->mps->default_pinned_device_memory_limit->ToString(), "5Gi");
  // An empty list is no term, whatever the device type.
  json object = MinimalProfile();
  Set(object, "/spec/selector/migProfiles", json::array());
  ASSERT_OK_AND_ASSIGN(GpuProfile empty, DecodeGpuProfile(object));
  EXPECT_TRUE(empty.spec.selector.mig_profiles.empty());
}

TEST(GpuProfileCodecTest, AcceptedSharingSettings) {
  struct Case {
    json sharing;
    SharingStrategy strategy;
    bool time_slicing;
    std::string interval;
    bool mps;
  };
  const std::vector<Case> cases = {
      {json::object(), SharingStrategy::kExclusive, false, "", false},  // the default strategy
      {{{"strategy", "Exclusive"}}, SharingStrategy::kExclusive, false, "", false},
      {{{"strategy", "TimeSlicing"}}, SharingStrategy::kTimeSlicing, false, "", false},
      {{{"strategy", "TimeSlicing"}, {"timeSlicing", json::object()}},
       SharingStrategy::kTimeSlicing,
       true,
       "",
       false},
      {{{"strategy", "TimeSlicing"}, {"timeSlicing", {{"interval", "Default"}}}},
       SharingStrategy::kTimeSlicing,
       true,
       "Default",
       false},
      {{{"strategy", "TimeSlicing"}, {"timeSlicing", {{"interval", "Short"}}}},
       SharingStrategy::kTimeSlicing,
       true,
       "Short",
       false},
      {{{"strategy", "TimeSlicing"}, {"timeSlicing", {{"interval", "Medium"}}}},
       SharingStrategy::kTimeSlicing,
       true,
       "Medium",
       false},
      {{{"strategy", "MPS"}}, SharingStrategy::kMps, false, "", false},
      {{{"strategy", "MPS"}, {"mps", json::object()}}, SharingStrategy::kMps, false, "", true},
      {{{"strategy", "MPS"}, {"mps", {{"defaultActiveThreadPercentage", 0}}}},
       SharingStrategy::kMps,
       false,
       "",
       true},
      {{{"strategy", "MPS"}, {"mps", {{"defaultActiveThreadPercentage", 100}}}},
       SharingStrategy::kMps,
       false,
       "",
       true},
  };
  for (const Case& c : cases) {
    json object = MinimalProfile();
    Set(object, "/spec/sharing", c.sharing);
    ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
    ASSERT_TRUE(p.spec.sharing.has_value()) << c.sharing;
    EXPECT_EQ(p.spec.sharing->strategy, c.strategy) << c.sharing;
    EXPECT_EQ(p.spec.sharing->time_slicing.has_value(), c.time_slicing) << c.sharing;
    if (c.time_slicing) {
      EXPECT_EQ(p.spec.sharing->time_slicing->interval, c.interval);
    }
    EXPECT_EQ(p.spec.sharing->mps.has_value(), c.mps) << c.sharing;
  }
}

TEST(GpuProfileCodecTest, AcceptedCapacityRequests) {
  json object = MinimalProfile();
  Set(object, "/spec/allocationMode", "All");  // Kubernetes allows capacity requests with All
  Set(object, "/spec/capacityRequests",
      {{"memory", "10240Mi"},
       {"shares", 3},
       {"gpu.example.com/compute", "500m"},
       {"gpu.nvidia.com/multiprocessors", 14}});
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(p.spec.capacity_requests.at("memory").ToString(), "10Gi");
  EXPECT_EQ(p.spec.capacity_requests.at("shares").ToString(), "3");
  EXPECT_EQ(p.spec.capacity_requests.at("gpu.example.com/compute").ToString(), "500m");
  // Qualified with the driver's domain and no unqualified twin: kept as written.
  EXPECT_EQ(p.spec.capacity_requests.at("gpu.nvidia.com/multiprocessors").ToString(), "14");
  // 32 entries are allowed.
  json many = MinimalProfile();
  for (int i = 0; i < 32; ++i) Set(many, "/spec/capacityRequests/c" + std::to_string(i), 1);
  ASSERT_OK_AND_ASSIGN(GpuProfile p32, DecodeGpuProfile(many));
  EXPECT_THAT(p32.spec.capacity_requests, SizeIs(32));
}

TEST(GpuProfileCodecTest, AcceptedFallbacks) {
  json object = MinimalProfile();
  Set(object, "/spec/fallback", {"p1", "p2", "p3", "p4", "p5", "p6", "p7"});
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_THAT(p.spec.fallback, ElementsAre("p1", "p2", "p3", "p4", "p5", "p6", "p7"));
}

TEST(GpuProfileCodecTest, AcceptedExtendedResourceNames) {
  for (const std::string& name : std::vector<std::string>{
           "example.com/large-memory", "nvidia.com/gpu", "example.com/Large_Memory.v2", "a/b",
           "gpu.example.com/" + std::string(63, 'x'),
           // "kubernetes.io" without the slash right after it is another domain.
           "notkubernetes.io.example.com/gpu"}) {
    json object = MinimalProfile();
    Set(object, "/spec/extendedResourceName", name);
    ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
    EXPECT_EQ(p.spec.extended_resource_name, name);
  }
  // The name part of the quota key has at most 63 characters.
  json object = MinimalProfile();
  Set(object, "/spec/extendedResourceName", "gpu.example.com/" + std::string(64, 'x'));
  EXPECT_THAT(ErrorOf(object), HasSubstr("name part must be no more than 63 characters"));
}

TEST(GpuProfileCodecTest, AcceptedTolerations) {
  json object = MinimalProfile();
  Set(object, "/spec/tolerations", json::parse(R"([
      {"operator": "Exists"},
      {"key": "gpu.nvidia.com/gpu-lost", "operator": "Exists", "effect": "NoSchedule"},
      {"key": "example.com/health", "operator": "Equal", "value": "", "effect": ""},
      {"key": "example.com/drain", "value": "soon", "effect": "NoExecute", "tolerationSeconds": 0}
  ])"));
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  const std::vector<DeviceTolerationSpec>& t = p.spec.tolerations;
  ASSERT_THAT(t, SizeIs(4));
  EXPECT_EQ(t[0].key, "");
  EXPECT_EQ(t[0].op, "Exists");
  EXPECT_EQ(t[0].effect, "");
  EXPECT_EQ(t[1].effect, "NoSchedule");
  EXPECT_EQ(t[2].op, "Equal");
  EXPECT_EQ(t[2].value, "");
  EXPECT_EQ(t[3].op, "Equal");
  EXPECT_EQ(t[3].toleration_seconds, 0);
  // 16 are allowed.
  json many = MinimalProfile();
  for (int i = 0; i < 16; ++i) many[P("/spec/tolerations")].push_back({{"operator", "Exists"}});
  ASSERT_OK(DecodeGpuProfile(many));
}

TEST(GpuProfileCodecTest, QuotaOfZeroDevicesIsAllowed) {
  json object = MinimalProfile();
  Set(object, "/spec/quota", {{"devicesPerNamespace", 0}});
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  ASSERT_TRUE(p.spec.quota.has_value());
  EXPECT_EQ(p.spec.quota->devices_per_namespace, 0);
}

TEST(GpuProfileCodecTest, EncodesWorkloadFieldsAfterConfigInOrder) {
  json object = MigProfile();
  Set(object, "/spec/config",
      json::parse(R"([{"driver": "gpu.nvidia.com", "parameters": {"kind": "MigDeviceConfig"}}])"));
  Set(object, "/spec/capacityRequests", {{"memory", "5120Mi"}, {"copyEngines", 1}});
  Set(object, "/spec/fallback", {"medium-mig"});
  Set(object, "/spec/extendedResourceName", "example.com/small-mig");
  Set(object, "/spec/tolerations",
      json::parse(R"([{"key": "gpu.nvidia.com/xid", "operator": "Exists"},
                      {"key": "k", "value": "v", "effect": "NoExecute",
                       "tolerationSeconds": 60}])"));
  Set(object, "/spec/quota", {{"devicesPerNamespace", 4}});
  ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
  EXPECT_EQ(EncodeGpuProfile(p, false)["spec"].dump(2), R"({
  "driver": "gpu.nvidia.com",
  "deviceType": "mig",
  "selector": {
    "migProfiles": [
      "1g.10gb",
      "3g.40gb"
    ]
  },
  "allocationMode": "ExactCount",
  "config": [
    {
      "driver": "gpu.nvidia.com",
      "parameters": {
        "kind": "MigDeviceConfig"
      }
    }
  ],
  "sharing": {
    "strategy": "MPS",
    "mps": {
      "defaultActiveThreadPercentage": 50,
      "defaultPinnedDeviceMemoryLimit": "5Gi"
    }
  },
  "capacityRequests": {
    "copyEngines": "1",
    "memory": "5Gi"
  },
  "fallback": [
    "medium-mig"
  ],
  "extendedResourceName": "example.com/small-mig",
  "tolerations": [
    {
      "key": "gpu.nvidia.com/xid",
      "operator": "Exists"
    },
    {
      "key": "k",
      "operator": "Equal",
      "value": "v",
      "effect": "NoExecute",
      "tolerationSeconds": 60
    }
  ],
  "quota": {
    "devicesPerNamespace": 4
  },
  "deviceClassName": "small-mig",
  "claimTemplate": {
    "name": "small-mig",
    "requestName": "gpu"
  },
  "deletionPolicy": "Delete"
})");
}

TEST(GpuProfileCodecTest, EncodesSharingAsWritten) {
  struct Case {
    json sharing;
    std::string encoded;
  };
  const std::vector<Case> cases = {
      {json::object(), R"({"strategy":"Exclusive"})"},
      {{{"strategy", "TimeSlicing"}}, R"({"strategy":"TimeSlicing"})"},
      {{{"strategy", "TimeSlicing"}, {"timeSlicing", json::object()}},
       R"({"strategy":"TimeSlicing","timeSlicing":{}})"},
      {{{"strategy", "TimeSlicing"}, {"timeSlicing", {{"interval", "Short"}}}},
       R"({"strategy":"TimeSlicing","timeSlicing":{"interval":"Short"}})"},
      {{{"strategy", "MPS"}, {"mps", json::object()}}, R"({"strategy":"MPS","mps":{}})"},
      {{{"strategy", "MPS"}, {"mps", {{"defaultPinnedDeviceMemoryLimit", 1073741824}}}},
       R"({"strategy":"MPS","mps":{"defaultPinnedDeviceMemoryLimit":"1073741824"}})"},
  };
  for (const Case& c : cases) {
    json object = MinimalProfile();
    Set(object, "/spec/sharing", c.sharing);
    ASSERT_OK_AND_ASSIGN(GpuProfile p, DecodeGpuProfile(object));
    EXPECT_EQ(EncodeGpuProfile(p, false)["spec"]["sharing"].dump(), c.encoded) << c.sharing;
  }
}

TEST(GpuProfileCodecTest, WorkloadFieldsRoundTrip) {
  json with_mps = MigProfile();
  Set(with_mps, "/spec/tolerations", json::parse(R"([{"operator": "Exists"}])"));
  Set(with_mps, "/spec/quota", {{"devicesPerNamespace", 0}});
  Set(with_mps, "/spec/capacityRequests", {{"memory", "0.5Gi"}});
  for (const json& input : {FullProfile(), MigProfile(), with_mps}) {
    ASSERT_OK_AND_ASSIGN(GpuProfile first, DecodeGpuProfile(input));
    const nlohmann::ordered_json encoded = EncodeGpuProfile(first, true);
    ASSERT_OK_AND_ASSIGN(GpuProfile second, DecodeGpuProfile(json::parse(encoded.dump())));
    EXPECT_EQ(EncodeGpuProfile(second, true).dump(), encoded.dump());
    EXPECT_EQ(second.spec.selector.mig_profiles, first.spec.selector.mig_profiles);
    ASSERT_EQ(second.spec.sharing.has_value(), first.spec.sharing.has_value());
    if (first.spec.sharing) {
      EXPECT_EQ(second.spec.sharing->strategy, first.spec.sharing->strategy);
      EXPECT_EQ(second.spec.sharing->time_slicing.has_value(),
                first.spec.sharing->time_slicing.has_value());
      EXPECT_EQ(second.spec.sharing->mps.has_value(), first.spec.sharing->mps.has_value());
    }
    EXPECT_EQ(second.spec.capacity_requests, first.spec.capacity_requests);
    EXPECT_EQ(second.spec.fallback, first.spec.fallback);
    EXPECT_EQ(second.spec.extended_resource_name, first.spec.extended_resource_name);
    ASSERT_EQ(second.spec.tolerations.size(), first.spec.tolerations.size());
    for (size_t i = 0; i < first.spec.tolerations.size(); ++i) {
      const DeviceTolerationSpec& a = first.spec.tolerations[i];
      const DeviceTolerationSpec& b = second.spec.tolerations[i];
      EXPECT_EQ(b.key, a.key);
      EXPECT_EQ(b.op, a.op);
      EXPECT_EQ(b.value, a.value);
      EXPECT_EQ(b.effect, a.effect);
      EXPECT_EQ(b.toleration_seconds, a.toleration_seconds);
    }
    ASSERT_EQ(second.spec.quota.has_value(), first.spec.quota.has_value());
    if (first.spec.quota) {
      EXPECT_EQ(second.spec.quota->devices_per_namespace, first.spec.quota->devices_per_namespace);
    }
  }
}

TEST(GpuProfileCodecTest, EncodesWorkloadStatusFields) {
  GpuProfileStatus status;
  status.claim_templates = {3, 2};
  status.extended_resource_name = "example.com/large-memory";
  status.schedulable_claims = 12;
  status.quotas = {3, 1};
  const nlohmann::ordered_json encoded = EncodeGpuProfileStatus(status);
  // After claimTemplates, in this order.
  std::vector<std::string> keys;
  for (const auto& [key, value] : encoded.items()) keys.push_back(key);
  EXPECT_THAT(
      keys, ElementsAre("observedGeneration", "conditions", "deviceClassName", "selectors",
                        "matchedDevices", "matchedNodes", "schedulableDevices", "taintedDevices",
                        "nodeGroups", "claimTemplates", "extendedResourceName", "schedulableClaims",
                        "quotas", "allocation"));
  EXPECT_EQ(encoded["extendedResourceName"], "example.com/large-memory");
  EXPECT_EQ(encoded["schedulableClaims"], 12);
  EXPECT_EQ(encoded["quotas"].dump(), R"({"desired":3,"ready":1})");

  // Zero schedulable claims is a number, not an absence.
  status.schedulable_claims = 0;
  EXPECT_EQ(EncodeGpuProfileStatus(status)["schedulableClaims"], 0);
  // Unset: no extendedResourceName, no schedulableClaims; quotas always.
  const nlohmann::ordered_json bare = EncodeGpuProfileStatus(GpuProfileStatus{});
  EXPECT_FALSE(bare.contains("extendedResourceName"));
  EXPECT_FALSE(bare.contains("schedulableClaims"));
  EXPECT_EQ(bare["quotas"].dump(), R"({"desired":0,"ready":0})");
  // Allocation always, its oldest pending time only when a claim is pending.
  EXPECT_EQ(bare["allocation"].dump(),
            R"({"allocatedDevices":0,"allocatedClaims":0,"freeDevices":0,"pendingClaims":0,)"
            R"("deviceStates":{"free":0,"overlapping":0,"allocated":0,"blockedByCounters":0,)"
            R"("tainted":0,"incompletePool":0,"unavailable":0}})");
  status.allocation = {6, 3, 10, std::nullopt, 2, "2026-11-30T10:00:00Z", {10, 1, 6, 2, 1, 0, 0}};
  EXPECT_EQ(EncodeGpuProfileStatus(status)["allocation"].dump(),
            R"({"allocatedDevices":6,"allocatedClaims":3,"freeDevices":10,"pendingClaims":2,)"
            R"("oldestPendingClaimTime":"2026-11-30T10:00:00Z",)"
            R"("deviceStates":{"free":10,"overlapping":1,"allocated":6,"blockedByCounters":2,)"
            R"("tainted":1,"incompletePool":0,"unavailable":0}})");
  // freeClaims only for a profile with capacity requests (set), zero included.
  status.allocation.free_claims = 0;
  EXPECT_EQ(EncodeGpuProfileStatus(status)["allocation"]["freeClaims"], 0);
}

TEST(GpuProfileCodecTest, WorkloadStatusFieldsRoundTripAndDecodeLeniently) {
  GpuProfile profile;
  profile.metadata.name = "large-memory";
  profile.spec.driver = "gpu.nvidia.com";
  profile.spec.device_class_name = "large-memory";
  profile.spec.claim_template = {"large-memory", "gpu", {}, std::nullopt};
  profile.status.extended_resource_name = "deviceclass.resource.kubernetes.io/large-memory";
  profile.status.schedulable_claims = 0;
  profile.status.quotas = {2, 2};
  profile.status.allocation = {6, 3, 10, 5, 2, "2026-11-30T10:00:00Z", {10, 1, 6, 2, 1, 3, 4}};
  profile.status.node_groups.push_back({"g", 7, 1, 5, 0, {5, 0, 2, 0, 0, 0, 0}});
  ASSERT_OK_AND_ASSIGN(GpuProfile back,
                       DecodeGpuProfile(json::parse(EncodeGpuProfile(profile, true).dump())));
  EXPECT_EQ(back.status.extended_resource_name, "deviceclass.resource.kubernetes.io/large-memory");
  EXPECT_EQ(back.status.schedulable_claims, 0);
  EXPECT_EQ(back.status.quotas.desired, 2);
  EXPECT_EQ(back.status.quotas.ready, 2);
  EXPECT_EQ(back.status.allocation.allocated_devices, 6);
  EXPECT_EQ(back.status.allocation.allocated_claims, 3);
  EXPECT_EQ(back.status.allocation.free_claims, 5);
  EXPECT_EQ(back.status.allocation.free_devices, 10);
  EXPECT_EQ(back.status.allocation.pending_claims, 2);
  EXPECT_EQ(back.status.allocation.oldest_pending_claim_time, "2026-11-30T10:00:00Z");
  EXPECT_EQ(back.status.allocation.device_states, profile.status.allocation.device_states);
  ASSERT_EQ(back.status.node_groups.size(), 1u);
  EXPECT_EQ(back.status.node_groups[0].device_states, profile.status.node_groups[0].device_states);
  // A node group writes only its non-zero states.
  EXPECT_EQ(EncodeGpuProfileStatus(profile.status)["nodeGroups"][0]["deviceStates"].dump(),
            R"({"free":5,"allocated":2})");

  // A status written before deviceStates existed, or with the wrong shapes, reads as zeros.
  for (const char* allocation :
       {R"({"freeDevices": 3})", R"({"deviceStates": 5})", R"({"deviceStates": {"free": "x"}})"}) {
    SCOPED_TRACE(allocation);
    json old_status = MinimalProfile();
    old_status["status"] = {{"allocation", json::parse(allocation)},
                            {"nodeGroups", json::parse(R"([{"name": "g", "devices": 2}])")}};
    ASSERT_OK_AND_ASSIGN(GpuProfile old, DecodeGpuProfile(old_status));
    EXPECT_EQ(old.status.allocation.device_states, DeviceStates{});
    EXPECT_EQ(old.status.node_groups.at(0).device_states, DeviceStates{});
  }

  json object = MinimalProfile();
  object["status"] = json::parse(
      R"({"extendedResourceName": ["x"], "schedulableClaims": "7", "quotas": {"desired": 1.5,
          "ready": 1}})");
  ASSERT_OK_AND_ASSIGN(GpuProfile lenient, DecodeGpuProfile(object));
  EXPECT_EQ(lenient.status.extended_resource_name, "");
  EXPECT_FALSE(lenient.status.schedulable_claims.has_value());
  EXPECT_EQ(lenient.status.quotas.desired, 0);
  EXPECT_EQ(lenient.status.quotas.ready, 1);
}

TEST(GpuProfileCodecTest, IsGpuProfile) {
  EXPECT_TRUE(IsGpuProfile(MinimalProfile()));
  json other = MinimalProfile();
  other["kind"] = "GpuNodeGroup";
  EXPECT_FALSE(IsGpuProfile(other));
  EXPECT_FALSE(IsGpuProfile(json::array()));
}

TEST(GpuProfileCodecTest, EnumNames) {
  EXPECT_STREQ(AllocationModeName(AllocationMode::kAll), "All");
  EXPECT_STREQ(AllocationModeName(AllocationMode::kExactCount), "ExactCount");
  EXPECT_STREQ(DeletionPolicyName(DeletionPolicy::kOrphan), "Orphan");
  EXPECT_STREQ(DeletionPolicyName(DeletionPolicy::kDelete), "Delete");
  EXPECT_STREQ(AttributeOperatorName(AttributeTerm::Operator::kDoesNotExist), "DoesNotExist");
  EXPECT_STREQ(AttributeOperatorName(AttributeTerm::Operator::kLe), "Le");
  EXPECT_STREQ(AttributeValueTypeName(AttributeTerm::ValueType::kVersion), "Version");
}

}  // namespace
}  // namespace gpu_profile_codec_test
}  // namespace gpuprofile::api
