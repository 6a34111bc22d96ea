// File: controller/core/version_literal.h
// Version literals as users write them in GpuProfiles, normalised to what `semver('X.Y.Z')`
// accepts on every Kubernetes version (strict semver 2.0.0, no leading zeros):
//   "8.0" -> 8.0.0, "12" -> 12.0.0, "550.54.05" -> 550.54.5, "v12.4" -> 12.4.0,
//   "1.2.3-rc.1" -> 1.2.3-rc.1 (pre-release and build kept as written, they must be valid).
// Used by GpuProfile decoding (api) and the selector compiler (profile). The NVIDIA driver publishes its versions the same way (Masterminds semver coercion), so a
// normalised bound compares with the published value as a human expects.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/core/semver.h"

namespace gpuprofile {

// InvalidArgument with a message naming the problem (not the field: the caller adds the path).
absl::StatusOr<Semver> NormalizeVersionLiteral(absl::string_view text);

}  // namespace gpuprofile
