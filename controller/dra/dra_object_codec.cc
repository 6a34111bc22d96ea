// File: controller/dra/dra_object_codec.cc
// DeviceClass / ResourceClaimTemplate JSON per resource.k8s.io version. One Decoder per object
// collects every problem with its field path (as resource_slice.cc does); unknown fields are
// ignored on purpose. ObjectMeta is decoded here (errors carry the object's label, as every other
// path of these kinds does), encoded and compared with object_meta_codec.
#include "controller/dra/dra_object_codec.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "controller/core/quantity.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/object_meta.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::dra {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr char kGroup[] = "resource.k8s.io";
constexpr char kDeviceClassKind[] = "DeviceClass";
constexpr char kTemplateKind[] = "ResourceClaimTemplate";
constexpr char kExactCount[] = "ExactCount";
constexpr char kAll[] = "All";
constexpr char kEqual[] = "Equal";
constexpr char kExists[] = "Exists";
// DeviceRequest.firstAvailable holds at most this many subrequests (all versions).
constexpr size_t kMaxSubrequests = 8;

// ---------------------------------------------------------------------------------------------
// JSON helpers

std::string TypeName(const json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number_float()) return "number";
  if (value.is_array()) return "list";
  return value.type_name();
}

// Present with a value Go's omitempty would print: not null, not an empty list or object.
bool NonEmptyMember(const json& object, const char* key) {
  const json* value = api::JsonMember(object, key);
  if (value == nullptr) return false;
  if (value->is_array() || value->is_object()) return !value->empty();
  return true;
}

