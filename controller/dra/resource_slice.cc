// File: controller/dra/resource_slice.cc
// ResourceSlice decoding for resource.k8s.io v1beta1 / v1beta2 / v1, with the field codec
// (controller/meta/field_codec.h): one FieldErrors per object collects every problem with its
// field path, and the status prefixes each with the slice's label. Unknown fields are ignored on
// purpose.
#include "controller/dra/resource_slice.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/core/quantity.h"
#include "controller/core/semver.h"
#include "controller/meta/field_codec.h"

namespace gpuprofile::dra {
namespace {

using json = nlohmann::json;

constexpr char kResourceSliceKind[] = "ResourceSlice";
constexpr char kAttributeKinds[] = "int, bool, string, version, ints, bools, strings, versions";
constexpr const char* kScalarKinds[] = {"int", "bool", "string", "version"};
constexpr const char* kListKinds[] = {"ints", "bools", "strings", "versions"};

using meta::FieldErrors;
using meta::FieldMember;

// Calls `fn(name, value, path)` for each member of the map `key` of `body` in name order, and
// reports the empty name ("<what> names must not be empty") instead.
template <typename Fn>
void ForEachNamed(const json& body, const char* key, absl::string_view body_path,
                  absl::string_view what, FieldErrors* errors, Fn&& fn) {
  const json* map = meta::ObjectField(body, key, body_path, false, errors);
  if (map == nullptr) return;
  const std::string path = FieldMember(body_path, key);
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (it.key().empty()) {
      errors->Add(path, absl::StrCat(what, " names must not be empty"));
      continue;
    }
    fn(it.key(), it.value(), FieldMember(path, it.key()));
  }
}

// A scalar of `kind` ("int", "bool", "string", "version"); its text refers to `value`.
std::optional<AttributeValue> Scalar(absl::string_view kind, const json& value,
                                     const std::string& path, FieldErrors* errors) {
  if (kind == "int") {
    std::optional<int64_t> i = meta::ReadInt(value, path, errors);
    if (!i) return std::nullopt;
    return AttributeValue::Int(*i);
  }
  if (kind == "bool") {
    std::optional<bool> b = meta::ReadBool(value, path, errors);
    if (!b) return std::nullopt;
    return AttributeValue::Bool(*b);
  }
  if (!value.is_string()) {
    // An unquoted `version: 12.4` in YAML is a number; Kubernetes rejects it too.
    errors->Add(path, absl::StrCat(kind == "version" ? "must be a string (a semantic version), got "
                                                     : "must be a string, got ",
                                   errors->TypeName(value)));
    return std::nullopt;
  }
  if (kind == "string") return AttributeValue::String(value.get_ref<const std::string&>());
  return AttributeValue::Version(value.get_ref<const std::string&>());
}

// Adds the list attribute `name` of kind kListKinds[kind_index] (`items`, at `path`) to
// `builder`; reports what is wrong instead. The list value views `values`, so it is added here.
void AddListAttribute(absl::string_view name, const json& items, int kind_index,
                      const std::string& path, DeviceSetBuilder* builder, FieldErrors* errors) {
  if (!meta::CheckArray(items, path, errors)) return;
  std::vector<AttributeValue> values;
  values.reserve(items.size());
  bool ok = true;
  for (size_t i = 0; i < items.size(); ++i) {
    std::optional<AttributeValue> v =
        Scalar(kScalarKinds[kind_index], items[i], meta::FieldIndex(path, i), errors);
    if (v) values.push_back(*v);
    ok = ok && v.has_value();
  }
  if (!ok) return;
  constexpr AttributeValue::Kind kElementKinds[] = {
      AttributeValue::Kind::kInt, AttributeValue::Kind::kBool, AttributeValue::Kind::kString,
      AttributeValue::Kind::kVersion};
  builder->AddAttribute(name, AttributeValue::List(kElementKinds[kind_index], values));
}

// Adds the attribute `name` (its value `value`) to `builder`; reports what is wrong instead.
void Attribute(absl::string_view name, const json& value, const std::string& path,
               DeviceSetBuilder* builder, FieldErrors* errors) {
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("attribute must be an object with exactly one of ",
                                   kAttributeKinds, ", got ", errors->TypeName(value)));
    return;
  }
  int set = 0;
  int kind_index = -1;
  bool list = false;
  for (int i = 0; i < 4; ++i) {
    if (meta::JsonMember(value, kScalarKinds[i]) != nullptr) ++set, kind_index = i, list = false;
    if (meta::JsonMember(value, kListKinds[i]) != nullptr) ++set, kind_index = i, list = true;
  }
  if (set == 0 && !value.empty()) {
    // A kind from a newer release: kept whole, so that the slice and its device stay.
    const std::string text = value.dump();
    builder->AddAttribute(name, AttributeValue::Opaque(text));
    return;
  }
  if (set != 1) {
    errors->Add(path, absl::StrCat("attribute must have exactly one of ", kAttributeKinds));
    return;
  }
  const char* kind = list ? kListKinds[kind_index] : kScalarKinds[kind_index];
  const json& member = *meta::JsonMember(value, kind);
  if (list) {
    AddListAttribute(name, member, kind_index, FieldMember(path, kind), builder, errors);
  } else if (std::optional<AttributeValue> v =
                 Scalar(kind, member, FieldMember(path, kind), errors)) {
    builder->AddAttribute(name, *v);
  }
}

