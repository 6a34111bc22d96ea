// File: controller/cel/device_value.cc
#include "controller/cel/device_value.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "controller/cel/library_values.h"

namespace gpuprofile::cel {
namespace {

// A map with string keys, as device fields and attribute domains are.
class StringMap final : public MapValue {
 public:
  void Put(std::string key, Value value) {
    auto [it, inserted] = entries_.try_emplace(key, std::move(value));
    if (inserted) keys_.push_back(std::move(key));
  }
  size_t size() const override { return keys_.size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<Value> Keys() const override {
    std::vector<Value> out;
    out.reserve(keys_.size());
    for (const std::string& k : keys_) out.push_back(Value::String(k));
    return out;
  }

 private:
  absl::flat_hash_map<std::string, Value> entries_;
  std::vector<std::string> keys_;  // insertion order (sorted by the builder)
};

// device.attributes / device.capacity: domain -> map. Absent domains read as an empty map but
// are not members.
class DomainMap final : public MapValue {
 public:
  explicit DomainMap(std::shared_ptr<StringMap> domains) : domains_(std::move(domains)) {}
  size_t size() const override { return domains_->size(); }
  std::optional<Value> Find(const Value& key) const override {
    if (key.kind() != ValueKind::kString) return std::nullopt;
    return FindString(key.string_value());
  }
  std::optional<Value> FindString(absl::string_view key) const override {
    std::optional<Value> v = domains_->FindString(key);
    if (v) return v;
    return EmptyMap();
  }
  bool Contains(const Value& key) const override { return domains_->Find(key).has_value(); }
  std::vector<Value> Keys() const override { return domains_->Keys(); }

 private:
  static Value EmptyMap() {
    static const Value* const kEmpty = new Value(Value::Map(std::make_shared<StringMap>()));
    return *kEmpty;
  }
  std::shared_ptr<StringMap> domains_;
};

Value AttributeToValue(const std::string& name, const dra::AttributeValue& a) {
  switch (a.kind) {
    case dra::AttributeValue::Kind::kInt: return Value::Int(a.int_value);
    case dra::AttributeValue::Kind::kBool: return Value::Bool(a.bool_value);
    case dra::AttributeValue::Kind::kString: return Value::String(a.string_value);
    case dra::AttributeValue::Kind::kVersion:
      if (a.version) return MakeSemverValue(*a.version);
      return Value::Error(absl::StrCat("attribute ", name, ": invalid semantic version \"",
                                       a.string_value, "\""));
  }
  return Value::Null();
}

// Splits "domain/id" into its parts; unqualified names belong to `driver`.
std::pair<std::string, std::string> SplitQualified(const std::string& name,
                                                   const std::string& driver) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

template <typename Map, typename Convert>
Value BuildDomains(const Map& source, const std::string& driver, Convert convert) {
  // std::map iterates sorted, so domains and ids come out in a stable order.
  std::vector<std::pair<std::string, std::shared_ptr<StringMap>>> order;
  absl::flat_hash_map<std::string, std::shared_ptr<StringMap>> by_domain;
  for (const auto& [name, value] : source) {
    auto [domain, id] = SplitQualified(name, driver);
    std::shared_ptr<StringMap>& m = by_domain[domain];
    if (!m) {
      m = std::make_shared<StringMap>();
      order.emplace_back(domain, m);
    }
    m->Put(id, convert(name, value));
  }
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  auto domains = std::make_shared<StringMap>();
  for (auto& [domain, m] : order) domains->Put(domain, Value::Map(m));
  return Value::Map(std::make_shared<DomainMap>(std::move(domains)));
}

}  // namespace

Value MakeDeviceValue(const dra::Device& device) {
  auto fields = std::make_shared<StringMap>();
  fields->Put("driver", Value::String(device.driver));
  fields->Put("attributes", BuildDomains(device.attributes, device.driver, AttributeToValue));
  fields->Put("capacity",
              BuildDomains(device.capacity, device.driver,
                           [](const std::string&, const Quantity& q) { return MakeQuantityValue(q); }));
  return Value::Map(std::move(fields));
}

}  // namespace gpuprofile::cel
