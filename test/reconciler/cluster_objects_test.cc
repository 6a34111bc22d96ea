// File: test/reconciler/cluster_objects_test.cc
// The compact template cache (TemplateObject, TemplateShapes): templates that differ only in
// namespace, uid, resourceVersion, creationTimestamp, generation or managedFields share one
// shape; any other difference (name, a label, an owner reference, a request, a field the model
// ignores) gives its own; Full() gives back the decoded template; shapes nobody uses are freed;
// decode errors pass through.
#include "controller/reconciler/cluster_objects.h"

#include <functional>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/dra/dra_object_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace cluster_objects_test {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

json Template(const std::string& ns, const std::string& name, int n) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaimTemplate"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"uid", absl::StrCat("uid-", n)},
            {"resourceVersion", absl::StrCat(1000 + n)},
            {"creationTimestamp", absl::StrCat("2026-12-01T18:00:", 10 + n % 50, "Z")},
            {"generation", 1 + n % 3},
            {"managedFields",
             {{{"manager", "gpu-profile-operator"},
               {"time", absl::StrCat("2026-12-01T18:00:", 10 + n % 50, "Z")}}}},
            {"labels",
             {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
              {"gpuprofile.io/profile", name}}},
            {"ownerReferences",
             {{{"apiVersion", "gpuprofile.io/v1alpha1"},
               {"kind", "GpuProfile"},
               {"name", name},
               {"uid", "profile-uid"},
               {"controller", true},
               {"blockOwnerDeletion", true}}}}}},
          {"spec",
           {{"spec",
             {{"devices",
               {{"requests",
                 {{{"name", "gpu"},
                   {"exactly",
                    {{"deviceClassName", name},
                     {"allocationMode", "ExactCount"},
                     {"count", 1}}}}}}}}}}}}};
}

std::shared_ptr<const TemplateObject> MustDecode(TemplateShapes& shapes, const json& object) {
  absl::StatusOr<std::shared_ptr<const TemplateObject>> t = shapes.Decode(object);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : nullptr;
}

TEST(TemplateShapesTest, CopiesInOtherNamespacesShareOneShape) {
  TemplateShapes shapes;
  std::vector<std::shared_ptr<const TemplateObject>> cached;
  for (int n = 0; n < 50; ++n) {
    cached.push_back(MustDecode(shapes, Template(absl::StrCat("team-", n), "train", n)));
  }
  EXPECT_EQ(shapes.size(), 1u);
  for (int n = 0; n < 50; ++n) {
    ASSERT_NE(cached[n], nullptr);
    EXPECT_EQ(cached[n]->shape, cached[0]->shape);
    EXPECT_EQ(cached[n]->namespace_name, absl::StrCat("team-", n));
    EXPECT_EQ(cached[n]->uid, absl::StrCat("uid-", n));
    EXPECT_EQ(cached[n]->resource_version, absl::StrCat(1000 + n));
    EXPECT_EQ(cached[n]->name(), "train");
  }
  // The shared part holds nothing of one copy.
  const meta::ObjectMeta& meta = cached[0]->shared_meta();
  EXPECT_EQ(meta.namespace_name, "");
  EXPECT_EQ(meta.uid, "");
  EXPECT_EQ(meta.resource_version, "");
  EXPECT_EQ(meta.creation_timestamp, "");
  EXPECT_EQ(meta.generation, 0);
}

