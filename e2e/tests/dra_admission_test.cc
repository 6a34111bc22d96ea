// File: e2e/tests/dra_admission_test.cc
// kube-emulator's DRA admission in process (no server): which gated fields a write keeps per
// release and --feature-gates (kube-apiserver's dropDisabledFields, including "kept when the
// stored object already uses them"), and the ResourceSlice rules of 1.34 and of 1.35+ with the
// API server's field paths and messages.
#include "e2e/emulator/dra_admission.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::e2e {
namespace {

using nlohmann::json;

ResourceType TypeOf(const std::string& resource) {
  ResourceType t;
  t.group = "resource.k8s.io";
  t.resource = resource;
  t.versions = {"v1"};
  return t;
}

json Slice(json devices) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", "node-1-gpu.example.com"}}},
          {"spec",
           {{"driver", "gpu.example.com"},
            {"pool", {{"name", "node-1"}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"nodeName", "node-1"},
            {"devices", std::move(devices)}}}};
}

json Device(const std::string& name, json extra = json::object()) {
  json d = {{"name", name}, {"attributes", {{"type", {{"string", "gpu"}}}}}};
  d.update(extra);
  return d;
}

json Devices(size_t n, json extra = json::object()) {
  json out = json::array();
  for (size_t i = 0; i < n; ++i) out.push_back(Device(absl::StrCat("gpu-", i), extra));
  return out;
}

json Counters(size_t n) {
  json c = json::object();
  for (size_t i = 0; i < n; ++i) c[absl::StrCat("c", i)] = {{"value", "1"}};
  return c;
}

FeatureGates Gates(const std::string& kube, const std::string& overrides) {
  absl::StatusOr<KubeVersion> v = KubeVersion::Parse(kube);
  EXPECT_TRUE(v.ok()) << kube;
  absl::StatusOr<FeatureGates> g = FeatureGates::Parse(*v, overrides);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : FeatureGates(*v);
}