std::optional<std::string> StringMember(const json& object, const char* key) {
  const json* value = api::JsonMember(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

// Copies a JSON value into ordered_json (objects keep nlohmann::json's sorted key order).
ordered_json ToOrdered(const json& value) {
  switch (value.type()) {
    case json::value_t::object: {
      ordered_json out = ordered_json::object();
      for (auto it = value.begin(); it != value.end(); ++it) out[it.key()] = ToOrdered(it.value());
      return out;
    }
    case json::value_t::array: {
      ordered_json out = ordered_json::array();
      for (const json& item : value) out.push_back(ToOrdered(item));
      return out;
    }
    case json::value_t::string:
      return value.get<std::string>();
    case json::value_t::boolean:
      return value.get<bool>();
    case json::value_t::number_integer:
      return value.get<int64_t>();
    case json::value_t::number_unsigned:
      return value.get<uint64_t>();
    case json::value_t::number_float:
      return value.get<double>();
    default:
      return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding

class Decoder {
 public:
  explicit Decoder(std::string label) : label_(std::move(label)) {}

  void Error(absl::string_view path, absl::string_view message) {
    errors_.push_back(absl::StrCat(label_, ": ", path, ": ", message));
  }
  bool ok() const { return errors_.empty(); }
  absl::Status status() const { return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n")); }

  std::optional<std::string> String(const json& object, const char* key, absl::string_view parent,
                                    bool required) {
    const std::string path = api::FieldMember(parent, key);
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) {
      if (required) Error(path, "required");
      return std::nullopt;
    }
    if (!value->is_string()) {
      Error(path, absl::StrCat("must be a string, got ", TypeName(*value)));
      return std::nullopt;
    }
    if (required && value->get_ref<const std::string&>().empty()) {
      Error(path, "required (must not be empty)");
      return std::nullopt;
    }
    return value->get<std::string>();
  }

  std::optional<int64_t> Int(const json& object, const char* key, absl::string_view parent) {
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) return std::nullopt;
    const std::string path = api::FieldMember(parent, key);
    if (value->is_number_unsigned()) {
      if (value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        Error(path, "integer out of range (int64)");
        return std::nullopt;
      }
      return static_cast<int64_t>(value->get<uint64_t>());
    }
    if (value->is_number_integer()) return value->get<int64_t>();
    Error(path, absl::StrCat("must be an integer, got ", TypeName(*value)));
    return std::nullopt;
  }

  std::optional<bool> Bool(const json& object, const char* key, absl::string_view parent) {
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_boolean()) {
      Error(api::FieldMember(parent, key),
            absl::StrCat("must be a boolean, got ", TypeName(*value)));
      return std::nullopt;
    }
    return value->get<bool>();
  }

  // The member when it is an object, nullptr when absent or of another type (reported).
  const json* Object(const json& object, const char* key, absl::string_view parent, bool required) {
    const std::string path = api::FieldMember(parent, key);
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) {
      if (required) Error(path, "required");
      return nullptr;
    }
    if (!value->is_object()) {
      Error(path, absl::StrCat("must be an object, got ", TypeName(*value)));
      return nullptr;
    }
    return value;
  }

  // The member when it is a list, nullptr when absent or of another type (reported).
  const json* List(const json& object, const char* key, absl::string_view parent) {
    const json* value = api::JsonMember(object, key);
    if (value == nullptr) return nullptr;
    if (!value->is_array()) {
      Error(api::FieldMember(parent, key), absl::StrCat("must be a list, got ", TypeName(*value)));
      return nullptr;
    }
    return value;
  }

  std::vector<std::string> StringList(const json& object, const char* key,
                                      absl::string_view parent) {
    std::vector<std::string> out;
    const json* list = List(object, key, parent);
    if (list == nullptr) return out;
    const std::string path = api::FieldMember(parent, key);
    for (size_t i = 0; i < list->size(); ++i) {
      const json& item = (*list)[i];
      if (!item.is_string()) {
        Error(api::FieldIndex(path, i), absl::StrCat("must be a string, got ", TypeName(item)));
        continue;
      }
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  std::map<std::string, std::string> StringMap(const json& object, const char* key,
                                               absl::string_view parent) {
    std::map<std::string, std::string> out;
    const json* map = Object(object, key, parent, false);
    if (map == nullptr) return out;
    const std::string path = api::FieldMember(parent, key);
    for (auto it = map->begin(); it != map->end(); ++it) {
      if (!it->is_string()) {
        Error(api::FieldMember(path, it.key()),
              absl::StrCat("must be a string, got ", TypeName(*it)));
        continue;
      }
      out.emplace(it.key(), it->get<std::string>());
    }
    return out;
  }

  // [{cel: {expression}}] → the expressions.
  std::vector<std::string> Selectors(const json& object, absl::string_view parent) {
    std::vector<std::string> out;
    const json* list = List(object, "selectors", parent);
    if (list == nullptr) return out;
    const std::string path = api::FieldMember(parent, "selectors");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string item_path = api::FieldIndex(path, i);
      const json& item = (*list)[i];
      if (!item.is_object()) {
        Error(item_path, absl::StrCat("must be an object, got ", TypeName(item)));
        continue;
      }
      const json* cel = Object(item, "cel", item_path, true);
      if (cel == nullptr) continue;
      if (std::optional<std::string> expression =
              String(*cel, "expression", api::FieldMember(item_path, "cel"), true)) {
        out.push_back(*std::move(expression));
      }
    }
    return out;
  }

  // [{requests?, opaque: {driver, parameters}}]; `requests` only on claim configs.
  std::vector<OpaqueDeviceConfig> Configs(const json& object, absl::string_view parent,
                                          bool with_requests) {
    std::vector<OpaqueDeviceConfig> out;
    const json* list = List(object, "config", parent);
    if (list == nullptr) return out;
    const std::string path = api::FieldMember(parent, "config");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string item_path = api::FieldIndex(path, i);
      const json& item = (*list)[i];
      if (!item.is_object()) {
        Error(item_path, absl::StrCat("must be an object, got ", TypeName(item)));
        continue;
      }
      OpaqueDeviceConfig config;
      if (with_requests) config.requests = StringList(item, "requests", item_path);
      const json* opaque = Object(item, "opaque", item_path, true);
      if (opaque == nullptr) continue;
      const std::string opaque_path = api::FieldMember(item_path, "opaque");
      config.driver = String(*opaque, "driver", opaque_path, true).value_or("");
      if (const json* parameters = Object(*opaque, "parameters", opaque_path, true)) {
        config.parameters = *parameters;
      }
      out.push_back(std::move(config));
    }
    return out;
  }

  // [{key, operator, value, effect, tolerationSeconds}]; an absent operator stays "" (the
  // server defaults it to Equal).
  std::vector<DeviceToleration> Tolerations(const json& object, absl::string_view parent) {
    std::vector<DeviceToleration> out;
    const json* list = List(object, "tolerations", parent);
    if (list == nullptr) return out;
    const std::string path = api::FieldMember(parent, "tolerations");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string item_path = api::FieldIndex(path, i);
      const json& item = (*list)[i];
      if (!item.is_object()) {
        Error(item_path, absl::StrCat("must be an object, got ", TypeName(item)));
        continue;
      }
      DeviceToleration t;
      t.key = String(item, "key", item_path, false).value_or("");
      t.op = String(item, "operator", item_path, false).value_or("");
      if (!t.op.empty() && t.op != kEqual && t.op != kExists) {
        Error(api::FieldMember(item_path, "operator"),
              absl::StrCat("must be \"Equal\" or \"Exists\", got \"", t.op, "\""));
      }
      t.value = String(item, "value", item_path, false).value_or("");
      t.effect = String(item, "effect", item_path, false).value_or("");
      t.toleration_seconds = Int(item, "tolerationSeconds", item_path);
      out.push_back(std::move(t));
    }
    return out;
  }

  // capacity: {requests: {name: quantity}}; quantities as strings (or JSON numbers, which
  // Kubernetes also accepts).
  std::map<std::string, Quantity> CapacityRequests(const json& object, absl::string_view parent) {
    std::map<std::string, Quantity> out;
    const json* capacity = Object(object, "capacity", parent, false);
    if (capacity == nullptr) return out;
    const std::string capacity_path = api::FieldMember(parent, "capacity");
    const json* requests = Object(*capacity, "requests", capacity_path, false);
    if (requests == nullptr) return out;
    const std::string path = api::FieldMember(capacity_path, "requests");
    for (auto it = requests->begin(); it != requests->end(); ++it) {
      const std::string item_path = api::FieldMember(path, it.key());
      std::optional<std::string> text = api::QuantityText(*it);
      if (!text) {
        Error(item_path, absl::StrCat("must be a quantity string, got ", TypeName(*it)));
        continue;
      }
      absl::StatusOr<Quantity> quantity = Quantity::Parse(*text);
      if (!quantity.ok()) {
        Error(item_path,
              absl::StrCat("invalid quantity \"", *text, "\": ", quantity.status().message()));
        continue;
      }
      out.emplace(it.key(), *std::move(quantity));
    }
    return out;
  }

  void Metadata(const json& obj, api::ObjectMeta* meta) {
    const json* m = Object(obj, "metadata", "", true);
    if (m == nullptr) return;
    constexpr char kPath[] = "metadata";
    meta->name = String(*m, "name", kPath, true).value_or("");
    meta->namespace_name = String(*m, "namespace", kPath, false).value_or("");
    meta->uid = String(*m, "uid", kPath, false).value_or("");
    meta->resource_version = String(*m, "resourceVersion", kPath, false).value_or("");
    meta->generation = Int(*m, "generation", kPath).value_or(0);
    meta->creation_timestamp = String(*m, "creationTimestamp", kPath, false).value_or("");
    meta->deletion_timestamp = String(*m, "deletionTimestamp", kPath, false);
    meta->labels = StringMap(*m, "labels", kPath);
    meta->annotations = StringMap(*m, "annotations", kPath);
    meta->finalizers = StringList(*m, "finalizers", kPath);
    const json* refs = List(*m, "ownerReferences", kPath);
    for (size_t i = 0; refs != nullptr && i < refs->size(); ++i) {
      const std::string path = api::FieldIndex("metadata.ownerReferences", i);
      const json& item = (*refs)[i];
      if (!item.is_object()) {
        Error(path, absl::StrCat("must be an object, got ", TypeName(item)));
        continue;
      }
      api::OwnerReference ref;
      ref.api_version = String(item, "apiVersion", path, true).value_or("");
      ref.kind = String(item, "kind", path, true).value_or("");
      ref.name = String(item, "name", path, true).value_or("");
      ref.uid = String(item, "uid", path, true).value_or("");
      ref.controller = Bool(item, "controller", path).value_or(false);
      ref.block_owner_deletion = Bool(item, "blockOwnerDeletion", path).value_or(false);
      meta->owner_references.push_back(std::move(ref));
    }
  }

  // Checks kind and apiVersion; the version, or nullopt (reported) when unusable.
  std::optional<DraApiVersion> Header(const json& obj, const char* want_kind) {
    if (std::optional<std::string> kind = String(obj, "kind", "", true);
        kind && *kind != want_kind) {
      Error("kind", absl::StrCat("expected ", want_kind, ", got \"", *kind, "\""));
    }
    std::optional<std::string> api_version = String(obj, "apiVersion", "", true);
    if (!api_version) return std::nullopt;
    absl::StatusOr<DraApiVersion> version = ParseDraApiVersion(*api_version);
    if (!version.ok() || !absl::StartsWith(*api_version, absl::StrCat(kGroup, "/"))) {
      Error("apiVersion", absl::StrCat("unsupported apiVersion \"", *api_version,
                                       "\" (supported: resource.k8s.io/v1, "
                                       "resource.k8s.io/v1beta2, resource.k8s.io/v1beta1)"));
      return std::nullopt;
    }
    return *version;
  }

 private:
  std::string label_;
  std::vector<std::string> errors_;
};

