// File: e2e/emulator/conversion.cc
#include "e2e/emulator/conversion.h"

#include <utility>
#include <vector>

namespace gpuprofile::e2e {
namespace {

const char kDraGroup[] = "resource.k8s.io";

// The ResourceClaimSpec inside an object: spec (claims) or spec.spec (templates).
nlohmann::json* ClaimSpec(nlohmann::json& object, const std::string& resource) {
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return nullptr;
  if (resource == "resourceclaims") return &*spec;
  auto inner = spec->find("spec");
  if (inner == spec->end() || !inner->is_object()) return nullptr;
  return &*inner;
}

nlohmann::json* Requests(nlohmann::json* claim_spec) {
  if (!claim_spec) return nullptr;
  auto devices = claim_spec->find("devices");
  if (devices == claim_spec->end() || !devices->is_object()) return nullptr;
  auto requests = devices->find("requests");
  if (requests == devices->end() || !requests->is_array()) return nullptr;
  return &*requests;
}

nlohmann::json* Devices(nlohmann::json& object) {
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return nullptr;
  auto devices = spec->find("devices");
  if (devices == spec->end() || !devices->is_array()) return nullptr;
  return &*devices;
}

// v1beta1 flat request -> {name, exactly{...}} or {name, firstAvailable}.
void NestRequests(nlohmann::json& object, const std::string& resource) {
  nlohmann::json* requests = Requests(ClaimSpec(object, resource));
  if (!requests) return;
  for (nlohmann::json& r : *requests) {
    if (!r.is_object() || r.contains("exactly")) continue;
    nlohmann::json out = nlohmann::json::object();
    nlohmann::json exactly = nlohmann::json::object();
    for (auto& [k, v] : r.items()) {
      if (k == "name" || k == "firstAvailable") {
        out[k] = v;
      } else {
        exactly[k] = v;
      }
    }
    if (!out.contains("firstAvailable") || !exactly.empty()) out["exactly"] = std::move(exactly);
    r = std::move(out);
  }
}

void FlattenRequests(nlohmann::json& object, const std::string& resource) {
  nlohmann::json* requests = Requests(ClaimSpec(object, resource));
  if (!requests) return;
  for (nlohmann::json& r : *requests) {
    if (!r.is_object()) continue;
    auto exactly = r.find("exactly");
    if (exactly == r.end()) continue;
    nlohmann::json inner = *exactly;
    r.erase("exactly");
    if (inner.is_object()) {
      for (auto& [k, v] : inner.items()) r[k] = v;
    }
  }
}

void UnwrapBasic(nlohmann::json& object) {
  nlohmann::json* devices = Devices(object);
  if (!devices) return;
  for (nlohmann::json& d : *devices) {
    if (!d.is_object()) continue;
    auto basic = d.find("basic");
    if (basic == d.end()) continue;
    nlohmann::json inner = *basic;
    d.erase("basic");
    if (inner.is_object()) {
      for (auto& [k, v] : inner.items()) d[k] = v;
    }
  }
}

void WrapBasic(nlohmann::json& object) {
  nlohmann::json* devices = Devices(object);
  if (!devices) return;
  for (nlohmann::json& d : *devices) {
    if (!d.is_object() || d.contains("basic")) continue;
    nlohmann::json out = nlohmann::json::object();
    nlohmann::json basic = nlohmann::json::object();
    for (auto& [k, v] : d.items()) {
      if (k == "name") {
        out[k] = v;
      } else {
        basic[k] = v;
      }
    }
    out["basic"] = std::move(basic);
    d = std::move(out);
  }
}

// core/v1 name <-> events.k8s.io/v1 name
const std::vector<std::pair<const char*, const char*>>& EventFieldMap() {
  static const auto* map = new std::vector<std::pair<const char*, const char*>>{
      {"involvedObject", "regarding"},
      {"message", "note"},
      {"firstTimestamp", "deprecatedFirstTimestamp"},
      {"lastTimestamp", "deprecatedLastTimestamp"},
      {"count", "deprecatedCount"},
      {"source", "deprecatedSource"},
      {"reportingComponent", "reportingController"},
  };
  return *map;
}

void RenameFields(nlohmann::json& object, bool core_to_events) {
  for (const auto& [core, events] : EventFieldMap()) {
    const char* from = core_to_events ? core : events;
    const char* to = core_to_events ? events : core;
    auto it = object.find(from);
    if (it == object.end()) continue;
    nlohmann::json value = std::move(*it);
    object.erase(from);
    object[to] = std::move(value);
  }
}

}  // namespace

std::string StorageApiVersion(const ResourceType& type) {
  if (type.group == kDraGroup) return "resource.k8s.io/v1";
  if (type.storage_key == "events") return "v1";
  return type.ApiVersion(type.versions.empty() ? "v1" : type.versions.back());
}

nlohmann::json ToStorage(const ResourceType& type, const std::string& version,
                         nlohmann::json object) {
  if (!object.is_object()) return object;
  if (type.group == kDraGroup) {
    if (version == "v1beta1") {
      if (type.resource == "resourceclaimtemplates" || type.resource == "resourceclaims") {
        NestRequests(object, type.resource);
      } else if (type.resource == "resourceslices") {
        UnwrapBasic(object);
      }
    }
  } else if (type.group == "events.k8s.io") {
    RenameFields(object, /*core_to_events=*/false);
  }
  object["apiVersion"] = StorageApiVersion(type);
  object["kind"] = type.kind;
  return object;
}

nlohmann::json FromStorage(const ResourceType& type, const std::string& version,
                           const nlohmann::json& stored) {
  nlohmann::json object = stored;
  if (!object.is_object()) return object;
  if (type.group == kDraGroup) {
    if (version == "v1beta1") {
      if (type.resource == "resourceclaimtemplates" || type.resource == "resourceclaims") {
        FlattenRequests(object, type.resource);
      } else if (type.resource == "resourceslices") {
        WrapBasic(object);
      }
    }
  } else if (type.group == "events.k8s.io") {
    RenameFields(object, /*core_to_events=*/true);
  }
  object["apiVersion"] = type.ApiVersion(version);
  object["kind"] = type.kind;
  return object;
}

}  // namespace gpuprofile::e2e
