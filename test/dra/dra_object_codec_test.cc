// File: test/dra/dra_object_codec_test.cc
#include "controller/dra/dra_object_codec.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::dra {
namespace dra_object_codec_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr DraApiVersion kAllVersions[] = {DraApiVersion::kV1beta1, DraApiVersion::kV1beta2,
                                          DraApiVersion::kV1};

KubeVersion Kube(int minor) { return KubeVersion{minor, KubeVersion::kLatestPatch}; }

json Parse(const std::string& text) {
  json out = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(out.is_discarded()) << "bad JSON literal in test:\n" << text;
  return out;
}

ordered_json ParseOrdered(const std::string& text) {
  ordered_json out = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(out.is_discarded()) << "bad JSON literal in test:\n" << text;
  return out;
}

// What a server or a file would hand the decoder.
json ToJson(const ordered_json& value) { return Parse(value.dump()); }

meta::OwnerReference ProfileOwner() {
  meta::OwnerReference ref;
  ref.api_version = "gpuprofile.io/v1alpha1";
  ref.kind = "GpuProfile";
  ref.name = "large-mem";
  ref.uid = "6f0c1c7e-0000-4000-8000-000000000001";
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

void AddServerFields(meta::ObjectMeta* meta) {
  meta->uid = "0b7d9a2e-0000-4000-8000-0000000000aa";
  meta->resource_version = "4711";
  meta->generation = 3;
  meta->creation_timestamp = "2025-01-02T03:04:05Z";
  meta->owner_references = {ProfileOwner()};
}

DeviceClass SampleClass() {
  DeviceClass c;
  c.metadata.name = "gpuprofile-large-mem";
  c.metadata.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                       {"gpuprofile.io/profile", "large-mem"}};
  c.selectors = {
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"};
  OpaqueDeviceConfig config;
  config.driver = "gpu.nvidia.com";
  config.parameters =
      Parse(R"({"kind": "GpuConfig", "apiVersion": "resource.nvidia.com/v1beta1"})");
  c.config = {config};
  c.extended_resource_name = "example.com/large-mem";
  AddServerFields(&c.metadata);
  return c;
}

ExactDeviceRequest Request(const std::string& name, const std::string& mode,
                           std::optional<int64_t> count) {
  ExactDeviceRequest r;
  r.name = name;
  r.device_class_name = "gpuprofile-large-mem";
  r.allocation_mode = mode;
  r.count = count;
  return r;
}

ResourceClaimTemplate SampleTemplate() {
  ResourceClaimTemplate t;
  t.metadata.name = "large-memory";
  t.metadata.namespace_name = "ml-train";
  t.metadata.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                       {"gpuprofile.io/profile", "large-mem"}};
  t.claim_labels = {{"gpuprofile.io/profile", "large-mem"}};
  t.requests = {Request("gpu", "ExactCount", 2)};
  OpaqueDeviceConfig config;
  config.driver = "gpu.nvidia.com";
  config.parameters = Parse(R"({"sharing": {"strategy": "TimeSlicing"}})");
  config.requests = {"gpu"};
  t.config = {config};
  AddServerFields(&t.metadata);
  return t;
}

Quantity Q(const char* text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text;
  return q.value_or(Quantity());
}

DeviceToleration Toleration(const std::string& key, const std::string& op, const std::string& value,
                            const std::string& effect,
                            std::optional<int64_t> seconds = std::nullopt) {
  DeviceToleration t;
  t.key = key;
  t.op = op;
  t.value = value;
  t.effect = effect;
  t.toleration_seconds = seconds;
  return t;
}

ExactDeviceRequest Subrequest(const std::string& name, const std::string& device_class,
                              const std::string& mode, std::optional<int64_t> count) {
  ExactDeviceRequest r = Request(name, mode, count);
  r.device_class_name = device_class;
  return r;
}

// Issue 14's request shapes: an exact request with tolerations (and capacity requests), and a
// firstAvailable request ("H100, else A100, else any") whose subrequests carry their own.
ResourceClaimTemplate NewFieldsTemplate(bool with_capacity) {
  ResourceClaimTemplate t = SampleTemplate();
  t.config.clear();
  ExactDeviceRequest& gpu = t.requests[0];
  gpu.tolerations = {
      Toleration("gpu.nvidia.com/maintenance", "Exists", "", "NoExecute", 300),
      Toleration("example.com/pool", "", "batch", "NoSchedule")};  // operator unset: Equal
  if (with_capacity) gpu.capacity_requests = {{"memory", Q("10Gi")}, {"shares", Q("2")}};

  ExactDeviceRequest fallback;
  fallback.name = "fallback";
  fallback.first_available = {Subrequest("h100", "gpuprofile-h100", "ExactCount", 2),
                              Subrequest("a100", "gpuprofile-a100", "All", std::nullopt),
                              Subrequest("any", "gpuprofile-any", "", std::nullopt)};
  fallback.first_available[0].selectors = {"device.attributes['gpu.nvidia.com'].type == 'gpu'"};
  fallback.first_available[0].tolerations = {Toleration("", "Exists", "", "")};
  if (with_capacity) fallback.first_available[0].capacity_requests = {{"memory", Q("40Gi")}};
  t.requests.push_back(fallback);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Exact JSON per version

void ExpectJson(const ordered_json& got, const std::string& want) {
  EXPECT_EQ(got.dump(2), ParseOrdered(want).dump(2));
}

TEST(EncodeDeviceClassTest, V1beta1On132) {
  ExpectJson(EncodeDeviceClass(SampleClass(), DraApiVersion::kV1beta1, Kube(32), false), R"({
    "apiVersion": "resource.k8s.io/v1beta1",
    "kind": "DeviceClass",
    "metadata": {
      "name": "gpuprofile-large-mem",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"}
    },
    "spec": {
      "selectors": [
        {"cel": {"expression": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}},
        {"cel": {"expression": "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"}}
      ],
      "config": [
        {"opaque": {"driver": "gpu.nvidia.com",
                    "parameters": {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig"}}}
      ]
    }
  })");
}

TEST(EncodeDeviceClassTest, V1beta2On133) {
  DeviceClass c = SampleClass();
  c.config.clear();
  c.selectors.resize(1);
  ExpectJson(EncodeDeviceClass(c, DraApiVersion::kV1beta2, Kube(33), false), R"({
    "apiVersion": "resource.k8s.io/v1beta2",
    "kind": "DeviceClass",
    "metadata": {
      "name": "gpuprofile-large-mem",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"}
    },
    "spec": {
      "selectors": [
        {"cel": {"expression": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}
      ]
    }
  })");
}

TEST(EncodeDeviceClassTest, V1On134WithServerFields) {
  DeviceClass c = SampleClass();
  c.config.clear();
  c.selectors.resize(1);
  c.metadata.finalizers = {"example.com/keep"};
  c.metadata.annotations = {{"note", "x"}};
  ExpectJson(EncodeDeviceClass(c, DraApiVersion::kV1, Kube(34), true), R"({
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {
      "name": "gpuprofile-large-mem",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"},
      "annotations": {"note": "x"},
      "finalizers": ["example.com/keep"],
      "ownerReferences": [
        {"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile", "name": "large-mem",
         "uid": "6f0c1c7e-0000-4000-8000-000000000001", "controller": true,
         "blockOwnerDeletion": true}
      ],
      "uid": "0b7d9a2e-0000-4000-8000-0000000000aa",
      "resourceVersion": "4711",
      "generation": 3,
      "creationTimestamp": "2025-01-02T03:04:05Z"
    },
    "spec": {
      "selectors": [
        {"cel": {"expression": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}
      ],
      "extendedResourceName": "example.com/large-mem"
    }
  })");
}

TEST(EncodeDeviceClassTest, ExtendedResourceNameOnlyWhereTheFieldExists) {
  const DeviceClass c = SampleClass();
  for (int minor = KubeVersion::kOldestMinor; minor <= KubeVersion::kNewestMinor; ++minor) {
    for (DraApiVersion v : DraApiVersionsIn(Kube(minor))) {
      ordered_json got = EncodeDeviceClass(c, v, Kube(minor), false);
      EXPECT_EQ(got["spec"].contains("extendedResourceName"), minor >= 34)
          << "1." << minor << " " << ToString(v);
      EXPECT_EQ(HasExtendedResourceNameField(v, Kube(minor)), minor >= 34);
    }
  }
  DeviceClass unset = c;
  unset.extended_resource_name.reset();
  EXPECT_FALSE(EncodeDeviceClass(unset, DraApiVersion::kV1, Kube(36), false)["spec"].contains(
      "extendedResourceName"));
}

TEST(EncodeDeviceClassTest, EmptySpecAndNullParameters) {
  DeviceClass c;
  c.metadata.name = "empty";
  ExpectJson(EncodeDeviceClass(c, DraApiVersion::kV1, Kube(34), true),
             R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                 "metadata": {"name": "empty"}, "spec": {}})");
  OpaqueDeviceConfig config;
  config.driver = "gpu.nvidia.com";
  config.requests = {"ignored-on-classes"};
  c.config = {config};
  ExpectJson(EncodeDeviceClass(c, DraApiVersion::kV1, Kube(34), false)["spec"],
             R"({"config": [{"opaque": {"driver": "gpu.nvidia.com", "parameters": {}}}]})");
}

TEST(EncodeResourceClaimTemplateTest, V1beta1On132IsFlat) {
  ResourceClaimTemplate t = SampleTemplate();
  t.requests[0].selectors = {"device.attributes['gpu.nvidia.com'].architecture == 'Ampere'"};
  t.requests[0].admin_access = false;
  ExpectJson(EncodeResourceClaimTemplate(t, DraApiVersion::kV1beta1, Kube(32), false), R"({
    "apiVersion": "resource.k8s.io/v1beta1",
    "kind": "ResourceClaimTemplate",
    "metadata": {
      "name": "large-memory",
      "namespace": "ml-train",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"}
    },
    "spec": {
      "metadata": {"labels": {"gpuprofile.io/profile": "large-mem"}},
      "spec": {
        "devices": {
          "requests": [
            {"name": "gpu", "deviceClassName": "gpuprofile-large-mem",
             "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].architecture == 'Ampere'"}}],
             "allocationMode": "ExactCount", "count": 2, "adminAccess": false}
          ],
          "config": [
            {"requests": ["gpu"],
             "opaque": {"driver": "gpu.nvidia.com",
                        "parameters": {"sharing": {"strategy": "TimeSlicing"}}}}
          ]
        }
      }
    }
  })");
}

TEST(EncodeResourceClaimTemplateTest, V1beta2On133NestsUnderExactly) {
  ResourceClaimTemplate t = SampleTemplate();
  t.config.clear();
  t.claim_labels.clear();
  t.claim_annotations = {{"team", "ml"}};
  t.requests = {Request("gpu", "", std::nullopt), Request("all", "All", std::nullopt)};
  ExpectJson(EncodeResourceClaimTemplate(t, DraApiVersion::kV1beta2, Kube(33), false), R"({
    "apiVersion": "resource.k8s.io/v1beta2",
    "kind": "ResourceClaimTemplate",
    "metadata": {
      "name": "large-memory",
      "namespace": "ml-train",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"}
    },
    "spec": {
      "metadata": {"annotations": {"team": "ml"}},
      "spec": {
        "devices": {
          "requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpuprofile-large-mem"}},
            {"name": "all", "exactly": {"deviceClassName": "gpuprofile-large-mem",
                                        "allocationMode": "All"}}
          ]
        }
      }
    }
  })");
}

