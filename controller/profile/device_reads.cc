// File: controller/profile/device_reads.cc
#include "controller/profile/device_reads.h"

#include <string>

#include "controller/profile/engine.h"
#include "controller/profile/node_groups.h"

namespace gpuprofile::profile {

std::optional<std::vector<DevicePath>> ProfilePaths(const CompiledSelectors& selectors) {
  std::vector<DevicePath> all;
  for (const SelectorTerm& term : selectors.terms) {
    if (term.program == nullptr) return std::nullopt;
    std::optional<std::vector<DevicePath>> paths = ReadPaths(*term.program);
    if (!paths) return std::nullopt;
    all.insert(all.end(), paths->begin(), paths->end());
  }
  return all;
}

dra::AttributeDemand AttributesRead(const SpecPlan& plan) {
  dra::AttributeDemand demand = dra::AttributeDemand::Nothing();
  for (const std::string& id : SignatureIdsOfAnyDriver()) demand.WantOfEveryDriver(id);
  for (const ProfilePlan& profile : plan.profiles) {
    if (!profile.selectors) continue;  // stalled: matches nothing, reads nothing
    std::optional<std::vector<DevicePath>> paths = ProfilePaths(*profile.selectors);
    if (!paths) return dra::AttributeDemand();  // every attribute
    for (const DevicePath& path : *paths) {
      if (path.kind == DevicePath::Kind::kAttribute) demand.Want(path.domain, path.id);
    }
  }
  return demand;
}

}  // namespace gpuprofile::profile
