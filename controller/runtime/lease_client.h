// File: controller/runtime/lease_client.h
// What leader election needs from the API server: get, create and update one
// coordination.k8s.io/v1 Lease, with optimistic concurrency on resourceVersion. The REST-backed
// implementation lives with the kube client; tests use testing/fake_lease_client.h.
//
// Errors (canonical absl codes standing for the API's status reasons):
//   NotFound       the Lease does not exist (Get, Update);
//   AlreadyExists  Create lost a race with another creator;
//   Aborted        Update's resourceVersion is stale (HTTP 409 Conflict) — see IsConflict();
//   anything else  transport or server failure; the elector retries on its next period.
// Thread-safety: implementations must be thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gpuprofile::runtime {

// Lease.spec, with the times as absl::Time (the API's MicroTime: microsecond precision).
struct LeaseSpec {
  std::string holder_identity;  // empty: released, anyone may take it
  int32_t lease_duration_seconds = 0;
  absl::Time acquire_time = absl::UnixEpoch();
  absl::Time renew_time = absl::UnixEpoch();
  int32_t lease_transitions = 0;

  bool operator==(const LeaseSpec& other) const;
  bool operator!=(const LeaseSpec& other) const { return !(*this == other); }
};

struct Lease {
  std::string namespace_name;
  std::string name;
  std::string resource_version;  // empty on Create; required on Update
  LeaseSpec spec;
};

class LeaseClient {
 public:
  virtual ~LeaseClient() = default;
  virtual absl::StatusOr<Lease> Get(const std::string& namespace_name, const std::string& name) = 0;
  // Returns the stored Lease (with its new resourceVersion).
  virtual absl::StatusOr<Lease> Create(const Lease& lease) = 0;
  // Fails with Aborted (conflict) unless lease.resource_version is the current one.
  virtual absl::StatusOr<Lease> Update(const Lease& lease) = 0;
};

// True for the optimistic-concurrency failure of Update (HTTP 409).
inline bool IsConflict(const absl::Status& status) { return absl::IsAborted(status); }

}  // namespace gpuprofile::runtime
