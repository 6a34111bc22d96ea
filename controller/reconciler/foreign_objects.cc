// File: controller/reconciler/foreign_objects.cc
#include "controller/reconciler/foreign_objects.h"

namespace gpuprofile::reconciler {

ForeignObjects::ForeignObjects(runtime::Clock* clock, absl::Duration ttl)
    : clock_(clock), ttl_(ttl) {}

void ForeignObjects::AddTemplate(dra::ResourceClaimTemplate foreign) {
  auto key = std::make_pair(foreign.metadata.namespace_name, foreign.metadata.name);
  auto entry = std::make_pair(
      std::make_shared<const dra::ResourceClaimTemplate>(std::move(foreign)), clock_->Now());
  absl::MutexLock lock(&mu_);
  templates_[std::move(key)] = std::move(entry);
  ++version_;
}

uint64_t ForeignObjects::Snapshot(
    std::vector<std::shared_ptr<const dra::ResourceClaimTemplate>>* templates) {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  for (auto it = templates_.begin(); it != templates_.end();) {
    if (now - it->second.second >= ttl_) {
      it = templates_.erase(it);
      ++version_;
    } else {
      ++it;
    }
  }
  if (templates != nullptr) {
    templates->clear();
    for (const auto& [key, entry] : templates_) templates->push_back(entry.first);
  }
  return version_;
}

}  // namespace gpuprofile::reconciler