TEST(EncodeResourceClaimTemplateTest, V1On134WithServerFields) {
  ResourceClaimTemplate t = SampleTemplate();
  t.claim_labels.clear();
  ExpectJson(EncodeResourceClaimTemplate(t, DraApiVersion::kV1, Kube(34), true), R"({
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {
      "name": "large-memory",
      "namespace": "ml-train",
      "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                 "gpuprofile.io/profile": "large-mem"},
      "ownerReferences": [
        {"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile", "name": "large-mem",
         "uid": "6f0c1c7e-0000-4000-8000-000000000001", "controller": true,
         "blockOwnerDeletion": true}
      ],
      "uid": "0b7d9a2e-0000-4000-8000-0000000000aa",
      "resourceVersion": "4711",
      "generation": 3,
      "creationTimestamp": "2025-01-02T03:04:05Z"
    },
    "spec": {
      "spec": {
        "devices": {
          "requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpuprofile-large-mem",
                                        "allocationMode": "ExactCount", "count": 2}}
          ],
          "config": [
            {"requests": ["gpu"],
             "opaque": {"driver": "gpu.nvidia.com",
                        "parameters": {"sharing": {"strategy": "TimeSlicing"}}}}
          ]
        }
      }
    }
  })");
}

TEST(EncodeResourceClaimTemplateTest, EmptyTemplateKeepsRequiredSpec) {
  ResourceClaimTemplate t;
  t.metadata.name = "t";
  ExpectJson(EncodeResourceClaimTemplate(t, DraApiVersion::kV1, Kube(34), false),
             R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                 "metadata": {"name": "t"}, "spec": {"spec": {"devices": {}}}})");
}

TEST(EncodeResourceClaimTemplateTest, V1beta1On133TolerationsAndFirstAvailable) {
  ResourceClaimTemplate t = NewFieldsTemplate(/*with_capacity=*/false);
  ExpectJson(EncodeResourceClaimTemplate(t, DraApiVersion::kV1beta1, Kube(33), false)["spec"], R"({
    "metadata": {"labels": {"gpuprofile.io/profile": "large-mem"}},
    "spec": {"devices": {"requests": [
      {"name": "gpu", "deviceClassName": "gpuprofile-large-mem",
       "allocationMode": "ExactCount", "count": 2,
       "tolerations": [
         {"key": "gpu.nvidia.com/maintenance", "operator": "Exists", "effect": "NoExecute",
          "tolerationSeconds": 300},
         {"key": "example.com/pool", "value": "batch", "effect": "NoSchedule"}]},
      {"name": "fallback", "firstAvailable": [
        {"name": "h100", "deviceClassName": "gpuprofile-h100",
         "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}],
         "allocationMode": "ExactCount", "count": 2, "tolerations": [{"operator": "Exists"}]},
        {"name": "a100", "deviceClassName": "gpuprofile-a100", "allocationMode": "All"},
        {"name": "any", "deviceClassName": "gpuprofile-any"}]}
    ]}}
  })");
}

TEST(EncodeResourceClaimTemplateTest, V1On135CapacityUnderExactlyAndInSubrequests) {
  ResourceClaimTemplate t = NewFieldsTemplate(/*with_capacity=*/true);
  t.requests[1].first_available.resize(1);
  ExpectJson(EncodeResourceClaimTemplate(t, DraApiVersion::kV1, Kube(35), false)["spec"]["spec"],
             R"({"devices": {"requests": [
      {"name": "gpu", "exactly": {
        "deviceClassName": "gpuprofile-large-mem", "allocationMode": "ExactCount", "count": 2,
        "tolerations": [
          {"key": "gpu.nvidia.com/maintenance", "operator": "Exists", "effect": "NoExecute",
           "tolerationSeconds": 300},
          {"key": "example.com/pool", "value": "batch", "effect": "NoSchedule"}],
        "capacity": {"requests": {"memory": "10Gi", "shares": "2"}}}},
      {"name": "fallback", "firstAvailable": [
        {"name": "h100", "deviceClassName": "gpuprofile-h100",
         "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}],
         "allocationMode": "ExactCount", "count": 2, "tolerations": [{"operator": "Exists"}],
         "capacity": {"requests": {"memory": "40Gi"}}}]}
    ]}})");
}

TEST(EncodeResourceClaimTemplateTest, FirstAvailableIsTheSameInEveryVersion) {
  ResourceClaimTemplate t = NewFieldsTemplate(/*with_capacity=*/true);
  // Exact fields on a firstAvailable request and adminAccess on a subrequest have no place in
  // the API: they are not written.
  t.requests[1].device_class_name = "ignored";
  t.requests[1].count = 5;
  t.requests[1].first_available[1].admin_access = true;
  const ordered_json v1 = EncodeResourceClaimTemplate(
      t, DraApiVersion::kV1, Kube(34), false)["spec"]["spec"]["devices"]["requests"][1];
  EXPECT_EQ(v1.size(), 2u) << v1.dump();  // name, firstAvailable
  EXPECT_FALSE(v1["firstAvailable"][1].contains("adminAccess"));
  for (DraApiVersion v : {DraApiVersion::kV1beta1, DraApiVersion::kV1beta2}) {
    EXPECT_EQ(
        EncodeResourceClaimTemplate(t, v, Kube(34), false)["spec"]["spec"]["devices"]["requests"][1]
            .dump(),
        v1.dump())
        << ToString(v);
  }
}

TEST(EncodeResourceClaimTemplateTest, QuantitiesAreCanonical) {
  ResourceClaimTemplate t = SampleTemplate();
  t.requests[0].capacity_requests = {{"memory", Q("1.5Gi")}, {"cores", Q("0.5")}};
  const ordered_json exactly = EncodeResourceClaimTemplate(
      t, DraApiVersion::kV1, Kube(36), false)["spec"]["spec"]["devices"]["requests"][0]["exactly"];
  EXPECT_EQ(exactly["capacity"].dump(), R"({"requests":{"cores":"500m","memory":"1536Mi"}})");
}

TEST(EncodeTest, RenderModeOmitsServerFieldsButKeepsFinalizers) {
  DeviceClass c = SampleClass();
  c.metadata.deletion_timestamp = "2025-02-03T00:00:00Z";
  c.metadata.finalizers = {"example.com/keep"};
  const ordered_json meta = EncodeDeviceClass(c, DraApiVersion::kV1, Kube(36), false)["metadata"];
  for (const char* key : {"uid", "resourceVersion", "generation", "creationTimestamp",
                          "deletionTimestamp", "ownerReferences"}) {
    EXPECT_FALSE(meta.contains(key)) << key;
  }
  EXPECT_TRUE(meta.contains("finalizers"));
  const ordered_json full = EncodeDeviceClass(c, DraApiVersion::kV1, Kube(36), true)["metadata"];
  EXPECT_EQ(full["deletionTimestamp"], "2025-02-03T00:00:00Z");
}

TEST(EncodeTest, SameModelGivesSameBytes) {
  EXPECT_EQ(
      EncodeResourceClaimTemplate(SampleTemplate(), DraApiVersion::kV1, Kube(35), true).dump(),
      EncodeResourceClaimTemplate(SampleTemplate(), DraApiVersion::kV1, Kube(35), true).dump());
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST(RoundTripTest, EveryReleaseAndVersion) {
  ResourceClaimTemplate t = SampleTemplate();
  t.claim_annotations = {{"team", "ml"}};
  t.requests.push_back(Request("every", "All", std::nullopt));
  t.requests.back().selectors = {"device.attributes['gpu.nvidia.com'].type == 'gpu'"};
  t.requests.back().admin_access = true;
  t.requests.push_back(Request("default", "", std::nullopt));
  DeviceClass c = SampleClass();
  c.metadata.finalizers = {"example.com/keep"};
  c.metadata.deletion_timestamp = "2025-02-03T00:00:00Z";
  for (int minor = KubeVersion::kOldestMinor; minor <= KubeVersion::kNewestMinor; ++minor) {
    for (DraApiVersion v : DraApiVersionsIn(Kube(minor))) {
      SCOPED_TRACE(absl::StrCat("1.", minor, " ", ToString(v)));
      const ordered_json class_json = EncodeDeviceClass(c, v, Kube(minor), true);
      ASSERT_OK_AND_ASSIGN(DeviceClass class_back, DecodeDeviceClass(ToJson(class_json)));
      EXPECT_EQ(EncodeDeviceClass(class_back, v, Kube(minor), true).dump(), class_json.dump());
      EXPECT_EQ(class_back.metadata.uid, c.metadata.uid);
      EXPECT_EQ(class_back.metadata.generation, 3);
      EXPECT_EQ(class_back.metadata.deletion_timestamp, c.metadata.deletion_timestamp);
      EXPECT_EQ(class_back.metadata.owner_references, c.metadata.owner_references);
      EXPECT_EQ(class_back.config[0].parameters, c.config[0].parameters);
      EXPECT_EQ(class_back.extended_resource_name.has_value(), minor >= 34);
      EXPECT_TRUE(SameDesiredState(c, class_back, HasExtendedResourceNameField(v, Kube(minor))));

      const ordered_json rct_json = EncodeResourceClaimTemplate(t, v, Kube(minor), true);
      ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate rct_back,
                           DecodeResourceClaimTemplate(ToJson(rct_json)));
      EXPECT_EQ(EncodeResourceClaimTemplate(rct_back, v, Kube(minor), true).dump(),
                rct_json.dump());
      ASSERT_EQ(rct_back.requests.size(), 3u);
      EXPECT_EQ(rct_back.requests[0].count, 2);
      EXPECT_EQ(rct_back.requests[1].allocation_mode, "All");
      EXPECT_EQ(rct_back.requests[1].admin_access, true);
      EXPECT_EQ(rct_back.requests[2].allocation_mode, "");
      EXPECT_EQ(rct_back.requests[2].count, std::nullopt);
      EXPECT_EQ(rct_back.claim_annotations, t.claim_annotations);
      EXPECT_EQ(rct_back.config[0].requests, t.config[0].requests);
      EXPECT_FALSE(rct_back.has_constraints);
      EXPECT_TRUE(SameDesiredState(t, rct_back));
    }
  }
}

