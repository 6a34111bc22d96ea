// The node-group reconciler's decide step (node_group_decision.h) as data: which groups are
// created, patched or deleted, how condition times carry over, and when OfferedTwice warns.
#include "controller/reconciler/node_group_decision.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/api/gpu_node_group_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace node_group_decision_test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Verb = NodeGroupWrite::Verb;

const absl::Time kNow = absl::FromUnixSeconds(1796457600);  // 2026-12-05T08:00:00Z
constexpr char kNowText[] = "2026-12-05T08:00:00Z";

api::GpuNodeGroup Group(const std::string& name, int64_t devices) {
  api::GpuNodeGroup group;
  group.metadata.name = name;
  group.status.devices = devices;
  group.status.node_count = 1;
  return group;
}

meta::Condition Condition(const char* type, meta::ConditionStatus status,
                          const std::string& time = "") {
  meta::Condition c;
  c.type = type;
  c.status = status;
  c.reason = "Both";
  c.message = "offered by DRA and the device plugin";
  c.last_transition_time = time;
  return c;
}

// `object` as the cache decodes it.
std::shared_ptr<const NodeGroupObject> Cached(const nlohmann::json& object) {
  absl::StatusOr<std::shared_ptr<const NodeGroupObject>> cached = DecodeNodeGroupObject(object);
  EXPECT_TRUE(cached.ok()) << cached.status();
  return cached.ok() ? *cached : nullptr;
}

// `group` as the cache holds it, with its status as stored.
std::shared_ptr<const NodeGroupObject> Stored(api::GpuNodeGroup group, const std::string& uid) {
  group.metadata.uid = uid;
  return Cached(api::EncodeGpuNodeGroup(group, true));
}

std::vector<std::string> Lines(const NodeGroupPlan& plan) {
  std::vector<std::string> lines;
  for (const NodeGroupWrite& w : plan.writes) {
    const char* verb = w.verb == Verb::kCreate        ? "create"
                       : w.verb == Verb::kPatchStatus ? "patch"
                                                      : "delete";
    lines.push_back(std::string(verb) + " " + w.name + (w.uid.empty() ? "" : " uid=" + w.uid));
  }
  return lines;
}

// What a pass sees of `desired` at `now`, with nothing stored or written yet.
NodeGroupObservation Seeing(const std::vector<api::GpuNodeGroup>& desired, absl::Time now = kNow) {
  NodeGroupObservation seen;
  seen.desired = &desired;
  seen.now = now;
  return seen;
}

// The statuses `plan` wrote at `at`, as the reconciler remembers them.
std::map<std::string, WrittenStatus> WrittenBy(const NodeGroupPlan& plan, absl::Time at) {
  std::map<std::string, WrittenStatus> written;
  for (const NodeGroupWrite& w : plan.writes) written[w.name] = WrittenStatus{w.full_status, at};
  return written;
}

TEST(DecideNodeGroupsTest, CreatesPatchesKeepsAndDeletes) {
  const std::vector<api::GpuNodeGroup> desired = {Group("a100", 8), Group("h100", 8),
                                                  Group("l40s", 2)};
  NodeGroupObservation seen = Seeing(desired);
  seen.stored = {Stored(Group("h100", 4), "u-h100"), Stored(Group("l40s", 2), "u-l40s"),
                 Stored(Group("t4", 1), "u-t4")};
  const NodeGroupPlan plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), ElementsAre("create a100", "patch h100", "delete t4 uid=u-t4"));
  EXPECT_THAT(plan.warnings, IsEmpty());

  const NodeGroupWrite& create = plan.writes[0];
  EXPECT_FALSE(create.object.contains("status"));  // a create ignores status: written after
  EXPECT_EQ(create.object["metadata"]["labels"]["app.kubernetes.io/managed-by"],
            "gpu-profile-operator");
  EXPECT_EQ(create.status["devices"], 8);
  // Only what changed.
  EXPECT_EQ(plan.writes[1].status, (nlohmann::json{{"devices", 8}}));
}

