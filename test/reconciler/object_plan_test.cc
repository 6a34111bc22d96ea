// The pure plan step of a profile's reconcile (object_plan.h): every decision the e2e story
// makes, as data — adoption, re-creation of immutable templates, in-place replacement of
// quotas, namespaces gained and lost, a renamed class, objects someone else controls, and the
// finalizer's delete and orphan paths.
#include "controller/reconciler/object_plan.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuprofile::reconciler {
namespace object_plan_test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kUid[] = "uid-live";

meta::OwnerReference Owner(const std::string& uid, const std::string& name = "large-memory") {
  meta::OwnerReference ref;
  ref.api_version = "gpuprofile.io/v1alpha1";
  ref.kind = api::kGpuProfileKind;
  ref.name = name;
  ref.uid = uid;
  ref.controller = true;
  ref.block_owner_deletion = true;
  return ref;
}

meta::ObjectMeta Managed(const std::string& ns, const std::string& name, const std::string& uid,
                         const std::string& owner_uid = kUid) {
  meta::ObjectMeta meta;
  meta.namespace_name = ns;
  meta.name = name;
  meta.uid = uid;
  meta.resource_version = absl::StrCat("rv-", uid);
  meta.labels = {{"app.kubernetes.io/managed-by", "gpu-profile-operator"},
                 {"gpuprofile.io/profile", "large-memory"}};
  if (!owner_uid.empty()) meta.owner_references = {Owner(owner_uid)};
  return meta;
}

dra::DeviceClass Class(const std::string& selector, const std::string& uid = "") {
  dra::DeviceClass c;
  c.metadata = Managed("", "large-memory", uid);
  c.selectors = {selector};
  return c;
}

profile::TemplateSet Templates(std::vector<std::string> namespaces, int64_t count = 1) {
  profile::TemplateSet set;
  set.prototype.metadata = Managed("", "large-memory", "");
  dra::ExactDeviceRequest request;
  request.name = "gpu";
  request.device_class_name = "large-memory";
  request.count = count;
  set.prototype.requests = {request};
  set.namespaces = std::move(namespaces);
  return set;
}

// A stored template: the desired one in `ns` as the server would keep it.
std::shared_ptr<const dra::ResourceClaimTemplate> Stored(const profile::TemplateSet& set,
                                                         const std::string& ns,
                                                         const std::string& uid) {
  dra::ResourceClaimTemplate t = set.In(ns);
  t.metadata.uid = uid;
  t.metadata.resource_version = absl::StrCat("rv-", uid);
  return std::make_shared<const dra::ResourceClaimTemplate>(std::move(t));
}

constexpr char kQuotaKey[] = "large-memory.deviceclass.resource.k8s.io/devices";

profile::QuotaSet Quotas(std::vector<std::string> namespaces, int64_t devices = 2) {
  profile::QuotaSet set;
  set.prototype.metadata = Managed("", "gpu-profile-large-memory", "");
  set.prototype.hard[kQuotaKey] = Quantity::FromInt(devices);
  set.namespaces = std::move(namespaces);
  return set;
}

// A stored quota: the desired one in `ns` as the server would keep it.
std::shared_ptr<const meta::ResourceQuota> StoredQuota(const profile::QuotaSet& set,
                                                       const std::string& ns,
                                                       const std::string& uid) {
  meta::ResourceQuota q = set.In(ns);
  q.metadata.uid = uid;
  q.metadata.resource_version = absl::StrCat("rv-", uid);
  return std::make_shared<const meta::ResourceQuota>(std::move(q));
}

struct Cluster {
  std::map<std::string, std::shared_ptr<const dra::ResourceClaimTemplate>> templates;
  std::map<std::string, std::shared_ptr<const meta::ResourceQuota>> quotas;
  std::shared_ptr<const dra::DeviceClass> device_class;