TEST(RoundTripTest, NewRequestFieldsEveryReleaseAndVersion) {
  for (int minor = KubeVersion::kOldestMinor; minor <= KubeVersion::kNewestMinor; ++minor) {
    for (DraApiVersion v : DraApiVersionsIn(Kube(minor))) {
      SCOPED_TRACE(absl::StrCat("1.", minor, " ", ToString(v)));
      const ResourceClaimTemplate t = NewFieldsTemplate(/*with_capacity=*/true);
      const ordered_json encoded = EncodeResourceClaimTemplate(t, v, Kube(minor), true);
      ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate back,
                           DecodeResourceClaimTemplate(ToJson(encoded)));
      EXPECT_EQ(EncodeResourceClaimTemplate(back, v, Kube(minor), true).dump(), encoded.dump());
      EXPECT_TRUE(SameDesiredState(t, back));
      EXPECT_TRUE(SameDesiredState(back, t));

      ASSERT_EQ(back.requests.size(), 2u);
      const ExactDeviceRequest& gpu = back.requests[0];
      EXPECT_FALSE(gpu.has_unmodelled_fields);
      EXPECT_TRUE(gpu.first_available.empty());
      ASSERT_EQ(gpu.tolerations.size(), 2u);
      EXPECT_EQ(gpu.tolerations[0].key, "gpu.nvidia.com/maintenance");
      EXPECT_EQ(gpu.tolerations[0].op, "Exists");
      EXPECT_EQ(gpu.tolerations[0].effect, "NoExecute");
      EXPECT_EQ(gpu.tolerations[0].toleration_seconds, 300);
      EXPECT_EQ(gpu.tolerations[1].op, "");  // unset stays unset
      EXPECT_EQ(gpu.tolerations[1].value, "batch");
      EXPECT_EQ(gpu.tolerations[1].toleration_seconds, std::nullopt);
      ASSERT_EQ(gpu.capacity_requests.size(), 2u);
      EXPECT_EQ(gpu.capacity_requests.at("memory").ToString(), "10Gi");
      EXPECT_EQ(gpu.capacity_requests.at("shares").ToString(), "2");

      const ExactDeviceRequest& fallback = back.requests[1];
      EXPECT_FALSE(fallback.has_unmodelled_fields);
      EXPECT_EQ(fallback.name, "fallback");
      EXPECT_EQ(fallback.device_class_name, "");
      ASSERT_EQ(fallback.first_available.size(), 3u);
      EXPECT_EQ(fallback.first_available[0].name, "h100");
      EXPECT_EQ(fallback.first_available[0].device_class_name, "gpuprofile-h100");
      EXPECT_EQ(fallback.first_available[0].count, 2);
      EXPECT_EQ(fallback.first_available[0].selectors.size(), 1u);
      ASSERT_EQ(fallback.first_available[0].tolerations.size(), 1u);
      EXPECT_EQ(fallback.first_available[0].tolerations[0].op, "Exists");
      EXPECT_EQ(fallback.first_available[0].capacity_requests.at("memory"), Q("40Gi"));
      EXPECT_EQ(fallback.first_available[1].allocation_mode, "All");
      EXPECT_EQ(fallback.first_available[1].count, std::nullopt);
      EXPECT_EQ(fallback.first_available[2].allocation_mode, "");
      EXPECT_TRUE(fallback.first_available[2].tolerations.empty());
      EXPECT_TRUE(fallback.first_available[2].capacity_requests.empty());
    }
  }
}

TEST(DecodeResourceClaimTemplateTest, ServerDefaultedNewFields) {
  // What a server hands back for NewFieldsTemplate: operators and subrequest counts defaulted,
  // quantities in another (equal) spelling, empty lists written out.
  ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate actual, DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "large-memory", "namespace": "ml-train", "resourceVersion": "5",
                 "labels": {"app.kubernetes.io/managed-by": "gpu-profile-operator",
                            "gpuprofile.io/profile": "large-mem"}},
    "spec": {"metadata": {"labels": {"gpuprofile.io/profile": "large-mem"}},
      "spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "gpuprofile-large-mem",
          "allocationMode": "ExactCount", "count": 2, "tolerations": [
            {"key": "gpu.nvidia.com/maintenance", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300},
            {"key": "example.com/pool", "operator": "Equal", "value": "batch",
             "effect": "NoSchedule"}],
          "capacity": {"requests": {"memory": "10240Mi", "shares": 2}}}},
        {"name": "fallback", "firstAvailable": [
          {"name": "h100", "deviceClassName": "gpuprofile-h100",
           "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}],
           "allocationMode": "ExactCount", "count": 2,
           "tolerations": [{"operator": "Exists"}],
           "capacity": {"requests": {"memory": "40Gi"}}},
          {"name": "a100", "deviceClassName": "gpuprofile-a100", "allocationMode": "All",
           "tolerations": [], "capacity": {"requests": {}}},
          {"name": "any", "deviceClassName": "gpuprofile-any", "allocationMode": "ExactCount",
           "count": 1, "tolerations": null}]}
      ]}}}
  })")));
  ResourceClaimTemplate desired = NewFieldsTemplate(/*with_capacity=*/true);
  desired.metadata.owner_references.clear();
  EXPECT_EQ(actual.requests[0].capacity_requests.at("shares").ToString(), "2");
  EXPECT_EQ(actual.requests[0].tolerations[1].op, "Equal");
  EXPECT_TRUE(SameDesiredState(desired, actual));
}

// ---------------------------------------------------------------------------------------------
// Decoding what servers and files hold

TEST(DecodeResourceClaimTemplateTest, ServerDefaultedV1beta1) {
  ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate t, DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1beta1",
    "kind": "ResourceClaimTemplate",
    "metadata": {
      "name": "large-memory", "namespace": "ml-train",
      "uid": "u-1", "resourceVersion": "12", "generation": 1,
      "creationTimestamp": "2025-01-02T03:04:05Z",
      "labels": {"gpuprofile.io/profile": "large-mem"},
      "managedFields": [{"manager": "gpu-profile-controller", "operation": "Update"}]
    },
    "spec": {
      "metadata": {"labels": {"gpuprofile.io/profile": "large-mem"}, "creationTimestamp": null},
      "spec": {"devices": {"requests": [
        {"name": "gpu", "deviceClassName": "gpuprofile-large-mem",
         "allocationMode": "ExactCount", "count": 1}
      ]}}
    }
  })")));
  EXPECT_EQ(t.metadata.name, "large-memory");
  EXPECT_EQ(t.metadata.namespace_name, "ml-train");
  EXPECT_EQ(t.metadata.uid, "u-1");
  EXPECT_EQ(t.metadata.resource_version, "12");
  EXPECT_EQ(t.metadata.generation, 1);
  ASSERT_EQ(t.requests.size(), 1u);
  EXPECT_EQ(t.requests[0].name, "gpu");
  EXPECT_EQ(t.requests[0].device_class_name, "gpuprofile-large-mem");
  EXPECT_EQ(t.requests[0].allocation_mode, "ExactCount");
  EXPECT_EQ(t.requests[0].count, 1);
  EXPECT_FALSE(t.requests[0].has_unmodelled_fields);

  ResourceClaimTemplate desired;
  desired.metadata.name = "large-memory";
  desired.metadata.namespace_name = "ml-train";
  desired.metadata.labels = {{"gpuprofile.io/profile", "large-mem"}};
  desired.claim_labels = desired.metadata.labels;
  desired.requests = {Request("gpu", "", std::nullopt)};
  EXPECT_TRUE(SameDesiredState(desired, t));
}

TEST(DecodeResourceClaimTemplateTest, ServerDefaultedV1beta2AndV1) {
  for (const char* version : {"v1beta2", "v1"}) {
    SCOPED_TRACE(version);
    ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate t,
                         DecodeResourceClaimTemplate(Parse(absl::StrCat(R"({
      "apiVersion": "resource.k8s.io/)",
                                                                        version, R"(",
      "kind": "ResourceClaimTemplate",
      "metadata": {"name": "t", "namespace": "ns", "resourceVersion": "7"},
      "spec": {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount",
                                    "count": 1, "adminAccess": null, "tolerations": []}},
        {"name": "all", "exactly": {"deviceClassName": "c", "allocationMode": "All"}}
      ], "constraints": [], "config": null}}}
    })"))));
    ASSERT_EQ(t.requests.size(), 2u);
    EXPECT_EQ(t.requests[0].count, 1);
    EXPECT_EQ(t.requests[0].admin_access, std::nullopt);
    EXPECT_FALSE(t.requests[0].has_unmodelled_fields);  // empty tolerations = none
    EXPECT_EQ(t.requests[1].allocation_mode, "All");
    EXPECT_EQ(t.requests[1].count, std::nullopt);
    EXPECT_FALSE(t.has_constraints);
    EXPECT_TRUE(t.config.empty());
  }
}

TEST(DecodeResourceClaimTemplateTest, FlagsShapesTheModelDoesNotHold) {
  struct Case {
    const char* name;
    const char* version;
    const char* request;
  };
  // derivedAttributes (1.37 alpha) is the one request field the model does not hold.
  const Case cases[] = {
      {"v1 exactly derivedAttributes", "v1",
       R"({"name": "gpu", "exactly": {"deviceClassName": "c",
           "derivedAttributes": [{"name": "x"}]}})"},
      {"v1beta1 flat derivedAttributes", "v1beta1",
       R"({"name": "gpu", "deviceClassName": "c", "derivedAttributes": {"x": 1}})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate t,
                         DecodeResourceClaimTemplate(
                             Parse(absl::StrCat(R"({"apiVersion": "resource.k8s.io/)", c.version,
                                                R"(", "kind": "ResourceClaimTemplate",
                                 "metadata": {"name": "t", "namespace": "ns"},
                                 "spec": {"spec": {"devices": {"requests": [)",
                                                c.request, "]}}}}"))));
    ASSERT_EQ(t.requests.size(), 1u);
    EXPECT_TRUE(t.requests[0].has_unmodelled_fields);
    EXPECT_EQ(t.requests[0].name, "gpu");
    EXPECT_EQ(t.requests[0].device_class_name, "c");
  }
  // A subrequest's unmodelled field makes the request differ from any desired one.
  ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate t, DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "t", "namespace": "ns"},
    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
      {"name": "a", "deviceClassName": "c", "derivedAttributes": [{"name": "x"}]}]}]}}}
  })")));
  ResourceClaimTemplate desired = t;
  desired.requests[0].first_available[0].has_unmodelled_fields = false;
  EXPECT_TRUE(t.requests[0].first_available[0].has_unmodelled_fields);
  EXPECT_FALSE(SameDesiredState(desired, t));
}

TEST(DecodeResourceClaimTemplateTest, ConstraintsAndUnknownFields) {
  ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate t, DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "t", "namespace": "ns", "futureMeta": 1},
    "status": {"anything": true},
    "spec": {"futureSpec": [1], "spec": {"futureClaimField": "x", "devices": {
      "requests": [{"name": "pair", "futureRequestField": 1,
                    "exactly": {"deviceClassName": "c", "count": 2, "futureExact": {}}}],
      "constraints": [{"requests": ["pair"], "matchAttribute": "gpu.nvidia.com/productName"}]
    }}}
  })")));
  EXPECT_TRUE(t.has_constraints);
  ASSERT_EQ(t.requests.size(), 1u);
  EXPECT_EQ(t.requests[0].count, 2);
  EXPECT_FALSE(t.requests[0].has_unmodelled_fields);
}

