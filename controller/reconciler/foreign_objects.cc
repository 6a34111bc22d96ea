// File: controller/reconciler/foreign_objects.cc
#include "controller/reconciler/foreign_objects.h"

namespace gpuprofile::reconciler {
namespace {

// Drops the entries older than `ttl` (counting each in `*version`), then lists the rest into
// `out` when it is not null.
template <typename T, typename Map>
void Sweep(Map* entries, absl::Time now, absl::Duration ttl, uint64_t* version,
           std::vector<std::shared_ptr<const T>>* out) {
  for (auto it = entries->begin(); it != entries->end();) {
    if (now - it->second.second >= ttl) {
      it = entries->erase(it);
      ++*version;
    } else {
      ++it;
    }
  }
  if (out == nullptr) return;
  out->clear();
  for (const auto& [key, entry] : *entries) out->push_back(entry.first);
}

}  // namespace

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

void ForeignObjects::AddQuota(meta::ResourceQuota foreign) {
  auto key = std::make_pair(foreign.metadata.namespace_name, foreign.metadata.name);
  auto entry = std::make_pair(std::make_shared<const meta::ResourceQuota>(std::move(foreign)),
                              clock_->Now());
  absl::MutexLock lock(&mu_);
  quotas_[std::move(key)] = std::move(entry);
  ++version_;
}

uint64_t ForeignObjects::Snapshot(
    std::vector<std::shared_ptr<const dra::ResourceClaimTemplate>>* templates,
    std::vector<std::shared_ptr<const meta::ResourceQuota>>* quotas) {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  Sweep<dra::ResourceClaimTemplate>(&templates_, now, ttl_, &version_, templates);
  Sweep<meta::ResourceQuota>(&quotas_, now, ttl_, &version_, quotas);
  return version_;
}

}  // namespace gpuprofile::reconciler
