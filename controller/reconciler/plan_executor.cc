// File: controller/reconciler/plan_executor.cc
#include "controller/reconciler/plan_executor.h"

#include <utility>

#include "controller/dra/dra_object_codec.h"
#include "controller/kube/api_error.h"
#include "controller/meta/resource_quota_codec.h"
#include "controller/profile/engine.h"

namespace gpuprofile::reconciler {
namespace {

bool IsManagedByOperator(const meta::ObjectMeta& meta) {
  auto managed = meta.labels.find(profile::kManagedByLabel);
  return managed != meta.labels.end() && managed->second == profile::kManagedByValue;
}

// A template create met an existing object the cache does not hold: find out whose it is.
void NoteExistingTemplate(const Action& action, dra::DraApiVersion version, ClusterWriter* writer,
                          ForeignObjects* foreign, AppliedChanges* changes) {
  changes->conflicts.push_back(action.ref());
  absl::StatusOr<nlohmann::json> existing =
      writer->GetTemplate(version, action.namespace_name, action.name);
  if (!existing.ok()) return changes->Fail(existing.status());
  if (foreign == nullptr) return;
  absl::StatusOr<dra::ResourceClaimTemplate> decoded = dra::DecodeResourceClaimTemplate(*existing);
  if (decoded.ok()) {
    if (!IsManagedByOperator(decoded->metadata)) foreign->AddTemplate(*std::move(decoded));
    return;
  }
  // A template the operator cannot even read is certainly not its own.
  dra::ResourceClaimTemplate opaque;
  opaque.metadata.namespace_name = action.namespace_name;
  opaque.metadata.name = action.name;
  foreign->AddTemplate(std::move(opaque));
}

// Likewise for a quota (only the operator's quotas are cached).
void NoteExistingQuota(const Action& action, ClusterWriter* writer, ForeignObjects* foreign,
                       AppliedChanges* changes) {
  changes->conflicts.push_back(action.ref());
  absl::StatusOr<nlohmann::json> existing = writer->GetQuota(action.namespace_name, action.name);
  if (!existing.ok()) return changes->Fail(existing.status());
  if (foreign == nullptr) return;
  absl::StatusOr<meta::ResourceQuota> decoded = meta::DecodeResourceQuota(*existing);
  if (decoded.ok()) {
    if (!IsManagedByOperator(decoded->metadata)) foreign->AddQuota(*std::move(decoded));
    return;
  }
  meta::ResourceQuota opaque;
  opaque.metadata.namespace_name = action.namespace_name;
  opaque.metadata.name = action.name;
  foreign->AddQuota(std::move(opaque));
}

// One more desired object of the action's kind in place.
void Placed(const Action& action, AppliedChanges* changes) {
  if (action.kind == ObjectKind::kClaimTemplate) ++changes->templates_placed;
  if (action.kind == ObjectKind::kResourceQuota) ++changes->quotas_placed;
}

void Create(const Action& action, dra::DraApiVersion version, ClusterWriter* writer,
            ForeignObjects* foreign, AppliedChanges* changes) {
  absl::Status created;
  switch (action.kind) {
    case ObjectKind::kDeviceClass:
      created = writer->CreateDeviceClass(version, *action.device_class);
      break;
    case ObjectKind::kClaimTemplate:
      created = writer->CreateTemplate(version, *action.claim_template);
      break;
    case ObjectKind::kResourceQuota:
      created = writer->CreateQuota(*action.quota);
      break;
  }
  if (created.ok()) {
    changes->created.push_back(action.ref());
    Placed(action, changes);
  } else if (!kube::apierrors::IsAlreadyExists(created)) {
    changes->Fail(std::move(created));
  } else if (action.kind == ObjectKind::kDeviceClass) {
    // Every class is cached: the informer brings it, and the engine then decides.
    changes->conflicts.push_back(action.ref());
  } else if (action.kind == ObjectKind::kClaimTemplate) {
    NoteExistingTemplate(action, version, writer, foreign, changes);
  } else {
    NoteExistingQuota(action, writer, foreign, changes);
  }
}

absl::Status Replace(const Action& action, dra::DraApiVersion version, ClusterWriter* writer) {
  return action.kind == ObjectKind::kResourceQuota
             ? writer->ReplaceQuota(*action.quota)
             : writer->ReplaceDeviceClass(version, *action.device_class);
}

absl::Status Delete(const Action& action, dra::DraApiVersion version, ClusterWriter* writer) {
  switch (action.kind) {
    case ObjectKind::kDeviceClass:
      return writer->DeleteDeviceClass(version, action.name, action.uid);
    case ObjectKind::kClaimTemplate:
      return writer->DeleteTemplate(version, action.namespace_name, action.name, action.uid);
    case ObjectKind::kResourceQuota:
      return writer->DeleteQuota(action.namespace_name, action.name, action.uid);
  }
  return absl::InternalError("unknown object kind");
}

absl::Status PatchMeta(const Action& action, dra::DraApiVersion version, ClusterWriter* writer) {
  switch (action.kind) {
    case ObjectKind::kDeviceClass:
      return writer->PatchClassOwnership(version, action.meta);
    case ObjectKind::kClaimTemplate:
      return writer->PatchTemplateOwnership(version, action.meta);
    case ObjectKind::kResourceQuota:
      return writer->PatchQuotaOwnership(action.meta);
  }
  return absl::InternalError("unknown object kind");
}

}  // namespace

bool AppliedChanges::Quiet() const {
  return first_error.ok() && conflicts.empty() && created.empty() && updated.empty() &&
         recreated.empty() && adopted.empty() && released.empty() && deleted.empty();
}

AppliedChanges ExecutePlan(const std::vector<Action>& actions, dra::DraApiVersion version,
                           ClusterWriter* writer, ForeignObjects* foreign) {
  AppliedChanges changes;
  for (const Action& action : actions) {
    switch (action.verb) {
      case ActionVerb::kCreate:
        Create(action, version, writer, foreign, &changes);
        break;
      case ActionVerb::kReplace: {
        absl::Status replaced = Replace(action, version, writer);
        if (replaced.ok()) {
          changes.updated.push_back(action.ref());
          Placed(action, &changes);
        } else {
          changes.Fail(std::move(replaced));
        }
        break;
      }
      case ActionVerb::kRecreate: {
        absl::Status deleted = Delete(action, version, writer);
        if (!deleted.ok()) {
          changes.Fail(std::move(deleted));
          break;
        }
        absl::Status created = writer->CreateTemplate(version, *action.claim_template);
        if (created.ok()) {
          changes.recreated.push_back(action.ref());
          ++changes.templates_placed;
        } else {
          // Deleted but not re-created (e.g. the delete has not finished): the next pass creates.
          changes.Fail(std::move(created));
        }
        break;
      }
      case ActionVerb::kAdopt:
      case ActionVerb::kRelease: {
        absl::Status patched = PatchMeta(action, version, writer);
        if (!patched.ok()) {
          changes.Fail(std::move(patched));
        } else if (action.verb == ActionVerb::kAdopt) {
          changes.adopted.push_back(action.ref());
          Placed(action, &changes);
        } else {
          changes.released.push_back(action.ref());
        }
        break;
      }
      case ActionVerb::kDelete: {
        absl::Status deleted = Delete(action, version, writer);
        if (deleted.ok()) {
          changes.deleted.push_back(action.ref());
        } else {
          changes.Fail(std::move(deleted));
        }
        break;
      }
    }
  }
  return changes;
}

}  // namespace gpuprofile::reconciler