// A quantity (string or number) at `path`, or nullopt (reported).
std::optional<Quantity> QuantityAt(const json& q, const std::string& value_path,
                                   FieldErrors* errors) {
  std::optional<std::string> text = meta::QuantityText(q);
  if (!text) {
    errors->Add(value_path,
                absl::StrCat("must be a quantity (string or number), got ", errors->TypeName(q)));
    return std::nullopt;
  }
  absl::StatusOr<Quantity> parsed = Quantity::Parse(*text);
  if (!parsed.ok()) {
    errors->Add(value_path,
                absl::StrCat("invalid quantity \"", *text, "\": ", parsed.status().message()));
    return std::nullopt;
  }
  return *std::move(parsed);
}

// A capacity `{value: Q}` at `path`, or nullopt (reported).
std::optional<Quantity> Capacity(const json& value, const std::string& path, FieldErrors* errors) {
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("capacity must be an object {value: <quantity>}, got ",
                                   errors->TypeName(value)));
    return std::nullopt;
  }
  const std::string value_path = FieldMember(path, "value");
  const json* q = meta::JsonMember(value, "value");
  if (q == nullptr) {
    errors->Add(value_path, "required");
    return std::nullopt;
  }
  return QuantityAt(*q, value_path, errors);
}

// validRange {min (required), max, step} of a request policy at `path`, or nullopt (reported).
std::optional<CapacityRequestPolicy::Range> ValidRange(const json& range, const std::string& path,
                                                       FieldErrors* errors) {
  CapacityRequestPolicy::Range out;
  const json* min = meta::JsonMember(range, "min");
  if (min == nullptr) {
    errors->Add(FieldMember(path, "min"), "required");
    return std::nullopt;
  }
  std::optional<Quantity> min_value = QuantityAt(*min, FieldMember(path, "min"), errors);
  if (!min_value) return std::nullopt;
  out.min = *min_value;
  bool ok = true;
  const auto optional_member = [&](const char* key, std::optional<Quantity>* to) {
    const json* q = meta::JsonMember(range, key);
    if (q == nullptr) return;
    *to = QuantityAt(*q, FieldMember(path, key), errors);
    ok = ok && to->has_value();
  };
  optional_member("max", &out.max);
  optional_member("step", &out.step);
  if (!ok) return std::nullopt;
  return out;
}