// "field: message" of every cause.
std::vector<std::string> Admit(const std::string& resource, const std::string& kube,
                               const std::string& gates, json& object, const json* old = nullptr) {
  FeatureGates g = Gates(kube, gates);
  ResourceType type = TypeOf(resource);
  DefaultDra(type, g, object, old);
  std::vector<std::string> out;
  for (const StatusCause& c : ValidateDra(type, g.version(), g, object, old)) {
    out.push_back(absl::StrCat(c.field, ": ", c.message));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Dropping gated fields.

struct DropCase {
  std::string name;
  std::string kube;
  std::string gates;    // --feature-gates
  json device;          // the device's extra fields
  std::string pointer;  // JSON pointer into the stored slice
  bool kept;
  bool old_uses_it = false;  // the update of a slice that already has the field
};

class SliceDropTest : public ::testing::TestWithParam<DropCase> {};

TEST_P(SliceDropTest, KeepsTheFieldExactlyWhenTheApiServerDoes) {
  const DropCase& c = GetParam();
  json slice = Slice(json::array({Device("gpu-0", c.device)}));
  json old = slice;
  std::vector<std::string> causes =
      Admit("resourceslices", c.kube, c.gates, slice, c.old_uses_it ? &old : nullptr);
  EXPECT_EQ(slice.contains(json::json_pointer(c.pointer)), c.kept) << slice.dump(2);
  EXPECT_THAT(causes, ::testing::IsEmpty());
}

const json kTaint = {{"taints", {{{"key", "gpu.example.com/xid"}, {"effect", "NoSchedule"}}}}};
const json kConsumes = {
    {"consumesCounters", {{{"counterSet", "gpu-0"}, {"counters", Counters(1)}}}}};
const json kMulti = {
    {"allowMultipleAllocations", true},
    {"capacity",
     {{"memory",
       {{"value", "80Gi"},
        {"requestPolicy", {{"default", "1Gi"}, {"validRange", {{"min", "1Gi"}}}}}}}}}};
const json kBinding = {{"bindsToNode", true},
                       {"bindingConditions", {"ready"}},
                       {"bindingFailureConditions", {"failed"}}};

INSTANTIATE_TEST_SUITE_P(
    Gates, SliceDropTest,
    ::testing::Values(
        DropCase{"TaintsOff135", "1.35", "", kTaint, "/spec/devices/0/taints", false},
        DropCase{"TaintsGateOn135", "1.35", "DRADeviceTaints=true", kTaint,
                 "/spec/devices/0/taints", true},
        DropCase{"TaintsKeptWhenStored135", "1.35", "", kTaint, "/spec/devices/0/taints", true,
                 true},
        DropCase{"TaintsDefault136", "1.36", "", kTaint, "/spec/devices/0/taints", true},
        DropCase{"TaintsGA137", "1.37", "", kTaint, "/spec/devices/0/taints", true},
        DropCase{"ConsumesCountersOff135", "1.35", "", kConsumes,
                 "/spec/devices/0/consumesCounters", false},
        DropCase{"ConsumesCountersDefault136", "1.36", "", kConsumes,
                 "/spec/devices/0/consumesCounters", true},
        DropCase{"ConsumesCountersGateOff137", "1.37", "DRAPartitionableDevices=false", kConsumes,
                 "/spec/devices/0/consumesCounters", false},
        DropCase{"AllowMultipleOff135", "1.35", "", kMulti,
                 "/spec/devices/0/allowMultipleAllocations", false},
        DropCase{"RequestPolicyOff135", "1.35", "", kMulti,
                 "/spec/devices/0/capacity/memory/requestPolicy", false},
        DropCase{"CapacityValueStays135", "1.35", "", kMulti,
                 "/spec/devices/0/capacity/memory/value", true},
        DropCase{"AllowMultipleDefault136", "1.36", "", kMulti,
                 "/spec/devices/0/allowMultipleAllocations", true},
        DropCase{"RequestPolicyDefault136", "1.36", "", kMulti,
                 "/spec/devices/0/capacity/memory/requestPolicy", true},
        DropCase{"BindsToNodeOff135", "1.35", "", kBinding, "/spec/devices/0/bindsToNode", false},
        DropCase{"BindingConditionsDefault136", "1.36", "", kBinding,
                 "/spec/devices/0/bindingConditions", true},
        // Binding conditions need DRAResourceClaimDeviceStatus too.
        DropCase{"BindingConditionsWithoutDeviceStatus136", "1.36",
                 "DRAResourceClaimDeviceStatus=false", kBinding,
                 "/spec/devices/0/bindingFailureConditions", false}),
    [](const ::testing::TestParamInfo<DropCase>& param_info) { return param_info.param.name; });

TEST(SliceDropTest, ListAttributeWithItsGateOffLosesItsValueAndIsRejected) {
  json slice = Slice(json::array(
      {Device("gpu-0", {{"attributes", {{"resource.kubernetes.io/numaNode", {{"ints", {0}}}}}}})}));
  EXPECT_THAT(Admit("resourceslices", "1.37", "", slice),
              ::testing::ElementsAre("spec.devices[0].attributes[resource.kubernetes.io/numaNode]: "
                                     "Invalid value: \"\": exactly one value must be specified"));
  json on = Slice(json::array(
      {Device("gpu-0", {{"attributes", {{"resource.kubernetes.io/numaNode", {{"ints", {0}}}}}}})}));
  EXPECT_THAT(Admit("resourceslices", "1.37", "DRAListTypeAttributes=true", on),
              ::testing::IsEmpty());
  EXPECT_EQ(on["spec"]["devices"][0]["attributes"]["resource.kubernetes.io/numaNode"]["ints"],
            json::array({0}));
  // An update of a slice that already holds list values keeps them.
  json old = on;
  json update = on;
  EXPECT_THAT(Admit("resourceslices", "1.37", "", update, &old), ::testing::IsEmpty());
  EXPECT_EQ(update, on);
}

TEST(SliceDropTest, PerDeviceNodeSelectionGoesWithPartitionableDevices) {
  json slice = Slice(json::array({Device("gpu-0", {{"nodeName", "node-1"}})}));
  slice["spec"].erase("nodeName");
  slice["spec"]["perDeviceNodeSelection"] = true;
  json on = slice;
  // Off on 1.35: both go, and the slice then names no node at all.
  EXPECT_THAT(Admit("resourceslices", "1.35", "", slice),
              ::testing::ElementsAre(
                  "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                  "`perDeviceNodeSelection` is required"));
  EXPECT_FALSE(slice["spec"].contains("perDeviceNodeSelection"));
  EXPECT_FALSE(slice["spec"]["devices"][0].contains("nodeName"));
  EXPECT_THAT(Admit("resourceslices", "1.36", "", on), ::testing::IsEmpty());
  EXPECT_EQ(on["spec"]["devices"][0]["nodeName"], "node-1");
}

TEST(ClaimDropTest, TolerationsAndCapacityRequestsFollowTheirGates) {
  auto claim = [] {
    return json{{"metadata", {{"name", "c"}, {"namespace", "default"}}},
                {"spec",
                 {{"devices",
                   {{"requests",
                     {{{"name", "gpu"},
                       {"exactly",
                        {{"deviceClassName", "gpu.example.com"},
                         {"tolerations", {{{"key", "k"}, {"operator", "Exists"}}}},
                         {"capacity", {{"requests", {{"memory", "1Gi"}}}}}}}}}}}}}}};
  };
  json off = claim();
  EXPECT_THAT(Admit("resourceclaims", "1.35", "", off), ::testing::IsEmpty());
  const json& exactly_off = off["spec"]["devices"]["requests"][0]["exactly"];
  EXPECT_FALSE(exactly_off.contains("tolerations"));
  EXPECT_FALSE(exactly_off.contains("capacity"));
  json on = claim();
  EXPECT_THAT(Admit("resourceclaims", "1.36", "", on), ::testing::IsEmpty());
  const json& exactly_on = on["spec"]["devices"]["requests"][0]["exactly"];
  EXPECT_TRUE(exactly_on.contains("tolerations"));
  EXPECT_EQ(exactly_on["capacity"]["requests"]["memory"], "1Gi");
}

TEST(ClassDropTest, ExtendedResourceNameFollowsItsGate) {
  auto cls = [] {
    return json{{"metadata", {{"name", "gpu.example.com"}}},
                {"spec", {{"extendedResourceName", "example.com/gpu"}}}};
  };
  json off = cls();
  EXPECT_THAT(Admit("deviceclasses", "1.35", "", off), ::testing::IsEmpty());
  EXPECT_FALSE(off["spec"].contains("extendedResourceName"));
  json on = cls();
  EXPECT_THAT(Admit("deviceclasses", "1.36", "", on), ::testing::IsEmpty());
  EXPECT_EQ(on["spec"]["extendedResourceName"], "example.com/gpu");
}

// ---------------------------------------------------------------------------------------------
// Slice validation per release.

struct RuleCase {
  std::string name;
  std::string kube;
  std::string gates;
  json slice;
  std::vector<std::string> causes;  // "field: message", in order
};

class SliceRulesTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(SliceRulesTest, ReportsWhatTheApiServerReports) {
  RuleCase c = GetParam();
  EXPECT_THAT(Admit("resourceslices", c.kube, c.gates, c.slice),
              ::testing::ElementsAreArray(c.causes))
      << c.slice.dump().substr(0, 400);
}

json WithCounterSets(json slice, size_t sets, size_t counters_each) {
  json s = json::array();
  for (size_t i = 0; i < sets; ++i) {
    s.push_back(
        {{"name", absl::StrCat("gpu-", i, "-counter-set")}, {"counters", Counters(counters_each)}});
  }
  slice["spec"]["sharedCounters"] = s;
  return slice;
}

json CountersOnly(size_t sets, size_t counters_each) {
  json slice = WithCounterSets(Slice(json::array()), sets, counters_each);
  slice["spec"].erase("devices");
  return slice;
}

json Taints(size_t n, const std::string& effect) {
  json t = json::array();
  for (size_t i = 0; i < n; ++i) {
    t.push_back({{"key", absl::StrCat("gpu.example.com/t", i)}, {"effect", effect}});
  }
  return {{"taints", t}};
}

json Attributes(size_t n) {
  json a = json::object();
  for (size_t i = 0; i < n; ++i) a[absl::StrCat("a", i)] = {{"int", static_cast<int>(i)}};
  return {{"attributes", a}};
}

const std::string kOnlyOne =
    "spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed";

INSTANTIATE_TEST_SUITE_P(
    Releases, SliceRulesTest,
    ::testing::Values(
        RuleCase{
            "CountersOnlySlice135", "1.35", "DRAPartitionableDevices=true", CountersOnly(2, 4), {}},
        RuleCase{"DevicesAndCounters136",
                 "1.36",
                 "",
                 WithCounterSets(Slice(Devices(1)), 1, 1),
                 {kOnlyOne}},
        // 1.34 published counters and devices in one slice.
        RuleCase{"DevicesAndCounters134",
                 "1.34",
                 "DRAPartitionableDevices=true",
                 WithCounterSets(Slice(Devices(1)), 1, 1),
                 {}},
        RuleCase{"Devices128", "1.36", "", Slice(Devices(128)), {}},
        RuleCase{"Devices129",
                 "1.36",
                 "",
                 Slice(Devices(129)),
                 {"spec.devices: Too many: 129: must have at most 128 items"}},
        RuleCase{"TaintedDevices64", "1.36", "", Slice(Devices(64, Taints(1, "NoSchedule"))), {}},
        RuleCase{"TaintedDevices65",
                 "1.36",
                 "",
                 Slice(Devices(65, Taints(1, "NoSchedule"))),
                 {"spec.devices: Too many: 65: must have at most 64 items"}},
        RuleCase{"ConsumingDevices65",
                 "1.36",
                 "",
                 Slice(Devices(65, kConsumes)),
                 {"spec.devices: Too many: 65: must have at most 64 items"}},
        RuleCase{"ListAttributeDevices65",
                 "1.36",
                 "DRAListTypeAttributes=true",
                 Slice(Devices(65, {{"attributes", {{"numa", {{"ints", {0}}}}}}})),
                 {"spec.devices: Too many: 65: must have at most 64 items"}},
        // Before 1.35, taints did not lower the limit.
        RuleCase{"TaintedDevices65On134",
                 "1.34",
                 "DRADeviceTaints=true",
                 Slice(Devices(65, Taints(1, "NoSchedule"))),
                 {}},
        RuleCase{"CounterSets8", "1.36", "", CountersOnly(8, 1), {}},
        RuleCase{"CounterSets9",
                 "1.36",
                 "",
                 CountersOnly(9, 1),
                 {"spec.sharedCounters: Too many: 9: must have at most 8 items"}},
        RuleCase{"CountersPerSet33",
                 "1.36",
                 "",
                 CountersOnly(1, 33),
                 {"spec.sharedCounters[0].counters: Too many: 33: must have at most 32 items"}},
        RuleCase{"CounterSetWithoutCounters",
                 "1.36",
                 "",
                 CountersOnly(1, 0),
                 {"spec.sharedCounters[0].counters: Required value"}},
        RuleCase{"SharedCounters33On134",
                 "1.34",
                 "DRAPartitionableDevices=true",
                 WithCounterSets(Slice(Devices(1)), 3, 11),
                 {"spec.sharedCounters: Invalid value: 33: the total number of shared counters "
                  "must not exceed 32"}},
        // Before 1.35 a device consumes the counters of its own slice.
        RuleCase{"ConsumesUnknownSetOn134",
                 "1.34",
                 "DRAPartitionableDevices=true",
                 WithCounterSets(Slice(Devices(1, kConsumes)), 1, 1),
                 {"spec.devices[0].consumesCounters[0].counterSet: Invalid value: \"gpu-0\": must "
                  "reference a counterSet defined in the ResourceSlice sharedCounters"}},
        RuleCase{"ConsumesOwnSetOn134",
                 "1.34",
                 "DRAPartitionableDevices=true",
                 WithCounterSets(Slice(Devices(1, {{"consumesCounters",
                                                    {{{"counterSet", "gpu-0-counter-set"},
                                                      {"counters", Counters(1)}}}}})),
                                 1, 1),
                 {}},
        RuleCase{"Consumptions3",
                 "1.36",
                 "",
                 Slice(json::array(
                     {Device("gpu-0", {{"consumesCounters",
                                        {{{"counterSet", "a"}, {"counters", Counters(1)}},
                                         {{"counterSet", "b"}, {"counters", Counters(1)}},
                                         {{"counterSet", "c"}, {"counters", Counters(1)}}}}})})),
                 {"spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items"}},
        RuleCase{
            "Attributes32", "1.36", "", Slice(json::array({Device("gpu-0", Attributes(32))})), {}},
        RuleCase{"Attributes33",
                 "1.36",
                 "",
                 Slice(json::array({Device("gpu-0", Attributes(33))})),
                 {"spec.devices[0]: Invalid value: 33: the total number of attributes and "
                  "capacities must not exceed 32"}},
        RuleCase{"Taints16",
                 "1.36",
                 "",
                 Slice(json::array({Device("gpu-0", Taints(16, "NoSchedule"))})),
                 {}},
        RuleCase{"Taints17",
                 "1.36",
                 "",
                 Slice(json::array({Device("gpu-0", Taints(17, "NoSchedule"))})),
                 {"spec.devices[0].taints: Too many: 17: must have at most 16 items"}},
        RuleCase{"TaintEffectNone135",
                 "1.35",
                 "DRADeviceTaints=true",
                 Slice(json::array({Device("gpu-0", Taints(1, "None"))})),
                 {}},
        RuleCase{"TaintEffectNone134",
                 "1.34",
                 "DRADeviceTaints=true",
                 Slice(json::array({Device("gpu-0", Taints(1, "None"))})),
                 {"spec.devices[0].taints[0].effect: Unsupported value: \"None\": supported "
                  "values: \"NoExecute\", \"NoSchedule\""}},
        RuleCase{"TaintEffectUnknown137",
                 "1.37",
                 "",
                 Slice(json::array({Device("gpu-0", Taints(1, "Evict"))})),
                 {"spec.devices[0].taints[0].effect: Unsupported value: \"Evict\": supported "
                  "values: \"NoExecute\", \"NoSchedule\", \"None\""}},
        RuleCase{
            "ListValues48",
            "1.37",
            "DRAListTypeAttributes=true",
            Slice(json::array({Device("gpu-0", {{"attributes",
                                                 {{"a", {{"ints", std::vector<int>(40, 1)}}},
                                                  {"b", {{"ints", std::vector<int>(8, 1)}}}}}})})),
            {}},
        RuleCase{"ListValues49",
                 "1.37",
                 "DRAListTypeAttributes=true",
                 Slice(json::array({Device("gpu-0", {{"attributes",
                                                      {{"a", {{"ints", std::vector<int>(40, 1)}}},
                                                       {"b", {{"ints", std::vector<int>(8, 1)}}},
                                                       {"c", {{"bool", true}}}}}})})),
                 {"spec.devices[0]: Invalid value: 49: the total number of attribute values must "
                  "not exceed 48"}},
        RuleCase{
            "ListStringTooLong",
            "1.37",
            "DRAListTypeAttributes=true",
            Slice(json::array({Device(
                "gpu-0", {{"attributes", {{"s", {{"strings", {"ok", std::string(65, 'x')}}}}}}})})),
            {"spec.devices[0].attributes[s].strings[1]: Too long: may not be more than 64 "
             "bytes"}},
        RuleCase{"EmptyList",
                 "1.37",
                 "DRAListTypeAttributes=true",
                 Slice(json::array({Device("gpu-0",
                                           {{"attributes", {{"s", {{"ints", json::array()}}}}}})})),
                 {"spec.devices[0].attributes[s].ints: Invalid value: []: must not be empty if "
                  "specified"}},
        RuleCase{
            "RequestPolicyNeedsAllowMultiple",
            "1.36",
            "",
            Slice(json::array({Device(
                "gpu-0",
                {{"capacity",
                  {{"memory", {{"value", "1Gi"}, {"requestPolicy", {{"default", "1Gi"}}}}}}}})})),
            {"spec.devices[0].capacity[memory].requestPolicy: Forbidden: "
             "allowMultipleAllocations must be true"}}),
    [](const ::testing::TestParamInfo<RuleCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace gpuprofile::e2e
