// File: controller/dra/api_version.h
// The resource.k8s.io API versions the operator reads and writes (v1beta1, v1beta2, v1), which
// Kubernetes releases have them, and which one a release uses by default.
//
// Release matrix (docs: docs/dra-reference.md §1, from the API lifecycle of k8s.io/api):
//   v1beta1  introduced 1.32, removed 1.38
//   v1beta2  introduced 1.33, removed 1.39
//   v1       introduced 1.34 (GA; the only DRA version a 1.34+ server serves by default)
// "Exists" is not "enabled": the beta versions need `--runtime-config` on every release, which
// only discovery can tell; this header only knows what a release can serve at all.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/core/kube_version.h"

namespace gpuprofile::dra {

enum class DraApiVersion { kV1beta1, kV1beta2, kV1 };

// Parses "resource.k8s.io/v1beta1" or the bare "v1beta1" (likewise v1beta2, v1).
// InvalidArgument naming the accepted spellings otherwise (other groups, v1alpha3, "").
absl::StatusOr<DraApiVersion> ParseDraApiVersion(absl::string_view text);

// "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1".
std::string ToString(DraApiVersion version);
// "v1beta1", "v1beta2", "v1".
absl::string_view VersionName(DraApiVersion version);

// The version a release serves by default or, where none is (1.32/1.33 with DRA off), the one
// an admin enables: 1.32 → v1beta1, 1.33 → v1beta2, 1.34+ → v1.
DraApiVersion DefaultDraApiVersion(const KubeVersion& kube);

// OK when `version` exists in release `kube`; InvalidArgument naming both otherwise, e.g.
//   resource.k8s.io/v1 does not exist in Kubernetes 1.33 (introduced in 1.34)
absl::Status CheckServedVersion(const KubeVersion& kube, DraApiVersion version);

// The versions that exist in `kube`, newest first (the operator's order of preference).
std::vector<DraApiVersion> DraApiVersionsIn(const KubeVersion& kube);

// The version to use among those a server serves (`served`: "v1", "v1beta2", ..., as discovery
// lists them) on release `kube` (nullopt: unknown release, v1 > v1beta2 > v1beta1). The choice is
// the operator's, not the server's preference: a 1.33 cluster with v1beta2 enabled is driven
// through v1beta2 even if the server prefers v1beta1. NotFound otherwise, saying that no version
// is served or naming the versions found (e.g. only v1alpha3, or a future v2) and the ones the
// operator reads.
absl::StatusOr<DraApiVersion> ChooseDraApiVersion(const std::vector<std::string>& served,
                                                  const std::optional<KubeVersion>& kube);

}  // namespace gpuprofile::dra
