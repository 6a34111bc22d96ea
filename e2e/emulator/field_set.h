// File: e2e/emulator/field_set.h
// Sets of field paths as structured-merge-diff keeps them for managedFields, and their
// `FieldsV1` encoding. A path is a sequence of encoded path elements, exactly as fieldsV1 spells
// them: `f:<field>`, `k:{"name":"c"}` (a map-list item by its keys, keys sorted, compact JSON),
// `v:<json>` (a set item by its value) and `i:<n>` (a list item by index). A node that is itself
// in the set (not only some of its children) is a member: fieldsV1 writes it as `".": {}` when it
// also has children, and as `{}` when it has none.
// Pure value type; thread-compatible.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

using FieldPath = std::vector<std::string>;

// Encoded path elements.
std::string FieldElement(const std::string& name);
std::string KeyElement(const nlohmann::json& keys);  // an object of key field -> value
std::string ValueElement(const nlohmann::json& value);
std::string IndexElement(size_t index);

// The path as structured-merge-diff prints it in messages: `.spec.containers[name="c"].image`,
// `.metadata.finalizers[="x"]`, `.spec.list[0]`.
std::string PathString(const FieldPath& path);

class FieldSet {
 public:
  bool Empty() const { return !member_ && children_.empty(); }
  void Insert(const FieldPath& path);
  bool Has(const FieldPath& path) const;
  // True when the path or anything under it is in the set.
  bool HasUnder(const FieldPath& path) const;

  void UnionWith(const FieldSet& other);
  // Members of this set that are not members of `other` (children of a member of `other` stay).
  FieldSet Difference(const FieldSet& other) const;
  // Members of this set that are neither members of `other` nor under one of them.
  FieldSet RecursiveDifference(const FieldSet& other) const;
  FieldSet Intersection(const FieldSet& other) const;

  // Every member path, children in encoded order.
  void ForEachMember(const std::function<void(const FieldPath&)>& fn) const;
  size_t MemberCount() const;

  bool member() const { return member_; }
  const std::map<std::string, FieldSet>& children() const { return children_; }
  const FieldSet* Child(const std::string& element) const;

  nlohmann::json ToFieldsV1() const;
  // InvalidArgument when `fields` is not a fieldsV1 object.
  static absl::StatusOr<FieldSet> FromFieldsV1(const nlohmann::json& fields);

  bool operator==(const FieldSet& other) const {
    return member_ == other.member_ && children_ == other.children_;
  }
  bool operator!=(const FieldSet& other) const { return !(*this == other); }

 private:
  void Prune();  // drops empty children
  void ForEachMemberFrom(FieldPath& prefix, const std::function<void(const FieldPath&)>& fn) const;

  bool member_ = false;
  std::map<std::string, FieldSet> children_;
};

}  // namespace gpuprofile::e2e
