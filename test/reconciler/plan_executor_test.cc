// The executor of object plans (plan_executor.h) against a fake writer: what it writes for each
// action, and how it handles what the server answers — a create meeting an unmanaged template or
// quota (recorded as foreign observed state), one meeting the operator's own (the cache was
// behind), failures that must not stop the other actions, and a re-create whose delete failed.
#include "controller/reconciler/plan_executor.h"

#include <memory>
#include <string>
#include <vector>

#include "controller/dra/dra_object_codec.h"
#include "controller/kube/api_error.h"
#include "controller/runtime/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/reconciler/testing/fake_cluster_writer.h"

namespace gpuprofile::reconciler {
namespace plan_executor_test {
namespace {

using ::testing::ElementsAre;
using testing::FakeClusterWriter;
using ::testing::IsEmpty;

constexpr dra::DraApiVersion kV1 = dra::DraApiVersion::kV1;

// The objects as logs name them ("DeviceClass c", "batch/t", "ResourceQuota ns/q").
std::vector<std::string> Described(const std::vector<ObjectRef>& objects) {
  std::vector<std::string> out;
  for (const ObjectRef& object : objects) out.push_back(object.Describe());
  return out;
}

absl::Status ApiStatus(int code, const std::string& reason) {
  kube::ApiError error;
  error.code = code;
  error.reason = reason;
  error.message = reason;
  return kube::ApiErrorStatus(error, "POST", "/apis/resource.k8s.io/v1/...");
}

Action CreateTemplate(const std::string& ns, const std::string& name) {
  auto t = std::make_shared<dra::ResourceClaimTemplate>();
  t->metadata.namespace_name = ns;
  t->metadata.name = name;
  t->metadata.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"}};
  Action action;
  action.verb = ActionVerb::kCreate;
  action.kind = ObjectKind::kClaimTemplate;
  action.namespace_name = ns;
  action.name = name;
  action.claim_template = std::move(t);
  return action;
}

Action Other(ActionVerb verb, ObjectKind kind, const std::string& ns, const std::string& name,
             const std::string& uid) {
  Action action;
  action.verb = verb;
  action.kind = kind;
  action.namespace_name = ns;
  action.name = name;
  action.uid = uid;
  action.meta.namespace_name = ns;
  action.meta.name = name;
  if (kind == ObjectKind::kDeviceClass) {
    auto c = std::make_shared<dra::DeviceClass>();
    c->metadata.name = name;
    c->metadata.resource_version = "7";
    action.device_class = std::move(c);
  } else {
    action.claim_template = CreateTemplate(ns, name).claim_template;
  }
  return action;
}

Action QuotaAction(ActionVerb verb, const std::string& ns, const std::string& uid = "") {
  auto q = std::make_shared<meta::ResourceQuota>();
  q->metadata.namespace_name = ns;
  q->metadata.name = "gpu-profile-p";
  q->metadata.uid = uid;
  q->metadata.resource_version = "9";
  q->metadata.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"}};
  Action action;
  action.verb = verb;
  action.kind = ObjectKind::kResourceQuota;
  action.namespace_name = ns;
  action.name = q->metadata.name;
  action.uid = uid;
  action.meta = q->metadata;
  action.quota = std::move(q);
  return action;
}

nlohmann::json QuotaJson(const std::string& ns, bool managed) {
  nlohmann::json metadata = {{"name", "gpu-profile-p"}, {"namespace", ns}, {"uid", "theirs"}};
  if (managed) metadata["labels"] = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"}};
  return {{"apiVersion", "v1"},
          {"kind", "ResourceQuota"},
          {"metadata", metadata},
          {"spec", {{"hard", {{"pods", "10"}}}}}};
}

class PlanExecutorTest : public ::testing::Test {
 protected:
  runtime::FakeClock clock_;
  FakeClusterWriter writer_;
  ForeignObjects foreign_{&clock_};

