// File: controller/dra/resource_slice.cc
// ResourceSlice decoding for resource.k8s.io v1beta1 / v1beta2 / v1. One Decoder per object
// collects every problem with its field path; unknown fields are ignored on purpose.
#include "controller/dra/resource_slice.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "controller/meta/field_codec.h"
#include "controller/core/quantity.h"
#include "controller/core/semver.h"

namespace gpuprofile::dra {
namespace {

using json = nlohmann::json;

constexpr char kKind[] = "ResourceSlice";
constexpr char kAttributeKinds[] = "int, bool, string, version, ints, bools, strings, versions";
constexpr const char* kScalarKinds[] = {"int", "bool", "string", "version"};
constexpr const char* kListKinds[] = {"ints", "bools", "strings", "versions"};

class Decoder {
 public:
  explicit Decoder(std::string label) : label_(std::move(label)) {}

  void Error(absl::string_view path, absl::string_view message) {
    errors_.push_back(absl::StrCat(label_, ": ", path, ": ", message));
  }
  bool ok() const { return errors_.empty(); }
  absl::Status status() const { return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n")); }

  // Required/optional typed readers; each reports its own error and returns nullopt on failure.
  std::optional<std::string> String(const json& object, const std::string& key,
                                    absl::string_view parent, bool required) {
    const std::string path = api::FieldMember(parent, key);
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) {
      if (required) Error(path, "required");
      return std::nullopt;
    }
    if (!value->is_string()) {
      Error(path, absl::StrCat("must be a string, got ", api::JsonTypeName(*value)));
      return std::nullopt;
    }
    if (required && value->get_ref<const std::string&>().empty()) {
      Error(path, "required (must not be empty)");
      return std::nullopt;
    }
    return value->get<std::string>();
  }

  std::optional<int64_t> Int(const json& value, const std::string& path) {
    if (value.is_number_unsigned()) {
      if (value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        Error(path, "integer out of range (int64)");
        return std::nullopt;
      }
      return static_cast<int64_t>(value.get<uint64_t>());
    }
    if (value.is_number_integer()) return value.get<int64_t>();
    Error(path, absl::StrCat("must be an integer, got ", api::JsonTypeName(value)));
    return std::nullopt;
  }

  std::optional<int64_t> RequiredInt(const json& object, const std::string& key,
                                     absl::string_view parent) {
    const std::string path = api::FieldMember(parent, key);
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) {
      Error(path, "required");
      return std::nullopt;
    }
    return Int(*value, path);
  }

  // Returns the member when it is an object, nullptr when absent; reports other types.
  const json* Object(const json& object, const std::string& key, absl::string_view parent,
                     bool required) {
    const std::string path = api::FieldMember(parent, key);
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) {
      if (required) Error(path, "required");
      return nullptr;
    }
    if (!value->is_object()) {
      Error(path, absl::StrCat("must be an object, got ", api::JsonTypeName(*value)));
      return nullptr;
    }
    return value;
  }

  // A scalar of `kind` ("int", "bool", "string", "version"); its text refers to `value`.
  std::optional<AttributeValue> Scalar(absl::string_view kind, const json& value,
                                       const std::string& path) {
    if (kind == "int") {
      std::optional<int64_t> i = Int(value, path);
      if (!i) return std::nullopt;
      return AttributeValue::Int(*i);
    }
    if (kind == "bool") {
      if (!value.is_boolean()) {
        Error(path, absl::StrCat("must be a boolean, got ", api::JsonTypeName(value)));
        return std::nullopt;
      }
      return AttributeValue::Bool(value.get<bool>());
    }
    if (!value.is_string()) {
      // An unquoted `version: 12.4` in YAML is a number; Kubernetes rejects it too.
      Error(path, absl::StrCat(kind == "version" ? "must be a string (a semantic version), got "
                                                 : "must be a string, got ",
                               api::JsonTypeName(value)));
      return std::nullopt;
    }
    if (kind == "string") return AttributeValue::String(value.get_ref<const std::string&>());
    return AttributeValue::Version(value.get_ref<const std::string&>());
  }

