// File: test/explain/pod_test.cc
// What a Pod asks the NVIDIA device plugin for (controller/explain/pod.h,
// device_plugin_requests): limits over requests, containers and sidecars summed, an init
// container's when it asks for more, MIG resources, and errors naming the field.
#include "controller/explain/pod.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::explain {
namespace pod_test {
namespace {

using ::testing::HasSubstr;

struct RequestsCase {
  std::string name;
  std::string spec;  // the pod's spec, JSON
  std::map<std::string, int64_t> want;
};

void PrintTo(const RequestsCase& c, std::ostream* os) { *os << c.name; }

class DevicePluginRequestsTest : public ::testing::TestWithParam<RequestsCase> {};

TEST_P(DevicePluginRequestsTest, AsTheSchedulerCountsThem) {
  const RequestsCase& c = GetParam();
  absl::StatusOr<Pod> pod = DecodePod(nlohmann::json::parse(
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": )" + c.spec + "}"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->device_plugin_requests, c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DevicePluginRequestsTest,
    ::testing::Values(RequestsCase{"None", R"({"containers": [{"name": "a"}]})", {}},
                      RequestsCase{
                          "OtherResourcesAreNotKept",
                          R"({"containers": [{"name": "a", "resources": {"limits": {"cpu": "2",
                        "example.com/fpga": "1"}}}]})",
                          {}},
                      RequestsCase{"LimitOverRequest",
                                   R"({"containers": [{"name": "a", "resources": {"requests":
                        {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}}]})",
                                   {{"nvidia.com/gpu", 2}}},
                      RequestsCase{"RequestAlone",
                                   R"({"containers": [{"name": "a", "resources": {"requests":
                        {"nvidia.com/gpu": 3}}}]})",
                                   {{"nvidia.com/gpu", 3}}},
                      RequestsCase{"ContainersAndSidecarsAreSummed",
                                   R"({"containers": [
                          {"name": "a", "resources": {"limits": {"nvidia.com/gpu": "1"}}},
                          {"name": "b", "resources": {"limits": {"nvidia.com/gpu": "2"}}}],
                        "initContainers": [{"name": "s", "restartPolicy": "Always",
                          "resources": {"limits": {"nvidia.com/gpu": "1"}}}]})",
                                   {{"nvidia.com/gpu", 4}}},
                      RequestsCase{"AnInitContainerAskingMoreWins",
                                   R"({"containers": [
                          {"name": "a", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                        "initContainers": [{"name": "i",
                          "resources": {"limits": {"nvidia.com/gpu": "4"}}}]})",
                                   {{"nvidia.com/gpu", 4}}},
                      RequestsCase{"MigResources",
                                   R"({"containers": [{"name": "a", "resources": {"limits":
                        {"nvidia.com/mig-1g.5gb": "2"}}}]})",
                                   {{"nvidia.com/mig-1g.5gb", 2}}},
                      RequestsCase{"ZeroIsLeftOut",
                                   R"({"containers": [{"name": "a", "resources": {"limits":
                        {"nvidia.com/gpu": "0"}}}]})",
                                   {}}),
    [](const ::testing::TestParamInfo<RequestsCase>& param) { return param.param.name; });

TEST(DevicePluginRequestsTest, NotAWholeNumberNamesTheField) {
  absl::StatusOr<Pod> pod = DecodePod(nlohmann::json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
    "spec": {"containers": [{"name": "a", "resources": {"limits": {"nvidia.com/gpu": "500m"}}},
                            {"name": "b", "resources": {"requests": {"nvidia.com/gpu": true}}}]}})"));
  ASSERT_FALSE(pod.ok());
  EXPECT_THAT(pod.status().message(),
              HasSubstr("Pod \"ns/p\": spec.containers[0].resources.limits[nvidia.com/gpu]: must "
                        "be a whole number of devices"));
  EXPECT_THAT(pod.status().message(),
              HasSubstr("spec.containers[1].resources.requests[nvidia.com/gpu]: must be a whole "
                        "number of devices"));
}

}  // namespace
}  // namespace pod_test
}  // namespace gpuprofile::explain
