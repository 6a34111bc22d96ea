// File: e2e/tests/allocation_accounting_story_test.cc
// Issue 26's scene end to end on Kubernetes 1.37 ("Allocation truth, exact"): every matched
// device accounted for, with the scheduler's arithmetic, and the same numbers in four places.
//
// The fleet (mig_scene_fleet.h): two A100-SXM4-80GB with DynamicMIG (counters-only slice plus
// devices slice per GPU), four H100 of which one carries the driver's XID 79 health taint, two
// L40S shared through consumable capacity. kube-emulator runs no scheduler, so the test writes
// what it would (story_cluster.h): a 1g.10gb MIG placement allocated on each A100, three training
// claims on the untainted H100s, one training claim pending, one l40s-shared claim holding 16Gi
// of the first L40S (9Gi asked, rounded up to the requestPolicy's 8Gi steps).
//
// The arithmetic (docs/design.md §3, the allocation status):
//   training (6 whole GPUs: 2 A100 + 4 H100): 3 allocated (the H100s), 1 tainted (XID 79), 2
//     blocked by counters (each A100's allocated placement holds memorySlice0, which the whole
//     GPU needs), 0 free; 1 pending claim.
//   mig-small (14 placements): 2 allocated, 12 free (the six other placements of each GPU fit
//     together in what the allocated one leaves: 6 x 14 of 84 multiprocessors, one memory slice
//     each).
//   l40s-shared (2 L40S): 48Gi / 16Gi = 3 claims per device, 6 in all; 5 free (one holds 16Gi).
// The four places: the operator's GpuProfile status (kubectl get -o json), `render` on the same
// objects, `explain gpuprofile/training` live and offline (its account line). Then `explain pod`
// for the pending training pod (the counter set and the claims holding the MIG placements, and
// what XID 79 means), and the node groups (blocked, unhealthy). Every wait polls with a deadline.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "e2e/tests/mig_scene_fleet.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/story_cluster.h"
#include "e2e/tests/story_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace allocation_accounting_story_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kKube[] = "1.37";
constexpr char kNs[] = "ml-train";
constexpr char kPendingPod[] = "train-pending";
// explain's exit code when it found a cause (docs/design.md §5.1).
constexpr int kCause = 3;
// The seven states of a matched device (status.allocation.deviceStates).
const char* const kStates[] = {"free",    "overlapping",    "allocated",  "blockedByCounters",
                               "tainted", "incompletePool", "unavailable"};

// Named counts of one profile or node group in one place: "matchedDevices", "deviceStates.free",
// "allocation.freeDevices", ... Absent keys were not reported there.
using Counts = std::map<std::string, int64_t>;

// The counts a GpuProfile's status reports (live, or as `render` prints it).
Counts FromProfileStatus(const json& status) {
  Counts c;
  auto take = [&](const json& object, const std::string& key, const std::string& as) {
    if (object.is_object() && object.contains(key) && object[key].is_number_integer()) {
      c[as] = object[key].get<int64_t>();
    }
  };
  take(status, "matchedDevices", "matchedDevices");
  take(status, "schedulableClaims", "schedulableClaims");
  const json allocation = status.value("allocation", json::object());
  for (const char* k : {"freeDevices", "allocatedDevices", "pendingClaims", "freeClaims"}) {
    take(allocation, k, absl::StrCat("allocation.", k));
  }
  const json states = allocation.value("deviceStates", json::object());
  for (const char* s : kStates) take(states, s, absl::StrCat("deviceStates.", s));
  return c;
}

// The words of explain's account line ("6 devices match: 0 free, 3 allocated, 2 blocked by
// counters, 1 tainted") as a state; "" when they name none.
std::string StateOfWords(absl::string_view words) {
  if (absl::StrContains(words, "blocked")) return "blockedByCounters";
  if (absl::StrContains(words, "incomplete")) return "incompletePool";
  for (const char* s : {"free", "overlapping", "allocated", "tainted", "unavailable"}) {
    if (absl::StartsWith(words, s)) return s;
  }
  return "";
}

