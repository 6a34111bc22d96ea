// File: e2e/emulator/lifecycle.cc
// Deletion (finalizers, propagation), namespace termination, CRD cleanup and registration, and the
// ownerReference garbage collector.
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/core/names.h"
#include "controller/dra/dra_object_codec.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/api_server.h"
#include "e2e/emulator/conversion.h"
#include "e2e/emulator/crd.h"
#include "e2e/emulator/discovery.h"
#include "e2e/emulator/quota_admission.h"
#include "e2e/emulator/selectors.h"
#include "e2e/emulator/server_util.h"
#include "e2e/emulator/structural_schema.h"
#include "e2e/emulator/table.h"

namespace gpuprofile::e2e {

ObjectPtr ApiServer::Remove(const std::string& key, const nlohmann::json& object) {
  ObjectPtr current = store_.Get(key, NamespaceOf(object), NameOf(object));
  ObjectPtr removed = store_.Remove(key, NamespaceOf(object), NameOf(object));
  if (!removed) return current;
  if (key == kCrdKey) {
    registry_->RemoveCustom(FieldString(object, "spec.group"),
                            FieldString(object, "spec.names.plural"));
  }
  nlohmann::json final_state = object;
  final_state["metadata"]["resourceVersion"] = FieldString(*removed, "metadata.resourceVersion");
  if (key == kClaimKey) SyncClaimQuotas(NamespaceOf(object));
  return std::make_shared<const nlohmann::json>(std::move(final_state));
}

void ApiServer::SyncClaimQuotas(const std::string& ns) {
  std::vector<ObjectPtr> quotas = store_.List(kQuotaKey, ns);
  if (quotas.empty()) return;
  std::map<std::string, int64_t> usage = ResourceClaimUsage(store_.List(kClaimKey, ns));
  for (const ObjectPtr& quota : quotas) {
    nlohmann::json copy = *quota;
    if (ApplyResourceClaimUsage(usage, copy)) store_.Update(kQuotaKey, std::move(copy));
  }
}

std::pair<ObjectPtr, bool> ApiServer::StartDelete(const std::string& key, const ObjectPtr& object,
                                                  const std::string& policy) {
  if (Deleting(*object)) return {object, false};
  nlohmann::json o = *object;
  std::vector<std::string> fin = Finalizers(o);
  auto add = [&](const char* f) {
    if (std::find(fin.begin(), fin.end(), f) == fin.end()) fin.push_back(f);
  };
  if (policy == "Foreground") add(kForeground);
  if (policy == "Orphan") add(kOrphan);
  bool is_ns = key == "namespaces";
  if (fin.empty() && !is_ns) return {Remove(key, o), true};
  o["metadata"]["deletionTimestamp"] = Timestamp();
  o["metadata"]["deletionGracePeriodSeconds"] = 0;
  SetFinalizers(o, fin);
  const ResourceType* type = TypeForStorageKey(key);
  if (type && type->tracks_generation) {
    int64_t gen = 0;
    if (const nlohmann::json* g = Lookup(o, "metadata.generation"); g && g->is_number()) {
      gen = g->get<int64_t>();
    }
    o["metadata"]["generation"] = gen + 1;
  }
  if (is_ns) o["status"]["phase"] = "Terminating";
  return {store_.Update(key, std::move(o)), false};
}

void ApiServer::OnCrdWritten(const nlohmann::json& crd) {
  if (!ValidateCrd(crd).empty()) return;
  registry_->PutCustom(CrdType(crd));
}

void ApiServer::Collect(const nlohmann::json* written) {
  // Fast path after a create or update while nothing is being deleted: the only possible work
  // is the written object itself having no live owner. (A full pass costs O(objects) per write,
  // which made every write slow in a cluster of 5,000 owned ResourceSlices.)
  if (written != nullptr && store_.deleting() == 0) {
    const nlohmann::json* refs = Lookup(*written, "metadata.ownerReferences");
    if (refs == nullptr || !refs->is_array() || refs->empty()) return;
    for (const auto& ref : *refs) {
      if (ref.is_object() && store_.HasUid(ref.value("uid", ""))) return;
    }
  }
  for (int round = 0; round < 1000; ++round) {
    // Nothing is being deleted and nothing has owners: nothing to collect (and no need for
    // the uid maps below, which cost O(objects) on every write).
    if (store_.gc_relevant() == 0) return;
    bool changed = false;
    std::vector<std::pair<std::string, ObjectPtr>> all = store_.All();
    std::map<std::string, std::pair<std::string, ObjectPtr>> by_uid;
    std::map<std::string, std::vector<std::pair<std::string, ObjectPtr>>> dependents;
    for (const auto& [key, o] : all) {
      by_uid[Uid(*o)] = {key, o};
      const nlohmann::json* refs = Lookup(*o, "metadata.ownerReferences");
      if (!refs || !refs->is_array()) continue;
      for (const auto& ref : *refs) {
        if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string()) {
          dependents[ref["uid"].get<std::string>()].push_back({key, o});
        }
      }
    }
    for (const auto& [key, o] : all) {
      // Objects may have changed earlier in this round; work on the current version.
      ObjectPtr cur = store_.Get(key, NamespaceOf(*o), NameOf(*o));
      if (!cur || cur != o) {
        changed = true;
        continue;
      }
      std::vector<std::string> fin = Finalizers(*cur);
      const std::string uid = Uid(*cur);
      if (!Deleting(*cur)) {
        const nlohmann::json* refs = Lookup(*cur, "metadata.ownerReferences");
        if (refs && refs->is_array() && !refs->empty()) {
          bool any_owner = false;
          for (const auto& ref : *refs) {
            if (ref.is_object() && by_uid.count(ref.value("uid", ""))) any_owner = true;
          }
          if (!any_owner) {
            StartDelete(key, cur, "Background");
            changed = true;
          }
        }
        continue;
      }
      auto has = [&](const std::string& f) {
        return std::find(fin.begin(), fin.end(), f) != fin.end();
      };
      if (has(kOrphan)) {
        for (const auto& [dkey, d] : dependents[uid]) {
          ObjectPtr dcur = store_.Get(dkey, NamespaceOf(*d), NameOf(*d));
          if (!dcur) continue;
          nlohmann::json copy = *dcur;
          nlohmann::json kept = nlohmann::json::array();
          for (const auto& ref : copy["metadata"]["ownerReferences"]) {
            if (ref.value("uid", "") != uid) kept.push_back(ref);
          }
          if (kept.empty()) {
            copy["metadata"].erase("ownerReferences");
          } else {
            copy["metadata"]["ownerReferences"] = kept;
          }
          store_.Update(dkey, std::move(copy));
        }
        fin.erase(std::remove(fin.begin(), fin.end(), kOrphan), fin.end());
        nlohmann::json copy = *cur;
        SetFinalizers(copy, fin);
        store_.Update(key, std::move(copy));
        changed = true;
        continue;
      }
      if (has(kForeground)) {
        bool blocking = false;
        for (const auto& [dkey, d] : dependents[uid]) {
          ObjectPtr dcur = store_.Get(dkey, NamespaceOf(*d), NameOf(*d));
          if (!dcur) continue;
          if (!Deleting(*dcur)) {
            StartDelete(dkey, dcur, "Foreground");
            changed = true;
          }
          for (const auto& ref : (*dcur)["metadata"]["ownerReferences"]) {
            if (ref.value("uid", "") == uid && ref.value("blockOwnerDeletion", false)) {
              blocking = true;
            }
          }
        }
        if (!blocking && !changed) {
          fin.erase(std::remove(fin.begin(), fin.end(), kForeground), fin.end());
          nlohmann::json copy = *cur;
          SetFinalizers(copy, fin);
          store_.Update(key, std::move(copy));
          changed = true;
        }
        continue;
      }
      if (key == "namespaces") {
        std::string ns = NameOf(*cur);
        bool contents = false;
        for (const auto& [okey, other] : all) {
          if (okey == "namespaces" || NamespaceOf(*other) != ns) continue;
          contents = true;
          ObjectPtr ocur = store_.Get(okey, ns, NameOf(*other));
          if (ocur && !Deleting(*ocur)) {
            StartDelete(okey, ocur, "Background");
            changed = true;
          }
        }
        const nlohmann::json* spec_fin = Lookup(*cur, "spec.finalizers");
        bool spec_pending = spec_fin && spec_fin->is_array() && !spec_fin->empty();
        if (!contents && spec_pending) {
          nlohmann::json copy = *cur;
          copy["spec"].erase("finalizers");
          store_.Update(key, std::move(copy));
          changed = true;
          continue;
        }
        if (!contents && !spec_pending && fin.empty()) {
          Remove(key, *cur);
          changed = true;
        }
        continue;
      }
      if (key == kCrdKey && has(kCrdFinalizer)) {
        std::string crs =
            FieldString(*cur, "spec.names.plural") + "." + FieldString(*cur, "spec.group");
        bool remaining = false;
        for (const ObjectPtr& cr : store_.List(crs, "")) {
          remaining = true;
          if (!Deleting(*cr)) {
            StartDelete(crs, cr, "Background");
            changed = true;
          }
        }
        if (!remaining) {
          fin.erase(std::remove(fin.begin(), fin.end(), kCrdFinalizer), fin.end());
          nlohmann::json copy = *cur;
          SetFinalizers(copy, fin);
          store_.Update(key, std::move(copy));
          changed = true;
        }
        continue;
      }
      if (fin.empty()) {
        Remove(key, *cur);
        changed = true;
      }
    }
    if (!changed) return;
  }
}

}  // namespace gpuprofile::e2e
