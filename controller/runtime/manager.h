// File: controller/runtime/manager.h
// The process's long-running parts in one place, started and stopped in one order, as
// controller-runtime's Manager does:
//  1. Start(): servers (metrics, probes), then caches (informers, discovery), on every replica —
//     probes must answer from the first second, and a warm cache makes a leader hand-over fast —
//     then leader election: a LeaderElector looping on the injected clock on a thread of its own.
//     Without leader election this replica leads at once;
//  2. when this replica leads: the leader-only runnables (the controllers' workers), only once
//     every cache has synced, so that no worker acts on half a picture. The wait for the caches
//     runs on a thread of its own (the elector's callback must not block);
//  3. Stop(): leader-only runnables first (running reconciles finish), then caches, then
//     servers, each group in the reverse order it was added, and last the Lease is released, so
//     that a successor starts only once this replica's workers have stopped.
// Losing leadership other than through Stop() (the renew deadline passed, another candidate holds
// the Lease) is reported once through ManagerOptions::on_lost_leadership, and the caller stops
// the process, as controller-runtime's Manager does. Until then the workers keep running; writers
// check IsLeader() before each write, so they no longer write.
// A runnable that fails to start makes Start() return its error (naming it); the caller stops.
// Thread-safety: thread-safe. Add* before Start.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/runtime/clock.h"
#include "controller/runtime/leader_elector.h"
#include "controller/runtime/lease_client.h"

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

// A log entry's key/value pairs, in order.
using LogFields = std::vector<std::pair<std::string, std::string>>;

struct ManagerLeaderElection {
  // The Lease, this candidate's identity, the timings and the master-status gauge. The callbacks
  // are the manager's own: any set here are replaced.
  LeaderElectionConfig config;
  LeaseClient* client = nullptr;  // required; must outlive the manager
  Clock* clock = nullptr;         // required; the elector waits on it
};

struct ManagerOptions {
  // Blocks until every cache has synced or `deadline` (real time) passes; returns whether they
  // had. Required.
  std::function<bool(absl::Time deadline)> wait_for_sync;
  // How long one wait lasts before the manager says so (log) and waits again.
  absl::Duration sync_report_interval = absl::Seconds(30);
  // Hears about progress (info level): campaigning, leading, another leader, waiting for the
  // caches; may be null.
  std::function<void(const std::string& message, const LogFields& fields)> log;
  // Unset: this replica leads as soon as it starts.
  std::optional<ManagerLeaderElection> leader_election;
  // Leadership was lost other than through Stop(); called at most once, on the elector's thread.
  // It must return quickly and must not call Stop() (request shutdown elsewhere). May be null.
  std::function<void()> on_lost_leadership;
};

class Manager {
 public:
  // InvalidArgument without wait_for_sync, or when the leader election settings are invalid
  // (ValidateLeaderElectionConfig's message) or lack a lease client or clock.
  static absl::StatusOr<std::unique_ptr<Manager>> Create(ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // The runnables must outlive the manager (or its Stop).
  void AddServer(std::string name, Runnable* runnable);
  void AddCache(std::string name, Runnable* runnable);
  void AddLeaderOnly(std::string name, Runnable* runnable);

  // Starts servers, then caches, then leader election (or leads at once without it). An error
  // names the runnable; what had started is left for Stop().
  absl::Status Start();
  // Whether the leader-only runnables are running.
  bool leading() const;
  // Whether this replica may act as the leader now: always without leader election, else while
  // it holds the Lease and its renew deadline has not passed (LeaderElector::IsLeader).
  bool IsLeader() const;
  // Stops everything (see above); idempotent.
  void Stop();

 private:
  struct Entry {
    std::string name;
    Runnable* runnable;
  };
  explicit Manager(ManagerOptions options);
  // The elector's callbacks.
  void OnStartedLeading();
  void OnStoppedLeading();
  void OnNewLeader(const std::string& identity);
  // Starts the leader-only runnables once the caches have synced (see above); once.
  void StartLeading();
  void LeadOnceSynced();
  void Log(const std::string& message, const LogFields& fields = {}) const;

  const ManagerOptions options_;
  std::vector<Entry> servers_;
  std::vector<Entry> caches_;
  std::vector<Entry> leader_only_;
  std::unique_ptr<LeaderElector> elector_;  // null without leader election
  std::unique_ptr<Runnable> election_;      // runs elector_; null without leader election

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool lead_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
  bool lost_reported_ ABSL_GUARDED_BY(mu_) = false;
  std::thread leader_thread_;  // set once, under mu_, by StartLeading
};

}  // namespace gpuprofile::runtime