// `Kind "namespace/name"`, `Kind "name"` or `Kind <unnamed>`, from whatever metadata there is.
std::string Label(const json& obj, const char* kind) {
  std::optional<std::string> name, namespace_name;
  if (const json* meta = api::JsonMember(obj, "metadata")) {
    name = StringMember(*meta, "name");
    namespace_name = StringMember(*meta, "namespace");
  }
  if (!name || name->empty()) return absl::StrCat(kind, " <unnamed>");
  if (namespace_name && !namespace_name->empty()) {
    return absl::StrCat(kind, " \"", *namespace_name, "/", *name, "\"");
  }
  return absl::StrCat(kind, " \"", *name, "\"");
}

bool IsKind(const json& obj, const char* kind) {
  std::optional<std::string> k = StringMember(obj, "kind");
  std::optional<std::string> api_version = StringMember(obj, "apiVersion");
  return k && *k == kind && api_version &&
         absl::StartsWith(*api_version, absl::StrCat(kGroup, "/"));
}

// The request fields a v1beta1 request carries inline and v1beta2/v1 under `exactly`.
constexpr const char* kExactFields[] = {"deviceClassName", "selectors",   "allocationMode", "count",
                                        "adminAccess",     "tolerations", "capacity"};

// Reads the exact fields of `body`: the request in v1beta1, `exactly` otherwise, or one
// firstAvailable subrequest (which has no adminAccess).
void ReadExact(Decoder& d, const json& body, const std::string& path, bool subrequest,
               ExactDeviceRequest* req) {
  req->device_class_name = d.String(body, "deviceClassName", path, true).value_or("");
  req->selectors = d.Selectors(body, path);
  if (std::optional<std::string> mode = d.String(body, "allocationMode", path, false)) {
    if (*mode != kExactCount && *mode != kAll && !mode->empty()) {
      d.Error(api::FieldMember(path, "allocationMode"),
              absl::StrCat("must be \"ExactCount\" or \"All\", got \"", *mode, "\""));
    }
    req->allocation_mode = *std::move(mode);
  }
  req->count = d.Int(body, "count", path);
  if (!subrequest) req->admin_access = d.Bool(body, "adminAccess", path);
  req->tolerations = d.Tolerations(body, path);
  req->capacity_requests = d.CapacityRequests(body, path);
  // Not modelled (alpha in 1.37, never written by the operator): flagged, not decoded.
  if (NonEmptyMember(body, "derivedAttributes")) req->has_unmodelled_fields = true;
}

