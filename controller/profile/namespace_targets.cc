// File: controller/profile/namespace_targets.cc
#include "controller/profile/namespace_targets.h"

#include <algorithm>

namespace gpuprofile::profile {

namespace {

// The namespace named `name` (of several, the last, as the engine's other readers keep it), or
// null. A scan: profiles name a few namespaces each, and an index of every namespace built for
// each profile cost render more than all of its scans.
const meta::Namespace* Named(const std::vector<meta::Namespace>& namespaces,
                             const std::string& name) {
  for (auto it = namespaces.rbegin(); it != namespaces.rend(); ++it) {
    if (it->metadata.name == name) return &*it;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> TargetNamespaces(const api::ClaimTemplateSpec& spec,
                                          const std::vector<meta::Namespace>& namespaces,
                                          bool namespaces_complete) {
  std::vector<std::string> out;
  for (const std::string& name : spec.namespaces) {
    const meta::Namespace* ns = Named(namespaces, name);
    if (ns == nullptr) {
      if (!namespaces_complete) out.push_back(name);
    } else if (!ns->terminating) {
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