  void Add(std::shared_ptr<const dra::ResourceClaimTemplate> t) {
    templates[absl::StrCat(t->metadata.namespace_name, "/", t->metadata.name)] = std::move(t);
  }
  void Add(std::shared_ptr<const meta::ResourceQuota> q) {
    quotas[absl::StrCat(q->metadata.namespace_name, "/", q->metadata.name)] = std::move(q);
  }
  ObservedObjects Observe() const {
    ObservedObjects observed;
    observed.class_with_desired_name = device_class;
    if (device_class != nullptr) observed.labelled_classes = {device_class};
    // As the cache holds them (compact).
    for (const auto& [key, t] : templates) {
      observed.labelled_templates.push_back(TemplateObject::Of(*t));
    }
    observed.template_at = [this](const std::string& ns, const std::string& name) {
      auto it = templates.find(absl::StrCat(ns, "/", name));
      return it == templates.end() ? nullptr : TemplateObject::Of(*it->second);
    };
    for (const auto& [key, q] : quotas) observed.labelled_quotas.push_back(q);
    observed.quota_at = [this](const std::string& ns, const std::string& name) {
      auto it = quotas.find(absl::StrCat(ns, "/", name));
      return it == quotas.end() ? nullptr : it->second;
    };
    return observed;
  }
};

// "verb kind name [uid]" for compact expectations.
std::vector<std::string> Lines(const std::vector<Action>& actions) {
  std::vector<std::string> lines;
  for (const Action& a : actions) {
    const char* verb = a.verb == ActionVerb::kCreate     ? "create"
                       : a.verb == ActionVerb::kReplace  ? "replace"
                       : a.verb == ActionVerb::kRecreate ? "recreate"
                       : a.verb == ActionVerb::kAdopt    ? "adopt"
                       : a.verb == ActionVerb::kRelease  ? "release"
                                                         : "delete";
    lines.push_back(absl::StrCat(verb, " ", a.Describe(), a.uid.empty() ? "" : " uid=", a.uid));
  }
  return lines;
}

TEST(ObjectPlanTest, NothingStoredCreatesTheClassAndEveryTemplate) {
  const dra::DeviceClass desired = Class("device.driver == 'gpu.nvidia.com'");
  const profile::TemplateSet set = Templates({"batch", "ml-train"});
  const ObjectPlan plan = PlanProfileObjects(kUid, &desired, &set, nullptr, Cluster{}.Observe());
  EXPECT_THAT(Lines(plan.actions),
              ElementsAre("create DeviceClass large-memory", "create batch/large-memory",
                          "create ml-train/large-memory"));
  EXPECT_EQ(plan.templates_in_place, 0);
  ASSERT_NE(plan.actions[1].claim_template, nullptr);
  EXPECT_EQ(plan.actions[1].claim_template->metadata.namespace_name, "batch");
}

TEST(ObjectPlanTest, EverythingInPlaceWritesNothing) {
  const dra::DeviceClass desired = Class("device.driver == 'gpu.nvidia.com'");
  const profile::TemplateSet set = Templates({"batch", "ml-train"});
  Cluster cluster;
  cluster.device_class =
      std::make_shared<const dra::DeviceClass>(Class("device.driver == 'gpu.nvidia.com'", "c1"));
  cluster.Add(Stored(set, "batch", "t1"));
  cluster.Add(Stored(set, "ml-train", "t2"));
  const ObjectPlan plan = PlanProfileObjects(kUid, &desired, &set, nullptr, cluster.Observe());
  EXPECT_THAT(plan.actions, IsEmpty());
  EXPECT_EQ(plan.templates_in_place, 2);
}

TEST(ObjectPlanTest, AChangedSelectorReplacesTheClassKeepingOthersMetadata) {
  const dra::DeviceClass desired = Class("device.driver == 'gpu.nvidia.com'");
  dra::DeviceClass stored = Class("device.driver == 'x.example.com'", "c1");
  stored.metadata.labels["team"] = "platform";  // someone else's label survives
  Cluster cluster;
  cluster.device_class = std::make_shared<const dra::DeviceClass>(stored);
  const ObjectPlan plan = PlanProfileObjects(kUid, &desired, nullptr, nullptr, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions), ElementsAre("replace DeviceClass large-memory uid=c1"));
  const dra::DeviceClass& written = *plan.actions[0].device_class;
  EXPECT_THAT(written.selectors, ElementsAre("device.driver == 'gpu.nvidia.com'"));
  EXPECT_EQ(written.metadata.resource_version, "rv-c1");  // optimistic concurrency
  EXPECT_EQ(written.metadata.labels.at("team"), "platform");
}

