// File: controller/core/kube_version.h
// A Kubernetes version as the user gives it on the command line (`1.32`, `1.32.1`, `v1.34.0`).
// Behaviour of the API server differs by minor and, for a few bugs, by patch. A bare minor means
// that minor's latest patch. Pure value type; thread-compatible.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuprofile {

struct KubeVersion {
  // Oldest and newest minors this project models (Kubernetes 1.32 ... 1.37).
  static constexpr int kOldestMinor = 32;
  static constexpr int kNewestMinor = 37;
  // Stand-in for "the latest patch" when only a minor is given.
  static constexpr int kLatestPatch = 1 << 30;

  int minor = kNewestMinor;
  int patch = kLatestPatch;

  // Parses "1.32", "1.32.1", "v1.32.1". Rejects majors other than 1 and minors outside
  // [kOldestMinor, kNewestMinor], naming the supported range.
  static absl::StatusOr<KubeVersion> Parse(absl::string_view text);
  static KubeVersion Newest() { return KubeVersion{}; }

  bool patch_given() const { return patch != kLatestPatch; }
  // "1.32" or "1.32.1".
  std::string ToString() const;

  bool AtLeast(int other_minor, int other_patch = 0) const {
    return minor > other_minor || (minor == other_minor && patch >= other_patch);
  }
};

}  // namespace gpuprofile
