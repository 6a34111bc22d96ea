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

#include "controller/meta/condition.h"
#include "controller/meta/label_selector.h"
#include "controller/meta/object_meta.h"
#include "controller/core/quantity.h"
#include "controller/core/semver.h"
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
  std::vector<std::string> product_names;   // empty: no term
  std::vector<std::string> architectures;   // empty: no term
  std::optional<VersionRange> compute_capability;
  std::optional<VersionRange> driver_version;
  std::optional<VersionRange> cuda_driver_version;
  std::vector<AttributeTerm> attributes;
  std::vector<CapacityTerm> capacity;
  std::vector<std::string> cel;             // raw CEL selector expressions
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

struct ClaimTemplateSpec {
  std::string name;          // defaulted: the profile's name
  std::string request_name;  // defaulted: "gpu"
  std::vector<std::string> namespaces;
  // Absent selects no namespace; an empty selector ({}) selects every namespace.
  std::optional<LabelSelector> namespace_selector;
};

struct GpuProfileSpec {
  std::string description;
  std::string driver;                      // defaulted: gpu.nvidia.com
  // As written; nullopt means "the default" (gpu), which drivers without a type attribute ignore
  // while an explicit value on such a driver is an error. Use EffectiveDeviceType().
  std::optional<std::string> device_type;
  ProfileSelector selector;
  std::optional<int64_t> count;            // as written; defaulted in code to 1 for ExactCount
  AllocationMode allocation_mode = AllocationMode::kExactCount;
  std::vector<OpaqueConfig> config;
  std::string device_class_name;           // defaulted: the profile's name
  ClaimTemplateSpec claim_template;
  DeletionPolicy deletion_policy = DeletionPolicy::kDelete;

  const std::string& EffectiveDeviceType() const;
  // 1 when unset and ExactCount; nullopt for All.
  std::optional<int64_t> EffectiveCount() const;
};

struct NodeGroupMatch {
  std::string name;
  int64_t devices = 0;
  int64_t nodes = 0;
  int64_t schedulable_devices = 0;  // of `devices`, what the scheduler could allocate at once
  int64_t tainted_devices = 0;      // of `devices`, those with a taint the profile does not tolerate
};

struct ClaimTemplateCounts {
  int64_t desired = 0;
  int64_t ready = 0;
};

struct GpuProfileStatus {
  int64_t observed_generation = 0;
  std::vector<Condition> conditions;
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
};

struct GpuProfile {
  ObjectMeta metadata;
  GpuProfileSpec spec;
  GpuProfileStatus status;
};

}  // namespace gpuprofile::api
