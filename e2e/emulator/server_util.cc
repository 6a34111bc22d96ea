// File: e2e/emulator/server_util.cc
#include "e2e/emulator/server_util.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "e2e/emulator/selectors.h"

namespace gpuprofile::e2e {

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(const std::string& s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return false;
  }
  return std::nullopt;
}

std::vector<std::string> Finalizers(const nlohmann::json& object) {
  std::vector<std::string> out;
  const nlohmann::json* f = Lookup(object, "metadata.finalizers");
  if (f && f->is_array()) {
    for (const auto& v : *f) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

void SetFinalizers(nlohmann::json& object, const std::vector<std::string>& finalizers) {
  if (finalizers.empty()) {
    object["metadata"].erase("finalizers");
  } else {
    object["metadata"]["finalizers"] = finalizers;
  }
}

bool Deleting(const nlohmann::json& object) {
  return Lookup(object, "metadata.deletionTimestamp") != nullptr;
}

std::string Uid(const nlohmann::json& object) { return FieldString(object, "metadata.uid"); }

nlohmann::json WithoutVolatile(nlohmann::json object) {
  if (object.contains("metadata") && object["metadata"].is_object()) {
    object["metadata"].erase("resourceVersion");
    object["metadata"].erase("managedFields");
  }
  return object;
}

nlohmann::json GenerationRelevant(nlohmann::json object, bool status_subresource) {
  if (!object.is_object()) return object;
  object.erase("metadata");
  if (status_subresource) object.erase("status");
  return object;
}

void DropEmptyMetadata(nlohmann::json& object) {
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object()) {
    return;
  }
  nlohmann::json& meta = object["metadata"];
  for (const char* member : {"labels", "annotations", "finalizers", "ownerReferences"}) {
    auto it = meta.find(member);
    if (it == meta.end()) continue;
    if (it->is_null() || ((it->is_object() || it->is_array()) && it->empty())) meta.erase(it);
  }
}

void StripDirectives(nlohmann::json& patch) {
  if (patch.is_object()) {
    std::vector<std::string> drop;
    for (auto& [k, v] : patch.items()) {
      if (!k.empty() && k[0] == '$') drop.push_back(k);
    }
    for (const std::string& k : drop) patch.erase(k);
    for (auto& [k, v] : patch.items()) StripDirectives(v);
  } else if (patch.is_array()) {
    for (auto& v : patch) StripDirectives(v);
  }
}

std::string MediaType(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  return t;
}

std::string EncodeContinue(uint64_t rv, const std::string& ns, const std::string& name) {
  nlohmann::json token = {{"rv", rv}, {"ns", ns}, {"name", name}};
  return absl::WebSafeBase64Escape(token.dump());
}

bool DecodeContinue(const std::string& text, uint64_t* rv, std::string* ns, std::string* name) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(text, &raw)) return false;
  nlohmann::json token = nlohmann::json::parse(raw, nullptr, false);
  if (!token.is_object() || !token.contains("rv") || !token["rv"].is_number_unsigned()) {
    return false;
  }
  *rv = token["rv"].get<uint64_t>();
  *ns = token.value("ns", "");
  *name = token.value("name", "");
  return true;
}

HttpResponse WithWarnings(HttpResponse r, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    r.headers.emplace_back("Warning", absl::StrCat("299 - \"", w, "\""));
  }
  return r;
}

}  // namespace gpuprofile::e2e
