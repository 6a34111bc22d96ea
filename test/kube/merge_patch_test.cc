// File: test/kube/merge_patch_test.cc
#include "controller/kube/merge_patch.h"

#include "gtest/gtest.h"

namespace gpuprofile::kube {
namespace merge_patch_test {
namespace {

using json = nlohmann::json;

// The patch, applied as a merge patch, turns `from` into `to`.
void ExpectRoundTrip(const json& from, const json& to, const json& want) {
  json patch = CreateMergePatch(from, to);
  EXPECT_EQ(patch, want) << "from " << from << " to " << to;
  json applied = from;
  applied.merge_patch(patch);
  EXPECT_EQ(applied, to) << "patch " << patch;
}

TEST(MergePatchTest, RemovedMembersBecomeNullAndNestedObjectsRecurse) {
  ExpectRoundTrip(
      json::parse(R"({"a": 1, "gone": "x", "allocation": {"free": 3, "oldest": "t"},
                      "conditions": [{"type": "Ready"}], "same": {"k": 1}})"),
      json::parse(R"({"a": 2, "allocation": {"free": 3}, "conditions": [],
                      "same": {"k": 1}, "new": true})"),
      json::parse(R"({"a": 2, "gone": null, "allocation": {"oldest": null}, "conditions": [],
                      "new": true})"));
}

TEST(MergePatchTest, EqualObjectsGiveAnEmptyPatchAndNonObjectsAreReplaced) {
  ExpectRoundTrip(json::parse(R"({"a": {"b": [1]}})"), json::parse(R"({"a": {"b": [1]}})"),
                  json::object());
  EXPECT_EQ(CreateMergePatch(nullptr, json::parse(R"({"a": 1})")), json::parse(R"({"a": 1})"));
  ExpectRoundTrip(json::parse(R"({"a": {"b": 1}})"), json::parse(R"({"a": 5})"),
                  json::parse(R"({"a": 5})"));
  ExpectRoundTrip(json::parse(R"({"a": 5})"), json::parse(R"({"a": {"b": 1}})"),
                  json::parse(R"({"a": {"b": 1}})"));
}

}  // namespace
}  // namespace merge_patch_test
}  // namespace gpuprofile::kube
