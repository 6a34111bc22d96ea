// File: controller/cel/internal/time_format.cc
#include "controller/cel/internal/time_format.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"

namespace gpuprofile::cel::internal {
namespace {

constexpr uint64_t kTwoTo63Unsigned = uint64_t{1} << 63;

// Go's time.quote: printable ASCII verbatim (quotes and backslashes escaped), every other byte
// as \xhh. Error messages quote user input this way.
std::string TimeQuote(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < ' ') {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    } else {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  return out;
}

absl::Status InvalidDuration(absl::string_view orig) {
  return absl::InvalidArgumentError(absl::StrCat("time: invalid duration ", TimeQuote(orig)));
}

// Reads leading decimal digits; false when the value exceeds 2^63 (Go's leadingInt).
bool LeadingInt(absl::string_view& s, uint64_t& value) {
  value = 0;
  size_t i = 0;
  for (; i < s.size() && absl::ascii_isdigit(s[i]); ++i) {
    if (value > kTwoTo63Unsigned / 10) return false;
    value = value * 10 + static_cast<uint64_t>(s[i] - '0');
    if (value > kTwoTo63Unsigned) return false;
  }
  s.remove_prefix(i);
  return true;
}

// Reads the digits after a decimal point; digits beyond int64 precision are consumed but ignored
// (Go's leadingFraction).
void LeadingFraction(absl::string_view& s, uint64_t& fraction, double& scale) {
  fraction = 0;
  scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size() && absl::ascii_isdigit(s[i]); ++i) {
    if (overflow) continue;
    if (fraction > (kTwoTo63Unsigned - 1) / 10) {
      overflow = true;
      continue;
    }
    uint64_t next = fraction * 10 + static_cast<uint64_t>(s[i] - '0');
    if (next > kTwoTo63Unsigned) {
      overflow = true;
      continue;
    }
    fraction = next;
    scale *= 10;
  }
  s.remove_prefix(i);
}

std::optional<uint64_t> UnitNanos(absl::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") return 1000;
  if (unit == "ms") return 1000000;
  if (unit == "s") return 1000000000;
  if (unit == "m") return uint64_t{60} * 1000000000;
  if (unit == "h") return uint64_t{3600} * 1000000000;
  return std::nullopt;
}

// Reads exactly `n` digits as an int.
bool ReadDigits(absl::string_view s, size_t& pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (!absl::ascii_isdigit(c)) return false;
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool Expect(absl::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

absl::Status BadTimestamp(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "parsing time ", TimeQuote(text), " as \"2006-01-02T15:04:05Z07:00\": ", why));
}

}  // namespace

bool TimestampInRange(absl::Time t) {
  return t >= absl::FromUnixSeconds(kMinTimestampSeconds) &&
         t < absl::FromUnixSeconds(kMaxTimestampSeconds) + absl::Seconds(1);
}

std::optional<int64_t> DurationToNanos(absl::Duration d) {
  if (d < absl::Nanoseconds(std::numeric_limits<int64_t>::min()) ||
      d > absl::Nanoseconds(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  return absl::ToInt64Nanoseconds(d);
}

std::string FormatRfc3339Nano(absl::Time t) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const absl::CivilSecond cs = absl::ToCivilSecond(t, utc);
  int64_t nanos = absl::ToInt64Nanoseconds(t - absl::FromCivil(cs, utc));
  if (nanos < 0 || nanos >= 1000000000) nanos = 0;  // infinite times have no sub-second part
  std::string out = absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d", cs.year(), cs.month(),
                                    cs.day(), cs.hour(), cs.minute(), cs.second());
  if (nanos > 0) {
    std::string frac = absl::StrFormat("%09d", nanos);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    absl::StrAppend(&out, ".", frac);
  }
  out.push_back('Z');
  return out;
}

