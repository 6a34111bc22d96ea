// File: controller/dra/resource_claim.h
// The compact form of a ResourceClaim (resource.k8s.io v1beta1, v1beta2 and v1): only what
// allocation accounting and "why is this pod Pending" read. A busy cluster holds tens of
// thousands of claims, so the operator keeps neither the selectors, the config nor the
// allocation's node selector:
// - per request: its name, the device classes it can be satisfied from (one for an exact
//   request; each subrequest's, in priority order, for `firstAvailable`), the count or `All`,
//   and whether it asks for capacity;
// - the allocation results (request, driver, pool, device), each naming the device the claim
//   holds, and what each takes of a shared device (consumedCapacity);
// - the owning pod (the controller ownerReference of kind Pod, as the resourceclaim controller
//   sets for claims made from a template), the pod claim name annotation, reservedFor's pods,
//   the creation time and whether the claim is being deleted.
// v1beta1 puts the exact fields on the request; v1beta2 and v1 nest them under `exactly`.
// Decoding is strict about what it reads (types, required fields, one-of) and ignores fields it
// does not know, so claims from newer servers still decode. Errors are InvalidArgument, one
// line per problem, each naming the claim and the field path. Pure; thread-safe.
//
// Size: at 30,000 claims every byte of a claim is 30 KB of the operator's memory. The values
// claims repeat (namespaces, classes, request names, drivers, pools, device names, the pod claim
// name) are ClaimSymbols, 8 bytes each, shared through one process-wide table; the one request
// and one result most claims have are stored in the claim, not in a heap block of their own
// (bench/operator: 30,000 allocated claims).
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller/core/quantity.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::dra {

// The annotation the resourceclaim controller puts on a claim it made for a pod: the name of
// the pod's `spec.resourceClaims[]` entry.
inline constexpr char kPodClaimNameAnnotation[] = "resource.kubernetes.io/pod-claim-name";

// An interned string: one pointer to the process-wide copy of its value, which every equal
// ClaimSymbol shares. The table only grows, by the distinct values ever seen: made only for
// values that repeat across claims and are bounded by the cluster (namespaces, class, request,
// driver, pool and device names), never for a claim's or pod's own name. Converts to
// `const std::string&`, so it reads like the string it holds. Thread-safe.
class ClaimSymbol {
 public:
  ClaimSymbol();
  ClaimSymbol(absl::string_view value);  // NOLINT(google-explicit-constructor): reads as a string
  ClaimSymbol(const std::string& value) : ClaimSymbol(absl::string_view(value)) {}  // NOLINT
  ClaimSymbol(const char* value) : ClaimSymbol(absl::string_view(value)) {}         // NOLINT

  const std::string& str() const { return *value_; }
  operator const std::string&() const { return *value_; }  // NOLINT
  bool empty() const { return value_->empty(); }

  friend bool operator==(ClaimSymbol a, ClaimSymbol b) { return a.value_ == b.value_; }
  friend bool operator!=(ClaimSymbol a, ClaimSymbol b) { return a.value_ != b.value_; }
  friend bool operator==(ClaimSymbol a, absl::string_view b) { return *a.value_ == b; }
  friend bool operator!=(ClaimSymbol a, absl::string_view b) { return *a.value_ != b; }
  friend bool operator==(absl::string_view a, ClaimSymbol b) { return a == *b.value_; }
  friend bool operator!=(absl::string_view a, ClaimSymbol b) { return a != *b.value_; }
  friend bool operator==(ClaimSymbol a, const std::string& b) { return *a.value_ == b; }
  friend bool operator!=(ClaimSymbol a, const std::string& b) { return *a.value_ != b; }
  friend bool operator==(const std::string& a, ClaimSymbol b) { return a == *b.value_; }
  friend bool operator!=(const std::string& a, ClaimSymbol b) { return a != *b.value_; }
  friend bool operator==(ClaimSymbol a, const char* b) { return *a.value_ == b; }
  friend bool operator!=(ClaimSymbol a, const char* b) { return *a.value_ != b; }
  friend bool operator==(const char* a, ClaimSymbol b) { return a == *b.value_; }
  friend bool operator!=(const char* a, ClaimSymbol b) { return a != *b.value_; }
  friend bool operator<(ClaimSymbol a, ClaimSymbol b) { return *a.value_ < *b.value_; }
  friend std::ostream& operator<<(std::ostream& os, ClaimSymbol s) { return os << *s.value_; }
  template <typename H>
  friend H AbslHashValue(H h, ClaimSymbol s) {
    return H::combine(std::move(h), absl::string_view(*s.value_));
  }

 private:
  const std::string* value_;
};

struct ClaimRequest {
  ClaimSymbol name;
  // One class for an exact request; for firstAvailable, each subrequest's class in order.
  absl::InlinedVector<ClaimSymbol, 1> device_classes;
  // For firstAvailable, the subrequest names (parallel to device_classes); empty otherwise.
  absl::InlinedVector<ClaimSymbol, 1> subrequests;
  // ExactCount's count (the server's default 1 when unset). For firstAvailable, the first
  // subrequest's. 32 bits: the API server allows at most 32 results per claim, and a larger
  // count from a hostile object is kept as INT32_MAX.
  int32_t count = 1;
  // allocationMode All: every matching device on the chosen node.
  bool all = false;
  // `capacity.requests` is set (on the request or any subrequest): the request takes a share
  // of a device that allows multiple allocations.
  bool requests_capacity = false;
};

// One entry of status.allocation.devices.results. Its shareID (DRAConsumableCapacity) is not
// kept: whether a device is shared is the device's own attribute (allowMultipleAllocations).
struct ClaimDeviceResult {
  ClaimSymbol request;  // "req", or "req/sub" for a firstAvailable subrequest
  ClaimSymbol driver;
  ClaimSymbol pool;
  ClaimSymbol device;
};

// What one result takes of a device that allows multiple allocations: an entry of its
// `consumedCapacity` (DRAConsumableCapacity; the scheduler records it for such devices).
struct ConsumedCapacity {
  uint32_t result = 0;  // index into ResourceClaim::results
  ClaimSymbol name;     // the capacity's name, as the device publishes it
  Quantity amount;
};

// The strings one claim has to itself (its "namespace/name" key, resourceVersion and owning
// pod's name), in one heap block of their exact size instead of std::strings (32 bytes inline
// each, and a block each once longer than 15 characters). The key is what the operator's cache
// is keyed by (ResourceClaim::StoreKey), so the cache keeps no copy of it. Copyable;
// thread-compatible.
class ClaimStrings {
 public:
  ClaimStrings() = default;
  // Each part must be shorter than 65,536 characters (DecodeResourceClaim checks).
  ClaimStrings(absl::string_view namespace_name, absl::string_view name,
               absl::string_view resource_version, absl::string_view owner_pod);
  ClaimStrings(const ClaimStrings& other);
  ClaimStrings& operator=(const ClaimStrings& other);
  ClaimStrings(ClaimStrings&&) noexcept = default;
  ClaimStrings& operator=(ClaimStrings&&) noexcept = default;

  // "namespace/name", or "name" without a namespace (client-go's key).
  absl::string_view key() const { return {data_.get(), key_size()}; }
  absl::string_view name() const { return {data_.get() + key_size() - name_size_, name_size_}; }
  absl::string_view resource_version() const { return {data_.get() + key_size(), version_size_}; }
  absl::string_view owner_pod() const {
    return {data_.get() + key_size() + version_size_, owner_size_};
  }

 private:
  size_t key_size() const {
    return namespace_size_ == 0 ? name_size_ : size_t{namespace_size_} + 1 + name_size_;
  }

  std::unique_ptr<char[]> data_;
  uint16_t namespace_size_ = 0;
  uint16_t name_size_ = 0;
  uint16_t version_size_ = 0;
  uint16_t owner_size_ = 0;
};

struct ResourceClaim {
  // The operator's cache keys claims by strings.key(), a view into the claim (runtime/store.h).
  using StoreKey = absl::string_view;
  // No creation time (metadata.creationTimestamp unset).
  static constexpr int64_t kNoTime = INT64_MIN;

  ClaimSymbol namespace_name;
  ClaimSymbol pod_claim_name;  // kPodClaimNameAnnotation
  // metadata.namespace/name, metadata.resourceVersion and the controller ownerReference of kind
  // Pod (core/v1), empty when none.
  ClaimStrings strings;
  // metadata.creationTimestamp in Unix seconds (the API server writes whole seconds), or
  // kNoTime: 8 bytes where std::optional<absl::Time> takes 24.
  int64_t created_unix_seconds = kNoTime;
  bool deleting = false;   // metadata.deletionTimestamp is set
  bool allocated = false;  // status.allocation is set
  absl::InlinedVector<ClaimRequest, 1> requests;
  absl::InlinedVector<ClaimDeviceResult, 1> results;
  // status.reservedFor[] with resource "pods"; nearly always one pod, kept without a heap
  // block of its own.
  absl::InlinedVector<std::string, 1> reserved_for_pods;
  // The results' consumedCapacity entries; null when none has one (a claim on a device that
  // is not shared): a pointer keeps the common claim small.
  std::shared_ptr<const std::vector<ConsumedCapacity>> consumed_capacity;

  absl::string_view name() const { return strings.name(); }
  absl::string_view resource_version() const { return strings.resource_version(); }
  absl::string_view owner_pod() const { return strings.owner_pod(); }

  std::optional<absl::Time> created() const {
    if (created_unix_seconds == kNoTime) return std::nullopt;
    return absl::FromUnixSeconds(created_unix_seconds);
  }
  void set_created(absl::Time t) { created_unix_seconds = absl::ToUnixSeconds(t); }

  // The device class a result was allocated from: the request's class, or the named
  // subrequest's. Empty when the result names no request of this claim.
  ClaimSymbol ClassOfResult(const ClaimDeviceResult& result) const;
};

// One condition a driver reports on an allocated device (metav1.Condition); lastTransitionTime
// and observedGeneration are not kept.
struct DeviceStatusCondition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
};

// One entry of status.devices (AllocatedDeviceStatus: driver, pool, device, shareID, conditions,
// data, networkData; the same in v1beta1, v1beta2 and v1, checked against kubernetes/api
// release-1.33 to 1.37): what the driver reports about a device it prepared for the claim. Only
// the device's name and its conditions are kept; data and networkData are ignored.
struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::vector<DeviceStatusCondition> conditions;
};

bool IsResourceClaim(const nlohmann::json& obj);

// Type-checks status.devices as well (see DecodeClaimDeviceStatuses) but keeps none of it: the
// operator holds every claim of the cluster and never reads it.
absl::StatusOr<ResourceClaim> DecodeResourceClaim(const nlohmann::json& obj);

// status.devices of claim object `obj`, for `explain`, which reads them per claim. Lenient like
// DecodeResourceClaim: unknown fields are ignored; a wrong type is InvalidArgument naming the
// claim and the field (e.g. `status.devices[0].conditions[1].status`). Empty when there is none.
absl::StatusOr<std::vector<AllocatedDeviceStatus>> DecodeClaimDeviceStatuses(
    const nlohmann::json& obj);

}  // namespace gpuprofile::dra
