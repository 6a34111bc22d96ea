// File: e2e/tests/gitops_kstatus.h
// kstatus, the status rules Flux's kustomize-controller waits on (`wait: true`), for the kinds
// this project's manifests hold. The rules follow sigs.k8s.io/cli-utils pkg/kstatus/status
// (Compute, as of its 2025 head): deletionTimestamp → Terminating; metadata.generation ≠
// status.observedGeneration (when observedGeneration is present) → InProgress;
// Reconciling=True → InProgress; Stalled=True → Failed; then the kind's own rule
// (CustomResourceDefinition: Established; Deployment: replicas, updated, available, ready and the
// Progressing/Available conditions; PodDisruptionBudget, Service of type ClusterIP, ConfigMap,
// Secret: Current); for any other kind a Ready condition decides (True → Current, False or
// Unknown → InProgress), and without one the object is Current. So a custom resource without
// status is Current, and one with Ready=True is Current whatever its other conditions say.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace gpuprofile::e2e::testing {

struct KStatus {
  std::string status;   // InProgress, Failed, Current or Terminating
  std::string reason;   // the rule's reason (e.g. LessReplicas), "" when none
  std::string message;  // what kstatus would print
};

KStatus ComputeKStatus(const nlohmann::json& object);

}  // namespace gpuprofile::e2e::testing