TEST(DecodeResourceClaimTemplateTest, ReferenceExamples) {
  // The two reference examples (test/testdata is not needed: inline copies in JSON form).
  ASSERT_OK_AND_ASSIGN(ResourceClaimTemplate v1, DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "any-inference-gpu", "namespace": "team-a"},
    "spec": {"metadata": {"labels": {"gpuprofile.io/profile": "light-inference"}},
      "spec": {"devices": {
        "requests": [
          {"name": "gpu", "firstAvailable": [
            {"name": "l40s", "deviceClassName": "gpuprofile-light-inference",
             "selectors": [{"cel": {"expression": "true"}}]},
            {"name": "any", "deviceClassName": "gpuprofile-light-inference"}]},
          {"name": "pair", "exactly": {"deviceClassName": "gpuprofile-large-mem",
                                       "allocationMode": "ExactCount", "count": 2}}],
        "constraints": [{"requests": ["pair"], "matchAttribute": "gpu.nvidia.com/productName"}]}}}
  })")));
  ASSERT_EQ(v1.requests.size(), 2u);
  EXPECT_FALSE(v1.requests[0].has_unmodelled_fields);
  ASSERT_EQ(v1.requests[0].first_available.size(), 2u);
  EXPECT_EQ(v1.requests[0].first_available[0].name, "l40s");
  EXPECT_EQ(v1.requests[0].first_available[0].selectors, std::vector<std::string>{"true"});
  EXPECT_EQ(v1.requests[0].first_available[1].name, "any");
  EXPECT_EQ(v1.requests[0].first_available[1].device_class_name, "gpuprofile-light-inference");
  EXPECT_FALSE(v1.requests[1].has_unmodelled_fields);
  EXPECT_EQ(v1.requests[1].device_class_name, "gpuprofile-large-mem");
  EXPECT_TRUE(v1.has_constraints);
  EXPECT_EQ(v1.claim_labels.at("gpuprofile.io/profile"), "light-inference");
}

TEST(DecodeDeviceClassTest, AllVersions) {
  for (const char* version : {"v1beta1", "v1beta2", "v1"}) {
    SCOPED_TRACE(version);
    ASSERT_OK_AND_ASSIGN(DeviceClass c,
                         DecodeDeviceClass(Parse(absl::StrCat(R"({"apiVersion": "resource.k8s.io/)",
                                                              version, R"(", "kind": "DeviceClass",
            "metadata": {"name": "gpu.nvidia.com", "generation": 2,
                         "labels": {"app.kubernetes.io/managed-by": "Helm"},
                         "annotations": {"meta.helm.sh/release-name": "dra"},
                         "finalizers": ["f"],
                         "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
                                              "name": "o", "uid": "u"}]},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}],
                     "config": [{"opaque": {"driver": "gpu.nvidia.com",
                                            "parameters": {"a": [1, 2]}}}],
                     "extendedResourceName": "nvidia.com/gpu",
                     "suitableNodes": null}})"))));
    EXPECT_EQ(c.metadata.name, "gpu.nvidia.com");
    EXPECT_EQ(c.metadata.generation, 2);
    EXPECT_EQ(c.metadata.labels.at("app.kubernetes.io/managed-by"), "Helm");
    EXPECT_EQ(c.metadata.annotations.at("meta.helm.sh/release-name"), "dra");
    EXPECT_EQ(c.metadata.finalizers, std::vector<std::string>{"f"});
    ASSERT_EQ(c.metadata.owner_references.size(), 1u);
    EXPECT_FALSE(c.metadata.owner_references[0].controller);
    EXPECT_EQ(c.selectors, std::vector<std::string>{"device.driver == 'gpu.nvidia.com'"});
    ASSERT_EQ(c.config.size(), 1u);
    EXPECT_EQ(c.config[0].parameters, Parse(R"({"a": [1, 2]})"));
    EXPECT_EQ(c.extended_resource_name, "nvidia.com/gpu");
  }
}

TEST(IsKindTest, KindAndGroup) {
  EXPECT_TRUE(
      IsDeviceClass(Parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass"})")));
  EXPECT_TRUE(
      IsDeviceClass(Parse(R"({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceClass"})")));
  EXPECT_FALSE(IsDeviceClass(Parse(R"({"apiVersion": "example.com/v1", "kind": "DeviceClass"})")));
  EXPECT_FALSE(IsDeviceClass(Parse(R"({"apiVersion": "resource.k8s.io", "kind": "DeviceClass"})")));
  EXPECT_FALSE(IsDeviceClass(
      Parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate"})")));
  EXPECT_FALSE(IsDeviceClass(Parse(R"({"kind": "DeviceClass"})")));
  EXPECT_FALSE(IsDeviceClass(Parse(R"([1])")));
  EXPECT_TRUE(IsResourceClaimTemplate(
      Parse(R"({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate"})")));
  EXPECT_FALSE(IsResourceClaimTemplate(
      Parse(R"({"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim"})")));
  EXPECT_FALSE(
      IsResourceClaimTemplate(Parse(R"({"apiVersion": 1, "kind": "ResourceClaimTemplate"})")));
}

// ---------------------------------------------------------------------------------------------
// Decode errors: every path, with the object and the field named

struct ErrorCase {
  const char* name;
  bool is_class;
  std::string input;
  std::string want;  // the whole message (single problem)
};

constexpr char kClass[] = R"("apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass")";
constexpr char kTemplate[] =
    R"("apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate")";

std::string ClassWith(const std::string& spec, const std::string& meta = R"({"name": "c"})") {
  return absl::StrCat("{", kClass, R"(, "metadata": )", meta, R"(, "spec": )", spec, "}");
}

std::string TemplateWith(const std::string& devices, const std::string& version = "v1",
                         const std::string& claim_meta = "{}") {
  return absl::StrCat(R"({"apiVersion": "resource.k8s.io/)", version,
                      R"(", "kind": "ResourceClaimTemplate",
                          "metadata": {"name": "large-memory", "namespace": "ml-train"},
                          "spec": {"metadata": )",
                      claim_meta, R"(, "spec": {"devices": )", devices, "}}}");
}

std::string Requests(const std::string& request, const std::string& version = "v1") {
  return TemplateWith(absl::StrCat(R"({"requests": [)", request, "]}"), version);
}

void RunErrorCases(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    const json input = Parse(c.input);
    absl::Status status = c.is_class ? DecodeDeviceClass(input).status()
                                     : DecodeResourceClaimTemplate(input).status();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), c.want);
  }
}

TEST(DecodeErrorsTest, ObjectHeaderAndMetadata) {
  const std::string r = R"(, "spec": {})";
  RunErrorCases({
      {"not an object", true, "[]", "DeviceClass <unnamed>: (root): must be an object, got list"},
      {"kind", true, R"({"apiVersion": "resource.k8s.io/v1", "kind": "Foo",
                          "metadata": {"name": "c"}, "spec": {}})",
       R"(DeviceClass "c": kind: expected DeviceClass, got "Foo")"},
      {"kind missing", false,
       R"({"apiVersion": "resource.k8s.io/v1", "metadata": {"name": "t", "namespace": "n"},
           "spec": {"spec": {}}})",
       R"(ResourceClaimTemplate "n/t": kind: required)"},
      {"apiVersion missing", true, R"({"kind": "DeviceClass", "metadata": {"name": "c"}})",
       R"(DeviceClass "c": apiVersion: required)"},
      {"apiVersion not a string", true, R"({"kind": "DeviceClass", "apiVersion": 1})",
       "DeviceClass <unnamed>: apiVersion: must be a string, got integer"},
      {"apiVersion unknown", true,
       R"({"kind": "DeviceClass", "apiVersion": "resource.k8s.io/v1alpha3"})",
       "DeviceClass <unnamed>: apiVersion: unsupported apiVersion \"resource.k8s.io/v1alpha3\" "
       "(supported: resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1)"},
      {"apiVersion without group", true, R"({"kind": "DeviceClass", "apiVersion": "v1"})",
       "DeviceClass <unnamed>: apiVersion: unsupported apiVersion \"v1\" "
       "(supported: resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1)"},
      {"metadata missing", true, absl::StrCat("{", kClass, r, "}"),
       "DeviceClass <unnamed>: metadata: required"},
      {"metadata not an object", true, absl::StrCat("{", kClass, R"(, "metadata": "x")", r, "}"),
       "DeviceClass <unnamed>: metadata: must be an object, got string"},
      {"name missing", true, ClassWith("{}", R"({"namespace": "x"})"),
       "DeviceClass <unnamed>: metadata.name: required"},
      {"name empty", true, ClassWith("{}", R"({"name": ""})"),
       "DeviceClass <unnamed>: metadata.name: required (must not be empty)"},
      {"name not a string", true, ClassWith("{}", R"({"name": 5})"),
       "DeviceClass <unnamed>: metadata.name: must be a string, got integer"},
      {"namespace not a string", true, ClassWith("{}", R"({"name": "c", "namespace": true})"),
       R"(DeviceClass "c": metadata.namespace: must be a string, got boolean)"},
      {"uid", true, ClassWith("{}", R"({"name": "c", "uid": 1})"),
       R"(DeviceClass "c": metadata.uid: must be a string, got integer)"},
      {"resourceVersion", true, ClassWith("{}", R"({"name": "c", "resourceVersion": 12})"),
       R"(DeviceClass "c": metadata.resourceVersion: must be a string, got integer)"},
      {"generation", true, ClassWith("{}", R"({"name": "c", "generation": "1"})"),
       R"(DeviceClass "c": metadata.generation: must be an integer, got string)"},
      {"generation float", true, ClassWith("{}", R"({"name": "c", "generation": 1.5})"),
       R"(DeviceClass "c": metadata.generation: must be an integer, got number)"},
      {"generation out of range", true,
       ClassWith("{}", R"({"name": "c", "generation": 18446744073709551615})"),
       R"(DeviceClass "c": metadata.generation: integer out of range (int64))"},
      {"creationTimestamp", true, ClassWith("{}", R"({"name": "c", "creationTimestamp": {}})"),
       R"(DeviceClass "c": metadata.creationTimestamp: must be a string, got object)"},
      {"deletionTimestamp", true, ClassWith("{}", R"({"name": "c", "deletionTimestamp": 0})"),
       R"(DeviceClass "c": metadata.deletionTimestamp: must be a string, got integer)"},
      {"labels not an object", true, ClassWith("{}", R"({"name": "c", "labels": []})"),
       R"(DeviceClass "c": metadata.labels: must be an object, got list)"},
      {"label value", true,
       ClassWith("{}", R"({"name": "c", "labels": {"app.kubernetes.io/name": 1}})"),
       R"(DeviceClass "c": metadata.labels[app.kubernetes.io/name]: must be a string, got integer)"},
      {"annotation value", true,
       ClassWith("{}", R"({"name": "c", "annotations": {"note": false}})"),
       R"(DeviceClass "c": metadata.annotations.note: must be a string, got boolean)"},
      {"finalizers", true, ClassWith("{}", R"({"name": "c", "finalizers": ["a", 2]})"),
       R"(DeviceClass "c": metadata.finalizers[1]: must be a string, got integer)"},
      {"finalizers not a list", true, ClassWith("{}", R"({"name": "c", "finalizers": "a"})"),
       R"(DeviceClass "c": metadata.finalizers: must be a list, got string)"},
      {"ownerReferences not a list", true,
       ClassWith("{}", R"({"name": "c", "ownerReferences": {}})"),
       R"(DeviceClass "c": metadata.ownerReferences: must be a list, got object)"},
      {"ownerReference not an object", true,
       ClassWith("{}", R"({"name": "c", "ownerReferences": [1]})"),
       R"(DeviceClass "c": metadata.ownerReferences[0]: must be an object, got integer)"},
      {"ownerReference uid", true, ClassWith("{}", R"({"name": "c", "ownerReferences": [
           {"apiVersion": "v1", "kind": "K", "name": "n"}]})"),
       R"(DeviceClass "c": metadata.ownerReferences[0].uid: required)"},
      {"ownerReference controller", true, ClassWith("{}", R"({"name": "c", "ownerReferences": [
           {"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": "yes"}]})"),
       R"(DeviceClass "c": metadata.ownerReferences[0].controller: must be a boolean, got string)"},
      {"ownerReference blockOwnerDeletion", true,
       ClassWith("{}", R"({"name": "c", "ownerReferences": [
           {"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "blockOwnerDeletion": 1}]})"),
       "DeviceClass \"c\": metadata.ownerReferences[0].blockOwnerDeletion: must be a boolean, "
       "got integer"},
  });
}

