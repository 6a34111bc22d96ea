// File: controller/runtime/async_event_sink.cc
#include "controller/runtime/async_event_sink.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace gpuprofile::runtime {

AsyncEventSink::AsyncEventSink(EventSink* target, AsyncEventSinkOptions options)
    : target_(target), options_(std::move(options)) {
  thread_ = std::thread([this] { Drain(); });
}

AsyncEventSink::~AsyncEventSink() { (void)Stop(absl::ZeroDuration()); }

absl::Status AsyncEventSink::Create(const Event& event) { return Enqueue(Op::kCreate, event); }

absl::Status AsyncEventSink::UpdateSeries(const Event& event) {
  return Enqueue(Op::kUpdateSeries, event);
}

void AsyncEventSink::CountDropped(int64_t n) {
  if (n <= 0) return;
  stats_.dropped += n;
  if (options_.dropped_total != nullptr) options_.dropped_total->Inc(static_cast<double>(n));
}

absl::Status AsyncEventSink::Enqueue(Op op, const Event& event) {
  absl::MutexLock lock(&mu_);
  if (!accepting_) {
    return absl::FailedPreconditionError(absl::StrCat("event ", event.namespace_name, "/",
                                                      event.name,
                                                      " not written: the event "
                                                      "sink is shutting down"));
  }
  Key key{event.namespace_name, event.name};
  if (op == Op::kUpdateSeries) {
    auto it = queued_.find(key);
    if (it != queued_.end()) {
      it->second->event.series = event.series;
      ++stats_.merged;
      return absl::OkStatus();
    }
  }
  if (queue_.size() >= std::max<size_t>(options_.capacity, 1)) {
    CountDropped(1);
    return absl::ResourceExhaustedError(
        absl::StrCat("event ", event.namespace_name, "/", event.name, " (", event.reason,
                     ") dropped: ", queue_.size(), " event writes are already queued"));
  }
  queue_.push_back(Item{op, event});
  queued_[key] = std::prev(queue_.end());
  return absl::OkStatus();
}

void AsyncEventSink::Drain() {
  absl::MutexLock lock(&mu_);
  while (true) {
    mu_.Await(absl::Condition(
        +[](AsyncEventSink* self)
             ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->quit_ || !self->queue_.empty(); },
        this));
    if (quit_) return;
    Item item = std::move(queue_.front());
    queued_.erase(Key{item.event.namespace_name, item.event.name});
    queue_.pop_front();
    in_flight_ = true;
    mu_.Unlock();
    const absl::Status status =
        item.op == Op::kCreate ? target_->Create(item.event) : target_->UpdateSeries(item.event);
    if (!status.ok()) {
      if (options_.failed_total != nullptr) options_.failed_total->Inc();
      if (options_.on_error) options_.on_error(status, item.event);
    }
    mu_.Lock();
    in_flight_ = false;
    if (status.ok()) {
      ++stats_.written;
    } else {
      ++stats_.failed;
    }
  }
}

bool AsyncEventSink::WaitIdle(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  return options_.clock->AwaitWithDeadline(
      &mu_,
      absl::Condition(
          +[](AsyncEventSink* self)
               ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->queue_.empty() && !self->in_flight_; },
          this),
      deadline);
}

absl::Status AsyncEventSink::Stop(absl::Duration timeout) {
  absl::MutexLock stop_lock(&stop_mu_);
  size_t left = 0;
  {
    absl::MutexLock lock(&mu_);
    if (quit_) return absl::OkStatus();
    accepting_ = false;
  }
  WaitIdle(options_.clock->Now() + timeout);
  {
    absl::MutexLock lock(&mu_);
    left = queue_.size();
    CountDropped(static_cast<int64_t>(left));
    queue_.clear();
    queued_.clear();
    quit_ = true;
  }
  if (thread_.joinable()) thread_.join();
  if (left > 0) {
    return absl::DeadlineExceededError(absl::StrCat("event sink: ", left,
                                                    " queued event writes dropped after waiting ",
                                                    absl::FormatDuration(timeout), " at shutdown"));
  }
  return absl::OkStatus();
}

AsyncEventSink::Stats AsyncEventSink::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

size_t AsyncEventSink::pending() const {
  absl::MutexLock lock(&mu_);
  return queue_.size() + (in_flight_ ? 1 : 0);
}

}  // namespace gpuprofile::runtime
