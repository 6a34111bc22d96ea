// File: controller/cel/internal/standard_time.cc
// CEL's standard definitions, part four: the timestamp accessors (getFullYear ... getMilliseconds,
// each optionally in a time zone) and the duration accessors (getHours ... getMilliseconds).
//
// Time zones are IANA names (from the system's zoneinfo, as Go's time.LoadLocation reads them)
// or fixed offsets "+05:30" / "-08:00", which cel-go recognises by the colon.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "controller/cel/internal/function.h"
#include "controller/cel/internal/standard_library_internal.h"
#include "controller/cel/internal/time_format.h"
#include "controller/cel/types.h"
#include "controller/cel/value.h"

namespace gpuprofile::cel::internal {
namespace {

// Go's strconv.Atoi for the parts of a fixed offset; small values only (an offset of more than a
// few days is meaningless, and this keeps the arithmetic far from overflow).
std::optional<int> ParseOffsetPart(absl::string_view s, bool allow_sign) {
  bool negative = false;
  if (allow_sign && !s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 6) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

// Whether a zone name is safe to hand to the zoneinfo loader: relative, without "..", made of
// the characters IANA names use. (Go refuses the same escapes with "invalid location name".)
bool SafeZoneName(absl::string_view name) {
  if (name.empty() || name[0] == '/' || absl::StrContains(name, "..")) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '/' || c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

// Resolves a CEL time zone argument, or sets `error`.
std::optional<absl::TimeZone> ResolveZone(absl::string_view tz, Value* error) {
  const size_t colon = tz.find(':');
  if (colon == absl::string_view::npos) {
    // Go: "" and "UTC" are UTC. "Local" is the process's zone in Go; the pure core has none, and
    // API servers run in UTC, so it is UTC here too.
    if (tz.empty() || tz == "UTC" || tz == "Local") return absl::UTCTimeZone();
    absl::TimeZone zone;
    if (!SafeZoneName(tz) || !absl::LoadTimeZone(std::string(tz), &zone)) {
      *error = Value::Error(absl::StrCat("unknown time zone ", tz));
      return std::nullopt;
    }
    return zone;
  }
  // cel-go: hours (signed) before the colon, minutes after; the sign of the hours applies to the
  // minutes too.
  std::optional<int> hours = ParseOffsetPart(tz.substr(0, colon), /*allow_sign=*/true);
  std::optional<int> minutes = ParseOffsetPart(tz.substr(colon + 1), /*allow_sign=*/false);
  if (!hours.has_value() || !minutes.has_value()) {
    *error = Value::Error(absl::StrCat("invalid time zone offset ", tz));
    return std::nullopt;
  }
  const int64_t offset_minutes =
      tz[0] == '-' ? int64_t{*hours} * 60 - *minutes : int64_t{*hours} * 60 + *minutes;
  // absl's fixed zones are limited to under a day either way (it falls back to UTC beyond);
  // treat larger offsets as invalid rather than silently using UTC.
  if (offset_minutes <= -24 * 60 || offset_minutes >= 24 * 60) {
    *error = Value::Error(absl::StrCat("invalid time zone offset ", tz));
    return std::nullopt;
  }
  return absl::FixedTimeZone(static_cast<int>(offset_minutes * 60));
}

using Accessor = int64_t (*)(const absl::TimeZone::CivilInfo& civil, absl::Time t);

int64_t FullYear(const absl::TimeZone::CivilInfo& c, absl::Time) { return c.cs.year(); }
int64_t Month(const absl::TimeZone::CivilInfo& c, absl::Time) { return c.cs.month() - 1; }
int64_t DayOfYear(const absl::TimeZone::CivilInfo& c, absl::Time) {
  return absl::GetYearDay(absl::CivilDay(c.cs)) - 1;
}
int64_t DayOfMonthZeroBased(const absl::TimeZone::CivilInfo& c, absl::Time) {
  return c.cs.day() - 1;
}
int64_t DayOfMonthOneBased(const absl::TimeZone::CivilInfo& c, absl::Time) { return c.cs.day(); }
int64_t DayOfWeek(const absl::TimeZone::CivilInfo& c, absl::Time) {
  // absl numbers Monday..Sunday as 0..6; CEL (as Go) numbers Sunday..Saturday as 0..6.
  return (static_cast<int>(absl::GetWeekday(absl::CivilDay(c.cs))) + 1) % 7;
}
int64_t Hours(const absl::TimeZone::CivilInfo& c, absl::Time) { return c.cs.hour(); }
int64_t Minutes(const absl::TimeZone::CivilInfo& c, absl::Time) { return c.cs.minute(); }
int64_t Seconds(const absl::TimeZone::CivilInfo& c, absl::Time) { return c.cs.second(); }
int64_t Milliseconds(const absl::TimeZone::CivilInfo& c, absl::Time) {
  return absl::ToInt64Milliseconds(c.subsecond);
}

struct TimestampAccessor {
  const char* function;
  const char* id;          // without a time zone
  const char* id_with_tz;  // with one
  Accessor accessor;
};

void RegisterTimestampAccessors(FunctionRegistry& r) {
  const std::vector<TimestampAccessor> accessors = {
      {"getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz", FullYear},
      {"getMonth", "timestamp_to_month", "timestamp_to_month_with_tz", Month},
      {"getDayOfYear", "timestamp_to_day_of_year", "timestamp_to_day_of_year_with_tz", DayOfYear},
      {"getDayOfMonth", "timestamp_to_day_of_month", "timestamp_to_day_of_month_with_tz",
       DayOfMonthZeroBased},
      {"getDate", "timestamp_to_day_of_month_1_based",
       "timestamp_to_day_of_month_1_based_with_tz", DayOfMonthOneBased},
      {"getDayOfWeek", "timestamp_to_day_of_week", "timestamp_to_day_of_week_with_tz", DayOfWeek},
      {"getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz", Hours},
      {"getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz", Minutes},
      {"getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz", Seconds},
      {"getMilliseconds", "timestamp_to_milliseconds", "timestamp_to_milliseconds_with_tz",
       Milliseconds},
  };
  for (const TimestampAccessor& a : accessors) {
    const Accessor accessor = a.accessor;
    r.Add(a.function, MakeOverload(
                          a.id, {Type::Timestamp()}, Type::Int(),
                          [accessor](absl::Span<const Value> args) {
                            const absl::Time t = args[0].timestamp_value();
                            return Value::Int(accessor(absl::UTCTimeZone().At(t), t));
                          },
                          /*receiver_style=*/true));
    r.Add(a.function, MakeOverload(
                          a.id_with_tz, {Type::Timestamp(), Type::String()}, Type::Int(),
                          [accessor](absl::Span<const Value> args) {
                            Value error;
                            std::optional<absl::TimeZone> zone =
                                ResolveZone(args[1].string_value(), &error);
                            if (!zone.has_value()) return error;
                            const absl::Time t = args[0].timestamp_value();
                            return Value::Int(accessor(zone->At(t), t));
                          },
                          /*receiver_style=*/true));
  }
}

void RegisterDurationAccessors(FunctionRegistry& r) {
  struct DurationAccessor {
    const char* function;
    const char* id;
    int64_t unit_nanos;
  };
  const std::vector<DurationAccessor> accessors = {
      {"getHours", "duration_to_hours", int64_t{3600} * 1000000000},
      {"getMinutes", "duration_to_minutes", int64_t{60} * 1000000000},
      {"getSeconds", "duration_to_seconds", 1000000000},
      {"getMilliseconds", "duration_to_milliseconds", 1000000},
  };
  for (const DurationAccessor& a : accessors) {
    const int64_t unit = a.unit_nanos;
    // Whole units of the total duration, truncated toward zero (Go's int64(d.Hours()) etc.).
    r.Add(a.function, MakeOverload(
                          a.id, {Type::Duration()}, Type::Int(),
                          [unit](absl::Span<const Value> args) {
                            std::optional<int64_t> n = DurationToNanos(args[0].duration_value());
                            if (!n.has_value()) return Value::Error(kDurationOverflow);
                            return Value::Int(*n / unit);
                          },
                          /*receiver_style=*/true));
  }
}

}  // namespace

void RegisterStandardTime(FunctionRegistry& registry) {
  RegisterTimestampAccessors(registry);
  RegisterDurationAccessors(registry);
}

}  // namespace gpuprofile::cel::internal
