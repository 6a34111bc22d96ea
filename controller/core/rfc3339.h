// File: controller/core/rfc3339.h
// RFC 3339 timestamps as the API server writes metav1.Time: UTC, to the second, with a `Z`
// ("2026-12-02T06:01:07Z"). Conditions' lastTransitionTime and the allocation status's
// oldestPendingClaimTime use it. (Events' MicroTime, to the microsecond, is another form.)
// Pure; thread-safe.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace gpuprofile {

// `t` in UTC to the second; a fraction of a second is dropped (rounded towards the past, so
// 00:00:00.9 is 00:00:00). absl::InfiniteFuture() and InfinitePast() give "infinite-future" and
// "infinite-past", as absl::FormatTime does.
std::string FormatRfc3339Seconds(absl::Time t);

}  // namespace gpuprofile