// The counts of explain's account ("6 devices match: 0 free, 3 allocated, ..."), which a
// finding's message carries on its own or in parentheses, in `text`: matchedDevices and every
// state (a state the account does not name is 0). Empty when there is no account.
Counts FromAccountLine(const std::string& text) {
  for (const std::string marker : {" devices match: ", " device matches: "}) {
    const size_t at = text.find(marker);
    if (at == std::string::npos) continue;
    const size_t start = text.find_last_not_of("0123456789", at - 1) + 1;
    int64_t matched = 0;
    if (!absl::SimpleAtoi(absl::string_view(text).substr(start, at - start), &matched)) continue;
    Counts c = {{"matchedDevices", matched}};
    for (const char* s : kStates) c[absl::StrCat("deviceStates.", s)] = 0;
    absl::string_view rest = absl::string_view(text).substr(at + marker.size());
    rest = rest.substr(0, std::min(rest.find_first_of(")\n"), rest.size()));
    for (absl::string_view part : absl::StrSplit(rest, ',')) {
      part = absl::StripAsciiWhitespace(absl::StripSuffix(absl::StripAsciiWhitespace(part), "."));
      int64_t n = 0;
      const size_t space = part.find(' ');
      if (space == absl::string_view::npos || !absl::SimpleAtoi(part.substr(0, space), &n)) {
        continue;
      }
      const std::string state = StateOfWords(part.substr(space + 1));
      if (!state.empty()) c[absl::StrCat("deviceStates.", state)] = n;
    }
    return c;
  }
  return {};
}

// What `got` (the counts of `subject` in `place`) gets wrong of `want`, one line per key, naming
// the place and the state; and whether the device states there add up to matchedDevices.
std::vector<std::string> Mismatches(const std::string& place, const std::string& subject,
                                    const Counts& want, const Counts& got) {
  std::vector<std::string> out;
  for (const auto& [key, value] : want) {
    auto it = got.find(key);
    if (it == got.end()) {
      out.push_back(absl::StrCat(place, ", ", subject, ": ", key, " missing (want ", value, ")"));
    } else if (it->second != value) {
      out.push_back(
          absl::StrCat(place, ", ", subject, ": ", key, " is ", it->second, ", want ", value));
    }
  }
  int64_t sum = 0;
  bool any = false;
  for (const char* s : kStates) {
    auto it = got.find(absl::StrCat("deviceStates.", s));
    if (it == got.end()) continue;
    sum += it->second;
    any = true;
  }
  auto matched = got.find("matchedDevices");
  if (any && matched != got.end() && sum != matched->second) {
    out.push_back(absl::StrCat(place, ", ", subject, ": the device states add up to ", sum,
                               ", not matchedDevices ", matched->second));
  }
  return out;
}

// `want` less what explain's account line does not carry (the allocation's own counts).
Counts DeviceStatesOf(const Counts& want) {
  Counts c;
  for (const auto& [key, value] : want) {
    if (key == "matchedDevices" || absl::StartsWith(key, "deviceStates.")) c[key] = value;
  }
  return c;
}

// The profiles' counts the scene must give (see the file comment).
std::map<std::string, Counts> WantProfiles() {
  auto with_states = [](Counts c, std::map<std::string, int64_t> nonzero) {
    for (const char* s : kStates) c[absl::StrCat("deviceStates.", s)] = nonzero[s];
    return c;
  };
  return {
      {"training", with_states({{"matchedDevices", 6},
                                {"allocation.freeDevices", 0},
                                {"allocation.allocatedDevices", 3},
                                {"allocation.pendingClaims", 1}},
                               {{"allocated", 3}, {"blockedByCounters", 2}, {"tainted", 1}})},
      {"mig-small", with_states({{"matchedDevices", 14},
                                 {"allocation.freeDevices", 12},
                                 {"allocation.allocatedDevices", 2},
                                 {"allocation.pendingClaims", 0}},
                                {{"free", 12}, {"allocated", 2}})},
      {"l40s-shared", with_states({{"matchedDevices", 2},
                                   {"schedulableClaims", 6},
                                   {"allocation.freeClaims", 5},
                                   {"allocation.freeDevices", 1},
                                   {"allocation.allocatedDevices", 1},
                                   {"allocation.pendingClaims", 0}},
                                  {{"free", 1}, {"allocated", 1}})},
  };
}

// The node groups' counts, each group found by its product and device type.
struct WantGroup {
  std::string product, device_type;
  Counts counts;
};
std::vector<WantGroup> WantGroups() {
  return {{"NVIDIA H100 80GB HBM3",
           "gpu",
           {{"devices", 4},
            {"allocatedDevices", 3},
            {"freeDevices", 0},
            {"taintedDevices", 1},
            {"unhealthyDevices", 1},
            {"blockedDevices", 0}}},
          {"NVIDIA A100-SXM4-80GB",
           "gpu",
           {{"devices", 2}, {"allocatedDevices", 0}, {"freeDevices", 0}, {"blockedDevices", 2}}},
          {"NVIDIA A100-SXM4-80GB",
           "mig",
           {{"devices", 14}, {"allocatedDevices", 2}, {"freeDevices", 12}, {"blockedDevices", 0}}},
          {"NVIDIA L40S", "gpu", {{"devices", 2}, {"unhealthyDevices", 0}}}};
}

