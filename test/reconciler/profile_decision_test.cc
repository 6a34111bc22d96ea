// The profile reconciler's decide and conclude steps (profile_decision.h) as data: for each
// observation, which plan; for each plan and what its writes found, the status, events,
// finalizer and outcome. No cache, writer or clock.
#include "controller/reconciler/profile_decision.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/kueue/kueue_mapped.h"
#include "controller/profile/feature_support.h"
#include "controller/profile/profile_conditions.h"
#include "controller/reconciler/create_expectations.h"
#include "controller/reconciler/profile_status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace profile_decision_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Purpose = ProfilePlan::Purpose;

constexpr char kName[] = "large-memory";
constexpr char kUid[] = "uid-live";

meta::ObjectMeta Labelled(const std::string& ns, const std::string& name, const std::string& uid) {
  meta::ObjectMeta meta;
  meta.namespace_name = ns;
  meta.name = name;
  meta.uid = uid;
  meta.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                 {"gpuprofile.io/profile", kName}};
  meta::OwnerReference owner;
  owner.api_version = "gpuprofile.io/v1alpha1";
  owner.kind = api::kGpuProfileKind;
  owner.name = kName;
  owner.uid = kUid;
  owner.controller = true;
  meta.owner_references = {owner};
  return meta;
}

// A decodable, live profile with the cleanup finalizer.
std::shared_ptr<ProfileObject> Profile(int64_t generation = 1) {
  auto object = std::make_shared<ProfileObject>();
  object->metadata.name = kName;
  object->metadata.uid = kUid;
  object->metadata.generation = generation;
  object->metadata.finalizers = {"example.com/keep", kCleanupFinalizer};
  object->profile.emplace();
  object->profile->metadata = object->metadata;
  return object;
}

profile::TemplateSet Templates(std::vector<std::string> namespaces) {
  profile::TemplateSet set;
  set.prototype.metadata = Labelled("", kName, "");
  dra::ExactDeviceRequest request;
  request.name = "gpu";
  request.device_class_name = kName;
  request.count = 1;
  set.prototype.requests = {request};
  set.namespaces = std::move(namespaces);
  return set;
}

// What the snapshot says of the profile: its outcome and desired templates (in ml and batch).
struct Snapshot {
  std::shared_ptr<Computed> computed = std::make_shared<Computed>();
  profile::ProfileOutcome outcome;
  profile::TemplateSet templates = Templates({"batch", "ml"});

  Snapshot() {
    outcome.profile.metadata.name = kName;
    outcome.profile.metadata.uid = kUid;
    outcome.profile.metadata.generation = 1;
    outcome.profile.status.matched_devices = 6;
    // As the engine leaves a valid profile: Ready, not reconciling, not stalled.
    for (const auto& [type, status] : std::vector<std::pair<const char*, meta::ConditionStatus>>{
             {meta::kConditionReady, meta::ConditionStatus::kTrue},
             {meta::kConditionReconciling, meta::ConditionStatus::kFalse},
             {meta::kConditionStalled, meta::ConditionStatus::kFalse}}) {
      meta::Condition c;
      c.type = type;
      c.status = status;
      outcome.profile.status.conditions.push_back(c);
    }
    computed->plan_id = 7;
  }
  DesiredSnapshot Get(absl::Duration retry_after = absl::ZeroDuration()) {
    computed->outcome_by_profile[kName] = &outcome;
    computed->templates_by_profile[kName] = &templates;
    return DesiredSnapshot{computed, retry_after};
  }
};

// An observation of a live, synced profile on a DRA cluster with nothing stored.
ProfileObservation Seen(Snapshot* snapshot, absl::Duration retry_after = absl::ZeroDuration()) {
  ProfileObservation seen;
  seen.name = kName;
  seen.object = Profile();
  seen.dra_version = dra::DraApiVersion::kV1;
  seen.synced = true;
  seen.snapshot = snapshot->Get(retry_after);
  seen.owned_version = 11;
  seen.objects = ObservedObjects{};
  return seen;
}

std::vector<std::string> Lines(const std::vector<Action>& actions) {
  std::vector<std::string> lines;
  for (const Action& a : actions) {
    lines.push_back(absl::StrCat(static_cast<int>(a.verb), " ", a.Describe()));
  }
  return lines;
}

