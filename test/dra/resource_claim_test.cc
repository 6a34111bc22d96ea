// File: test/dra/resource_claim_test.cc
#include "controller/dra/resource_claim.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::dra {
namespace resource_claim_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

json Parse(const std::string& text) {
  json out = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(out.is_discarded()) << "bad JSON literal in test:\n" << text;
  return out;
}

// A claim the resourceclaim controller made from a template for pod "trainer-0", allocated by
// the scheduler and reserved for the pod (v1 shape, 1.34+).
constexpr char kAllocatedV1[] = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {
    "name": "trainer-0-gpu-x7k2p", "namespace": "ml", "resourceVersion": "42",
    "creationTimestamp": "2026-11-30T10:00:00Z",
    "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
    "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "trainer-0", "uid": "u1",
                         "controller": true, "blockOwnerDeletion": true}],
    "managedFields": [{"manager": "kube-controller-manager"}]
  },
  "spec": {"devices": {"requests": [
    {"name": "gpu", "exactly": {"deviceClassName": "gpu-profile-large", "count": 2,
                                "selectors": [{"cel": {"expression": "true"}}]}},
    {"name": "fallback", "firstAvailable": [
      {"name": "h100", "deviceClassName": "gpu-profile-h100"},
      {"name": "a100", "deviceClassName": "gpu-profile-a100", "count": 2,
       "capacity": {"requests": {"memory": "10Gi"}}}]}
  ]}},
  "status": {
    "allocation": {"devices": {"results": [
      {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-0"},
      {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-1"},
      {"request": "fallback/a100", "driver": "gpu.nvidia.com", "pool": "node-1",
       "device": "gpu-2", "shareID": "abc", "consumedCapacity": {"memory": "10Gi"}}]},
      "nodeSelector": {"nodeSelectorTerms": []}},
    "reservedFor": [{"resource": "pods", "name": "trainer-0", "uid": "u1"},
                    {"apiGroup": "batch", "resource": "jobs", "name": "j", "uid": "u2"}],
    "someFieldOfANewerRelease": {"x": 1}
  }
})";

TEST(ResourceClaimTest, DecodesTheCompactFormOfAnAllocatedClaim) {
  ASSERT_OK_AND_ASSIGN(ResourceClaim claim, DecodeResourceClaim(Parse(kAllocatedV1)));
  EXPECT_EQ(claim.namespace_name, "ml");
  EXPECT_EQ(claim.name(), "trainer-0-gpu-x7k2p");
  EXPECT_EQ(claim.strings.key(), "ml/trainer-0-gpu-x7k2p");
  EXPECT_EQ(claim.resource_version(), "42");
  ASSERT_TRUE(claim.created().has_value());
  EXPECT_EQ(absl::ToUnixSeconds(*claim.created()), 1796032800);
  EXPECT_FALSE(claim.deleting);
  EXPECT_EQ(claim.owner_pod(), "trainer-0");
  EXPECT_EQ(claim.pod_claim_name, "gpu");
  ASSERT_EQ(claim.requests.size(), 2u);
  EXPECT_EQ(claim.requests[0].name, "gpu");
  EXPECT_THAT(claim.requests[0].device_classes, ElementsAre("gpu-profile-large"));
  EXPECT_TRUE(claim.requests[0].subrequests.empty());
  EXPECT_EQ(claim.requests[0].count, 2);
  EXPECT_FALSE(claim.requests[0].all);
  EXPECT_FALSE(claim.requests[0].requests_capacity);
  EXPECT_THAT(claim.requests[1].device_classes,
              ElementsAre("gpu-profile-h100", "gpu-profile-a100"));
  EXPECT_THAT(claim.requests[1].subrequests, ElementsAre("h100", "a100"));
  EXPECT_EQ(claim.requests[1].count, 1);  // the first subrequest's
  EXPECT_TRUE(claim.requests[1].requests_capacity);
  EXPECT_TRUE(claim.allocated);
  ASSERT_EQ(claim.results.size(), 3u);
  EXPECT_EQ(claim.results[2].request, "fallback/a100");
  EXPECT_EQ(claim.results[2].pool, "node-1");
  EXPECT_EQ(claim.results[2].device, "gpu-2");
  EXPECT_EQ(claim.ClassOfResult(claim.results[0]), "gpu-profile-large");
  EXPECT_EQ(claim.ClassOfResult(claim.results[2]), "gpu-profile-a100");
  EXPECT_EQ(claim.ClassOfResult({"missing", "d", "p", "x"}), "");
  EXPECT_EQ(claim.ClassOfResult({"fallback", "d", "p", "x"}), "");
  EXPECT_THAT(claim.reserved_for_pods, ElementsAre("trainer-0"));
  ASSERT_NE(claim.consumed_capacity, nullptr);
  ASSERT_EQ(claim.consumed_capacity->size(), 1u);
  EXPECT_EQ((*claim.consumed_capacity)[0].result, 2u);
  EXPECT_EQ((*claim.consumed_capacity)[0].name, "memory");
  EXPECT_EQ((*claim.consumed_capacity)[0].amount, *Quantity::Parse("10Gi"));
}

