// File: controller/cel/internal/function.cc
#include "controller/cel/internal/function.h"

#include <utility>

namespace gpuprofile::cel::internal {

void FunctionRegistry::Add(absl::string_view name, Overload overload) {
  functions_[std::string(name)].push_back(std::move(overload));
}

const std::vector<Overload>* FunctionRegistry::Find(absl::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

}  // namespace gpuprofile::cel::internal
