// File: e2e/tests/gitops_kstatus.h
// kstatus, the status rules Flux's kustomize-controller waits on (`wait: true`), for the kinds
// this project's manifests hold. The rules follow sigs.k8s.io/cli-utils pkg/kstatus/status
// (Compute): deletionTimestamp → Terminating; metadata.generation ≠ status.observedGeneration
// (when observedGeneration is present) → InProgress; Reconciling=True → InProgress;
// Stalled=True → Failed; then the kind's own rule (CustomResourceDefinition: Established;
// Deployment: replicas, updated, available, ready and the Progressing/Available conditions;
// PodDisruptionBudget, Service of type ClusterIP, ConfigMap, Secret: Current); any other kind
// (Namespaces, RBAC, custom resources) is Current. Note what that means for a custom resource:
// without status, or with Ready=False but no Reconciling/Stalled, kstatus says Current.
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