const meta::Condition* Find(const ProfilePlan& plan, const char* type) {
  return meta::FindCondition(plan.status->conditions, type);
}

TEST(DecideProfileTest, GoneIsForgotten) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  seen.object = nullptr;
  EXPECT_EQ(DecideProfile(seen).purpose, Purpose::kForget);
}

TEST(DecideProfileTest, WaitsForTheCachesAndForASnapshotOfThisProfile) {
  struct Case {
    const char* name;
    std::function<void(ProfileObservation*, Snapshot*)> change;
    absl::Duration retry_after;
    absl::Duration want;
  };
  const std::vector<Case> cases = {
      {"caches not synced", [](ProfileObservation* s, Snapshot*) { s->synced = false; },
       absl::ZeroDuration(), absl::Seconds(1)},
      {"profile newer than a fresh snapshot",
       [](ProfileObservation* s, Snapshot* snap) {
         snap->computed->outcome_by_profile.clear();
         s->snapshot.computed = snap->computed;
       },
       absl::ZeroDuration(), absl::Milliseconds(50)},
      {"snapshot of another incarnation, stale",
       [](ProfileObservation* s, Snapshot* snap) { snap->outcome.profile.metadata.uid = "old"; },
       absl::Milliseconds(300), absl::Milliseconds(300)},
      {"snapshot of an earlier generation",
       [](ProfileObservation* s, Snapshot*) { s->object = Profile(/*generation=*/2); },
       absl::ZeroDuration(), absl::Milliseconds(50)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Snapshot snapshot;
    ProfileObservation seen = Seen(&snapshot, c.retry_after);
    c.change(&seen, &snapshot);
    const ProfilePlan plan = DecideProfile(seen);
    EXPECT_EQ(plan.purpose, Purpose::kWait);
    EXPECT_EQ(plan.result.requeue_after, c.want);
    EXPECT_THAT(plan.actions, IsEmpty());
    EXPECT_FALSE(plan.status.has_value());
  }
}

TEST(DecideProfileTest, AddsTheFinalizerFirstKeepingOthers) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  auto object = Profile();
  object->metadata.finalizers = {"example.com/keep"};
  seen.object = object;
  const ProfilePlan plan = DecideProfile(seen);
  ASSERT_TRUE(plan.finalizers_before.has_value());
  EXPECT_THAT(*plan.finalizers_before, ElementsAre("example.com/keep", kCleanupFinalizer));
  EXPECT_EQ(plan.purpose, Purpose::kApply);  // and the pass goes on
}

TEST(DecideProfileTest, HasTheFinalizerWritesNoFinalizer) {
  Snapshot snapshot;
  EXPECT_FALSE(DecideProfile(Seen(&snapshot)).finalizers_before.has_value());
}

TEST(DecideProfileTest, DraNotServedReportsWhatDiscoveryFound) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  seen.dra_version.reset();
  seen.dra_discovery = "the API server serves resource.k8s.io only in version v1alpha3";
  const ProfilePlan plan = DecideProfile(seen);
  EXPECT_EQ(plan.purpose, Purpose::kReport);
  const meta::Condition* stalled = Find(plan, meta::kConditionStalled);
  ASSERT_NE(stalled, nullptr);
  EXPECT_EQ(stalled->reason, kReasonDraNotServed);
  EXPECT_THAT(stalled->message, ::testing::HasSubstr("v1alpha3"));
  EXPECT_THAT(plan.events, IsEmpty());
}

TEST(DecideProfileTest, UndecodableSpecIsStalledWithAWarningNamingTheField) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  auto object = Profile();
  object->profile.reset();
  object->decode_error = "spec.minMemory: must be a quantity";
  seen.object = object;
  const ProfilePlan plan = DecideProfile(seen);
  EXPECT_EQ(plan.purpose, Purpose::kReport);
  const meta::Condition* stalled = Find(plan, meta::kConditionStalled);
  ASSERT_NE(stalled, nullptr);
  EXPECT_EQ(stalled->reason, profile::kReasonInvalidSpec);
  EXPECT_THAT(plan.events,
              ElementsAre(PlannedEvent{true, profile::kReasonInvalidSpec, "Validate",
                                       "spec is invalid: spec.minMemory: must be a quantity"}));
  EXPECT_THAT(plan.actions, IsEmpty());
}