  // Adds the attribute `name` (its value `value`) to `builder`; reports what is wrong instead.
  void Attribute(absl::string_view name, const json& value, const std::string& path,
                 DeviceSetBuilder* builder) {
    if (!value.is_object()) {
      Error(path, absl::StrCat("attribute must be an object with exactly one of ", kAttributeKinds,
                               ", got ", api::JsonTypeName(value)));
      return;
    }
    int set = 0;
    int kind_index = -1;
    bool list = false;
    for (int i = 0; i < 4; ++i) {
      if (api::JsonMember(value, kScalarKinds[i]) != nullptr) ++set, kind_index = i, list = false;
      if (api::JsonMember(value, kListKinds[i]) != nullptr) ++set, kind_index = i, list = true;
    }
    if (set == 0 && !value.empty()) {
      // A kind from a newer release: kept whole, so that the slice and its device stay.
      const std::string text = value.dump();
      builder->AddAttribute(name, AttributeValue::Opaque(text));
      return;
    }
    if (set != 1) {
      Error(path, absl::StrCat("attribute must have exactly one of ", kAttributeKinds));
      return;
    }
    if (!list) {
      const char* kind = kScalarKinds[kind_index];
      if (std::optional<AttributeValue> v =
              Scalar(kind, *api::JsonMember(value, kind), api::FieldMember(path, kind))) {
        builder->AddAttribute(name, *v);
      }
      return;
    }
    const char* kind = kListKinds[kind_index];
    const std::string list_path = api::FieldMember(path, kind);
    const json& items = *api::JsonMember(value, kind);
    if (!items.is_array()) {
      Error(list_path, absl::StrCat("must be a list, got ", api::JsonTypeName(items)));
      return;
    }
    std::vector<AttributeValue> values;
    values.reserve(items.size());
    bool ok = true;
    for (size_t i = 0; i < items.size(); ++i) {
      std::optional<AttributeValue> v =
          Scalar(kScalarKinds[kind_index], items[i], api::FieldIndex(list_path, i));
      if (v) values.push_back(*v);
      ok = ok && v.has_value();
    }
    if (!ok) return;
    constexpr AttributeValue::Kind kElementKinds[] = {
        AttributeValue::Kind::kInt, AttributeValue::Kind::kBool, AttributeValue::Kind::kString,
        AttributeValue::Kind::kVersion};
    builder->AddAttribute(name, AttributeValue::List(kElementKinds[kind_index], values));
  }

  // A boolean member: false when absent, reported (and false) when it has another type.
  bool Bool(const json& object, const std::string& key, absl::string_view parent) {
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) return false;
    if (!value->is_boolean()) {
      Error(api::FieldMember(parent, key),
            absl::StrCat("must be a boolean, got ", api::JsonTypeName(*value)));
      return false;
    }
    return value->get<bool>();
  }

  // A list member: nullptr when absent; reported when not a list.
  const json* List(const json& object, const std::string& key, absl::string_view parent) {
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) return nullptr;
    if (!value->is_array()) {
      Error(api::FieldMember(parent, key),
            absl::StrCat("must be a list, got ", api::JsonTypeName(*value)));
      return nullptr;
    }
    return value;
  }

  // `counters: {name: {value: Q}}` of a counter set or a consumption, sorted by name.
  std::vector<std::pair<std::string, Quantity>> Counters(const json& object,
                                                         absl::string_view parent) {
    std::vector<std::pair<std::string, Quantity>> out;
    const std::string path = api::FieldMember(parent, "counters");
    // Required by the API server; an absent map reads as no counters.
    const json* counters = Object(object, "counters", parent, false);
    if (counters == nullptr) return out;
    for (auto it = counters->begin(); it != counters->end(); ++it) {
      if (it.key().empty()) {
        Error(path, "counter names must not be empty");
        continue;
      }
      if (std::optional<Quantity> q = Capacity(it.value(), api::FieldMember(path, it.key()))) {
        out.emplace_back(it.key(), *q);
      }
    }
    return out;  // nlohmann objects iterate in name order
  }

  std::optional<Quantity> Capacity(const json& value, const std::string& path) {
    if (!value.is_object()) {
      Error(path, absl::StrCat("capacity must be an object {value: <quantity>}, got ",
                               api::JsonTypeName(value)));
      return std::nullopt;
    }
    const std::string value_path = api::FieldMember(path, "value");
    const json* q = api::JsonMember(value, "value");
    if (q == nullptr) {
      Error(value_path, "required");
      return std::nullopt;
    }
    std::optional<std::string> text = api::QuantityText(*q);
    if (!text) {
      Error(value_path,
            absl::StrCat("must be a quantity (string or number), got ", api::JsonTypeName(*q)));
      return std::nullopt;
    }
    absl::StatusOr<Quantity> parsed = Quantity::Parse(*text);
    if (!parsed.ok()) {
      Error(value_path,
            absl::StrCat("invalid quantity \"", *text, "\": ", parsed.status().message()));
      return std::nullopt;
    }
    return *std::move(parsed);
  }

 private:
  std::string label_;
  std::vector<std::string> errors_;
};

