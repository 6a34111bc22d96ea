// File: controller/runtime/controller.cc
#include "controller/runtime/controller.h"

#include <utility>

#include "absl/strings/cord.h"

namespace gpuprofile::runtime {
namespace {

// The payload that marks a status as terminal (the URL only names it).
constexpr char kTerminalPayload[] = "gpuprofile.io/terminal-error";

WorkQueueOptions QueueOptions(ControllerOptions& options) {
  WorkQueueOptions queue;
  queue.name = options.name;
  queue.clock = options.clock;
  queue.rate_limiter = std::move(options.rate_limiter);
  if (options.metrics != nullptr) queue.metrics = options.metrics->ForQueue(options.name);
  return queue;
}

}  // namespace

absl::Status TerminalError(absl::Status status) {
  if (!status.ok()) status.SetPayload(kTerminalPayload, absl::Cord("true"));
  return status;
}

bool IsTerminalError(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kTerminalPayload).has_value();
}

Controller::Controller(ControllerOptions options, ReconcileFunc reconcile)
    : name_(options.name),
      workers_(options.workers < 1 ? 1 : options.workers),
      clock_(options.clock),
      metrics_(options.metrics),
      on_error_(options.on_error),
      reconcile_(std::move(reconcile)),
      queue_(QueueOptions(options)) {
  if (metrics_ != nullptr) {
    metrics_->InitController(name_);
    success_ = metrics_->reconcile_total->WithLabels({name_, kReconcileResultSuccess});
    error_ = metrics_->reconcile_total->WithLabels({name_, kReconcileResultError});
    requeue_ = metrics_->reconcile_total->WithLabels({name_, kReconcileResultRequeue});
    requeue_after_ = metrics_->reconcile_total->WithLabels({name_, kReconcileResultRequeueAfter});
    errors_total_ = metrics_->reconcile_errors_total->WithLabels({name_});
    time_ = metrics_->reconcile_time_seconds->WithLabels({name_});
  }
}

Controller::~Controller() { Stop(); }

void Controller::Start() {
  absl::MutexLock lock(&mu_);
  if (started_ || stopped_) return;
  started_ = true;
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { Worker(); });
}

void Controller::Stop() {
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    threads.swap(threads_);
  }
  queue_.ShutDownWithDrain();
  for (std::thread& thread : threads) thread.join();
}

int64_t Controller::reconciles() const {
  absl::MutexLock lock(&mu_);
  return reconciles_;
}

bool Controller::AwaitReconciles(int64_t n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return reconciles_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

void Controller::Worker() {
  while (std::optional<std::string> key = queue_.Get()) {
    ProcessOne(*key);
    queue_.Done(*key);
    // Counted once the result is in the queue (requeue, backoff or forget) and the key is done:
    // whoever waits on the count then sees the queue as this reconcile left it.
    absl::MutexLock lock(&mu_);
    ++reconciles_;
  }
}

void Controller::ProcessOne(const std::string& key) {
  const absl::Time start = clock_->Now();
  absl::StatusOr<ReconcileResult> result = reconcile_(key);
  if (time_ != nullptr) time_->Observe(absl::ToDoubleSeconds(clock_->Now() - start));
  if (!result.ok()) {
    if (error_ != nullptr) error_->Inc();
    if (errors_total_ != nullptr) errors_total_->Inc();
    if (on_error_) on_error_(key, result.status());
    if (IsTerminalError(result.status())) {
      queue_.Forget(key);
    } else {
      queue_.AddRateLimited(key);
    }
    return;
  }
  if (result->requeue_after > absl::ZeroDuration()) {
    if (requeue_after_ != nullptr) requeue_after_->Inc();
    queue_.Forget(key);
    queue_.AddAfter(key, result->requeue_after);
  } else if (result->requeue) {
    if (requeue_ != nullptr) requeue_->Inc();
    queue_.AddRateLimited(key);
  } else {
    if (success_ != nullptr) success_->Inc();
    queue_.Forget(key);
  }
}

}  // namespace gpuprofile::runtime
