// File: controller/reconciler/create_expectations.cc
#include "controller/reconciler/create_expectations.h"

#include <vector>

namespace gpuprofile::reconciler {

CreateExpectations::CreateExpectations(runtime::Clock* clock, absl::Duration ttl)
    : clock_(clock), ttl_(ttl) {}

void CreateExpectations::Expect(const std::string& owner, const std::string& key) {
  const absl::Time deadline = clock_->Now() + ttl_;
  absl::MutexLock lock(&mu_);
  EraseLocked(key);  // a key has one owner: the latest creator
  by_key_[key] = Entry{owner, deadline};
  by_owner_[owner].insert(key);
}

void CreateExpectations::Observed(const std::string& key) {
  absl::MutexLock lock(&mu_);
  EraseLocked(key);
}

std::set<std::string> CreateExpectations::Awaited(
    const std::string& owner, absl::FunctionRef<bool(const std::string& key)> cached) {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  auto it = by_owner_.find(owner);
  if (it == by_owner_.end()) return {};
  std::vector<std::string> ended;
  std::set<std::string> awaited;
  for (const std::string& key : it->second) {
    if (by_key_.at(key).deadline <= now || cached(key)) {
      ended.push_back(key);
    } else {
      awaited.insert(key);
    }
  }
  for (const std::string& key : ended) EraseLocked(key);
  return awaited;
}

void CreateExpectations::Forget(const std::string& owner) {
  absl::MutexLock lock(&mu_);
  auto it = by_owner_.find(owner);
  if (it == by_owner_.end()) return;
  for (const std::string& key : it->second) by_key_.erase(key);
  by_owner_.erase(it);
}

size_t CreateExpectations::size() const {
  absl::MutexLock lock(&mu_);
  return by_key_.size();
}

void CreateExpectations::EraseLocked(const std::string& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  auto owner = by_owner_.find(it->second.owner);
  if (owner != by_owner_.end()) {
    owner->second.erase(key);
    if (owner->second.empty()) by_owner_.erase(owner);
  }
  by_key_.erase(it);
}

}  // namespace gpuprofile::reconciler
