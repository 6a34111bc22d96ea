// File: controller/api/gpu_profile.h
// GpuProfile (gpuprofile.io/v1alpha1, cluster-scoped): the C++ model of docs/design.md §3.
// Decoding (strict, with field paths) is in gpu_profile_codec.h; what a profile means for a given
// driver (which terms exist, which CEL they compile to) is the profile engine's business
// (controller/profile/), not this type's.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/core/quantity.h"
#include "controller/core/semver.h"
#include "controller/meta/condition.h"
#include "controller/meta/label_selector.h"
#include "controller/meta/object_meta.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::api {

inline constexpr char kGroup[] = "gpuprofile.io";
inline constexpr char kVersion[] = "v1alpha1";
inline constexpr char kApiVersion[] = "gpuprofile.io/v1alpha1";
inline constexpr char kGpuProfileKind[] = "GpuProfile";

inline constexpr char kDefaultDriver[] = "gpu.nvidia.com";
inline constexpr char kDefaultDeviceType[] = "gpu";
inline constexpr char kDefaultRequestName[] = "gpu";
inline constexpr int64_t kDefaultCount = 1;

// Inclusive bounds; at least one is set when the range is present.
struct QuantityRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
};

// Inclusive bounds on versions, already normalised to full X.Y.Z without leading zeros
// ("8.0" -> 8.0.0, "550.54.05" -> 550.54.5).
struct VersionRange {
  std::optional<Semver> min;
  std::optional<Semver> max;
};

// spec.selector.attributes[]: a vendor-neutral attribute term.
struct AttributeTerm {
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kGe, kLt, kLe };
  enum class ValueType { kString, kInt, kBool, kVersion };
  // As written: unqualified names live in the profile driver's domain; qualified ones
  // ("resource.kubernetes.io/pcieRoot") name their own domain.
  std::string name;
  Operator op = Operator::kIn;
  ValueType value_type = ValueType::kString;
  // Canonical text of each value for its type: strings as given, ints in decimal, bools
  // "true"/"false", versions normalised X.Y.Z. Empty for Exists / DoesNotExist; exactly one
  // for Gt/Ge/Lt/Le; at least one for In / NotIn.
  std::vector<std::string> values;
};

// spec.selector.capacity[]: a range on any other capacity.
struct CapacityTerm {
  std::string name;  // unqualified (driver's domain) or qualified
  QuantityRange range;
};

struct ProfileSelector {
  std::optional<QuantityRange> memory;
  std::vector<std::string> product_names;  // empty: no term
  // MIG profiles (NVIDIA's `profile` attribute, e.g. "1g.10gb"); only with deviceType mig.
  std::vector<std::string> mig_profiles;   // empty: no term
  std::vector<std::string> architectures;  // empty: no term
  std::optional<VersionRange> compute_capability;
  std::optional<VersionRange> driver_version;
  std::optional<VersionRange> cuda_driver_version;
  std::vector<AttributeTerm> attributes;
  std::vector<CapacityTerm> capacity;
  std::vector<std::string> cel;  // raw CEL selector expressions
};

enum class AllocationMode { kExactCount, kAll };
enum class DeletionPolicy { kDelete, kOrphan };

// "ExactCount" / "All"; "Delete" / "Orphan".
const char* AllocationModeName(AllocationMode mode);
const char* DeletionPolicyName(DeletionPolicy policy);

// spec.config[]: opaque driver configuration copied to the DeviceClass.
struct OpaqueConfig {
  std::string driver;
  nlohmann::json parameters;  // any JSON object
};

// spec.sharing: how the devices of one claim are shared between the pods and containers that
// use it, compiled into the driver's own configuration kind on the DeviceClass (NVIDIA:
// resource.nvidia.com/v1beta1 GpuConfig for full GPUs, MigDeviceConfig for MIG devices).
enum class SharingStrategy { kExclusive, kTimeSlicing, kMps };
// "Exclusive" / "TimeSlicing" / "MPS".
const char* SharingStrategyName(SharingStrategy strategy);

struct TimeSlicingSettings {
  std::string interval;  // "Default" | "Short" | "Medium" | "Long"; empty: the driver's default
};

struct MpsSettings {
  std::optional<int64_t> default_active_thread_percentage;  // 0..100
  std::optional<Quantity> default_pinned_device_memory_limit;
};

struct SharingSpec {
  SharingStrategy strategy = SharingStrategy::kExclusive;
  std::optional<TimeSlicingSettings> time_slicing;  // only with kTimeSlicing
  std::optional<MpsSettings> mps;                   // only with kMps
};

// spec.tolerations[]: a device taint toleration written into the template's request and used by
// the schedulable counts (the API's DeviceToleration).
struct DeviceTolerationSpec {
  std::string key;           // empty with Exists: every key
  std::string op = "Equal";  // "Equal" | "Exists"
  std::string value;
  std::string effect;                         // "" (every effect) | "NoSchedule" | "NoExecute"
  std::optional<int64_t> toleration_seconds;  // only with effect NoExecute
};

// spec.quota: a ResourceQuota per namespace that holds the profile's template.
struct QuotaSpec {
  int64_t devices_per_namespace = 0;  // >= 0
};

struct ClaimTemplateSpec {
  std::string name;          // defaulted: the profile's name
  std::string request_name;  // defaulted: "gpu"
  std::vector<std::string> namespaces;
  // Absent selects no namespace; an empty selector ({}) selects every namespace.
  std::optional<meta::LabelSelector> namespace_selector;
};

