// File: e2e/emulator/server_side_apply.cc
#include "e2e/emulator/server_side_apply.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::e2e {
namespace {

// The path element of list item `i` of a non-atomic list.
std::string ItemElement(const TypeNode& list, const nlohmann::json& item, size_t i) {
  if (list.list_type == ListType::kSet) return ValueElement(item);
  if (list.list_type == ListType::kMap && item.is_object()) {
    nlohmann::json keys = nlohmann::json::object();
    for (const std::string& k : list.keys) {
      if (auto it = item.find(k); it != item.end()) keys[k] = *it;
    }
    if (!keys.empty()) return KeyElement(keys);
  }
  return IndexElement(i);
}

bool Granular(const nlohmann::json& v, const TypeNode& t) {
  return (v.is_object() && !t.atomic_map) || (v.is_array() && t.list_type != ListType::kAtomic);
}

void ToSet(const nlohmann::json& v, const TypeNode& t, FieldPath& path, FieldSet& out) {
  if (v.is_object() && !t.atomic_map) {
    for (auto& [k, child] : v.items()) {
      bool declared = true;
      const TypeNode& ct = t.Field(k, &declared);
      path.push_back(FieldElement(k));
      ToSet(child, ct, path, out);
      if (child.is_null() || (child.is_object() && child.empty()) || !declared) out.Insert(path);
      path.pop_back();
    }
    return;
  }
  if (v.is_array() && t.list_type != ListType::kAtomic) {
    for (size_t i = 0; i < v.size(); ++i) {
      path.push_back(ItemElement(t, v[i], i));
      ToSet(v[i], t.Item(), path, out);
      out.Insert(path);
      path.pop_back();
    }
    return;
  }
  if (!path.empty()) out.Insert(path);
}

// Every node of a subtree (an added or removed value).
void InsertAll(const nlohmann::json& v, const TypeNode& t, FieldPath& path, FieldSet& out) {
  if (!path.empty()) out.Insert(path);
  if (v.is_object() && !t.atomic_map) {
    for (auto& [k, child] : v.items()) {
      bool declared = true;
      path.push_back(FieldElement(k));
      InsertAll(child, t.Field(k, &declared), path, out);
      path.pop_back();
    }
  } else if (v.is_array() && t.list_type != ListType::kAtomic) {
    for (size_t i = 0; i < v.size(); ++i) {
      path.push_back(ItemElement(t, v[i], i));
      InsertAll(v[i], t.Item(), path, out);
      path.pop_back();
    }
  }
}

void CompareAt(const nlohmann::json& l, const nlohmann::json& r, const TypeNode& t, FieldPath& path,
               Comparison& c) {
  if (l.is_object() && r.is_object() && !t.atomic_map) {
    for (auto& [k, lv] : l.items()) {
      bool declared = true;
      const TypeNode& ct = t.Field(k, &declared);
      path.push_back(FieldElement(k));
      if (auto it = r.find(k); it != r.end()) {
        CompareAt(lv, *it, ct, path, c);
      } else {
        InsertAll(lv, ct, path, c.removed);
      }
      path.pop_back();
    }
    for (auto& [k, rv] : r.items()) {
      if (l.contains(k)) continue;
      bool declared = true;
      path.push_back(FieldElement(k));
      InsertAll(rv, t.Field(k, &declared), path, c.added);
      path.pop_back();
    }
    return;
  }
  if (l.is_array() && r.is_array() && t.list_type != ListType::kAtomic) {
    std::map<std::string, const nlohmann::json*> left;
    for (size_t i = 0; i < l.size(); ++i) left.emplace(ItemElement(t, l[i], i), &l[i]);
    std::map<std::string, bool> seen;
    for (size_t i = 0; i < r.size(); ++i) {
      std::string e = ItemElement(t, r[i], i);
      path.push_back(e);
      if (auto it = left.find(e); it != left.end()) {
        CompareAt(*it->second, r[i], t.Item(), path, c);
        seen[e] = true;
      } else {
        InsertAll(r[i], t.Item(), path, c.added);
      }
      path.pop_back();
    }
    for (const auto& [e, item] : left) {
      if (seen.count(e)) continue;
      path.push_back(e);
      InsertAll(*item, t.Item(), path, c.removed);
      path.pop_back();
    }
    return;
  }
  if (l != r && !path.empty()) {
    c.modified.Insert(path);
    // A value that changed shape (a scalar became an object) also adds its new children.
    if (Granular(r, t) && !Granular(l, t)) {
      FieldSet sub;
      InsertAll(r, t, path, sub);
      c.added.UnionWith(sub.Difference(c.modified));
    }
  }
}

nlohmann::json WithoutNulls(const nlohmann::json& v) {
  if (v.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, child] : v.items()) {
      if (!child.is_null()) out[k] = WithoutNulls(child);
    }
    return out;
  }
  if (v.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& child : v) out.push_back(WithoutNulls(child));
    return out;
  }
  return v;
}

