// File: controller/runtime/work_queue.cc
#include "controller/runtime/work_queue.h"

#include <algorithm>
#include <utility>

namespace gpuprofile::runtime {

WorkQueue::WorkQueue(WorkQueueOptions options)
    : name_(std::move(options.name)),
      clock_(options.clock),
      rate_limiter_(options.rate_limiter != nullptr ? std::move(options.rate_limiter)
                                                    : DefaultControllerRateLimiter(options.clock)),
      metrics_(options.metrics) {}

void WorkQueue::UpdateDepthLocked() {
  if (metrics_.depth != nullptr) metrics_.depth->Set(static_cast<double>(queue_.size()));
}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already queued, or re-queued after Done
  if (metrics_.adds != nullptr) metrics_.adds->Inc();
  if (processing_.contains(key)) return;  // Done() queues it
  queue_.push_back(key);
  UpdateDepthLocked();
}

void WorkQueue::PromoteDueLocked() {
  if (waiting_.empty()) return;
  const absl::Time now = clock_->Now();
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    std::string key = std::move(waiting_.begin()->second);
    waiting_.erase(waiting_.begin());
    waiting_by_key_.erase(key);
    AddLocked(key);
  }
}

void WorkQueue::Add(const std::string& key) {
  absl::MutexLock lock(&mu_);
  AddLocked(key);
}

void WorkQueue::AddUrgent(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (shutting_down_) return;
  if (dirty_.insert(key).second) {
    if (metrics_.adds != nullptr) metrics_.adds->Inc();
    if (processing_.contains(key)) return;  // Done() queues it (at the back: it just ran)
    queue_.push_front(key);
    UpdateDepthLocked();
    return;
  }
  // Already waiting in the queue: move it to the front.
  auto it = std::find(queue_.begin(), queue_.end(), key);
  if (it == queue_.end() || it == queue_.begin()) return;
  queue_.erase(it);
  queue_.push_front(key);
}

void WorkQueue::AddAfter(const std::string& key, absl::Duration delay) {
  absl::MutexLock lock(&mu_);
  if (shutting_down_) return;
  if (metrics_.retries != nullptr) metrics_.retries->Inc();
  if (delay <= absl::ZeroDuration()) {
    AddLocked(key);
    return;
  }
  const absl::Time ready = clock_->Now() + delay;
  auto existing = waiting_by_key_.find(key);
  if (existing != waiting_by_key_.end()) {
    if (existing->second->first <= ready) return;  // the earlier time wins
    waiting_.erase(existing->second);
    waiting_by_key_.erase(existing);
  }
  waiting_by_key_[key] = waiting_.emplace(ready, key);
  ++waiting_generation_;
}

void WorkQueue::AddRateLimited(const std::string& key) { AddAfter(key, rate_limiter_->When(key)); }

void WorkQueue::Forget(const std::string& key) { rate_limiter_->Forget(key); }

int WorkQueue::NumRequeues(const std::string& key) { return rate_limiter_->NumRequeues(key); }

bool WorkQueue::ShouldWake(WakeArg* arg) {
  const WorkQueue& q = *arg->queue;
  return !q.queue_.empty() || q.shutting_down_ || q.waiting_generation_ != arg->generation;
}

std::optional<std::string> WorkQueue::Get() {
  absl::MutexLock lock(&mu_);
  while (true) {
    PromoteDueLocked();
    if (!queue_.empty() || shutting_down_) break;
    WakeArg arg{this, waiting_generation_};
    const absl::Condition wake(&WorkQueue::ShouldWake, &arg);
    const absl::Time deadline = waiting_.empty() ? absl::InfiniteFuture() : waiting_.begin()->first;
    clock_->AwaitWithDeadline(&mu_, wake, deadline);
  }
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  UpdateDepthLocked();
  processing_.insert(key);
  dirty_.erase(key);
  return key;
}

void WorkQueue::Done(const std::string& key) {
  absl::MutexLock lock(&mu_);
  processing_.erase(key);
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    UpdateDepthLocked();
  }
}

int WorkQueue::Len() {
  absl::MutexLock lock(&mu_);
  PromoteDueLocked();
  return static_cast<int>(queue_.size());
}

int WorkQueue::NumWaiting() {
  absl::MutexLock lock(&mu_);
  PromoteDueLocked();
  return static_cast<int>(waiting_.size());
}

int WorkQueue::NumProcessing() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(processing_.size());
}

bool WorkQueue::Idle() {
  absl::MutexLock lock(&mu_);
  PromoteDueLocked();
  return queue_.empty() && waiting_.empty() && processing_.empty();
}

void WorkQueue::ShutDown() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  waiting_.clear();
  waiting_by_key_.clear();
}

void WorkQueue::ShutDownWithDrain() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  waiting_.clear();
  waiting_by_key_.clear();
  mu_.Await(absl::Condition(
      +[](absl::flat_hash_set<std::string>* processing) { return processing->empty(); },
      &processing_));
}

bool WorkQueue::ShuttingDown() {
  absl::MutexLock lock(&mu_);
  return shutting_down_;
}

}  // namespace gpuprofile::runtime
