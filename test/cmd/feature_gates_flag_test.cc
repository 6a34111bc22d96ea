// File: test/cmd/feature_gates_flag_test.cc
// `--feature-gates` on `cel check`, `cel match` and `render`: what it opens in the CEL
// environment, the note `cel check` adds when an expression is accepted only because a gate is
// on, and bad values as usage errors (exit 2) with the API server's wording.
#include <sstream>
#include <string>
#include <vector>

#include "controller/cmd/cel_command.h"
#include "controller/cmd/render_command.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/test_paths.h"

namespace gpuprofile::cmd {
namespace feature_gates_flag_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int code;
  std::string out, err;
};

Result Cel(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunCel(args, out, err);
  return {code, out.str(), err.str()};
}

Result Render(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunRender(args, out, err);
  return {code, out.str(), err.str()};
}

const std::string kFleet = ::gpuprofile::testing::SourceDir() + "/config/samples/fleet";
constexpr char kMulti[] = "device.allowMultipleAllocations == true";
constexpr char kIncludes[] = "device.attributes['gpu.nvidia.com'].numaNode.includes(0)";

// The false rejection: 1.36 has DRAConsumableCapacity on by default.
TEST(CelCheckGatesTest, AllowMultipleAllocationsAcceptedOn136) {
  Result r = Cel({"check", "--kube-version", "1.36", kMulti});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("accepted by Kubernetes 1.36"));
  EXPECT_THAT(r.out,
              HasSubstr("only because feature gate DRAConsumableCapacity (on by default in 1.36) "
                        "is on"));
}

TEST(CelCheckGatesTest, AllowMultipleAllocationsOn135NeedsTheGate) {
  Result off = Cel({"check", "--kube-version", "1.35", kMulti});
  EXPECT_EQ(off.code, 1);
  EXPECT_THAT(off.err, HasSubstr("undefined field 'allowMultipleAllocations'"));
  EXPECT_THAT(off.err, HasSubstr("--feature-gates DRAConsumableCapacity=true"));
  Result on = Cel({"check", "--kube-version", "1.35", "--feature-gates",
                   "DRAConsumableCapacity=true", kMulti});
  EXPECT_EQ(on.code, 0) << on.err;
  EXPECT_THAT(on.out, HasSubstr("DRAConsumableCapacity (on by --feature-gates)"));
}

TEST(CelCheckGatesTest, IncludesFollowsDRAListTypeAttributes) {
  Result off = Cel({"check", "--kube-version", "1.36", kIncludes});
  EXPECT_EQ(off.code, 1);
  EXPECT_THAT(off.err, HasSubstr("DRAListTypeAttributes"));
  Result on = Cel({"check", "--kube-version", "1.37", "--feature-gates",
                   "DRAListTypeAttributes=true", kIncludes});
  EXPECT_EQ(on.code, 0) << on.err;
  EXPECT_THAT(on.out, HasSubstr("estimated cost 52"));
  EXPECT_THAT(on.out, HasSubstr("DRAListTypeAttributes (on by --feature-gates)"));
}

TEST(CelCheckGatesTest, NoNoteWhenNoGateIsNeeded) {
  Result r = Cel({"check", "--kube-version", "1.36", "--feature-gates",
                  "DRAListTypeAttributes=true", "device.driver == 'gpu.nvidia.com'"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("only because")));
}

TEST(CelCheckGatesTest, RepeatedFlagsMerge) {
  Result r = Cel({"check", "--kube-version", "1.36", "--feature-gates",
                  "DRAConsumableCapacity=false", "--feature-gates", "DRAListTypeAttributes=true",
                  kMulti});
  EXPECT_EQ(r.code, 1);  // DRAConsumableCapacity=false still applies
  EXPECT_EQ(Cel({"check", "--kube-version", "1.36", "--feature-gates",
                 "DRAConsumableCapacity=false", "--feature-gates", "DRAListTypeAttributes=true",
                 kIncludes})
                .code,
            0);
}

