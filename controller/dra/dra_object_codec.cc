// File: controller/dra/dra_object_codec.cc
// DeviceClass / ResourceClaimTemplate JSON per resource.k8s.io version, with the field codec
// (controller/meta/field_codec.h): one FieldErrors per object collects every problem with its
// field path (as resource_slice.cc does), and its messages call arrays "list" (ArrayWording);
// unknown fields are ignored on purpose. ObjectMeta is decoded here (errors carry the object's
// label, as every other path of these kinds does), encoded and compared with object_meta_codec.
#include "controller/dra/dra_object_codec.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/core/quantity.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/json_object.h"
#include "controller/meta/object_meta.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::dra {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr char kGroup[] = "resource.k8s.io";
constexpr char kDeviceClassKind[] = "DeviceClass";
constexpr char kTemplateKind[] = "ResourceClaimTemplate";
constexpr char kAllocationModeExactCount[] = "ExactCount";
constexpr char kAllocationModeAll[] = "All";
constexpr char kEqual[] = "Equal";
constexpr char kExists[] = "Exists";
// DeviceRequest.firstAvailable holds at most this many subrequests (all versions).
constexpr size_t kMaxSubrequests = 8;

// ---------------------------------------------------------------------------------------------
// JSON helpers

// Present with a value Go's omitempty would print: not null, not an empty list or object.
bool NonEmptyMember(const json& object, const char* key) {
  const json* value = meta::JsonMember(object, key);
  if (value == nullptr) return false;
  if (value->is_array() || value->is_object()) return !value->empty();
  return true;
}

std::optional<std::string> StringMember(const json& object, const char* key) {
  const json* value = meta::JsonMember(object, key);
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

using meta::FieldErrors;

// A list of strings (absent: empty); elements of another type are reported and skipped.
std::vector<std::string> StringList(const json& object, const char* key, absl::string_view parent,
                                    FieldErrors* errors) {
  const json* list = meta::ArrayField(object, key, parent, false, errors);
  if (list == nullptr) return {};
  return meta::ReadStringList(*list, meta::FieldMember(parent, key), errors);
}

// An object of strings (absent: empty), entries at `path.key` or `path[key]` (FieldMember).
std::map<std::string, std::string> StringMap(const json& object, const char* key,
                                             absl::string_view parent, FieldErrors* errors) {
  std::map<std::string, std::string> out;
  const json* map = meta::ObjectField(object, key, parent, false, errors);
  if (map == nullptr) return out;
  const std::string path = meta::FieldMember(parent, key);
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (std::optional<std::string> s =
            meta::ReadString(*it, meta::FieldMember(path, it.key()), errors)) {
      out.emplace(it.key(), *std::move(s));
    }
  }
  return out;
}

// [{cel: {expression}}] → the expressions.
std::vector<std::string> Selectors(const json& object, absl::string_view parent,
                                   FieldErrors* errors) {
  std::vector<std::string> out;
  meta::ForEachObject(object, "selectors", parent, errors,
                      [&](const json& item, const std::string& path) {
                        const json* cel = meta::ObjectField(item, "cel", path, true, errors);
                        if (cel == nullptr) return;
                        if (std::optional<std::string> expression = meta::StringField(
                                *cel, "expression", meta::FieldMember(path, "cel"), true, errors)) {
                          out.push_back(*std::move(expression));
                        }
                      });
  return out;
}

// [{requests?, opaque: {driver, parameters}}]; `requests` only on claim configs.
std::vector<OpaqueDeviceConfig> Configs(const json& object, absl::string_view parent,
                                        bool with_requests, FieldErrors* errors) {
  std::vector<OpaqueDeviceConfig> out;
  meta::ForEachObject(
      object, "config", parent, errors, [&](const json& item, const std::string& path) {
        OpaqueDeviceConfig config;
        if (with_requests) config.requests = StringList(item, "requests", path, errors);
        const json* opaque = meta::ObjectField(item, "opaque", path, true, errors);
        if (opaque == nullptr) return;
        const std::string opaque_path = meta::FieldMember(path, "opaque");
        config.driver =
            meta::StringField(*opaque, "driver", opaque_path, true, errors).value_or("");
        if (const json* parameters =
                meta::ObjectField(*opaque, "parameters", opaque_path, true, errors)) {
          config.parameters = *parameters;
        }
        out.push_back(std::move(config));
      });
  return out;
}