// metadata.<field> when it is a string, else "" (lenient: the name only labels error messages,
// and the server-assigned resourceVersion is absent in files).
std::string MetadataString(const json& obj, const char* field) {
  if (const json* meta = api::JsonMember(obj, "metadata")) {
    if (const json* value = api::JsonMember(*meta, field); value != nullptr && value->is_string()) {
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
  const json* kind = api::JsonMember(obj, "kind");
  const json* api_version = api::JsonMember(obj, "apiVersion");
  return kind != nullptr && kind->is_string() && kind->get_ref<const std::string&>() == kKind &&
         api_version != nullptr && api_version->is_string() &&
         absl::StartsWith(api_version->get_ref<const std::string&>(),
                          absl::StrCat(kResourceApiGroup, "/"));
}

absl::StatusOr<ResourceSlice> DecodeSlice(const json& obj) {
  ResourceSlice slice;
  slice.name = MetadataString(obj, "name");
  slice.resource_version = MetadataString(obj, "resourceVersion");
  Decoder d(slice.name.empty() ? absl::StrCat(kKind, " <unnamed>")
                               : absl::StrCat(kKind, " \"", slice.name, "\""));
  if (!obj.is_object()) {
    d.Error("(root)", absl::StrCat("must be an object, got ", api::JsonTypeName(obj)));
    return d.status();
  }
  if (std::optional<std::string> kind = d.String(obj, "kind", "", true); kind && *kind != kKind) {
    d.Error("kind", absl::StrCat("expected ", kKind, ", got \"", *kind, "\""));
  }
  std::optional<std::string> api_version = d.String(obj, "apiVersion", "", true);
  if (!api_version) return d.status();
  const std::string group_prefix = absl::StrCat(kResourceApiGroup, "/");
  const std::string version =
      absl::StartsWith(*api_version, group_prefix) ? api_version->substr(group_prefix.size()) : "";
  if (version != "v1" && version != "v1beta2" && version != "v1beta1") {
    d.Error("apiVersion",
            absl::StrCat("unsupported apiVersion \"", *api_version,
                         "\" (supported: resource.k8s.io/v1, resource.k8s.io/v1beta2, "
                         "resource.k8s.io/v1beta1)"));
    return d.status();
  }
  slice.api_version = *api_version;
  const bool basic_wrapper = version == "v1beta1";

  if (const json* meta = d.Object(obj, "metadata", "", true)) {
    d.String(*meta, "name", "metadata", true);
  }
  const json* spec = d.Object(obj, "spec", "", true);
  if (spec == nullptr) return d.status();

  slice.driver = d.String(*spec, "driver", "spec", true).value_or("");
  if (const json* pool = d.Object(*spec, "pool", "spec", true)) {
    slice.pool = d.String(*pool, "name", "spec.pool", true).value_or("");
    slice.pool_generation = d.RequiredInt(*pool, "generation", "spec.pool").value_or(0);
    if (std::optional<int64_t> count = d.RequiredInt(*pool, "resourceSliceCount", "spec.pool")) {
      if (*count <= 0) {
        d.Error("spec.pool.resourceSliceCount", "must be greater than zero");
      }
      slice.resource_slice_count = *count;
    }
  }
  slice.node_name = d.String(*spec, "nodeName", "spec", false).value_or("");
  const bool all_nodes = d.Bool(*spec, "allNodes", "spec");
  const bool node_selector = d.Object(*spec, "nodeSelector", "spec", false) != nullptr;
  slice.per_device_node_selection = d.Bool(*spec, "perDeviceNodeSelection", "spec");
  slice.node_scope = SliceNodeScope(slice.node_name, all_nodes, node_selector);
  if (const json* sets = d.List(*spec, "sharedCounters", "spec")) {
    for (size_t i = 0; i < sets->size(); ++i) {
      const json& entry = (*sets)[i];
      const std::string path = api::FieldIndex("spec.sharedCounters", i);
      if (!entry.is_object()) {
        d.Error(path, absl::StrCat("must be an object, got ", api::JsonTypeName(entry)));
        continue;
      }
      CounterSet set;
      set.name = d.String(entry, "name", path, true).value_or("");
      set.counters = d.Counters(entry, path);
      slice.shared_counters.push_back(std::move(set));
    }
  }

  const json* devices = api::JsonMember(*spec, "devices");
  if (devices != nullptr && !devices->is_array()) {
    d.Error("spec.devices", absl::StrCat("must be a list, got ", api::JsonTypeName(*devices)));
    devices = nullptr;
  }
  std::set<std::string> seen_names;
  DeviceSetBuilder builder(slice.driver, slice.pool, slice.pool_generation, slice.name);
  for (size_t i = 0; devices != nullptr && i < devices->size(); ++i) {
    const json& entry = (*devices)[i];
    const std::string path = api::FieldIndex("spec.devices", i);
    if (!entry.is_object()) {
      d.Error(path, absl::StrCat("must be an object, got ", api::JsonTypeName(entry)));
      continue;
    }
    std::string device_name;
    if (std::optional<std::string> name = d.String(entry, "name", path, true)) {
      if (!seen_names.insert(*name).second) {
        d.Error(api::FieldMember(path, "name"),
                absl::StrCat("duplicate device name \"", *name, "\""));
      }
      device_name = *std::move(name);
    }

    const json* body = &entry;
    std::string body_path = path;
    if (basic_wrapper) {
      body_path = api::FieldMember(path, "basic");
      body = d.Object(entry, "basic", path, false);
      if (body == nullptr && api::JsonMember(entry, "basic") == nullptr) {
        if (api::JsonMember(entry, "attributes") != nullptr ||
            api::JsonMember(entry, "capacity") != nullptr) {
          d.Error(path, absl::StrCat("attributes and capacity must be under \"basic\" in ",
                                     *api_version));
        } else {
          d.Error(body_path, "required");
        }
      }
      if (body == nullptr) continue;
    } else if (api::JsonMember(entry, "basic") != nullptr) {
      d.Error(api::FieldMember(path, "basic"),
              absl::StrCat("not part of ", *api_version,
                           " (attributes and capacity sit directly on the device; \"basic\" is "
                           "resource.k8s.io/v1beta1)"));
      continue;
    }

    const std::string device_node = d.String(*body, "nodeName", body_path, false).value_or("");
    const bool device_all_nodes = d.Bool(*body, "allNodes", body_path);
    const bool device_selector = d.Object(*body, "nodeSelector", body_path, false) != nullptr;
    const DeviceNodes nodes =
        DeviceNodeScope(slice, device_node, device_all_nodes, device_selector);
    builder.AddDevice(device_name, nodes.node, nodes.scope);
    builder.SetAllowMultipleAllocations(d.Bool(*body, "allowMultipleAllocations", body_path));

    const std::string attributes_path = api::FieldMember(body_path, "attributes");
    if (const json* attributes = d.Object(*body, "attributes", body_path, false)) {
      for (auto it = attributes->begin(); it != attributes->end(); ++it) {
        if (it.key().empty()) {
          d.Error(attributes_path, "attribute names must not be empty");
          continue;
        }
        d.Attribute(it.key(), it.value(), api::FieldMember(attributes_path, it.key()), &builder);
      }
    }
    if (const json* taints = d.List(*body, "taints", body_path)) {
      for (size_t t = 0; t < taints->size(); ++t) {
        const json& taint = (*taints)[t];
        const std::string taint_path = api::FieldIndex(api::FieldMember(body_path, "taints"), t);
        if (!taint.is_object()) {
          d.Error(taint_path, absl::StrCat("must be an object, got ", api::JsonTypeName(taint)));
          continue;
        }
        std::optional<std::string> key = d.String(taint, "key", taint_path, true);
        std::optional<std::string> value = d.String(taint, "value", taint_path, false);
        std::optional<std::string> effect = d.String(taint, "effect", taint_path, true);
        if (key && effect) builder.AddTaint(*key, value.value_or(""), *effect);
      }
    }
    if (const json* uses = d.List(*body, "consumesCounters", body_path)) {
      for (size_t u = 0; u < uses->size(); ++u) {
        const json& use = (*uses)[u];
        const std::string use_path =
            api::FieldIndex(api::FieldMember(body_path, "consumesCounters"), u);
        if (!use.is_object()) {
          d.Error(use_path, absl::StrCat("must be an object, got ", api::JsonTypeName(use)));
          continue;
        }
        std::optional<std::string> set = d.String(use, "counterSet", use_path, true);
        for (const auto& [counter, amount] : d.Counters(use, use_path)) {
          if (set) builder.AddCounterUse(*set, counter, amount);
        }
      }
    }
    const std::string capacity_path = api::FieldMember(body_path, "capacity");
    if (const json* capacity = d.Object(*body, "capacity", body_path, false)) {
      for (auto it = capacity->begin(); it != capacity->end(); ++it) {
        if (it.key().empty()) {
          d.Error(capacity_path, "capacity names must not be empty");
          continue;
        }
        if (std::optional<Quantity> value =
                d.Capacity(it.value(), api::FieldMember(capacity_path, it.key()))) {
          builder.AddCapacity(it.key(), *value);
        }
      }
    }
  }
  if (!d.ok()) return d.status();
  slice.devices = std::move(builder).Build();
  return slice;
}

absl::StatusOr<std::vector<Device>> DecodeResourceSlice(const json& obj) {
  absl::StatusOr<ResourceSlice> slice = DecodeSlice(obj);
  if (!slice.ok()) return slice.status();
  return std::move(slice->devices);
}

}  // namespace gpuprofile::dra
