// The KueueMapped condition (controller/kueue/kueue_mapped.h) as a table: for each
// Configuration read (or error) and the classes a profile's requests name, the condition.
#include "controller/kueue/kueue_mapped.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::kueue {
namespace kueue_mapped_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

KueueConfig Mapping(std::vector<std::pair<std::string, std::vector<std::string>>> entries) {
  KueueConfig config;
  for (auto& [name, classes] : entries) config.mappings.push_back({name, classes});
  return config;
}

struct Case {
  std::string what;
  absl::StatusOr<KueueConfig> config;
  std::vector<std::string> classes;
  meta::ConditionStatus status;
  std::string reason;
  std::vector<std::string> in_message;
  std::vector<std::string> not_in_message;
};

TEST(KueueMappedTest, Table) {
  const KueueConfig both =
      Mapping({{"gpuprofile.io/h100", {"h100"}}, {"gpuprofile.io/a100", {"a100"}}});
  const std::vector<Case> cases = {
      {"every class mapped",
       both,
       {"h100", "a100"},
       meta::ConditionStatus::kTrue,
       kReasonDeviceClassesMapped,
       {"h100 -> gpuprofile.io/h100", "a100 -> gpuprofile.io/a100"},
       {}},
      {"a fallback class unmapped",
       Mapping({{"gpuprofile.io/h100", {"h100"}}}),
       {"h100", "a100", "l40s"},
       meta::ConditionStatus::kFalse,
       kReasonMissingDeviceClassMapping,
       {"DeviceClasses a100, l40s", "restart"},
       {"h100,"}},
      {"the own class unmapped",
       Mapping({{"r", {"other"}}}),
       {"h100"},
       meta::ConditionStatus::kFalse,
       kReasonMissingDeviceClassMapping,
       {"DeviceClass h100:"},
       {}},
      {"no mapping at all",
       KueueConfig{},
       {"h100"},
       meta::ConditionStatus::kFalse,
       kReasonMissingDeviceClassMapping,
       {"h100"},
       {}},
      {"a class in a shared mapping",
       Mapping({{"example.com/gpu", {"x", "h100"}}}),
       {"h100", "h100"},
       meta::ConditionStatus::kTrue,
       kReasonDeviceClassesMapped,
       {"h100 -> example.com/gpu"},
       {}},
      {"config unreadable",
       absl::InvalidArgumentError("configmap kueue-system/kueue-manager-config: resources: must "
                                  "be an object, not a list"),
       {"h100"},
       meta::ConditionStatus::kUnknown,
       kReasonKueueConfigUnreadable,
       {"configmap kueue-system/kueue-manager-config: resources:"},
       {}},
      {"config missing",
       absl::NotFoundError("configmap kueue-system/kueue-manager-config: not found"),
       {"h100"},
       meta::ConditionStatus::kUnknown,
       kReasonKueueConfigUnreadable,
       {"not found"},
       {}},
  };
  for (const Case& c : cases) {
    const meta::Condition got = KueueMappedCondition(c.config, c.classes, 7);
    EXPECT_EQ(got.type, kConditionKueueMapped) << c.what;
    EXPECT_EQ(got.status, c.status) << c.what;
    EXPECT_EQ(got.reason, c.reason) << c.what;
    EXPECT_EQ(got.observed_generation, 7) << c.what;
    for (const std::string& s : c.in_message) EXPECT_THAT(got.message, HasSubstr(s)) << c.what;
    for (const std::string& s : c.not_in_message) {
      EXPECT_THAT(got.message, Not(HasSubstr(s))) << c.what;
    }
  }
}

TEST(KueueMappedTest, SetReplacesAndRemoves) {
  api::GpuProfileStatus status;
  meta::Condition ready;
  ready.type = meta::kConditionReady;
  ready.status = meta::ConditionStatus::kTrue;
  status.conditions.push_back(ready);
  SetKueueMapped(KueueConfig{}, {"h100"}, 1, &status);
  ASSERT_EQ(status.conditions.size(), 2u);
  EXPECT_EQ(status.conditions[1].status, meta::ConditionStatus::kFalse);
  SetKueueMapped(Mapping({{"r", {"h100"}}}), {"h100"}, 2, &status);
  ASSERT_EQ(status.conditions.size(), 2u);
  EXPECT_EQ(status.conditions[1].status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(status.conditions[1].observed_generation, 2);
  // A profile that generates nothing has no class to map: no condition.
  SetKueueMapped(Mapping({{"r", {"h100"}}}), {}, 2, &status);
  ASSERT_EQ(status.conditions.size(), 1u);
  EXPECT_EQ(status.conditions[0].type, meta::kConditionReady);
}

}  // namespace
}  // namespace kueue_mapped_test
}  // namespace gpuprofile::kueue