TEST(DecodeErrorsTest, DeviceClassSpec) {
  RunErrorCases({
      {"spec missing", true, absl::StrCat("{", kClass, R"(, "metadata": {"name": "c"}})"),
       R"(DeviceClass "c": spec: required)"},
      {"spec not an object", true, ClassWith("[]"),
       R"(DeviceClass "c": spec: must be an object, got list)"},
      {"selectors not a list", true, ClassWith(R"({"selectors": {}})"),
       R"(DeviceClass "c": spec.selectors: must be a list, got object)"},
      {"selector not an object", true, ClassWith(R"({"selectors": ["x"]})"),
       R"(DeviceClass "c": spec.selectors[0]: must be an object, got string)"},
      {"selector without cel", true, ClassWith(R"({"selectors": [{}]})"),
       R"(DeviceClass "c": spec.selectors[0].cel: required)"},
      {"cel not an object", true, ClassWith(R"({"selectors": [{"cel": "x"}]})"),
       R"(DeviceClass "c": spec.selectors[0].cel: must be an object, got string)"},
      {"expression missing", true, ClassWith(R"({"selectors": [{"cel": {}}]})"),
       R"(DeviceClass "c": spec.selectors[0].cel.expression: required)"},
      {"expression type", true,
       ClassWith(R"({"selectors": [{"cel": {"expression": "true"}}, {"cel": {"expression": 1}}]})"),
       R"(DeviceClass "c": spec.selectors[1].cel.expression: must be a string, got integer)"},
      {"config not a list", true, ClassWith(R"({"config": 1})"),
       R"(DeviceClass "c": spec.config: must be a list, got integer)"},
      {"config entry not an object", true, ClassWith(R"({"config": [null]})"),
       R"(DeviceClass "c": spec.config[0]: must be an object, got null)"},
      {"opaque missing", true, ClassWith(R"({"config": [{}]})"),
       R"(DeviceClass "c": spec.config[0].opaque: required)"},
      {"driver missing", true, ClassWith(R"({"config": [{"opaque": {"parameters": {}}}]})"),
       R"(DeviceClass "c": spec.config[0].opaque.driver: required)"},
      {"parameters missing", true, ClassWith(R"({"config": [{"opaque": {"driver": "d"}}]})"),
       R"(DeviceClass "c": spec.config[0].opaque.parameters: required)"},
      {"parameters not an object", true,
       ClassWith(R"({"config": [{"opaque": {"driver": "d", "parameters": "x"}}]})"),
       R"(DeviceClass "c": spec.config[0].opaque.parameters: must be an object, got string)"},
      {"extendedResourceName", true, ClassWith(R"({"extendedResourceName": 1})"),
       R"(DeviceClass "c": spec.extendedResourceName: must be a string, got integer)"},
  });
}

TEST(DecodeErrorsTest, ResourceClaimTemplateSpec) {
  constexpr char kLabel[] = "ResourceClaimTemplate \"ml-train/large-memory\": ";
  auto want = [&](const std::string& rest) { return absl::StrCat(kLabel, rest); };
  const std::vector<std::pair<std::string, std::string>> cases_text = {
      {absl::StrCat("{", kTemplate, R"(, "metadata": {"name": "large-memory",
                    "namespace": "ml-train"}})"),
       want("spec: required")},
      {absl::StrCat("{", kTemplate, R"(, "metadata": {"name": "large-memory",
                    "namespace": "ml-train"}, "spec": {}})"),
       want("spec.spec: required")},
      {absl::StrCat("{", kTemplate, R"(, "metadata": {"name": "large-memory",
                    "namespace": "ml-train"}, "spec": {"spec": 1}})"),
       want("spec.spec: must be an object, got integer")},
      {TemplateWith("{}", "v1", "[]"), want("spec.metadata: must be an object, got list")},
      {TemplateWith("{}", "v1", R"({"labels": {"a": 1}})"),
       want("spec.metadata.labels.a: must be a string, got integer")},
      {TemplateWith("{}", "v1", R"({"annotations": "x"})"),
       want("spec.metadata.annotations: must be an object, got string")},
      {TemplateWith("[]"), want("spec.spec.devices: must be an object, got list")},
      {TemplateWith(R"({"requests": {}})"),
       want("spec.spec.devices.requests: must be a list, got object")},
      {TemplateWith(R"({"requests": [1]})"),
       want("spec.spec.devices.requests[0]: must be an object, got integer")},
      {TemplateWith(R"({"constraints": {}})"),
       want("spec.spec.devices.constraints: must be a list, got object")},
      {TemplateWith(R"({"config": [{"requests": "gpu", "opaque": {"driver": "d",
                       "parameters": {}}}]})"),
       want("spec.spec.devices.config[0].requests: must be a list, got string")},
      {TemplateWith(R"({"config": [{"requests": [1], "opaque": {"driver": "d",
                       "parameters": {}}}]})"),
       want("spec.spec.devices.config[0].requests[0]: must be a string, got integer")},
      {TemplateWith(R"({"config": [{"requests": ["gpu"]}]})"),
       want("spec.spec.devices.config[0].opaque: required")},
      // Requests, v1beta2 / v1.
      {Requests(R"({"exactly": {"deviceClassName": "c"}})"),
       want("spec.spec.devices.requests[0].name: required")},
      {Requests(R"({"name": 1, "exactly": {"deviceClassName": "c"}})"),
       want("spec.spec.devices.requests[0].name: must be a string, got integer")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "count": "2"}})"),
       want("spec.spec.devices.requests[0].exactly.count: must be an integer, got string")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "count": 1.5}})"),
       want("spec.spec.devices.requests[0].exactly.count: must be an integer, got number")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "count": 9223372036854775808}})"),
       want("spec.spec.devices.requests[0].exactly.count: integer out of range (int64)")},
      {Requests(R"({"name": "gpu", "exactly": {}})"),
       want("spec.spec.devices.requests[0].exactly.deviceClassName: required")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": ""}})"),
       want("spec.spec.devices.requests[0].exactly.deviceClassName: required (must not be "
            "empty)")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "allocationMode": "Some"}})"),
       want("spec.spec.devices.requests[0].exactly.allocationMode: must be \"ExactCount\" or "
            "\"All\", got \"Some\"")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "allocationMode": 1}})"),
       want("spec.spec.devices.requests[0].exactly.allocationMode: must be a string, got "
            "integer")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "adminAccess": "no"}})"),
       want("spec.spec.devices.requests[0].exactly.adminAccess: must be a boolean, got string")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "selectors": [{}]}})"),
       want("spec.spec.devices.requests[0].exactly.selectors[0].cel: required")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "tolerations": {}}})"),
       want("spec.spec.devices.requests[0].exactly.tolerations: must be a list, got object")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c", "capacity": []}})"),
       want("spec.spec.devices.requests[0].exactly.capacity: must be an object, got list")},
      {Requests(R"({"name": "gpu", "exactly": []})"),
       want("spec.spec.devices.requests[0].exactly: must be an object, got list")},
      {Requests(R"({"name": "gpu", "firstAvailable": {}})"),
       want("spec.spec.devices.requests[0].firstAvailable: must be a list, got object")},
      {Requests(R"({"name": "gpu"})"),
       want("spec.spec.devices.requests[0]: must have exactly one of exactly or firstAvailable")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c"},
                    "firstAvailable": [{"name": "a", "deviceClassName": "c"}]})"),
       want("spec.spec.devices.requests[0]: must have exactly one of exactly or firstAvailable")},
      {Requests(R"({"name": "gpu", "deviceClassName": "c", "count": 1})"),
       want("spec.spec.devices.requests[0].deviceClassName: not part of resource.k8s.io/v1 "
            "(request fields sit under \"exactly\"; flat requests are resource.k8s.io/v1beta1)")},
      {Requests(R"({"name": "gpu", "count": 1, "exactly": {"deviceClassName": "c"}})", "v1beta2"),
       want("spec.spec.devices.requests[0].count: not part of resource.k8s.io/v1beta2 "
            "(request fields sit under \"exactly\"; flat requests are resource.k8s.io/v1beta1)")},
      // Requests, v1beta1.
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c"}})", "v1beta1"),
       want("spec.spec.devices.requests[0].exactly: not part of resource.k8s.io/v1beta1 "
            "(request fields sit directly on the request; \"exactly\" is "
            "resource.k8s.io/v1beta2 and v1)")},
      {Requests(R"({"name": "gpu"})", "v1beta1"),
       want("spec.spec.devices.requests[0].deviceClassName: required")},
      {Requests(R"({"name": "gpu", "deviceClassName": "c",
                    "firstAvailable": [{"name": "a", "deviceClassName": "c"}]})",
                "v1beta1"),
       want("spec.spec.devices.requests[0]: must have exactly one of deviceClassName or "
            "firstAvailable")},
      {Requests(R"({"name": "gpu", "deviceClassName": "c", "count": "1"})", "v1beta1"),
       want("spec.spec.devices.requests[0].count: must be an integer, got string")},
      {Requests(R"({"name": "gpu", "deviceClassName": ["c"]})", "v1beta1"),
       want("spec.spec.devices.requests[0].deviceClassName: must be a string, got list")},
      {Requests(R"({"name": "gpu", "count": 2,
                    "firstAvailable": [{"name": "a", "deviceClassName": "c"}]})",
                "v1beta1"),
       want("spec.spec.devices.requests[0].count: must not be set with firstAvailable (each "
            "subrequest has its own)")},
      {Requests(R"({"name": "gpu", "tolerations": [{"operator": "Exists"}],
                    "firstAvailable": [{"name": "a", "deviceClassName": "c"}]})",
                "v1beta1"),
       want("spec.spec.devices.requests[0].tolerations: must not be set with firstAvailable "
            "(each subrequest has its own)")},
      {Requests(R"({"name": "gpu", "tolerations": [1], "deviceClassName": "c"})", "v1beta1"),
       want("spec.spec.devices.requests[0].tolerations[0]: must be an object, got integer")},
      {Requests(R"({"name": "gpu", "deviceClassName": "c",
                    "capacity": {"requests": {"memory": "lots"}}})",
                "v1beta1"),
       want("spec.spec.devices.requests[0].capacity.requests.memory: invalid quantity \"lots\": "
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")},
      // Tolerations (v1).
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "tolerations": [{"key": 1}]}})"),
       want("spec.spec.devices.requests[0].exactly.tolerations[0].key: must be a string, got "
            "integer")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "tolerations": [{"key": "k"}, {"operator": "Matches"}]}})"),
       want("spec.spec.devices.requests[0].exactly.tolerations[1].operator: must be \"Equal\" "
            "or \"Exists\", got \"Matches\"")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "tolerations": [{"value": ["v"]}]}})"),
       want("spec.spec.devices.requests[0].exactly.tolerations[0].value: must be a string, got "
            "list")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "tolerations": [{"effect": {}}]}})"),
       want("spec.spec.devices.requests[0].exactly.tolerations[0].effect: must be a string, got "
            "object")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "tolerations": [{"effect": "NoExecute", "tolerationSeconds": "60"}]}})"),
       want("spec.spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds: must be an "
            "integer, got string")},
      // Capacity (v1).
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "capacity": {"requests": []}}})"),
       want("spec.spec.devices.requests[0].exactly.capacity.requests: must be an object, got "
            "list")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "capacity": {"requests": {"gpu.example.com/memory": true}}}})"),
       want("spec.spec.devices.requests[0].exactly.capacity.requests[gpu.example.com/memory]: "
            "must be a quantity string, got boolean")},
      {Requests(R"({"name": "gpu", "exactly": {"deviceClassName": "c",
                    "capacity": {"requests": {"memory": "1e"}}}})"),
       want("spec.spec.devices.requests[0].exactly.capacity.requests.memory: invalid quantity "
            "\"1e\": unable to parse quantity's suffix")},
      // firstAvailable (v1; v1beta1 and v1beta2 share the code).
      {Requests(R"({"name": "gpu", "firstAvailable": []})"),
       want("spec.spec.devices.requests[0].firstAvailable: must not be empty")},
      {Requests(R"({"name": "gpu", "firstAvailable": [
                    {"name": "a", "deviceClassName": "c"}, {"name": "b", "deviceClassName": "c"},
                    {"name": "c", "deviceClassName": "c"}, {"name": "d", "deviceClassName": "c"},
                    {"name": "e", "deviceClassName": "c"}, {"name": "f", "deviceClassName": "c"},
                    {"name": "g", "deviceClassName": "c"}, {"name": "h", "deviceClassName": "c"},
                    {"name": "i", "deviceClassName": "c"}]})"),
       want("spec.spec.devices.requests[0].firstAvailable: must have at most 8 subrequests, "
            "got 9")},
      {Requests(R"({"name": "gpu", "firstAvailable": ["a"]})"),
       want("spec.spec.devices.requests[0].firstAvailable[0]: must be an object, got string")},
      {Requests(R"({"name": "gpu", "firstAvailable": [{"deviceClassName": "c"}]})"),
       want("spec.spec.devices.requests[0].firstAvailable[0].name: required")},
      {Requests(R"({"name": "gpu", "firstAvailable": [{"name": "a", "deviceClassName": "c"},
                                                       {"name": "b"}]})"),
       want("spec.spec.devices.requests[0].firstAvailable[1].deviceClassName: required")},
      {Requests(R"({"name": "gpu", "firstAvailable": [{"name": "a", "deviceClassName": "c",
                                                        "count": 1.5}]})",
                "v1beta2"),
       want("spec.spec.devices.requests[0].firstAvailable[0].count: must be an integer, got "
            "number")},
      {Requests(R"({"name": "gpu", "firstAvailable": [{"name": "a", "deviceClassName": "c",
                                                        "allocationMode": "Any"}]})"),
       want("spec.spec.devices.requests[0].firstAvailable[0].allocationMode: must be "
            "\"ExactCount\" or \"All\", got \"Any\"")},
      {Requests(R"({"name": "gpu", "firstAvailable": [{"name": "a", "deviceClassName": "c",
                    "tolerations": [{"operator": "exists"}]}]})",
                "v1beta1"),
       want("spec.spec.devices.requests[0].firstAvailable[0].tolerations[0].operator: must be "
            "\"Equal\" or \"Exists\", got \"exists\"")},
      {Requests(R"({"name": "gpu", "firstAvailable": [{"name": "a", "deviceClassName": "c",
                    "capacity": {"requests": {"memory": "10Qi"}}}]})"),
       want("spec.spec.devices.requests[0].firstAvailable[0].capacity.requests.memory: invalid "
            "quantity \"10Qi\": quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")},
  };
  for (const auto& [input, expected] : cases_text) {
    SCOPED_TRACE(input);
    absl::Status status = DecodeResourceClaimTemplate(Parse(input)).status();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), expected);
  }
}

