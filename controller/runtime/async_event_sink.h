// File: controller/runtime/async_event_sink.h
// An EventSink that hands events to another sink on one background thread, so that
// EventRecorder (which calls its sink under its lock) never waits for the API server.
//
//  - The queue is bounded: when `capacity` writes are pending, a new Create is dropped, counted
//    and answered ResourceExhausted (the recorder then does not remember it, so the next
//    occurrence tries again). Events are best-effort, as in client-go.
//  - A series update for an event whose write is still queued is merged into that write (the
//    latest count wins; a queued Create then carries the series), so a burst of repeats costs
//    one request. Merging never needs a free slot.
//  - Failures of the target are counted and handed to `on_error` (e.g. to log them once); they
//    are not retried.
//  - Stop(timeout) stops accepting, lets the thread drain the queue until it is empty or the
//    timeout passes (on the injected clock), then drops the rest (counted) and joins the thread.
//    A write already in progress is waited for: bound it with the target's own timeout.
//
// Thread-safety: thread-safe. `on_error` runs on the background thread.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/event.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::runtime {

struct AsyncEventSinkOptions {
  size_t capacity = 1000;  // pending writes; >= 1
  Clock* clock = RealClock::Default();
  // Optional counters, e.g. families' series; may be null.
  Counter* dropped_total = nullptr;
  Counter* failed_total = nullptr;
  std::function<void(const absl::Status& status, const Event& event)> on_error;
};

class AsyncEventSink final : public EventSink {
 public:
  // Starts the background thread. `target` must outlive this object.
  AsyncEventSink(EventSink* target, AsyncEventSinkOptions options);
  // Stop(absl::ZeroDuration()) if not stopped: pending writes are dropped.
  ~AsyncEventSink() override;
  AsyncEventSink(const AsyncEventSink&) = delete;
  AsyncEventSink& operator=(const AsyncEventSink&) = delete;

  // Queue the write; OK when queued (or merged), ResourceExhausted when the queue is full,
  // FailedPrecondition after Stop().
  absl::Status Create(const Event& event) override;
  absl::Status UpdateSeries(const Event& event) override;

  // Stops accepting and drains for at most `timeout`. OK when everything queued was written
  // (successfully or not); DeadlineExceeded naming how many writes were dropped. Later calls
  // return OK at once.
  absl::Status Stop(absl::Duration timeout);

  // Blocks until nothing is queued or in progress, or `deadline` passes on the clock; returns
  // whether the sink is idle. For tests and orderly hand-over.
  bool WaitIdle(absl::Time deadline);

  struct Stats {
    int64_t written = 0;  // writes the target accepted
    int64_t failed = 0;   // writes the target refused
    int64_t dropped = 0;  // never written: queue full, or left over at Stop
    int64_t merged = 0;   // series updates folded into a queued write
  };
  Stats stats() const;
  size_t pending() const;

 private:
  enum class Op { kCreate, kUpdateSeries };
  struct Item {
    Op op;
    Event event;
  };
  using Key = std::pair<std::string, std::string>;  // namespace, name

  absl::Status Enqueue(Op op, const Event& event);
  void Drain();
  void CountDropped(int64_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  EventSink* const target_;
  const AsyncEventSinkOptions options_;
  absl::Mutex stop_mu_;  // serialises Stop()
  mutable absl::Mutex mu_ ABSL_ACQUIRED_AFTER(stop_mu_);
  std::list<Item> queue_ ABSL_GUARDED_BY(mu_);
  // The queued item of each event, for merging series updates.
  std::map<Key, std::list<Item>::iterator> queued_ ABSL_GUARDED_BY(mu_);
  bool in_flight_ ABSL_GUARDED_BY(mu_) = false;
  bool accepting_ ABSL_GUARDED_BY(mu_) = true;
  bool quit_ ABSL_GUARDED_BY(mu_) = false;
  Stats stats_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace gpuprofile::runtime