TEST(ObjectPlanTest, AnExtendedResourceNameAddedToTheProfileReplacesTheClass) {
  dra::DeviceClass desired = Class("device.driver == 'gpu.nvidia.com'");
  desired.extended_resource_name = "example.com/gpu";
  Cluster cluster;
  cluster.device_class =
      std::make_shared<const dra::DeviceClass>(Class("device.driver == 'gpu.nvidia.com'", "c1"));
  ObjectPlan plan = PlanProfileObjects(kUid, &desired, nullptr, nullptr, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions), ElementsAre("replace DeviceClass large-memory uid=c1"));
  EXPECT_EQ(plan.actions[0].device_class->extended_resource_name, "example.com/gpu");

  // Stored with the name: nothing to write.
  dra::DeviceClass stored = Class("device.driver == 'gpu.nvidia.com'", "c1");
  stored.extended_resource_name = "example.com/gpu";
  cluster.device_class = std::make_shared<const dra::DeviceClass>(stored);
  plan = PlanProfileObjects(kUid, &desired, nullptr, nullptr, cluster.Observe());
  EXPECT_THAT(plan.actions, IsEmpty());
}

TEST(ObjectPlanTest, AnOrphanedClassIsAdoptedByReplacingItsMetadata) {
  const dra::DeviceClass desired = Class("device.driver == 'gpu.nvidia.com'");
  dra::DeviceClass stored = Class("device.driver == 'gpu.nvidia.com'", "c1");
  stored.metadata.owner_references.clear();  // released by an earlier deletionPolicy Orphan
  Cluster cluster;
  cluster.device_class = std::make_shared<const dra::DeviceClass>(stored);
  const ObjectPlan plan = PlanProfileObjects(kUid, &desired, nullptr, nullptr, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions), ElementsAre("replace DeviceClass large-memory uid=c1"));
  EXPECT_THAT(plan.actions[0].device_class->metadata.owner_references, ElementsAre(Owner(kUid)));
}

TEST(ObjectPlanTest, TemplatesOfAnEarlierIncarnationAreAdoptedNotRecreated) {
  const profile::TemplateSet set = Templates({"batch"});
  dra::ResourceClaimTemplate stored = *Stored(set, "batch", "t1");
  stored.metadata.owner_references = {Owner("uid-old")};
  Cluster cluster;
  cluster.Add(std::make_shared<const dra::ResourceClaimTemplate>(stored));
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, &set, nullptr, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions), ElementsAre("adopt batch/large-memory uid=t1"));
  // The old incarnation's controller reference is replaced, not kept beside the new one.
  EXPECT_THAT(plan.actions[0].meta.owner_references, ElementsAre(Owner(kUid)));
  EXPECT_EQ(plan.actions[0].meta.resource_version, "rv-t1");
}

TEST(ObjectPlanTest, ASpecChangeRecreatesTheTemplateUnderTheSameName) {
  const profile::TemplateSet before = Templates({"batch"}, /*count=*/1);
  const profile::TemplateSet after = Templates({"batch"}, /*count=*/2);
  Cluster cluster;
  cluster.Add(Stored(before, "batch", "t1"));
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, &after, nullptr, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions), ElementsAre("recreate batch/large-memory uid=t1"));
  EXPECT_EQ(plan.actions[0].claim_template->requests[0].count, 2);
  EXPECT_EQ(plan.templates_in_place, 0);
}

TEST(ObjectPlanTest, NamespacesGainedAndLost) {
  const profile::TemplateSet set = Templates({"batch", "team-new"});
  Cluster cluster;
  cluster.Add(Stored(set, "batch", "t1"));
  cluster.Add(Stored(set, "ml-train", "t2"));  // its namespace left the selection
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, &set, nullptr, cluster.Observe());
  EXPECT_THAT(Lines(plan.actions),
              ElementsAre("create team-new/large-memory", "delete ml-train/large-memory uid=t2"));
  EXPECT_EQ(plan.templates_in_place, 1);
}

TEST(ObjectPlanTest, NoTemplatesWantedDeletesTheLabelledOnes) {
  const profile::TemplateSet set = Templates({"batch"});
  Cluster cluster;
  cluster.Add(Stored(set, "batch", "t1"));
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, nullptr, nullptr, cluster.Observe());
  EXPECT_THAT(Lines(plan.actions), ElementsAre("delete batch/large-memory uid=t1"));
}

