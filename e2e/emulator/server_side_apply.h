// File: e2e/emulator/server_side_apply.h
// The field manager of kube-apiserver (k8s.io/apimachinery managedfields over
// structured-merge-diff), as the emulator needs it: managedFields entries, the field set of an
// object, the comparison behind Update operations (create, PUT, merge/strategic/JSON patches),
// and server-side apply (merge per schema, conflicts, force, removal of fields the applier no
// longer applies). Objects are in the request's version (wire form); the schema says which
// lists and maps are atomic, sets or maps (list_schema.h).
// Pure functions over values; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "e2e/emulator/field_set.h"
#include "e2e/emulator/list_schema.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string time;  // RFC 3339, seconds
  std::string subresource;
  FieldSet fields;

  // kube-apiserver's manager identity: manager, operation and subresource, and for Update also
  // the apiVersion (an applier keeps one entry whatever version it applies in).
  bool SameManager(const ManagedFieldsEntry& other) const;
  // How conflict messages name the manager: `"m"`, `"m" with subresource "status"`, and for
  // Update `... using apps/v1`.
  std::string Describe() const;
};
using ManagedFields = std::vector<ManagedFieldsEntry>;

// metadata.managedFields → entries. InvalidArgument when an entry has no FieldsV1 fieldsType,
// an unknown operation or a malformed fieldsV1.
absl::StatusOr<ManagedFields> DecodeManagedFields(const nlohmann::json& list);
// Entries sorted as kube-apiserver sorts them (operation, time, manager, apiVersion,
// subresource); an empty list is null (no managedFields at all).
nlohmann::json EncodeManagedFields(ManagedFields managers);
// A request's managedFields that mean "clear them": `[]` or `[{}]`.
bool IsResetManagedFields(const nlohmann::json& list);

// The fields a configuration sets (structured-merge-diff's ToFieldSet): leaves, atomic values,
// list items of sets and map lists, map entries that are not declared fields, and null or empty
// objects.
FieldSet ToFieldSet(const nlohmann::json& object, const TypeNode& type);

struct Comparison {
  FieldSet added;     // present only in the new object (every node of an added subtree)
  FieldSet modified;  // leaves and atomic values that differ
  FieldSet removed;   // present only in the old object
};
Comparison Compare(const nlohmann::json& old_object, const nlohmann::json& new_object,
                   const TypeNode& type);

// `config` merged into `live`: granular objects key by key, sets and map lists item by item,
// atomic values replaced. A null in `config` removes the field.
nlohmann::json Merge(const nlohmann::json& live, const nlohmann::json& config,
                     const TypeNode& type);

// What one write is: who writes, in which version, to which subresource, when.
struct FieldManagerOperation {
  std::string manager;
  std::string api_version;
  std::string subresource;  // "" or "status"
  std::string time;
  // Fields the strategy resets: `status` on the main resource of a kind with a status
  // subresource, `spec` on /status. Never recorded, never applied.
  FieldSet reset;
};

// The fields no manager ever owns: apiVersion, kind, metadata itself and its name, namespace,
// uid, resourceVersion, generation, creationTimestamp, selfLink, clusterName, managedFields.
const FieldSet& StrippedFields();

// An Update (create, PUT, patch): the writer gains what it added or changed, which other
// managers lose (updates always force); removed fields leave every set; empty entries go.
ManagedFields TrackUpdate(ManagedFields managers, const nlohmann::json& old_object,
                          const nlohmann::json& new_object, const TypeNode& type,
                          const FieldManagerOperation& op);

struct ApplyConflict {
  std::string manager;  // ManagedFieldsEntry::Describe()
  FieldPath path;
};
struct ApplyOutcome {
  nlohmann::json object;   // live with the configuration merged in (on conflicts: unset)
  ManagedFields managers;  // the new managedFields
  std::vector<ApplyConflict> conflicts;
};
// Server-side apply of `config` to `live` (an empty object when creating). Without `force`,
// fields another manager owns with a different value are conflicts and nothing is applied; with
// it, they are taken. Fields the applier applied last time and no longer applies are removed
// when nobody else owns them, and only disowned when someone does.
ApplyOutcome Apply(const nlohmann::json& live, const nlohmann::json& config, ManagedFields managers,
                   const TypeNode& type, const FieldManagerOperation& op, bool force);

// "Apply failed with 1 conflict: conflict with \"m\" using v1: .spec.x" and the
// multi-conflict form, as kube-apiserver words them.
std::string ConflictMessage(const std::vector<ApplyConflict>& conflicts);

// The manager of an Update without fieldManager: the User-Agent up to the first '/',
// non-printable characters dropped, at most 128 bytes.
std::string ManagerFromUserAgent(const std::string& user_agent);

}  // namespace gpuprofile::e2e