TEST(CelCheckGatesTest, BadGatesAreUsageErrors) {
  Result unknown = Cel({"check", "--feature-gates", "NoSuchGate=true", kMulti});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unrecognized feature gate \"NoSuchGate\""));
  Result too_early = Cel(
      {"check", "--kube-version", "1.35", "--feature-gates", "DRAListTypeAttributes=true", kMulti});
  EXPECT_EQ(too_early.code, 2);
  EXPECT_THAT(too_early.err, HasSubstr("it exists from 1.36"));
  EXPECT_EQ(Cel({"check", "--feature-gates", "DRAConsumableCapacity=yes", kMulti}).code, 2);
  // Help names the flag and the defaults rule.
  Result usage = Cel({"check", "--nope", kMulti});
  EXPECT_EQ(usage.code, 2);
  EXPECT_THAT(usage.err, HasSubstr("--feature-gates NAME=true,..."));
  EXPECT_THAT(usage.err, HasSubstr("gates not named take the"));
}

TEST(CelMatchGatesTest, FlagReachesTheEnvironment) {
  Result off = Cel({"match", "--kube-version", "1.35", "-f", kFleet, kMulti});
  EXPECT_EQ(off.code, 1);
  Result on = Cel({"match", "--kube-version", "1.35", "--feature-gates",
                   "DRAConsumableCapacity=true", "-f", kFleet, kMulti});
  EXPECT_EQ(on.code, 0) << on.err;
  EXPECT_THAT(on.out, HasSubstr("devices match"));
  EXPECT_EQ(Cel({"match", "--feature-gates", "Bogus=true", "-f", kFleet, kMulti}).code, 2);
}

// The NVIDIA driver's 1.36 shape: numaNode as a one-element `ints` list.
const std::string kNumaList = ::gpuprofile::testing::SourceDir() +
                              "/test/testdata/dra/nvidia-1.35/"
                              "dynamicmig-a100x2-numalist-taint.k8s-1.36.v1.yaml";

TEST(CelMatchGatesTest, ListAttributesFollowTheRelease) {
  const std::string numa0 =
      "device.attributes['resource.kubernetes.io'].numaNode.includes(0)";
  Result on = Cel({"match", "--kube-version", "1.36", "--feature-gates",
                   "DRAListTypeAttributes=true", "-o", "json", "-f", kNumaList, numa0});
  ASSERT_EQ(on.code, 0) << on.err;
  EXPECT_THAT(on.out, HasSubstr("\"matched\": true"));
  EXPECT_THAT(on.out, Not(HasSubstr("unsupported attribute value")));
  // 1.36 without the gate: the scheduler cannot read the list, so every selector fails on
  // those devices, whatever it reads.
  Result off = Cel({"match", "--kube-version", "1.36", "-f", kNumaList,
                    "device.driver == 'gpu.nvidia.com'"});
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_THAT(off.out,
              HasSubstr("attribute resource.kubernetes.io/numaNode: unsupported attribute value"));
  EXPECT_THAT(off.out, HasSubstr("raise a runtime error"));
  // 1.37 reads lists whatever the gate.
  Result v137 = Cel({"match", "--kube-version", "1.37", "-f", kNumaList,
                     "0 in device.attributes['resource.kubernetes.io'].numaNode"});
  ASSERT_EQ(v137.code, 0) << v137.err;
  EXPECT_THAT(v137.out, Not(HasSubstr("error")));
}

TEST(RenderGatesTest, BadGatesAreUsageErrors) {
  const std::string profiles = ::gpuprofile::testing::SourceDir() + "/config/samples/profiles";
  Result r = Render({"-f", profiles, "-f", kFleet, "--kube-version", "1.34", "--feature-gates",
                     "DRAListTypeAttributes=true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("DRAListTypeAttributes is not a feature gate of Kubernetes 1.34"));
  EXPECT_THAT(r.err, HasSubstr("--feature-gates NAME=true,..."));
  Result ok = Render({"-f", profiles, "-f", kFleet, "--kube-version", "1.36", "--feature-gates",
                      "DRAListTypeAttributes=true,DRAConsumableCapacity=true"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

}  // namespace
}  // namespace feature_gates_flag_test
}  // namespace gpuprofile::cmd