Counts FromGroupStatus(const json& status) {
  Counts c;
  for (const auto& [key, value] : status.items()) {
    if (value.is_number_integer()) c[key] = value.get<int64_t>();
  }
  return c;
}

// What `groups` (GpuNodeGroup objects) in `place` get wrong of WantGroups().
std::vector<std::string> GroupMismatches(const std::string& place,
                                         const std::vector<json>& groups) {
  std::vector<std::string> out;
  for (const WantGroup& w : WantGroups()) {
    const std::string subject = absl::StrCat("node group of ", w.product, " (", w.device_type, ")");
    const json* found = nullptr;
    for (const json& g : groups) {
      const json status = g.value("status", json::object());
      if (status.value("productName", "") == w.product &&
          status.value("deviceType", "gpu") == w.device_type) {
        found = &g;
      }
    }
    if (found == nullptr) {
      out.push_back(absl::StrCat(place, ": no ", subject));
      continue;
    }
    for (std::string& m : Mismatches(place, subject, w.counts,
                                     FromGroupStatus(found->value("status", json::object())))) {
      out.push_back(std::move(m));
    }
  }
  return out;
}

// The items of kind `kind` in a JSON List (what `kubectl get -o json` and `render -o json` print).
std::vector<json> ItemsOfKind(const std::string& list_text, const std::string& kind) {
  std::vector<json> out;
  json list = json::parse(list_text, nullptr, /*allow_exceptions=*/false);
  if (list.is_discarded()) return out;
  for (const json& item : list.value("items", json::array())) {
    if (item.value("kind", "") == kind) out.push_back(item);
  }
  return out;
}

// What of `sent` is not in `stored` as sent (fields the server dropped or changed), as paths.
void DroppedFields(const json& sent, const json& stored, const std::string& path,
                   std::vector<std::string>* out) {
  if (sent.is_object() && stored.is_object()) {
    for (const auto& [key, value] : sent.items()) {
      if (!stored.contains(key)) {
        out->push_back(absl::StrCat(path, ".", key, " dropped"));
      } else {
        DroppedFields(value, stored[key], absl::StrCat(path, ".", key), out);
      }
    }
  } else if (sent.is_array() && stored.is_array() && sent.size() == stored.size()) {
    for (size_t i = 0; i < sent.size(); ++i) {
      DroppedFields(sent[i], stored[i], absl::StrCat(path, "[", i, "]"), out);
    }
  } else if (sent != stored) {
    out->push_back(absl::StrCat(path, ": sent ", sent.dump(), ", stored ", stored.dump()));
  }
}

class AllocationAccountingStoryTest : public ::testing::Test, public StoryCluster {
 protected:
  void TearDown() override { StopStory(HasFailure()); }

  void StartEmulator() {
    kubeconfig_ = scratch_.File("kubeconfig");
    emulator_ = std::make_unique<EmulatorProcess>(std::vector<std::string>{
        "--kube-version", kKube, "-f", Src("crds"), "--kubeconfig-out", kubeconfig_});
    ASSERT_TRUE(emulator_->ok()) << emulator_->Stderr();
    api_ = AdminClient(*emulator_, kubeconfig_);
  }

  void StartOperator() {
    op_ = std::make_unique<OperatorProcess>(OperatorTestFlags(kubeconfig_),
                                            scratch_.File("operator.log"));
    ASSERT_TRUE(op_->Start());
  }

  // The fleet through the API (admission and decoding as a 1.37 API server's): every field the
  // driver publishes must be stored as sent.
  void CreateFleet() {
    for (const json& node : MigSceneNodes()) ASSERT_FALSE(Create(kNodes, node).is_null());
    for (const json& slice : MigSceneSlices()) {
      json stored = Create(absl::StrCat(kDraV1, "/resourceslices"), slice);
      ASSERT_FALSE(stored.is_null()) << Name(slice);
      std::vector<std::string> dropped;
      DroppedFields(slice["spec"], stored["spec"], "spec", &dropped);
      EXPECT_THAT(dropped, IsEmpty()) << Name(slice);
    }
  }

