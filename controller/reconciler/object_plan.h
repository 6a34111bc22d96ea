// File: controller/reconciler/object_plan.h
// Reconcile as data: what to write for one GpuProfile's DeviceClass, ResourceClaimTemplates and
// ResourceQuotas, decided from the desired state and the observed objects alone. Pure: no I/O, no
// clock, no locks; the executor (plan_executor.h) carries the actions out, and a test checks a
// decision by comparing action lists (test/reconciler/object_plan_test.cc).
//
// The decisions (docs/design.md §4):
//  - DeviceClass missing: create. Present with other selectors or config, or without our labels
//    or owner reference (adoption): replace, keeping what others put in its metadata (a class
//    is small and mutable, so one PUT does both).
//  - Template missing in a wanted namespace: create. Same spec, metadata differs: adopt. Spec
//    differs: re-create under the same name (a template's spec is immutable, and pods name it).
//  - ResourceQuota missing in a wanted namespace: create. Same limits, metadata differs: adopt.
//    Limits differ (or the stored quota has scopes): replace (a quota's spec is mutable: one PUT
//    with the stored resourceVersion, keeping what others put in its metadata).
//  - Objects labelled for the profile but no longer wanted (a namespace left the selection, the
//    deviceClassName changed): delete, when the profile controls them or nobody does.
//  - The profile is being deleted: deletionPolicy Delete deletes what it controls (or what
//    nobody controls); Orphan releases (drops the owner reference to this profile's uid).
// An object some other manager controls is never deleted. Unmanaged objects with a wanted name
// never reach the plan: the engine gives the profile Conflict and wants no object there.
// Thread-safety: pure functions over immutable inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controller/dra/device_class.h"
#include "controller/dra/resource_claim_template.h"
#include "controller/meta/object_meta.h"
#include "controller/meta/resource_quota.h"
#include "controller/profile/engine.h"
#include "controller/reconciler/cluster_objects.h"

namespace gpuprofile::reconciler {

enum class ActionVerb {
  kCreate,    // the desired object
  kReplace,   // the desired object over the stored one (resourceVersion precondition)
  kRecreate,  // delete the stored one (uid precondition), then create the desired one
  kAdopt,     // patch labels and owner references to `meta`
  kRelease,   // patch owner references to `meta` (this profile's removed): deletionPolicy Orphan
  kDelete,    // delete with the uid precondition
};

enum class ObjectKind { kDeviceClass, kClaimTemplate, kResourceQuota };

// Which object an action or an applied change concerns: typed, so that what was done is
// summarised (events, the templates a profile wrote) without parsing a description back.
struct ObjectRef {
  ObjectKind kind = ObjectKind::kDeviceClass;
  std::string namespace_name;  // templates and quotas only
  std::string name;

  // "DeviceClass <name>", "<namespace>/<name>" (templates) or "ResourceQuota <namespace>/<name>",
  // as logs and tests name objects.
  std::string Describe() const;
  // "<namespace>/<name>" (classes: "<name>").
  std::string Key() const;
  bool operator==(const ObjectRef& other) const {
    return kind == other.kind && namespace_name == other.namespace_name && name == other.name;
  }
};

struct Action {
  ActionVerb verb = ActionVerb::kCreate;
  ObjectKind kind = ObjectKind::kDeviceClass;
  std::string namespace_name;  // templates and quotas only
  std::string name;
  std::string uid;  // of the stored object: kRecreate, kDelete
  // kCreate, kReplace, kRecreate: the object to write (kReplace: with the stored metadata merged
  // in, resourceVersion included).
  std::shared_ptr<const dra::DeviceClass> device_class;
  std::shared_ptr<const dra::ResourceClaimTemplate> claim_template;
  std::shared_ptr<const meta::ResourceQuota> quota;
  meta::ObjectMeta meta;  // kAdopt, kRelease: the metadata to write

  ObjectRef ref() const { return ObjectRef{kind, namespace_name, name}; }
  std::string Describe() const { return ref().Describe(); }
  bool operator==(const Action& other) const;
};

// What the caches hold that concerns one profile.
struct ObservedObjects {
  // The DeviceClass stored under the desired class's name (null: none).
  std::shared_ptr<const dra::DeviceClass> class_with_desired_name;
  // Objects carrying the profile's label (gpuprofile.io/profile=<name>).
  std::vector<std::shared_ptr<const dra::DeviceClass>> labelled_classes;
  // Templates as cached, compact (TemplateObject): the plan compares a desired template with
  // the shape and materialises one (Full()) only to adopt or release it.
  std::vector<std::shared_ptr<const TemplateObject>> labelled_templates;
  // The template stored under (namespace, name) (null: none); only managed templates are cached.
  std::function<std::shared_ptr<const TemplateObject>(const std::string& ns,
                                                      const std::string& name)>
      template_at;
  // ResourceQuotas carrying the profile's label, and the one stored under (namespace, name)
  // (null: none); only managed quotas are cached.
  std::vector<std::shared_ptr<const meta::ResourceQuota>> labelled_quotas;
  std::function<std::shared_ptr<const meta::ResourceQuota>(const std::string& ns,
                                                           const std::string& name)>
      quota_at;
};

struct ObjectPlan {
  std::vector<Action> actions;
  // Desired templates already as wanted (no action needed).
  int64_t templates_in_place = 0;
  // Desired quotas already as wanted.
  int64_t quotas_in_place = 0;
};

// The actions that make one profile's objects equal to the desired ones. `profile_uid` is the
// live profile's uid (objects controlled by another uid of a GpuProfile are an earlier
// incarnation's, and may be deleted). `desired_class` / `desired_templates` / `desired_quotas`
// may be null.
ObjectPlan PlanProfileObjects(const std::string& profile_uid, const dra::DeviceClass* desired_class,
                              const profile::TemplateSet* desired_templates,
                              const profile::QuotaSet* desired_quotas,
                              const ObservedObjects& observed);

// The actions of a profile's finalizer: delete (deletionPolicy Delete) or release (Orphan) the
// labelled objects.
std::vector<Action> PlanProfileCleanup(const std::string& profile_uid, bool orphan,
                                       const ObservedObjects& observed);

// Metadata to write over `actual`: the desired labels and owner reference added to what others
// put there (labels, annotations, finalizers, their own owner references); owner references to
// earlier incarnations of the same profile (other uid) dropped.
meta::ObjectMeta MergedMeta(const meta::ObjectMeta& actual, const meta::ObjectMeta& desired);

// Whether `meta` may be deleted on behalf of the profile with `uid`: controlled by it, by
// nobody, or by a GpuProfile that is gone (another uid).
bool OwnedByOrOrphan(const meta::ObjectMeta& meta, const std::string& uid);

}  // namespace gpuprofile::reconciler
