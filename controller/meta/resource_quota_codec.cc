// File: controller/meta/resource_quota_codec.cc
#include "controller/meta/resource_quota_codec.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/core/quantity.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::meta {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr char kApiVersion[] = "v1";
constexpr char kKind[] = "ResourceQuota";

void DecodeHard(const json& hard, absl::string_view path, FieldErrors* errors,
                std::map<std::string, Quantity>* out) {
  if (!CheckObject(hard, path, errors)) return;
  for (auto it = hard.begin(); it != hard.end(); ++it) {
    const std::string item_path = FieldKey(path, it.key());
    if (it->is_null()) continue;  // null counts as absent
    std::optional<std::string> text = QuantityText(*it);
    if (!text) {
      errors->Add(item_path, absl::StrCat("must be a quantity string, got ", JsonTypeName(*it)));
      continue;
    }
    absl::StatusOr<Quantity> quantity = Quantity::Parse(*text);
    if (!quantity.ok()) {
      errors->AddInvalid(item_path, *text, quantity.status().message());
      continue;
    }
    out->emplace(it.key(), *std::move(quantity));
  }
}

}  // namespace

bool IsResourceQuota(const json& object) {
  return object.is_object() && MemberEquals(object, "apiVersion", kApiVersion) &&
         MemberEquals(object, "kind", kKind);
}

ordered_json EncodeResourceQuota(const ResourceQuota& quota, bool include_server_fields) {
  ordered_json out = ordered_json::object();
  out["apiVersion"] = kApiVersion;
  out["kind"] = kKind;
  out["metadata"] = EncodeObjectMeta(quota.metadata, include_server_fields);
  ordered_json spec = ordered_json::object();
  if (!quota.hard.empty()) {
    ordered_json hard = ordered_json::object();
    for (const auto& [name, quantity] : quota.hard) hard[name] = quantity.ToString();
    spec["hard"] = std::move(hard);
  }
  out["spec"] = std::move(spec);
  return out;
}

absl::StatusOr<ResourceQuota> DecodeResourceQuota(const json& object) {
  FieldErrors errors;
  if (!CheckObject(object, "(root)", &errors)) return errors.ToStatus(ObjectLabel(object, kKind));
  if (std::optional<std::string> api_version = StringField(object, "apiVersion", "", true, &errors);
      api_version && *api_version != kApiVersion) {
    errors.Add("apiVersion", absl::StrCat("expected \"v1\", got ", QuoteForMessage(*api_version)));
  }
  if (std::optional<std::string> kind = StringField(object, "kind", "", true, &errors);
      kind && *kind != kKind) {
    errors.Add("kind", absl::StrCat("expected \"ResourceQuota\", got ", QuoteForMessage(*kind)));
  }
  ResourceQuota quota;
  if (const json* metadata = ObjectField(object, "metadata", "", true, &errors)) {
    quota.metadata = DecodeObjectMeta(*metadata, "metadata", &errors);
    const json* name = JsonMember(*metadata, "name");
    if (quota.metadata.name.empty() && (name == nullptr || name->is_string())) {
      errors.Add("metadata.name", "required");
    }
  }
  if (const json* spec = ObjectField(object, "spec", "", false, &errors)) {
    if (const json* hard = JsonMember(*spec, "hard")) {
      DecodeHard(*hard, "spec.hard", &errors, &quota.hard);
    }
    if (const json* scopes = JsonMember(*spec, "scopes")) {
      quota.has_scopes = !ReadStringList(*scopes, "spec.scopes", &errors).empty();
    }
    if (const json* selector = ObjectField(*spec, "scopeSelector", "spec", false, &errors)) {
      quota.has_scopes = quota.has_scopes || !selector->empty();
    }
  }
  if (!errors.empty()) return errors.ToStatus(ObjectLabel(object, kKind));
  return quota;
}

bool SameDesiredState(const ResourceQuota& desired, const ResourceQuota& actual) {
  if (desired.has_scopes || actual.has_scopes) return false;
  return SameDesiredMetadata(desired.metadata, actual.metadata) && desired.hard == actual.hard;
}

}  // namespace gpuprofile::meta
