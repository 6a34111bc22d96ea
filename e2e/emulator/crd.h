// File: e2e/emulator/crd.h
// CustomResourceDefinitions: the validation kube-apiserver applies to a CRD (group, names,
// scope, metadata.name, one storage version, schemas), and the resource type a valid CRD
// registers (versions, schemas, status subresource, printer columns, names).
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "e2e/emulator/api_error.h"
#include "e2e/emulator/resource_registry.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

std::vector<StatusCause> ValidateCrd(const nlohmann::json& crd);
// Only meaningful for a CRD that ValidateCrd accepts.
ResourceType CrdType(const nlohmann::json& crd);

}  // namespace gpuprofile::e2e