TEST(DecodeErrorsTest, ListsEveryProblem) {
  absl::Status status = DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "large-memory", "namespace": "ml-train", "labels": {"a": 1}},
    "spec": {"spec": {"devices": {"requests": [
      {"name": "gpu", "exactly": {"deviceClassName": "c", "count": "2"}},
      {"exactly": {"deviceClassName": 3, "adminAccess": 0}}
    ]}}}
  })"))
                            .status();
  ASSERT_FALSE(status.ok());
  const std::vector<std::string> lines = absl::StrSplit(status.message(), '\n');
  EXPECT_EQ(lines.size(), 5u) << status.message();
  for (const std::string& line : lines) {
    EXPECT_THAT(line, ::testing::StartsWith("ResourceClaimTemplate \"ml-train/large-memory\": "));
  }
  EXPECT_THAT(status.message(), HasSubstr("metadata.labels.a: must be a string"));
  EXPECT_THAT(status.message(), HasSubstr("requests[0].exactly.count: must be an integer"));
  EXPECT_THAT(status.message(), HasSubstr("requests[1].name: required"));
  EXPECT_THAT(status.message(), HasSubstr("requests[1].exactly.deviceClassName: must be a string"));
  EXPECT_THAT(status.message(), HasSubstr("requests[1].exactly.adminAccess: must be a boolean"));
}

TEST(DecodeErrorsTest, ClusterScopedAndUnnamedLabels) {
  absl::Status status = DecodeResourceClaimTemplate(Parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "t"}, "spec": 1})"))
                            .status();
  EXPECT_EQ(status.message(), "ResourceClaimTemplate \"t\": spec: must be an object, got integer");
  status = DecodeDeviceClass(Parse(R"({"apiVersion": "resource.k8s.io/v1",
                                       "kind": "DeviceClass", "metadata": {}})"))
               .status();
  EXPECT_EQ(
      status.message(),
      "DeviceClass <unnamed>: metadata.name: required\nDeviceClass <unnamed>: spec: required");
}

// ---------------------------------------------------------------------------------------------
// SameDesiredState

ResourceClaimTemplate DesiredTemplate() {
  ResourceClaimTemplate t;
  t.metadata.name = "large-memory";
  t.metadata.namespace_name = "ml-train";
  t.metadata.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                       {"gpuprofile.io/profile", "large-mem"}};
  t.metadata.owner_references = {ProfileOwner()};
  t.claim_labels = {{"gpuprofile.io/profile", "large-mem"}};
  t.requests = {Request("gpu", "", std::nullopt)};
  return t;
}

TEST(SameDesiredStateTest, ResourceClaimTemplateTable) {
  struct Case {
    const char* name;
    void (*desired)(ResourceClaimTemplate&);
    void (*actual)(ResourceClaimTemplate&);
    bool same;
  };
  auto none = [](ResourceClaimTemplate&) {};
  const Case cases[] = {
      {"identical", none, none, true},
      {"server defaults allocationMode and count", none,
       [](ResourceClaimTemplate& a) {
         a.requests[0].allocation_mode = "ExactCount";
         a.requests[0].count = 1;
       },
       true},
      {"server-only metadata ignored", none,
       [](ResourceClaimTemplate& a) {
         a.metadata.uid = "u";
         a.metadata.resource_version = "9";
         a.metadata.generation = 4;
         a.metadata.creation_timestamp = "2025-01-01T00:00:00Z";
         a.metadata.deletion_timestamp = "2025-01-02T00:00:00Z";
         a.metadata.finalizers = {"x"};
       },
       true},
      {"explicit ExactCount 1 vs unset",
       [](ResourceClaimTemplate& d) {
         d.requests[0].allocation_mode = "ExactCount";
         d.requests[0].count = 1;
       },
       none, true},
      {"count 0 defaults to 1", [](ResourceClaimTemplate& d) { d.requests[0].count = 0; },
       [](ResourceClaimTemplate& a) { a.requests[0].count = 1; }, true},
      {"count 2 vs defaulted 1", [](ResourceClaimTemplate& d) { d.requests[0].count = 2; },
       [](ResourceClaimTemplate& a) { a.requests[0].count = 1; }, false},
      {"count 2 vs unset", [](ResourceClaimTemplate& d) { d.requests[0].count = 2; }, none, false},
      {"count 3 vs 2", [](ResourceClaimTemplate& d) { d.requests[0].count = 3; },
       [](ResourceClaimTemplate& a) { a.requests[0].count = 2; }, false},
      {"All vs ExactCount", [](ResourceClaimTemplate& d) { d.requests[0].allocation_mode = "All"; },
       none, false},
      {"All vs All", [](ResourceClaimTemplate& d) { d.requests[0].allocation_mode = "All"; },
       [](ResourceClaimTemplate& a) { a.requests[0].allocation_mode = "All"; }, true},
      {"device class differs", none,
       [](ResourceClaimTemplate& a) { a.requests[0].device_class_name = "other"; }, false},
      {"request name differs", none, [](ResourceClaimTemplate& a) { a.requests[0].name = "g"; },
       false},
      {"request selectors differ", none,
       [](ResourceClaimTemplate& a) { a.requests[0].selectors = {"true"}; }, false},
      {"adminAccess false vs unset",
       [](ResourceClaimTemplate& d) { d.requests[0].admin_access = false; }, none, true},
      {"adminAccess true vs unset (dropped)",
       [](ResourceClaimTemplate& d) { d.requests[0].admin_access = true; }, none, false},
      {"extra request", none, [](ResourceClaimTemplate& a) { a.requests.push_back(a.requests[0]); },
       false},
      {"extra label on the object (another tool)", none,
       [](ResourceClaimTemplate& a) { a.metadata.labels["argocd.argoproj.io/instance"] = "x"; },
       true},
      {"extra annotation on the object", none,
       [](ResourceClaimTemplate& a) { a.metadata.annotations["kubectl"] = "x"; }, true},
      {"label value changed", none,
       [](ResourceClaimTemplate& a) { a.metadata.labels["gpuprofile.io/profile"] = "other"; },
       false},
      {"label missing", none,
       [](ResourceClaimTemplate& a) { a.metadata.labels.erase("gpuprofile.io/profile"); }, false},
      {"desired annotation missing",
       [](ResourceClaimTemplate& d) { d.metadata.annotations["a"] = "b"; }, none, false},
      {"claim label extra (spec is exact)", none,
       [](ResourceClaimTemplate& a) { a.claim_labels["x"] = "y"; }, false},
      {"claim annotation differs", [](ResourceClaimTemplate& d) { d.claim_annotations["x"] = "y"; },
       none, false},
      {"owner reference missing", none,
       [](ResourceClaimTemplate& a) { a.metadata.owner_references.clear(); }, false},
      {"extra owner reference", none,
       [](ResourceClaimTemplate& a) {
         meta::OwnerReference other = ProfileOwner();
         other.uid = "other";
         other.controller = false;
         a.metadata.owner_references.push_back(other);
       },
       true},
      {"name differs", none, [](ResourceClaimTemplate& a) { a.metadata.name = "x"; }, false},
      {"namespace differs", none, [](ResourceClaimTemplate& a) { a.metadata.namespace_name = "x"; },
       false},
      {"unmodelled fields in actual", none,
       [](ResourceClaimTemplate& a) { a.requests[0].has_unmodelled_fields = true; }, false},
      {"constraints in actual", none, [](ResourceClaimTemplate& a) { a.has_constraints = true; },
       false},
      {"config null parameters vs {}",
       [](ResourceClaimTemplate& d) {
         d.config = {OpaqueDeviceConfig{"d", json(), {"gpu"}}};
       },
       [](ResourceClaimTemplate& a) {
         a.config = {OpaqueDeviceConfig{"d", json::object(), {"gpu"}}};
       },
       true},
      {"config parameters differ",
       [](ResourceClaimTemplate& d) {
         d.config = {OpaqueDeviceConfig{"d", json{{"a", 1}}, {}}};
       },
       [](ResourceClaimTemplate& a) {
         a.config = {OpaqueDeviceConfig{"d", json{{"a", 2}}, {}}};
       },
       false},
      {"config requests differ",
       [](ResourceClaimTemplate& d) {
         d.config = {OpaqueDeviceConfig{"d", json(), {"gpu"}}};
       },
       [](ResourceClaimTemplate& a) {
         a.config = {OpaqueDeviceConfig{"d", json(), {}}};
       },
       false},
  };
  for (const Case& c : cases) {
    ResourceClaimTemplate desired = DesiredTemplate();
    ResourceClaimTemplate actual = DesiredTemplate();
    c.desired(desired);
    c.actual(actual);
    EXPECT_EQ(SameDesiredState(desired, actual), c.same) << c.name;
  }
}

