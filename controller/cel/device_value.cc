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

// The keys of a string-keyed map. Devices of one node group publish the same attribute names, so
// the builder shares one shape among all their maps and each device keeps only its values: the
// lookup scans keys that stay hot in cache and then touches one slot of the device's own array.
struct MapShape {
  std::vector<std::string> keys;  // unique, in the builder's (sorted) order

  int IndexOf(absl::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string& k = keys[i];
      // Length, then first byte, then the rest: names of one map rarely share both.
      if (k.size() == key.size() && (key.empty() || k[0] == key[0]) &&
          std::memcmp(k.data(), key.data(), key.size()) == 0) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
};

// A map with string keys (device fields, attribute domains, attributes of one domain).
class StringMap final : public MapValue {
 public:
  StringMap() : shape_(std::make_shared<MapShape>()) {}
  StringMap(std::shared_ptr<const MapShape> shape, absl::InlinedVector<Value, 4> values)
      : shape_(std::move(shape)), values_(std::move(values)) {}

  size_t size() const override { return values_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    int i = shape_->IndexOf(key);
    if (i < 0) return std::nullopt;
    return values_[static_cast<size_t>(i)];
  }
  const Value* FindStringRef(absl::string_view key) const override {
    int i = shape_->IndexOf(key);
    return i < 0 ? nullptr : &values_[static_cast<size_t>(i)];
  }
  std::vector<Value> Keys() const override {
    std::vector<Value> out;
    out.reserve(shape_->keys.size());
    for (const std::string& k : shape_->keys) out.push_back(Value::String(k));
    return out;
  }

 private:
  std::shared_ptr<const MapShape> shape_;
  absl::InlinedVector<Value, 4> values_;  // values_[i] belongs to shape_->keys[i]
};

// device.attributes / device.capacity: domain -> map. Absent domains read as an empty map but
// are not members.
class DomainMap final : public MapValue {
 public:
  explicit DomainMap(StringMap domains) : domains_(std::move(domains)) {}
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
  const Value* FindStringRef(absl::string_view key) const override {
    const Value* v = domains_.FindStringRef(key);
    return v != nullptr ? v : &EmptyMap();
  }
  bool Contains(const Value& key) const override { return domains_.Find(key).has_value(); }
  std::vector<Value> Keys() const override { return domains_.Keys(); }

 private:
  static const Value& EmptyMap() {
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
  absl::flat_hash_map<std::string, std::shared_ptr<const MapShape>> shapes;

  // The shared shape for these (unique, ordered) keys.
  std::shared_ptr<const MapShape> Shape(const std::vector<std::string>& keys) {
    std::string id;
    for (const std::string& k : keys) absl::StrAppend(&id, k, "\n");
    auto it = shapes.find(id);
    if (it != shapes.end()) return it->second;
    auto shape = std::make_shared<MapShape>();
    shape->keys = keys;
    return shapes.emplace(std::move(id), std::move(shape)).first->second;
  }

  StringMap MakeMap(const std::vector<std::pair<std::string, Value>>& entries) {
    std::vector<std::string> keys;
    absl::InlinedVector<Value, 4> values;
    for (const auto& [k, v] : entries) {
      if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;  // first one wins
      keys.push_back(k);
      values.push_back(v);
    }
    return StringMap(Shape(keys), std::move(values));
  }

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
    std::vector<std::pair<std::string, Value>> domains;
    std::string whole_key;
    for (auto& domain_entries : by_domain) {
      const std::string& domain = domain_entries.first;
      auto& entries = domain_entries.second;  // named, so the lambda below may capture it
      std::sort(entries.begin(), entries.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string key = absl::StrCat(domain, "{");
      for (const auto& [id, v] : entries) absl::StrAppend(&key, id, "=", v.DebugString(), ";");
      absl::StrAppend(&key, "}");
      Value inner = SharedMap(key, [&] { return Value::Map(std::make_shared<StringMap>(MakeMap(entries))); });
      domains.emplace_back(domain, std::move(inner));
      absl::StrAppend(&whole_key, key);
    }
    return SharedMap(absl::StrCat("D", whole_key), [&] {
      return Value::Map(std::make_shared<DomainMap>(MakeMap(domains)));
    });
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
  std::vector<std::pair<std::string, Value>> fields;
  fields.emplace_back("driver", caches_->Leaf(absl::StrCat("s:", device.driver),
                                              [&] { return Value::String(device.driver); }));
  fields.emplace_back("attributes",
                      caches_->Domains(device.attributes, device.driver,
                                       [&](const std::string& name, const dra::AttributeValue& a) {
                                         return caches_->Attribute(name, a);
                                       }));
  fields.emplace_back("capacity", caches_->Domains(device.capacity, device.driver,
                                                   [&](const std::string&, const Quantity& q) {
                                                     return caches_->Capacity(q);
                                                   }));
  return Value::Map(std::make_shared<StringMap>(caches_->MakeMap(fields)));
}

Value MakeDeviceValue(const dra::Device& device) {
  DeviceValueBuilder builder;
  return builder.Build(device);
}

}  // namespace gpuprofile::cel