// firstAvailable: 1 to 8 subrequests, each {name, <exact fields but adminAccess>}.
void ReadSubrequests(Decoder& d, const json& entry, const std::string& path,
                     ExactDeviceRequest* req) {
  const json* list = d.List(entry, "firstAvailable", path);
  if (list == nullptr) return;
  const std::string list_path = api::FieldMember(path, "firstAvailable");
  if (list->empty()) {
    d.Error(list_path, "must not be empty");
    return;
  }
  if (list->size() > kMaxSubrequests) {
    d.Error(list_path, absl::StrCat("must have at most ", kMaxSubrequests, " subrequests, got ",
                                    list->size()));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = api::FieldIndex(list_path, i);
    const json& item = (*list)[i];
    if (!item.is_object()) {
      d.Error(item_path, absl::StrCat("must be an object, got ", TypeName(item)));
      continue;
    }
    ExactDeviceRequest sub;
    sub.name = d.String(item, "name", item_path, true).value_or("");
    ReadExact(d, item, item_path, /*subrequest=*/true, &sub);
    req->first_available.push_back(std::move(sub));
  }
}

ExactDeviceRequest DecodeRequest(Decoder& d, const json& entry, const std::string& path,
                                 DraApiVersion version) {
  ExactDeviceRequest req;
  req.name = d.String(entry, "name", path, true).value_or("");
  const bool has_first_available = api::JsonMember(entry, "firstAvailable") != nullptr;

  if (version == DraApiVersion::kV1beta1) {
    if (api::JsonMember(entry, "exactly") != nullptr) {
      d.Error(api::FieldMember(path, "exactly"),
              "not part of resource.k8s.io/v1beta1 (request fields sit directly on the request; "
              "\"exactly\" is resource.k8s.io/v1beta2 and v1)");
      return req;
    }
    if (!has_first_available) {
      ReadExact(d, entry, path, /*subrequest=*/false, &req);
      return req;
    }
    if (api::JsonMember(entry, "deviceClassName") != nullptr) {
      d.Error(path, "must have exactly one of deviceClassName or firstAvailable");
      return req;
    }
    for (const char* field : kExactFields) {
      if (NonEmptyMember(entry, field)) {
        d.Error(api::FieldMember(path, field),
                "must not be set with firstAvailable (each subrequest has its own)");
      }
    }
    ReadSubrequests(d, entry, path, &req);
    return req;
  }

  for (const char* field : kExactFields) {
    if (api::JsonMember(entry, field) != nullptr) {
      d.Error(api::FieldMember(path, field),
              absl::StrCat("not part of ", ToString(version),
                           " (request fields sit under \"exactly\"; flat requests are "
                           "resource.k8s.io/v1beta1)"));
      return req;
    }
  }
  const bool has_exactly = api::JsonMember(entry, "exactly") != nullptr;
  if (has_exactly == has_first_available) {
    d.Error(path, "must have exactly one of exactly or firstAvailable");
    return req;
  }
  if (has_first_available) {
    ReadSubrequests(d, entry, path, &req);
  } else if (const json* exactly = d.Object(entry, "exactly", path, false)) {
    ReadExact(d, *exactly, api::FieldMember(path, "exactly"), /*subrequest=*/false, &req);
  }
  return req;
}

