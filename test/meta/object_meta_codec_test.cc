// File: test/meta/object_meta_codec_test.cc
#include "controller/meta/object_meta_codec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::meta {
namespace object_meta_codec_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

// What `kubectl get -o json` prints for a stored object (plus fields the decoder ignores).
json ServerMetadata() {
  return json::parse(R"({
    "name": "large-memory",
    "namespace": "ml-train",
    "uid": "6b1c3c1e-0000-4000-8000-000000000001",
    "resourceVersion": "4711",
    "generation": 3,
    "creationTimestamp": "2025-01-01T00:00:00Z",
    "deletionTimestamp": "2025-01-02T00:00:00Z",
    "labels": {"gpuprofile.io/profile": "large-memory", "app.kubernetes.io/managed-by": "gpu-profile-operator"},
    "annotations": {"note": "anything at all: {}"},
    "finalizers": ["gpuprofile.io/cleanup"],
    "ownerReferences": [{"apiVersion": "gpuprofile.io/v1alpha1", "kind": "GpuProfile",
                         "name": "large-memory", "uid": "u-1", "controller": true,
                         "blockOwnerDeletion": true}],
    "managedFields": [{"manager": "kubectl"}],
    "generateName": "x-"
  })");
}

TEST(ObjectMetaCodecTest, DecodesEveryField) {
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, DecodeObjectMeta(ServerMetadata()));
  EXPECT_EQ(m.name, "large-memory");
  EXPECT_EQ(m.namespace_name, "ml-train");
  EXPECT_EQ(m.uid, "6b1c3c1e-0000-4000-8000-000000000001");
  EXPECT_EQ(m.resource_version, "4711");
  EXPECT_EQ(m.generation, 3);
  EXPECT_EQ(m.creation_timestamp, "2025-01-01T00:00:00Z");
  EXPECT_EQ(m.deletion_timestamp, "2025-01-02T00:00:00Z");
  EXPECT_EQ(m.labels.at("gpuprofile.io/profile"), "large-memory");
  EXPECT_EQ(m.annotations.at("note"), "anything at all: {}");
  EXPECT_THAT(m.finalizers, ElementsAre("gpuprofile.io/cleanup"));
  ASSERT_EQ(m.owner_references.size(), 1u);
  EXPECT_EQ(m.owner_references[0], (OwnerReference{"gpuprofile.io/v1alpha1", "GpuProfile",
                                                   "large-memory", "u-1", true, true}));
  ASSERT_NE(m.ControllerOwner(), nullptr);
  EXPECT_EQ(m.ControllerOwner()->name, "large-memory");
}

TEST(ObjectMetaCodecTest, EmptyMetadataDecodes) {
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, DecodeObjectMeta(json::object()));
  EXPECT_EQ(m.name, "");
  EXPECT_EQ(m.generation, 0);
  EXPECT_FALSE(m.deletion_timestamp.has_value());
  EXPECT_EQ(m.ControllerOwner(), nullptr);
}

TEST(ObjectMetaCodecTest, RejectsWrongTypesAndInvalidLabels) {
  struct Case {
    std::string pointer;
    json value;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"/name", 1, "metadata.name: must be a string, got integer"},
      {"/generation", "3", "metadata.generation: must be an integer, got string"},
      {"/labels", json::array(), "metadata.labels: must be an object, got array"},
      {"/labels/team", true, "metadata.labels[team]: must be a string, got boolean"},
      {"/labels/-team", "a", "metadata.labels[-team]: invalid value \"-team\": name part"},
      {"/labels/team", "a b", "metadata.labels[team]: invalid value \"a b\": a valid label"},
      {"/annotations/a~1b~1c", "x", "metadata.annotations[a/b/c]: invalid value \"a/b/c\""},
      {"/annotations/x", 5, "metadata.annotations[x]: must be a string, got integer"},
      {"/finalizers", "gpuprofile.io/cleanup", "metadata.finalizers: must be a list, got string"},
      {"/finalizers/1", 2, "metadata.finalizers[1]: must be a string, got integer"},
      {"/ownerReferences", json::object(), "metadata.ownerReferences: must be a list, got object"},
      {"/ownerReferences/0/controller", "true",
       "metadata.ownerReferences[0].controller: must be a boolean, got string"},
      {"/ownerReferences/1",
       {{"kind", "GpuProfile"}},
       "metadata.ownerReferences[1].apiVersion: required"},
  };
  for (const Case& c : cases) {
    json metadata = ServerMetadata();
    metadata[json::json_pointer(c.pointer)] = c.value;
    absl::StatusOr<ObjectMeta> m = DecodeObjectMeta(metadata);
    ASSERT_FALSE(m.ok()) << c.pointer;
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(m.status().message()), HasSubstr(c.expected)) << c.pointer;
  }
}

