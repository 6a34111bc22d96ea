// File: controller/core/kube_version.cc
#include "controller/core/kube_version.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gpuprofile {

absl::StatusOr<KubeVersion> KubeVersion::Parse(absl::string_view text) {
  absl::string_view rest = text;
  absl::ConsumePrefix(&rest, "v");
  std::vector<absl::string_view> parts = absl::StrSplit(rest, '.');
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid Kubernetes version \"", text, "\": ", why,
                     " (expected 1.MINOR or 1.MINOR.PATCH, MINOR from ", kOldestMinor, " to ",
                     kNewestMinor, ")"));
  };
  if (parts.size() < 2 || parts.size() > 3) return invalid("wrong number of components");
  int major = 0;
  KubeVersion v;
  if (!absl::SimpleAtoi(parts[0], &major) || major != 1) return invalid("major must be 1");
  if (!absl::SimpleAtoi(parts[1], &v.minor) || parts[1].empty() || parts[1][0] == '-') {
    return invalid("minor is not a number");
  }
  if (v.minor > kNewestMinor) {
    return invalid(absl::StrCat("newer than Kubernetes 1.", kNewestMinor,
                                ", the newest release this version of the project supports"));
  }
  if (v.minor < kOldestMinor) return invalid("unsupported minor");
  if (parts.size() == 3) {
    if (!absl::SimpleAtoi(parts[2], &v.patch) || v.patch < 0 || parts[2][0] == '+') {
      return invalid("patch is not a number");
    }
  }
  return v;
}

std::string KubeVersion::ToString() const {
  if (patch_given()) return absl::StrCat("1.", minor, ".", patch);
  return absl::StrCat("1.", minor);
}

}  // namespace gpuprofile
