// File: e2e/tests/dra_admission_test.cc
// kube-emulator's DRA admission in process (no server): which gated fields a write keeps per
// release and --feature-gates (kube-apiserver's dropDisabledFields, including "kept when the
// stored object already uses them"), and the ResourceSlice rules of 1.34 and of 1.35+ with the
// API server's field paths and messages. Then the same rules for the request and class fields
// of issue 14 (firstAvailable, tolerations, capacity requests, extendedResourceName) over real
// HTTP against a kube-emulator per release and --feature-gates.
#include "e2e/emulator/dra_admission.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/release_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e {
namespace dra_admission_test {
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

TEST(ClaimDropTest, TolerationsAndCapacityStayWhenTheStoredClaimUsesThem) {
  json sub = {{"name", "big"},
              {"deviceClassName", "gpu.example.com"},
              {"tolerations", {{{"key", "k"}, {"operator", "Exists"}}}},
              {"capacity", {{"requests", {{"memory", "1Gi"}}}}}};
  json request = {{"name", "gpu"}, {"firstAvailable", json::array({sub})}};
  json claim = {{"metadata", {{"name", "c"}, {"namespace", "default"}}},
                {"spec", {{"devices", {{"requests", json::array({request})}}}}}};
  // Stored by a release with both gates on (defaulted as it was then).
  json old = claim;
  ASSERT_THAT(Admit("resourceclaims", "1.36", "", old), ::testing::IsEmpty());
  json update = old;
  update["metadata"]["labels"] = {{"team", "a"}};
  // 1.35: both gates off, DRAPrioritizedList on; the stored claim keeps them on update.
  EXPECT_THAT(Admit("resourceclaims", "1.35", "", update, &old), ::testing::IsEmpty());
  const json& kept = update["spec"]["devices"]["requests"][0]["firstAvailable"][0];
  EXPECT_TRUE(kept.contains("tolerations"));
  EXPECT_TRUE(kept.contains("capacity"));
  // A create with the same spec loses them.
  json created = claim;
  EXPECT_THAT(Admit("resourceclaims", "1.35", "", created), ::testing::IsEmpty());
  const json& created_sub = created["spec"]["devices"]["requests"][0]["firstAvailable"][0];
  EXPECT_FALSE(created_sub.contains("tolerations"));
  EXPECT_FALSE(created_sub.contains("capacity"));
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

// ---------------------------------------------------------------------------------------------
// Issue 14's request and class fields over HTTP, per release and --feature-gates.

using testing::EmulatorProcess;
using testing::RawHttpClient;
using testing::RawResponse;

EmulatorProcess& Emulator(const std::string& kube, const std::string& gates) {
  return testing::SharedEmulator(kube, gates);
}
std::string DraVersion(const std::string& kube) { return testing::NewestDraVersion(kube); }

struct HttpCase {
  std::string name;
  std::string kube;
  std::string gates;
  std::string resource;             // deviceclasses or resourceclaims
  json spec;                        // the object's spec, in the version DraVersion(kube) names
  int status;                       // HTTP status of the create
  std::vector<std::string> causes;  // "field: message" of a 422, in order
  std::string message;              // substring of the Status message of a 400
  std::vector<std::pair<std::string, json>> stored;  // JSON pointer -> value (null: absent)
};

class DraFieldsOverHttpTest : public ::testing::TestWithParam<HttpCase> {};

TEST_P(DraFieldsOverHttpTest, AnswersAsKubeApiserver) {
  const HttpCase& c = GetParam();
  EmulatorProcess& emulator = Emulator(c.kube, c.gates);
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  RawHttpClient http(emulator.url());
  const std::string version = DraVersion(c.kube);
  const bool claim = c.resource == "resourceclaims";
  const std::string name = absl::AsciiStrToLower(c.name);
  json object = {{"apiVersion", "resource.k8s.io/" + version},
                 {"kind", claim ? "ResourceClaim" : "DeviceClass"},
                 {"metadata", {{"name", name}}},
                 {"spec", c.spec}};
  const std::string path = absl::StrCat("/apis/resource.k8s.io/", version,
                                        claim ? "/namespaces/default/" : "/", c.resource);
  RawResponse r = http.Post(path, object);
  ASSERT_EQ(r.status, c.status) << r.body;
  json body = r.Json();
  if (c.status == 422) {
    std::vector<std::string> causes;
    for (const json& cause : body["details"]["causes"]) {
      causes.push_back(absl::StrCat(cause.value("field", ""), ": ", cause.value("message", "")));
    }
    EXPECT_THAT(causes, ::testing::ElementsAreArray(c.causes)) << r.body;
  }
  if (c.status == 400) {
    EXPECT_THAT(body.value("message", ""), ::testing::HasSubstr(c.message));
  }
  if (c.status != 201) return;
  // What a later GET returns, not only the create's answer.
  RawResponse got = http.Get(absl::StrCat(path, "/", name));
  ASSERT_EQ(got.status, 200) << got.body;
  json stored = got.Json();
  for (const auto& [pointer, want] : c.stored) {
    json::json_pointer p(pointer);
    if (want.is_null()) {
      EXPECT_FALSE(stored.contains(p)) << pointer << " in " << stored.dump();
    } else {
      ASSERT_TRUE(stored.contains(p)) << pointer << " not in " << stored.dump();
      EXPECT_EQ(stored[p], want) << pointer;
    }
  }
}

json ExactClaim(json exactly) {
  exactly["deviceClassName"] = "gpu.example.com";
  return {{"devices", {{"requests", {{{"name", "gpu"}, {"exactly", exactly}}}}}}};
}

json Sub(const std::string& name, json extra = json::object()) {
  json sub = {{"name", name}, {"deviceClassName", "gpu.example.com"}};
  sub.update(extra);
  return sub;
}

json FirstAvailable(json subs) {
  return {{"devices", {{"requests", {{{"name", "gpu"}, {"firstAvailable", subs}}}}}}};
}

json Subs(size_t n) {
  json subs = json::array();
  for (size_t i = 0; i < n; ++i) subs.push_back(Sub(absl::StrCat("s", i)));
  return subs;
}

json Tolerations(json list) { return {{"tolerations", list}}; }

const char kReq[] = "spec.devices.requests[0]";
const std::string kSub0 = std::string(kReq) + ".firstAvailable[0]";
const std::string kExact = std::string(kReq) + ".exactly";
using testing::kDnsLabelMessage;
const char kQualifiedNameMessage[] =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const char kBadQuantity[] =
    "ResourceClaim in version \"v1\" cannot be handled as a ResourceClaim: quantities must match "
    "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

HttpCase Accepted(std::string name, std::string kube, std::string gates, std::string resource,
                  json spec, std::vector<std::pair<std::string, json>> stored) {
  return {std::move(name),
          std::move(kube),
          std::move(gates),
          std::move(resource),
          std::move(spec),
          201,
          {},
          "",
          std::move(stored)};
}

HttpCase Rejected(std::string name, std::string kube, std::string gates, std::string resource,
                  json spec, std::vector<std::string> causes) {
  return {std::move(name),
          std::move(kube),
          std::move(gates),
          std::move(resource),
          std::move(spec),
          422,
          std::move(causes),
          "",
          {}};
}

const json kClass = {
    {"selectors", {{{"cel", {{"expression", "device.driver == 'gpu.example.com'"}}}}}}};

json ClassWith(const std::string& extended_resource_name) {
  json spec = kClass;
  spec["extendedResourceName"] = extended_resource_name;
  return spec;
}

INSTANTIATE_TEST_SUITE_P(
    Issue14, DraFieldsOverHttpTest,
    ::testing::Values(
        // firstAvailable.
        Accepted("FirstAvailable8", "1.34", "", "resourceclaims", FirstAvailable(Subs(8)),
                 {{"/spec/devices/requests/0/firstAvailable/7/allocationMode", "ExactCount"},
                  {"/spec/devices/requests/0/firstAvailable/7/count", 1}}),
        Rejected("FirstAvailable9", "1.34", "", "resourceclaims", FirstAvailable(Subs(9)),
                 {std::string(kReq) + ".firstAvailable: Too many: 9: must have at most 8 items"}),
        Rejected("SubrequestNamesUnique", "1.34", "", "resourceclaims",
                 FirstAvailable({Sub("a"), Sub("b"), Sub("a")}),
                 {std::string(kReq) + ".firstAvailable[2].name: Duplicate value: \"a\""}),
        Rejected("SubrequestNameIsADnsLabel", "1.34", "", "resourceclaims",
                 FirstAvailable({Sub("Big_GPU")}),
                 {kSub0 + ".name: Invalid value: \"Big_GPU\": " + kDnsLabelMessage}),
        Rejected("SubrequestNameRequired", "1.34", "", "resourceclaims",
                 FirstAvailable({{{"deviceClassName", "gpu.example.com"}}}),
                 {kSub0 + ".name: Invalid value: \"\": " + kDnsLabelMessage}),
        Rejected("RequestNameRequiredAndUnique", "1.36", "", "resourceclaims",
                 {{"devices",
                   {{"requests",
                     {{{"exactly", {{"deviceClassName", "gpu.example.com"}}}},
                      {{"name", "a"}, {"exactly", {{"deviceClassName", "gpu.example.com"}}}},
                      {{"name", "a"}, {"exactly", {{"count", 0}}}}}}}}},
                 {std::string(kReq) + ".name: Invalid value: \"\": " + kDnsLabelMessage,
                  "spec.devices.requests[2].exactly.deviceClassName: Required value",
                  "spec.devices.requests[2].name: Duplicate value: \"a\""}),
        Rejected("SubrequestNeedsAClass", "1.34", "", "resourceclaims",
                 FirstAvailable({{{"name", "a"}}}), {kSub0 + ".deviceClassName: Required value"}),
        Rejected("SubrequestAllWithCount", "1.34", "", "resourceclaims",
                 FirstAvailable({Sub("a", {{"allocationMode", "All"}, {"count", 2}})}),
                 {kSub0 + ".count: Invalid value: 2: must not be specified when allocationMode "
                          "is 'All'"}),
        Rejected("SubrequestCountMustBePositive", "1.34", "", "resourceclaims",
                 FirstAvailable({Sub("a", {{"count", -1}})}),
                 {kSub0 + ".count: Invalid value: -1: must be greater than zero"}),
        // Off by default on 1.33: dropped, and the request is then empty.
        Rejected("FirstAvailableOff133", "1.33", "", "resourceclaims", FirstAvailable(Subs(2)),
                 {std::string(kReq) +
                  ": Required value: exactly one of `exactly` or `firstAvailable` is required"}),
        Accepted("FirstAvailableGateOn133", "1.33", "DRAPrioritizedList=true", "resourceclaims",
                 FirstAvailable(Subs(2)),
                 {{"/spec/devices/requests/0/firstAvailable/1/name", "s1"}}),
        // tolerations: defaulting, key, operator, value, effect; exact requests and subrequests.
        Accepted("TolerationOperatorDefaultsToEqual", "1.36", "", "resourceclaims",
                 ExactClaim(Tolerations({{{"key", "gpu.example.com/xid"}, {"value", "48"}}})),
                 {{"/spec/devices/requests/0/exactly/tolerations/0/operator", "Equal"}}),
        Rejected("TolerationKeyIsAQualifiedName", "1.36", "", "resourceclaims",
                 ExactClaim(Tolerations({{{"key", "bad key"}, {"operator", "Exists"}}})),
                 {kExact +
                  ".tolerations[0].key: Invalid value: \"bad key\": " + kQualifiedNameMessage}),
        Rejected("TolerationOperator", "1.36", "", "resourceclaims",
                 ExactClaim(Tolerations({{{"key", "k"}, {"operator", "In"}}})),
                 {kExact + ".tolerations[0].operator: Unsupported value: \"In\": supported "
                           "values: \"Equal\", \"Exists\""}),
        Rejected("TolerationExistsWithValue", "1.36", "", "resourceclaims",
                 ExactClaim(Tolerations({{{"key", "k"}, {"operator", "Exists"}, {"value", "x"}}})),
                 {kExact + ".tolerations[0].value: Invalid value: \"x\": must be empty for "
                           "operator `Exists`"}),
        Rejected("TolerationEffect136", "1.36", "", "resourceclaims",
                 ExactClaim(Tolerations({{{"operator", "Exists"},
                                          {"effect", "PreferNoSchedule"}}})),
                 {kExact + ".tolerations[0].effect: Unsupported value: \"PreferNoSchedule\": "
                           "supported values: \"NoExecute\", \"NoSchedule\", \"None\""}),
        Rejected("TolerationEffectNone134", "1.34", "DRADeviceTaints=true", "resourceclaims",
                 ExactClaim(Tolerations({{{"operator", "Exists"}, {"effect", "None"}}})),
                 {kExact + ".tolerations[0].effect: Unsupported value: \"None\": supported "
                           "values: \"NoExecute\", \"NoSchedule\""}),
        Rejected("SubrequestToleration", "1.36", "", "resourceclaims",
                 FirstAvailable({Sub("a", Tolerations({{{"key", "k"}, {"operator", "Gt"}}}))}),
                 {kSub0 + ".tolerations[0].operator: Unsupported value: \"Gt\": supported "
                          "values: \"Equal\", \"Exists\""}),
        // The types document 16 at most; kube-apiserver's validation does not check it.
        Accepted("SeventeenTolerations", "1.36", "", "resourceclaims",
                 ExactClaim(Tolerations(json(std::vector<json>(17, {{"operator", "Exists"}})))),
                 {{"/spec/devices/requests/0/exactly/tolerations/16/operator", "Exists"}}),
        Accepted("TolerationsOff135", "1.35", "", "resourceclaims",
                 FirstAvailable({Sub("a", Tolerations({{{"key", "k"}, {"operator", "In"}}}))}),
                 {{"/spec/devices/requests/0/firstAvailable/0/tolerations", nullptr}}),
        Accepted("TolerationsGateOn135", "1.35", "DRADeviceTaints=true", "resourceclaims",
                 ExactClaim(Tolerations({{{"key", "k"}, {"operator", "Exists"}}})),
                 {{"/spec/devices/requests/0/exactly/tolerations/0/key", "k"}}),
        // capacity.requests.
        Accepted("CapacityRequests136", "1.36", "", "resourceclaims",
                 FirstAvailable(
                     {Sub("a", {{"capacity",
                                 {{"requests", {{"memory", "10Gi"}, {"cores", "2000m"}}}}}})}),
                 {{"/spec/devices/requests/0/firstAvailable/0/capacity/requests/memory", "10Gi"},
                  {"/spec/devices/requests/0/firstAvailable/0/capacity/requests/cores", "2"}}),
        HttpCase{"CapacityRequestNotAQuantity",
                 "1.36",
                 "",
                 "resourceclaims",
                 ExactClaim({{"capacity", {{"requests", {{"memory", "ten gigs"}}}}}}),
                 400,
                 {},
                 kBadQuantity,
                 {}},
        Accepted("CapacityOff135", "1.35", "", "resourceclaims",
                 ExactClaim({{"capacity", {{"requests", {{"memory", "10Gi"}}}}}}),
                 {{"/spec/devices/requests/0/exactly/capacity", nullptr}}),
        Accepted("CapacityGateOn135", "1.35", "DRAConsumableCapacity=true", "resourceclaims",
                 ExactClaim({{"capacity", {{"requests", {{"memory", "10Gi"}}}}}}),
                 {{"/spec/devices/requests/0/exactly/capacity/requests/memory", "10Gi"}}),
        // DeviceClass.extendedResourceName.
        Accepted("ExtendedResourceName136", "1.36", "", "deviceclasses",
                 ClassWith("example.com/large-memory"),
                 {{"/spec/extendedResourceName", "example.com/large-memory"}}),
        Rejected("ExtendedResourceNameWithoutDomain", "1.36", "", "deviceclasses", ClassWith("gpu"),
                 {"spec.extendedResourceName: Invalid value: \"gpu\": must be a valid extended "
                  "resource name"}),
        Rejected("ExtendedResourceNameInKubernetesIo", "1.37", "", "deviceclasses",
                 ClassWith("deviceclass.resource.kubernetes.io/gpu"),
                 {"spec.extendedResourceName: Invalid value: "
                  "\"deviceclass.resource.kubernetes.io/gpu\": must be a valid extended resource "
                  "name"}),
        Rejected("ExtendedResourceNameRequestsPrefix", "1.36", "", "deviceclasses",
                 ClassWith("requests.example.com/gpu"),
                 {"spec.extendedResourceName: Invalid value: \"requests.example.com/gpu\": must "
                  "be a valid extended resource name"}),
        Rejected("ExtendedResourceNameTooLong", "1.36", "", "deviceclasses",
                 ClassWith("example.com/" + std::string(64, 'g')),
                 {"spec.extendedResourceName: Invalid value: \"example.com/" +
                  std::string(64, 'g') + "\": must be a valid extended resource name"}),
        Accepted("ExtendedResourceNameOff135", "1.35", "", "deviceclasses",
                 ClassWith("example.com/gpu"), {{"/spec/extendedResourceName", nullptr}}),
        Accepted("ExtendedResourceNameGateOn135", "1.35", "DRAExtendedResource=true",
                 "deviceclasses", ClassWith("example.com/gpu"),
                 {{"/spec/extendedResourceName", "example.com/gpu"}}),
        // Not a field of 1.33's DeviceClass at all.
        Accepted("ExtendedResourceNameAbsent133", "1.33", "", "deviceclasses",
                 ClassWith("example.com/gpu"), {{"/spec/extendedResourceName", nullptr}})),
    [](const ::testing::TestParamInfo<HttpCase>& param_info) { return param_info.param.name; });

// Opaque configuration: an empty driver also fails the subdomain rule up to 1.35, and the
// raw-extension message lost its "parameters " prefix with 1.35.
json ClassConfig(const std::string& driver, json parameters) {
  json spec = kClass;
  spec["config"] = {{{"opaque", {{"driver", driver}, {"parameters", std::move(parameters)}}}}};
  return spec;
}
json ClaimConfig(json parameters) {
  json spec = ExactClaim(json::object());
  spec["devices"]["config"] = {
      {{"opaque", {{"driver", "gpu.example.com"}, {"parameters", std::move(parameters)}}}}};
  return spec;
}
using testing::kDnsSubdomainMessage;

INSTANTIATE_TEST_SUITE_P(
    OpaqueConfig, DraFieldsOverHttpTest,
    ::testing::Values(
        Rejected("EmptyDriver134", "1.34", "", "deviceclasses", ClassConfig("", {{"a", 1}}),
                 {"spec.config[0].opaque.driver: Required value",
                  absl::StrCat("spec.config[0].opaque.driver: Invalid value: \"\": ",
                               kDnsSubdomainMessage)}),
        Rejected("EmptyDriver136", "1.36", "", "deviceclasses", ClassConfig("", {{"a", 1}}),
                 {"spec.config[0].opaque.driver: Required value"}),
        // (A DeviceClass's parameters go through the project's strict decoder first: a claim's
        // do not.)
        Rejected("ParametersNotObject134", "1.34", "", "resourceclaims", ClaimConfig({1}),
                 {"spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": "
                  "parameters must be a valid JSON object"}),
        Rejected("ParametersNotObject135", "1.35", "", "resourceclaims", ClaimConfig({1}),
                 {"spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": "
                  "must be a valid JSON object"})),
    [](const ::testing::TestParamInfo<HttpCase>& param_info) { return param_info.param.name; });

// A field the release's Go types do not have is an unknown field to the decoder: dropped with a
// warning, or a 400 under fieldValidation=Strict.
struct UnknownFieldCase {
  std::string name;
  std::string kube;
  std::string resource;
  json spec;                        // in DraVersion(kube)
  std::vector<std::string> fields;  // as the decoder names them
  std::string absent;  // JSON pointer of the dropped field in the stored object ("": rejected)
  std::vector<std::string> causes = {};  // the 422 once the field is gone, if any
};

class UnknownDraFieldTest : public ::testing::TestWithParam<UnknownFieldCase> {};

TEST_P(UnknownDraFieldTest, WarnsOrFailsStrictDecoding) {
  const UnknownFieldCase& c = GetParam();
  EmulatorProcess& emulator = Emulator(c.kube, "");
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  RawHttpClient http(emulator.url());
  const std::string version = DraVersion(c.kube);
  const bool claim = c.resource == "resourceclaims";
  const std::string name = absl::AsciiStrToLower(c.name);
  json object = {{"apiVersion", "resource.k8s.io/" + version},
                 {"kind", claim ? "ResourceClaim" : "DeviceClass"},
                 {"metadata", {{"name", name}}},
                 {"spec", c.spec}};
  const std::string path = absl::StrCat("/apis/resource.k8s.io/", version,
                                        claim ? "/namespaces/default/" : "/", c.resource);
  std::vector<std::string> quoted;
  for (const std::string& f : c.fields) quoted.push_back(absl::StrCat("unknown field \"", f, "\""));

  RawResponse strict = http.Post(path + "?fieldValidation=Strict", object);
  ASSERT_EQ(strict.status, 400) << strict.body;
  EXPECT_EQ(strict.Json()["message"],
            absl::StrCat("strict decoding error: ", absl::StrJoin(quoted, ", ")));

  // Without Strict: the field is dropped with a warning, and the rest is admitted as if it had
  // not been written (a request left empty is then invalid; the warning still comes).
  RawResponse warned = http.Post(path, object);
  for (const std::string& f : c.fields) {
    EXPECT_THAT(warned.Header("warning"),
                ::testing::HasSubstr(absl::StrCat("unknown field \\\"", f, "\\\"")));
  }
  if (!c.causes.empty()) {
    ASSERT_EQ(warned.status, 422) << warned.body;
    std::vector<std::string> causes;
    const json body = warned.Json();
    for (const json& cause : body["details"]["causes"]) {
      causes.push_back(absl::StrCat(cause.value("field", ""), ": ", cause.value("message", "")));
    }
    EXPECT_THAT(causes, ::testing::ElementsAreArray(c.causes));
    return;
  }
  ASSERT_EQ(warned.status, 201) << warned.body;
  EXPECT_FALSE(warned.Json().contains(json::json_pointer(c.absent))) << warned.body;
}

INSTANTIATE_TEST_SUITE_P(
    Releases, UnknownDraFieldTest,
    ::testing::Values(
        UnknownFieldCase{"ExtendedResourceName133",
                         "1.33",
                         "deviceclasses",
                         ClassWith("example.com/gpu"),
                         {"spec.extendedResourceName"},
                         "/spec/extendedResourceName"},
        UnknownFieldCase{"ExtendedResourceName132",
                         "1.32",
                         "deviceclasses",
                         ClassWith("example.com/gpu"),
                         {"spec.extendedResourceName"},
                         "/spec/extendedResourceName"},
        UnknownFieldCase{"CapacityRequests133",
                         "1.33",
                         "resourceclaims",
                         ExactClaim({{"capacity", {{"requests", {{"memory", "1Gi"}}}}}}),
                         {"spec.devices.requests[0].exactly.capacity"},
                         "/spec/devices/requests/0/exactly/capacity"},
        UnknownFieldCase{"SubrequestCapacity133",
                         "1.33",
                         "resourceclaims",
                         FirstAvailable({Sub("a", {{"capacity", {{"requests", {{"m", "1"}}}}}})}),
                         {"spec.devices.requests[0].firstAvailable[0].capacity"},
                         "",
                         // and firstAvailable is off by default on 1.33
                         {"spec.devices.requests[0]: Required value: exactly one of `exactly` or "
                          "`firstAvailable` is required"}},
        // 1.32's v1beta1 request is flat and has neither firstAvailable nor tolerations.
        UnknownFieldCase{"Tolerations132",
                         "1.32",
                         "resourceclaims",
                         {{"devices",
                           {{"requests",
                             {{{"name", "a"},
                               {"deviceClassName", "gpu.example.com"},
                               {"tolerations", {{{"operator", "Exists"}}}}}}}}}},
                         {"spec.devices.requests[0].tolerations"},
                         "/spec/devices/requests/0/tolerations"},
        UnknownFieldCase{"FirstAvailable132",
                         "1.32",
                         "resourceclaims",
                         FirstAvailable({Sub("s")}),
                         {"spec.devices.requests[0].firstAvailable"},
                         "",
                         {"spec.devices.requests[0].deviceClassName: Required value"}}),
    [](const ::testing::TestParamInfo<UnknownFieldCase>& param_info) {
      return param_info.param.name;
    });

}  // namespace
}  // namespace dra_admission_test
}  // namespace gpuprofile::e2e
