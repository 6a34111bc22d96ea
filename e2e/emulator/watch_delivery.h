// File: e2e/emulator/watch_delivery.h
// Delivery of watch events to the clients, off the API server's lock. Each open watch has a
// WatchQueue of pending lines (kept in order); a small pool of sender threads drains the queues
// that have lines, writing each queue's pending lines to its StreamSink in one batch. Whoever
// appends (the API server, under its lock) never waits for a client.
//
// A watch whose client falls behind is ended, as kube-apiserver ends watchers that cannot keep
// up: when more than `max_pending_events` live events wait in its queue, or when more than
// `max_buffered_bytes` sit unread in the transport's buffer, its pending lines are dropped and
// its stream is closed; the client sees the stream end and watches again.
//
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "e2e/emulator/http_types.h"

namespace gpuprofile::e2e {

struct DeliveryOptions {
  size_t senders = 4;                     // sender threads
  size_t max_pending_events = 1000;       // live events queued per watch before it is ended
  size_t max_buffered_bytes = 64u << 20;  // unread transport bytes before a watch is ended
};

// Serialized watch lines are shared by every watch they go to.
using WatchLine = std::shared_ptr<const std::string>;

class WatchDelivery;

// The pending lines of one watch. Created by WatchDelivery::Open.
class WatchQueue : public std::enable_shared_from_this<WatchQueue> {
 public:
  // Appends a line. `live` lines (events after the watch started, bookmarks) count against
  // max_pending_events; the initial ADDED events and replayed history do not. Returns false
  // when the watch is closed, or has just been closed because its client fell behind.
  bool Push(WatchLine line, bool live);
  // Ends the stream once the lines already queued have been written.
  void Close();
  // Ends the stream now, dropping whatever is still queued. Waits at most for a write that a
  // sender has in progress.
  void CloseNow();
  // Not closed (or closing), and the client has not gone away. Never blocks on the client.
  bool alive() const;

  WatchQueue(WatchDelivery* owner, std::shared_ptr<StreamSink> sink);

 private:
  friend class WatchDelivery;
  // Writes what is pending; run by one sender at a time.
  void Drain();

  WatchDelivery* const owner_;
  const std::shared_ptr<StreamSink> sink_;
  mutable absl::Mutex mu_;
  std::deque<std::pair<WatchLine, bool>> pending_ ABSL_GUARDED_BY(mu_);
  size_t live_pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool scheduled_ ABSL_GUARDED_BY(mu_) = false;  // on the ready list or being drained
  bool closing_ ABSL_GUARDED_BY(mu_) = false;    // close after the pending lines
  bool overflowed_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

class WatchDelivery {
 public:
  explicit WatchDelivery(DeliveryOptions options = {});
  // Drains the queues that are scheduled, then stops the senders. Streams still open stay
  // open: close them first (WatchQueue::CloseNow).
  ~WatchDelivery();
  WatchDelivery(const WatchDelivery&) = delete;
  WatchDelivery& operator=(const WatchDelivery&) = delete;

  std::shared_ptr<WatchQueue> Open(std::shared_ptr<StreamSink> sink);
  const DeliveryOptions& options() const { return options_; }

 private:
  friend class WatchQueue;
  void Schedule(std::shared_ptr<WatchQueue> queue);
  void Run();

  const DeliveryOptions options_;
  absl::Mutex mu_;
  std::deque<std::shared_ptr<WatchQueue>> ready_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> senders_;
};

}  // namespace gpuprofile::e2e
