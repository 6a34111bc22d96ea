// File: controller/runtime/testing/fake_lease_client.h
// An in-memory LeaseClient with the API server's concurrency rules (resourceVersion checked on
// Update, AlreadyExists on a second Create), shared by several electors in tests, with fault
// injection: FailNext(n, status) makes the next n calls fail with `status`.
// Thread-safety: thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "controller/runtime/lease_client.h"

namespace gpuprofile::runtime {

class FakeLeaseClient final : public LeaseClient {
 public:
  absl::StatusOr<Lease> Get(const std::string& namespace_name, const std::string& name) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status fault = TakeFaultLocked(); !fault.ok()) return fault;
    auto it = leases_.find(namespace_name + "/" + name);
    if (it == leases_.end()) return absl::NotFoundError(absl::StrCat("lease ", name, " not found"));
    return it->second;
  }

  absl::StatusOr<Lease> Create(const Lease& lease) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status fault = TakeFaultLocked(); !fault.ok()) return fault;
    const std::string key = lease.namespace_name + "/" + lease.name;
    if (leases_.count(key)) {
      return absl::AlreadyExistsError(absl::StrCat("lease ", lease.name, " already exists"));
    }
    Lease stored = lease;
    stored.resource_version = absl::StrCat(++version_);
    leases_[key] = stored;
    ++writes_;
    return stored;
  }

  absl::StatusOr<Lease> Update(const Lease& lease) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status fault = TakeFaultLocked(); !fault.ok()) return fault;
    auto it = leases_.find(lease.namespace_name + "/" + lease.name);
    if (it == leases_.end()) {
      return absl::NotFoundError(absl::StrCat("lease ", lease.name, " not found"));
    }
    if (it->second.resource_version != lease.resource_version) {
      return absl::AbortedError(absl::StrCat("conflict: lease ", lease.name,
                                             " has been modified; resourceVersion is ",
                                             it->second.resource_version));
    }
    Lease stored = lease;
    stored.resource_version = absl::StrCat(++version_);
    it->second = stored;
    ++writes_;
    return stored;
  }

  // The next `n` calls fail with `status`.
  void FailNext(int n, absl::Status status) {
    absl::MutexLock lock(&mu_);
    fail_count_ = n;
    fail_status_ = std::move(status);
  }

  // Replaces the stored Lease as another writer would (bumps the resourceVersion).
  void Put(Lease lease) {
    absl::MutexLock lock(&mu_);
    lease.resource_version = absl::StrCat(++version_);
    leases_[lease.namespace_name + "/" + lease.name] = std::move(lease);
  }

  int writes() const {
    absl::MutexLock lock(&mu_);
    return writes_;
  }

 private:
  absl::Status TakeFaultLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (fail_count_ <= 0) return absl::OkStatus();
    --fail_count_;
    return fail_status_;
  }

  mutable absl::Mutex mu_;
  std::map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  int writes_ ABSL_GUARDED_BY(mu_) = 0;
  int fail_count_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status fail_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::runtime
