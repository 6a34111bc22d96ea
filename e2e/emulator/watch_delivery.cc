// File: e2e/emulator/watch_delivery.cc
#include "e2e/emulator/watch_delivery.h"

#include <iostream>

namespace gpuprofile::e2e {

WatchQueue::WatchQueue(WatchDelivery* owner, std::shared_ptr<StreamSink> sink)
    : owner_(owner), sink_(std::move(sink)) {}

bool WatchQueue::Push(WatchLine line, bool live) {
  bool schedule = false;
  bool accepted = true;
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || closed_) return false;
    if (live && live_pending_ >= owner_->options().max_pending_events) {
      overflowed_ = true;
      closing_ = true;
      pending_.clear();
      live_pending_ = 0;
      accepted = false;
    } else {
      pending_.emplace_back(std::move(line), live);
      if (live) ++live_pending_;
    }
    schedule = !scheduled_;
    scheduled_ = true;
  }
  if (schedule) owner_->Schedule(shared_from_this());
  return accepted;
}

void WatchQueue::Close() {
  bool schedule = false;
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || closed_) return;
    closing_ = true;
    schedule = !scheduled_;
    scheduled_ = true;
  }
  if (schedule) owner_->Schedule(shared_from_this());
}

void WatchQueue::CloseNow() {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closing_ = true;
    closed_ = true;
    pending_.clear();
    live_pending_ = 0;
  }
  sink_->Close();  // waits for a sender's write in progress, if any
}

bool WatchQueue::alive() const {
  absl::MutexLock lock(&mu_);
  return !closing_ && !closed_ && sink_->alive();
}

void WatchQueue::Drain() {
  std::deque<std::pair<WatchLine, bool>> lines;
  bool overflowed = false;
  bool close_after = false;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) {
      scheduled_ = false;
      return;
    }
    overflowed = overflowed_;
    close_after = closing_;
    lines.swap(pending_);
    live_pending_ = 0;
    if (overflowed) {
      closed_ = true;
      scheduled_ = false;
      lines.clear();
    }
  }
  if (overflowed) {
    std::cerr << "kube-emulator: watch ended: more than " << owner_->options().max_pending_events
              << " events pending for a client that does not keep up\n";
    sink_->Close();
    return;
  }
  bool ok = true;
  if (!lines.empty()) {
    if (lines.size() == 1) {
      ok = sink_->Write(*lines.front().first);
    } else {
      size_t total = 0;
      for (const auto& l : lines) total += l.first->size();
      std::string batch;
      batch.reserve(total);
      for (const auto& l : lines) batch += *l.first;
      ok = sink_->Write(batch);
    }
    if (ok && sink_->buffered() > owner_->options().max_buffered_bytes) {
      std::cerr << "kube-emulator: watch ended: more than " << owner_->options().max_buffered_bytes
                << " bytes unread by a client that does not keep up\n";
      ok = false;
    }
  }
  if (!ok || close_after) {
    {
      absl::MutexLock lock(&mu_);
      closed_ = true;
      closing_ = true;
      pending_.clear();
      live_pending_ = 0;
      scheduled_ = false;
    }
    sink_->Close();
    return;
  }
  bool again = false;
  {
    absl::MutexLock lock(&mu_);
    again = !closed_ && (!pending_.empty() || closing_);
    if (!again) scheduled_ = false;
  }
  if (again) owner_->Schedule(shared_from_this());
}

WatchDelivery::WatchDelivery(DeliveryOptions options) : options_(options) {
  size_t n = options_.senders == 0 ? 1 : options_.senders;
  for (size_t i = 0; i < n; ++i) senders_.emplace_back([this] { Run(); });
}

WatchDelivery::~WatchDelivery() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : senders_) t.join();
}

std::shared_ptr<WatchQueue> WatchDelivery::Open(std::shared_ptr<StreamSink> sink) {
  return std::make_shared<WatchQueue>(this, std::move(sink));
}

void WatchDelivery::Schedule(std::shared_ptr<WatchQueue> queue) {
  absl::MutexLock lock(&mu_);
  ready_.push_back(std::move(queue));
}

void WatchDelivery::Run() {
  while (true) {
    std::shared_ptr<WatchQueue> queue;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](WatchDelivery* d)
               ABSL_EXCLUSIVE_LOCKS_REQUIRED(d->mu_) { return d->stopping_ || !d->ready_.empty(); },
          this));
      if (ready_.empty()) return;  // stopping, and nothing left
      queue = std::move(ready_.front());
      ready_.pop_front();
    }
    queue->Drain();
  }
}

}  // namespace gpuprofile::e2e
