// File: controller/cel/internal/container.h
// Name resolution within an environment's container, as cel-go's
// Container.ResolveCandidateNames: the one home for the checker and the planner.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace gpuprofile::cel::internal {

// Candidate fully qualified names for `name` within `container`, most specific first:
// "a.b.c.x", "a.b.x", "a.x", "x" for container "a.b.c". A leading dot ("."x) names the root: the
// only candidate is "x".
std::vector<std::string> CandidateNames(absl::string_view container, absl::string_view name);

}  // namespace gpuprofile::cel::internal