TEST(ObjectMetaCodecTest, UppercaseAnnotationKeysAreAccepted) {
  // Kubernetes checks annotation keys lower-cased.
  ASSERT_OK(DecodeObjectMeta(json::parse(R"({"annotations": {"Example.COM/Note": "x"}})")));
}

TEST(ObjectMetaCodecTest, PathPrefixIsUsed) {
  absl::StatusOr<ObjectMeta> m = DecodeObjectMeta(json::parse(R"({"name": 1})"), "spec.metadata");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "spec.metadata.name: must be a string, got integer");
  m = DecodeObjectMeta(json::array(), "metadata");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "metadata: must be an object, got array");
}

TEST(ObjectMetaCodecTest, EncodesWithoutServerFields) {
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, DecodeObjectMeta(ServerMetadata()));
  EXPECT_EQ(
      EncodeObjectMeta(m, false).dump(),
      R"({"name":"large-memory","namespace":"ml-train","labels":)"
      R"({"app.kubernetes.io/managed-by":"gpu-profile-operator",)"
      R"("gpuprofile.io/profile":"large-memory"},"annotations":{"note":"anything at all: {}"},)"
      R"("finalizers":["gpuprofile.io/cleanup"]})");
}

TEST(ObjectMetaCodecTest, EncodesWithServerFieldsAndRoundTrips) {
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, DecodeObjectMeta(ServerMetadata()));
  const nlohmann::ordered_json encoded = EncodeObjectMeta(m, true);
  std::vector<std::string> keys;
  for (auto it = encoded.begin(); it != encoded.end(); ++it) keys.push_back(it.key());
  EXPECT_THAT(keys, ElementsAre("name", "namespace", "labels", "annotations", "finalizers",
                                "ownerReferences", "uid", "resourceVersion", "generation",
                                "creationTimestamp", "deletionTimestamp"));
  EXPECT_EQ(encoded["ownerReferences"][0].dump(),
            R"({"apiVersion":"gpuprofile.io/v1alpha1","kind":"GpuProfile","name":"large-memory",)"
            R"("uid":"u-1","controller":true,"blockOwnerDeletion":true})");
  ASSERT_OK_AND_ASSIGN(ObjectMeta again, DecodeObjectMeta(json::parse(encoded.dump())));
  EXPECT_EQ(EncodeObjectMeta(again, true).dump(), encoded.dump());
}

TEST(ObjectMetaCodecTest, OmitsEmptyMembers) {
  ObjectMeta m;
  EXPECT_EQ(EncodeObjectMeta(m, true).dump(), "{}");
  m.name = "x";
  m.owner_references.push_back({"v1", "Kind", "n", "u", false, false});
  EXPECT_EQ(
      EncodeObjectMeta(m, true).dump(),
      R"({"name":"x","ownerReferences":[{"apiVersion":"v1","kind":"Kind","name":"n","uid":"u"}]})");
  EXPECT_EQ(EncodeObjectMeta(m, false).dump(), R"({"name":"x"})");
}

}  // namespace
}  // namespace object_meta_codec_test
}  // namespace gpuprofile::meta