TEST(DecideProfileTest, InvalidOutcomeLeavesObjectsAloneAndComesBackWhenStale) {
  struct Case {
    std::string reason;
    std::string want_reason;
    std::string want_prefix;
  };
  for (const Case& c : std::vector<Case>{
           {"", profile::kReasonInvalidSpec, "spec is invalid: "},
           {profile::kReasonInvalidSpec, profile::kReasonInvalidSpec, "spec is invalid: "},
           {profile::kReasonFeatureNotServed, profile::kReasonFeatureNotServed,
            "spec cannot be realised: "}}) {
    SCOPED_TRACE(c.reason);
    Snapshot snapshot;
    snapshot.outcome.valid = false;
    snapshot.outcome.stalled_reason = c.reason;
    snapshot.outcome.problems = "spec.fallback[0]: unknown profile";
    const ProfilePlan plan = DecideProfile(Seen(&snapshot, absl::Milliseconds(120)));
    EXPECT_EQ(plan.purpose, Purpose::kReport);
    EXPECT_THAT(plan.actions, IsEmpty());
    EXPECT_EQ(plan.status->matched_devices, 6);
    EXPECT_THAT(plan.events,
                ElementsAre(PlannedEvent{true, c.want_reason, "Validate",
                                         c.want_prefix + "spec.fallback[0]: unknown profile"}));
    EXPECT_EQ(plan.result.requeue_after, absl::Milliseconds(120));
  }
}

TEST(DecideProfileTest, PlansTheObjectsFromTheSnapshot) {
  Snapshot snapshot;
  const ProfilePlan plan = DecideProfile(Seen(&snapshot));
  EXPECT_EQ(plan.purpose, Purpose::kApply);
  EXPECT_THAT(Lines(plan.actions), ElementsAre("0 batch/large-memory", "0 ml/large-memory"));
  EXPECT_EQ(plan.templates_in_place, 0);
  EXPECT_EQ(plan.status->matched_devices, 6);
}

// --kueue-config: the KueueMapped condition names the classes the profile's requests use (here
// its own and, firstAvailable, a fallback's), from the Configuration as observed.
TEST(DecideProfileTest, KueueMappedFromTheObservedConfiguration) {
  Snapshot snapshot;
  dra::DeviceClass own;
  own.metadata = Labelled("", kName, "");
  snapshot.computed->class_by_profile[kName] = &own;
  dra::ExactDeviceRequest first = snapshot.templates.prototype.requests[0];
  first.name = "large-memory";
  dra::ExactDeviceRequest second = first;
  second.name = "any";
  second.device_class_name = "light-inference";
  snapshot.templates.prototype.requests[0].first_available = {first, second};

  ProfileObservation seen = Seen(&snapshot);
  EXPECT_EQ(Find(DecideProfile(seen), kueue::kConditionKueueMapped), nullptr)
      << "no condition without --kueue-config";

  kueue::KueueConfig config;
  config.mappings.push_back({"gpuprofile.io/large-memory", {kName}});
  seen.kueue = config;
  ProfilePlan plan = DecideProfile(seen);
  const meta::Condition* c = Find(plan, kueue::kConditionKueueMapped);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, meta::ConditionStatus::kFalse);
  EXPECT_EQ(c->reason, kueue::kReasonMissingDeviceClassMapping);
  EXPECT_THAT(c->message, HasSubstr("DeviceClass light-inference:"));
  EXPECT_EQ(Find(plan, meta::kConditionReady)->status, meta::ConditionStatus::kTrue)
      << "KueueMapped does not change readiness";

  config.mappings.push_back({"gpuprofile.io/light-inference", {"light-inference"}});
  seen.kueue = config;
  c = Find(plan = DecideProfile(seen), kueue::kConditionKueueMapped);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, meta::ConditionStatus::kTrue);

  EXPECT_EQ(plan.result.requeue_after, absl::ZeroDuration()) << "read: no need to come back";

  seen.kueue = absl::StatusOr<kueue::KueueConfig>(
      absl::NotFoundError("configmap kueue-system/kueue-manager-config: not found"));
  c = Find(plan = DecideProfile(seen), kueue::kConditionKueueMapped);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, meta::ConditionStatus::kUnknown);
  EXPECT_THAT(c->message, HasSubstr("configmap kueue-system/kueue-manager-config: not found"));
  EXPECT_EQ(plan.result.requeue_after, absl::ZeroDuration()) << "a ConfigMap event brings it back";

  // Not read yet (forbidden, or not listed): come back, no watch event may announce it.
  seen.kueue = absl::StatusOr<kueue::KueueConfig>(
      absl::UnavailableError("configmap kueue-system/kueue-manager-config: not read yet"));
  plan = DecideProfile(seen);
  EXPECT_EQ(Find(plan, kueue::kConditionKueueMapped)->status, meta::ConditionStatus::kUnknown);
  EXPECT_EQ(plan.result.requeue_after, kKueueRecheck);

  // A profile that generates no class (its name taken) has nothing to map: no condition.
  snapshot.computed->class_by_profile.erase(kName);
  EXPECT_EQ(Find(DecideProfile(seen), kueue::kConditionKueueMapped), nullptr);
}

