// File: e2e/emulator/list_schema.h
// How server-side apply sees the shape of an object: which objects are granular (merged key by
// key) or atomic, which lists are atomic, sets or maps (and their keys), and which object keys
// are declared fields rather than entries of a map. Built-in kinds get a small table of the lists
// and maps that matter to this project (metadata, Deployments, Pods, Services, PDBs, ConfigMaps,
// Namespaces, RBAC, DRA); CRDs get it from their structural schema (`x-kubernetes-list-type`,
// `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`). Anything not described is what
// structured-merge-diff assumes for a field without type information here: objects granular,
// lists atomic.
// Schemas are immutable once built and shared; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

enum class ListType { kAtomic, kSet, kMap };

struct TypeNode {
  // Object values.
  bool atomic_map = false;
  std::map<std::string, const TypeNode*> fields;  // declared fields
  // The type of keys that are not declared fields (additionalProperties, labels). Null: such
  // keys are treated as declared fields of the default type.
  const TypeNode* elements = nullptr;
  // List values.
  ListType list_type = ListType::kAtomic;
  std::vector<std::string> keys;  // kMap
  const TypeNode* items = nullptr;

  // The type of key `name` of an object; `*declared` false when it is a map entry.
  const TypeNode& Field(const std::string& name, bool* declared) const;
  const TypeNode& Item() const;
};

// The default type: objects granular with every key a declared field, lists atomic.
const TypeNode& DefaultType();

// Owns the nodes of one schema.
class ObjectSchema {
 public:
  const TypeNode& root() const { return *root_; }
  TypeNode* NewNode();
  void set_root(const TypeNode* root) { root_ = root; }

 private:
  std::vector<std::unique_ptr<TypeNode>> nodes_;
  const TypeNode* root_ = &DefaultType();
};

// The built-in table for a kind (group "" for core); kinds not in the table get metadata only.
std::shared_ptr<const ObjectSchema> BuiltinSchema(const std::string& group,
                                                  const std::string& kind);
// From a CRD version's openAPIV3Schema; metadata is ObjectMeta whatever the schema says.
// Cached by the schema's text (CRDs are few); thread-safe.
std::shared_ptr<const ObjectSchema> CustomResourceSchema(const nlohmann::json& open_api_v3);

}  // namespace gpuprofile::e2e