// ---------------------------------------------------------------------------------------------
// Encoding

ordered_json EncodeSelectors(const std::vector<std::string>& selectors) {
  ordered_json out = ordered_json::array();
  for (const std::string& expression : selectors) {
    out.push_back({{"cel", {{"expression", expression}}}});
  }
  return out;
}

ordered_json EncodeConfig(const std::vector<OpaqueDeviceConfig>& configs, bool with_requests) {
  ordered_json out = ordered_json::array();
  for (const OpaqueDeviceConfig& config : configs) {
    ordered_json c = ordered_json::object();
    if (with_requests && !config.requests.empty()) c["requests"] = config.requests;
    ordered_json opaque = ordered_json::object();
    opaque["driver"] = config.driver;
    opaque["parameters"] =
        config.parameters.is_null() ? ordered_json::object() : ToOrdered(config.parameters);
    c["opaque"] = std::move(opaque);
    out.push_back(std::move(c));
  }
  return out;
}

ordered_json EncodeTolerations(const std::vector<DeviceToleration>& tolerations) {
  ordered_json out = ordered_json::array();
  for (const DeviceToleration& t : tolerations) {
    ordered_json entry = ordered_json::object();
    if (!t.key.empty()) entry["key"] = t.key;
    if (!t.op.empty()) entry["operator"] = t.op;
    if (!t.value.empty()) entry["value"] = t.value;
    if (!t.effect.empty()) entry["effect"] = t.effect;
    if (t.toleration_seconds) entry["tolerationSeconds"] = *t.toleration_seconds;
    out.push_back(std::move(entry));
  }
  return out;
}