TEST(DecideProfileTest, ObjectsKnownInPlaceAreNotPlannedAgain) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  seen.in_place = ObjectsInPlace{7, 11, kUid, 1, 2, 0};
  seen.objects.reset();  // not read: the reconciler reads objects only when needed
  const ProfilePlan plan = DecideProfile(seen);
  EXPECT_EQ(plan.purpose, Purpose::kApply);
  EXPECT_THAT(plan.actions, IsEmpty());
  EXPECT_EQ(plan.templates_in_place, 2);
}

TEST(DecideProfileTest, RecreatingWhatTheServerDidNotStoreIsDroppedAndNamed) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  // ml holds a template of another spec: the plan would re-create it; batch's is missing.
  dra::ResourceClaimTemplate stored = snapshot.templates.In("ml");
  stored.metadata.uid = "t-ml";
  stored.requests[0].count = 3;
  auto compact = TemplateObject::Of(stored);
  seen.objects->labelled_templates = {compact};
  seen.objects->template_at = [compact](const std::string& ns, const std::string&) {
    return ns == "ml" ? compact : nullptr;
  };
  auto written = std::make_shared<WrittenTemplates>();
  written->prototype =
      std::make_shared<const dra::ResourceClaimTemplate>(snapshot.templates.prototype);
  written->keys = {"ml/large-memory"};
  seen.written = written;
  const ProfilePlan plan = DecideProfile(seen);
  EXPECT_THAT(Lines(plan.actions), ElementsAre("0 batch/large-memory"));
  ASSERT_EQ(plan.not_stored.size(), 1u);
  EXPECT_EQ(plan.not_stored[0].Key(), "ml/large-memory");
}

TEST(DecideProfileTest, DeletionCleansUpByPolicy) {
  for (const bool orphan : {false, true}) {
    SCOPED_TRACE(orphan ? "Orphan" : "Delete");
    Snapshot snapshot;
    ProfileObservation seen = Seen(&snapshot);
    auto object = Profile();
    object->metadata.deletion_timestamp = "2026-12-05T08:00:00Z";
    if (orphan) object->profile->spec.deletion_policy = api::DeletionPolicy::kOrphan;
    seen.object = object;
    dra::ResourceClaimTemplate stored = snapshot.templates.In("ml");
    stored.metadata.uid = "t-ml";
    seen.objects->labelled_templates = {TemplateObject::Of(stored)};
    const ProfilePlan plan = DecideProfile(seen);
    EXPECT_EQ(plan.purpose, Purpose::kCleanup);
    EXPECT_EQ(plan.orphan, orphan);
    EXPECT_THAT(Lines(plan.actions),
                ElementsAre(orphan ? "4 ml/large-memory" : "5 ml/large-memory"));
    EXPECT_FALSE(plan.finalizers_before.has_value());
  }
}

TEST(DecideProfileTest, DeletionWithoutOurFinalizerWritesNothing) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  auto object = Profile();
  object->metadata.deletion_timestamp = "2026-12-05T08:00:00Z";
  object->metadata.finalizers = {"example.com/keep"};
  seen.object = object;
  const ProfilePlan plan = DecideProfile(seen);
  EXPECT_EQ(plan.purpose, Purpose::kWait);
  EXPECT_EQ(plan.result.requeue_after, absl::ZeroDuration());
  EXPECT_THAT(plan.actions, IsEmpty());
}

ObjectRef TemplateIn(const std::string& ns) {
  return ObjectRef{ObjectKind::kClaimTemplate, ns, kName};
}