// capacity.<name>.requestPolicy (DRAConsumableCapacity) of the capacity at `path`: none when
// absent; an invalid shape is reported. Members this project does not know are ignored, as for
// the rest of the device.
std::optional<CapacityRequestPolicy> RequestPolicy(const json& capacity, const std::string& path,
                                                   FieldErrors* errors) {
  const json* policy = meta::ObjectField(capacity, "requestPolicy", path, false, errors);
  if (policy == nullptr) return std::nullopt;
  const std::string policy_path = FieldMember(path, "requestPolicy");
  const size_t errors_before = errors->lines().size();
  CapacityRequestPolicy out;
  if (const json* d = meta::JsonMember(*policy, "default")) {
    out.default_value = QuantityAt(*d, FieldMember(policy_path, "default"), errors);
  }
  if (const json* values = meta::ArrayField(*policy, "validValues", policy_path, false, errors)) {
    const std::string values_path = FieldMember(policy_path, "validValues");
    for (size_t i = 0; i < values->size(); ++i) {
      std::optional<Quantity> v =
          QuantityAt((*values)[i], meta::FieldIndex(values_path, i), errors);
      if (v) out.valid_values.push_back(*v);
    }
  }
  if (const json* range = meta::ObjectField(*policy, "validRange", policy_path, false, errors)) {
    out.valid_range = ValidRange(*range, FieldMember(policy_path, "validRange"), errors);
  }
  if (!out.valid_values.empty() && out.valid_range) {
    errors->Add(policy_path, "validValues and validRange are mutually exclusive");
  }
  if (errors->lines().size() != errors_before) return std::nullopt;
  return out;
}

// `counters: {name: {value: Q}}` of a counter set or a consumption, sorted by name. Required by
// the API server; an absent map reads as no counters.
std::vector<std::pair<std::string, Quantity>> Counters(const json& object, absl::string_view parent,
                                                       FieldErrors* errors) {
  std::vector<std::pair<std::string, Quantity>> out;
  ForEachNamed(object, "counters", parent, "counter", errors,
               [&](const std::string& name, const json& value, const std::string& path) {
                 if (std::optional<Quantity> q = Capacity(value, path, errors)) {
                   out.emplace_back(name, *q);
                 }
               });
  return out;  // nlohmann objects iterate in name order
}

// metadata.<field> when it is a string, else "" (lenient: the name only labels error messages,
// and the server-assigned resourceVersion is absent in files).
std::string MetadataString(const json& obj, const char* field) {
  if (const json* meta = meta::JsonMember(obj, "metadata")) {
    if (const json* value = meta::JsonMember(*meta, field);
        value != nullptr && value->is_string()) {
      return value->get<std::string>();
    }
  }
  return "";
}

}  // namespace

NodeScope SliceNodeScope(absl::string_view node_name, bool all_nodes, bool node_selector) {
  if (!node_name.empty()) return NodeScope::kNode;
  if (all_nodes) return NodeScope::kAllNodes;
  if (node_selector) return NodeScope::kNodeSelector;
  return NodeScope::kNode;  // per-device node selection, or a file that leaves the node out
}

DeviceNodes DeviceNodeScope(const ResourceSlice& slice, absl::string_view device_node,
                            bool all_nodes, bool node_selector) {
  if (!slice.node_name.empty()) return {slice.node_name, NodeScope::kNode};
  if (!device_node.empty()) return {device_node, NodeScope::kNode};
  if (all_nodes) return {"", NodeScope::kAllNodes};
  if (node_selector) return {"", NodeScope::kNodeSelector};
  return {"", slice.node_scope};
}

bool IsResourceSlice(const json& obj) {
  const json* kind = meta::JsonMember(obj, "kind");
  const json* api_version = meta::JsonMember(obj, "apiVersion");
  return kind != nullptr && kind->is_string() &&
         kind->get_ref<const std::string&>() == kResourceSliceKind && api_version != nullptr &&
         api_version->is_string() &&
         absl::StartsWith(api_version->get_ref<const std::string&>(),
                          absl::StrCat(kResourceApiGroup, "/"));
}