// A pass right after the one that created a group and wrote its status can find the cache
// holding the group without that status (its watch has not brought the patch yet): the status
// written less than kWrittenStatusGrace ago is not written again, and the plan asks to come back
// when the grace ends. Another desired status, or the grace over, and it is written.
TEST(DecideNodeGroupsTest, AStatusJustWrittenIsNotWrittenAgainFromAStaleCache) {
  api::GpuNodeGroup t4 = Group("t4", 4);
  t4.status.conditions = {Condition(api::kConditionOfferedTwice, meta::ConditionStatus::kTrue)};
  const std::vector<api::GpuNodeGroup> desired = {t4};
  const NodeGroupPlan created = DecideNodeGroups(Seeing(desired));
  ASSERT_THAT(Lines(created), ElementsAre("create t4"));
  const std::map<std::string, WrittenStatus> written = WrittenBy(created, kNow);
  EXPECT_FALSE(created.writes[0].full_status["conditions"][0].contains("lastTransitionTime"));

  api::GpuNodeGroup bare = Group("t4", 0);  // created, status not seen yet
  bare.status.node_count = 0;
  // 6 ms on: the condition's time would be another second.
  NodeGroupObservation stale = Seeing(desired, kNow + absl::Milliseconds(6));
  stale.stored = {Stored(bare, "u-t4")};
  stale.written = &written;
  NodeGroupPlan plan = DecideNodeGroups(stale);
  EXPECT_THAT(Lines(plan), IsEmpty());
  EXPECT_EQ(plan.recheck_after, kWrittenStatusGrace - absl::Milliseconds(6));

  stale.now = kNow + kWrittenStatusGrace;  // the grace is over: the cache is believed
  plan = DecideNodeGroups(stale);
  EXPECT_THAT(Lines(plan), ElementsAre("patch t4"));
  EXPECT_EQ(plan.recheck_after, absl::ZeroDuration());

  const std::vector<api::GpuNodeGroup> grown = {Group("t4", 5)};  // a new status: written
  stale.desired = &grown;
  stale.now = kNow + absl::Seconds(1);
  plan = DecideNodeGroups(stale);
  EXPECT_THAT(Lines(plan), ElementsAre("patch t4"));
  EXPECT_EQ(plan.writes[0].full_status["devices"], 5);
}

// A pass right after the one that created a group can find the cache without the group at all
// (in the claims benchmark one group was created twice, the second a 409): a group this process
// created less than kWrittenStatusGrace ago is not created again; its status is patched if it
// changed since, and when the grace is over without the group in the cache it is created.
TEST(DecideNodeGroupsTest, AGroupJustCreatedIsNotCreatedAgainFromAStaleCache) {
  const std::vector<api::GpuNodeGroup> desired = {Group("t4", 4)};
  const NodeGroupPlan created = DecideNodeGroups(Seeing(desired));
  ASSERT_THAT(Lines(created), ElementsAre("create t4"));
  const std::map<std::string, WrittenStatus> written = WrittenBy(created, kNow);

  NodeGroupObservation stale = Seeing(desired, kNow + absl::Milliseconds(6));  // nothing stored
  stale.written = &written;
  NodeGroupPlan plan = DecideNodeGroups(stale);
  EXPECT_THAT(Lines(plan), IsEmpty());
  EXPECT_EQ(plan.recheck_after, kWrittenStatusGrace - absl::Milliseconds(6));

  const std::vector<api::GpuNodeGroup> grown = {Group("t4", 5)};
  stale.desired = &grown;
  plan = DecideNodeGroups(stale);
  ASSERT_THAT(Lines(plan), ElementsAre("patch t4"));
  EXPECT_EQ(plan.writes[0].status, (nlohmann::json{{"devices", 5}}));

  stale.now = kNow + kWrittenStatusGrace;
  plan = DecideNodeGroups(stale);
  EXPECT_THAT(Lines(plan), ElementsAre("create t4"));
}

// Under churn a group's status changes on every computation: a patch waits for the group's next
// time in the schedule (the plan comes back then), while a create is written at once.
TEST(DecideNodeGroupsTest, APatchWaitsForTheGroupsTimeInTheSchedule) {
  const std::vector<api::GpuNodeGroup> desired = {Group("a100", 8), Group("h100", 8)};
  StatusSchedule schedule(absl::Seconds(1), absl::Milliseconds(200));
  schedule.Wrote("a100", kNow);
  NodeGroupObservation seen = Seeing(desired, kNow + absl::Milliseconds(300));
  seen.stored = {Stored(Group("a100", 4), "u-a100")};
  seen.schedule = &schedule;
  NodeGroupPlan plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), ElementsAre("create h100"));
  EXPECT_EQ(plan.recheck_after, absl::Milliseconds(700));

  seen.now = kNow + absl::Seconds(1);
  plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), ElementsAre("patch a100", "create h100"));
}

TEST(DecideNodeGroupsTest, ConditionTimesCarryOverUntilTheStatusChanges) {
  api::GpuNodeGroup stored = Group("a100", 8);
  stored.status.conditions = {Condition(api::kConditionOfferedTwice, meta::ConditionStatus::kFalse,
                                        "2026-01-01T00:00:00Z")};

  api::GpuNodeGroup same = Group("a100", 8);
  same.status.conditions = {Condition(api::kConditionOfferedTwice, meta::ConditionStatus::kFalse)};
  std::vector<api::GpuNodeGroup> desired = {same};
  NodeGroupObservation seen = Seeing(desired);
  seen.stored = {Stored(stored, "u-a100")};
  EXPECT_THAT(DecideNodeGroups(seen).writes, IsEmpty());  // time kept: nothing differs

  desired[0].status.conditions[0].status = meta::ConditionStatus::kTrue;
  const NodeGroupPlan plan = DecideNodeGroups(seen);
  ASSERT_THAT(Lines(plan), ElementsAre("patch a100"));
  EXPECT_EQ(plan.writes[0].status["conditions"][0]["lastTransitionTime"], kNowText);
  EXPECT_THAT(plan.warnings, ElementsAre(NodeGroupEvent{"a100", "u-a100", "Both",
                                                        "offered by DRA and the device plugin"}));
}

