// File: controller/meta/namespace_codec.h
// Decoding of core/v1 Namespace objects into the Namespace the operator needs: metadata (see
// object_meta_codec.h) and `terminating` (status.phase == "Terminating" or
// metadata.deletionTimestamp set). The status block is read leniently: a phase of another type
// is ignored, never an error.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "controller/meta/namespace.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// True when `object` says apiVersion v1, kind Namespace.
bool IsNamespace(const nlohmann::json& object);

// InvalidArgument, one "<path>: <reason>" per line, when the object is not a v1 Namespace, has
// no metadata.name or malformed metadata.
absl::StatusOr<Namespace> DecodeNamespace(const nlohmann::json& object);

}  // namespace gpuprofile::meta