namespace {

// Checks kind and apiVersion; the version ("v1", "v1beta2", "v1beta1"), or nullopt (reported)
// when it is missing or unsupported.
std::optional<std::string> ReadSliceVersion(const json& obj, std::string* api_version,
                                        FieldErrors* errors) {
  if (std::optional<std::string> kind = meta::StringField(obj, "kind", "", true, errors);
      kind && *kind != kResourceSliceKind) {
    errors->Add("kind", absl::StrCat("expected ", kResourceSliceKind, ", got \"", *kind, "\""));
  }
  std::optional<std::string> text = meta::StringField(obj, "apiVersion", "", true, errors);
  if (!text) return std::nullopt;
  const std::string group_prefix = absl::StrCat(kResourceApiGroup, "/");
  const std::string version =
      absl::StartsWith(*text, group_prefix) ? text->substr(group_prefix.size()) : "";
  if (version != "v1" && version != "v1beta2" && version != "v1beta1") {
    errors->Add("apiVersion",
                absl::StrCat("unsupported apiVersion \"", *text,
                             "\" (supported: resource.k8s.io/v1, resource.k8s.io/v1beta2, "
                             "resource.k8s.io/v1beta1)"));
    return std::nullopt;
  }
  *api_version = *std::move(text);
  return version;
}

// spec.driver, spec.pool, the node scope and spec.sharedCounters.
void DecodeSliceSpec(const json& spec, ResourceSlice* slice, FieldErrors* errors) {
  slice->driver = meta::StringField(spec, "driver", "spec", true, errors).value_or("");
  if (const json* pool = meta::ObjectField(spec, "pool", "spec", true, errors)) {
    slice->pool = meta::StringField(*pool, "name", "spec.pool", true, errors).value_or("");
    slice->pool_generation =
        meta::IntField(*pool, "generation", "spec.pool", true, errors).value_or(0);
    if (std::optional<int64_t> count =
            meta::IntField(*pool, "resourceSliceCount", "spec.pool", true, errors)) {
      if (*count <= 0) errors->Add("spec.pool.resourceSliceCount", "must be greater than zero");
      slice->resource_slice_count = *count;
    }
  }
  slice->node_name = meta::StringField(spec, "nodeName", "spec", false, errors).value_or("");
  const bool all_nodes = meta::BoolField(spec, "allNodes", "spec", errors).value_or(false);
  const bool node_selector =
      meta::ObjectField(spec, "nodeSelector", "spec", false, errors) != nullptr;
  slice->per_device_node_selection =
      meta::BoolField(spec, "perDeviceNodeSelection", "spec", errors).value_or(false);
  slice->node_scope = SliceNodeScope(slice->node_name, all_nodes, node_selector);
  meta::ForEachObject(
      spec, "sharedCounters", "spec", errors, [&](const json& entry, const std::string& path) {
        CounterSet set;
        set.name = meta::StringField(entry, "name", path, true, errors).value_or("");
        set.counters = Counters(entry, path, errors);
        slice->shared_counters.push_back(std::move(set));
      });
}

// The object holding a device's attributes and capacity: `basic` in v1beta1 (nullptr, reported,
// when it is missing or no object), the device itself in later versions (nullptr, reported, when
// it has `basic`).
const json* DeviceBody(const json& entry, const std::string& path, const std::string& api_version,
                       bool basic_wrapper, std::string* body_path, FieldErrors* errors) {
  *body_path = path;
  if (!basic_wrapper) {
    if (meta::JsonMember(entry, "basic") == nullptr) return &entry;
    errors->Add(FieldMember(path, "basic"),
                absl::StrCat("not part of ", api_version,
                             " (attributes and capacity sit directly on the device; \"basic\" is "
                             "resource.k8s.io/v1beta1)"));
    return nullptr;
  }
  *body_path = FieldMember(path, "basic");
  const json* body = meta::ObjectField(entry, "basic", path, false, errors);
  if (body == nullptr && meta::JsonMember(entry, "basic") == nullptr) {
    if (meta::JsonMember(entry, "attributes") != nullptr ||
        meta::JsonMember(entry, "capacity") != nullptr) {
      errors->Add(path,
                  absl::StrCat("attributes and capacity must be under \"basic\" in ", api_version));
    } else {
      errors->Add(*body_path, "required");
    }
  }
  return body;
}

// A device's taints and counter consumption.
void DecodeTaintsAndCounters(const json& body, const std::string& body_path,
                             DeviceSetBuilder* builder, FieldErrors* errors) {
  meta::ForEachObject(
      body, "taints", body_path, errors, [&](const json& taint, const std::string& path) {
        std::optional<std::string> key = meta::StringField(taint, "key", path, true, errors);
        std::optional<std::string> value = meta::StringField(taint, "value", path, false, errors);
        std::optional<std::string> effect = meta::StringField(taint, "effect", path, true, errors);
        if (key && effect) builder->AddTaint(*key, value.value_or(""), *effect);
      });
  meta::ForEachObject(
      body, "consumesCounters", body_path, errors, [&](const json& use, const std::string& path) {
        std::optional<std::string> set = meta::StringField(use, "counterSet", path, true, errors);
        for (const auto& [counter, amount] : Counters(use, path, errors)) {
          if (set) builder->AddCounterUse(*set, counter, amount);
        }
      });
}

// One device (an object) of the slice: its name, node, attributes, taints, counters and
// capacity.
void DecodeDevice(const json& entry, const std::string& path, const ResourceSlice& slice,
                  bool basic_wrapper, std::set<std::string>* seen_names, DeviceSetBuilder* builder,
                  FieldErrors* errors) {
  std::string device_name;
  if (std::optional<std::string> name = meta::StringField(entry, "name", path, true, errors)) {
    if (!seen_names->insert(*name).second) {
      errors->Add(FieldMember(path, "name"), absl::StrCat("duplicate device name \"", *name, "\""));
    }
    device_name = *std::move(name);
  }
  std::string body_path;
  const json* body = DeviceBody(entry, path, slice.api_version, basic_wrapper, &body_path, errors);
  if (body == nullptr) return;

  const std::string device_node =
      meta::StringField(*body, "nodeName", body_path, false, errors).value_or("");
  const bool all_nodes = meta::BoolField(*body, "allNodes", body_path, errors).value_or(false);
  const bool selector =
      meta::ObjectField(*body, "nodeSelector", body_path, false, errors) != nullptr;
  const DeviceNodes nodes = DeviceNodeScope(slice, device_node, all_nodes, selector);
  builder->AddDevice(device_name, nodes.node, nodes.scope);
  builder->SetAllowMultipleAllocations(
      meta::BoolField(*body, "allowMultipleAllocations", body_path, errors).value_or(false));
  ForEachNamed(*body, "attributes", body_path, "attribute", errors,
               [&](const std::string& name, const json& value, const std::string& item_path) {
                 Attribute(name, value, item_path, builder, errors);
               });
  DecodeTaintsAndCounters(*body, body_path, builder, errors);
  ForEachNamed(*body, "capacity", body_path, "capacity", errors,
               [&](const std::string& name, const json& value, const std::string& item_path) {
                 std::optional<Quantity> q = Capacity(value, item_path, errors);
                 if (!q) return;
                 std::optional<CapacityRequestPolicy> policy =
                     RequestPolicy(value, item_path, errors);
                 builder->AddCapacity(name, *q, policy ? &*policy : nullptr);
               });
}

}  // namespace