// Removes from `v` the members of `remove` that nobody in `owned` still owns (at or under them);
// a member with owned descendants stays and is pruned below.
void RemoveUnowned(nlohmann::json& v, const TypeNode& t, const FieldSet& remove,
                   const FieldSet* owned) {
  if (v.is_object() && !t.atomic_map) {
    for (const auto& [e, rc] : remove.children()) {
      if (e.rfind("f:", 0) != 0) continue;
      std::string name = e.substr(2);
      auto it = v.find(name);
      if (it == v.end()) continue;
      const FieldSet* oc = owned ? owned->Child(e) : nullptr;
      if (rc.member() && (!oc || oc->Empty())) {
        v.erase(it);
      } else {
        bool declared = true;
        RemoveUnowned(*it, t.Field(name, &declared), rc, oc);
      }
    }
    return;
  }
  if (v.is_array() && t.list_type != ListType::kAtomic) {
    std::vector<size_t> drop;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string e = ItemElement(t, v[i], i);
      const FieldSet* rc = remove.Child(e);
      if (!rc) continue;
      const FieldSet* oc = owned ? owned->Child(e) : nullptr;
      if (rc->member() && (!oc || oc->Empty())) {
        drop.push_back(i);
      } else {
        RemoveUnowned(v[i], t.Item(), *rc, oc);
      }
    }
    for (auto it = drop.rbegin(); it != drop.rend(); ++it) v.erase(*it);
  }
}

// Removes the reset subtrees (members of `reset`) from a configuration.
void RemoveReset(nlohmann::json& v, const FieldSet& reset) {
  if (!v.is_object()) return;
  for (const auto& [e, rc] : reset.children()) {
    if (e.rfind("f:", 0) != 0) continue;
    auto it = v.find(e.substr(2));
    if (it == v.end()) continue;
    if (rc.member()) {
      v.erase(it);
    } else {
      RemoveReset(*it, rc);
    }
  }
}

FieldSet Strip(const FieldSet& set, const FieldManagerOperation& op) {
  return set.Difference(StrippedFields()).RecursiveDifference(op.reset);
}

void DropEmpty(ManagedFields& managers) {
  managers.erase(std::remove_if(managers.begin(), managers.end(),
                                [](const ManagedFieldsEntry& e) { return e.fields.Empty(); }),
                 managers.end());
}

}  // namespace

bool ManagedFieldsEntry::SameManager(const ManagedFieldsEntry& other) const {
  if (manager != other.manager || operation != other.operation ||
      subresource != other.subresource) {
    return false;
  }
  return operation == "Apply" || api_version == other.api_version;
}

std::string ManagedFieldsEntry::Describe() const {
  std::string out = absl::StrCat("\"", manager, "\"");
  if (!subresource.empty()) absl::StrAppend(&out, " with subresource \"", subresource, "\"");
  if (operation == "Update") absl::StrAppend(&out, " using ", api_version);
  return out;
}

absl::StatusOr<ManagedFields> DecodeManagedFields(const nlohmann::json& list) {
  ManagedFields out;
  if (list.is_null()) return out;
  if (!list.is_array()) return absl::InvalidArgumentError("managedFields must be a list");
  for (const auto& e : list) {
    if (!e.is_object()) return absl::InvalidArgumentError("managedFields entry must be an object");
    ManagedFieldsEntry entry;
    entry.manager = e.value("manager", "");
    entry.operation = e.value("operation", "");
    entry.api_version = e.value("apiVersion", "");
    entry.time = e.value("time", "");
    entry.subresource = e.value("subresource", "");
    if (e.value("fieldsType", "") != "FieldsV1") {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid fieldsType \"", e.value("fieldsType", ""), "\""));
    }
    if (entry.operation != "Apply" && entry.operation != "Update") {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid operation \"", entry.operation, "\""));
    }
    auto fields = e.find("fieldsV1");
    if (fields != e.end()) {
      absl::StatusOr<FieldSet> set = FieldSet::FromFieldsV1(*fields);
      if (!set.ok()) return set.status();
      entry.fields = *std::move(set);
    }
    bool duplicate = false;
    for (ManagedFieldsEntry& existing : out) {
      if (existing.SameManager(entry)) {
        existing.fields.UnionWith(entry.fields);
        duplicate = true;
      }
    }
    if (!duplicate) out.push_back(std::move(entry));
  }
  return out;
}