TEST(ObjectPlanTest, ARenamedClassIsCreatedAndTheOldOneDeleted) {
  dra::DeviceClass desired = Class("device.driver == 'gpu.nvidia.com'");
  desired.metadata.name = "large-memory-v2";  // spec.deviceClassName changed
  Cluster cluster;
  cluster.device_class =
      std::make_shared<const dra::DeviceClass>(Class("device.driver == 'gpu.nvidia.com'", "c1"));
  ObservedObjects observed = cluster.Observe();
  observed.class_with_desired_name = nullptr;  // nothing stored under the new name
  const ObjectPlan plan = PlanProfileObjects(kUid, &desired, nullptr, nullptr, observed);
  EXPECT_THAT(Lines(plan.actions), ElementsAre("create DeviceClass large-memory-v2",
                                               "delete DeviceClass large-memory uid=c1"));
}

TEST(ObjectPlanTest, ObjectsAnotherControllerOwnsAreNeverDeleted) {
  const profile::TemplateSet set = Templates({"batch"});
  dra::ResourceClaimTemplate theirs = *Stored(set, "ml-train", "t2");
  meta::OwnerReference other;
  other.api_version = "apps/v1";
  other.kind = "Deployment";
  other.name = "someone";
  other.uid = "uid-deploy";
  other.controller = true;
  theirs.metadata.owner_references = {other};
  Cluster cluster;
  cluster.Add(Stored(set, "batch", "t1"));
  cluster.Add(std::make_shared<const dra::ResourceClaimTemplate>(theirs));
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, &set, nullptr, cluster.Observe());
  EXPECT_THAT(plan.actions, IsEmpty());
  // Not even on deletion of the profile.
  EXPECT_THAT(Lines(PlanProfileCleanup(kUid, /*orphan=*/false, cluster.Observe())),
              ElementsAre("delete batch/large-memory uid=t1"));
}

TEST(ObjectPlanTest, CleanupWithDeletionPolicyDeleteDeletesEverythingLabelled) {
  const profile::TemplateSet set = Templates({"batch", "ml-train"});
  Cluster cluster;
  cluster.device_class = std::make_shared<const dra::DeviceClass>(Class("true", "c1"));
  cluster.Add(Stored(set, "batch", "t1"));
  cluster.Add(Stored(set, "ml-train", "t2"));
  EXPECT_THAT(
      Lines(PlanProfileCleanup(kUid, /*orphan=*/false, cluster.Observe())),
      ElementsAre("delete DeviceClass large-memory uid=c1", "delete batch/large-memory uid=t1",
                  "delete ml-train/large-memory uid=t2"));
}

TEST(ObjectPlanTest, CleanupWithDeletionPolicyOrphanReleasesOwnerReferences) {
  const profile::TemplateSet set = Templates({"batch", "ml-train"});
  dra::ResourceClaimTemplate released_already = *Stored(set, "ml-train", "t2");
  released_already.metadata.owner_references.clear();
  Cluster cluster;
  cluster.device_class = std::make_shared<const dra::DeviceClass>(Class("true", "c1"));
  cluster.Add(Stored(set, "batch", "t1"));
  cluster.Add(std::make_shared<const dra::ResourceClaimTemplate>(released_already));
  const std::vector<Action> actions = PlanProfileCleanup(kUid, /*orphan=*/true, cluster.Observe());
  // The template with no reference to this profile needs no write.
  ASSERT_THAT(Lines(actions), ElementsAre("release DeviceClass large-memory uid=c1",
                                          "release batch/large-memory uid=t1"));
  EXPECT_THAT(actions[0].meta.owner_references, IsEmpty());
  EXPECT_THAT(actions[1].meta.owner_references, IsEmpty());
  EXPECT_EQ(actions[1].meta.labels.at("gpuprofile.io/profile"), "large-memory");
}

TEST(ObjectPlanTest, MergedMetaKeepsOthersOwnersAndDropsEarlierIncarnations) {
  meta::ObjectMeta actual = Managed("batch", "large-memory", "t1", "uid-old");
  meta::OwnerReference other;
  other.api_version = "v1";
  other.kind = "ConfigMap";
  other.name = "notes";
  other.uid = "uid-cm";
  actual.owner_references.push_back(other);
  actual.annotations["note"] = "kept";
  const meta::ObjectMeta merged = MergedMeta(actual, Managed("batch", "large-memory", ""));
  EXPECT_THAT(merged.owner_references, ElementsAre(other, Owner(kUid)));
  EXPECT_EQ(merged.annotations.at("note"), "kept");
}

