// File: controller/runtime/work_queue.h
// The controller work queue, with client-go's (and so controller-runtime's) semantics: a
// rate-limited, delaying, deduplicating FIFO of keys ("namespace/name").
//
//  - Deduplicating: a key added while it waits in the queue is stored once.
//  - One worker per key: Get() marks a key as processing until Done(); a key added meanwhile is
//    held back ("dirty") and queued again by Done(), so no two workers ever hold the same key.
//  - AddUrgent(key): Add at the front of the queue (latency-sensitive work ahead of bulk work).
//  - AddAfter(key, d): the key joins the queue once the injected clock reaches now + d; a key
//    already waiting keeps the earlier of its two times.
//  - AddRateLimited(key): AddAfter with the rate limiter's delay (by default per-key exponential
//    backoff 5 ms -> 1000 s, maxed with a 10 qps / burst 100 bucket); Forget(key) after a success
//    resets the key's backoff; NumRequeues(key) reports it.
//  - ShutDown(): later adds are ignored, keys still waiting for a delay are dropped, Get() returns
//    the keys already queued and then nullopt. ShutDownWithDrain() also waits until every key
//    handed out by Get() is Done().
//  - Metrics hooks (optional): depth (gauge, ready keys), adds (counter, accepted adds) and
//    retries (counter, every AddAfter/AddRateLimited), e.g. workqueue_depth{name} from
//    controller_runtime_metrics.h.
//
// Delayed keys are promoted by the callers of Get() and Len() (a waiting Get() sleeps on the
// clock until the earliest delay), so the queue owns no thread.
// Thread-safety: thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/metrics.h"
#include "controller/runtime/rate_limiter.h"

namespace gpuprofile::runtime {

// Series the queue updates; any of them may be null. Not owned.
struct WorkQueueMetrics {
  Gauge* depth = nullptr;
  Counter* adds = nullptr;
  Counter* retries = nullptr;
};

struct WorkQueueOptions {
  std::string name;        // for logs and metrics
  Clock* clock = nullptr;  // required; must outlive the queue
  // Null means DefaultControllerRateLimiter(clock).
  std::unique_ptr<RateLimiter> rate_limiter;
  WorkQueueMetrics metrics;
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options);
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void Add(const std::string& key);
  // Add, but ahead of every queued key (a key already queued moves to the front): for work
  // that must not wait behind a bulk backlog (a new namespace's templates).
  void AddUrgent(const std::string& key);
  void AddAfter(const std::string& key, absl::Duration delay);
  void AddRateLimited(const std::string& key);
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key);

  // Blocks until a key is ready and returns it, marked as processing (the caller must call
  // Done). Returns nullopt once the queue is shut down and holds no ready key.
  std::optional<std::string> Get();
  // Ends the processing of `key`; re-queues it if it was added meanwhile.
  void Done(const std::string& key);

  // Keys ready to be handed out (not those waiting for a delay, nor those processing).
  int Len();
  // Keys waiting for a delay to pass.
  int NumWaiting();
  // Keys handed out by Get() and not Done yet.
  int NumProcessing();
  // Nothing ready, waiting or processing: no key can run until someone adds one.
  bool Idle();

  void ShutDown();
  void ShutDownWithDrain();
  bool ShuttingDown();

  const std::string& name() const { return name_; }

 private:
  void AddLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PromoteDueLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UpdateDepthLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // What a waiting Get() wakes up for: a ready key, shutdown, or an earlier delayed key.
  struct WakeArg {
    WorkQueue* queue;
    uint64_t generation;
  };
  // An absl::Condition callback: absl evaluates it with mu_ held, which the analysis cannot see.
  static bool ShouldWake(WakeArg* arg) ABSL_NO_THREAD_SAFETY_ANALYSIS;

  const std::string name_;
  Clock* const clock_;
  const std::unique_ptr<RateLimiter> rate_limiter_;
  const WorkQueueMetrics metrics_;

  absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> dirty_ ABSL_GUARDED_BY(mu_);       // queued or to re-queue
  absl::flat_hash_set<std::string> processing_ ABSL_GUARDED_BY(mu_);  // handed out by Get()
  // Keys waiting for their time; equal times keep insertion order.
  std::multimap<absl::Time, std::string> waiting_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::multimap<absl::Time, std::string>::iterator> waiting_by_key_
      ABSL_GUARDED_BY(mu_);
  // Bumped whenever waiting_ gains an earlier entry, to wake Get() callers to re-arm.
  uint64_t waiting_generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gpuprofile::runtime
