// File: test/cmd/cel_command_test.cc
// `cel check` and `cel match` as users run them: exit codes, messages, JSON shape and order,
// on the shipped example fleet (config/samples/fleet).
#include "controller/cmd/cel_command.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "controller/core/kube_version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/test_paths.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::cmd {
namespace cel_command_test {
namespace {

using ::testing::HasSubstr;

struct Result {
  int code;
  std::string out, err;
};

Result Cel(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunCel(args, out, err);
  return {code, out.str(), err.str()};
}

const std::string kFleet = ::gpuprofile::testing::SourceDir() + "/config/samples/fleet";
const std::string kGuard =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";

TEST(CelCheckTest, AcceptedExitsZero) {
  Result r = Cel({"check", "--kube-version", "1.32", kGuard});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("accepted by Kubernetes 1.32"));
}

TEST(CelCheckTest, RejectedExitsOneWithPositionAndCaret) {
  Result r = Cel({"check", "device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi')"});
  EXPECT_EQ(r.code, 1);
  // Without --kube-version: the newest release modelled.
  EXPECT_THAT(r.err, HasSubstr("rejected by Kubernetes " + KubeVersion::Newest().ToString()));
  EXPECT_THAT(r.err, HasSubstr("<input>:1:"));
  EXPECT_THAT(r.err, HasSubstr("^"));
}

TEST(CelCheckTest, VersionGateNamesTheVersion) {
  std::string e = "device.attributes['gpu.nvidia.com'].driverVersion.compareTo("
                  "semver('550.0', true)) >= 0";
  Result old = Cel({"check", "--kube-version", "1.33", e});
  EXPECT_EQ(old.code, 1);
  EXPECT_THAT(old.err, HasSubstr("1.34"));
  EXPECT_EQ(Cel({"check", "--kube-version", "1.34", e}).code, 0);
}

TEST(CelCheckTest, PatchVersionMatters) {
  std::string e = "device.attributes['gpu.nvidia.com'].productName.lowerAscii()"
                  ".matches('^.*a100.*$')";
  EXPECT_EQ(Cel({"check", "--kube-version", "1.32.1", e}).code, 1);
  EXPECT_EQ(Cel({"check", "--kube-version", "1.32.3", e}).code, 0);
}

TEST(CelCheckTest, UnimplementedFeatureExitsThree) {
  Result r = Cel({"check", "google.protobuf.Int64Value{value: 1} == 1"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("does not implement"));
}

TEST(CelCheckTest, UsageErrors) {
  EXPECT_EQ(Cel({"check"}).code, 2);
  EXPECT_EQ(Cel({"check", "--kube-version", "1.20", kGuard}).code, 2);
  EXPECT_EQ(Cel({"check", "--bogus", kGuard}).code, 2);
  EXPECT_EQ(Cel({"frobnicate"}).code, 2);
}

TEST(CelMatchTest, JsonShapeAndOrder) {
  Result r = Cel({"match", "-o", "json", "-f", kFleet,
                  kGuard + " && device.capacity['gpu.nvidia.com'].memory.compareTo("
                           "quantity('48Gi')) >= 0"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_FALSE(j.empty());
  std::vector<std::string> keys;
  for (auto it = j[0].begin(); it != j[0].end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"node", "pool", "device", "driver", "matched",
                                            "error"}));
  int matched = 0;
  std::string last;
  for (const auto& d : j) {
    std::string key = d["node"].get<std::string>() + "/" + d["pool"].get<std::string>() + "/" +
                      d["device"].get<std::string>();
    EXPECT_LE(last, key);
    last = key;
    matched += d["matched"].get<bool>();
    EXPECT_TRUE(d["error"].is_null());
  }
  // Neither the A100-40GB (40Gi) nor the L40S (46068Mi) has 48 GiB.
  EXPECT_EQ(matched, 0);
}

TEST(CelMatchTest, RuntimeErrorsAreReportedPerDevice) {
  Result r = Cel({"match", "-o", "json", "-f", kFleet,
                  "device.attributes['gpu.nvidia.com'].addressingMode == 'HMM'"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  int errors = 0;
  for (const auto& d : j) {
    if (!d["error"].is_null()) {
      ++errors;
      EXPECT_EQ(d["error"], "no such key: addressingMode");
      EXPECT_FALSE(d["matched"].get<bool>());
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(CelMatchTest, TextOutputSummarises) {
  Result r = Cel({"match", "-f", kFleet, kGuard});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NODE"));
  EXPECT_THAT(r.out, HasSubstr("devices match"));
}

TEST(CelMatchTest, CompileErrorExitsOne) {
  Result r = Cel({"match", "-f", kFleet, "device.driver +"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("Syntax error"));
}

TEST(CelMatchTest, UnreadableInputNamesTheFile) {
  std::string bad = ::testing::TempDir() + "/bad-slice.yaml";
  std::ofstream(bad) << "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nspec: [unclosed\n";
  Result r = Cel({"match", "-f", bad, kGuard});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("bad-slice.yaml"));
}

TEST(CelMatchTest, UsageErrors) {
  EXPECT_EQ(Cel({"match", kGuard}).code, 2);
  EXPECT_EQ(Cel({"match", "-f", kFleet}).code, 2);
  EXPECT_EQ(Cel({"match", "-f", kFleet, "-o", "xml", kGuard}).code, 2);
}

}  // namespace
}  // namespace cel_command_test
}  // namespace gpuprofile::cmd