// [{key, operator, value, effect, tolerationSeconds}]; an absent operator stays "" (the
// server defaults it to Equal).
std::vector<DeviceToleration> Tolerations(const json& object, absl::string_view parent,
                                          FieldErrors* errors) {
  std::vector<DeviceToleration> out;
  meta::ForEachObject(
      object, "tolerations", parent, errors, [&](const json& item, const std::string& path) {
        DeviceToleration t;
        t.key = meta::StringField(item, "key", path, false, errors).value_or("");
        t.op = meta::StringField(item, "operator", path, false, errors).value_or("");
        if (!t.op.empty() && t.op != kEqual && t.op != kExists) {
          errors->Add(meta::FieldMember(path, "operator"),
                      absl::StrCat("must be \"Equal\" or \"Exists\", got \"", t.op, "\""));
        }
        t.value = meta::StringField(item, "value", path, false, errors).value_or("");
        t.effect = meta::StringField(item, "effect", path, false, errors).value_or("");
        t.toleration_seconds = meta::IntField(item, "tolerationSeconds", path, false, errors);
        out.push_back(std::move(t));
      });
  return out;
}

// capacity: {requests: {name: quantity}}; quantities as strings (or JSON numbers, which
// Kubernetes also accepts).
std::map<std::string, Quantity> CapacityRequests(const json& object, absl::string_view parent,
                                                 FieldErrors* errors) {
  std::map<std::string, Quantity> out;
  const json* capacity = meta::ObjectField(object, "capacity", parent, false, errors);
  if (capacity == nullptr) return out;
  const std::string capacity_path = meta::FieldMember(parent, "capacity");
  const json* requests = meta::ObjectField(*capacity, "requests", capacity_path, false, errors);
  if (requests == nullptr) return out;
  const std::string path = meta::FieldMember(capacity_path, "requests");
  for (auto it = requests->begin(); it != requests->end(); ++it) {
    const std::string item_path = meta::FieldMember(path, it.key());
    std::optional<std::string> text = meta::QuantityText(*it);
    if (!text) {
      errors->Add(item_path,
                  absl::StrCat("must be a quantity string, got ", errors->TypeName(*it)));
      continue;
    }
    absl::StatusOr<Quantity> quantity = Quantity::Parse(*text);
    if (!quantity.ok()) {
      errors->Add(item_path,
                  absl::StrCat("invalid quantity \"", *text, "\": ", quantity.status().message()));
      continue;
    }
    out.emplace(it.key(), *std::move(quantity));
  }
  return out;
}

void Metadata(const json& obj, meta::ObjectMeta* meta, FieldErrors* errors) {
  const json* m = meta::ObjectField(obj, "metadata", "", true, errors);
  if (m == nullptr) return;
  constexpr char kPath[] = "metadata";
  meta->name = meta::StringField(*m, "name", kPath, true, errors).value_or("");
  meta->namespace_name = meta::StringField(*m, "namespace", kPath, false, errors).value_or("");
  meta->uid = meta::StringField(*m, "uid", kPath, false, errors).value_or("");
  meta->resource_version =
      meta::StringField(*m, "resourceVersion", kPath, false, errors).value_or("");
  meta->generation = meta::IntField(*m, "generation", kPath, false, errors).value_or(0);
  meta->creation_timestamp =
      meta::StringField(*m, "creationTimestamp", kPath, false, errors).value_or("");
  meta->deletion_timestamp = meta::StringField(*m, "deletionTimestamp", kPath, false, errors);
  meta->labels = StringMap(*m, "labels", kPath, errors);
  meta->annotations = StringMap(*m, "annotations", kPath, errors);
  meta->finalizers = StringList(*m, "finalizers", kPath, errors);
  meta::ForEachObject(
      *m, "ownerReferences", kPath, errors, [&](const json& item, const std::string& path) {
        meta::OwnerReference ref;
        ref.api_version = meta::StringField(item, "apiVersion", path, true, errors).value_or("");
        ref.kind = meta::StringField(item, "kind", path, true, errors).value_or("");
        ref.name = meta::StringField(item, "name", path, true, errors).value_or("");
        ref.uid = meta::StringField(item, "uid", path, true, errors).value_or("");
        ref.controller = meta::BoolField(item, "controller", path, errors).value_or(false);
        ref.block_owner_deletion =
            meta::BoolField(item, "blockOwnerDeletion", path, errors).value_or(false);
        meta->owner_references.push_back(std::move(ref));
      });
}

