// File: controller/cel/internal/type_names.h
// The type identifiers CEL predeclares (`int`, `list`, `google.protobuf.Duration`, ...), which
// evaluate to type values and compare with the result of `type(x)`.
#pragma once

#include <optional>

#include "absl/strings/string_view.h"
#include "controller/cel/types.h"

namespace gpuprofile::cel::internal {

// The type an identifier denotes, or nullopt when it is not a predeclared type name.
std::optional<Type> TypeForName(absl::string_view name);

}  // namespace gpuprofile::cel::internal