nlohmann::json EncodeManagedFields(ManagedFields managers) {
  DropEmpty(managers);
  if (managers.empty()) return nullptr;
  std::sort(managers.begin(), managers.end(),
            [](const ManagedFieldsEntry& p, const ManagedFieldsEntry& q) {
              return std::tie(p.operation, p.time, p.manager, p.api_version, p.subresource) <
                     std::tie(q.operation, q.time, q.manager, q.api_version, q.subresource);
            });
  nlohmann::json out = nlohmann::json::array();
  for (const ManagedFieldsEntry& m : managers) {
    nlohmann::json e = {{"manager", m.manager},        {"operation", m.operation},
                        {"apiVersion", m.api_version}, {"time", m.time},
                        {"fieldsType", "FieldsV1"},    {"fieldsV1", m.fields.ToFieldsV1()}};
    if (!m.subresource.empty()) e["subresource"] = m.subresource;
    out.push_back(std::move(e));
  }
  return out;
}

bool IsResetManagedFields(const nlohmann::json& list) {
  if (!list.is_array()) return false;
  if (list.empty()) return true;
  return list.size() == 1 && list[0].is_object() && list[0].empty();
}

FieldSet ToFieldSet(const nlohmann::json& object, const TypeNode& type) {
  FieldSet out;
  FieldPath path;
  ToSet(object, type, path, out);
  return out;
}

Comparison Compare(const nlohmann::json& old_object, const nlohmann::json& new_object,
                   const TypeNode& type) {
  Comparison c;
  FieldPath path;
  CompareAt(old_object, new_object, type, path, c);
  return c;
}

nlohmann::json Merge(const nlohmann::json& live, const nlohmann::json& config,
                     const TypeNode& type) {
  if (live.is_object() && config.is_object() && !type.atomic_map) {
    nlohmann::json out = live;
    for (auto& [k, rv] : config.items()) {
      if (rv.is_null()) {
        out.erase(k);
        continue;
      }
      bool declared = true;
      const TypeNode& ct = type.Field(k, &declared);
      auto it = out.find(k);
      if (it == out.end()) {
        out[k] = WithoutNulls(rv);
      } else {
        *it = Merge(*it, rv, ct);
      }
    }
    return out;
  }
  if (live.is_array() && config.is_array() && type.list_type != ListType::kAtomic) {
    nlohmann::json out = live;
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < out.size(); ++i) index.emplace(ItemElement(type, out[i], i), i);
    for (size_t i = 0; i < config.size(); ++i) {
      std::string e = ItemElement(type, config[i], i);
      if (auto it = index.find(e); it != index.end()) {
        out[it->second] = Merge(out[it->second], config[i], type.Item());
      } else {
        index.emplace(e, out.size());
        out.push_back(WithoutNulls(config[i]));
      }
    }
    return out;
  }
  return WithoutNulls(config);
}

const FieldSet& StrippedFields() {
  static const FieldSet* const kStripped = [] {
    auto* s = new FieldSet();
    s->Insert({"f:apiVersion"});
    s->Insert({"f:kind"});
    s->Insert({"f:metadata"});
    for (const char* f : {"name", "namespace", "creationTimestamp", "selfLink", "uid",
                          "clusterName", "generation", "managedFields", "resourceVersion"}) {
      s->Insert({"f:metadata", FieldElement(f)});
    }
    return s;
  }();
  return *kStripped;
}

