// File: controller/meta/resource_quota_codec.h
// JSON of core/v1 ResourceQuota objects as the operator writes them (a profile's per-namespace
// device quota), decoding of the same objects read back from a server or from files, and the
// comparison drift detection uses.
//
// Shape: {apiVersion: v1, kind: ResourceQuota, metadata, spec: {hard: {<resource>: <quantity>}}}.
// Only spec.hard is modelled; spec.scopes / spec.scopeSelector are type-checked and only flagged
// (ResourceQuota::has_scopes); status and unknown fields are ignored.
//
// Errors are InvalidArgument, every problem at once, one line each naming the object and the
// field path (map keys in brackets, as Kubernetes prints them):
//   ResourceQuota "ml-train/gpuprofile-large-mem": spec.hard[requests.example.com/gpu]: invalid
//   value "ten": quantities must match the regular expression ...
// Pure functions; thread-safe. Nothing here throws.
#pragma once

#include "absl/status/statusor.h"
#include "controller/meta/resource_quota.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// True when `object` says apiVersion v1, kind ResourceQuota.
bool IsResourceQuota(const nlohmann::json& object);

// {apiVersion, kind, metadata, spec: {hard}} in that order; metadata is EncodeObjectMeta's
// (include_server_fields=false is what `render` prints: uid, resourceVersion, ownerReferences...
// left out); hard quantities in canonical form ("1536Mi", "4"), keys sorted; `hard` is left out
// when empty, `spec` never is. has_scopes is not encoded (the operator writes no scopes).
nlohmann::ordered_json EncodeResourceQuota(const ResourceQuota& quota, bool include_server_fields);

// Decodes a v1 ResourceQuota. Required: apiVersion "v1", kind "ResourceQuota", metadata with a
// name (namespace is read when present, not required: files may leave it to the reader). spec is
// optional; spec.hard values are quantity strings (JSON numbers are accepted, as the API server
// accepts them); spec.scopes must be a list of strings, spec.scopeSelector an object; either,
// when non-empty, sets has_scopes. Metadata is decoded by DecodeObjectMeta (label and annotation
// keys validated).
absl::StatusOr<ResourceQuota> DecodeResourceQuota(const nlohmann::json& object);

// Whether `actual` (read from a server) stores what writing `desired` would store: metadata as
// SameDesiredMetadata (object_meta_codec.h) and `hard` equal as quantities, key by key ("1Gi"
// equals "1024Mi"; a resource only one side has differs). Never equal when either has scopes.
bool SameDesiredState(const ResourceQuota& desired, const ResourceQuota& actual);

}  // namespace gpuprofile::meta
