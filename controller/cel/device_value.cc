// File: controller/cel/device_value.cc
#include "controller/cel/device_value.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include <cstring>
#include "absl/strings/str_cat.h"
#include "controller/cel/library_values.h"

namespace gpuprofile::cel {
namespace {

// A map with string keys, as device fields and attribute domains are. These maps are small
// (3 fields, a few domains, at most 32 attributes per device), so a flat vector scanned by key
// length first beats hashing: one contiguous block per map and no hash to compute.
class StringMap final : public MapValue {
 public:
  // Keys must be unique; the builder guarantees it (a later duplicate is ignored).
  void Put(std::string key, Value value) {
    if (FindEntry(key) != nullptr) return;
    entries_.emplace_back(std::move(key), std::move(value));
  }
  size_t size() const override { return entries_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    const Value* v = FindEntry(key);
    if (v == nullptr) return std::nullopt;
    return *v;
  }
  std::vector<Value> Keys() const override {
    std::vector<Value> out;
    out.reserve(entries_.size());
    for (const auto& [k, v] : entries_) out.push_back(Value::String(k));
    return out;
  }

 private:
  const Value* FindEntry(absl::string_view key) const {
    for (const auto& [k, v] : entries_) {
      if (k.size() == key.size() && std::memcmp(k.data(), key.data(), key.size()) == 0) {
        return &v;
      }
    }
    return nullptr;
  }

  // In the builder's (sorted) order; inline for the small field and domain maps.
  absl::InlinedVector<std::pair<std::string, Value>, 4> entries_;
};

// device.attributes / device.capacity: domain -> map. Absent domains read as an empty map but
// are not members.
class DomainMap final : public MapValue {
 public:
  void Put(std::string domain, Value map) { domains_.Put(std::move(domain), std::move(map)); }
  size_t size() const override { return domains_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    std::optional<Value> v = domains_.FindString(key);
    if (v) return v;
    return EmptyMap();
  }
  bool Contains(const Value& key) const override { return domains_.Find(key).has_value(); }
  std::vector<Value> Keys() const override { return domains_.Keys(); }

 private:
  static Value EmptyMap() {
    static const Value* const kEmpty = new Value(Value::Map(std::make_shared<StringMap>()));
    return *kEmpty;
  }
  StringMap domains_;
};

// Splits "domain/id" into its parts; unqualified names belong to `driver`.
std::pair<std::string, std::string> SplitQualified(const std::string& name,
                                                   const std::string& driver) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

}  // namespace

// Interning tables, keyed by a textual rendering of the value (kind-tagged so that the string
// "1" and the int 1 never collide).
struct DeviceValueBuilder::Caches {
  absl::flat_hash_map<std::string, Value> leaves;
  absl::flat_hash_map<std::string, Value> maps;

  Value Leaf(std::string key, const std::function<Value()>& make) {
    auto it = leaves.find(key);
    if (it != leaves.end()) return it->second;
    return leaves.emplace(std::move(key), make()).first->second;
  }

  Value Attribute(const std::string& name, const dra::AttributeValue& a) {
    switch (a.kind) {
      case dra::AttributeValue::Kind::kInt: return Value::Int(a.int_value);
      case dra::AttributeValue::Kind::kBool: return Value::Bool(a.bool_value);
      case dra::AttributeValue::Kind::kString:
        return Leaf(absl::StrCat("s:", a.string_value),
                    [&] { return Value::String(a.string_value); });
      case dra::AttributeValue::Kind::kVersion:
        if (a.version) {
          return Leaf(absl::StrCat("v:", a.string_value),
                      [&] { return MakeSemverValue(*a.version); });
        }
        return Value::Error(absl::StrCat("attribute ", name, ": invalid semantic version \"",
                                         a.string_value, "\""));
    }
    return Value::Null();
  }

  Value Capacity(const Quantity& q) {
    std::string text = q.ToString();
    return Leaf(absl::StrCat("q:", text), [&] { return MakeQuantityValue(q); });
  }

  // Groups (name -> value) entries by domain into a DomainMap, sharing identical inner maps.
  template <typename Source, typename Convert>
  Value Domains(const Source& source, const std::string& driver, Convert convert) {
    std::map<std::string, std::vector<std::pair<std::string, Value>>> by_domain;
    for (const auto& [name, value] : source) {
      auto [domain, id] = SplitQualified(name, driver);
      by_domain[domain].emplace_back(std::move(id), convert(name, value));
    }
    auto domains = std::make_shared<DomainMap>();
    std::string whole_key;
    for (auto& domain_entries : by_domain) {
      const std::string& domain = domain_entries.first;
      auto& entries = domain_entries.second;  // named, so the lambda below may capture it
      std::sort(entries.begin(), entries.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string key = absl::StrCat(domain, "{");
      for (const auto& [id, v] : entries) absl::StrAppend(&key, id, "=", v.DebugString(), ";");
      absl::StrAppend(&key, "}");
      Value inner = SharedMap(key, [&] {
        auto m = std::make_shared<StringMap>();
        for (auto& [id, v] : entries) m->Put(id, v);
        return Value::Map(std::move(m));
      });
      domains->Put(domain, std::move(inner));
      absl::StrAppend(&whole_key, key);
    }
    return SharedMap(absl::StrCat("D", whole_key), [&] { return Value::Map(domains); });
  }

  Value SharedMap(const std::string& key, const std::function<Value()>& make) {
    auto it = maps.find(key);
    if (it != maps.end()) return it->second;
    return maps.emplace(key, make()).first->second;
  }
};

DeviceValueBuilder::DeviceValueBuilder() : caches_(std::make_unique<Caches>()) {}
DeviceValueBuilder::~DeviceValueBuilder() = default;

Value DeviceValueBuilder::Build(const dra::Device& device) {
  auto fields = std::make_shared<StringMap>();
  fields->Put("driver", caches_->Leaf(absl::StrCat("s:", device.driver),
                                      [&] { return Value::String(device.driver); }));
  fields->Put("attributes",
              caches_->Domains(device.attributes, device.driver,
                               [&](const std::string& name, const dra::AttributeValue& a) {
                                 return caches_->Attribute(name, a);
                               }));
  fields->Put("capacity", caches_->Domains(device.capacity, device.driver,
                                           [&](const std::string&, const Quantity& q) {
                                             return caches_->Capacity(q);
                                           }));
  return Value::Map(std::move(fields));
}

Value MakeDeviceValue(const dra::Device& device) {
  DeviceValueBuilder builder;
  return builder.Build(device);
}

}  // namespace gpuprofile::cel