TEST(ResourceClaimTest, DecodesV1beta1RequestsAndAPendingClaim) {
  json obj = Parse(R"({
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "ns", "deletionTimestamp": "2026-11-30T10:00:00Z"},
    "spec": {"devices": {"requests": [
      {"name": "all", "deviceClassName": "gpu-profile-any", "allocationMode": "All"}]}}
  })");
  ASSERT_OK_AND_ASSIGN(ResourceClaim claim, DecodeResourceClaim(obj));
  EXPECT_TRUE(claim.deleting);
  EXPECT_FALSE(claim.created().has_value());
  EXPECT_EQ(claim.owner_pod(), "");
  ASSERT_EQ(claim.requests.size(), 1u);
  EXPECT_TRUE(claim.requests[0].all);
  EXPECT_THAT(claim.requests[0].device_classes, ElementsAre("gpu-profile-any"));
  EXPECT_FALSE(claim.allocated);
  EXPECT_TRUE(claim.results.empty());
}

TEST(ResourceClaimTest, OnlyAControllingPodOwnerIsTheOwningPod) {
  json obj = Parse(kAllocatedV1);
  obj["metadata"]["ownerReferences"] = Parse(R"([
    {"apiVersion": "v1", "kind": "Pod", "name": "not-controller", "uid": "a"},
    {"apiVersion": "apps/v1", "kind": "Pod", "name": "other-group", "uid": "b", "controller": true}
  ])");
  ASSERT_OK_AND_ASSIGN(ResourceClaim claim, DecodeResourceClaim(obj));
  EXPECT_EQ(claim.owner_pod(), "");
}

struct BadClaimCase {
  const char* name;
  const char* patch;  // JSON merge patch applied to kAllocatedV1
  const char* want;
};

class BadClaimTest : public ::testing::TestWithParam<BadClaimCase> {};

TEST_P(BadClaimTest, NamesTheClaimAndTheField) {
  json obj = Parse(kAllocatedV1);
  obj.merge_patch(Parse(GetParam().patch));
  absl::StatusOr<ResourceClaim> claim = DecodeResourceClaim(obj);
  ASSERT_FALSE(claim.ok());
  EXPECT_EQ(claim.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(claim.status().message()), HasSubstr(GetParam().want));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadClaimTest,
    ::testing::Values(
        BadClaimCase{"UnknownVersion", R"({"apiVersion": "resource.k8s.io/v2"})",
                     "ResourceClaim \"ml/trainer-0-gpu-x7k2p\": apiVersion: unsupported value"},
        BadClaimCase{"NoNamespace", R"({"metadata": {"namespace": null}})",
                     "metadata.namespace: required"},
        BadClaimCase{"BadTimestamp", R"({"metadata": {"creationTimestamp": "yesterday"}})",
                     "metadata.creationTimestamp: invalid value \"yesterday\""},
        BadClaimCase{"RequestsNotAList", R"({"spec": {"devices": {"requests": {}}}})",
                     "spec.devices.requests: must be"},
        BadClaimCase{"NeitherExactlyNorFirstAvailable",
                     R"({"spec": {"devices": {"requests": [{"name": "gpu"}]}}})",
                     "spec.devices.requests[0]: exactly one of exactly or firstAvailable"},
        BadClaimCase{"ClassMissing",
                     R"({"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {}}]}}})",
                     "spec.devices.requests[0].exactly.deviceClassName: required"},
        BadClaimCase{"BadMode",
                     R"({"spec": {"devices": {"requests": [{"name": "gpu", "exactly":
                         {"deviceClassName": "c", "allocationMode": "Some"}}]}}})",
                     "allocationMode: unsupported value \"Some\""},
        BadClaimCase{"ZeroCount",
                     R"({"spec": {"devices": {"requests": [{"name": "gpu", "exactly":
                         {"deviceClassName": "c", "count": 0}}]}}})",
                     "spec.devices.requests[0].exactly.count: invalid value \"0\""},
        BadClaimCase{"ResultWithoutDevice",
                     R"({"status": {"allocation": {"devices": {"results": [
                         {"request": "gpu", "driver": "d", "pool": "p"}]}}}})",
                     "status.allocation.devices.results[0].device: required"},
        BadClaimCase{"ConsumedCapacityNotAQuantity",
                     R"({"status": {"allocation": {"devices": {"results": [
                         {"request": "gpu", "driver": "d", "pool": "p", "device": "x",
                          "consumedCapacity": {"memory": "lots"}}]}}}})",
                     "status.allocation.devices.results[0].consumedCapacity.memory: invalid "
                     "value \"lots\": must be a quantity"},
        BadClaimCase{"ReservedForNotObjects", R"({"status": {"reservedFor": ["pod"]}})",
                     "status.reservedFor[0]: must be"}),
    [](const ::testing::TestParamInfo<BadClaimCase>& param) { return param.param.name; });

