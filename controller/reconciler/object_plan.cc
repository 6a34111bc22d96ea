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
bool SameMeta(const meta::ObjectMeta& a, const meta::ObjectMeta& b) {
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

Action QuotaAction(ActionVerb verb, const meta::ResourceQuota& stored) {
  Action action;
  action.verb = verb;
  action.kind = ObjectKind::kResourceQuota;
  action.namespace_name = stored.metadata.namespace_name;
  action.name = stored.metadata.name;
  action.uid = stored.metadata.uid;
  return action;
}

// `meta` without its owner references to `uid`; nullopt when it has none (nothing to write).
std::optional<meta::ObjectMeta> WithoutOwner(const meta::ObjectMeta& meta, const std::string& uid) {
  meta::ObjectMeta out = meta;
  auto& refs = out.owner_references;
  const size_t before = refs.size();
  refs.erase(std::remove_if(refs.begin(), refs.end(),
                            [&](const meta::OwnerReference& r) { return r.uid == uid; }),
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

// How the generic planner below treats one namespaced kind: where the stored object is, when it
// is in place, and what brings it in place. Templates and quotas differ in two ways only: a
// template's spec is immutable (a changed one is re-created; pods name it), a quota's is not (it
// is replaced); and templates are cached compact (TemplateObject), materialised only to adopt.
struct TemplateKind {
  using Set = profile::TemplateSet;
  using Stored = TemplateObject;
  static constexpr ObjectKind kKind = ObjectKind::kClaimTemplate;

  static const std::string& Name(const Set& set) { return set.prototype.metadata.name; }
  static std::shared_ptr<const Stored> StoredAt(const ObservedObjects& observed,
                                                const std::string& ns, const std::string& name) {
    return observed.template_at ? observed.template_at(ns, name) : nullptr;
  }
  // The shape (no namespace either) stores what the prototype asks for; the namespace is the one
  // looked up.
  static bool InPlace(const Set& set, const std::string& ns, const Stored& stored) {
    return dra::SameDesiredState(set.prototype, *stored.shape);
  }
  static Action Create(const Set& set, const std::string& ns) {
    Action create;
    create.verb = ActionVerb::kCreate;
    create.kind = kKind;
    create.namespace_name = ns;
    create.name = Name(set);
    // Materialised one at a time: the desired state keeps one object per profile.
    create.claim_template = std::make_shared<const dra::ResourceClaimTemplate>(set.In(ns));
    return create;
  }
  // Same spec, other metadata (adoption, labels): patch; spec changed: re-create.
  static Action Update(const Set& set, const std::string& ns, const Stored& stored) {
    auto desired = std::make_shared<const dra::ResourceClaimTemplate>(set.In(ns));
    const std::shared_ptr<const dra::ResourceClaimTemplate> actual = stored.Full();
    dra::ResourceClaimTemplate relabelled = *actual;
    relabelled.metadata = MergedMeta(actual->metadata, desired->metadata);
    if (dra::SameDesiredState(*desired, relabelled)) {
      Action adopt = TemplateAction(ActionVerb::kAdopt, stored);
      adopt.meta = std::move(relabelled.metadata);
      return adopt;
    }
    Action recreate = TemplateAction(ActionVerb::kRecreate, stored);
    recreate.claim_template = std::move(desired);
    return recreate;
  }
  static const std::vector<std::shared_ptr<const Stored>>& Labelled(const ObservedObjects& o) {
    return o.labelled_templates;
  }
  static const meta::ObjectMeta& Meta(const Stored& stored) { return stored.shared_meta(); }
  static std::string KeyOf(const Stored& stored) {
    return TemplateKey(stored.namespace_name, stored.name());
  }
  static Action Delete(const Stored& stored) { return TemplateAction(ActionVerb::kDelete, stored); }
};

struct QuotaKind {
  using Set = profile::QuotaSet;
  using Stored = meta::ResourceQuota;
  static constexpr ObjectKind kKind = ObjectKind::kResourceQuota;

  static const std::string& Name(const Set& set) { return set.prototype.metadata.name; }
  static std::shared_ptr<const Stored> StoredAt(const ObservedObjects& observed,
                                                const std::string& ns, const std::string& name) {
    return observed.quota_at ? observed.quota_at(ns, name) : nullptr;
  }
  static bool InPlace(const Set& set, const std::string& ns, const Stored& stored) {
    return meta::SameDesiredState(set.In(ns), stored);
  }
  static Action Create(const Set& set, const std::string& ns) {
    Action create;
    create.verb = ActionVerb::kCreate;
    create.kind = kKind;
    create.namespace_name = ns;
    create.name = Name(set);
    create.quota = std::make_shared<const meta::ResourceQuota>(set.In(ns));
    return create;
  }
  // Same limits, other metadata (adoption, labels): patch; limits changed: replace in place,
  // since a quota's spec is mutable and nothing names a quota.
  static Action Update(const Set& set, const std::string& ns, const Stored& stored) {
    const meta::ResourceQuota desired = set.In(ns);
    meta::ResourceQuota next = desired;
    next.metadata = MergedMeta(stored.metadata, desired.metadata);
    meta::ResourceQuota relabelled = stored;
    relabelled.metadata = next.metadata;
    if (meta::SameDesiredState(desired, relabelled)) {
      Action adopt = QuotaAction(ActionVerb::kAdopt, stored);
      adopt.meta = std::move(relabelled.metadata);
      return adopt;
    }
    Action replace = QuotaAction(ActionVerb::kReplace, stored);
    replace.quota = std::make_shared<const meta::ResourceQuota>(std::move(next));
    return replace;
  }
  static const std::vector<std::shared_ptr<const Stored>>& Labelled(const ObservedObjects& o) {
    return o.labelled_quotas;
  }
  static const meta::ObjectMeta& Meta(const Stored& stored) { return stored.metadata; }
  static std::string KeyOf(const Stored& stored) {
    return TemplateKey(stored.metadata.namespace_name, stored.metadata.name);
  }
  static Action Delete(const Stored& stored) { return QuotaAction(ActionVerb::kDelete, stored); }
};

// One object per wanted namespace, named after the set's prototype: created where missing,
// brought in place where it differs; objects labelled for the profile in other namespaces (or
// under another name) deleted when the profile may. Returns how many were already in place.
template <typename Kind>
int64_t PlanNamespaced(const std::string& profile_uid, const typename Kind::Set* desired_set,
                       const ObservedObjects& observed, std::vector<Action>* actions) {
  int64_t in_place = 0;
  std::set<std::string> wanted;
  if (desired_set != nullptr) {
    const std::string& name = Kind::Name(*desired_set);
    for (const std::string& ns : desired_set->namespaces) {
      wanted.insert(TemplateKey(ns, name));
      const auto stored = Kind::StoredAt(observed, ns, name);
      if (stored == nullptr) {
        actions->push_back(Kind::Create(*desired_set, ns));
      } else if (Kind::InPlace(*desired_set, ns, *stored)) {
        ++in_place;
      } else {
        actions->push_back(Kind::Update(*desired_set, ns, *stored));
      }
    }
  }
  for (const auto& stored : Kind::Labelled(observed)) {
    if (wanted.count(Kind::KeyOf(*stored)) > 0) continue;
    if (!OwnedByOrOrphan(Kind::Meta(*stored), profile_uid)) continue;
    actions->push_back(Kind::Delete(*stored));
  }
  return in_place;
}

}  // namespace

std::string ObjectRef::Key() const {
  return kind == ObjectKind::kDeviceClass ? name : TemplateKey(namespace_name, name);
}

std::string ObjectRef::Describe() const {
  switch (kind) {
    case ObjectKind::kDeviceClass:
      return absl::StrCat("DeviceClass ", name);
    case ObjectKind::kResourceQuota:
      return absl::StrCat("ResourceQuota ", Key());
    case ObjectKind::kClaimTemplate:
      break;
  }
  return Key();
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
  const auto same_quota = [](const meta::ResourceQuota& a, const meta::ResourceQuota& b) {
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
  plan.templates_in_place =
      PlanNamespaced<TemplateKind>(profile_uid, desired_templates, observed, &plan.actions);
  plan.quotas_in_place =
      PlanNamespaced<QuotaKind>(profile_uid, desired_quotas, observed, &plan.actions);
  return plan;
}

std::vector<Action> PlanProfileCleanup(const std::string& profile_uid, bool orphan,
                                       const ObservedObjects& observed) {
  std::vector<Action> actions;
  const auto plan_one = [&](const meta::ObjectMeta& meta, Action action) {
    if (orphan) {
      std::optional<meta::ObjectMeta> released = WithoutOwner(meta, profile_uid);
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

meta::ObjectMeta MergedMeta(const meta::ObjectMeta& actual, const meta::ObjectMeta& desired) {
  meta::ObjectMeta merged = actual;
  for (const auto& [k, v] : desired.labels) merged.labels[k] = v;
  for (const meta::OwnerReference& want : desired.owner_references) {
    merged.owner_references.erase(
        std::remove_if(merged.owner_references.begin(), merged.owner_references.end(),
                       [&](const meta::OwnerReference& ref) {
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

bool OwnedByOrOrphan(const meta::ObjectMeta& meta, const std::string& uid) {
  const meta::OwnerReference* owner = meta.ControllerOwner();
  return owner == nullptr || owner->uid == uid || owner->kind == api::kGpuProfileKind;
}

}  // namespace gpuprofile::reconciler
