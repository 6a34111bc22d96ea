// File: controller/runtime/controller.h
// A controller: a work queue of keys and N workers calling one reconcile function, with
// controller-runtime's result semantics:
//   - error (retryable)             -> AddRateLimited(key): per-key exponential backoff;
//   - error wrapped by TerminalError -> logged and counted, not retried (Forget);
//   - Result{requeue_after = d > 0} -> Forget(key), AddAfter(key, d);
//   - Result{requeue = true}        -> AddRateLimited(key);
//   - success                       -> Forget(key).
// The queue never hands one key to two workers (work_queue.h), so a reconcile function may
// assume it is the only one working on its key.
// Metrics (optional): controller_runtime_reconcile_total{controller,result},
// ..._reconcile_errors_total, ..._reconcile_time_seconds and the queue's series.
// Event sources (informers) feed the queue through queue()->Add; see kube/informer.h.
// Thread-safety: thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/controller_runtime_metrics.h"
#include "controller/runtime/work_queue.h"

namespace gpuprofile::runtime {

struct ReconcileResult {
  bool requeue = false;
  absl::Duration requeue_after = absl::ZeroDuration();
};

// Marks `status` as terminal: the controller records it and does not retry the key. OK stays OK.
absl::Status TerminalError(absl::Status status);
bool IsTerminalError(const absl::Status& status);

using ReconcileFunc = std::function<absl::StatusOr<ReconcileResult>(const std::string& key)>;

struct ControllerOptions {
  std::string name;  // the `controller` label and the queue's name
  int workers = 1;
  Clock* clock = nullptr;  // required; must outlive the controller
  // Null: DefaultControllerRateLimiter.
  std::unique_ptr<RateLimiter> rate_limiter;
  // Null: no metrics. Must outlive the controller.
  const ControllerRuntimeMetrics* metrics = nullptr;
  // Hears about every failed reconcile (for logs); may be null.
  std::function<void(const std::string& key, const absl::Status& status)> on_error;
};

class Controller {
 public:
  Controller(ControllerOptions options, ReconcileFunc reconcile);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  WorkQueue* queue() { return &queue_; }
  const std::string& name() const { return name_; }

  // Starts the workers (once; later calls do nothing).
  void Start();
  // Shuts the queue down, lets running reconciles finish and joins the workers.
  void Stop();

  // Reconciles finished so far (any result), each counted once its key is requeued or forgotten
  // and done, for tests and logs.
  int64_t reconciles() const;
  // Blocks until at least `n` reconciles have finished or `timeout` (real time) passes; returns
  // whether they had. Lets tests wait on the controller's own progress instead of sleeping.
  bool AwaitReconciles(int64_t n, absl::Duration timeout) const;

 private:
  void Worker();
  void ProcessOne(const std::string& key);

  const std::string name_;
  const int workers_;
  Clock* const clock_;
  const ControllerRuntimeMetrics* const metrics_;
  const std::function<void(const std::string&, const absl::Status&)> on_error_;
  const ReconcileFunc reconcile_;
  WorkQueue queue_;

  Counter* success_ = nullptr;
  Counter* error_ = nullptr;
  Counter* requeue_ = nullptr;
  Counter* requeue_after_ = nullptr;
  Counter* errors_total_ = nullptr;
  Histogram* time_ = nullptr;

  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  int64_t reconciles_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::runtime
