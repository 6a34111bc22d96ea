// File: test/dra/api_version_test.cc
#include "controller/dra/api_version.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile::dra {
namespace api_version_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

KubeVersion Kube(int minor) { return KubeVersion{minor, KubeVersion::kLatestPatch}; }

TEST(ParseDraApiVersionTest, AcceptsGroupQualifiedAndBareNames) {
  struct Case {
    const char* text;
    DraApiVersion want;
  };
  for (const Case& c :
       {Case{"resource.k8s.io/v1beta1", DraApiVersion::kV1beta1},
        Case{"v1beta1", DraApiVersion::kV1beta1},
        Case{"resource.k8s.io/v1beta2", DraApiVersion::kV1beta2},
        Case{"v1beta2", DraApiVersion::kV1beta2}, Case{"resource.k8s.io/v1", DraApiVersion::kV1},
        Case{"v1", DraApiVersion::kV1}}) {
    absl::StatusOr<DraApiVersion> got = ParseDraApiVersion(c.text);
    ASSERT_OK(got);
    EXPECT_EQ(*got, c.want) << c.text;
  }
}

TEST(ParseDraApiVersionTest, RejectsOtherVersionsAndGroups) {
  for (const char* text :
       {"", "v1alpha3", "resource.k8s.io/v1alpha3", "apps/v1", "resource.k8s.io/",
        "resource.k8s.io", "V1", " v1", "v1beta1 ", "resource.k8s.io/v1/x"}) {
    absl::StatusOr<DraApiVersion> got = ParseDraApiVersion(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("unknown DRA API version"));
    EXPECT_THAT(got.status().message(), HasSubstr("resource.k8s.io/v1beta2"));
  }
}

TEST(DraApiVersionToStringTest, IsGroupQualifiedAndParsesBack) {
  EXPECT_EQ(ToString(DraApiVersion::kV1beta1), "resource.k8s.io/v1beta1");
  EXPECT_EQ(ToString(DraApiVersion::kV1beta2), "resource.k8s.io/v1beta2");
  EXPECT_EQ(ToString(DraApiVersion::kV1), "resource.k8s.io/v1");
  EXPECT_EQ(VersionName(DraApiVersion::kV1beta2), "v1beta2");
  for (DraApiVersion v : {DraApiVersion::kV1beta1, DraApiVersion::kV1beta2, DraApiVersion::kV1}) {
    absl::StatusOr<DraApiVersion> back = ParseDraApiVersion(ToString(v));
    ASSERT_OK(back);
    EXPECT_EQ(*back, v);
  }
}

TEST(DefaultDraApiVersionTest, FollowsTheRelease) {
  EXPECT_EQ(DefaultDraApiVersion(Kube(32)), DraApiVersion::kV1beta1);
  EXPECT_EQ(DefaultDraApiVersion(KubeVersion{32, 1}), DraApiVersion::kV1beta1);
  EXPECT_EQ(DefaultDraApiVersion(Kube(33)), DraApiVersion::kV1beta2);
  EXPECT_EQ(DefaultDraApiVersion(Kube(34)), DraApiVersion::kV1);
  EXPECT_EQ(DefaultDraApiVersion(Kube(35)), DraApiVersion::kV1);
  EXPECT_EQ(DefaultDraApiVersion(Kube(36)), DraApiVersion::kV1);
}

