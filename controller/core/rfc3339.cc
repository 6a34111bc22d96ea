// File: controller/core/rfc3339.cc
#include "controller/core/rfc3339.h"

#include <string>

#include "absl/time/time.h"

namespace gpuprofile {

std::string FormatRfc3339Seconds(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%SZ", t, absl::UTCTimeZone());
}

}  // namespace gpuprofile
