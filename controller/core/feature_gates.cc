// File: controller/core/feature_gates.cc
#include "controller/core/feature_gates.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gpuprofile {
namespace {

constexpr GateStage kAlpha = GateStage::kAlpha;
constexpr GateStage kBeta = GateStage::kBeta;
constexpr GateStage kGA = GateStage::kGA;

// Kubernetes' versioned gate table (pkg/features), DRA gates only, 1.32 ... 1.37. A gate's steps
// before 1.32 are folded into its 1.32 row.
std::vector<GateSpec> BuildSpecs() {
  return {
      {kDynamicResourceAllocation,
       {{32, kBeta, false, false}, {34, kGA, true, false}, {35, kGA, true, true}}},
      {kDRAAdminAccess,
       {{32, kAlpha, false, false}, {34, kBeta, true, false}, {36, kGA, true, true}}},
      {kDRAConsumableCapacity, {{34, kAlpha, false, false}, {36, kBeta, true, false}}},
      {kDRADerivedAttributes, {{37, kAlpha, false, false}}},
      {kDRADeviceBindingConditions, {{34, kAlpha, false, false}, {36, kBeta, true, false}}},
      {kDRADeviceCompatibilityGroups, {{37, kAlpha, false, false}}},
      {kDRADeviceTaintRules,
       {{35, kAlpha, false, false}, {36, kBeta, false, false}, {37, kGA, true, false}}},
      {kDRADeviceTaints,
       {{33, kAlpha, false, false}, {36, kBeta, true, false}, {37, kGA, true, false}}},
      {kDRAExtendedResource,
       {{34, kAlpha, false, false}, {36, kBeta, true, false}, {37, kGA, true, true}}},
      {kDRAFractionalCapacityRange, {{37, kBeta, true, false}}},
      {kDRAListTypeAttributes, {{36, kAlpha, false, false}}},
      {kDRANodeAllocatableResources, {{36, kAlpha, false, false}}},
      {kDRAOptionalNodeOperations, {{37, kAlpha, false, false}}},
      {kDRAPartitionableDevices, {{33, kAlpha, false, false}, {36, kBeta, true, false}}},
      {kDRAPrioritizedList,
       {{33, kAlpha, false, false},
        {34, kBeta, true, false},
        {36, kGA, true, false},
        {37, kGA, true, true}}},
      {kDRAResourceClaimDeviceStatus,
       {{32, kAlpha, false, false}, {33, kBeta, true, false}, {37, kGA, true, true}}},
  };
}

}  // namespace

const GateStep* GateSpec::StepFor(int minor) const {
  const GateStep* found = nullptr;
  for (const GateStep& step : steps) {
    if (step.minor <= minor) found = &step;
  }
  return found;
}

const std::vector<GateSpec>& DraGateSpecs() {
  static const std::vector<GateSpec>* const kSpecs = new std::vector<GateSpec>(BuildSpecs());
  return *kSpecs;
}

const GateSpec* FindGateSpec(absl::string_view name) {
  for (const GateSpec& spec : DraGateSpecs()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

absl::StatusOr<FeatureGates> FeatureGates::Parse(const KubeVersion& version,
                                                 absl::string_view text) {
  FeatureGates gates(version);
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat("--feature-gates \"", item, "\": ", why));
    };
    if (kv.size() != 2) return bad("expected NAME=true or NAME=false");
    absl::string_view name = absl::StripAsciiWhitespace(kv[0]);
    std::string value = absl::AsciiStrToLower(absl::StripAsciiWhitespace(kv[1]));
    if (value != "true" && value != "false") return bad("the value must be true or false");
    bool enabled = value == "true";
    const GateSpec* spec = FindGateSpec(name);
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const GateSpec& s : DraGateSpecs()) known.push_back(s.name);
      return bad(absl::StrCat("unrecognized feature gate \"", name,
                              "\" (the DRA gates this project models: ",
                              absl::StrJoin(known, ", "), ")"));
    }
    const GateStep* step = spec->StepFor(version.minor);
    if (step == nullptr) {
      return bad(absl::StrCat(name, " is not a feature gate of Kubernetes ", version.ToString(),
                              "; it exists from 1.", spec->steps.front().minor));
    }
    if (step->locked && enabled != step->default_on) {
      return bad(absl::StrCat("cannot set feature gate ", name, " to ", value,
                              ", feature is locked to ", step->default_on ? "true" : "false",
                              " in Kubernetes ", version.ToString()));
    }
    gates.overrides_[std::string(name)] = enabled;
  }
  return gates;
}

bool FeatureGates::Enabled(absl::string_view gate) const {
  auto it = overrides_.find(gate);
  if (it != overrides_.end()) return it->second;
  const GateSpec* spec = FindGateSpec(gate);
  if (spec == nullptr) return false;
  const GateStep* step = spec->StepFor(version_.minor);
  return step != nullptr && step->default_on;
}

bool FeatureGates::Overridden(absl::string_view gate) const {
  return overrides_.find(gate) != overrides_.end();
}

FeatureGates& FeatureGates::Set(absl::string_view gate, bool enabled) {
  overrides_[std::string(gate)] = enabled;
  return *this;
}

std::string FeatureGates::OverridesString() const {
  std::vector<std::string> items;
  for (const auto& [name, enabled] : overrides_) {
    items.push_back(absl::StrCat(name, "=", enabled ? "true" : "false"));
  }
  return absl::StrJoin(items, ",");
}

}  // namespace gpuprofile