TEST(SameDesiredStateTest, NewRequestFieldsTable) {
  using T = ResourceClaimTemplate;
  struct Case {
    const char* name;
    void (*desired)(T&);
    void (*actual)(T&);
    bool same;
  };
  auto none = [](T&) {};
  const Case cases[] = {
      {"identical", none, none, true},
      // Tolerations.
      {"operator unset vs Equal (server default)", none,
       [](T& a) { a.requests[0].tolerations[1].op = "Equal"; }, true},
      {"operator Equal vs unset", [](T& d) { d.requests[0].tolerations[1].op = "Equal"; }, none,
       true},
      {"operator Exists vs Equal", none, [](T& a) { a.requests[0].tolerations[0].op = "Equal"; },
       false},
      {"toleration key differs", none, [](T& a) { a.requests[0].tolerations[0].key = "other"; },
       false},
      {"toleration value differs", none, [](T& a) { a.requests[0].tolerations[1].value = "other"; },
       false},
      {"toleration effect differs", none,
       [](T& a) { a.requests[0].tolerations[1].effect = "NoExecute"; }, false},
      {"tolerationSeconds differs", none,
       [](T& a) { a.requests[0].tolerations[0].toleration_seconds = 301; }, false},
      {"tolerationSeconds unset vs 0", none,
       [](T& a) { a.requests[0].tolerations[1].toleration_seconds = 0; }, false},
      {"toleration missing", none, [](T& a) { a.requests[0].tolerations.pop_back(); }, false},
      {"tolerations reordered", none,
       [](T& a) { std::swap(a.requests[0].tolerations[0], a.requests[0].tolerations[1]); }, false},
      {"subrequest toleration differs", none,
       [](T& a) { a.requests[1].first_available[0].tolerations[0].effect = "NoSchedule"; }, false},
      // Capacity.
      {"capacity same amount, other spelling", none,
       [](T& a) { a.requests[0].capacity_requests["memory"] = Q("10240Mi"); }, true},
      {"capacity amount differs", none,
       [](T& a) { a.requests[0].capacity_requests["memory"] = Q("20Gi"); }, false},
      {"capacity extra name", none, [](T& a) { a.requests[0].capacity_requests["cores"] = Q("1"); },
       false},
      {"capacity dropped", none, [](T& a) { a.requests[0].capacity_requests.clear(); }, false},
      {"subrequest capacity differs", none,
       [](T& a) { a.requests[1].first_available[0].capacity_requests["memory"] = Q("80Gi"); },
       false},
      // firstAvailable.
      {"subrequest count defaulted", none,
       [](T& a) {
         a.requests[1].first_available[2].allocation_mode = "ExactCount";
         a.requests[1].first_available[2].count = 1;
       },
       true},
      {"subrequest count differs", none, [](T& a) { a.requests[1].first_available[0].count = 1; },
       false},
      {"subrequest mode differs", none,
       [](T& a) { a.requests[1].first_available[1].allocation_mode = ""; }, false},
      {"subrequest name differs", none,
       [](T& a) { a.requests[1].first_available[1].name = "a100-80gb"; }, false},
      {"subrequest class differs", none,
       [](T& a) { a.requests[1].first_available[1].device_class_name = "other"; }, false},
      {"subrequest selectors differ", none,
       [](T& a) { a.requests[1].first_available[0].selectors.clear(); }, false},
      {"fewer subrequests", none, [](T& a) { a.requests[1].first_available.pop_back(); }, false},
      {"more subrequests", none,
       [](T& a) { a.requests[1].first_available.push_back(a.requests[1].first_available[2]); },
       false},
      {"subrequests reordered", none,
       [](T& a) { std::swap(a.requests[1].first_available[0], a.requests[1].first_available[1]); },
       false},
      {"firstAvailable vs exact", none,
       [](T& a) {
         a.requests[1] = a.requests[1].first_available[0];
         a.requests[1].name = "fallback";
       },
       false},
      {"exact fields beside firstAvailable are not compared",
       [](T& d) { d.requests[1].device_class_name = "unused"; }, none, true},
      {"unmodelled field in a subrequest", none,
       [](T& a) { a.requests[1].first_available[1].has_unmodelled_fields = true; }, false},
  };
  for (const Case& c : cases) {
    T desired = NewFieldsTemplate(/*with_capacity=*/true);
    T actual = NewFieldsTemplate(/*with_capacity=*/true);
    c.desired(desired);
    c.actual(actual);
    EXPECT_EQ(SameDesiredState(desired, actual), c.same) << c.name;
  }
}

TEST(SameDesiredStateTest, DeviceClassTable) {
  struct Case {
    const char* name;
    void (*desired)(DeviceClass&);
    void (*actual)(DeviceClass&);
    bool served;
    bool same;
  };
  auto none = [](DeviceClass&) {};
  auto drop_ern = [](DeviceClass& a) { a.extended_resource_name.reset(); };
  const Case cases[] = {
      {"identical", none, none, true, true},
      {"extendedResourceName dropped, gate off", none, drop_ern, false, true},
      {"extendedResourceName dropped, gate on", none, drop_ern, true, false},
      {"extendedResourceName set by someone else", drop_ern, none, false, false},
      {"extendedResourceName differs", none,
       [](DeviceClass& a) { a.extended_resource_name = "x.com/y"; }, false, false},
      {"selector order", none, [](DeviceClass& a) { std::swap(a.selectors[0], a.selectors[1]); },
       true, false},
      {"selector removed", none, [](DeviceClass& a) { a.selectors.pop_back(); }, true, false},
      {"config removed", none, [](DeviceClass& a) { a.config.clear(); }, true, false},
      {"config driver differs", none, [](DeviceClass& a) { a.config[0].driver = "x"; }, true,
       false},
      {"server fields and extra labels", none,
       [](DeviceClass& a) {
         a.metadata.uid = "other";
         a.metadata.generation = 9;
         a.metadata.labels["x"] = "y";
       },
       true, true},
      {"label changed", none,
       [](DeviceClass& a) { a.metadata.labels["gpuprofile.io/profile"] = "z"; }, true, false},
  };
  for (const Case& c : cases) {
    DeviceClass desired = SampleClass();
    DeviceClass actual = SampleClass();
    c.desired(desired);
    c.actual(actual);
    EXPECT_EQ(SameDesiredState(desired, actual, c.served), c.same) << c.name;
  }
}

// ---------------------------------------------------------------------------------------------
// Schema validation of everything the encoders write (tools/schema/validate.py)

class SchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const bool available =
        std::system("python3 -c 'import jsonschema, yaml' >/dev/null 2>&1") == 0;
    if (!available) {
      GTEST_SKIP() << "python3 with jsonschema and yaml not found; install python3-jsonschema "
                      "and python3-yaml (scripts/install-deps.sh) to run the schema checks";
    }
  }

  static std::string Dir() {
    std::string dir = ::testing::TempDir();
    if (!dir.empty() && dir.back() != '/') dir += '/';
    return dir;
  }

  // Writes `objects` as a JSON List; returns the path.
  static std::string Write(const std::string& name, const std::vector<ordered_json>& objects) {
    ordered_json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}};
    const std::string path = absl::StrCat(Dir(), "gpo-dra-codec-", getpid(), "-", name);
    std::ofstream out(path);
    out << list.dump(2) << "\n";
    EXPECT_TRUE(out.good()) << path;
    return path;
  }

  // Runs validate.py; returns its exit code, output in *log.
  static int Validate(const std::string& kube_version, const std::string& file, std::string* log,
                      const std::string& extra_args = "") {
    const std::string log_path = file + ".log";
    const std::string command =
        absl::StrCat("python3 '", ::gpuprofile::testing::SourceDir(),
                     "/tools/schema/validate.py' --kube-version ", kube_version, " ", extra_args,
                     " '", file, "' >'", log_path, "' 2>&1");
    const int raw = std::system(command.c_str());
    std::ifstream in(log_path);
    log->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (raw == -1 || !WIFEXITED(raw)) return -1;
    return WEXITSTATUS(raw);
  }
};

TEST_F(SchemaTest, EncodedObjectsValidateForEveryReleaseAndVersion) {
  DeviceClass c = SampleClass();  // with extendedResourceName: must vanish before 1.34
  c.metadata.annotations = {{"note", "x"}};
  c.metadata.finalizers = {"example.com/keep"};
  ResourceClaimTemplate t = SampleTemplate();
  t.claim_annotations = {{"team", "ml"}};
  t.requests[0].selectors = {"device.attributes['gpu.nvidia.com'].architecture == 'Ampere'"};
  t.requests[0].admin_access = true;
  t.requests.push_back(Request("every", "All", std::nullopt));
  t.requests.push_back(Request("default", "", std::nullopt));
  for (int minor = KubeVersion::kOldestMinor; minor <= KubeVersion::kNewestMinor; ++minor) {
    const KubeVersion kube = Kube(minor);
    std::vector<ordered_json> objects;
    for (DraApiVersion v : kAllVersions) {
      if (!CheckServedVersion(kube, v).ok()) continue;
      for (bool server_fields : {false, true}) {
        objects.push_back(EncodeDeviceClass(c, v, kube, server_fields));
        objects.push_back(EncodeResourceClaimTemplate(t, v, kube, server_fields));
      }
    }
    ASSERT_FALSE(objects.empty());
    const std::string file = Write(absl::StrCat("dra-objects-1.", minor, ".json"), objects);
    std::string log;
    EXPECT_EQ(Validate(kube.ToString(), file, &log), 0) << "1." << minor << ":\n" << log;
    EXPECT_THAT(log, HasSubstr(absl::StrCat("validated ", objects.size(), " objects, skipped 0")));
  }
}

