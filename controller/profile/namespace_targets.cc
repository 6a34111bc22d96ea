// File: controller/profile/namespace_targets.cc
#include "controller/profile/namespace_targets.h"

#include <algorithm>
#include <map>

namespace gpuprofile::profile {

std::vector<std::string> TargetNamespaces(const api::ClaimTemplateSpec& spec,
                                          const std::vector<meta::Namespace>& namespaces,
                                          bool namespaces_complete) {
  std::map<std::string, const meta::Namespace*> by_name;
  for (const meta::Namespace& ns : namespaces) by_name[ns.metadata.name] = &ns;

  std::vector<std::string> out;
  for (const std::string& name : spec.namespaces) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      if (!namespaces_complete) out.push_back(name);
    } else if (!it->second->terminating) {
      out.push_back(name);
    }
  }
  if (spec.namespace_selector) {
    for (const meta::Namespace& ns : namespaces) {
      if (!ns.terminating && spec.namespace_selector->Matches(ns.metadata.labels)) {
        out.push_back(ns.metadata.name);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gpuprofile::profile
