// File: controller/core/names.cc
// The texts follow k8s.io/apimachinery/pkg/util/validation (RegexError, MaxLenError, EmptyError)
// and pkg/apis/resource/validation so that users see what the API server would print.
#include "controller/core/names.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gpuprofile {
namespace {

using Messages = std::vector<std::string>;

constexpr char kDnsLabelFmt[] = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr char kDnsSubdomainFmt[] =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr char kDns1035LabelFmt[] = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr char kQualifiedNameFmt[] = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr char kLabelValueFmt[] = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr char kCIdentifierFmt[] = "[A-Za-z_][A-Za-z0-9_]*";
constexpr char kQualifiedNameErrMsg[] =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

// Kubernetes' RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')".
std::string RegexError(absl::string_view msg, absl::string_view fmt,
                       const std::vector<absl::string_view>& examples) {
  if (examples.empty()) return absl::StrCat(msg, " (regex used for validation is '", fmt, "')");
  std::string out = absl::StrCat(msg, " (e.g. ");
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    absl::StrAppend(&out, "'", examples[i], "', ");
  }
  absl::StrAppend(&out, "regex used for validation is '", fmt, "')");
  return out;
}

std::string MaxLenError(int n) { return absl::StrCat("must be no more than ", n, " characters"); }

absl::Status ToStatus(const Messages& messages) {
  if (messages.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(messages, "; "));
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, or ^[a-z]([-a-z0-9]*[a-z0-9])?$ for RFC 1035.
bool MatchesDnsLabel(absl::string_view s, bool rfc1035 = false) {
  if (s.empty()) return false;
  if (rfc1035 ? !(s.front() >= 'a' && s.front() <= 'z') : !IsLowerAlnum(s.front())) return false;
  if (!IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDnsSubdomain(absl::string_view s) {
  for (absl::string_view label : absl::StrSplit(s, '.')) {
    if (!MatchesDnsLabel(label)) return false;
  }
  return true;
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool MatchesQualifiedName(absl::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool MatchesCIdentifier(absl::string_view s) {
  if (s.empty() || absl::ascii_isdigit(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '_') return false;
  }
  return true;
}

Messages CIdentifierMessages(absl::string_view value) {
  if (MatchesCIdentifier(value)) return {};
  return {RegexError(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of "
      "alphanumeric characters or '_'",
      kCIdentifierFmt, {"my_name", "MY_NAME", "MyName"})};
}

// DRA's validateCIdentifier: length limit plus the identifier rule.
Messages DraIdentifierMessages(absl::string_view value) {
  Messages messages;
  if (value.size() > kDraIdentifierMaxLength) {
    messages.push_back(MaxLenError(kDraIdentifierMaxLength));
  }
  for (std::string& m : CIdentifierMessages(value)) messages.push_back(std::move(m));
  return messages;
}

// Kubernetes' ValidateCSIDriverName, which DRA uses for driver names and attribute domains.
Messages DraDriverNameMessages(absl::string_view value) {
  if (value.empty()) return {"must be non-empty"};
  Messages messages;
  if (value.size() > kDraDriverNameMaxLength) {
    messages.push_back(MaxLenError(kDraDriverNameMaxLength));
  }
  for (std::string& m : DnsSubdomainErrors(absl::AsciiStrToLower(value))) {
    messages.push_back(std::move(m));
  }
  return messages;
}

}  // namespace

std::vector<std::string> DnsLabelErrors(absl::string_view value) {
  Messages messages;
  if (value.size() > kDnsLabelMaxLength) messages.push_back(MaxLenError(kDnsLabelMaxLength));
  if (!MatchesDnsLabel(value)) {
    if (!value.empty() && MatchesDnsSubdomain(value)) {
      messages.push_back("must not contain dots");
    } else {
      messages.push_back(RegexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
          "and must start and end with an alphanumeric character",
          kDnsLabelFmt, {"my-name", "123-abc"}));
    }
  }
  return messages;
}

std::vector<std::string> DnsSubdomainErrors(absl::string_view value) {
  Messages messages;
  if (value.size() > kDnsSubdomainMaxLength) {
    messages.push_back(MaxLenError(kDnsSubdomainMaxLength));
  }
  if (!MatchesDnsSubdomain(value)) {
    messages.push_back(RegexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character",
        kDnsSubdomainFmt, {"example.com"}));
  }
  return messages;
}

std::vector<std::string> Dns1035LabelErrors(absl::string_view value) {
  Messages messages;
  if (value.size() > kDnsLabelMaxLength) messages.push_back(MaxLenError(kDnsLabelMaxLength));
  if (!MatchesDnsLabel(value, /*rfc1035=*/true)) {
    messages.push_back(RegexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
        "an alphabetic character, and end with an alphanumeric character",
        kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return messages;
}

std::vector<std::string> QualifiedNameErrors(absl::string_view value) {
  Messages messages;
  std::vector<absl::string_view> parts = absl::StrSplit(value, '/');
  absl::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    name = parts[1];
    if (parts[0].empty()) {
      messages.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : DnsSubdomainErrors(parts[0])) {
        messages.push_back(absl::StrCat("prefix part ", m));
      }
    }
  } else {
    return {absl::StrCat(
        "a qualified name ",
        RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}),
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")};
  }
  if (name.empty()) {
    messages.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    messages.push_back(absl::StrCat("name part ", MaxLenError(kQualifiedNameMaxLength)));
  }
  if (!MatchesQualifiedName(name)) {
    messages.push_back(absl::StrCat(
        "name part ",
        RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"})));
  }
  return messages;
}

std::vector<std::string> LabelValueErrors(absl::string_view value) {
  Messages messages;
  if (value.size() > kLabelValueMaxLength) messages.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesQualifiedName(value)) {
    messages.push_back(RegexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character",
        kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return messages;
}

absl::Status IsDnsLabel(absl::string_view value) { return ToStatus(DnsLabelErrors(value)); }

absl::Status IsDnsSubdomain(absl::string_view value) { return ToStatus(DnsSubdomainErrors(value)); }

absl::Status IsQualifiedName(absl::string_view value) {
  return ToStatus(QualifiedNameErrors(value));
}

absl::Status IsLabelValue(absl::string_view value) { return ToStatus(LabelValueErrors(value)); }

absl::Status IsCIdentifier(absl::string_view value) { return ToStatus(CIdentifierMessages(value)); }

absl::Status IsDraDriverName(absl::string_view value) {
  return ToStatus(DraDriverNameMessages(value));
}

absl::Status IsDraAttributeName(absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError("name required");
  std::vector<absl::string_view> parts = absl::StrSplit(value, '/');
  if (parts.size() == 1) return ToStatus(DraIdentifierMessages(value));
  if (parts.size() > 2) {
    return absl::InvalidArgumentError("must be either a C identifier or a domain/C identifier");
  }
  Messages messages;
  if (parts[0].empty()) {
    messages.push_back("the domain must not be empty");
  } else {
    for (std::string& m : DraDriverNameMessages(parts[0])) {
      messages.push_back(absl::StrCat("domain part ", m));
    }
  }
  if (parts[1].empty()) {
    messages.push_back("the name must not be empty");
  } else {
    for (std::string& m : DraIdentifierMessages(parts[1])) {
      messages.push_back(absl::StrCat("name part ", m));
    }
  }
  return ToStatus(messages);
}

}  // namespace gpuprofile