// The quota decisions, one row each: what is stored in each namespace and what the plan does.
struct QuotaCase {
  std::string name;
  int64_t wanted_devices;
  std::vector<std::string> wanted_namespaces;
  // Stored, as (namespace, devices); the uid is "q-<namespace>".
  std::vector<std::pair<std::string, int64_t>> stored;
  std::vector<std::string> want_actions;
  int64_t want_in_place;
};

TEST(ObjectPlanTest, QuotaDecisions) {
  const std::vector<QuotaCase> cases = {
      {"nothing stored: created in each namespace",
       2,
       {"batch", "ml-train"},
       {},
       {"create ResourceQuota batch/gpu-profile-large-memory",
        "create ResourceQuota ml-train/gpu-profile-large-memory"},
       0},
      {"as wanted: nothing to write", 2, {"batch"}, {{"batch", 2}}, {}, 1},
      {"the limit changed: replaced in place (its spec is mutable)",
       3,
       {"batch"},
       {{"batch", 2}},
       {"replace ResourceQuota batch/gpu-profile-large-memory uid=q-batch"},
       0},
      {"a namespace left the selection: its quota is deleted",
       2,
       {"batch"},
       {{"batch", 2}, {"ml-train", 2}},
       {"delete ResourceQuota ml-train/gpu-profile-large-memory uid=q-ml-train"},
       1},
      {"quota removed from the spec: every labelled quota is deleted",
       0,
       {},
       {{"batch", 2}},
       {"delete ResourceQuota batch/gpu-profile-large-memory uid=q-batch"},
       0},
  };
  for (const QuotaCase& c : cases) {
    SCOPED_TRACE(c.name);
    const profile::QuotaSet set = Quotas(c.wanted_namespaces, c.wanted_devices);
    Cluster cluster;
    for (const auto& [ns, devices] : c.stored) {
      cluster.Add(StoredQuota(Quotas({ns}, devices), ns, absl::StrCat("q-", ns)));
    }
    const ObjectPlan plan = PlanProfileObjects(
        kUid, nullptr, nullptr, c.wanted_namespaces.empty() ? nullptr : &set, cluster.Observe());
    EXPECT_EQ(Lines(plan.actions), c.want_actions);
    EXPECT_EQ(plan.quotas_in_place, c.want_in_place);
    EXPECT_EQ(plan.templates_in_place, 0);
  }
}

TEST(ObjectPlanTest, AQuotaCreateCarriesTheLimitsInItsNamespace) {
  const profile::QuotaSet set = Quotas({"batch"}, 2);
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, nullptr, &set, Cluster{}.Observe());
  ASSERT_EQ(plan.actions.size(), 1u);
  ASSERT_NE(plan.actions[0].quota, nullptr);
  EXPECT_EQ(plan.actions[0].quota->metadata.namespace_name, "batch");
  EXPECT_EQ(plan.actions[0].quota->hard.at(kQuotaKey), Quantity::FromInt(2));
  EXPECT_THAT(plan.actions[0].quota->metadata.owner_references, ElementsAre(Owner(kUid)));
}

TEST(ObjectPlanTest, AQuotaReplaceKeepsTheResourceVersionAndOthersMetadata) {
  const profile::QuotaSet before = Quotas({"batch"}, 2);
  meta::ResourceQuota stored = *StoredQuota(before, "batch", "q1");
  stored.metadata.labels["team"] = "platform";
  stored.metadata.annotations["note"] = "kept";
  stored.hard["pods"] = Quantity::FromInt(10);  // someone's extra limit: not ours to keep
  Cluster cluster;
  cluster.Add(std::make_shared<const meta::ResourceQuota>(stored));
  const profile::QuotaSet after = Quotas({"batch"}, 4);
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, nullptr, &after, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions),
              ElementsAre("replace ResourceQuota batch/gpu-profile-large-memory uid=q1"));
  const meta::ResourceQuota& written = *plan.actions[0].quota;
  EXPECT_EQ(written.metadata.resource_version, "rv-q1");  // optimistic concurrency
  EXPECT_EQ(written.metadata.uid, "q1");
  EXPECT_EQ(written.metadata.labels.at("team"), "platform");
  EXPECT_EQ(written.metadata.annotations.at("note"), "kept");
  EXPECT_EQ(written.hard, after.prototype.hard);
}

