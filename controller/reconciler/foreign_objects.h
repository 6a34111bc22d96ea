// File: controller/reconciler/foreign_objects.h
// Observed state the informers cannot give: ResourceClaimTemplates and ResourceQuotas the
// operator does not manage but found in its way. Only labelled objects of these kinds are watched
// (there can be tens of thousands of others), so an unmanaged object with a name a profile wants
// is discovered when a create meets it (409 AlreadyExists, then a GET). The executor records it
// here; the desired state reads this store as one more input, so the engine gives the profile
// `Conflict` and leaves the object alone. Entries expire after `ttl`, so an object deleted later
// is tried again.
// Thread-safety: thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/dra/resource_claim_template.h"
#include "controller/meta/resource_quota.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::reconciler {

class ForeignObjects {
 public:
  // `clock` must outlive this.
  explicit ForeignObjects(runtime::Clock* clock, absl::Duration ttl = absl::Seconds(60));

  // Records (or refreshes) an unmanaged object, keyed by namespace and name.
  void AddTemplate(dra::ResourceClaimTemplate foreign);
  void AddQuota(meta::ResourceQuota foreign);

  // Drops expired entries, then returns the version of the content (moves on every addition and
  // expiry) and, for each pointer that is not null, the objects of that kind held.
  uint64_t Snapshot(std::vector<std::shared_ptr<const dra::ResourceClaimTemplate>>* templates,
                    std::vector<std::shared_ptr<const meta::ResourceQuota>>* quotas = nullptr);

 private:
  // (namespace, name) -> the object and when it was seen.
  template <typename T>
  using Entries = std::map<std::pair<std::string, std::string>,
                           std::pair<std::shared_ptr<const T>, absl::Time>>;

  runtime::Clock* const clock_;
  const absl::Duration ttl_;
  absl::Mutex mu_;
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  Entries<dra::ResourceClaimTemplate> templates_ ABSL_GUARDED_BY(mu_);
  Entries<meta::ResourceQuota> quotas_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::reconciler