TEST(ConcludeProfileTest, AQuietPassIsRememberedAndReady) {
  Snapshot snapshot;
  const ProfileObservation seen = Seen(&snapshot);
  ProfilePlan plan = DecideProfile(seen);
  AppliedChanges changes;
  ConcludeProfile(seen, changes, &plan);
  ASSERT_TRUE(plan.remember_in_place.has_value());
  EXPECT_EQ(plan.remember_in_place->plan_id, 7);
  EXPECT_EQ(plan.remember_in_place->owned_version, 11u);
  EXPECT_THAT(plan.events, IsEmpty());
  EXPECT_TRUE(plan.error.ok());
  EXPECT_FALSE(plan.result.requeue);
}

TEST(ConcludeProfileTest, CreatedObjectsAreOneEventAndCountAsReady) {
  Snapshot snapshot;
  const ProfileObservation seen = Seen(&snapshot);
  ProfilePlan plan = DecideProfile(seen);
  AppliedChanges changes;
  changes.created = {ObjectRef{ObjectKind::kDeviceClass, "", kName}, TemplateIn("batch"),
                     TemplateIn("ml")};
  changes.templates_placed = 2;
  ConcludeProfile(seen, changes, &plan);
  EXPECT_EQ(plan.status->claim_templates.ready, 2);
  EXPECT_THAT(plan.events, ElementsAre(PlannedEvent{false, "Applied", "Apply",
                                                    "created DeviceClass large-memory and 2 "
                                                    "ResourceClaimTemplates (in batch, ml)"}));
  EXPECT_FALSE(plan.remember_in_place.has_value());  // written: not known in place yet
}

TEST(ConcludeProfileTest, AFailedWriteIsProgressingAWarningAndTheError) {
  Snapshot snapshot;
  const ProfileObservation seen = Seen(&snapshot);
  ProfilePlan plan = DecideProfile(seen);
  AppliedChanges changes;
  changes.Fail(absl::UnavailableError("connection refused"));
  ConcludeProfile(seen, changes, &plan);
  EXPECT_EQ(plan.error.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Find(plan, meta::kConditionReady)->status, meta::ConditionStatus::kFalse);
  const meta::Condition* reconciling = Find(plan, meta::kConditionReconciling);
  ASSERT_NE(reconciling, nullptr);
  EXPECT_THAT(reconciling->message, ::testing::HasSubstr("applying generated objects: "
                                                         "connection refused"));
  EXPECT_THAT(plan.events,
              ElementsAre(PlannedEvent{true, "ApplyFailed", "Apply", "connection refused"}));
  EXPECT_FALSE(plan.remember_in_place.has_value());
}

TEST(ConcludeProfileTest, AConflictComesBackAtOnce) {
  Snapshot snapshot;
  const ProfileObservation seen = Seen(&snapshot);
  ProfilePlan plan = DecideProfile(seen);
  AppliedChanges changes;
  changes.conflicts = {TemplateIn("ml")};
  ConcludeProfile(seen, changes, &plan);
  EXPECT_TRUE(plan.result.requeue);
  EXPECT_EQ(plan.result.requeue_after, absl::ZeroDuration());
  const meta::Condition* reconciling = Find(plan, meta::kConditionReconciling);
  ASSERT_NE(reconciling, nullptr);
  EXPECT_EQ(reconciling->status, meta::ConditionStatus::kTrue);
  EXPECT_THAT(reconciling->message, ::testing::HasSubstr("not managed by the operator"));
  EXPECT_EQ(Find(plan, meta::kConditionReady)->status, meta::ConditionStatus::kFalse);
}

TEST(ConcludeProfileTest, TemplatesNotStoredAreFeatureNotServed) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  ProfilePlan plan = DecideProfile(seen);
  plan.not_stored = {TemplateIn("ml")};
  ConcludeProfile(seen, AppliedChanges{}, &plan);
  const meta::Condition* stalled = Find(plan, meta::kConditionStalled);
  ASSERT_NE(stalled, nullptr);
  EXPECT_EQ(stalled->reason, profile::kReasonFeatureNotServed);
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_THAT(plan.events[0].note,
              ::testing::StartsWith("the API server stores ResourceClaimTemplate "
                                    "ml/large-memory without fields the operator wrote"));
  EXPECT_FALSE(plan.remember_in_place.has_value());
}