// The exact fields in Go struct order; subrequests have no adminAccess.
void EncodeExactFields(const ExactDeviceRequest& req, bool subrequest, ordered_json* out) {
  (*out)["deviceClassName"] = req.device_class_name;
  if (!req.selectors.empty()) (*out)["selectors"] = EncodeSelectors(req.selectors);
  if (!req.allocation_mode.empty()) (*out)["allocationMode"] = req.allocation_mode;
  if (req.count) (*out)["count"] = *req.count;
  if (req.admin_access && !subrequest) (*out)["adminAccess"] = *req.admin_access;
  if (!req.tolerations.empty()) (*out)["tolerations"] = EncodeTolerations(req.tolerations);
  if (!req.capacity_requests.empty()) {
    ordered_json requests = ordered_json::object();
    for (const auto& [name, quantity] : req.capacity_requests) {
      requests[name] = quantity.ToString();
    }
    (*out)["capacity"] = {{"requests", std::move(requests)}};
  }
}

// {name, firstAvailable: [{name, <exact fields>}]}: the same shape in every version.
ordered_json EncodeFirstAvailable(const ExactDeviceRequest& req) {
  ordered_json subrequests = ordered_json::array();
  for (const ExactDeviceRequest& sub : req.first_available) {
    ordered_json entry = ordered_json::object();
    entry["name"] = sub.name;
    EncodeExactFields(sub, /*subrequest=*/true, &entry);
    subrequests.push_back(std::move(entry));
  }
  return subrequests;
}

// ---------------------------------------------------------------------------------------------
// Comparison

const json& Parameters(const OpaqueDeviceConfig& config) {
  static const json* const kEmpty = new json(json::object());
  return config.parameters.is_null() ? *kEmpty : config.parameters;
}

bool SameConfig(const std::vector<OpaqueDeviceConfig>& a, const std::vector<OpaqueDeviceConfig>& b,
                bool with_requests) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].driver != b[i].driver || Parameters(a[i]) != Parameters(b[i])) return false;
    if (with_requests && a[i].requests != b[i].requests) return false;
  }
  return true;
}

// allocationMode and count as the server stores them after defaulting.
std::string StoredMode(const ExactDeviceRequest& req) {
  return req.allocation_mode.empty() ? kExactCount : req.allocation_mode;
}
std::optional<int64_t> StoredCount(const ExactDeviceRequest& req) {
  const int64_t count = req.count.value_or(0);
  if (StoredMode(req) == kExactCount && count == 0) return 1;
  if (count == 0) return std::nullopt;
  return count;
}

// A toleration as the server stores it: an empty operator is Equal.
bool SameToleration(const DeviceToleration& a, const DeviceToleration& b) {
  const absl::string_view op_a = a.op.empty() ? kEqual : a.op;
  const absl::string_view op_b = b.op.empty() ? kEqual : b.op;
  return a.key == b.key && op_a == op_b && a.value == b.value && a.effect == b.effect &&
         a.toleration_seconds == b.toleration_seconds;
}

bool SameTolerations(const std::vector<DeviceToleration>& a,
                     const std::vector<DeviceToleration>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), SameToleration);
}

