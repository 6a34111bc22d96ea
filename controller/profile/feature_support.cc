// File: controller/profile/feature_support.cc
#include "controller/profile/feature_support.h"

#include "absl/strings/str_cat.h"

namespace gpuprofile::profile {
namespace {

const char* StageName(GateStage stage) {
  switch (stage) {
    case GateStage::kAlpha:
      return "alpha";
    case GateStage::kBeta:
      return "beta";
    case GateStage::kGA:
      return "GA";
  }
  return "alpha";
}

// Empty when `gate` is on; else why the field cannot be written.
std::string WhyNot(const FeatureGates& gates, const char* gate, const char* what) {
  if (gates.Enabled(gate)) return "";
  const KubeVersion& v = gates.version();
  const GateSpec* spec = FindGateSpec(gate);
  const GateStep* step = spec == nullptr ? nullptr : spec->StepFor(v.minor);
  if (step == nullptr) {
    const int from = spec == nullptr || spec->steps.empty() ? 0 : spec->steps.front().minor;
    return absl::StrCat("Kubernetes ", v.ToString(), " cannot express it: ", what,
                        " need feature gate ", gate, ", which exists from 1.", from);
  }
  return absl::StrCat("Kubernetes ", v.ToString(), " does not serve ", what, ": feature gate ",
                      gate, " (", StageName(step->stage), ") is off",
                      gates.Overridden(gate) ? " (--feature-gates)" : " by default",
                      "; if the cluster enables it, pass --feature-gates ", gate, "=true");
}

void Check(const FeatureGates& gates, bool used, const char* field, const char* gate,
           const char* what, std::vector<std::string>* out) {
  if (!used) return;
  std::string why = WhyNot(gates, gate, what);
  if (!why.empty()) out->push_back(absl::StrCat(field, ": ", why));
}

}  // namespace

bool ServesExtendedResources(const FeatureGates& gates) {
  return gates.Enabled(kDRAExtendedResource);
}

std::vector<std::string> UnservedFields(const api::GpuProfileSpec& spec,
                                        const FeatureGates& gates) {
  std::vector<std::string> out;
  Check(gates, !spec.fallback.empty(), "spec.fallback", kDRAPrioritizedList,
        "prioritized lists of subrequests (firstAvailable)", &out);
  Check(gates, !spec.tolerations.empty(), "spec.tolerations", kDRADeviceTaints,
        "device taint tolerations", &out);
  Check(gates, !spec.capacity_requests.empty(), "spec.capacityRequests", kDRAConsumableCapacity,
        "capacity requests on devices that allow multiple allocations", &out);
  Check(gates, spec.extended_resource_name.has_value(), "spec.extendedResourceName",
        kDRAExtendedResource, "extended resource names on DeviceClasses", &out);
  return out;
}

}  // namespace gpuprofile::profile
