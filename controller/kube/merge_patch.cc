// File: controller/kube/merge_patch.cc
#include "controller/kube/merge_patch.h"

namespace gpuprofile::kube {

nlohmann::json CreateMergePatch(const nlohmann::json& from, const nlohmann::json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  nlohmann::json patch = nlohmann::json::object();
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) patch[key] = nullptr;
  }
  for (const auto& [key, value] : to.items()) {
    auto old = from.find(key);
    if (old == from.end()) {
      patch[key] = value;
    } else if (old->is_object() && value.is_object()) {
      nlohmann::json nested = CreateMergePatch(*old, value);
      if (!nested.empty()) patch[key] = std::move(nested);
    } else if (*old != value) {
      patch[key] = value;
    }
  }
  return patch;
}

}  // namespace gpuprofile::kube