TEST(CheckServedVersionTest, VersionMatrix) {
  struct Case {
    int minor;
    DraApiVersion version;
    bool exists;
  };
  const Case cases[] = {
      {32, DraApiVersion::kV1beta1, true}, {32, DraApiVersion::kV1beta2, false},
      {32, DraApiVersion::kV1, false},     {33, DraApiVersion::kV1beta1, true},
      {33, DraApiVersion::kV1beta2, true}, {33, DraApiVersion::kV1, false},
      {34, DraApiVersion::kV1beta1, true}, {34, DraApiVersion::kV1beta2, true},
      {34, DraApiVersion::kV1, true},      {35, DraApiVersion::kV1beta1, true},
      {36, DraApiVersion::kV1beta1, true}, {36, DraApiVersion::kV1beta2, true},
      {36, DraApiVersion::kV1, true},      {38, DraApiVersion::kV1beta1, false},
      {38, DraApiVersion::kV1beta2, true}, {39, DraApiVersion::kV1beta2, false},
      {39, DraApiVersion::kV1, true},
  };
  for (const Case& c : cases) {
    absl::Status status = CheckServedVersion(Kube(c.minor), c.version);
    EXPECT_EQ(status.ok(), c.exists)
        << "1." << c.minor << " " << ToString(c.version) << ": " << status;
    if (!c.exists) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(CheckServedVersionTest, MessageNamesVersionAndRelease) {
  absl::Status status = CheckServedVersion(KubeVersion{33, 2}, DraApiVersion::kV1);
  EXPECT_EQ(status.message(),
            "resource.k8s.io/v1 does not exist in Kubernetes 1.33.2 (introduced in 1.34)");
  status = CheckServedVersion(Kube(32), DraApiVersion::kV1beta2);
  EXPECT_EQ(status.message(),
            "resource.k8s.io/v1beta2 does not exist in Kubernetes 1.32 (introduced in 1.33)");
  status = CheckServedVersion(Kube(38), DraApiVersion::kV1beta1);
  EXPECT_EQ(status.message(),
            "resource.k8s.io/v1beta1 does not exist in Kubernetes 1.38 (removed in 1.38)");
}

TEST(DraApiVersionsInTest, NewestFirst) {
  EXPECT_THAT(DraApiVersionsIn(Kube(32)), ElementsAre(DraApiVersion::kV1beta1));
  EXPECT_THAT(DraApiVersionsIn(Kube(33)),
              ElementsAre(DraApiVersion::kV1beta2, DraApiVersion::kV1beta1));
  EXPECT_THAT(DraApiVersionsIn(Kube(36)),
              ElementsAre(DraApiVersion::kV1, DraApiVersion::kV1beta2, DraApiVersion::kV1beta1));
}

TEST(ChooseDraApiVersionTest, TheProjectsOrderNotTheServersPreference) {
  KubeVersion k133 = *KubeVersion::Parse("1.33");
  KubeVersion k134 = *KubeVersion::Parse("1.34");
  EXPECT_EQ(*ChooseDraApiVersion({"v1beta1", "v1beta2"}, k133), DraApiVersion::kV1beta2);
  EXPECT_EQ(*ChooseDraApiVersion({"v1beta1"}, k133), DraApiVersion::kV1beta1);
  EXPECT_EQ(*ChooseDraApiVersion({"v1beta2", "v1", "v1beta1"}, k134), DraApiVersion::kV1);
  EXPECT_EQ(*ChooseDraApiVersion({"v1beta1", "v1"}, std::nullopt), DraApiVersion::kV1);
  absl::StatusOr<DraApiVersion> none = ChooseDraApiVersion({"v1alpha3"}, std::nullopt);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::IsNotFound(none.status()));
  EXPECT_THAT(none.status().message(),
              HasSubstr("serves resource.k8s.io only in version v1alpha3, which this operator "
                        "does not read (it reads v1, v1beta2, v1beta1)"));
  absl::StatusOr<DraApiVersion> future = ChooseDraApiVersion({"v2", "v1alpha3"}, k134);
  ASSERT_FALSE(future.ok());
  EXPECT_THAT(future.status().message(),
              HasSubstr("only in versions v2, v1alpha3, which this operator does not read (it "
                        "reads v1, v1beta2, v1beta1 on Kubernetes 1.34)"));
  absl::StatusOr<DraApiVersion> nothing = ChooseDraApiVersion({}, k134);
  ASSERT_FALSE(nothing.ok());
  EXPECT_TRUE(absl::IsNotFound(nothing.status()));
  EXPECT_THAT(nothing.status().message(), HasSubstr("serves no resource.k8s.io version"));
}

}  // namespace
}  // namespace api_version_test
}  // namespace gpuprofile::dra
