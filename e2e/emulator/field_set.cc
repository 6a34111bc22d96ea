// File: e2e/emulator/field_set.cc
#include "e2e/emulator/field_set.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::e2e {

std::string FieldElement(const std::string& name) { return "f:" + name; }
std::string KeyElement(const nlohmann::json& keys) { return "k:" + keys.dump(); }
std::string ValueElement(const nlohmann::json& value) { return "v:" + value.dump(); }
std::string IndexElement(size_t index) { return absl::StrCat("i:", index); }

std::string PathString(const FieldPath& path) {
  std::string out;
  for (const std::string& e : path) {
    if (absl::StartsWith(e, "f:")) {
      absl::StrAppend(&out, ".", e.substr(2));
    } else if (absl::StartsWith(e, "k:")) {
      nlohmann::json keys = nlohmann::json::parse(e.substr(2), nullptr, false);
      std::vector<std::string> parts;
      if (keys.is_object()) {
        for (auto& [k, v] : keys.items()) parts.push_back(absl::StrCat(k, "=", v.dump()));
      }
      std::sort(parts.begin(), parts.end());
      absl::StrAppend(&out, "[", absl::StrJoin(parts, ","), "]");
    } else if (absl::StartsWith(e, "v:")) {
      absl::StrAppend(&out, "[=", e.substr(2), "]");
    } else if (absl::StartsWith(e, "i:")) {
      absl::StrAppend(&out, "[", e.substr(2), "]");
    } else {
      absl::StrAppend(&out, e);
    }
  }
  return out;
}

void FieldSet::Insert(const FieldPath& path) {
  FieldSet* node = this;
  for (const std::string& e : path) node = &node->children_[e];
  node->member_ = true;
}

const FieldSet* FieldSet::Child(const std::string& element) const {
  auto it = children_.find(element);
  return it == children_.end() ? nullptr : &it->second;
}

bool FieldSet::Has(const FieldPath& path) const {
  const FieldSet* node = this;
  for (const std::string& e : path) {
    node = node->Child(e);
    if (!node) return false;
  }
  return node->member_;
}

bool FieldSet::HasUnder(const FieldPath& path) const {
  const FieldSet* node = this;
  for (const std::string& e : path) {
    node = node->Child(e);
    if (!node) return false;
  }
  return !node->Empty();
}

void FieldSet::UnionWith(const FieldSet& other) {
  member_ = member_ || other.member_;
  for (const auto& [k, child] : other.children_) children_[k].UnionWith(child);
}

void FieldSet::Prune() {
  for (auto it = children_.begin(); it != children_.end();) {
    if (it->second.Empty()) {
      it = children_.erase(it);
    } else {
      ++it;
    }
  }
}

FieldSet FieldSet::Difference(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && !other.member_;
  for (const auto& [k, child] : children_) {
    const FieldSet* o = other.Child(k);
    FieldSet d = o ? child.Difference(*o) : child;
    if (!d.Empty()) out.children_.emplace(k, std::move(d));
  }
  return out;
}

FieldSet FieldSet::RecursiveDifference(const FieldSet& other) const {
  if (other.member_) return FieldSet();
  FieldSet out;
  out.member_ = member_;
  for (const auto& [k, child] : children_) {
    const FieldSet* o = other.Child(k);
    FieldSet d = o ? child.RecursiveDifference(*o) : child;
    if (!d.Empty()) out.children_.emplace(k, std::move(d));
  }
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && other.member_;
  for (const auto& [k, child] : children_) {
    const FieldSet* o = other.Child(k);
    if (!o) continue;
    FieldSet i = child.Intersection(*o);
    if (!i.Empty()) out.children_.emplace(k, std::move(i));
  }
  return out;
}

void FieldSet::ForEachMemberFrom(FieldPath& prefix,
                                 const std::function<void(const FieldPath&)>& fn) const {
  if (member_) fn(prefix);
  for (const auto& [k, child] : children_) {
    prefix.push_back(k);
    child.ForEachMemberFrom(prefix, fn);
    prefix.pop_back();
  }
}

void FieldSet::ForEachMember(const std::function<void(const FieldPath&)>& fn) const {
  FieldPath prefix;
  ForEachMemberFrom(prefix, fn);
}

size_t FieldSet::MemberCount() const {
  size_t n = member_ ? 1 : 0;
  for (const auto& [k, child] : children_) n += child.MemberCount();
  return n;
}

nlohmann::json FieldSet::ToFieldsV1() const {
  nlohmann::json out = nlohmann::json::object();
  if (member_ && !children_.empty()) out["."] = nlohmann::json::object();
  for (const auto& [k, child] : children_) out[k] = child.ToFieldsV1();
  return out;
}

absl::StatusOr<FieldSet> FieldSet::FromFieldsV1(const nlohmann::json& fields) {
  if (!fields.is_object()) return absl::InvalidArgumentError("fieldsV1 must be an object");
  FieldSet out;
  if (fields.empty()) {
    out.member_ = true;
    return out;
  }
  for (auto& [k, v] : fields.items()) {
    if (k == ".") {
      if (!v.is_object() || !v.empty()) {
        return absl::InvalidArgumentError("fieldsV1 \".\" must be an empty object");
      }
      out.member_ = true;
      continue;
    }
    if (k.size() < 2 || k[1] != ':' || (k[0] != 'f' && k[0] != 'k' && k[0] != 'v' && k[0] != 'i')) {
      return absl::InvalidArgumentError(absl::StrCat("unknown fieldsV1 path element ", k));
    }
    absl::StatusOr<FieldSet> child = FromFieldsV1(v);
    if (!child.ok()) return child.status();
    out.children_.emplace(k, *std::move(child));
  }
  return out;
}

}  // namespace gpuprofile::e2e
