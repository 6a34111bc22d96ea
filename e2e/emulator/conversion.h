// File: e2e/emulator/conversion.h
// Objects are stored once, in one version, and converted on every read and write:
// - resource.k8s.io: stored in the v1 shape (v1beta2 has the same shape); v1beta1 differs by the
//   flat device request (no `exactly` wrapper) and the `basic` wrapper of slice devices;
// - events.k8s.io/v1 Event <-> core v1 Event (regarding/involvedObject, note/message, ...);
// - custom resources: the apiVersion is rewritten (conversion strategy None).
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "e2e/emulator/resource_registry.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

// The apiVersion objects of `type` are stored under.
std::string StorageApiVersion(const ResourceType& type);

nlohmann::json ToStorage(const ResourceType& type, const std::string& version,
                         nlohmann::json object);
nlohmann::json FromStorage(const ResourceType& type, const std::string& version,
                           const nlohmann::json& object);

}  // namespace gpuprofile::e2e
