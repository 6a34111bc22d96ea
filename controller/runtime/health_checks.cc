// File: controller/runtime/health_checks.cc
#include "controller/runtime/health_checks.h"

#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace gpuprofile::runtime {

HealthChecks::HealthChecks(std::string endpoint) : endpoint_(std::move(endpoint)) {
  checks_["ping"] = [] { return absl::OkStatus(); };
}

absl::Status HealthChecks::Add(const std::string& name, HealthCheck check) {
  if (name.empty() || absl::StrContains(name, '/')) {
    return absl::InvalidArgumentError(absl::StrCat(endpoint_, ": health check name \"", name,
                                                   "\" must be non-empty and contain no '/'"));
  }
  if (!check) {
    return absl::InvalidArgumentError(
        absl::StrCat(endpoint_, ": health check \"", name, "\" has no function"));
  }
  absl::MutexLock lock(&mu_);
  if (!checks_.emplace(name, std::move(check)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat(endpoint_, ": a health check named \"", name, "\" is already registered"));
  }
  return absl::OkStatus();
}

std::map<std::string, HealthCheck> HealthChecks::Snapshot() const {
  absl::MutexLock lock(&mu_);
  return checks_;
}

std::vector<std::string> HealthChecks::Names() const {
  std::vector<std::string> names;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, check] : checks_) names.push_back(name);
  return names;
}

absl::Status HealthChecks::CheckAll() const {
  for (const auto& [name, check] : Snapshot()) {
    absl::Status status = check();
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat(endpoint_, " check \"", name, "\" failed: ", status.message()));
    }
  }
  return absl::OkStatus();
}

HealthResponse HealthChecks::Serve(absl::string_view subpath, const HealthQuery& query) const {
  // path.Clean-like: leading and trailing slashes do not matter for one level of names.
  absl::string_view name = subpath;
  while (absl::ConsumePrefix(&name, "/")) {
  }
  while (absl::ConsumeSuffix(&name, "/")) {
  }
  std::map<std::string, HealthCheck> checks = Snapshot();
  HealthResponse response;
  if (!name.empty()) {
    auto it = checks.find(std::string(name));
    if (it == checks.end()) return {404, "404 page not found\n"};
    absl::Status status = it->second();
    if (status.ok()) return {200, "ok"};
    return {500, absl::StrCat("internal server error: ", status.message(), "\n")};
  }

  std::set<std::string> unknown_excludes(query.excludes.begin(), query.excludes.end());
  bool failed = false;
  std::string lines;
  for (const auto& [check_name, check] : checks) {  // std::map: sorted by name
    if (unknown_excludes.erase(check_name) > 0) {
      absl::StrAppend(&lines, "[+]", check_name, " excluded: ok\n");
      continue;
    }
    if (check().ok()) {
      absl::StrAppend(&lines, "[+]", check_name, " ok\n");
    } else {
      failed = true;
      absl::StrAppend(&lines, "[-]", check_name, " failed: reason withheld\n");
    }
  }
  response.status = failed ? 500 : 200;
  if (!failed && !query.verbose) {
    response.body = "ok";
    return response;
  }
  response.body = std::move(lines);
  if (!unknown_excludes.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& n : unknown_excludes) quoted.push_back(absl::StrCat("\"", n, "\""));
    absl::StrAppend(&response.body, "warn: some health checks cannot be excluded: no matches for ",
                    absl::StrJoin(quoted, ","), "\n");
  }
  // controller-runtime says "healthz" here for /readyz too.
  absl::StrAppend(&response.body, failed ? "healthz check failed\n" : "healthz check passed\n");
  return response;
}

}  // namespace gpuprofile::runtime