struct GpuProfileSpec {
  std::string description;
  std::string driver;  // defaulted: gpu.nvidia.com
  // As written; nullopt means "the default" (gpu), which drivers without a type attribute ignore
  // while an explicit value on such a driver is an error. Use EffectiveDeviceType().
  std::optional<std::string> device_type;
  ProfileSelector selector;
  std::optional<int64_t> count;  // as written; defaulted in code to 1 for ExactCount
  AllocationMode allocation_mode = AllocationMode::kExactCount;
  std::vector<OpaqueConfig> config;
  std::string device_class_name;  // defaulted: the profile's name
  ClaimTemplateSpec claim_template;
  std::optional<SharingSpec> sharing;  // unset: the driver's default (exclusive)
  // capacityRequests: what one claim takes of a device that allows multiple allocations
  // (name -> amount; unqualified names live in the driver's domain). Sorted by name.
  std::map<std::string, Quantity> capacity_requests;
  // fallback: other profiles whose classes the template's request falls back to, in order
  // (a firstAvailable list: this profile's class first).
  std::vector<std::string> fallback;
  std::optional<std::string> extended_resource_name;  // DeviceClass.extendedResourceName
  std::vector<DeviceTolerationSpec> tolerations;
  std::optional<QuotaSpec> quota;
  DeletionPolicy deletion_policy = DeletionPolicy::kDelete;

  const std::string& EffectiveDeviceType() const;
  // 1 when unset and ExactCount; nullopt for All.
  std::optional<int64_t> EffectiveCount() const;
};

// Where each matched device stands, counted with the cluster's claims (deviceStates): every
// matched device is in exactly one state, so the seven add up to the matched devices. A device
// is settled by the first that applies, in this order: allocated, tainted, incompletePool, then
// its counters (unavailable, blockedByCounters, overlapping), else free.
struct DeviceStates {
  // Free now, all at the same time (status.allocation.freeDevices).
  int64_t free = 0;
  // Free on its own, but draws counters the devices counted free use (a whole GPU and its free
  // MIG placements): not at the same time as those.
  int64_t overlapping = 0;
  int64_t allocated = 0;  // a claim of any class holds it
  // Allocated devices use up counters it needs: it does not fit in what they leave.
  int64_t blocked_by_counters = 0;
  int64_t tainted = 0;          // an untolerated NoSchedule or NoExecute taint
  int64_t incomplete_pool = 0;  // its pool is incomplete
  // A counter it draws is missing or smaller than its need: never allocatable.
  int64_t unavailable = 0;

  int64_t Total() const {
    return free + overlapping + allocated + blocked_by_counters + tainted + incomplete_pool +
           unavailable;
  }
  bool operator==(const DeviceStates& other) const;
  bool operator!=(const DeviceStates& other) const { return !(*this == other); }
};

struct NodeGroupMatch {
  std::string name;
  int64_t devices = 0;
  int64_t nodes = 0;
  int64_t schedulable_devices = 0;  // of `devices`, what the scheduler could allocate at once
  int64_t tainted_devices = 0;  // of `devices`, those with a taint the profile does not tolerate
  DeviceStates device_states;   // of `devices`
};

struct ClaimTemplateCounts {
  int64_t desired = 0;
  int64_t ready = 0;
};

// What the cluster's ResourceClaims hold of a profile's class, and what is left
// (status.allocation).
struct AllocationCounts {
  // Devices allocated to claims from this profile's class (a firstAvailable claim counts for
  // the class it was allocated from), and those claims.
  int64_t allocated_devices = 0;
  int64_t allocated_claims = 0;
  // Matched devices no claim holds that the scheduler could allocate now (schedulableDevices
  // less what claims hold, their counters included).
  int64_t free_devices = 0;
  // With spec.capacityRequests (devices shared through consumable capacity): how many more
  // such claims the schedulable matched devices could take now, after what the claims holding
  // them consume. A device held by a claim and not shared takes none. Unset otherwise.
  std::optional<int64_t> free_claims;
  // Claims not yet allocated that could use this class, and the creation time of the oldest
  // (RFC 3339; empty when none).
  int64_t pending_claims = 0;
  std::string oldest_pending_claim_time;
  // Every matched device in one state (they add up to status.matchedDevices; `free` equals
  // free_devices). Without claims, allocated and blocked_by_counters are 0.
  DeviceStates device_states;
};

struct GpuProfileStatus {
  int64_t observed_generation = 0;
  std::vector<meta::Condition> conditions;
  std::string device_class_name;
  std::vector<std::string> selectors;
  int64_t matched_devices = 0;
  int64_t matched_nodes = 0;
  // Of the matched devices: what the scheduler could allocate at once (no untolerated taint,
  // complete pool, counters to spare; profile/allocatable.h), and those with an untolerated
  // taint.
  int64_t schedulable_devices = 0;
  int64_t tainted_devices = 0;
  std::vector<NodeGroupMatch> node_groups;  // sorted by name
  ClaimTemplateCounts claim_templates;
  // The extended resource name pods can request (`resources.limits`) for this profile's class:
  // spec.extendedResourceName, or deviceclass.resource.kubernetes.io/<class> where the cluster
  // serves DRA extended resources; empty where it does not.
  std::string extended_resource_name;
  // Set when spec.capacityRequests is: how many claims with those requests the schedulable
  // devices could hold at once.
  std::optional<int64_t> schedulable_claims;
  // The namespaces holding this profile's ResourceQuota (spec.quota), counted like templates.
  ClaimTemplateCounts quotas;
  AllocationCounts allocation;
};

struct GpuProfile {
  meta::ObjectMeta metadata;
  GpuProfileSpec spec;
  GpuProfileStatus status;
};

}  // namespace gpuprofile::api
