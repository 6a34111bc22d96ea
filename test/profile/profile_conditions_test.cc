// File: test/profile/profile_conditions_test.cc
// The Satisfiable condition is about what the scheduler could allocate: taints, incomplete pools
// and shared counters are named as the reasons when matched devices cannot run, and slices that
// could not be decoded are named too.
#include "controller/profile/profile_conditions.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::profile {
namespace profile_conditions_test {
namespace {

using ::testing::HasSubstr;

meta::Condition Satisfiable(const ProfileFacts& facts) {
  for (const meta::Condition& c : ProfileConditions(facts)) {
    if (c.type == meta::kConditionSatisfiable) return c;
  }
  ADD_FAILURE() << "no Satisfiable condition";
  return {};
}

ProfileFacts Matched(int64_t matched, int64_t schedulable) {
  ProfileFacts f;
  f.matched_devices = matched;
  f.matched_nodes = 1;
  f.matched_node_groups = 1;
  f.schedulable_devices = schedulable;
  return f;
}

TEST(SatisfiableTest, SchedulableDevicesMakeItTrue) {
  meta::Condition c = Satisfiable(Matched(4, 4));
  EXPECT_EQ(c.status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, kReasonDevicesMatched);
  EXPECT_EQ(c.message, "4 devices on 1 node in 1 node group");
}

TEST(SatisfiableTest, TaintedDevicesAreNamedAsTheReason) {
  ProfileFacts f = Matched(2, 1);
  f.tainted_devices = 1;
  meta::Condition c = Satisfiable(f);
  EXPECT_EQ(c.status, meta::ConditionStatus::kTrue);
  EXPECT_EQ(c.message,
            "2 devices on 1 node in 1 node group; 1 schedulable (1 with a taint the profile does "
            "not tolerate)");
  f = Matched(2, 0);
  f.tainted_devices = 2;
  c = Satisfiable(f);
  EXPECT_EQ(c.status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(c.reason, kReasonDevicesTainted);
}

TEST(SatisfiableTest, PoolsAndCountersMakeDevicesUnavailable) {
  ProfileFacts f = Matched(3, 0);
  f.tainted_devices = 1;
  f.incomplete_pool_devices = 1;
  f.counter_limited_devices = 1;
  meta::Condition c = Satisfiable(f);
  EXPECT_EQ(c.status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(c.reason, kReasonDevicesUnavailable);
  EXPECT_THAT(c.message, HasSubstr("0 schedulable (1 with a taint the profile does not "
                                   "tolerate, 1 in incomplete pools, 1 not allocatable at the "
                                   "same time (shared counters))"));
}

TEST(SatisfiableTest, NoMatchIsNoMatchingDevices) {
  meta::Condition c = Satisfiable(Matched(0, 0));
  EXPECT_EQ(c.status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(c.reason, kReasonNoMatchingDevices);
}

TEST(SatisfiableTest, UndecodableSlicesAreNamed) {
  ProfileFacts f = Matched(4, 4);
  f.undecodable_slices = 2;
  f.first_undecodable_slice = "node-a-gpu: spec.devices[0].attributes.x: bad";
  meta::Condition c = Satisfiable(f);
  EXPECT_EQ(c.status, meta::ConditionStatus::kTrue);
  EXPECT_THAT(c.message, HasSubstr("; 2 ResourceSlices could not be decoded and their devices "
                                   "are not counted (first: node-a-gpu: "
                                   "spec.devices[0].attributes.x: bad)"));
}

}  // namespace
}  // namespace profile_conditions_test
}  // namespace gpuprofile::profile
