// File: controller/core/names.h
// Name and value checks with Kubernetes' rules and wording (k8s.io/apimachinery
// pkg/util/validation and the DRA validation of resource.k8s.io): the one home of these rules,
// used by the object decoders (meta, api), by the CEL format library (`format.dns1123Label()`
// ...) and by anyone who must check a name before writing it into an object.
//
// The `...Errors` functions return Kubernetes' messages for every rule the value breaks, in
// Kubernetes' order (empty when valid), as `util/validation`'s Is* functions do. The `Is...`
// checks return OK or InvalidArgument whose message is those texts joined by "; ". Messages never
// name the field: callers put the field path in front
// ("spec.deviceClassName: invalid value \"X\": <message>").
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace gpuprofile {

inline constexpr int kDnsLabelMaxLength = 63;
inline constexpr int kDnsSubdomainMaxLength = 253;
inline constexpr int kLabelValueMaxLength = 63;
inline constexpr int kQualifiedNameMaxLength = 63;  // the name part of a qualified name
// DRA limits (docs/dra-reference.md §3.1).
inline constexpr int kDraDriverNameMaxLength = 63;      // also the domain of a qualified name
inline constexpr int kDraIdentifierMaxLength = 32;      // C identifier part of an attribute name
inline constexpr int kDraAttributeValueMaxLength = 64;  // string and version attribute values

// Kubernetes' messages, one per broken rule (util/validation's IsDNS1123Label and friends).
std::vector<std::string> DnsLabelErrors(absl::string_view value);
std::vector<std::string> DnsSubdomainErrors(absl::string_view value);
// RFC 1035 label: [a-z]([-a-z0-9]*[a-z0-9])?, at most 63 characters (e.g. Service names).
std::vector<std::string> Dns1035LabelErrors(absl::string_view value);
std::vector<std::string> QualifiedNameErrors(absl::string_view value);
std::vector<std::string> LabelValueErrors(absl::string_view value);

// RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters (object names of most
// kinds, namespaces, DRA request names).
absl::Status IsDnsLabel(absl::string_view value);

// RFC 1123 subdomain: dot-separated RFC 1123 labels, at most 253 characters.
absl::Status IsDnsSubdomain(absl::string_view value);

// Label and annotation keys: [<DNS subdomain>/]<name>, the name at most 63 characters of
// [A-Za-z0-9._-], starting and ending alphanumeric.
absl::Status IsQualifiedName(absl::string_view value);

// Label values: empty, or at most 63 characters of [A-Za-z0-9._-] starting and ending
// alphanumeric.
absl::Status IsLabelValue(absl::string_view value);

// C identifier: [A-Za-z_][A-Za-z0-9_]* (no length limit here).
absl::Status IsCIdentifier(absl::string_view value);

// A DRA driver name (validated like a CSI driver name): non-empty, at most 63 characters, and a
// DNS subdomain once lower-cased.
absl::Status IsDraDriverName(absl::string_view value);

// A DRA attribute or capacity name (resource.k8s.io QualifiedName): a C identifier of at most 32
// characters, or <domain>/<identifier> where the domain is a DRA driver name (at most 63
// characters) and the identifier a C identifier of at most 32.
absl::Status IsDraAttributeName(absl::string_view value);

}  // namespace gpuprofile
