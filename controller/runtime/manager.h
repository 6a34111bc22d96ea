// File: controller/runtime/manager.h
// The process's long-running parts in one place, started and stopped in one order, as
// controller-runtime's Manager does:
//  1. Start(): servers (metrics, probes) and caches (informers), on every replica — probes must
//     answer from the first second, and a warm cache makes a leader hand-over fast;
//  2. StartLeading(): the leader-only runnables (the controllers' workers), when this replica
//     leads (at once without leader election), and only once every cache has synced, so that no
//     worker acts on half a picture. It returns at once (a leader elector's callback must not
//     block) and waits for the caches on a thread of its own;
//  3. Stop(): leader-only runnables first (running reconciles finish), then caches, then
//     servers, each group in the reverse order it was added.
// A runnable that fails to start makes Start() return its error (naming it); the caller stops.
// Thread-safety: thread-safe. Add* before Start.
#pragma once

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gpuprofile::runtime {

class Runnable {
 public:
  virtual ~Runnable() = default;
  // Starts the work and returns; must not block.
  virtual absl::Status Start() = 0;
  // Stops the work and returns once it has stopped; idempotent, also without Start.
  virtual void Stop() = 0;
};

// A Runnable made of two functions.
class FunctionRunnable final : public Runnable {
 public:
  FunctionRunnable(std::function<absl::Status()> start, std::function<void()> stop)
      : start_(std::move(start)), stop_(std::move(stop)) {}
  absl::Status Start() override { return start_(); }
  void Stop() override { stop_(); }

 private:
  std::function<absl::Status()> start_;
  std::function<void()> stop_;
};

struct ManagerOptions {
  // Blocks until every cache has synced or `deadline` (real time) passes; returns whether they
  // had. Required.
  std::function<bool(absl::Time deadline)> wait_for_sync;
  // How long one wait lasts before the manager says so (log) and waits again.
  absl::Duration sync_report_interval = absl::Seconds(30);
  // Hears about progress and waits ("waiting for caches to sync"); may be null.
  std::function<void(const std::string&)> log;
};

class Manager {
 public:
  explicit Manager(ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // The runnables must outlive the manager (or its Stop).
  void AddServer(std::string name, Runnable* runnable);
  void AddCache(std::string name, Runnable* runnable);
  void AddLeaderOnly(std::string name, Runnable* runnable);

  // Starts servers, then caches. An error names the runnable; what had started is left for
  // Stop().
  absl::Status Start();
  // Starts the leader-only runnables once the caches have synced (see above); once.
  void StartLeading();
  // Whether the leader-only runnables are running.
  bool leading() const;
  // Stops everything (see above); idempotent.
  void Stop();

 private:
  struct Entry {
    std::string name;
    Runnable* runnable;
  };
  void LeadOnceSynced();

  const ManagerOptions options_;
  std::vector<Entry> servers_;
  std::vector<Entry> caches_;
  std::vector<Entry> leader_only_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool lead_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
  std::thread leader_thread_;  // set once, under mu_, by StartLeading
};

}  // namespace gpuprofile::runtime
