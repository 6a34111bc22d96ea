// File: controller/runtime/manager.cc
#include "controller/runtime/manager.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/core/status_macros.h"

namespace gpuprofile::runtime {
namespace {

// A LeaderElector's loop (Run) on a thread of its own. Stop() ends the loop, which releases the
// Lease (LeaderElectionConfig::release_on_cancel), and returns once it has.
class ElectionRunnable final : public Runnable {
 public:
  explicit ElectionRunnable(LeaderElector* elector) : elector_(elector) {}
  absl::Status Start() override {
    thread_ = std::thread([this] { elector_->Run(); });
    return absl::OkStatus();
  }
  void Stop() override {
    elector_->Stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  LeaderElector* const elector_;
  std::thread thread_;  // Start and Stop are called once each, by the manager
};

}  // namespace

absl::StatusOr<std::unique_ptr<Manager>> Manager::Create(ManagerOptions options) {
  if (!options.wait_for_sync) {
    return absl::InvalidArgumentError("manager: a wait for the caches' sync is required");
  }
  std::unique_ptr<Manager> manager(new Manager(std::move(options)));
  if (!manager->options_.leader_election.has_value()) return manager;
  const ManagerLeaderElection& election = *manager->options_.leader_election;
  if (election.client == nullptr || election.clock == nullptr) {
    return absl::InvalidArgumentError("leader election: a lease client and a clock are required");
  }
  LeaderElectionConfig config = election.config;
  Manager* const m = manager.get();
  config.callbacks.on_started_leading = [m] { m->OnStartedLeading(); };
  config.callbacks.on_stopped_leading = [m] { m->OnStoppedLeading(); };
  config.callbacks.on_new_leader = [m](const std::string& identity) { m->OnNewLeader(identity); };
  ASSIGN_OR_RETURN(manager->elector_,
                   LeaderElector::Create(std::move(config), election.client, election.clock));
  manager->election_ = std::make_unique<ElectionRunnable>(manager->elector_.get());
  return manager;
}

Manager::Manager(ManagerOptions options) : options_(std::move(options)) {}

Manager::~Manager() { Stop(); }

void Manager::AddServer(std::string name, Runnable* runnable) {
  servers_.push_back({std::move(name), runnable});
}
void Manager::AddCache(std::string name, Runnable* runnable) {
  caches_.push_back({std::move(name), runnable});
}
void Manager::AddLeaderOnly(std::string name, Runnable* runnable) {
  leader_only_.push_back({std::move(name), runnable});
}

void Manager::Log(const std::string& message, const LogFields& fields) const {
  if (options_.log) options_.log(message, fields);
}

absl::Status Manager::Start() {
  for (const std::vector<Entry>* group : {&servers_, &caches_}) {
    for (const Entry& entry : *group) {
      absl::Status started = entry.runnable->Start();
      if (!started.ok()) {
        return absl::Status(started.code(),
                            absl::StrCat("starting ", entry.name, ": ", started.message()));
      }
    }
  }
  if (election_ == nullptr) {
    StartLeading();
    return absl::OkStatus();
  }
  const LeaderElectionConfig& config = elector_->config();
  Log("campaigning for leadership",
      {{"lease", absl::StrCat(config.lease_namespace, "/", config.lease_name)},
       {"identity", config.identity}});
  return election_->Start();
}

void Manager::OnStartedLeading() {
  Log("became the leader: starting workers once the caches have synced");
  StartLeading();
}

void Manager::OnStoppedLeading() {
  {
    absl::MutexLock lock(&mu_);
    // Releasing the Lease in Stop() ends leadership on purpose.
    if (stopping_ || lost_reported_) return;
    lost_reported_ = true;
  }
  if (options_.on_lost_leadership) options_.on_lost_leadership();
}

void Manager::OnNewLeader(const std::string& identity) {
  if (identity != elector_->config().identity) {
    Log("another replica leads", {{"leader", identity}});
  }
}

void Manager::StartLeading() {
  absl::MutexLock lock(&mu_);
  if (stopping_ || lead_requested_) return;
  lead_requested_ = true;
  leader_thread_ = std::thread([this] { LeadOnceSynced(); });
}

void Manager::LeadOnceSynced() {
  while (!options_.wait_for_sync(absl::Now() + options_.sync_report_interval)) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    Log("waiting for the informer caches to sync");
  }
  // Started under the lock: Stop() then either sees them running or never starts them.
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  for (const Entry& entry : leader_only_) {
    absl::Status started = entry.runnable->Start();
    if (!started.ok()) Log(absl::StrCat("starting ", entry.name, " failed: ", started.ToString()));
  }
  leading_ = true;
  Log("caches synced: workers started");
}

bool Manager::leading() const {
  absl::MutexLock lock(&mu_);
  return leading_;
}

bool Manager::IsLeader() const { return elector_ == nullptr || elector_->IsLeader(); }

void Manager::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  const auto stop_all = [](std::vector<Entry>& group) {
    for (auto it = group.rbegin(); it != group.rend(); ++it) it->runnable->Stop();
  };
  stop_all(leader_only_);
  // A leader thread still waiting for the caches wakes when they stop, sees stopping_ and ends.
  stop_all(caches_);
  if (leader_thread_.joinable()) leader_thread_.join();
  stop_all(servers_);
  // Last: a successor may start its workers as soon as the Lease is free.
  if (election_ != nullptr) election_->Stop();
}

}  // namespace gpuprofile::runtime
