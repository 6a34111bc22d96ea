// File: controller/core/version_literal.cc
#include "controller/core/version_literal.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gpuprofile {

absl::StatusOr<Semver> NormalizeVersionLiteral(absl::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("version must not be empty");
  // Kubernetes' normalising parser keeps surrounding spaces as errors; so do we, with a message
  // that says so instead of blang's "Invalid character(s)".
  if (text.front() == ' ' || text.back() == ' ') {
    return absl::InvalidArgumentError(
        absl::StrCat("version \"", text, "\" has leading or trailing spaces"));
  }
  absl::StatusOr<Semver> version = Semver::ParseNormalized(text);
  if (!version.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\" is not a version (want MAJOR[.MINOR[.PATCH]], e.g. \"8.0\" or "
        "\"550.54.15\"): ", version.status().message()));
  }
  return version;
}

}  // namespace gpuprofile