// The exact fields (of a request or a subrequest) after server defaulting; capacity quantities
// compare by value (Quantity::operator==), so "1Gi" equals "1024Mi".
bool SameExactFields(const ExactDeviceRequest& desired, const ExactDeviceRequest& actual) {
  return desired.device_class_name == actual.device_class_name &&
         desired.selectors == actual.selectors && StoredMode(desired) == StoredMode(actual) &&
         StoredCount(desired) == StoredCount(actual) &&
         desired.admin_access.value_or(false) == actual.admin_access.value_or(false) &&
         SameTolerations(desired.tolerations, actual.tolerations) &&
         desired.capacity_requests == actual.capacity_requests;
}

bool SameRequest(const ExactDeviceRequest& desired, const ExactDeviceRequest& actual) {
  if (desired.has_unmodelled_fields || actual.has_unmodelled_fields) return false;
  if (desired.name != actual.name) return false;
  if (desired.first_available.empty() != actual.first_available.empty()) return false;
  if (desired.first_available.empty()) return SameExactFields(desired, actual);
  return std::equal(desired.first_available.begin(), desired.first_available.end(),
                    actual.first_available.begin(), actual.first_available.end(),
                    [](const ExactDeviceRequest& d, const ExactDeviceRequest& a) {
                      return !d.has_unmodelled_fields && !a.has_unmodelled_fields &&
                             d.name == a.name && SameExactFields(d, a);
                    });
}

}  // namespace

bool HasExtendedResourceNameField(DraApiVersion version, const KubeVersion& kube) {
  return kube.minor >= 34 && CheckServedVersion(kube, version).ok();
}

ordered_json EncodeDeviceClass(const DeviceClass& device_class, DraApiVersion version,
                               const KubeVersion& kube, bool include_server_fields) {
  ordered_json out = ordered_json::object();
  out["apiVersion"] = ToString(version);
  out["kind"] = kDeviceClassKind;
  out["metadata"] = api::EncodeObjectMeta(device_class.metadata, include_server_fields);
  ordered_json spec = ordered_json::object();
  if (!device_class.selectors.empty()) spec["selectors"] = EncodeSelectors(device_class.selectors);
  if (!device_class.config.empty()) spec["config"] = EncodeConfig(device_class.config, false);
  if (device_class.extended_resource_name && HasExtendedResourceNameField(version, kube)) {
    spec["extendedResourceName"] = *device_class.extended_resource_name;
  }
  out["spec"] = std::move(spec);
  return out;
}

ordered_json EncodeResourceClaimTemplate(const ResourceClaimTemplate& rct, DraApiVersion version,
                                         const KubeVersion& kube, bool include_server_fields) {
  ordered_json out = ordered_json::object();
  out["apiVersion"] = ToString(version);
  out["kind"] = kTemplateKind;
  out["metadata"] = api::EncodeObjectMeta(rct.metadata, include_server_fields);

  ordered_json requests = ordered_json::array();
  for (const ExactDeviceRequest& req : rct.requests) {
    ordered_json r = ordered_json::object();
    r["name"] = req.name;
    if (!req.first_available.empty()) {
      r["firstAvailable"] = EncodeFirstAvailable(req);
    } else if (version == DraApiVersion::kV1beta1) {
      EncodeExactFields(req, /*subrequest=*/false, &r);
    } else {
      ordered_json exactly = ordered_json::object();
      EncodeExactFields(req, /*subrequest=*/false, &exactly);
      r["exactly"] = std::move(exactly);
    }
    requests.push_back(std::move(r));
  }
  ordered_json devices = ordered_json::object();
  if (!requests.empty()) devices["requests"] = std::move(requests);
  if (!rct.config.empty()) devices["config"] = EncodeConfig(rct.config, true);

  ordered_json spec = ordered_json::object();
  if (!rct.claim_labels.empty() || !rct.claim_annotations.empty()) {
    ordered_json claim_meta = ordered_json::object();
    if (!rct.claim_labels.empty()) claim_meta["labels"] = rct.claim_labels;
    if (!rct.claim_annotations.empty()) claim_meta["annotations"] = rct.claim_annotations;
    spec["metadata"] = std::move(claim_meta);
  }
  spec["spec"] = {{"devices", std::move(devices)}};
  out["spec"] = std::move(spec);
  return out;
}

