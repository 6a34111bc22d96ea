// File: controller/meta/object_meta_codec.cc
#include "controller/meta/object_meta_codec.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "controller/core/names.h"
#include "controller/meta/json_object.h"

namespace gpuprofile::meta {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// Labels: keys are qualified names, values label values (ValidateLabels).
void ValidateLabels(const std::map<std::string, std::string>& labels, absl::string_view path,
                    FieldErrors* errors) {
  for (const auto& [key, value] : labels) {
    const std::string key_path = FieldKey(path, key);
    if (absl::Status s = IsQualifiedName(key); !s.ok()) {
      errors->AddInvalid(key_path, key, s.message());
    }
    if (absl::Status s = IsLabelValue(value); !s.ok()) {
      errors->AddInvalid(key_path, value, s.message());
    }
  }
}

// Annotations: keys are qualified names once lower-cased (ValidateAnnotations).
void ValidateAnnotationKeys(const std::map<std::string, std::string>& annotations,
                            absl::string_view path, FieldErrors* errors) {
  for (const auto& [key, value] : annotations) {
    if (absl::Status s = IsQualifiedName(absl::AsciiStrToLower(key)); !s.ok()) {
      errors->AddInvalid(FieldKey(path, key), key, s.message());
    }
  }
}

OwnerReference DecodeOwnerReference(const json& value, absl::string_view path,
                                    FieldErrors* errors) {
  OwnerReference ref;
  if (!CheckObject(value, path, errors)) return ref;
  ref.api_version = StringField(value, "apiVersion", path, true, errors).value_or("");
  ref.kind = StringField(value, "kind", path, true, errors).value_or("");
  ref.name = StringField(value, "name", path, true, errors).value_or("");
  ref.uid = StringField(value, "uid", path, true, errors).value_or("");
  ref.controller = BoolField(value, "controller", path, errors).value_or(false);
  ref.block_owner_deletion = BoolField(value, "blockOwnerDeletion", path, errors).value_or(false);
  return ref;
}

bool Subset(const std::map<std::string, std::string>& want,
            const std::map<std::string, std::string>& have) {
  for (const auto& [key, value] : want) {
    auto it = have.find(key);
    if (it == have.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace

ObjectMeta DecodeObjectMeta(const json& metadata, absl::string_view path, FieldErrors* errors) {
  ObjectMeta meta;
  if (!CheckObject(metadata, path, errors)) return meta;
  meta.name = StringField(metadata, "name", path, false, errors).value_or("");
  meta.namespace_name = StringField(metadata, "namespace", path, false, errors).value_or("");
  meta.uid = StringField(metadata, "uid", path, false, errors).value_or("");
  meta.resource_version =
      StringField(metadata, "resourceVersion", path, false, errors).value_or("");
  meta.generation = IntField(metadata, "generation", path, false, errors).value_or(0);
  meta.creation_timestamp =
      StringField(metadata, "creationTimestamp", path, false, errors).value_or("");
  meta.deletion_timestamp = StringField(metadata, "deletionTimestamp", path, false, errors);
  if (const json* labels = JsonMember(metadata, "labels")) {
    const std::string labels_path = FieldChild(path, "labels");
    meta.labels = ReadStringMap(*labels, labels_path, errors);
    ValidateLabels(meta.labels, labels_path, errors);
  }
  if (const json* annotations = JsonMember(metadata, "annotations")) {
    const std::string annotations_path = FieldChild(path, "annotations");
    meta.annotations = ReadStringMap(*annotations, annotations_path, errors);
    ValidateAnnotationKeys(meta.annotations, annotations_path, errors);
  }
  if (const json* finalizers = JsonMember(metadata, "finalizers")) {
    meta.finalizers = ReadStringList(*finalizers, FieldChild(path, "finalizers"), errors);
  }
  const std::string refs_path = FieldChild(path, "ownerReferences");
  if (const json* refs = ArrayField(metadata, "ownerReferences", path, false, errors)) {
    for (size_t i = 0; i < refs->size(); ++i) {
      meta.owner_references.push_back(
          DecodeOwnerReference((*refs)[i], FieldIndex(refs_path, i), errors));
    }
  }
  return meta;
}

absl::StatusOr<ObjectMeta> DecodeObjectMeta(const json& metadata, absl::string_view path) {
  FieldErrors errors;
  ObjectMeta meta = DecodeObjectMeta(metadata, path, &errors);
  if (!errors.empty()) return errors.ToStatus();
  return meta;
}

ordered_json EncodeOwnerReference(const OwnerReference& ref) {
  ordered_json out = ordered_json::object();
  out["apiVersion"] = ref.api_version;
  out["kind"] = ref.kind;
  out["name"] = ref.name;
  out["uid"] = ref.uid;
  if (ref.controller) out["controller"] = true;
  if (ref.block_owner_deletion) out["blockOwnerDeletion"] = true;
  return out;
}

ordered_json EncodeObjectMeta(const ObjectMeta& meta, bool include_server_fields) {
  ordered_json out = ObjectWithRoom(include_server_fields ? 11 : 5);
  if (!meta.name.empty()) out["name"] = meta.name;
  if (!meta.namespace_name.empty()) out["namespace"] = meta.namespace_name;
  if (!meta.labels.empty()) out["labels"] = meta.labels;
  if (!meta.annotations.empty()) out["annotations"] = meta.annotations;
  if (!meta.finalizers.empty()) out["finalizers"] = meta.finalizers;
  if (!include_server_fields) return out;
  if (!meta.owner_references.empty()) {
    ordered_json refs = ordered_json::array();
    for (const OwnerReference& ref : meta.owner_references)
      refs.push_back(EncodeOwnerReference(ref));
    out["ownerReferences"] = std::move(refs);
  }
  if (!meta.uid.empty()) out["uid"] = meta.uid;
  if (!meta.resource_version.empty()) out["resourceVersion"] = meta.resource_version;
  if (meta.generation != 0) out["generation"] = meta.generation;
  if (!meta.creation_timestamp.empty()) out["creationTimestamp"] = meta.creation_timestamp;
  if (meta.deletion_timestamp.has_value()) out["deletionTimestamp"] = *meta.deletion_timestamp;
  return out;
}

bool SameDesiredMetadata(const ObjectMeta& desired, const ObjectMeta& actual) {
  if (desired.name != actual.name || desired.namespace_name != actual.namespace_name) return false;
  if (!Subset(desired.labels, actual.labels) || !Subset(desired.annotations, actual.annotations)) {
    return false;
  }
  for (const OwnerReference& ref : desired.owner_references) {
    if (std::find(actual.owner_references.begin(), actual.owner_references.end(), ref) ==
        actual.owner_references.end()) {
      return false;
    }
  }
  return true;
}

}  // namespace gpuprofile::meta
