// File: e2e/emulator/table.h
// meta.k8s.io/v1 Table output (what `kubectl get` asks for with
// Accept: application/json;as=Table;v=v1;g=meta.k8s.io): Name, the kind's columns (built-in
// printers or a CRD's additionalPrinterColumns), Age; each row carries the object's metadata as
// PartialObjectMetadata (or the whole object with includeObject=Object).
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "e2e/emulator/resource_registry.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

inline constexpr char kTableContentType[] = "application/json;as=Table;v=v1;g=meta.k8s.io";

// Whether an Accept header asks for a Table.
bool WantsTable(const std::string& accept);

// `objects` are in the requested version. `include_object`: "None", "Metadata" (default) or
// "Object".
nlohmann::json BuildTable(const ResourceType& type, const std::vector<nlohmann::json>& objects,
                          const nlohmann::json& list_metadata, const std::string& include_object,
                          absl::Time now);

// kubectl's human duration ("5s", "3m10s", "2d3h", ...).
std::string HumanDuration(absl::Duration d);

}  // namespace gpuprofile::e2e