TEST_F(SchemaTest, BogusFieldFailsValidation) {
  ordered_json bogus = EncodeDeviceClass(SampleClass(), DraApiVersion::kV1, Kube(34), false);
  bogus["spec"]["bogus"] = true;
  std::string log;
  EXPECT_EQ(Validate("1.34", Write("bogus-class.json", {bogus}), &log), 1) << log;
  EXPECT_THAT(log, HasSubstr("DeviceClass \"gpuprofile-large-mem\": spec: "));
  EXPECT_THAT(log, HasSubstr("'bogus' was unexpected"));
}

TEST_F(SchemaTest, ExtendedResourceNameIsNotInThe133Schema) {
  // Why the encoder leaves it out before 1.34: the release's schema has no such field.
  ordered_json with_field =
      EncodeDeviceClass(SampleClass(), DraApiVersion::kV1beta2, Kube(33), false);
  with_field["spec"]["extendedResourceName"] = "example.com/large-mem";
  std::string log;
  EXPECT_EQ(Validate("1.33", Write("ern-1.33.json", {with_field}), &log), 1) << log;
  EXPECT_THAT(log, HasSubstr("'extendedResourceName' was unexpected"));
}

TEST_F(SchemaTest, WrongShapeForTheVersionFails) {
  // A v1 (nested) request labelled v1beta1.
  ordered_json wrong =
      EncodeResourceClaimTemplate(SampleTemplate(), DraApiVersion::kV1, Kube(34), false);
  wrong["apiVersion"] = "resource.k8s.io/v1beta1";
  std::string log;
  EXPECT_EQ(Validate("1.34", Write("wrong-shape.json", {wrong}), &log), 1) << log;
  EXPECT_THAT(log, HasSubstr("spec.spec.devices.requests[0]"));
}

// Issue 14's request shapes validate on every release that has them, in every version it serves:
// tolerations and firstAvailable from 1.33, capacity from 1.34; 1.35+ v1 against the v3 document.
TEST_F(SchemaTest, NewRequestShapesValidateWhereTheReleaseHasThem) {
  for (int minor = 33; minor <= KubeVersion::kNewestMinor; ++minor) {
    const KubeVersion kube = Kube(minor);
    const ResourceClaimTemplate t = NewFieldsTemplate(/*with_capacity=*/minor >= 34);
    std::vector<ordered_json> objects;
    for (DraApiVersion v : kAllVersions) {
      if (!CheckServedVersion(kube, v).ok()) continue;
      for (bool server_fields : {false, true}) {
        objects.push_back(EncodeResourceClaimTemplate(t, v, kube, server_fields));
      }
    }
    const std::string file = Write(absl::StrCat("new-shapes-1.", minor, ".json"), objects);
    std::string log;
    EXPECT_EQ(Validate(kube.ToString(), file, &log), 0) << "1." << minor << ":\n" << log;
    EXPECT_THAT(log, HasSubstr(absl::StrCat("validated ", objects.size(), " objects, skipped 0")));
  }
}

// Which schema a release uses: resource.k8s.io/v1 on 1.35+ needs the OpenAPI v3 document and
// nothing else; v1beta2 on 1.35+ and v1 on 1.34 keep the standalone files.
TEST_F(SchemaTest, V1From135UsesTheOpenApiV3Document) {
  namespace fs = std::filesystem;
  const fs::path source = fs::path(::gpuprofile::testing::SourceDir()) / "test/testdata/schemas";
  const fs::path only_v3 = fs::path(Dir()) / absl::StrCat("gpo-only-v3-", getpid());
  const fs::path only_134 = fs::path(Dir()) / absl::StrCat("gpo-only-134-", getpid());
  fs::create_directories(only_v3);
  fs::create_directories(only_134);
  fs::copy_file(source / "k8s-1.35-resource.k8s.io-v1-openapi-v3.json",
                only_v3 / "k8s-1.35-resource.k8s.io-v1-openapi-v3.json",
                fs::copy_options::overwrite_existing);
  fs::copy_file(source / "resourceclaimtemplate-resource-v1.k8s-1.34.standalone-strict.json",
                only_134 / "resourceclaimtemplate-resource-v1.k8s-1.34.standalone-strict.json",
                fs::copy_options::overwrite_existing);
  const ResourceClaimTemplate t = NewFieldsTemplate(/*with_capacity=*/true);
  std::string log;
  for (int minor = 35; minor <= KubeVersion::kNewestMinor; ++minor) {
    const std::string file =
        Write(absl::StrCat("v3-", minor, ".json"),
              {EncodeResourceClaimTemplate(t, DraApiVersion::kV1, Kube(minor), true)});
    EXPECT_EQ(
        Validate(Kube(minor).ToString(), file, &log, "--schema-dir '" + only_v3.string() + "'"), 0)
        << log;
    EXPECT_EQ(
        Validate(Kube(minor).ToString(), file, &log, "--schema-dir '" + only_134.string() + "'"), 2)
        << log;
    EXPECT_THAT(log, HasSubstr("k8s-1.35-resource.k8s.io-v1-openapi-v3.json not found"));
  }
  const std::string v1_134 =
      Write("v1-1.34.json", {EncodeResourceClaimTemplate(t, DraApiVersion::kV1, Kube(34), false)});
  EXPECT_EQ(Validate("1.34", v1_134, &log, "--schema-dir '" + only_134.string() + "'"), 0) << log;
  EXPECT_EQ(Validate("1.34", v1_134, &log, "--schema-dir '" + only_v3.string() + "'"), 2) << log;
  const std::string v1beta2_135 =
      Write("v1beta2-1.35.json",
            {EncodeResourceClaimTemplate(t, DraApiVersion::kV1beta2, Kube(35), false)});
  EXPECT_EQ(Validate("1.35", v1beta2_135, &log, "--schema-dir '" + only_v3.string() + "'"), 2)
      << log;
  EXPECT_THAT(log, HasSubstr("resourceclaimtemplate-resource-v1beta2.k8s-1.34"));
}

// Shapes a release's schema does not have, or that no release has, are rejected.
TEST_F(SchemaTest, WrongNewRequestShapesAreRejected) {
  struct Case {
    const char* name;
    int minor;
    DraApiVersion version;
    void (*mutate)(ordered_json& requests);
    const char* want;
  };
  const Case cases[] = {
      {"tolerations before 1.33", 32, DraApiVersion::kV1beta1,
       [](ordered_json& r) { r[0]["tolerations"] = ParseOrdered(R"([{"operator": "Exists"}])"); },
       "'tolerations' was unexpected"},
      {"firstAvailable before 1.33", 32, DraApiVersion::kV1beta1,
       [](ordered_json& r) {
         r[0].erase("deviceClassName");
         r[0]["firstAvailable"] = ParseOrdered(R"([{"name": "a", "deviceClassName": "c"}])");
       },
       "'firstAvailable' was unexpected"},
      {"capacity before 1.34 (v1beta1)", 33, DraApiVersion::kV1beta1,
       [](ordered_json& r) { r[0]["capacity"] = ParseOrdered(R"({"requests": {"m": "1"}})"); },
       "'capacity' was unexpected"},
      {"capacity in a subrequest before 1.34 (v1beta2)", 33, DraApiVersion::kV1beta2,
       [](ordered_json& r) {
         r[1]["firstAvailable"][0]["capacity"] = ParseOrdered(R"({"requests": {"m": "1"}})");
       },
       "'capacity' was unexpected"},
      {"exactly inside a subrequest", 35, DraApiVersion::kV1,
       [](ordered_json& r) {
         r[1]["firstAvailable"][0] =
             ParseOrdered(R"({"name": "a", "exactly": {"deviceClassName": "c"}})");
       },
       "'exactly' was unexpected"},
      {"subrequest without a class", 35, DraApiVersion::kV1,
       [](ordered_json& r) { r[1]["firstAvailable"][0].erase("deviceClassName"); },
       "'deviceClassName' is a required property"},
      {"adminAccess in a subrequest", 35, DraApiVersion::kV1,
       [](ordered_json& r) { r[1]["firstAvailable"][1]["adminAccess"] = true; },
       "'adminAccess' was unexpected"},
      {"deviceClassName beside firstAvailable", 36, DraApiVersion::kV1,
       [](ordered_json& r) { r[1]["deviceClassName"] = "c"; }, "'deviceClassName' was unexpected"},
      {"misspelt toleration field", 36, DraApiVersion::kV1,
       [](ordered_json& r) { r[0]["exactly"]["tolerations"][0]["tolerationsSeconds"] = 1; },
       "'tolerationsSeconds' was unexpected"},
      {"tolerationSeconds as a string", 37, DraApiVersion::kV1,
       [](ordered_json& r) { r[0]["exactly"]["tolerations"][0]["tolerationSeconds"] = "300"; },
       "'300' is not of type 'integer'"},
      {"capacity request as a boolean", 37, DraApiVersion::kV1,
       [](ordered_json& r) { r[0]["exactly"]["capacity"]["requests"]["memory"] = true; },
       "True is not of type"},
      {"capacity without requests wrapper", 35, DraApiVersion::kV1,
       [](ordered_json& r) { r[0]["exactly"]["capacity"] = ParseOrdered(R"({"memory": "1"})"); },
       "'memory' was unexpected"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    // The release's own valid shape (checked), then one change.
    const ResourceClaimTemplate base =
        c.minor >= 33 ? NewFieldsTemplate(/*with_capacity=*/c.minor >= 34) : SampleTemplate();
    ordered_json rct = EncodeResourceClaimTemplate(base, c.version, Kube(c.minor), false);
    std::string log;
    ASSERT_EQ(Validate(Kube(c.minor).ToString(), Write("base-shape.json", {rct}), &log), 0) << log;
    c.mutate(rct["spec"]["spec"]["devices"]["requests"]);
    EXPECT_EQ(Validate(Kube(c.minor).ToString(), Write("wrong-new-shape.json", {rct}), &log), 1)
        << log;
    EXPECT_THAT(log, HasSubstr("spec.spec.devices.requests["));
    EXPECT_THAT(log, HasSubstr(c.want));
  }
}

TEST_F(SchemaTest, MissingSchemaExitsTwo) {
  const std::string file =
      Write("missing-schema.json",
            {EncodeDeviceClass(SampleClass(), DraApiVersion::kV1, Kube(34), false)});
  std::string log;
  EXPECT_EQ(Validate("1.34", file, &log, "--schema-dir '" + Dir() + "no-such-dir'"), 2) << log;
  EXPECT_THAT(log, HasSubstr("not found"));
}

}  // namespace
}  // namespace dra_object_codec_test
}  // namespace gpuprofile::dra
