// File: controller/core/feature_gates.h
// The Kubernetes feature gates that change what DRA objects may hold and what a device selector
// may say, with each gate's stage and default per release (1.32 ... 1.37, as the API server's
// versioned gate table has them), and the user's overrides (`--feature-gates A=true,B=false`).
//
// The operator cannot discover a cluster's gates: the flag states them, and every gate not named
// takes its release's default. As the API server does, a gate unknown on the chosen release and
// a locked gate set against its default are errors.
// Pure value type; thread-compatible.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/core/kube_version.h"

namespace gpuprofile {

// Gate names, so callers do not spell them.
inline constexpr char kDynamicResourceAllocation[] = "DynamicResourceAllocation";
inline constexpr char kDRAAdminAccess[] = "DRAAdminAccess";
inline constexpr char kDRAConsumableCapacity[] = "DRAConsumableCapacity";
inline constexpr char kDRADerivedAttributes[] = "DRADerivedAttributes";
inline constexpr char kDRADeviceBindingConditions[] = "DRADeviceBindingConditions";
inline constexpr char kDRADeviceCompatibilityGroups[] = "DRADeviceCompatibilityGroups";
inline constexpr char kDRADeviceTaintRules[] = "DRADeviceTaintRules";
inline constexpr char kDRADeviceTaints[] = "DRADeviceTaints";
inline constexpr char kDRAExtendedResource[] = "DRAExtendedResource";
inline constexpr char kDRAFractionalCapacityRange[] = "DRAFractionalCapacityRange";
inline constexpr char kDRAListTypeAttributes[] = "DRAListTypeAttributes";
inline constexpr char kDRANodeAllocatableResources[] = "DRANodeAllocatableResources";
inline constexpr char kDRAOptionalNodeOperations[] = "DRAOptionalNodeOperations";
inline constexpr char kDRAPartitionableDevices[] = "DRAPartitionableDevices";
inline constexpr char kDRAPrioritizedList[] = "DRAPrioritizedList";
inline constexpr char kDRAResourceClaimDeviceStatus[] = "DRAResourceClaimDeviceStatus";

enum class GateStage { kAlpha, kBeta, kGA };

// One row of a gate's history: from `minor` on, the gate has this stage and default.
struct GateStep {
  int minor;
  GateStage stage;
  bool default_on;
  bool locked;  // the API server refuses to set it against its default
};

struct GateSpec {
  const char* name;
  std::vector<GateStep> steps;  // ascending by minor
  // The step in force on `minor`; nullptr when the gate does not exist yet on that release.
  const GateStep* StepFor(int minor) const;
};

// Every DRA gate this project models, by name.
const std::vector<GateSpec>& DraGateSpecs();
const GateSpec* FindGateSpec(absl::string_view name);

class FeatureGates {
 public:
  // The defaults of `version`, nothing overridden.
  explicit FeatureGates(KubeVersion version = KubeVersion::Newest()) : version_(version) {}

  // Parses "A=true,B=false" (spaces around items allowed; empty text = no overrides) for
  // `version`. Errors name the item: an unknown gate, one that does not exist yet on `version`
  // ("DRAListTypeAttributes is not a feature gate of Kubernetes 1.35; it exists from 1.36"), a
  // value other than true/false, or a locked gate set against its default.
  static absl::StatusOr<FeatureGates> Parse(const KubeVersion& version, absl::string_view text);

  // The override if one was given, else the release default; false for gates unknown on the
  // release.
  bool Enabled(absl::string_view gate) const;
  // Whether the user set it (for messages: "enabled by --feature-gates").
  bool Overridden(absl::string_view gate) const;
  const KubeVersion& version() const { return version_; }
  // Sets one gate, unchecked (tests; the parser checks).
  FeatureGates& Set(absl::string_view gate, bool enabled);
  // "DRAListTypeAttributes=true,..." of the overrides, sorted; "" when none.
  std::string OverridesString() const;

 private:
  KubeVersion version_;
  std::map<std::string, bool, std::less<>> overrides_;
};

}  // namespace gpuprofile
