// File: controller/cel/internal/attribute_reads.h
// Finds the attribute paths (attribute_paths.h) a checked expression reads of one variable.
// Thread-safety: pure function.
#pragma once

#include <vector>

#include "absl/strings/string_view.h"
#include "controller/cel/attribute_paths.h"
#include "controller/cel/internal/checker.h"

namespace gpuprofile::cel::internal {

// The paths `checked` reads of the declared variable `variable`, sorted and unique. References
// are those the checker resolved to the variable (so locals of the same name are not reads).
std::vector<AttributePath> CollectAttributePaths(const CheckedAst& checked,
                                                 absl::string_view variable);

}  // namespace gpuprofile::cel::internal