ManagedFields TrackUpdate(ManagedFields managers, const nlohmann::json& old_object,
                          const nlohmann::json& new_object, const TypeNode& type,
                          const FieldManagerOperation& op) {
  Comparison c = Compare(old_object, new_object, type);
  FieldSet changed = c.modified;
  changed.UnionWith(c.added);
  changed = changed.RecursiveDifference(op.reset);
  ManagedFieldsEntry me;
  me.manager = op.manager;
  me.operation = "Update";
  me.api_version = op.api_version;
  me.subresource = op.subresource;
  bool found = false;
  for (ManagedFieldsEntry& m : managers) {
    if (m.SameManager(me)) {
      found = true;
      FieldSet mine = m.fields.Difference(c.removed);
      mine.UnionWith(changed);
      mine = Strip(mine, op);
      m.fields = std::move(mine);
      m.time = op.time;
      continue;
    }
    FieldSet next = m.fields.Difference(c.removed).Difference(changed);
    if (next != m.fields) {
      m.fields = std::move(next);
      m.time = op.time;
    }
  }
  if (!found) {
    me.fields = Strip(changed, op);
    me.time = op.time;
    managers.push_back(std::move(me));
  }
  DropEmpty(managers);
  return managers;
}

ApplyOutcome Apply(const nlohmann::json& live, const nlohmann::json& config, ManagedFields managers,
                   const TypeNode& type, const FieldManagerOperation& op, bool force) {
  ApplyOutcome out;
  nlohmann::json applied = config;
  RemoveReset(applied, op.reset);
  nlohmann::json merged = Merge(live, applied, type);
  FieldSet config_set = Strip(ToFieldSet(applied, type), op);

  ManagedFieldsEntry me;
  me.manager = op.manager;
  me.operation = "Apply";
  me.api_version = op.api_version;
  me.subresource = op.subresource;
  FieldSet last;
  size_t mine = managers.size();
  for (size_t i = 0; i < managers.size(); ++i) {
    if (managers[i].SameManager(me)) {
      mine = i;
      last = managers[i].fields;
    }
  }
  if (mine == managers.size()) managers.push_back(me);
  managers[mine].fields = config_set;
  managers[mine].api_version = op.api_version;

  // Fields applied last time and not now: removed unless someone (the applier included) still
  // owns them or something under them.
  if (!last.Empty()) {
    FieldSet owned;
    for (const ManagedFieldsEntry& m : managers) owned.UnionWith(m.fields);
    RemoveUnowned(merged, type, last.Difference(owned), &owned);
  }

  Comparison c = Compare(live, merged, type);
  FieldSet changed = c.modified;
  changed.UnionWith(c.added);
  changed = changed.RecursiveDifference(op.reset);
  for (size_t i = 0; i < managers.size(); ++i) {
    if (i == mine) continue;
    FieldSet conflict = managers[i].fields.Intersection(changed);
    if (conflict.Empty()) continue;
    if (!force) {
      conflict.ForEachMember([&](const FieldPath& p) {
        out.conflicts.push_back({managers[i].Describe(), p});
      });
    } else {
      managers[i].fields = managers[i].fields.Difference(conflict);
      managers[i].time = op.time;
    }
  }
  if (!out.conflicts.empty()) {
    std::stable_sort(
        out.conflicts.begin(), out.conflicts.end(),
        [](const ApplyConflict& a, const ApplyConflict& b) { return a.manager < b.manager; });
    return out;
  }
  for (size_t i = 0; i < managers.size(); ++i) {
    if (i == mine) continue;
    FieldSet next = managers[i].fields.Difference(c.removed);
    if (next != managers[i].fields) {
      managers[i].fields = std::move(next);
      managers[i].time = op.time;
    }
  }
  managers[mine].time = op.time;
  DropEmpty(managers);
  out.object = std::move(merged);
  out.managers = std::move(managers);
  return out;
}

std::string ConflictMessage(const std::vector<ApplyConflict>& conflicts) {
  if (conflicts.size() == 1) {
    return absl::StrCat("Apply failed with 1 conflict: conflict with ", conflicts[0].manager, ": ",
                        PathString(conflicts[0].path));
  }
  std::vector<std::string> lines;
  std::string current;
  for (const ApplyConflict& c : conflicts) {
    if (c.manager != current || lines.empty()) {
      current = c.manager;
      lines.push_back(absl::StrCat("conflicts with ", c.manager, ":"));
    }
    lines.push_back(absl::StrCat("- ", PathString(c.path)));
  }
  return absl::StrCat("Apply failed with ", conflicts.size(),
                      " conflicts: ", absl::StrJoin(lines, "\n"));
}

std::string ManagerFromUserAgent(const std::string& user_agent) {
  std::string prefix = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (char ch : prefix) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) continue;  // Go's unicode.IsPrint, for the ASCII range
    if (out.size() + 1 > 128) break;
    out.push_back(ch);
  }
  return out;
}

}  // namespace gpuprofile::e2e
