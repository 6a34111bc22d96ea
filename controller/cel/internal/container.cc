// File: controller/cel/internal/container.cc
#include "controller/cel/internal/container.h"

#include "absl/strings/str_cat.h"

namespace gpuprofile::cel::internal {

std::vector<std::string> CandidateNames(absl::string_view container, absl::string_view name) {
  if (!name.empty() && name[0] == '.') return {std::string(name.substr(1))};
  std::vector<std::string> out;
  while (!container.empty()) {
    out.push_back(absl::StrCat(container, ".", name));
    const size_t dot = container.rfind('.');
    container = dot == absl::string_view::npos ? absl::string_view() : container.substr(0, dot);
  }
  out.push_back(std::string(name));
  return out;
}

}  // namespace gpuprofile::cel::internal
