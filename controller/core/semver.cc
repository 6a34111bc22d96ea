// File: controller/core/semver.cc
// ParseStrict mirrors blang/semver v4's Parse check by check and in the same order, so that the
// first problem reported is the one Kubernetes reports, worded the same way (CEL's semver()
// passes blang's message through unchanged). ParseNormalized mirrors Kubernetes'
// normalizeAndParse (apiserver pkg/cel/library/semverlib.go).
#include "controller/core/semver.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"

namespace gpuprofile {
namespace {

bool IsAlphanumOrHyphen(char c) {
  return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

bool ContainsOnlyDigits(absl::string_view s) {
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

bool ContainsOnlyAlphanum(absl::string_view s) {
  for (char c : s) {
    if (!IsAlphanumOrHyphen(c)) return false;
  }
  return true;
}

bool HasLeadingZeroes(absl::string_view s) { return s.size() > 1 && s[0] == '0'; }

// Go's %q for the ASCII strings that reach these messages (non-printable bytes as \xNN).
std::string GoQuote(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  return out;
}

// strconv.ParseUint(s, 10, 64), with Go's error text.
absl::Status ParseUint64(absl::string_view s, uint64_t* out) {
  uint64_t value = 0;
  if (s.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("strconv.ParseUint: parsing ", GoQuote(s), ": invalid syntax"));
  }
  for (char c : s) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      return absl::InvalidArgumentError(
          absl::StrCat("strconv.ParseUint: parsing ", GoQuote(s), ": value out of range"));
    }
    value = value * 10 + digit;
  }
  *out = value;
  return absl::OkStatus();
}

// A numeric component: digits only, no leading zero, within uint64.
absl::Status ParseComponent(absl::string_view s, absl::string_view name,
                            absl::string_view capitalized, uint64_t* out) {
  if (!ContainsOnlyDigits(s)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid character(s) found in ", name, " number ", GoQuote(s)));
  }
  if (HasLeadingZeroes(s)) {
    return absl::InvalidArgumentError(absl::StrCat(
        capitalized, " number must not contain leading zeroes ", GoQuote(s)));
  }
  return ParseUint64(s, out);
}

// Semver precedence of two prerelease identifiers: numeric ones compare as numbers and sort
// before alphanumeric ones, which compare as ASCII strings.
int ComparePrereleaseId(const std::string& a, const std::string& b) {
  const bool a_num = ContainsOnlyDigits(a);
  const bool b_num = ContainsOnlyDigits(b);
  if (a_num != b_num) return a_num ? -1 : 1;
  if (a_num && a.size() != b.size()) {
    return a.size() < b.size() ? -1 : 1;  // no leading zeros, so longer is larger
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

absl::StatusOr<Semver> Semver::ParseStrict(absl::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("Version string empty");
  std::vector<absl::string_view> parts = absl::StrSplit(text, absl::MaxSplits('.', 2));
  if (parts.size() != 3) {
    return absl::InvalidArgumentError("No Major.Minor.Patch elements found");
  }
  Semver v;
  if (absl::Status s = ParseComponent(parts[0], "major", "Major", &v.major_); !s.ok()) return s;
  if (absl::Status s = ParseComponent(parts[1], "minor", "Minor", &v.minor_); !s.ok()) return s;

  absl::string_view patch = parts[2];
  std::vector<std::string> build;
  std::vector<std::string> prerelease;
  if (size_t plus = patch.find('+'); plus != absl::string_view::npos) {
    build = absl::StrSplit(patch.substr(plus + 1), '.');
    patch = patch.substr(0, plus);
  }
  if (size_t dash = patch.find('-'); dash != absl::string_view::npos) {
    prerelease = absl::StrSplit(patch.substr(dash + 1), '.');
    patch = patch.substr(0, dash);
  }
  if (absl::Status s = ParseComponent(patch, "patch", "Patch", &v.patch_); !s.ok()) return s;

  for (const std::string& id : prerelease) {
    if (id.empty()) return absl::InvalidArgumentError("Prerelease is empty");
    if (ContainsOnlyDigits(id)) {
      if (HasLeadingZeroes(id)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Numeric PreRelease version must not contain leading zeroes ", GoQuote(id)));
      }
      uint64_t unused = 0;
      if (absl::Status s = ParseUint64(id, &unused); !s.ok()) return s;
    } else if (!ContainsOnlyAlphanum(id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid character(s) found in prerelease ", GoQuote(id)));
    }
  }
  for (const std::string& id : build) {
    if (id.empty()) return absl::InvalidArgumentError("Build meta data is empty");
    if (!ContainsOnlyAlphanum(id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid character(s) found in build meta data ", GoQuote(id)));
    }
  }
  v.prerelease_ = std::move(prerelease);
  v.build_ = std::move(build);
  return v;
}

absl::StatusOr<Semver> Semver::ParseNormalized(absl::string_view text) {
  // Unlike blang's ParseTolerant, Kubernetes does not trim whitespace here.
  absl::ConsumePrefix(&text, "v");
  std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits('.', 2));
  for (std::string& part : parts) {
    if (part.size() <= 1) continue;
    const size_t first = part.find_first_not_of('0');
    part = first == std::string::npos ? std::string() : part.substr(first);
    if (part.empty() || !absl::ascii_isdigit(part[0])) part.insert(part.begin(), '0');
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return absl::InvalidArgumentError(
          "short version cannot contain PreRelease/Build meta data");
    }
    parts.resize(3, "0");
  }
  return ParseStrict(absl::StrJoin(parts, "."));
}

int Semver::Compare(const Semver& other) const {
  if (major_ != other.major_) return major_ < other.major_ ? -1 : 1;
  if (minor_ != other.minor_) return minor_ < other.minor_ ? -1 : 1;
  if (patch_ != other.patch_) return patch_ < other.patch_ ? -1 : 1;
  // A release sorts after its prereleases.
  if (prerelease_.empty() || other.prerelease_.empty()) {
    if (prerelease_.empty() == other.prerelease_.empty()) return 0;
    return prerelease_.empty() ? 1 : -1;
  }
  const size_t n = std::min(prerelease_.size(), other.prerelease_.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = ComparePrereleaseId(prerelease_[i], other.prerelease_[i]); c != 0) return c;
  }
  // Equal so far: the longer set of identifiers is the greater.
  if (prerelease_.size() == other.prerelease_.size()) return 0;
  return prerelease_.size() < other.prerelease_.size() ? -1 : 1;
}

std::string Semver::ToString() const {
  std::string out = absl::StrCat(major_, ".", minor_, ".", patch_);
  if (!prerelease_.empty()) absl::StrAppend(&out, "-", absl::StrJoin(prerelease_, "."));
  if (!build_.empty()) absl::StrAppend(&out, "+", absl::StrJoin(build_, "."));
  return out;
}

}  // namespace gpuprofile
