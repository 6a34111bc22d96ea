// File: e2e/tests/gitops_argo_health.h
// Runs an Argo CD health check (config/argocd/<group>/<Kind>/health.lua) on a live object the
// way tools/argocd/run_health_tests.py does for its test files, and so the way Argo CD does:
// the object becomes a Lua table bound to the global `obj`, the script runs under Debian's
// lua5.1 (Argo CD embeds gopher-lua, a Lua 5.1) and returns {status, message}.
// Thread-compatible (each call writes its own files under `workdir`).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e::testing {

struct ArgoHealth {
  std::string status;  // Healthy, Progressing, Degraded, ...
  std::string message;
};

// The object as a Lua table constructor (1-based arrays, ["key"] = value, decimal escapes).
std::string LuaLiteral(const nlohmann::json& value);

// Evaluates `health_lua` on `object` with `lua` (e.g. "lua5.1"); `workdir` must exist.
// An error when lua cannot be run or the script fails or returns no table.
absl::StatusOr<ArgoHealth> EvaluateArgoHealth(const nlohmann::json& object,
                                              const std::string& health_lua,
                                              const std::string& workdir,
                                              const std::string& lua = "lua5.1");

}  // namespace gpuprofile::e2e::testing