TEST(ResourceClaimTest, RecognisesClaimsOfEveryResourceVersion) {
  for (const char* version :
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"}) {
    EXPECT_TRUE(IsResourceClaim({{"apiVersion", version}, {"kind", "ResourceClaim"}})) << version;
  }
  EXPECT_FALSE(IsResourceClaim({{"apiVersion", "v1"}, {"kind", "ResourceClaim"}}));
  EXPECT_FALSE(
      IsResourceClaim({{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceClaimTemplate"}}));
  EXPECT_FALSE(IsResourceClaim(json::array()));
}

TEST(ResourceClaimTest, NonObjectsAreErrorsNotCrashes) {
  for (const json& bad : {json(nullptr), json(3), json("claim"), json::array()}) {
    absl::StatusOr<ResourceClaim> claim = DecodeResourceClaim(bad);
    ASSERT_FALSE(claim.ok());
    EXPECT_THAT(std::string(claim.status().message()), HasSubstr("ResourceClaim <unnamed>"));
  }
}

TEST(ClaimSymbolTest, EqualValuesShareOneCopyAndReadAsStrings) {
  std::string pool = "gpu-node-";
  pool += "00042";  // built at run time: not the literal's storage
  ClaimSymbol a(pool);
  ClaimSymbol b("gpu-node-00042");
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == ClaimSymbol("gpu-node-00043"));
  EXPECT_EQ(a, "gpu-node-00042");
  EXPECT_EQ(a, pool);
  EXPECT_EQ(a, absl::string_view("gpu-node-00042"));
  const std::string& read = a;
  EXPECT_EQ(read, "gpu-node-00042");
  EXPECT_TRUE(ClaimSymbol().empty());
  EXPECT_EQ(ClaimSymbol(), ClaimSymbol(""));
  EXPECT_EQ(absl::HashOf(a), absl::HashOf(absl::string_view("gpu-node-00042")));
  EXPECT_TRUE(ClaimSymbol("a") < ClaimSymbol("b"));
}

TEST(ClaimSymbolTest, OneRequestAndOneResultLiveInTheClaim) {
  // The common claim (one request, one class, one result) needs no heap block for them.
  ResourceClaim claim;
  ClaimRequest request;
  request.name = "gpu";
  request.device_classes = {"profile-000"};
  claim.requests.push_back(std::move(request));
  claim.results.push_back(ClaimDeviceResult{"gpu", "gpu.nvidia.com", "node-1", "gpu-0"});
  EXPECT_EQ(claim.requests.capacity(), 1u);
  EXPECT_EQ(claim.requests[0].device_classes.capacity(), 1u);
  EXPECT_EQ(claim.results.capacity(), 1u);
  EXPECT_EQ(claim.ClassOfResult(claim.results[0]), "profile-000");
  claim.reserved_for_pods.push_back("pod-0");
  EXPECT_EQ(claim.reserved_for_pods.capacity(), 1u);
  // The operator holds one per claim of the cluster: a bigger claim costs the benchmark's
  // 30,000 claims its RSS budget (docs/performance.md, "With ResourceClaims (issue 17)").
  EXPECT_LE(sizeof(ResourceClaim), 216u);
}

TEST(ResourceClaimTest, AnOverlongResourceVersionIsAnErrorNotATruncation) {
  json obj = Parse(kAllocatedV1);
  obj["metadata"]["resourceVersion"] = std::string(70000, '7');
  absl::StatusOr<ResourceClaim> claim = DecodeResourceClaim(obj);
  ASSERT_FALSE(claim.ok());
  EXPECT_THAT(std::string(claim.status().message()),
              HasSubstr("ResourceClaim \"ml/trainer-0-gpu-x7k2p\": metadata.resourceVersion: "
                        "invalid value"));
  EXPECT_THAT(std::string(claim.status().message()), HasSubstr("at most 65535 characters"));
}

TEST(ClaimStringsTest, KeepsTheClaimsStringsInOneBlockAndCopies) {
  const ClaimStrings empty;
  EXPECT_EQ(empty.key(), "");
  EXPECT_EQ(empty.name(), "");
  EXPECT_EQ(empty.owner_pod(), "");
  ClaimStrings s("ml", "trainer-0-gpu-x7k2p", "12345", "trainer-0");
  ClaimStrings copy = s;
  EXPECT_EQ(copy.key(), "ml/trainer-0-gpu-x7k2p");
  EXPECT_EQ(copy.name(), "trainer-0-gpu-x7k2p");
  EXPECT_EQ(copy.resource_version(), "12345");
  EXPECT_EQ(copy.owner_pod(), "trainer-0");
  EXPECT_NE(copy.name().data(), s.name().data());  // a copy, not a share
  copy = ClaimStrings("", "c", "", "");
  EXPECT_EQ(copy.key(), "c");  // no namespace: the name alone, as client-go keys it
  EXPECT_EQ(copy.name(), "c");
  EXPECT_EQ(copy.resource_version(), "");
  EXPECT_EQ(s.name(), "trainer-0-gpu-x7k2p");
  copy = s;
  EXPECT_EQ(copy.owner_pod(), "trainer-0");
}

// status.devices (AllocatedDeviceStatus), as a driver reports a device it prepared: the
// conditions are read, data and networkData and unknown fields are ignored.
constexpr char kDeviceStatuses[] = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {"name": "c", "namespace": "ml"},
  "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "g"}}]}},
  "status": {
    "allocation": {"devices": {"results": [
      {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-0"}]}},
    "devices": [
      {"driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-0", "shareID": "s",
       "data": {"anything": [1]}, "networkData": {"interfaceName": "eth1", "ips": ["10.0.0.1/24"]},
       "futureField": 1,
       "conditions": [
         {"type": "Ready", "status": "False", "reason": "PrepareFailed", "message": "m",
          "lastTransitionTime": "2026-12-01T10:00:00Z", "observedGeneration": 2,
          "futureConditionField": "x"}]}]
  }
})";

TEST(ResourceClaimTest, DecodesTheDevicesStatusConditions) {
  ASSERT_OK_AND_ASSIGN(std::vector<AllocatedDeviceStatus> statuses,
                       DecodeClaimDeviceStatuses(Parse(kDeviceStatuses)));
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].driver, "gpu.nvidia.com");
  EXPECT_EQ(statuses[0].pool, "node-1");
  EXPECT_EQ(statuses[0].device, "gpu-0");
  ASSERT_EQ(statuses[0].conditions.size(), 1u);
  EXPECT_EQ(statuses[0].conditions[0].type, "Ready");
  EXPECT_EQ(statuses[0].conditions[0].status, "False");
  EXPECT_EQ(statuses[0].conditions[0].reason, "PrepareFailed");
  EXPECT_EQ(statuses[0].conditions[0].message, "m");
  // The compact claim decodes the same object and keeps none of it.
  EXPECT_TRUE(DecodeResourceClaim(Parse(kDeviceStatuses)).ok());
  ASSERT_OK_AND_ASSIGN(std::vector<AllocatedDeviceStatus> none,
                       DecodeClaimDeviceStatuses(Parse(kAllocatedV1)));
  EXPECT_TRUE(none.empty());
}

TEST(ResourceClaimTest, DevicesStatusOfTheWrongTypeNamesTheClaimAndField) {
  json obj = Parse(kDeviceStatuses);
  obj["status"]["devices"][0]["conditions"][0]["status"] = false;
  obj["status"]["devices"][0]["device"] = 7;
  for (const absl::Status& status :
       {DecodeClaimDeviceStatuses(obj).status(), DecodeResourceClaim(obj).status()}) {
    ASSERT_FALSE(status.ok());
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("ResourceClaim \"ml/c\": status.devices[0].conditions[0].status: must "
                          "be a string"));
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("ResourceClaim \"ml/c\": status.devices[0].device: must be a string"));
  }
  obj = Parse(kDeviceStatuses);
  obj["status"]["devices"] = json::object();
  EXPECT_THAT(std::string(DecodeClaimDeviceStatuses(obj).status().message()),
              HasSubstr("status.devices: must be"));
}

}  // namespace
}  // namespace resource_claim_test
}  // namespace gpuprofile::dra
