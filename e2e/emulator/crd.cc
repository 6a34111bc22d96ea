// File: e2e/emulator/crd.cc
#include "e2e/emulator/crd.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "absl/strings/str_cat.h"
#include "e2e/emulator/object_store.h"
#include "e2e/emulator/selectors.h"

namespace gpuprofile::e2e {

std::vector<StatusCause> ValidateCrd(const nlohmann::json& crd) {
  std::vector<StatusCause> causes;
  std::string group = FieldString(crd, "spec.group");
  std::string plural = FieldString(crd, "spec.names.plural");
  std::string kind = FieldString(crd, "spec.names.kind");
  std::string scope = FieldString(crd, "spec.scope");
  if (group.empty()) {
    causes.push_back(FieldRequired("spec.group"));
  } else if (group.find('.') == std::string::npos) {
    causes.push_back(FieldInvalid("spec.group", group, "should be a domain with at least one dot"));
  }
  if (plural.empty()) causes.push_back(FieldRequired("spec.names.plural"));
  if (kind.empty()) causes.push_back(FieldRequired("spec.names.kind"));
  if (scope != "Namespaced" && scope != "Cluster") {
    causes.push_back(FieldNotSupported("spec.scope", scope, {"Cluster", "Namespaced"}));
  }
  if (!plural.empty() && !group.empty() && NameOf(crd) != plural + "." + group) {
    causes.push_back(
        FieldInvalid("metadata.name", NameOf(crd), "must be spec.names.plural+\".\"+spec.group"));
  }
  const nlohmann::json* versions = Lookup(crd, "spec.versions");
  if (!versions || !versions->is_array() || versions->empty()) {
    causes.push_back(FieldInvalid("spec.versions", nlohmann::json::array(),
                                  "must have exactly one version marked as storage version"));
    return causes;
  }
  int storage = 0;
  for (size_t i = 0; i < versions->size(); ++i) {
    const nlohmann::json& v = (*versions)[i];
    if (v.is_object() && v.value("storage", false)) ++storage;
    if (!Lookup(v, "schema.openAPIV3Schema")) {
      causes.push_back(FieldRequired(absl::StrCat("spec.versions[", i, "].schema.openAPIV3Schema"),
                                     "schemas are required"));
    }
    if (FieldString(v, "name").empty()) {
      causes.push_back(FieldRequired(absl::StrCat("spec.versions[", i, "].name")));
    }
  }
  if (storage != 1) {
    causes.push_back(FieldInvalid("spec.versions", *versions,
                                  "must have exactly one version marked as storage version"));
  }
  return causes;
}

ResourceType CrdType(const nlohmann::json& crd) {
  ResourceType t;
  t.group = FieldString(crd, "spec.group");
  t.resource = FieldString(crd, "spec.names.plural");
  t.kind = FieldString(crd, "spec.names.kind");
  t.singular = FieldString(crd, "spec.names.singular");
  if (t.singular.empty()) {
    t.singular = t.kind;
    for (char& c : t.singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  t.list_kind = FieldString(crd, "spec.names.listKind");
  if (t.list_kind.empty()) t.list_kind = t.kind + "List";
  t.storage_key = t.resource + "." + t.group;
  t.namespaced = FieldString(crd, "spec.scope") == "Namespaced";
  t.tracks_generation = true;
  t.is_custom = true;
  t.crd_name = NameOf(crd);
  if (const nlohmann::json* s = Lookup(crd, "spec.names.shortNames"); s && s->is_array()) {
    for (const auto& v : *s) {
      if (v.is_string()) t.short_names.push_back(v.get<std::string>());
    }
  }
  if (const nlohmann::json* s = Lookup(crd, "spec.names.categories"); s && s->is_array()) {
    for (const auto& v : *s) {
      if (v.is_string()) t.categories.push_back(v.get<std::string>());
    }
  }
  const nlohmann::json* versions = Lookup(crd, "spec.versions");
  std::string storage_version;
  if (versions && versions->is_array()) {
    for (const auto& v : *versions) {
      if (!v.is_object() || !v.value("served", true)) continue;
      std::string name = v.value("name", "");
      t.versions.push_back(name);
      if (const nlohmann::json* s = Lookup(v, "schema.openAPIV3Schema")) t.schemas[name] = *s;
      if (Lookup(v, "subresources.status")) t.status_subresource = true;
      if (v.value("storage", false)) storage_version = name;
      const nlohmann::json* cols = Lookup(v, "additionalPrinterColumns");
      if (cols && cols->is_array() && (t.columns.empty() || v.value("storage", false))) {
        t.columns.clear();
        for (const auto& c : *cols) {
          PrinterColumn pc;
          pc.name = c.value("name", "");
          pc.type = c.value("type", "string");
          pc.format = c.value("format", "");
          pc.description = c.value("description", "");
          pc.priority = c.value("priority", 0);
          pc.json_path = c.value("jsonPath", "");
          t.columns.push_back(pc);
        }
      }
    }
  }
  // Preferred first: the storage version, then the rest in the order given.
  std::stable_sort(t.versions.begin(), t.versions.end(),
                   [&](const std::string& a, const std::string& b) {
                     return a == storage_version && b != storage_version;
                   });
  return t;
}

}  // namespace gpuprofile::e2e
