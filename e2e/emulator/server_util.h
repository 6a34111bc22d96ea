// File: e2e/emulator/server_util.h
// Small helpers the API server's handlers share: metadata accessors, the comparisons behind
// generation and no-op detection, patch directives, media types, continue tokens, warnings.
// Internal to the emulator. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "e2e/emulator/http_types.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

inline constexpr char kCrdKey[] = "customresourcedefinitions.apiextensions.k8s.io";
inline constexpr char kQuotaKey[] = "resourcequotas";
inline constexpr char kClaimKey[] = "resourceclaims.resource.k8s.io";
inline constexpr char kCrdFinalizer[] = "customresourcecleanup.apiextensions.k8s.io";
inline constexpr char kForeground[] = "foregroundDeletion";
inline constexpr char kOrphan[] = "orphan";

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(const std::string& s);

std::vector<std::string> Finalizers(const nlohmann::json& object);
void SetFinalizers(nlohmann::json& object, const std::vector<std::string>& finalizers);
bool Deleting(const nlohmann::json& object);
std::string Uid(const nlohmann::json& object);

// Drops the metadata members an API server never stores empty: ObjectMeta's labels,
// annotations, finalizers and ownerReferences are `omitempty` (Go), so `{}`, `[]` or null sent by
// a client (kubectl's client-side diff patches `annotations: {}`) leave no trace. Custom
// resources get the same, since their metadata is coerced through ObjectMeta.
void DropEmptyMetadata(nlohmann::json& object);

// The object without what the server manages, for "did anything change" comparisons.
nlohmann::json WithoutVolatile(nlohmann::json object);
// What a spec change means for metadata.generation: everything but metadata (and status when
// status is a subresource).
nlohmann::json GenerationRelevant(nlohmann::json object, bool status_subresource);
// Removes strategic-merge-patch directives ($patch, $setElementOrder/..., $retainKeys, ...).
void StripDirectives(nlohmann::json& patch);
// "application/json" from "application/json; charset=utf-8".
std::string MediaType(const std::string& content_type);

std::string EncodeContinue(uint64_t rv, const std::string& ns, const std::string& name);
bool DecodeContinue(const std::string& text, uint64_t* rv, std::string* ns, std::string* name);

// Adds one `Warning: 299 - "..."` header per warning.
HttpResponse WithWarnings(HttpResponse r, const std::vector<std::string>& warnings);

}  // namespace gpuprofile::e2e
