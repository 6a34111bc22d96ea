// File: e2e/tests/claim_status_validation_test.cc
// kube-emulator's answer to writes of `resourceclaims/NAME/status` (PUT, merge patch and
// server-side apply), over real HTTP against an emulator per release and --feature-gates, as
// kube-apiserver's status strategy and ValidateResourceClaimStatusUpdate answer them: the causes
// of a 422 in order, what a later GET returns after a 200, and the unknown-field warning or
// strict decoding error of fields the release's types lack.
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "e2e/tests/raw_http_client.h"
#include "e2e/tests/release_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e {
namespace claim_status_validation_test {
namespace {

using nlohmann::json;
using testing::EmulatorProcess;
using testing::RawHttpClient;
using testing::RawResponse;

EmulatorProcess& Emulator(const std::string& kube, const std::string& gates) {
  return testing::SharedEmulator(kube, gates);
}
std::string DraVersion(const std::string& kube) { return testing::NewestDraVersion(kube); }

constexpr char kDriver[] = "gpu.example.com";
constexpr char kResults[] = "status.allocation.devices.results";
using testing::kDnsLabelMessage;
using testing::kDnsSubdomainMessage;
constexpr char kRequestRef[] =
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'";

// The claim's spec in the release's version: request `gpu` (exact) and, from 1.34, `alt` with
// subrequests `big` and `small`.
json ClaimSpec(const std::string& kube) {
  if (kube == "1.32") {
    return {{"devices", {{"requests", {{{"name", "gpu"}, {"deviceClassName", kDriver}}}}}}};
  }
  json requests = {{{"name", "gpu"}, {"exactly", {{"deviceClassName", kDriver}}}}};
  if (kube != "1.33") {
    requests.push_back({{"name", "alt"},
                        {"firstAvailable",
                         {{{"name", "big"}, {"deviceClassName", kDriver}},
                          {{"name", "small"}, {"deviceClassName", kDriver}}}}});
  }
  return {{"devices", {{"requests", requests}}}};
}

json Result(const std::string& device, json extra = json::object()) {
  json r = {{"request", "gpu"}, {"driver", kDriver}, {"pool", "node-1"}, {"device", device}};
  r.update(extra);
  return r;
}

json Allocation(json results) { return {{"devices", {{"results", std::move(results)}}}}; }

json Pod(const std::string& uid) {
  return {{"resource", "pods"}, {"name", "pod-" + uid}, {"uid", uid}};
}

// Allocated (device gpu-0 of node-1) and reserved for one pod.
json Allocated(json extra_result = json::object()) {
  return {{"allocation", Allocation({Result("gpu-0", std::move(extra_result))})},
          {"reservedFor", {Pod("u1")}}};
}

json Pods(size_t n) {
  json out = json::array();
  for (size_t i = 0; i < n; ++i) out.push_back(Pod(absl::StrCat("u", i)));
  return out;
}

json DeviceStatus(const std::string& device, json extra = json::object()) {
  json d = {{"driver", kDriver}, {"pool", "node-1"}, {"device", device}};
  d.update(extra);
  return d;
}

enum class Write { kPut, kMergePatch, kApply };

struct StatusCase {
  std::string name;
  std::string kube;
  std::string gates;
  json before;            // a status stored first (PUT, must be accepted); null: none
  bool deleting = false;  // the claim carries a finalizer and is deleted before the write
  json status;            // the status written
  Write write = Write::kPut;
  std::string query;  // e.g. "fieldValidation=Strict"
  int code = 200;
  // "field: message" of a 422, in order; an entry "A*B" matches any message starting with A and
  // ending with B (for a value printed in full).
  std::vector<std::string> causes;
  std::string message;                               // substring of the Status message of a 400
  std::vector<std::string> warnings;                 // substrings of the Warning header
  std::vector<std::pair<std::string, json>> stored;  // JSON pointer -> value (null: absent)
};

// Test names instead of byte dumps in failure messages.
void PrintTo(const StatusCase& c, std::ostream* os) { *os << c.name; }

StatusCase Accepted(std::string name, std::string kube, std::string gates, json status,
                    std::vector<std::pair<std::string, json>> stored = {}) {
  StatusCase c;
  c.name = std::move(name);
  c.kube = std::move(kube);
  c.gates = std::move(gates);
  c.status = std::move(status);
  c.stored = std::move(stored);
  return c;
}

StatusCase Rejected(std::string name, std::string kube, std::string gates, json status,
                    std::vector<std::string> causes) {
  StatusCase c;
  c.name = std::move(name);
  c.kube = std::move(kube);
  c.gates = std::move(gates);
  c.status = std::move(status);
  c.code = 422;
  c.causes = std::move(causes);
  return c;
}

StatusCase After(json before, StatusCase c) {
  c.before = std::move(before);
  return c;
}

StatusCase Via(Write write, StatusCase c) {
  c.write = write;
  return c;
}

MATCHER_P(CauseIs, want, "") {
  std::vector<std::string> parts = absl::StrSplit(want, absl::MaxSplits('*', 1));
  if (parts.size() == 1) return arg == want;
  return absl::StartsWith(arg, parts[0]) && absl::EndsWith(arg, parts[1]);
}

class ClaimStatusTest : public ::testing::TestWithParam<StatusCase> {};

TEST_P(ClaimStatusTest, AnswersAsKubeApiserver) {
  const StatusCase& c = GetParam();
  EmulatorProcess& emulator = Emulator(c.kube, c.gates);
  ASSERT_TRUE(emulator.ok()) << emulator.Stderr();
  RawHttpClient http(emulator.url());
  const std::string version = DraVersion(c.kube);
  const std::string api_version = "resource.k8s.io/" + version;
  const std::string name = absl::AsciiStrToLower(c.name);
  const std::string path =
      absl::StrCat("/apis/resource.k8s.io/", version, "/namespaces/default/resourceclaims");
  const std::string status_path = absl::StrCat(path, "/", name, "/status");
  json claim = {{"apiVersion", api_version},
                {"kind", "ResourceClaim"},
                {"metadata", {{"name", name}}},
                {"spec", ClaimSpec(c.kube)}};
  if (c.deleting) claim["metadata"]["finalizers"] = {"example.com/hold"};
  RawResponse created = http.Post(path, claim);
  ASSERT_EQ(created.status, 201) << created.body;
  if (!c.before.is_null()) {
    json with = created.Json();
    with["status"] = c.before;
    RawResponse before = http.Put(status_path, with);
    ASSERT_EQ(before.status, 200) << "the status stored first: " << before.body;
  }
  if (c.deleting) {
    RawResponse deleted = http.Delete(absl::StrCat(path, "/", name));
    ASSERT_EQ(deleted.status, 200) << deleted.body;
  }

  const std::string query = c.query.empty() ? "" : "?" + c.query;
  RawResponse r;
  switch (c.write) {
    case Write::kPut: {
      json object = {{"apiVersion", api_version},
                     {"kind", "ResourceClaim"},
                     {"metadata", {{"name", name}}},
                     {"spec", ClaimSpec(c.kube)},
                     {"status", c.status}};
      r = http.Put(status_path + query, object);
      break;
    }
    case Write::kMergePatch:
      r = http.MergePatch(status_path + query, {{"status", c.status}});
      break;
    case Write::kApply: {
      json object = {{"apiVersion", api_version},
                     {"kind", "ResourceClaim"},
                     {"metadata", {{"name", name}}},
                     {"status", c.status}};
      r = http.Request("PATCH",
                       status_path + (query.empty() ? "?" : query + "&") + "fieldManager=test",
                       object.dump(), "application/apply-patch+yaml");
      break;
    }
  }
  ASSERT_EQ(r.status, c.code) << r.body;
  const json body = r.Json();
  if (c.code == 422) {
    EXPECT_EQ(body.value("reason", ""), "Invalid");
    EXPECT_EQ(body["details"].value("kind", ""), "ResourceClaim");
    std::vector<std::string> causes;
    for (const json& cause : body["details"]["causes"]) {
      causes.push_back(absl::StrCat(cause.value("field", ""), ": ", cause.value("message", "")));
    }
    std::vector<::testing::Matcher<std::string>> want;
    for (const std::string& w : c.causes) want.push_back(CauseIs(w));
    EXPECT_THAT(causes, ::testing::ElementsAreArray(want)) << r.body;
  }
  if (c.code == 400) {
    EXPECT_THAT(body.value("message", ""), ::testing::HasSubstr(c.message));
  }
  for (const std::string& w : c.warnings) {
    EXPECT_THAT(r.Header("warning"), ::testing::HasSubstr(w));
  }
  // What a later GET returns, not only the write's answer.
  RawResponse got = http.Get(absl::StrCat(path, "/", name));
  ASSERT_EQ(got.status, 200) << got.body;
  const json stored = got.Json();
  for (const auto& [pointer, want] : c.stored) {
    json::json_pointer p(pointer);
    if (want.is_null()) {
      EXPECT_FALSE(stored.contains(p)) << pointer << " in " << stored.dump();
    } else {
      ASSERT_TRUE(stored.contains(p)) << pointer << " not in " << stored.dump();
      EXPECT_EQ(stored[p], want) << pointer;
    }
  }
  if (c.code != 200 && !c.before.is_null()) {
    EXPECT_EQ(stored["status"], c.before) << "a rejected write changed the status";
  }
}

const std::string kUuid = "0b4ea1d3-5f2c-4b8e-9a43-2d7f1c6e8a90";

StatusCase Strict(StatusCase c) {
  c.query = "fieldValidation=Strict";
  c.code = 400;
  return c;
}

StatusCase Warned(StatusCase c, std::vector<std::string> warnings) {
  c.warnings = std::move(warnings);
  return c;
}

StatusCase Deleting(StatusCase c) {
  c.deleting = true;
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Releases, ClaimStatusTest,
    ::testing::Values(
        // What a scheduler writes, in every release's newest version.
        Accepted("Allocate132", "1.32", "", Allocated(),
                 {{"/status/allocation/devices/results/0/device", "gpu-0"},
                  {"/status/reservedFor/0/uid", "u1"}}),
        Accepted("Allocate133", "1.33", "", Allocated(),
                 {{"/status/allocation/devices/results/0/device", "gpu-0"}}),
        Accepted("Allocate134", "1.34", "", Allocated(),
                 {{"/status/allocation/devices/results/0/device", "gpu-0"}}),
        Accepted("Allocate137", "1.37", "", Allocated(),
                 {{"/status/allocation/devices/results/0/device", "gpu-0"}}),
        // A driver name is checked lower-cased (ValidateCSIDriverName).
        Accepted("UpperCaseDriver", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"driver", "GPU.Example.com"}})})}},
                 {{"/status/allocation/devices/results/0/driver", "GPU.Example.com"}}),
        // A subrequest's result names `request/subrequest`.
        Accepted("Subrequest", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"request", "alt/small"}})})}},
                 {{"/status/allocation/devices/results/0/request", "alt/small"}}),

        // reservedFor.
        Rejected("ReservedWithoutAllocation", "1.34", "", {{"reservedFor", {Pod("u1")}}},
                 {"status.reservedFor: Forbidden: may not be specified when `allocated` is not "
                  "set"}),
        Rejected("ReservedForFields", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"reservedFor", {{{"resource", "pods"}}}}},
                 {"status.reservedFor[0].name: Required value",
                  "status.reservedFor[0].uid: Required value"}),
        // The duplicate is reported at the key up to 1.34, at the entry from 1.35.
        Rejected("DuplicateUid134", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"reservedFor", {Pod("u1"), Pod("u1")}}},
                 {"status.reservedFor[1].uid: Duplicate value: \"u1\""}),
        Rejected("DuplicateUid135", "1.35", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"reservedFor", {Pod("u1"), Pod("u1")}}},
                 {"status.reservedFor[1]: Duplicate value: \"u1\""}),
        // 32 reservations on 1.32, 256 later.
        Rejected("ReservedFor33On132", "1.32", "",
                 {{"allocation", Allocation({Result("gpu-0")})}, {"reservedFor", Pods(33)}},
                 {"status.reservedFor: Too many: 33: must have at most 32 items"}),
        Accepted("ReservedFor33On133", "1.33", "",
                 {{"allocation", Allocation({Result("gpu-0")})}, {"reservedFor", Pods(33)}},
                 {{"/status/reservedFor/32/uid", "u32"}}),
        // 1.32-1.34 report the entries' errors and the limit; 1.35+ the limit alone.
        Rejected("ReservedFor257On134", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"reservedFor", [] {
                     json pods = Pods(257);
                     pods[3].erase("name");
                     return pods;
                   }()}},
                 {"status.reservedFor[3].name: Required value",
                  "status.reservedFor: Too many: 257: must have at most 256 items"}),
        Rejected("ReservedFor257On135", "1.35", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"reservedFor", [] {
                     json pods = Pods(257);
                     pods[3].erase("name");
                     return pods;
                   }()}},
                 {"status.reservedFor: Too many: 257: must have at most 256 items"}),

        // The results of a new allocation.
        Rejected("UnknownRequest132", "1.32", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"request", "nope"}})})}},
                 {absl::StrCat(kResults, "[0].request: Invalid value: \"nope\": must be the name "
                                         "of a request in the claim")}),
        Rejected("UnknownRequest134", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"request", "alt/medium"}})})}},
                 {absl::StrCat(kResults, "[0].request: Invalid value: \"alt/medium\": ",
                               kRequestRef)}),
        Rejected("ThreeSegments", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"request", "a/b/c"}})})}},
                 {absl::StrCat(kResults, "[0].request: Invalid value: \"a/b/c\": ", kRequestRef)}),
        Rejected("BadNames", "1.34", "",
                 {{"allocation", Allocation({Result("GPU-0", {{"driver", "gpu_example"},
                                                              {"pool", "node-1/Rack_2"}})})}},
                 {absl::StrCat(kResults, "[0].driver: Invalid value: \"gpu_example\": ",
                               kDnsSubdomainMessage),
                  absl::StrCat(kResults, "[0].pool: Invalid value: \"Rack_2\": ",
                               kDnsSubdomainMessage),
                  absl::StrCat(kResults, "[0].device: Invalid value: \"GPU-0\": ",
                               kDnsLabelMessage)}),
        // An empty driver name is also an invalid subdomain up to 1.35.
        Rejected("EmptyDriver135", "1.35", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"driver", ""}})})}},
                 {absl::StrCat(kResults, "[0].driver: Required value"),
                  absl::StrCat(kResults, "[0].driver: Invalid value: \"\": ",
                               kDnsSubdomainMessage)}),
        Rejected("EmptyDriver136", "1.36", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"driver", ""}})})}},
                 {absl::StrCat(kResults, "[0].driver: Required value")}),
        Rejected("EmptyPool", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0", {{"pool", ""}})})}},
                 {absl::StrCat(kResults, "[0].pool: Required value")}),
        Rejected("TooManyResults", "1.34", "", {{"allocation", [] {
                                                   json results = json::array();
                                                   for (int i = 0; i < 33; ++i) {
                                                     results.push_back(
                                                         Result(absl::StrCat("gpu-", i)));
                                                   }
                                                   return Allocation(results);
                                                 }()}},
                 {absl::StrCat(kResults, ": Too many: 33: must have at most 32 items")}),
        Rejected("Config", "1.34", "",
                 {{"allocation",
                   {{"devices",
                     {{"results", {Result("gpu-0")}},
                      {"config",
                       {{{"source", "FromDriver"},
                         {"requests", {"gpu", "nope"}},
                         {"opaque", {{"driver", kDriver}, {"parameters", {1, 2}}}}},
                        {{"source", "FromClass"}}}}}}}}},
                 {"status.allocation.devices.config[0].source: Unsupported value: "
                  "\"FromDriver\": supported values: \"FromClaim\", \"FromClass\"",
                  absl::StrCat("status.allocation.devices.config[0].requests[1]: Invalid value: "
                               "\"nope\": ",
                               kRequestRef),
                  "status.allocation.devices.config[0].opaque.parameters: Invalid value: "
                  "\"<value omitted>\": parameters must be a valid JSON object",
                  "status.allocation.devices.config[1].opaque: Required value"}),
        Rejected("NodeSelector", "1.34", "",
                 {{"allocation",
                   {{"devices", {{"results", {Result("gpu-0")}}}},
                    {"nodeSelector", {{"nodeSelectorTerms", json::array()}}}}}},
                 {"status.allocation.nodeSelector.nodeSelectorTerms: Required value: must have "
                  "at least one node selector term"}),
        Rejected("NodeSelectorRequirements", "1.34", "",
                 {{"allocation",
                   {{"devices", {{"results", {Result("gpu-0")}}}},
                    {"nodeSelector",
                     {{"nodeSelectorTerms",
                       {{{"matchExpressions", {{{"key", "zone"}, {"operator", "In"}}}},
                         {"matchFields",
                          {{{"key", "metadata.uid"},
                            {"operator", "In"},
                            {"values", {"node-1"}}}}}}}}}}}}},
                 {"status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0]."
                  "values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                  "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: "
                  "Invalid value: \"metadata.uid\": not a valid field selector key"}),

        // Immutable once allocated; clearing it (with reservedFor) deallocates.
        After(Allocated(),
              Rejected("ChangeAllocation", "1.34", "",
                       {{"allocation", Allocation({Result("gpu-1")})},
                        {"reservedFor", {Pod("u1")}}},
                       {"status.allocation: Invalid value: {*}: field is immutable"})),
        After(Allocated(), Accepted("Deallocate", "1.34", "", json::object(),
                                    {{"/status/allocation", nullptr},
                                     {"/status/reservedFor", nullptr}})),
        After(Allocated(),
              Rejected("ClearAllocationKeepReservation", "1.34", "",
                       {{"reservedFor", {Pod("u1")}}},
                       {"status.reservedFor: Forbidden: may not be specified when `allocated` is "
                        "not set"})),
        // An allocation stored before is not validated again (AddReservation only).
        After({{"allocation", Allocation({Result("gpu-0")})}},
              Accepted("ReserveLater", "1.34", "", Allocated(),
                       {{"/status/reservedFor/0/uid", "u1"}})),
        // A claim being deleted loses reservations but gains none.
        Deleting(After(Allocated(),
                       Rejected("ReserveWhileDeleting", "1.34", "",
                                {{"allocation", Allocation({Result("gpu-0")})},
                                 {"reservedFor", {Pod("u1"), Pod("u2")}}},
                                {"status.reservedFor: Forbidden: new entries may not be added "
                                 "while `deallocationRequested` or `deletionTimestamp` are "
                                 "set"}))),
        Deleting(After(Allocated(), Accepted("UnreserveWhileDeleting", "1.34", "",
                                             {{"allocation", Allocation({Result("gpu-0")})}},
                                             {{"/status/reservedFor", nullptr}}))),

        // status.devices: beta (on) from 1.33, alpha (off) on 1.32.
        Accepted("DeviceStatusDropped132", "1.32", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"devices", {DeviceStatus("gpu-0")}}},
                 {{"/status/devices", nullptr},
                  {"/status/allocation/devices/results/0/device", "gpu-0"}}),
        Accepted("DeviceStatus133", "1.33", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"devices", {DeviceStatus("gpu-0", {{"networkData",
                                                       {{"interfaceName", "eth1"}}}})}}},
                 {{"/status/devices/0/networkData/interfaceName", "eth1"}}),
        Rejected("DeviceStatusNotAllocated", "1.34", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"devices", {DeviceStatus("gpu-0"), DeviceStatus("gpu-9"),
                               DeviceStatus("gpu-0")}}},
                 {"status.devices[1]: Invalid value: gpu.example.com/node-1/gpu-9: must be an "
                  "allocated device in the claim",
                  "status.devices[2].deviceID: Duplicate value: gpu.example.com/node-1/gpu-0"}),
        Rejected("DeviceStatusConditions", "1.35", "",
                 {{"allocation", Allocation({Result("gpu-0")})},
                  {"devices",
                   {DeviceStatus("gpu-0", {{"conditions", {{{"type", "Ready"},
                                                            {"status", "Yes"}}}},
                                           {"data", "text"}})}}},
                 {"status.devices[0].conditions[0].status: Unsupported value: \"Yes\": supported "
                  "values: \"False\", \"True\", \"Unknown\"",
                  "status.devices[0].conditions[0].lastTransitionTime: Required value: must be "
                  "set",
                  "status.devices[0].conditions[0].reason: Required value: must be set",
                  "status.devices[0].data: Invalid value: \"<value omitted>\": must be a valid "
                  "JSON object"}),
        // The status of a device that is no longer allocated goes with the allocation.
        After({{"allocation", Allocation({Result("gpu-0")})},
               {"devices", {DeviceStatus("gpu-0")}}},
              Accepted("DeallocatedDeviceStatusDropped", "1.34", "",
                       {{"devices", {DeviceStatus("gpu-0")}}},
                       {{"/status/devices", nullptr}, {"/status/allocation", nullptr}})),

        // Gated result fields: dropped while the gate is off, kept and validated when on.
        Accepted("AdminAccessDropped133", "1.33", "", Allocated({{"adminAccess", false}}),
                 {{"/status/allocation/devices/results/0/adminAccess", nullptr}}),
        Accepted("AdminAccessKept134", "1.34", "", Allocated({{"adminAccess", false}}),
                 {{"/status/allocation/devices/results/0/adminAccess", false}}),
        Accepted("ShareIdDropped134", "1.34", "", Allocated({{"shareID", kUuid}}),
                 {{"/status/allocation/devices/results/0/shareID", nullptr},
                  {"/status/allocation/devices/results/0/device", "gpu-0"}}),
        Accepted("ShareIdKept134", "1.34", "DRAConsumableCapacity=true",
                 Allocated({{"shareID", kUuid}}),
                 {{"/status/allocation/devices/results/0/shareID", kUuid}}),
        Rejected("ShareIdValidated135", "1.35", "DRAConsumableCapacity=true",
                 {{"allocation", Allocation({Result("gpu-0", {{"shareID", "abc"}}),
                                             Result("gpu-1", {{"shareID", "0B4EA1D3-5F2C-4B8E-"
                                                                          "9A43-2D7F1C6E8A90"}})})}},
                 {absl::StrCat(kResults, "[0].shareID: Invalid value: \"abc\": error validating "
                                         "uid: invalid UUID length: 3"),
                  absl::StrCat(kResults,
                               "[1].shareID: Invalid value: \"0B4EA1D3-5F2C-4B8E-9A43-"
                               "2D7F1C6E8A90\": uid must be in RFC 4122 normalized form, "
                               "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                               "hexadecimal characters")}),
        Accepted("ShareIdOn136", "1.36", "", Allocated({{"shareID", kUuid}}),
                 {{"/status/allocation/devices/results/0/shareID", kUuid}}),
        Accepted("BindingConditionsDropped134", "1.34", "",
                 Allocated({{"bindingConditions", {"example.com/ready"}}}),
                 {{"/status/allocation/devices/results/0/bindingConditions", nullptr}}),
        Rejected("BindingConditions136", "1.36", "",
                 {{"allocation",
                   Allocation({Result("gpu-0", {{"bindingConditions", {"a", "a"}}}),
                               Result("gpu-1", {{"bindingConditions", {"b"}},
                                                {"bindingFailureConditions", {"b"}}})})}},
                 {absl::StrCat(kResults, "[0].bindingConditions[1]: Duplicate value: \"a\""),
                  absl::StrCat(kResults,
                               "[0].bindingFailureConditions: Invalid value: []string(nil): "
                               "bindingFailureConditions are required to use bindingConditions"),
                  absl::StrCat(kResults,
                               "[1].bindingFailureConditions[0]: Invalid value: \"b\": "
                               "bindingFailureConditions must not overlap with "
                               "bindingConditions")}),

        // A result's tolerations (1.33+) are validated in 1.37 as a request's are.
        Rejected("ResultTolerations137", "1.37", "",
                 {{"allocation",
                   Allocation({Result("gpu-0", {{"tolerations",
                                                 {{{"operator", "Exists"}, {"value", "x"}},
                                                  {{"operator", "Equal"}, {"effect", "Later"}}}}})})}},
                 {absl::StrCat(kResults, "[0].tolerations[0].value: Invalid value: \"x\": must be "
                                         "empty for operator `Exists`"),
                  absl::StrCat(kResults, "[0].tolerations[1].effect: Unsupported value: \"Later\": "
                                         "supported values: \"NoExecute\", \"NoSchedule\", "
                                         "\"None\"")}),

        // Fields the release's types do not have: a warning, or 400 under Strict.
        Warned(Accepted("ShareIdUnknown133", "1.33", "", Allocated({{"shareID", kUuid}}),
                        {{"/status/allocation/devices/results/0/shareID", nullptr},
                         {"/status/allocation/devices/results/0/device", "gpu-0"}}),
               {"unknown field \\\"status.allocation.devices.results[0].shareID\\\""}),
        [] {
          StatusCase c = Strict(Accepted("ShareIdStrict133", "1.33", "",
                                         Allocated({{"shareID", kUuid}}),
                                         {{"/status/allocation", nullptr}}));
          c.message = "strict decoding error: unknown field "
                      "\"status.allocation.devices.results[0].shareID\"";
          return c;
        }(),
        Warned(Accepted("TolerationsUnknown132", "1.32", "",
                        Allocated({{"tolerations", {{{"operator", "Exists"}}}}}),
                        {{"/status/allocation/devices/results/0/tolerations", nullptr}}),
               {"unknown field \\\"status.allocation.devices.results[0].tolerations\\\""}),

        // Merge patch and server-side apply of /status take the same path.
        Via(Write::kMergePatch,
            Rejected("MergePatch", "1.34", "", {{"reservedFor", {Pod("u1")}}},
                     {"status.reservedFor: Forbidden: may not be specified when `allocated` is "
                      "not set"})),
        Via(Write::kApply,
            Rejected("Apply", "1.34", "",
                     {{"allocation", Allocation({Result("gpu-0", {{"request", "nope"}})})}},
                     {absl::StrCat(kResults, "[0].request: Invalid value: \"nope\": ",
                                   kRequestRef)})),
        Via(Write::kApply, Accepted("ApplyAllocated", "1.34", "", Allocated(),
                                    {{"/status/reservedFor/0/uid", "u1"}}))),
    [](const ::testing::TestParamInfo<StatusCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace claim_status_validation_test
}  // namespace gpuprofile::e2e