// Checks kind and apiVersion; the version, or nullopt (reported) when unusable.
std::optional<DraApiVersion> ReadObjectHeader(const json& obj, const char* want_kind,
                                              FieldErrors* errors) {
  if (std::optional<std::string> kind = meta::StringField(obj, "kind", "", true, errors);
      kind && *kind != want_kind) {
    errors->Add("kind", absl::StrCat("expected ", want_kind, ", got \"", *kind, "\""));
  }
  std::optional<std::string> api_version = meta::StringField(obj, "apiVersion", "", true, errors);
  if (!api_version) return std::nullopt;
  absl::StatusOr<DraApiVersion> version = ParseDraApiVersion(*api_version);
  if (!version.ok() || !absl::StartsWith(*api_version, absl::StrCat(kGroup, "/"))) {
    errors->Add("apiVersion", absl::StrCat("unsupported apiVersion \"", *api_version,
                                           "\" (supported: resource.k8s.io/v1, "
                                           "resource.k8s.io/v1beta2, resource.k8s.io/v1beta1)"));
    return std::nullopt;
  }
  return *version;
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
void ReadExactRequest(const json& body, const std::string& path, bool subrequest,
                      ExactDeviceRequest* req, FieldErrors* errors) {
  req->device_class_name =
      meta::StringField(body, "deviceClassName", path, true, errors).value_or("");
  req->selectors = Selectors(body, path, errors);
  if (std::optional<std::string> mode =
          meta::StringField(body, "allocationMode", path, false, errors)) {
    if (*mode != kAllocationModeExactCount && *mode != kAllocationModeAll && !mode->empty()) {
      errors->Add(meta::FieldMember(path, "allocationMode"),
                  absl::StrCat("must be \"ExactCount\" or \"All\", got \"", *mode, "\""));
    }
    req->allocation_mode = *std::move(mode);
  }
  req->count = meta::IntField(body, "count", path, false, errors);
  if (!subrequest) req->admin_access = meta::BoolField(body, "adminAccess", path, errors);
  req->tolerations = Tolerations(body, path, errors);
  req->capacity_requests = CapacityRequests(body, path, errors);
  // Not modelled (alpha in 1.37, never written by the operator): flagged, not decoded.
  if (NonEmptyMember(body, "derivedAttributes")) req->has_unmodelled_fields = true;
}

// firstAvailable: 1 to 8 subrequests, each {name, <exact fields but adminAccess>}.
void ReadSubrequests(const json& entry, const std::string& path, ExactDeviceRequest* req,
                     FieldErrors* errors) {
  const json* list = meta::ArrayField(entry, "firstAvailable", path, false, errors);
  if (list == nullptr) return;
  const std::string list_path = meta::FieldMember(path, "firstAvailable");
  if (list->empty()) {
    errors->Add(list_path, "must not be empty");
    return;
  }
  if (list->size() > kMaxSubrequests) {
    errors->Add(list_path, absl::StrCat("must have at most ", kMaxSubrequests, " subrequests, got ",
                                        list->size()));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = meta::FieldIndex(list_path, i);
    const json& item = (*list)[i];
    if (!meta::CheckObject(item, item_path, errors)) continue;
    ExactDeviceRequest sub;
    sub.name = meta::StringField(item, "name", item_path, true, errors).value_or("");
    ReadExactRequest(item, item_path, /*subrequest=*/true, &sub, errors);
    req->first_available.push_back(std::move(sub));
  }
}

ExactDeviceRequest DecodeRequest(const json& entry, const std::string& path, DraApiVersion version,
                                 FieldErrors* errors) {
  ExactDeviceRequest req;
  req.name = meta::StringField(entry, "name", path, true, errors).value_or("");
  const bool has_first_available = meta::JsonMember(entry, "firstAvailable") != nullptr;

  if (version == DraApiVersion::kV1beta1) {
    if (meta::JsonMember(entry, "exactly") != nullptr) {
      errors->Add(
          meta::FieldMember(path, "exactly"),
          "not part of resource.k8s.io/v1beta1 (request fields sit directly on the request; "
          "\"exactly\" is resource.k8s.io/v1beta2 and v1)");
      return req;
    }
    if (!has_first_available) {
      ReadExactRequest(entry, path, /*subrequest=*/false, &req, errors);
      return req;
    }
    if (meta::JsonMember(entry, "deviceClassName") != nullptr) {
      errors->Add(path, "must have exactly one of deviceClassName or firstAvailable");
      return req;
    }
    for (const char* field : kExactFields) {
      if (NonEmptyMember(entry, field)) {
        errors->Add(meta::FieldMember(path, field),
                    "must not be set with firstAvailable (each subrequest has its own)");
      }
    }
    ReadSubrequests(entry, path, &req, errors);
    return req;
  }

  for (const char* field : kExactFields) {
    if (meta::JsonMember(entry, field) != nullptr) {
      errors->Add(meta::FieldMember(path, field),
                  absl::StrCat("not part of ", ToString(version),
                               " (request fields sit under \"exactly\"; flat requests are "
                               "resource.k8s.io/v1beta1)"));
      return req;
    }
  }
  const bool has_exactly = meta::JsonMember(entry, "exactly") != nullptr;
  if (has_exactly == has_first_available) {
    errors->Add(path, "must have exactly one of exactly or firstAvailable");
    return req;
  }
  if (has_first_available) {
    ReadSubrequests(entry, path, &req, errors);
  } else if (const json* exactly = meta::ObjectField(entry, "exactly", path, false, errors)) {
    ReadExactRequest(*exactly, meta::FieldMember(path, "exactly"), /*subrequest=*/false, &req,
                     errors);
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
    ordered_json entry = meta::ObjectWithRoom(8);
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
  return req.allocation_mode.empty() ? kAllocationModeExactCount : req.allocation_mode;
}
std::optional<int64_t> StoredCount(const ExactDeviceRequest& req) {
  const int64_t count = req.count.value_or(0);
  if (StoredMode(req) == kAllocationModeExactCount && count == 0) return 1;
  if (count == 0) return std::nullopt;
  return count;
}

// A toleration as the server stores it: an empty operator is Equal.
bool SameToleration(const DeviceToleration& a, const DeviceToleration& b) {
  // Both arms as string_view: a `char[]` and a std::string would make a temporary string.
  const absl::string_view op_a = a.op.empty() ? absl::string_view(kEqual) : a.op;
  const absl::string_view op_b = b.op.empty() ? absl::string_view(kEqual) : b.op;
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
  ordered_json out = meta::ObjectWithRoom(4);
  out["apiVersion"] = ToString(version);
  out["kind"] = kDeviceClassKind;
  out["metadata"] = meta::EncodeObjectMeta(device_class.metadata, include_server_fields);
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
  ordered_json out = meta::ObjectWithRoom(4);
  out["apiVersion"] = ToString(version);
  out["kind"] = kTemplateKind;
  out["metadata"] = meta::EncodeObjectMeta(rct.metadata, include_server_fields);

  ordered_json requests = ordered_json::array();
  for (const ExactDeviceRequest& req : rct.requests) {
    ordered_json r = meta::ObjectWithRoom(8);  // name and the exact fields
    r["name"] = req.name;
    if (!req.first_available.empty()) {
      r["firstAvailable"] = EncodeFirstAvailable(req);
    } else if (version == DraApiVersion::kV1beta1) {
      EncodeExactFields(req, /*subrequest=*/false, &r);
    } else {
      ordered_json exactly = meta::ObjectWithRoom(7);
      EncodeExactFields(req, /*subrequest=*/false, &exactly);
      r["exactly"] = std::move(exactly);
    }
    requests.push_back(std::move(r));
  }
  ordered_json devices = ordered_json::object();
  if (!requests.empty()) devices["requests"] = std::move(requests);
  if (!rct.config.empty()) devices["config"] = EncodeConfig(rct.config, true);

  ordered_json spec = meta::ObjectWithRoom(2);
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
  const std::string label = meta::ObjectLabel(obj, kDeviceClassKind);
  FieldErrors errors(meta::ArrayWording::kList);
  if (!meta::CheckObject(obj, "(root)", &errors)) return errors.ToStatus(label);
  if (!ReadObjectHeader(obj, kDeviceClassKind, &errors)) return errors.ToStatus(label);
  DeviceClass out;
  Metadata(obj, &out.metadata, &errors);
  if (const json* spec = meta::ObjectField(obj, "spec", "", true, &errors)) {
    out.selectors = Selectors(*spec, "spec", &errors);
    out.config = Configs(*spec, "spec", false, &errors);
    out.extended_resource_name =
        meta::StringField(*spec, "extendedResourceName", "spec", false, &errors);
  }
  if (!errors.empty()) return errors.ToStatus(label);
  return out;
}

absl::StatusOr<ResourceClaimTemplate> DecodeResourceClaimTemplate(const json& obj) {
  const std::string label = meta::ObjectLabel(obj, kTemplateKind);
  FieldErrors errors(meta::ArrayWording::kList);
  if (!meta::CheckObject(obj, "(root)", &errors)) return errors.ToStatus(label);
  std::optional<DraApiVersion> version = ReadObjectHeader(obj, kTemplateKind, &errors);
  if (!version) return errors.ToStatus(label);
  ResourceClaimTemplate out;
  Metadata(obj, &out.metadata, &errors);
  const json* spec = meta::ObjectField(obj, "spec", "", true, &errors);
  if (spec == nullptr) return errors.ToStatus(label);
  if (const json* claim_meta = meta::ObjectField(*spec, "metadata", "spec", false, &errors)) {
    out.claim_labels = StringMap(*claim_meta, "labels", "spec.metadata", &errors);
    out.claim_annotations = StringMap(*claim_meta, "annotations", "spec.metadata", &errors);
  }
  const json* claim_spec = meta::ObjectField(*spec, "spec", "spec", true, &errors);
  const json* devices = claim_spec == nullptr ? nullptr
                                              : meta::ObjectField(*claim_spec, "devices",
                                                                  "spec.spec", false, &errors);
  if (devices != nullptr) {
    constexpr char kDevices[] = "spec.spec.devices";
    meta::ForEachObject(*devices, "requests", kDevices, &errors,
                        [&](const json& entry, const std::string& path) {
                          out.requests.push_back(DecodeRequest(entry, path, *version, &errors));
                        });
    if (const json* constraints =
            meta::ArrayField(*devices, "constraints", kDevices, false, &errors)) {
      out.has_constraints = !constraints->empty();
    }
    out.config = Configs(*devices, kDevices, true, &errors);
  }
  if (!errors.empty()) return errors.ToStatus(label);
  return out;
}

bool SameDesiredState(const ResourceClaimTemplate& desired, const ResourceClaimTemplate& actual) {
  if (desired.has_constraints != actual.has_constraints) return false;
  if (!meta::SameDesiredMetadata(desired.metadata, actual.metadata)) return false;
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
  if (!meta::SameDesiredMetadata(desired.metadata, actual.metadata)) return false;
  if (desired.selectors != actual.selectors) return false;
  if (!SameConfig(desired.config, actual.config, false)) return false;
  if (desired.extended_resource_name == actual.extended_resource_name) return true;
  return desired.extended_resource_name && !actual.extended_resource_name &&
         !extended_resource_name_served;
}

}  // namespace gpuprofile::dra