TEST(ObjectPlanTest, AQuotaWithScopesIsReplacedWithoutThem) {
  const profile::QuotaSet set = Quotas({"batch"}, 2);
  meta::ResourceQuota stored = *StoredQuota(set, "batch", "q1");
  stored.has_scopes = true;  // would narrow what the limit counts
  Cluster cluster;
  cluster.Add(std::make_shared<const meta::ResourceQuota>(stored));
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, nullptr, &set, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions),
              ElementsAre("replace ResourceQuota batch/gpu-profile-large-memory uid=q1"));
  EXPECT_FALSE(plan.actions[0].quota->has_scopes);
}

TEST(ObjectPlanTest, AnOrphanedQuotaWithTheWantedLimitsIsAdopted) {
  const profile::QuotaSet set = Quotas({"batch"}, 2);
  meta::ResourceQuota stored = *StoredQuota(set, "batch", "q1");
  stored.metadata.owner_references = {Owner("uid-old")};  // an earlier incarnation's
  Cluster cluster;
  cluster.Add(std::make_shared<const meta::ResourceQuota>(stored));
  const ObjectPlan plan = PlanProfileObjects(kUid, nullptr, nullptr, &set, cluster.Observe());
  ASSERT_THAT(Lines(plan.actions),
              ElementsAre("adopt ResourceQuota batch/gpu-profile-large-memory uid=q1"));
  EXPECT_THAT(plan.actions[0].meta.owner_references, ElementsAre(Owner(kUid)));
  EXPECT_EQ(plan.actions[0].meta.resource_version, "rv-q1");
  EXPECT_EQ(plan.quotas_in_place, 0);
}

TEST(ObjectPlanTest, QuotasAnotherControllerOwnsAreNeverDeleted) {
  const profile::QuotaSet set = Quotas({"batch"});
  meta::ResourceQuota theirs = *StoredQuota(set, "ml-train", "q2");
  meta::OwnerReference other;
  other.api_version = "apps/v1";
  other.kind = "Deployment";
  other.name = "someone";
  other.uid = "uid-deploy";
  other.controller = true;
  theirs.metadata.owner_references = {other};
  Cluster cluster;
  cluster.Add(StoredQuota(set, "batch", "q1"));
  cluster.Add(std::make_shared<const meta::ResourceQuota>(theirs));
  EXPECT_THAT(PlanProfileObjects(kUid, nullptr, nullptr, &set, cluster.Observe()).actions,
              IsEmpty());
  EXPECT_THAT(Lines(PlanProfileCleanup(kUid, /*orphan=*/false, cluster.Observe())),
              ElementsAre("delete ResourceQuota batch/gpu-profile-large-memory uid=q1"));
}

TEST(ObjectPlanTest, CleanupDeletesOrReleasesQuotasWithTheRest) {
  const profile::TemplateSet templates = Templates({"batch"});
  const profile::QuotaSet quotas = Quotas({"batch", "ml-train"});
  Cluster cluster;
  cluster.Add(Stored(templates, "batch", "t1"));
  cluster.Add(StoredQuota(quotas, "batch", "q1"));
  cluster.Add(StoredQuota(quotas, "ml-train", "q2"));
  EXPECT_THAT(Lines(PlanProfileCleanup(kUid, /*orphan=*/false, cluster.Observe())),
              ElementsAre("delete batch/large-memory uid=t1",
                          "delete ResourceQuota batch/gpu-profile-large-memory uid=q1",
                          "delete ResourceQuota ml-train/gpu-profile-large-memory uid=q2"));
  const std::vector<Action> released = PlanProfileCleanup(kUid, /*orphan=*/true, cluster.Observe());
  ASSERT_THAT(Lines(released),
              ElementsAre("release batch/large-memory uid=t1",
                          "release ResourceQuota batch/gpu-profile-large-memory uid=q1",
                          "release ResourceQuota ml-train/gpu-profile-large-memory uid=q2"));
  EXPECT_THAT(released[1].meta.owner_references, IsEmpty());
  EXPECT_EQ(released[1].meta.namespace_name, "batch");
}

}  // namespace
}  // namespace object_plan_test
}  // namespace gpuprofile::reconciler