TEST(TemplateShapesTest, AnyOtherDifferenceGetsItsOwnShape) {
  struct Case {
    std::string what;
    std::function<void(json&)> change;
  };
  const std::vector<Case> cases = {
      {"name", [](json& o) { o["metadata"]["name"] = "infer"; }},
      {"label", [](json& o) { o["metadata"]["labels"]["team"] = "a"; }},
      {"annotation", [](json& o) { o["metadata"]["annotations"] = {{"note", "x"}}; }},
      {"finalizer", [](json& o) { o["metadata"]["finalizers"] = {"example.com/keep"}; }},
      {"deletion", [](json& o) { o["metadata"]["deletionTimestamp"] = "2026-12-01T19:00:00Z"; }},
      {"owner uid", [](json& o) { o["metadata"]["ownerReferences"][0]["uid"] = "other"; }},
      {"owner controller",
       [](json& o) { o["metadata"]["ownerReferences"][0]["controller"] = false; }},
      {"request count",
       [](json& o) { o["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2; }},
      {"claim label", [](json& o) { o["spec"]["metadata"] = {{"labels", {{"a", "b"}}}}; }},
      {"constraints",
       [](json& o) {
         o["spec"]["spec"]["devices"]["constraints"] = {{{"matchAttribute", "x.io/numa"}}};
       }},
      {"field the model ignores", [](json& o) { o["spec"]["spec"]["extra"] = 1; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TemplateShapes shapes;
    json base = Template("team-a", "train", 1);
    json other = Template("team-b", "train", 2);
    c.change(other);
    auto a = MustDecode(shapes, base);
    auto b = MustDecode(shapes, other);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a->shape, b->shape);
    EXPECT_EQ(shapes.size(), 2u);
    // Each keeps what its own object says.
    for (const auto& [cached, object] : {std::pair{a, base}, std::pair{b, other}}) {
      absl::StatusOr<dra::ResourceClaimTemplate> direct = dra::DecodeResourceClaimTemplate(object);
      ASSERT_TRUE(direct.ok()) << direct.status();
      std::shared_ptr<const dra::ResourceClaimTemplate> full = cached->Full();
      EXPECT_EQ(full->has_constraints, direct->has_constraints);
      if (!direct->has_constraints) {  // a template with constraints never equals another
        EXPECT_TRUE(dra::SameDesiredState(*direct, *full));
        EXPECT_TRUE(dra::SameDesiredState(*full, *direct));
      }
      EXPECT_EQ(full->claim_labels, direct->claim_labels);
      EXPECT_EQ(full->metadata.labels, direct->metadata.labels);
      EXPECT_EQ(full->metadata.annotations, direct->metadata.annotations);
      EXPECT_EQ(full->metadata.finalizers, direct->metadata.finalizers);
      EXPECT_EQ(full->metadata.deletion_timestamp, direct->metadata.deletion_timestamp);
      EXPECT_EQ(full->metadata.owner_references, direct->metadata.owner_references);
    }
  }
}

TEST(TemplateShapesTest, FullIsTheDecodedTemplate) {
  TemplateShapes shapes;
  const json object = Template("team-a", "train", 7);
  auto cached = MustDecode(shapes, object);
  ASSERT_NE(cached, nullptr);
  absl::StatusOr<dra::ResourceClaimTemplate> decoded = dra::DecodeResourceClaimTemplate(object);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  std::shared_ptr<const dra::ResourceClaimTemplate> full = cached->Full();
  EXPECT_EQ(full->metadata.namespace_name, "team-a");
  EXPECT_EQ(full->metadata.name, "train");
  EXPECT_EQ(full->metadata.uid, "uid-7");
  EXPECT_EQ(full->metadata.resource_version, "1007");
  EXPECT_EQ(full->metadata.labels, decoded->metadata.labels);
  EXPECT_EQ(full->metadata.owner_references, decoded->metadata.owner_references);
  EXPECT_TRUE(dra::SameDesiredState(*decoded, *full));
  EXPECT_TRUE(dra::SameDesiredState(*full, *decoded));
  // Full() copies: the shared shape is untouched.
  EXPECT_EQ(cached->shape->metadata.namespace_name, "");
}

TEST(TemplateShapesTest, ShapesNobodyUsesAreFreed) {
  TemplateShapes shapes;
  std::vector<std::shared_ptr<const TemplateObject>> kept;
  for (int n = 0; n < 200; ++n) {
    auto t = MustDecode(shapes, Template("team-a", absl::StrCat("p-", n), n));
    if (n % 2 == 0) kept.push_back(t);
  }
  EXPECT_EQ(shapes.size(), 100u);
  std::weak_ptr<const dra::ResourceClaimTemplate> first = kept[0]->shape;
  kept.clear();
  EXPECT_TRUE(first.expired());
  EXPECT_EQ(shapes.size(), 0u);
  // A shape decoded again after its last user went is made anew.
  auto again = MustDecode(shapes, Template("team-b", "p-0", 0));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->name(), "p-0");
  EXPECT_EQ(shapes.size(), 1u);
}

TEST(TemplateShapesTest, DecodeErrorsPassThrough) {
  TemplateShapes shapes;
  json object = Template("team-a", "train", 1);
  object.erase("spec");
  absl::StatusOr<std::shared_ptr<const TemplateObject>> t = shapes.Decode(object);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("spec"));
  EXPECT_EQ(shapes.size(), 0u);
}

}  // namespace
}  // namespace cluster_objects_test
}  // namespace gpuprofile::reconciler