bool IsDeviceClass(const json& obj) { return IsKind(obj, kDeviceClassKind); }
bool IsResourceClaimTemplate(const json& obj) { return IsKind(obj, kTemplateKind); }

absl::StatusOr<DeviceClass> DecodeDeviceClass(const json& obj) {
  Decoder d(Label(obj, kDeviceClassKind));
  if (!obj.is_object()) {
    d.Error("(root)", absl::StrCat("must be an object, got ", TypeName(obj)));
    return d.status();
  }
  if (!d.Header(obj, kDeviceClassKind)) return d.status();
  DeviceClass out;
  d.Metadata(obj, &out.metadata);
  if (const json* spec = d.Object(obj, "spec", "", true)) {
    out.selectors = d.Selectors(*spec, "spec");
    out.config = d.Configs(*spec, "spec", false);
    out.extended_resource_name = d.String(*spec, "extendedResourceName", "spec", false);
  }
  if (!d.ok()) return d.status();
  return out;
}

absl::StatusOr<ResourceClaimTemplate> DecodeResourceClaimTemplate(const json& obj) {
  Decoder d(Label(obj, kTemplateKind));
  if (!obj.is_object()) {
    d.Error("(root)", absl::StrCat("must be an object, got ", TypeName(obj)));
    return d.status();
  }
  std::optional<DraApiVersion> version = d.Header(obj, kTemplateKind);
  if (!version) return d.status();
  ResourceClaimTemplate out;
  d.Metadata(obj, &out.metadata);
  const json* spec = d.Object(obj, "spec", "", true);
  if (spec == nullptr) return d.status();
  if (const json* claim_meta = d.Object(*spec, "metadata", "spec", false)) {
    out.claim_labels = d.StringMap(*claim_meta, "labels", "spec.metadata");
    out.claim_annotations = d.StringMap(*claim_meta, "annotations", "spec.metadata");
  }
  const json* claim_spec = d.Object(*spec, "spec", "spec", true);
  const json* devices =
      claim_spec == nullptr ? nullptr : d.Object(*claim_spec, "devices", "spec.spec", false);
  if (devices != nullptr) {
    constexpr char kDevices[] = "spec.spec.devices";
    if (const json* requests = d.List(*devices, "requests", kDevices)) {
      for (size_t i = 0; i < requests->size(); ++i) {
        const std::string path = api::FieldIndex("spec.spec.devices.requests", i);
        const json& entry = (*requests)[i];
        if (!entry.is_object()) {
          d.Error(path, absl::StrCat("must be an object, got ", TypeName(entry)));
          continue;
        }
        out.requests.push_back(DecodeRequest(d, entry, path, *version));
      }
    }
    if (const json* constraints = d.List(*devices, "constraints", kDevices)) {
      out.has_constraints = !constraints->empty();
    }
    out.config = d.Configs(*devices, kDevices, true);
  }
  if (!d.ok()) return d.status();
  return out;
}

bool SameDesiredState(const ResourceClaimTemplate& desired, const ResourceClaimTemplate& actual) {
  if (desired.has_constraints != actual.has_constraints) return false;
  if (!api::SameDesiredMetadata(desired.metadata, actual.metadata)) return false;
  if (desired.claim_labels != actual.claim_labels ||
      desired.claim_annotations != actual.claim_annotations) {
    return false;
  }
  if (desired.requests.size() != actual.requests.size()) return false;
  for (size_t i = 0; i < desired.requests.size(); ++i) {
    if (!SameRequest(desired.requests[i], actual.requests[i])) return false;
  }
  return SameConfig(desired.config, actual.config, true);
}

bool SameDesiredState(const DeviceClass& desired, const DeviceClass& actual,
                      bool extended_resource_name_served) {
  if (!api::SameDesiredMetadata(desired.metadata, actual.metadata)) return false;
  if (desired.selectors != actual.selectors) return false;
  if (!SameConfig(desired.config, actual.config, false)) return false;
  if (desired.extended_resource_name == actual.extended_resource_name) return true;
  return desired.extended_resource_name && !actual.extended_resource_name &&
         !extended_resource_name_served;
}

}  // namespace gpuprofile::dra
