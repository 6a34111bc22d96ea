// File: controller/reconciler/object_plan.cc
#include "controller/reconciler/object_plan.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/meta/resource_quota_codec.h"

namespace gpuprofile::reconciler {
namespace {

// The metadata fields a plan decides.
bool SameMeta(const api::ObjectMeta& a, const api::ObjectMeta& b) {
  return a.name == b.name && a.namespace_name == b.namespace_name && a.uid == b.uid &&
         a.resource_version == b.resource_version && a.labels == b.labels &&
         a.annotations == b.annotations && a.owner_references == b.owner_references;
}

std::string TemplateKey(const std::string& ns, const std::string& name) {
  return absl::StrCat(ns, "/", name);
}

Action ClassAction(ActionVerb verb, const dra::DeviceClass& stored) {
  Action action;
  action.verb = verb;
  action.kind = ObjectKind::kDeviceClass;
  action.name = stored.metadata.name;
  action.uid = stored.metadata.uid;
  return action;
}

Action TemplateAction(ActionVerb verb, const TemplateObject& stored) {
  Action action;
  action.verb = verb;
  action.kind = ObjectKind::kClaimTemplate;
  action.namespace_name = stored.namespace_name;
  action.name = stored.name();
  action.uid = stored.uid;
  return action;
}

Action QuotaAction(ActionVerb verb, const api::ResourceQuota& stored) {
  Action action;
  action.verb = verb;
  action.kind = ObjectKind::kResourceQuota;
  action.namespace_name = stored.metadata.namespace_name;
  action.name = stored.metadata.name;
  action.uid = stored.metadata.uid;
  return action;
}

// `meta` without its owner references to `uid`; nullopt when it has none (nothing to write).
std::optional<api::ObjectMeta> WithoutOwner(const api::ObjectMeta& meta, const std::string& uid) {
  api::ObjectMeta out = meta;
  auto& refs = out.owner_references;
  const size_t before = refs.size();
  refs.erase(std::remove_if(refs.begin(), refs.end(),
                            [&](const api::OwnerReference& r) { return r.uid == uid; }),
             refs.end());
  if (refs.size() == before) return std::nullopt;
  return out;
}

void PlanClass(const std::string& profile_uid, const dra::DeviceClass* desired,
               const ObservedObjects& observed, std::vector<Action>* actions) {
  if (desired != nullptr) {
    const dra::DeviceClass* actual = observed.class_with_desired_name.get();
    if (actual == nullptr) {
      Action create;
      create.verb = ActionVerb::kCreate;
      create.kind = ObjectKind::kDeviceClass;
      create.name = desired->metadata.name;
      create.device_class = std::make_shared<const dra::DeviceClass>(*desired);
      actions->push_back(std::move(create));
    } else if (!dra::SameDesiredState(*desired, *actual,
                                      /*extended_resource_name_served=*/true)) {
      // The engine sets extendedResourceName only where the cluster serves it
      // (profile/feature_support.h), so a stored class without it needs the name written: a
      // profile that gained the field after its class was created.
      auto next = std::make_shared<dra::DeviceClass>(*desired);
      next->metadata = MergedMeta(actual->metadata, desired->metadata);
      Action replace = ClassAction(ActionVerb::kReplace, *actual);
      replace.device_class = std::move(next);
      actions->push_back(std::move(replace));
    }
  }
  // Classes labelled for this profile under another name (deviceClassName changed).
  for (const auto& c : observed.labelled_classes) {
    if (desired != nullptr && c->metadata.name == desired->metadata.name) continue;
    if (!OwnedByOrOrphan(c->metadata, profile_uid)) continue;
    actions->push_back(ClassAction(ActionVerb::kDelete, *c));
  }
}

int64_t PlanTemplates(const std::string& profile_uid, const profile::TemplateSet* desired_set,
                      const ObservedObjects& observed, std::vector<Action>* actions) {
  int64_t in_place = 0;
  std::set<std::string> wanted;
  if (desired_set != nullptr) {
    const dra::ResourceClaimTemplate& prototype = desired_set->prototype;  // no namespace
    const std::string& name = prototype.metadata.name;
    for (const std::string& namespace_name : desired_set->namespaces) {
      wanted.insert(TemplateKey(namespace_name, name));
      std::shared_ptr<const TemplateObject> stored =
          observed.template_at ? observed.template_at(namespace_name, name) : nullptr;
      // In place: the shape (no namespace either) stores what the prototype asks for; the
      // namespace is the one looked up.
      if (stored != nullptr && dra::SameDesiredState(prototype, *stored->shape)) {
        ++in_place;
        continue;
      }
      // Materialised one at a time: the desired state keeps one object per profile.
      auto desired =
          std::make_shared<const dra::ResourceClaimTemplate>(desired_set->In(namespace_name));
      if (stored == nullptr) {
        Action create;
        create.verb = ActionVerb::kCreate;
        create.kind = ObjectKind::kClaimTemplate;
        create.namespace_name = namespace_name;
        create.name = name;
        create.claim_template = std::move(desired);
        actions->push_back(std::move(create));
        continue;
      }
      const std::shared_ptr<const dra::ResourceClaimTemplate> actual = stored->Full();
      // Same spec, other metadata (adoption, labels): patch; spec changed: re-create, since
      // ResourceClaimTemplate.spec is immutable and pods name templates.
      dra::ResourceClaimTemplate relabelled = *actual;
      relabelled.metadata = MergedMeta(actual->metadata, desired->metadata);
      if (dra::SameDesiredState(*desired, relabelled)) {
        Action adopt = TemplateAction(ActionVerb::kAdopt, *stored);
        adopt.meta = std::move(relabelled.metadata);
        actions->push_back(std::move(adopt));
        continue;
      }
      Action recreate = TemplateAction(ActionVerb::kRecreate, *stored);
      recreate.claim_template = std::move(desired);
      actions->push_back(std::move(recreate));
    }
  }
  for (const auto& t : observed.labelled_templates) {
    if (wanted.count(TemplateKey(t->namespace_name, t->name())) > 0) continue;
    if (!OwnedByOrOrphan(t->shared_meta(), profile_uid)) continue;
    actions->push_back(TemplateAction(ActionVerb::kDelete, *t));
  }
  return in_place;
}

int64_t PlanQuotas(const std::string& profile_uid, const profile::QuotaSet* desired_set,
                   const ObservedObjects& observed, std::vector<Action>* actions) {
  int64_t in_place = 0;
  std::set<std::string> wanted;
  if (desired_set != nullptr) {
    const std::string& name = desired_set->prototype.metadata.name;
    for (const std::string& namespace_name : desired_set->namespaces) {
      wanted.insert(TemplateKey(namespace_name, name));
      auto desired = std::make_shared<const api::ResourceQuota>(desired_set->In(namespace_name));
      std::shared_ptr<const api::ResourceQuota> stored =
          observed.quota_at ? observed.quota_at(namespace_name, name) : nullptr;
      if (stored == nullptr) {
        Action create;
        create.verb = ActionVerb::kCreate;
        create.kind = ObjectKind::kResourceQuota;
        create.namespace_name = namespace_name;
        create.name = name;
        create.quota = std::move(desired);
        actions->push_back(std::move(create));
        continue;
      }
      if (api::SameDesiredState(*desired, *stored)) {
        ++in_place;
        continue;
      }
      // Same limits, other metadata (adoption, labels): patch; limits changed: replace in place,
      // since a quota's spec is mutable and nothing names a quota.
      api::ResourceQuota next = *desired;
      next.metadata = MergedMeta(stored->metadata, desired->metadata);
      api::ResourceQuota relabelled = *stored;
      relabelled.metadata = next.metadata;
      if (api::SameDesiredState(*desired, relabelled)) {
        Action adopt = QuotaAction(ActionVerb::kAdopt, *stored);
        adopt.meta = std::move(relabelled.metadata);
        actions->push_back(std::move(adopt));
        continue;
      }
      Action replace = QuotaAction(ActionVerb::kReplace, *stored);
      replace.quota = std::make_shared<const api::ResourceQuota>(std::move(next));
      actions->push_back(std::move(replace));
    }
  }
  for (const auto& q : observed.labelled_quotas) {
    if (wanted.count(TemplateKey(q->metadata.namespace_name, q->metadata.name)) > 0) continue;
    if (!OwnedByOrOrphan(q->metadata, profile_uid)) continue;
    actions->push_back(QuotaAction(ActionVerb::kDelete, *q));
  }
  return in_place;
}

}  // namespace

std::string Action::Describe() const {
  if (kind == ObjectKind::kDeviceClass) return absl::StrCat("DeviceClass ", name);
  if (kind == ObjectKind::kResourceQuota) {
    return absl::StrCat("ResourceQuota ", TemplateKey(namespace_name, name));
  }
  return TemplateKey(namespace_name, name);
}

bool Action::operator==(const Action& other) const {
  const auto same_object = [](const auto& a, const auto& b, auto same_spec) {
    if ((a == nullptr) != (b == nullptr)) return false;
    return a == nullptr || (same_spec(*a, *b) && SameMeta(a->metadata, b->metadata));
  };
  const auto same_class = [](const dra::DeviceClass& a, const dra::DeviceClass& b) {
    return dra::SameDesiredState(a, b, true);
  };
  const auto same_template = [](const dra::ResourceClaimTemplate& a,
                                const dra::ResourceClaimTemplate& b) {
    return dra::SameDesiredState(a, b);
  };
  const auto same_quota = [](const api::ResourceQuota& a, const api::ResourceQuota& b) {
    return a.hard == b.hard && a.has_scopes == b.has_scopes;
  };
  return verb == other.verb && kind == other.kind && namespace_name == other.namespace_name &&
         name == other.name && uid == other.uid && SameMeta(meta, other.meta) &&
         same_object(device_class, other.device_class, same_class) &&
         same_object(claim_template, other.claim_template, same_template) &&
         same_object(quota, other.quota, same_quota);
}

ObjectPlan PlanProfileObjects(const std::string& profile_uid, const dra::DeviceClass* desired_class,
                              const profile::TemplateSet* desired_templates,
                              const profile::QuotaSet* desired_quotas,
                              const ObservedObjects& observed) {
  ObjectPlan plan;
  PlanClass(profile_uid, desired_class, observed, &plan.actions);
  plan.templates_in_place = PlanTemplates(profile_uid, desired_templates, observed, &plan.actions);
  plan.quotas_in_place = PlanQuotas(profile_uid, desired_quotas, observed, &plan.actions);
  return plan;
}

std::vector<Action> PlanProfileCleanup(const std::string& profile_uid, bool orphan,
                                       const ObservedObjects& observed) {
  std::vector<Action> actions;
  const auto plan_one = [&](const api::ObjectMeta& meta, Action action) {
    if (orphan) {
      std::optional<api::ObjectMeta> released = WithoutOwner(meta, profile_uid);
      if (!released.has_value()) return;
      action.verb = ActionVerb::kRelease;
      action.meta = *std::move(released);
    } else {
      if (!OwnedByOrOrphan(meta, profile_uid)) return;
      action.verb = ActionVerb::kDelete;
    }
    actions.push_back(std::move(action));
  };
  for (const auto& c : observed.labelled_classes) {
    plan_one(c->metadata, ClassAction(ActionVerb::kDelete, *c));
  }
  for (const auto& t : observed.labelled_templates) {
    plan_one(t->Full()->metadata, TemplateAction(ActionVerb::kDelete, *t));
  }
  for (const auto& q : observed.labelled_quotas) {
    plan_one(q->metadata, QuotaAction(ActionVerb::kDelete, *q));
  }
  return actions;
}

api::ObjectMeta MergedMeta(const api::ObjectMeta& actual, const api::ObjectMeta& desired) {
  api::ObjectMeta merged = actual;
  for (const auto& [k, v] : desired.labels) merged.labels[k] = v;
  for (const api::OwnerReference& want : desired.owner_references) {
    merged.owner_references.erase(
        std::remove_if(merged.owner_references.begin(), merged.owner_references.end(),
                       [&](const api::OwnerReference& ref) {
                         return ref.kind == want.kind && ref.api_version == want.api_version &&
                                (ref.name == want.name || ref.controller) && !(ref == want);
                       }),
        merged.owner_references.end());
    if (std::find(merged.owner_references.begin(), merged.owner_references.end(), want) ==
        merged.owner_references.end()) {
      merged.owner_references.push_back(want);
    }
  }
  return merged;
}

bool OwnedByOrOrphan(const api::ObjectMeta& meta, const std::string& uid) {
  const api::OwnerReference* owner = meta.ControllerOwner();
  return owner == nullptr || owner->uid == uid || owner->kind == api::kGpuProfileKind;
}

}  // namespace gpuprofile::reconciler
