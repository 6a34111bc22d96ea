// File: controller/profile/cel_literal.h
// Writing CEL attribute access paths (string literals and field names: controller/cel/literal.h).
// Pure; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace gpuprofile::profile {

// `base.name` when `name` is a field name, else `base['name']`.
std::string CelMember(absl::string_view base, absl::string_view name);

}  // namespace gpuprofile::profile
