// File: controller/runtime/shutdown_signal.h
// Graceful shutdown on SIGTERM / SIGINT, as controller-runtime's SetupSignalHandler: the first
// signal asks the operator to stop (release the Lease, drain queues, flush events); a second one
// means "exit now" and ends the process with exit code 1 at once.
//
// ShutdownSignal::Install() sets the handlers once per process (later calls return the same
// instance). The handler is async-signal-safe: it counts the signal in a lock-free atomic and
// writes the signal number to a self-pipe (or calls _exit(1) for the second signal); a
// background thread reads the pipe and wakes Wait(). Notify() requests shutdown from code (e.g.
// leadership lost) without counting as a signal.
//
// GracePeriod runs a shutdown function and gives up waiting for it after a configurable time
// (Kubernetes' terminationGracePeriodSeconds is 30 s by default; stop a little before it).
//
// Thread-safety: thread-safe. Install() must not race with another thread's sigaction() for
// SIGTERM / SIGINT.
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"

namespace gpuprofile::runtime {

class ShutdownSignal {
 public:
  // Installs the SIGTERM and SIGINT handlers and starts the pipe reader, once; returns the
  // process-wide instance (never destroyed). Internal naming the failed system call otherwise.
  static absl::StatusOr<ShutdownSignal*> Install();

  // Blocks until shutdown is requested.
  void Wait();
  // Blocks until shutdown is requested or `deadline` passes on `clock`; returns whether it was
  // requested.
  bool WaitUntil(absl::Time deadline, Clock* clock = RealClock::Default());

  bool requested() const;
  // The signal that requested shutdown (SIGTERM, SIGINT), 0 when Notify() did, -1 if none yet.
  int signal_number() const;

  // Requests shutdown from code. Not async-signal-safe (use from threads, not handlers).
  void Notify();

  // Tests only: forgets requests and signals seen, so one test binary can raise several times.
  void ResetForTesting();

  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

 private:
  ShutdownSignal() = default;
  void ReadPipe(int fd);
  void Request(int signal_number);

  mutable absl::Mutex mu_;
  bool requested_ ABSL_GUARDED_BY(mu_) = false;
  int signal_number_ ABSL_GUARDED_BY(mu_) = -1;
};

// Runs a shutdown function and waits for it at most `grace` on `clock`.
class GracePeriod {
 public:
  explicit GracePeriod(absl::Duration grace, Clock* clock = RealClock::Default())
      : grace_(grace), clock_(clock) {}

  // Runs `shutdown` on its own thread. OK when it returned within the grace period;
  // DeadlineExceeded naming the period otherwise. Then `shutdown` is still running on a detached
  // thread: the caller should exit the process and must keep alive whatever `shutdown` uses.
  absl::Status Run(std::function<void()> shutdown);

  absl::Duration grace() const { return grace_; }

 private:
  const absl::Duration grace_;
  Clock* const clock_;
};

}  // namespace gpuprofile::runtime
