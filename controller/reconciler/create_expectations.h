// File: controller/reconciler/create_expectations.h
// ResourceClaimTemplates this process created whose creation the template informer has not
// delivered yet. A profile is often reconciled again right after a pass that created its
// templates (their own watch events enqueue it): without this record the new pass reads the
// cache, misses the templates the watch has not brought yet and creates them again, which costs
// a 409 AlreadyExists and a GET each (the last namespaces of every profile, in the 20,000-template
// benchmark). The plan skips creating an awaited template and counts it as in place.
//
// An expectation ends with any informer event of its object (added, updated or deleted), when
// the cache is seen to hold the object, or after `ttl`, so a lost event delays a repair by at
// most `ttl` (the pass that skipped a create comes back after it: kAwaitedRecheck).
// Thread-safety: thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::reconciler {

// How long a created template is awaited at most, and when a pass that skipped creating one
// comes back to check.
inline constexpr absl::Duration kAwaitedRecheck = absl::Seconds(30);

class CreateExpectations {
 public:
  // `clock` must outlive this.
  explicit CreateExpectations(runtime::Clock* clock, absl::Duration ttl = kAwaitedRecheck);
  CreateExpectations(const CreateExpectations&) = delete;
  CreateExpectations& operator=(const CreateExpectations&) = delete;

  // `owner` (a profile's name) created the object at `key` ("<namespace>/<name>").
  void Expect(const std::string& owner, const std::string& key) ABSL_LOCKS_EXCLUDED(mu_);
  // An informer event of the object at `key`: the cache has caught up with it.
  void Observed(const std::string& key) ABSL_LOCKS_EXCLUDED(mu_);
  // The keys `owner` still awaits. Those `cached` says the cache holds, and those past their
  // deadline, end here.
  std::set<std::string> Awaited(const std::string& owner,
                                absl::FunctionRef<bool(const std::string& key)> cached)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The owner is gone: its expectations end.
  void Forget(const std::string& owner) ABSL_LOCKS_EXCLUDED(mu_);
  // Expectations held (for tests and diagnostics).
  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    std::string owner;
    absl::Time deadline;
  };
  void EraseLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  runtime::Clock* const clock_;
  const absl::Duration ttl_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> by_key_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::set<std::string>> by_owner_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::reconciler