  std::vector<std::string> ForeignKeys() {
    std::vector<std::shared_ptr<const dra::ResourceClaimTemplate>> templates;
    foreign_.Snapshot(&templates);
    std::vector<std::string> keys;
    for (const auto& t : templates) {
      keys.push_back(t->metadata.namespace_name + "/" + t->metadata.name);
    }
    return keys;
  }
  std::vector<std::string> ForeignQuotaKeys() {
    std::vector<std::shared_ptr<const meta::ResourceQuota>> quotas;
    foreign_.Snapshot(nullptr, &quotas);
    std::vector<std::string> keys;
    for (const auto& q : quotas)
      keys.push_back(q->metadata.namespace_name + "/" + q->metadata.name);
    return keys;
  }
};

TEST_F(PlanExecutorTest, WritesEachActionAndSaysWhatWasDone) {
  const AppliedChanges changes =
      ExecutePlan({Other(ActionVerb::kCreate, ObjectKind::kDeviceClass, "", "c", ""),
                   Other(ActionVerb::kReplace, ObjectKind::kDeviceClass, "", "d", "u-d"),
                   CreateTemplate("batch", "t"),
                   Other(ActionVerb::kRecreate, ObjectKind::kClaimTemplate, "ml", "t", "u-1"),
                   Other(ActionVerb::kAdopt, ObjectKind::kClaimTemplate, "team", "t", "u-2"),
                   Other(ActionVerb::kRelease, ObjectKind::kDeviceClass, "", "e", "u-e"),
                   Other(ActionVerb::kDelete, ObjectKind::kClaimTemplate, "old", "t", "u-3")},
                  kV1, &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(),
              ElementsAre("create DeviceClass c", "replace DeviceClass d rv=7", "create batch/t",
                          "delete ml/t uid=u-1", "create ml/t", "patch team/t owners=[]",
                          "patch DeviceClass e owners=[]", "delete old/t uid=u-3"));
  EXPECT_THAT(Described(changes.created), ElementsAre("DeviceClass c", "batch/t"));
  EXPECT_THAT(Described(changes.updated), ElementsAre("DeviceClass d"));
  EXPECT_THAT(Described(changes.recreated), ElementsAre("ml/t"));
  EXPECT_THAT(Described(changes.adopted), ElementsAre("team/t"));
  EXPECT_THAT(Described(changes.released), ElementsAre("DeviceClass e"));
  EXPECT_THAT(Described(changes.deleted), ElementsAre("old/t"));
  EXPECT_EQ(changes.templates_placed, 3);
  EXPECT_TRUE(changes.first_error.ok());
  EXPECT_FALSE(changes.Quiet());
}

TEST_F(PlanExecutorTest, AnEmptyPlanIsQuiet) {
  const AppliedChanges changes = ExecutePlan({}, kV1, &writer_, &foreign_);
  EXPECT_TRUE(changes.Quiet());
  EXPECT_THAT(writer_.calls(), IsEmpty());
}

TEST_F(PlanExecutorTest, ACreateMeetingAnUnmanagedTemplateRecordsItAsForeign) {
  writer_.Fail("create batch/t", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredTemplate(
      "batch", "t",
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "ResourceClaimTemplate"},
       {"metadata", {{"name", "t"}, {"namespace", "batch"}, {"uid", "theirs"}}},
       {"spec", {{"spec", {{"devices", {{"requests", nlohmann::json::array()}}}}}}}});
  const uint64_t before = foreign_.Snapshot(nullptr);
  const AppliedChanges changes =
      ExecutePlan({CreateTemplate("batch", "t")}, kV1, &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(), ElementsAre("create batch/t", "get batch/t"));
  EXPECT_THAT(Described(changes.conflicts), ElementsAre("batch/t"));
  EXPECT_TRUE(changes.first_error.ok());
  EXPECT_EQ(changes.templates_placed, 0);
  EXPECT_THAT(ForeignKeys(), ElementsAre("batch/t"));
  EXPECT_GT(foreign_.Snapshot(nullptr), before);  // the desired state plans again
}

TEST_F(PlanExecutorTest, ACreateMeetingTheOperatorsOwnTemplateRecordsNothing) {
  writer_.Fail("create batch/t", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredTemplate(
      "batch", "t",
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "ResourceClaimTemplate"},
       {"metadata",
        {{"name", "t"},
         {"namespace", "batch"},
         {"labels", {{"app.kubernetes.io/managed-by", "gpu-profile-operator"}}}}},
       {"spec", {{"spec", {{"devices", {{"requests", nlohmann::json::array()}}}}}}}});
  const AppliedChanges changes =
      ExecutePlan({CreateTemplate("batch", "t")}, kV1, &writer_, &foreign_);
  EXPECT_THAT(Described(changes.conflicts),
              ElementsAre("batch/t"));  // come back once the cache has it
  EXPECT_THAT(ForeignKeys(), IsEmpty());
}

TEST_F(PlanExecutorTest, AnUnreadableExistingTemplateIsForeign) {
  writer_.Fail("create batch/t", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredTemplate("batch", "t", {{"kind", "ResourceClaimTemplate"}, {"spec", 3}});
  ExecutePlan({CreateTemplate("batch", "t")}, kV1, &writer_, &foreign_);
  EXPECT_THAT(ForeignKeys(), ElementsAre("batch/t"));
}

TEST_F(PlanExecutorTest, ForeignEntriesExpire) {
  writer_.Fail("create batch/t", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredTemplate("batch", "t", {{"kind", "ResourceClaimTemplate"}, {"spec", 3}});
  ExecutePlan({CreateTemplate("batch", "t")}, kV1, &writer_, &foreign_);
  clock_.Advance(absl::Seconds(61));
  EXPECT_THAT(ForeignKeys(), IsEmpty());
}

TEST_F(PlanExecutorTest, AClassCreateMeetingAnExistingClassIsAConflictWithoutARead) {
  writer_.Fail("create DeviceClass c", ApiStatus(409, "AlreadyExists"));
  const AppliedChanges changes =
      ExecutePlan({Other(ActionVerb::kCreate, ObjectKind::kDeviceClass, "", "c", "")}, kV1,
                  &writer_, &foreign_);
  EXPECT_THAT(Described(changes.conflicts), ElementsAre("DeviceClass c"));
  EXPECT_THAT(writer_.calls(), ElementsAre("create DeviceClass c"));
}

TEST_F(PlanExecutorTest, AFailureKeepsTheFirstErrorAndGoesOn) {
  writer_.Fail("create batch/t", ApiStatus(500, "InternalError"));
  writer_.Fail("create ml/t", ApiStatus(403, "Forbidden"));
  const AppliedChanges changes = ExecutePlan(
      {CreateTemplate("batch", "t"), CreateTemplate("ml", "t"), CreateTemplate("team", "t")}, kV1,
      &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(), ElementsAre("create batch/t", "create ml/t", "create team/t"));
  EXPECT_TRUE(kube::apierrors::IsInternalError(changes.first_error)) << changes.first_error;
  EXPECT_THAT(Described(changes.created), ElementsAre("team/t"));
  EXPECT_EQ(changes.templates_placed, 1);
  EXPECT_FALSE(changes.Quiet());
}

TEST_F(PlanExecutorTest, ARecreateWhoseDeleteFailsDoesNotCreate) {
  writer_.Fail("delete ml/t uid=u-1", ApiStatus(409, "Conflict"));
  const AppliedChanges changes =
      ExecutePlan({Other(ActionVerb::kRecreate, ObjectKind::kClaimTemplate, "ml", "t", "u-1")}, kV1,
                  &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(), ElementsAre("delete ml/t uid=u-1"));
  EXPECT_TRUE(kube::apierrors::IsConflict(changes.first_error));
  EXPECT_THAT(changes.recreated, IsEmpty());
}

TEST_F(PlanExecutorTest, ARecreateWhoseCreateFailsIsLeftToTheNextPass) {
  writer_.Fail("create ml/t", ApiStatus(409, "AlreadyExists"));  // the delete has not finished
  const AppliedChanges changes =
      ExecutePlan({Other(ActionVerb::kRecreate, ObjectKind::kClaimTemplate, "ml", "t", "u-1")}, kV1,
                  &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(), ElementsAre("delete ml/t uid=u-1", "create ml/t"));
  EXPECT_FALSE(changes.first_error.ok());
  EXPECT_EQ(changes.templates_placed, 0);
}

TEST_F(PlanExecutorTest, QuotaActionsUseTheQuotaCallsAndCountWhatIsPlaced) {
  const AppliedChanges changes = ExecutePlan(
      {QuotaAction(ActionVerb::kCreate, "batch"), QuotaAction(ActionVerb::kReplace, "ml", "u-1"),
       QuotaAction(ActionVerb::kAdopt, "team", "u-2"),
       QuotaAction(ActionVerb::kRelease, "other", "u-3"),
       QuotaAction(ActionVerb::kDelete, "old", "u-4")},
      kV1, &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(), ElementsAre("create ResourceQuota batch/gpu-profile-p",
                                           "replace ResourceQuota ml/gpu-profile-p rv=9",
                                           "patch ResourceQuota team/gpu-profile-p owners=[]",
                                           "patch ResourceQuota other/gpu-profile-p owners=[]",
                                           "delete ResourceQuota old/gpu-profile-p uid=u-4"));
  EXPECT_THAT(Described(changes.created), ElementsAre("ResourceQuota batch/gpu-profile-p"));
  EXPECT_THAT(Described(changes.updated), ElementsAre("ResourceQuota ml/gpu-profile-p"));
  EXPECT_THAT(Described(changes.adopted), ElementsAre("ResourceQuota team/gpu-profile-p"));
  EXPECT_THAT(Described(changes.released), ElementsAre("ResourceQuota other/gpu-profile-p"));
  EXPECT_THAT(Described(changes.deleted), ElementsAre("ResourceQuota old/gpu-profile-p"));
  EXPECT_EQ(changes.quotas_placed, 3);
  EXPECT_EQ(changes.templates_placed, 0);
  EXPECT_TRUE(changes.first_error.ok());
}

TEST_F(PlanExecutorTest, ACreateMeetingAnUnmanagedQuotaRecordsItAsForeign) {
  writer_.Fail("create ResourceQuota batch/gpu-profile-p", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredQuota("batch", "gpu-profile-p", QuotaJson("batch", /*managed=*/false));
  const uint64_t before = foreign_.Snapshot(nullptr);
  const AppliedChanges changes =
      ExecutePlan({QuotaAction(ActionVerb::kCreate, "batch")}, kV1, &writer_, &foreign_);
  EXPECT_THAT(writer_.calls(), ElementsAre("create ResourceQuota batch/gpu-profile-p",
                                           "get ResourceQuota batch/gpu-profile-p"));
  EXPECT_THAT(Described(changes.conflicts), ElementsAre("ResourceQuota batch/gpu-profile-p"));
  EXPECT_TRUE(changes.first_error.ok());
  EXPECT_EQ(changes.quotas_placed, 0);
  EXPECT_THAT(ForeignQuotaKeys(), ElementsAre("batch/gpu-profile-p"));
  EXPECT_THAT(ForeignKeys(), IsEmpty());
  EXPECT_GT(foreign_.Snapshot(nullptr), before);  // the desired state plans again
  clock_.Advance(absl::Seconds(61));
  EXPECT_THAT(ForeignQuotaKeys(), IsEmpty());  // and tries again once it expires
}

TEST_F(PlanExecutorTest, ACreateMeetingTheOperatorsOwnQuotaRecordsNothing) {
  writer_.Fail("create ResourceQuota batch/gpu-profile-p", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredQuota("batch", "gpu-profile-p", QuotaJson("batch", /*managed=*/true));
  const AppliedChanges changes =
      ExecutePlan({QuotaAction(ActionVerb::kCreate, "batch")}, kV1, &writer_, &foreign_);
  EXPECT_THAT(Described(changes.conflicts), ElementsAre("ResourceQuota batch/gpu-profile-p"));
  EXPECT_THAT(ForeignQuotaKeys(), IsEmpty());
}

TEST_F(PlanExecutorTest, AnUnreadableExistingQuotaIsForeign) {
  writer_.Fail("create ResourceQuota batch/gpu-profile-p", ApiStatus(409, "AlreadyExists"));
  writer_.SetStoredQuota("batch", "gpu-profile-p", {{"kind", "ResourceQuota"}, {"spec", 3}});
  ExecutePlan({QuotaAction(ActionVerb::kCreate, "batch")}, kV1, &writer_, &foreign_);
  EXPECT_THAT(ForeignQuotaKeys(), ElementsAre("batch/gpu-profile-p"));
}

TEST_F(PlanExecutorTest, AFailedQuotaReplaceIsTheFirstError) {
  writer_.Fail("replace ResourceQuota ml/gpu-profile-p rv=9", ApiStatus(409, "Conflict"));
  const AppliedChanges changes = ExecutePlan(
      {QuotaAction(ActionVerb::kReplace, "ml", "u-1"), QuotaAction(ActionVerb::kCreate, "batch")},
      kV1, &writer_, &foreign_);
  EXPECT_TRUE(kube::apierrors::IsConflict(changes.first_error)) << changes.first_error;
  EXPECT_THAT(changes.updated, IsEmpty());
  EXPECT_EQ(changes.quotas_placed, 1);  // the create still ran
}

}  // namespace
}  // namespace plan_executor_test
}  // namespace gpuprofile::reconciler