TEST(ConcludeProfileTest, CleanupDropsOnlyOurFinalizerOnceEverythingIsDone) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  auto object = Profile();
  object->metadata.deletion_timestamp = "2026-12-05T08:00:00Z";
  seen.object = object;
  ProfilePlan plan = DecideProfile(seen);
  AppliedChanges changes;
  changes.deleted = {TemplateIn("batch"), TemplateIn("ml")};
  ConcludeProfile(seen, changes, &plan);
  ASSERT_TRUE(plan.finalizers_after.has_value());
  EXPECT_THAT(*plan.finalizers_after, ElementsAre("example.com/keep"));
  EXPECT_THAT(plan.events,
              ElementsAre(PlannedEvent{false, "Deleted", "Delete",
                                       "deleted 2 ResourceClaimTemplates (in batch, ml)"}));

  ProfilePlan failed = DecideProfile(seen);
  AppliedChanges partly;
  partly.deleted = {TemplateIn("batch")};
  partly.Fail(absl::UnavailableError("timeout"));
  ConcludeProfile(seen, partly, &failed);
  EXPECT_FALSE(failed.finalizers_after.has_value());  // the finalizer stays
  EXPECT_EQ(failed.error.code(), absl::StatusCode::kUnavailable);
}

// A template this process created whose event has not arrived is not created again (that would
// meet it: 409 and a GET); it counts as in place, the pass is not remembered, and the profile
// comes back by kAwaitedRecheck in case the event is lost.
TEST(DecideProfileTest, TemplatesAwaitingTheirEventAreNotCreatedAgain) {
  Snapshot snapshot;
  ProfileObservation seen = Seen(&snapshot);
  seen.awaited_templates = {"ml/large-memory", "other/large-memory"};
  ProfilePlan plan = DecideProfile(seen);
  EXPECT_THAT(Lines(plan.actions), ElementsAre("0 batch/large-memory"));
  EXPECT_EQ(plan.templates_awaited, 1);
  EXPECT_EQ(plan.templates_in_place, 1);
  AppliedChanges changes;
  changes.created = {TemplateIn("batch")};
  changes.templates_placed = 1;
  ConcludeProfile(seen, changes, &plan);
  EXPECT_EQ(plan.status->claim_templates.ready, 2);
  EXPECT_FALSE(plan.remember_in_place.has_value());
  EXPECT_FALSE(plan.result.requeue);
  EXPECT_EQ(plan.result.requeue_after, kAwaitedRecheck);

  // With nothing else to write the pass is quiet, and still not remembered.
  seen.awaited_templates = {"batch/large-memory", "ml/large-memory"};
  plan = DecideProfile(seen);
  EXPECT_THAT(plan.actions, IsEmpty());
  ConcludeProfile(seen, AppliedChanges{}, &plan);
  EXPECT_EQ(plan.status->claim_templates.ready, 2);
  EXPECT_FALSE(plan.remember_in_place.has_value());
  EXPECT_EQ(plan.result.requeue_after, kAwaitedRecheck);
}

TEST(TemplatesWrittenAfterTest, RecordsCreatedTemplatesOfTheSameSpec) {
  const profile::TemplateSet set = Templates({"batch", "ml"});
  AppliedChanges first;
  first.created = {TemplateIn("batch"), ObjectRef{ObjectKind::kDeviceClass, "", kName},
                   ObjectRef{ObjectKind::kResourceQuota, "ml", "gpu-profile-large-memory"}};
  auto written = TemplatesWrittenAfter(nullptr, &set, first);
  ASSERT_NE(written, nullptr);
  EXPECT_THAT(written->keys, ElementsAre("batch/large-memory"));

  AppliedChanges second;
  second.recreated = {TemplateIn("ml")};
  auto more = TemplatesWrittenAfter(written, &set, second);
  EXPECT_THAT(more->keys, ElementsAre("batch/large-memory", "ml/large-memory"));

  // Nothing written: the record stays as it is.
  EXPECT_EQ(TemplatesWrittenAfter(more, &set, AppliedChanges{}), more);

  // Another spec starts a new record.
  profile::TemplateSet changed = set;
  changed.prototype.requests[0].count = 2;
  auto fresh = TemplatesWrittenAfter(more, &changed, second);
  EXPECT_THAT(fresh->keys, ElementsAre("ml/large-memory"));
}

}  // namespace
}  // namespace profile_decision_test
}  // namespace gpuprofile::reconciler
