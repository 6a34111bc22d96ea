// File: controller/profile/cel_literal.h
// Writing CEL source text safely: string literals and attribute access paths.
// Pure; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace gpuprofile::profile {

// A single-quoted CEL string literal denoting exactly `text`: backslash and quote escaped,
// control characters as \n, \r, \t or \xNN; other UTF-8 passes through.
std::string CelString(absl::string_view text);

// True when `name` can follow a dot in CEL (an identifier that is not a reserved word).
bool IsCelFieldName(absl::string_view name);

// `base.name` when `name` is a field name, else `base['name']`.
std::string CelMember(absl::string_view base, absl::string_view name);

}  // namespace gpuprofile::profile
