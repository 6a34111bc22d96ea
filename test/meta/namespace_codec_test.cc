// File: test/meta/namespace_codec_test.cc
#include "controller/meta/namespace_codec.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::meta {
namespace namespace_codec_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json Ns(const std::string& extra_metadata = "", const std::string& status = "") {
  std::string text = R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml-train",
      "labels": {"gpu-profiles": "enabled"})" +
                     extra_metadata + "}";
  if (!status.empty()) text += R"(, "status": )" + status;
  return json::parse(text + "}");
}

TEST(NamespaceCodecTest, DecodesNameAndLabels) {
  ASSERT_OK_AND_ASSIGN(Namespace ns, DecodeNamespace(Ns("", R"({"phase": "Active"})")));
  EXPECT_EQ(ns.metadata.name, "ml-train");
  EXPECT_EQ(ns.metadata.labels.at("gpu-profiles"), "enabled");
  EXPECT_FALSE(ns.terminating);
  EXPECT_TRUE(IsNamespace(Ns()));
}

TEST(NamespaceCodecTest, TerminatingByPhase) {
  ASSERT_OK_AND_ASSIGN(Namespace ns, DecodeNamespace(Ns("", R"({"phase": "Terminating"})")));
  EXPECT_TRUE(ns.terminating);
}

TEST(NamespaceCodecTest, TerminatingByDeletionTimestamp) {
  ASSERT_OK_AND_ASSIGN(Namespace ns,
                       DecodeNamespace(Ns(R"(, "deletionTimestamp": "2025-01-01T00:00:00Z")")));
  EXPECT_TRUE(ns.terminating);
}

TEST(NamespaceCodecTest, StatusIsLenient) {
  ASSERT_OK_AND_ASSIGN(Namespace ns, DecodeNamespace(Ns("", R"({"phase": 3})")));
  EXPECT_FALSE(ns.terminating);
  ASSERT_OK(DecodeNamespace(Ns("", R"("odd")")));
}

TEST(NamespaceCodecTest, RejectsWhatIsNotANamespace) {
  struct Case {
    json object;
    std::string expected;
  };
  json no_name = Ns();
  no_name["metadata"].erase("name");
  json pod = Ns();
  pod["kind"] = "Pod";
  json wrong_version = Ns();
  wrong_version["apiVersion"] = "v2";
  json bad_labels = Ns();
  bad_labels["metadata"]["labels"] = "x";
  for (const Case& c : std::vector<Case>{{no_name, "metadata.name: required"},
                                         {pod, "kind: expected \"Namespace\", got \"Pod\""},
                                         {wrong_version, "apiVersion: expected \"v1\""},
                                         {bad_labels, "metadata.labels: must be an object"},
                                         {json::array(), "(root): must be an object"}}) {
    absl::StatusOr<Namespace> ns = DecodeNamespace(c.object);
    ASSERT_FALSE(ns.ok()) << c.expected;
    EXPECT_THAT(std::string(ns.status().message()), HasSubstr(c.expected));
  }
  EXPECT_FALSE(IsNamespace(pod));
}

}  // namespace
}  // namespace namespace_codec_test
}  // namespace gpuprofile::meta
