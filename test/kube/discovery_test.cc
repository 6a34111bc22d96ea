// File: test/kube/discovery_test.cc
#include "controller/kube/discovery.h"

#include <string>
#include <vector>

#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kube/testing/fake_transport.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::kube {
namespace discovery_test {
namespace {

using ::testing::ElementsAre;
using testing::FakeTransport;
using testing::JsonReply;

nlohmann::json Groups(const std::vector<std::string>& dra_versions, const std::string& preferred,
                      bool with_crd = false) {
  nlohmann::json versions = nlohmann::json::array();
  for (const std::string& v : dra_versions) {
    versions.push_back({{"groupVersion", "resource.k8s.io/" + v}, {"version", v}});
  }
  nlohmann::json groups = {
      {{"name", "coordination.k8s.io"},
       {"versions", {{{"groupVersion", "coordination.k8s.io/v1"}, {"version", "v1"}}}},
       {"preferredVersion", {{"groupVersion", "coordination.k8s.io/v1"}, {"version", "v1"}}}},
      {{"name", "resource.k8s.io"},
       {"versions", versions},
       {"preferredVersion", {{"groupVersion", "resource.k8s.io/" + preferred},
                             {"version", preferred}}}}};
  if (with_crd) {
    groups.push_back({{"name", "gpuprofile.io"},
                      {"versions", {{{"version", "v1alpha1"}}}},
                      {"preferredVersion", {{"version", "v1alpha1"}}}});
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

nlohmann::json Version(const std::string& minor, const std::string& git) {
  return {{"major", "1"}, {"minor", minor}, {"gitVersion", git}, {"platform", "linux/amd64"}};
}

class DiscoveryTest : public ::testing::Test {
 protected:
  DiscoveryTest() {
    RestClientOptions o;
    o.clock = &clock_;
    client_ = std::make_unique<RestClient>(&transport_, o);
  }
  runtime::FakeClock clock_;
  FakeTransport transport_;
  std::unique_ptr<RestClient> client_;
};

TEST(ParseServerVersionTest, ReadsMinorWithPlusAndPatchFromGitVersion) {
  ASSERT_OK_AND_ASSIGN(ServerVersion v, ParseServerVersion(Version("33+", "v1.33.4-eks-1")));
  EXPECT_EQ(v.minor, 33);
  ASSERT_TRUE(v.kube.has_value());
  EXPECT_EQ(v.kube->ToString(), "1.33.4");
  ASSERT_OK_AND_ASSIGN(ServerVersion old, ParseServerVersion(Version("29", "v1.29.0")));
  EXPECT_FALSE(old.kube.has_value());  // outside the modelled releases
  EXPECT_FALSE(ParseServerVersion({{"major", "x"}}).ok());
}

TEST_F(DiscoveryTest, PreferredVersionsAreCachedUntilRefresh) {
  transport_.SetHandler([](const HttpRequest& r) {
    if (r.path == "/version") return JsonReply(200, Version("33", "v1.33.1"));
    EXPECT_EQ(r.path, "/apis");
    return JsonReply(200, Groups({"v1beta1", "v1beta2"}, "v1beta1"));
  });
  Discovery discovery(client_.get());
  ASSERT_OK(discovery.GetServerVersion());
  // The server's preference: which version the operator uses is its own choice (dra).
  ASSERT_OK_AND_ASSIGN(std::string dra, discovery.PreferredVersion("resource.k8s.io"));
  EXPECT_EQ(dra, "v1beta1");
  EXPECT_THAT(*discovery.ServedVersions("resource.k8s.io"), ElementsAre("v1beta1", "v1beta2"));
  EXPECT_EQ(*discovery.PreferredVersion("coordination.k8s.io"), "v1");
  EXPECT_EQ(*discovery.PreferredVersion(""), "v1");
  EXPECT_EQ(transport_.request_count(), 2u);  // /version and /apis once each
  discovery.Refresh();
  ASSERT_OK(discovery.GetServerVersion());
  ASSERT_OK(discovery.ServedVersions("resource.k8s.io"));
  EXPECT_EQ(transport_.request_count(), 4u);
}

TEST_F(DiscoveryTest, AnUnknownGroupRefreshesOnceThenIsNotFound) {
  int apis_calls = 0;
  transport_.SetHandler([&apis_calls](const HttpRequest& r) {
    ++apis_calls;
    // The CRD's group appears between the first and the second look.
    return JsonReply(200, Groups({"v1"}, "v1", /*with_crd=*/apis_calls > 1));
  });
  Discovery discovery(client_.get());
  ASSERT_OK(discovery.Groups());
  EXPECT_EQ(*discovery.PreferredVersion("gpuprofile.io"), "v1alpha1");
  absl::StatusOr<std::string> missing = discovery.PreferredVersion("example.com");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_NE(missing.status().message().find("does not serve the API group \"example.com\""),
            absl::string_view::npos);
  EXPECT_EQ(apis_calls, 3);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> none, discovery.ServedVersions("example.com"));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace discovery_test
}  // namespace gpuprofile::kube
