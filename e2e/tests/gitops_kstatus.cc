// File: e2e/tests/gitops_kstatus.cc
#include "e2e/tests/gitops_kstatus.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

namespace gpuprofile::e2e::testing {
namespace {

using json = nlohmann::json;

const json& Field(const json& object, std::initializer_list<const char*> path) {
  static const json kNull = nullptr;
  const json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return kNull;
    at = &(*at)[key];
  }
  return *at;
}

std::optional<int64_t> Int(const json& object, std::initializer_list<const char*> path) {
  const json& v = Field(object, path);
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<int64_t>();
}

std::string Str(const json& value, const char* key) {
  if (!value.is_object() || !value.contains(key) || !value[key].is_string()) return "";
  return value[key].get<std::string>();
}

const json& Conditions(const json& object) {
  static const json kEmpty = json::array();
  const json& c = Field(object, {"status", "conditions"});
  return c.is_array() ? c : kEmpty;
}

KStatus InProgress(std::string reason, std::string message) {
  return {"InProgress", std::move(reason), std::move(message)};
}
KStatus Current(std::string message) { return {"Current", "", std::move(message)}; }

KStatus Crd(const json& object) {
  for (const json& c : Conditions(object)) {
    const std::string type = Str(c, "type"), status = Str(c, "status");
    if (type == "NamesAccepted" && status == "False") {
      return {"Failed", Str(c, "reason"), Str(c, "message")};
    }
    if (type == "Established") {
      if (status == "False" && Str(c, "reason") != "Installing") {
        return {"Failed", Str(c, "reason"), Str(c, "message")};
      }
      if (status == "True") return Current("CRD is established");
    }
  }
  return InProgress("Installing", "Install in progress");
}

KStatus Deployment(const json& object) {
  const int64_t deadline = Int(object, {"spec", "progressDeadlineSeconds"})
                               .value_or(std::numeric_limits<int32_t>::max());
  bool progressing = deadline == std::numeric_limits<int32_t>::max();
  bool available = false;
  for (const json& c : Conditions(object)) {
    const std::string type = Str(c, "type");
    if (type == "Progressing") {
      if (Str(c, "reason") == "ProgressDeadlineExceeded") {
        return {"Failed", Str(c, "reason"), "Progress deadline exceeded"};
      }
      if (Str(c, "status") == "True" && Str(c, "reason") == "NewReplicaSetAvailable") {
        progressing = true;
      }
    } else if (type == "Available" && Str(c, "status") == "True") {
      available = true;
    }
  }
  const int64_t spec = Int(object, {"spec", "replicas"}).value_or(1);
  const int64_t replicas = Int(object, {"status", "replicas"}).value_or(0);
  const int64_t updated = Int(object, {"status", "updatedReplicas"}).value_or(0);
  const int64_t ready = Int(object, {"status", "readyReplicas"}).value_or(0);
  const int64_t avail = Int(object, {"status", "availableReplicas"}).value_or(0);
  if (spec > replicas) {
    return InProgress("LessReplicas", absl::StrCat("Replicas: ", replicas, "/", spec));
  }
  if (spec > updated) {
    return InProgress("LessUpdated", absl::StrCat("Updated: ", updated, "/", spec));
  }
  if (replicas > spec) {
    return InProgress("ExtraPods", absl::StrCat("Pending termination: ", replicas - spec));
  }
  if (updated > avail) {
    return InProgress("LessAvailable", absl::StrCat("Available: ", avail, "/", updated));
  }
  if (spec > ready) return InProgress("LessReady", absl::StrCat("Ready: ", ready, "/", spec));
  if (!progressing) return InProgress("ReplicaSetNotAvailable", "ReplicaSet not Available");
  if (!available) return InProgress("DeploymentNotAvailable", "Deployment not Available");
  return Current(absl::StrCat("Deployment is available. Replicas: ", replicas));
}

}  // namespace

KStatus ComputeKStatus(const json& object) {
  const std::string kind = Str(object, "kind");
  const std::string api_version = Str(object, "apiVersion");
  const std::string group = api_version.find('/') == std::string::npos
                                ? ""
                                : api_version.substr(0, api_version.find('/'));

  // The generic properties first.
  if (!Str(Field(object, {"metadata"}), "deletionTimestamp").empty()) {
    return {"Terminating", "", "Resource scheduled for deletion"};
  }
  const std::optional<int64_t> generation = Int(object, {"metadata", "generation"});
  const std::optional<int64_t> observed = Int(object, {"status", "observedGeneration"});
  if (generation.has_value() && observed.has_value() && *generation != *observed) {
    return InProgress("LatestGenerationNotObserved",
                      absl::StrCat(kind, " generation is ", *generation,
                                   ", but latest observed generation is ", *observed));
  }
  for (const json& c : Conditions(object)) {
    if (Str(c, "status") != "True") continue;
    if (Str(c, "type") == "Reconciling") return InProgress(Str(c, "reason"), Str(c, "message"));
    if (Str(c, "type") == "Stalled") return {"Failed", Str(c, "reason"), Str(c, "message")};
  }

  // The kind's own rule.
  if (group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition") return Crd(object);
  if ((group == "apps" || group == "extensions") && kind == "Deployment") {
    return Deployment(object);
  }
  if (group == "policy" && kind == "PodDisruptionBudget") {
    return Current("AllowedDisruptions has been computed.");
  }
  if (group.empty() && kind == "Service") {
    const json& type = Field(object, {"spec", "type"});
    if (type.is_string() && type == "LoadBalancer" &&
        Str(Field(object, {"spec"}), "clusterIP").empty()) {
      return InProgress("NoIPAssigned", "ClusterIP not set. Service type: LoadBalancer");
    }
    return Current("Service is ready");
  }
  if (group.empty() && (kind == "ConfigMap" || kind == "Secret")) {
    return Current("Resource is always ready");
  }
  // Last, a Ready condition (widely used, though not what the API conventions recommend).
  for (const json& c : Conditions(object)) {
    if (Str(c, "type") != "Ready") continue;
    const std::string status = Str(c, "status");
    if (status == "True") return Current("Resource is Ready");
    if (status == "False" || status == "Unknown") {
      return InProgress(Str(c, "reason"), Str(c, "message"));
    }
  }
  return Current("Resource is current");
}

}  // namespace gpuprofile::e2e::testing