TEST(DecideNodeGroupsTest, ANewGroupOfferedTwiceWarnsWithoutAUid) {
  api::GpuNodeGroup group = Group("a100", 8);
  group.status.conditions = {Condition(api::kConditionOfferedTwice, meta::ConditionStatus::kTrue)};
  const std::vector<api::GpuNodeGroup> desired = {group};
  NodeGroupObservation seen = Seeing(desired);
  const NodeGroupPlan plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), ElementsAre("create a100"));
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_EQ(plan.warnings[0].uid, "");
  EXPECT_EQ(plan.writes[0].status["conditions"][0]["lastTransitionTime"], kNowText);
}

// A stored status that decodes to the desired one is left alone when it is what this version
// writes, and patched when it holds a field this version does not know (the operator owns the
// status: the field goes). An unchanged group does not wait on the schedule either.
TEST(DecideNodeGroupsTest, AStoredStatusIsComparedAsStoredNotOnlyAsDecoded) {
  const std::vector<api::GpuNodeGroup> desired = {Group("a100", 8)};
  StatusSchedule schedule(absl::Seconds(1), absl::Milliseconds(200));
  schedule.Wrote("a100", kNow);
  NodeGroupObservation seen = Seeing(desired, kNow + absl::Milliseconds(300));
  seen.schedule = &schedule;
  seen.stored = {Stored(Group("a100", 8), "u-a100")};
  ASSERT_TRUE(seen.stored[0]->status_round_trips);
  NodeGroupPlan plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), IsEmpty());
  EXPECT_EQ(plan.recheck_after, absl::ZeroDuration());

  api::GpuNodeGroup a100 = Group("a100", 8);
  a100.metadata.uid = "u-a100";
  nlohmann::json object = api::EncodeGpuNodeGroup(a100, true);
  object["status"]["futureField"] = "x";
  seen.stored = {Cached(object)};
  ASSERT_FALSE(seen.stored[0]->status_round_trips);
  plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), IsEmpty());  // its time in the schedule has not come
  EXPECT_EQ(plan.recheck_after, absl::Milliseconds(700));
  seen.now = kNow + absl::Seconds(1);
  plan = DecideNodeGroups(seen);
  ASSERT_THAT(Lines(plan), ElementsAre("patch a100"));
  EXPECT_EQ(plan.writes[0].status, (nlohmann::json{{"futureField", nullptr}}));
}

// A group whose OfferedTwice turns True while its patch waits on the schedule warns once, with
// the patch, not on every pass that waits.
TEST(DecideNodeGroupsTest, AWarningWaitsWithItsPatch) {
  api::GpuNodeGroup twice = Group("a100", 8);
  twice.status.conditions = {Condition(api::kConditionOfferedTwice, meta::ConditionStatus::kTrue)};
  const std::vector<api::GpuNodeGroup> desired = {twice};
  StatusSchedule schedule(absl::Seconds(1), absl::Milliseconds(200));
  schedule.Wrote("a100", kNow);
  NodeGroupObservation seen = Seeing(desired, kNow + absl::Milliseconds(300));
  seen.schedule = &schedule;
  seen.stored = {Stored(Group("a100", 8), "u-a100")};
  NodeGroupPlan plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), IsEmpty());
  EXPECT_THAT(plan.warnings, IsEmpty());

  seen.now = kNow + absl::Seconds(1);
  plan = DecideNodeGroups(seen);
  EXPECT_THAT(Lines(plan), ElementsAre("patch a100"));
  EXPECT_EQ(plan.warnings.size(), 1u);
}

TEST(DecideNodeGroupsTest, NothingDesiredDeletesEveryStoredGroup) {
  const std::vector<api::GpuNodeGroup> desired;
  NodeGroupObservation seen = Seeing(desired);
  seen.stored = {Stored(Group("a100", 8), "u1"), Stored(Group("h100", 8), "u2")};
  EXPECT_THAT(Lines(DecideNodeGroups(seen)),
              ElementsAre("delete a100 uid=u1", "delete h100 uid=u2"));
}

}  // namespace
}  // namespace node_group_decision_test
}  // namespace gpuprofile::reconciler