absl::StatusOr<ResourceSlice> DecodeSlice(const json& obj) {
  ResourceSlice slice;
  slice.name = MetadataString(obj, "name");
  slice.resource_version = MetadataString(obj, "resourceVersion");
  const std::string label = slice.name.empty()
                                ? absl::StrCat(kResourceSliceKind, " <unnamed>")
                                : absl::StrCat(kResourceSliceKind, " \"", slice.name, "\"");
  FieldErrors errors;
  if (!meta::CheckObject(obj, "(root)", &errors)) return errors.ToStatus(label);
  std::optional<std::string> version = ReadSliceVersion(obj, &slice.api_version, &errors);
  if (!version) return errors.ToStatus(label);
  if (const json* meta = meta::ObjectField(obj, "metadata", "", true, &errors)) {
    meta::StringField(*meta, "name", "metadata", true, &errors);
  }
  const json* spec = meta::ObjectField(obj, "spec", "", true, &errors);
  if (spec == nullptr) return errors.ToStatus(label);
  DecodeSliceSpec(*spec, &slice, &errors);

  std::set<std::string> seen_names;
  DeviceSetBuilder builder(slice.driver, slice.pool, slice.pool_generation, slice.name);
  if (auto devices = spec->find("devices"); devices != spec->end() && devices->is_array()) {
    builder.ExpectDevices(devices->size());
  }
  meta::ForEachObject(
      *spec, "devices", "spec", &errors, [&](const json& entry, const std::string& path) {
        DecodeDevice(entry, path, slice, *version == "v1beta1", &seen_names, &builder, &errors);
      });
  if (!errors.empty()) return errors.ToStatus(label);
  slice.devices = std::move(builder).Build();
  return slice;
}

absl::StatusOr<std::vector<Device>> DecodeResourceSlice(const json& obj) {
  absl::StatusOr<ResourceSlice> slice = DecodeSlice(obj);
  if (!slice.ok()) return slice.status();
  return std::move(slice->devices);
}

}  // namespace gpuprofile::dra
