// File: controller/dra/api_version.cc
#include "controller/dra/api_version.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuprofile::dra {
namespace {

constexpr char kGroupPrefix[] = "resource.k8s.io/";

// First minor (of 1.x) with the version, and the first minor without it (0: not removed yet).
struct Lifecycle {
  int introduced;
  int removed;
};

Lifecycle LifecycleOf(DraApiVersion version) {
  switch (version) {
    case DraApiVersion::kV1beta1:
      return {32, 38};
    case DraApiVersion::kV1beta2:
      return {33, 39};
    case DraApiVersion::kV1:
      return {34, 0};
  }
  return {34, 0};
}

}  // namespace

absl::StatusOr<DraApiVersion> ParseDraApiVersion(absl::string_view text) {
  absl::string_view name = text;
  if (absl::StartsWith(name, kGroupPrefix)) name.remove_prefix(sizeof(kGroupPrefix) - 1);
  for (DraApiVersion v : {DraApiVersion::kV1beta1, DraApiVersion::kV1beta2, DraApiVersion::kV1}) {
    if (name == VersionName(v)) return v;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown DRA API version \"", text,
      "\" (expected resource.k8s.io/v1beta1, resource.k8s.io/v1beta2 or resource.k8s.io/v1; "
      "the group may be left out)"));
}

absl::string_view VersionName(DraApiVersion version) {
  switch (version) {
    case DraApiVersion::kV1beta1:
      return "v1beta1";
    case DraApiVersion::kV1beta2:
      return "v1beta2";
    case DraApiVersion::kV1:
      return "v1";
  }
  return "v1";
}

std::string ToString(DraApiVersion version) {
  return absl::StrCat(kGroupPrefix, VersionName(version));
}

DraApiVersion DefaultDraApiVersion(const KubeVersion& kube) {
  if (kube.minor >= 34) return DraApiVersion::kV1;
  if (kube.minor == 33) return DraApiVersion::kV1beta2;
  return DraApiVersion::kV1beta1;
}

absl::Status CheckServedVersion(const KubeVersion& kube, DraApiVersion version) {
  const Lifecycle life = LifecycleOf(version);
  if (kube.minor < life.introduced) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToString(version), " does not exist in Kubernetes ", kube.ToString(),
                     " (introduced in 1.", life.introduced, ")"));
  }
  if (life.removed != 0 && kube.minor >= life.removed) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToString(version), " does not exist in Kubernetes ", kube.ToString(),
                     " (removed in 1.", life.removed, ")"));
  }
  return absl::OkStatus();
}

std::vector<DraApiVersion> DraApiVersionsIn(const KubeVersion& kube) {
  std::vector<DraApiVersion> out;
  for (DraApiVersion v : {DraApiVersion::kV1, DraApiVersion::kV1beta2, DraApiVersion::kV1beta1}) {
    if (CheckServedVersion(kube, v).ok()) out.push_back(v);
  }
  return out;
}

absl::StatusOr<DraApiVersion> ChooseDraApiVersion(const std::vector<std::string>& served,
                                                  const std::optional<KubeVersion>& kube) {
  const std::vector<DraApiVersion> order =
      kube ? DraApiVersionsIn(*kube)
           : std::vector<DraApiVersion>{DraApiVersion::kV1, DraApiVersion::kV1beta2,
                                        DraApiVersion::kV1beta1};
  for (DraApiVersion v : order) {
    const std::string name(VersionName(v));
    if (std::find(served.begin(), served.end(), name) != served.end()) return v;
  }
  if (served.empty()) {
    return absl::NotFoundError(
        "the API server serves no resource.k8s.io version; enable Dynamic Resource Allocation "
        "(on 1.34+ resource.k8s.io/v1 is served unless --runtime-config switched it off; on "
        "1.32/1.33: --runtime-config=resource.k8s.io/v1beta1=true or v1beta2, and the "
        "DynamicResourceAllocation feature gate)");
  }
  std::vector<std::string> known;
  for (DraApiVersion v : order) known.emplace_back(VersionName(v));
  return absl::NotFoundError(absl::StrCat(
      "the API server serves resource.k8s.io only in ",
      served.size() == 1 ? "version " : "versions ", absl::StrJoin(served, ", "),
      ", which this operator does not read (it reads ", absl::StrJoin(known, ", "),
      kube ? absl::StrCat(" on Kubernetes ", kube->ToString()) : "",
      "); serve one of those, e.g. --runtime-config=resource.k8s.io/v1=true on 1.34+"));
}

}  // namespace gpuprofile::dra