absl::StatusOr<absl::Time> ParseRfc3339(absl::string_view text) {
  size_t pos = 0;
  int year, month, day, hour, minute, second;
  if (!ReadDigits(text, pos, 4, year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, day) || !Expect(text, pos, 'T') ||
      !ReadDigits(text, pos, 2, hour) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, minute) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, second)) {
    return BadTimestamp(text, "malformed date or time");
  }
  // Go accepts a fraction (with '.' or ',') after the seconds although the layout has none, and
  // keeps only nanosecond precision.
  int64_t nanos = 0;
  if (pos + 1 < text.size() && (text[pos] == '.' || text[pos] == ',') &&
      absl::ascii_isdigit(text[pos + 1])) {
    ++pos;
    int digits = 0;
    for (; pos < text.size() && absl::ascii_isdigit(text[pos]); ++pos, ++digits) {
      if (digits < 9) nanos = nanos * 10 + (text[pos] - '0');
    }
    for (; digits < 9; ++digits) nanos *= 10;
  }
  int offset_seconds = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int off_hour, off_minute;
    if (!ReadDigits(text, pos, 2, off_hour) || !Expect(text, pos, ':') ||
        !ReadDigits(text, pos, 2, off_minute)) {
      return BadTimestamp(text, "malformed time zone offset");
    }
    if (off_hour > 23 || off_minute > 59) return BadTimestamp(text, "time zone offset out of range");
    offset_seconds = sign * (off_hour * 3600 + off_minute * 60);
  } else {
    return BadTimestamp(text, "missing time zone");
  }
  if (pos != text.size()) return BadTimestamp(text, "extra text after the time zone");

  if (month < 1 || month > 12) return BadTimestamp(text, "month out of range");
  const absl::CivilDay civil_day(year, month, day);
  if (day < 1 || civil_day.month() != month || civil_day.day() != day) {
    return BadTimestamp(text, "day out of range");
  }
  if (hour > 23) return BadTimestamp(text, "hour out of range");
  if (minute > 59) return BadTimestamp(text, "minute out of range");
  if (second > 59) return BadTimestamp(text, "second out of range");
  const absl::CivilSecond cs(year, month, day, hour, minute, second);
  return absl::FromCivil(cs, absl::UTCTimeZone()) - absl::Seconds(offset_seconds) +
         absl::Nanoseconds(nanos);
}

std::string FormatDurationSeconds(absl::Duration d) {
  const int64_t nanos = DurationToNanos(d).value_or(absl::ToInt64Nanoseconds(d));
  // Go's Duration.Seconds(): whole seconds plus the remainder, each converted exactly.
  const double seconds = static_cast<double>(nanos / 1000000000) +
                         static_cast<double>(nanos % 1000000000) / 1e9;
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), seconds, std::chars_format::fixed);
  if (ec != std::errc()) return absl::StrCat(seconds, "s");
  return absl::StrCat(absl::string_view(buf, static_cast<size_t>(end - buf)), "s");
}

absl::StatusOr<absl::Duration> ParseGoDuration(absl::string_view text) {
  const absl::string_view orig = text;
  absl::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return absl::ZeroDuration();
  if (s.empty()) return InvalidDuration(orig);

  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || absl::ascii_isdigit(s[0]))) return InvalidDuration(orig);
    const size_t before_int = s.size();
    uint64_t whole = 0;
    if (!LeadingInt(s, whole)) return InvalidDuration(orig);
    const bool has_int = before_int != s.size();
    uint64_t fraction = 0;
    double scale = 1;
    bool has_fraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const size_t before_fraction = s.size();
      LeadingFraction(s, fraction, scale);
      has_fraction = before_fraction != s.size();
    }
    if (!has_int && !has_fraction) return InvalidDuration(orig);

    size_t unit_len = 0;
    while (unit_len < s.size() && s[unit_len] != '.' && !absl::ascii_isdigit(s[unit_len]))
      ++unit_len;
    if (unit_len == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("time: missing unit in duration ", TimeQuote(orig)));
    }
    const absl::string_view unit_name = s.substr(0, unit_len);
    s.remove_prefix(unit_len);
    const std::optional<uint64_t> unit = UnitNanos(unit_name);
    if (!unit.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("time: unknown unit ", TimeQuote(unit_name),
                                                     " in duration ", TimeQuote(orig)));
    }
    if (whole > kTwoTo63Unsigned / *unit) return InvalidDuration(orig);
    uint64_t value = whole * *unit;
    if (fraction > 0) {
      // Go adds the fraction in floating point; the product is below 2^63 * unit / scale, and
      // scale > fraction, so it stays far below the range where the cast could overflow.
      value += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(*unit) / scale));
      if (value > kTwoTo63Unsigned) return InvalidDuration(orig);
    }
    total += value;
    if (total > kTwoTo63Unsigned) return InvalidDuration(orig);
  }
  if (negative) {
    // total <= 2^63, so its negation fits int64 (2^63 itself is INT64_MIN).
    return absl::Nanoseconds(total == kTwoTo63Unsigned ? std::numeric_limits<int64_t>::min()
                                               : -static_cast<int64_t>(total));
  }
  if (total > kTwoTo63Unsigned - 1) return InvalidDuration(orig);
  return absl::Nanoseconds(static_cast<int64_t>(total));
}

}  // namespace gpuprofile::cel::internal