  // A user's pod from `tmpl` and its claim; allocated to `devices` unless they are empty.
  // Returns the claim as stored.
  json PodWithClaim(const std::string& pod_name, const std::string& tmpl,
                    const std::vector<AllocatedDevice>& devices) {
    json pod = UserPod(kNs, pod_name, tmpl);
    json claim = ClaimFor(&pod, tmpl);
    EXPECT_FALSE(claim.is_null()) << pod_name;
    if (claim.is_null() || devices.empty()) return claim;
    return Allocate(claim, &pod, devices);
  }

  ControllerResult Explain(std::vector<std::string> args) {
    return RunExplain(std::move(args), kKube, {});
  }
};

TEST_F(AllocationAccountingStoryTest, EveryMatchedDeviceAccountedForInFourPlaces) {
  kubectl_ = PinnedKubectl("kubectl.1.33");
  if (kubectl_.empty()) GTEST_SKIP() << "kubectl (kubectl.1.33) is not installed";

  // 1. The fleet, the namespace, the profiles, the operator.
  ASSERT_NO_FATAL_FAILURE(StartEmulator());
  ASSERT_FALSE(Create(kNamespaces,
                      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNs}}}})
                   .is_null());
  ASSERT_NO_FATAL_FAILURE(CreateFleet());
  for (const json& p : MigSceneProfiles(kNs)) ASSERT_FALSE(Create(kProfiles, p).is_null());
  ASSERT_NO_FATAL_FAILURE(StartOperator());
  ASSERT_TRUE(Eventually([&] {
    for (const char* t : {"training", "mig-small", "l40s-shared"}) {
      if (Get(absl::StrCat(kDraV1, "/namespaces/", kNs, "/resourceclaimtemplates/", t)).is_null() ||
          !ConditionIs(t, "Ready", "True")) {
        return false;
      }
    }
    return true;
  })) << "the operator did not converge: "
      << ProfileStatus("l40s-shared").dump();

  // 2. What the scheduler allocated: a 1g.10gb placement on each A100 (memory slice 0), three
  // training claims on the untainted H100s, 16Gi of the first L40S (9Gi rounded up to the 8Gi
  // steps); one training claim pending.
  std::vector<std::string> mig_claims;
  for (int n = 1; n <= 2; ++n) {
    json claim = PodWithClaim(absl::StrCat("notebook-", n), "mig-small",
                              {{absl::StrCat("a100-node-", n), MigPlacement(0)}});
    ASSERT_FALSE(claim.is_null());
    mig_claims.push_back(Key(claim));
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(PodWithClaim(absl::StrCat("train-", i), "training",
                              {{"h100-node-1", absl::StrCat("gpu-", i)}})
                     .is_null());
  }
  ASSERT_FALSE(PodWithClaim(kPendingPod, "training", {}).is_null());
  const json share = {{"shareID", "7c1f3a52-9d0e-4b6a-8f21-3e5d7a9b0c14"},
                      {"consumedCapacity", {{"memory", "16Gi"}}}};
  json shared = PodWithClaim("embed-0", "l40s-shared", {{"l40s-node-1", "gpu-0", share}});
  ASSERT_FALSE(shared.is_null());
  // A 1.37 API server keeps what the scheduler writes for a shared device.
  std::vector<std::string> dropped;
  DroppedFields(share, shared["status"]["allocation"]["devices"]["results"][0],
                "status.allocation.devices.results[0]", &dropped);
  EXPECT_THAT(dropped, IsEmpty());

  // 3. The operator converged on what it reports today (the matched and allocated counts).
  std::string last;
  EXPECT_TRUE(Eventually([&] {
    for (const auto& [profile, want] : WantProfiles()) {
      const Counts got = FromProfileStatus(ProfileStatus(profile));
      for (const char* k :
           {"matchedDevices", "allocation.allocatedDevices", "allocation.pendingClaims"}) {
        auto it = got.find(k);
        if (it == got.end() || it->second != want.at(k)) {
          last = absl::StrCat(profile, ": ", ProfileStatus(profile).dump());
          return false;
        }
      }
    }
    return true;
  })) << last;

  // 4. The four places. Live: the profiles as kubectl prints them.
  std::map<std::string, std::map<std::string, Counts>> places;  // place -> profile -> counts
  for (const json& p :
       ItemsOfKind(Kubectl({"get", "gpuprofiles", "-o", "json"}).out, "GpuProfile")) {
    places["live status"][Name(p)] = FromProfileStatus(p.value("status", json::object()));
  }
  // Offline: the same objects as `kubectl get -o yaml` prints them (pods apart: render takes none).
  scratch_.Write(
      "objects.yaml",
      Kubectl({"get", "gpuprofiles,namespaces,resourceslices,resourceclaims", "-A", "-o", "yaml"})
          .out);
  scratch_.Write("pods.yaml", Kubectl({"get", "pods", "-A", "-o", "yaml"}).out);
  const std::vector<std::string> offline = {"-f", scratch_.File("objects.yaml"), "-f",
                                            scratch_.File("pods.yaml")};
  ControllerResult render = RunController(
      {"render", "-f", scratch_.File("objects.yaml"), "--kube-version", kKube, "-o", "json"},
      kCommandDeadline);
  EXPECT_EQ(render.exit_code, 0) << render.err;
  for (const json& p : ItemsOfKind(render.out, "GpuProfile")) {
    places["render"][Name(p)] = FromProfileStatus(p.value("status", json::object()));
  }
  // explain gpuprofile/training's account line, live and offline.
  const std::vector<std::pair<std::string, std::vector<std::string>>> explain_places = {
      {"explain live", {"--kubeconfig", kubeconfig_}}, {"explain offline", offline}};
  for (const auto& [place, where] : explain_places) {
    std::vector<std::string> args = {"gpuprofile/training"};
    args.insert(args.end(), where.begin(), where.end());
    ControllerResult r = Explain(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == kCause) << place << ": " << r.err;
    places[place]["training"] = FromAccountLine(r.out);
    if (places[place]["training"].empty()) ADD_FAILURE() << place << ": no account line\n" << r.out;
  }

  std::vector<std::string> mismatches;
  for (const auto& [profile, want] : WantProfiles()) {
    for (const char* place : {"live status", "render"}) {
      for (std::string& m : Mismatches(place, profile, want, places[place][profile])) {
        mismatches.push_back(std::move(m));
      }
    }
  }
  for (const auto& [place, where] : explain_places) {
    for (std::string& m : Mismatches(place, "training", DeviceStatesOf(WantProfiles()["training"]),
                                     places[place]["training"])) {
      mismatches.push_back(std::move(m));
    }
  }
  EXPECT_THAT(mismatches, IsEmpty()) << absl::StrJoin(mismatches, "\n");

  // 5. The node groups, live and as render prints them.
  std::vector<std::string> group_mismatches = GroupMismatches(
      "live", ItemsOfKind(Kubectl({"get", "gpunodegroups", "-o", "json"}).out, "GpuNodeGroup"));
  for (std::string& m : GroupMismatches("render", ItemsOfKind(render.out, "GpuNodeGroup"))) {
    group_mismatches.push_back(std::move(m));
  }
  EXPECT_THAT(group_mismatches, IsEmpty()) << absl::StrJoin(group_mismatches, "\n");

  // 6. Why the pending training pod waits, live and offline: the A100s are blocked by the
  // counters the MIG placements use (the counter set and the claims holding them named), the
  // tainted H100 has fallen off the bus (XID 79), the others are allocated.
  for (const auto& [place, where] : explain_places) {
    SCOPED_TRACE(place);
    std::vector<std::string> args = {absl::StrCat("pod/", kPendingPod), "-n", kNs, "-o", "json"};
    args.insert(args.end(), where.begin(), where.end());
    ControllerResult r = Explain(args);
    EXPECT_EQ(r.exit_code, kCause) << r.err << r.out;
    json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
    EXPECT_EQ(j.value("result", ""), "CauseFound");
    const json findings = j.value("findings", json::array());
    ASSERT_FALSE(findings.empty()) << r.out;
    EXPECT_THAT(
        findings[0].value("code", ""),
        ::testing::AnyOf("DevicesBlockedByCounters", "AllDevicesAllocated", "DevicesTainted"))
        << r.out;
    json blocked;
    for (const json& f : findings) {
      if (f.value("code", "") == "DevicesBlockedByCounters") blocked = f;
    }
    if (blocked.is_null()) {
      ADD_FAILURE() << "no DevicesBlockedByCounters finding: " << r.out;
    } else {
      EXPECT_EQ(blocked.value("severity", ""), "Cause") << blocked.dump();
      EXPECT_THAT(blocked.dump(), HasSubstr(kCounterSetName));
      for (const std::string& claim : mig_claims) EXPECT_THAT(blocked.dump(), HasSubstr(claim));
    }
    EXPECT_THAT(r.out, HasSubstr("fallen off the bus"));
    EXPECT_THAT(r.out, HasSubstr(kXidTaintKey));
  }
}

}  // namespace
}  // namespace allocation_accounting_story_test
}  // namespace gpuprofile::e2e::testing
