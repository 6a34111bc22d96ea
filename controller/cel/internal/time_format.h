// File: controller/cel/internal/time_format.h
// Text forms of CEL timestamps and durations, spelled the way cel-go (and so the Kubernetes API
// server) spells them: RFC 3339 timestamps as Go's time.RFC3339 / RFC3339Nano, durations in Go's
// time.ParseDuration syntax ("1h2m3.5s") on input and as seconds ("1.5s") on output.
//
// CEL durations are Go time.Durations: int64 nanoseconds (about +-292 years). Timestamps must lie
// in [0001-01-01T00:00:00Z, 9999-12-31T23:59:59.999999999Z].
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpuprofile::cel::internal {

// Unix seconds of the first and last second CEL timestamps may denote.
inline constexpr int64_t kMinTimestampSeconds = -62135596800;  // 0001-01-01T00:00:00Z
inline constexpr int64_t kMaxTimestampSeconds = 253402300799;  // 9999-12-31T23:59:59Z

// Whether `t` lies in CEL's timestamp range (any nanoseconds within the last second count).
bool TimestampInRange(absl::Time t);

// The duration as int64 nanoseconds, or nullopt when it does not fit (then it is no valid CEL
// duration).
std::optional<int64_t> DurationToNanos(absl::Duration d);

// Go's time.RFC3339Nano in UTC: "2009-02-13T23:31:30Z", "2009-02-13T23:31:30.12Z" (trailing zeros
// of the fraction dropped, no fraction when whole).
std::string FormatRfc3339Nano(absl::Time t);

// Go's time.Parse(time.RFC3339, s): "YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm)", fraction of any
// length (truncated to nanoseconds). InvalidArgument on malformed input or out-of-range fields.
absl::StatusOr<absl::Time> ParseRfc3339(absl::string_view text);

// cel-go's string(duration): the seconds in Go's shortest 'f' float form plus "s" ("1.5s",
// "-0.000000001s", "3600s").
std::string FormatDurationSeconds(absl::Duration d);

// Go's time.ParseDuration: "300ms", "-1.5h", "2h45m", units ns, us, µs, μs, ms, s, m, h; "0"
// needs no unit. InvalidArgument with Go's message ("time: invalid duration \"x\"", "time:
// missing unit in duration \"1\"", "time: unknown unit \"d\" in duration \"1d\"") otherwise,
// including when the value does not fit int64 nanoseconds.
absl::StatusOr<absl::Duration> ParseGoDuration(absl::string_view text);

}  // namespace gpuprofile::cel::internal
