// File: controller/runtime/manager.cc
#include "controller/runtime/manager.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gpuprofile::runtime {

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
  return absl::OkStatus();
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
    if (options_.log) options_.log("waiting for the informer caches to sync");
  }
  // Started under the lock: Stop() then either sees them running or never starts them.
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  for (const Entry& entry : leader_only_) {
    absl::Status started = entry.runnable->Start();
    if (!started.ok() && options_.log) {
      options_.log(absl::StrCat("starting ", entry.name, " failed: ", started.ToString()));
    }
  }
  leading_ = true;
  if (options_.log) options_.log("caches synced: workers started");
}

bool Manager::leading() const {
  absl::MutexLock lock(&mu_);
  return leading_;
}

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
}

}  // namespace gpuprofile::runtime
