// File: controller/explain/manifest_view.h
// A ClusterView (diagnosis.h) from manifests, as `render` reads them: GpuProfiles,
// ResourceSlices (any version), Namespaces, DeviceClasses, ResourceClaimTemplates,
// ResourceQuotas and ResourceClaims, plus Pods and Nodes (their device-plugin GPUs, for the
// migration view: ClusterView::nodes_known when at least one Node is read). Other kinds are
// counted and ignored. The view is offline (ClusterView::live false): the operator's desired
// state counts as existing.
// DRA is served when the release's DynamicResourceAllocation gate is on (`gates`).
// Pure over the given objects; thread-compatible.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/dra/manifest_loader.h"
#include "controller/explain/diagnosis.h"

namespace gpuprofile::explain {

struct ManifestView {
  ClusterView view;
  std::map<std::string, int> ignored_kinds;  // kind -> objects not read
};

// InvalidArgument listing every object that does not decode, one per line, each naming the file,
// the object and the field (as `render`'s errors).
absl::StatusOr<ManifestView> ViewFromManifests(dra::LoadedManifests loaded, const KubeVersion& kube,
                                               const FeatureGates& gates);

}  // namespace gpuprofile::explain
