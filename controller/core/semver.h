// File: controller/core/semver.h
// Semantic versions (semver 2.0.0) as Kubernetes' CEL semver library and DRA version attributes
// use them.
// - ParseStrict: the grammar of blang/semver's Parse, which `semver(s)` uses: MAJOR.MINOR.PATCH,
//   numeric parts without leading zeros, optional -prerelease and +build.
// - ParseNormalized: `semver(s, true)` (Kubernetes 1.33+ environment): strips a leading "v",
//   pads missing minor/patch with zeros ("8.0" -> 8.0.0) and drops leading zeros
//   ("550.54.05" -> 550.54.5). The profile compiler uses it to normalise user-written versions.
// Pure value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuprofile {

class Semver {
 public:
  Semver() = default;

  static absl::StatusOr<Semver> ParseStrict(absl::string_view text);
  static absl::StatusOr<Semver> ParseNormalized(absl::string_view text);

  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }
  const std::vector<std::string>& prerelease() const { return prerelease_; }
  const std::vector<std::string>& build() const { return build_; }

  // Semver 2.0.0 precedence: -1, 0, 1. Build metadata is ignored.
  int Compare(const Semver& other) const;
  bool operator==(const Semver& other) const { return Compare(other) == 0; }
  bool operator!=(const Semver& other) const { return Compare(other) != 0; }
  bool operator<(const Semver& other) const { return Compare(other) < 0; }

  // "1.2.3-rc.1+build.5".
  std::string ToString() const;

 private:
  uint64_t major_ = 0, minor_ = 0, patch_ = 0;
  std::vector<std::string> prerelease_;
  std::vector<std::string> build_;
};

}  // namespace gpuprofile
