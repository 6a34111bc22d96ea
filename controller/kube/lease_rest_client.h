// File: controller/kube/lease_rest_client.h
// runtime::LeaseClient over the REST client: leader election's get / create / update of one
// coordination.k8s.io/v1 Lease on a real API server.
//
// Errors follow lease_client.h: 404 is NotFound, a 409 AlreadyExists on Create is AlreadyExists,
// a 409 Conflict on Update (stale resourceVersion) is Aborted (runtime::IsConflict); anything
// else keeps the REST client's code (the ApiError payload is kept, so apierrors:: questions still
// work). A Lease whose spec cannot be decoded is DataLoss, naming the field.
//
// Times are the API's MicroTime ("2006-01-02T15:04:05.000000Z", see runtime::FormatMicroTime):
// they are written truncated to the microsecond and read with any RFC 3339 precision.
//
// Update sends the whole object (PUT, conditional on resourceVersion). What this client does not
// model (labels, annotations, owner references, spec fields such as preferredHolder) is kept
// from the last object Get/Create/Update returned for that Lease and resourceVersion, as
// client-go's LeaseLock does, so an update does not wipe them.
//
// Thread-safety: thread-safe.
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/rest_client.h"
#include "controller/runtime/lease_client.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

class RestLeaseClient final : public runtime::LeaseClient {
 public:
  // `client` must outlive this object.
  explicit RestLeaseClient(RestClient* client) : client_(client) {}

  absl::StatusOr<runtime::Lease> Get(const std::string& namespace_name,
                                     const std::string& name) override;
  absl::StatusOr<runtime::Lease> Create(const runtime::Lease& lease) override;
  absl::StatusOr<runtime::Lease> Update(const runtime::Lease& lease) override;

 private:
  // Decodes `object` and remembers it as the base of the next Update of that Lease.
  absl::StatusOr<runtime::Lease> Remember(nlohmann::json object);

  RestClient* const client_;
  absl::Mutex mu_;
  // "<namespace>/<name>" -> the last object the server returned.
  std::map<std::string, nlohmann::json> last_seen_ ABSL_GUARDED_BY(mu_);
};

// The Lease as the API expects it, written over `base` (an object read earlier, or null): only
// apiVersion, kind, metadata.{name,namespace,resourceVersion} and the five modelled spec fields
// are set; everything else in `base` stays.
nlohmann::json EncodeLease(const runtime::Lease& lease,
                           const nlohmann::json& base = nlohmann::json());

// Decodes a coordination.k8s.io/v1 Lease. Absent spec fields keep LeaseSpec's defaults (empty
// holder, zero durations, the Unix epoch). DataLoss naming the field when one has the wrong type
// or a time does not parse.
absl::StatusOr<runtime::Lease> DecodeLease(const nlohmann::json& object);

// Parses an RFC 3339 time with optional fractional seconds ("2023-11-14T22:13:20.123456Z",
// "2023-11-14T22:13:20Z", "2023-11-14T23:13:20+01:00"). InvalidArgument otherwise.
absl::StatusOr<absl::Time> ParseMicroTime(absl::string_view text);

}  // namespace gpuprofile::kube
