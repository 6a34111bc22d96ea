// File: controller/profile/sharing_config.cc
#include "controller/profile/sharing_config.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/profile/driver_terms.h"

namespace gpuprofile::profile {
namespace {

std::string DriversWithSharing() {
  std::vector<std::string> names;
  for (const std::string& driver : KnownDrivers()) {
    if (!TermsForDriver(driver).sharing_kinds.empty()) names.push_back(driver);
  }
  return absl::StrJoin(names, ", ");
}

const DriverTerms::SharingKind* KindFor(const DriverTerms& terms, const std::string& type) {
  for (const DriverTerms::SharingKind& kind : terms.sharing_kinds) {
    if (kind.device_type == type) return &kind;
  }
  return nullptr;
}

}  // namespace

SharingConfigResult CompileSharing(const api::GpuProfileSpec& spec) {
  SharingConfigResult out;
  if (!spec.sharing || spec.sharing->strategy == api::SharingStrategy::kExclusive) return out;
  const api::SharingSpec& sharing = *spec.sharing;
  const DriverTerms& terms = TermsForDriver(spec.driver);
  if (terms.sharing_kinds.empty()) {
    out.problems.push_back(absl::StrCat(
        "spec.sharing: driver ", spec.driver,
        " has no sharing configuration the operator knows (drivers with one: ",
        DriversWithSharing(), "); put the driver's own configuration in spec.config instead"));
    return out;
  }
  const std::string& type =
      spec.device_type ? *spec.device_type : terms.default_device_type;
  const DriverTerms::SharingKind* kind = KindFor(terms, type);
  if (kind == nullptr) {
    std::vector<std::string> types;
    for (const DriverTerms::SharingKind& k : terms.sharing_kinds) types.push_back(k.device_type);
    out.problems.push_back(absl::StrCat("spec.sharing: driver ", spec.driver,
                                        " cannot share devices of type \"", type,
                                        "\" (only ", absl::StrJoin(types, ", "), ")"));
    return out;
  }
  if (sharing.time_slicing && !sharing.time_slicing->interval.empty() &&
      !kind->has_time_slice_interval) {
    out.problems.push_back(absl::StrCat(
        "spec.sharing.timeSlicing.interval: driver ", spec.driver, "'s ", kind->kind,
        " (device type ", type, ") has no time-slice interval; leave it unset"));
  }
  for (size_t i = 0; i < spec.config.size(); ++i) {
    const api::OpaqueConfig& c = spec.config[i];
    if (c.driver != spec.driver || !c.parameters.is_object()) continue;
    auto k = c.parameters.find("kind");
    if (k != c.parameters.end() && k->is_string() && k->get<std::string>() == kind->kind) {
      out.problems.push_back(absl::StrCat("spec.config[", i, "]: a ", kind->kind, " for ",
                                          spec.driver,
                                          " would conflict with the one spec.sharing generates; "
                                          "keep one of them"));
    }
  }
  if (!out.problems.empty()) return out;

  nlohmann::json body = nlohmann::json::object();
  body["strategy"] = api::SharingStrategyName(sharing.strategy);
  if (sharing.strategy == api::SharingStrategy::kTimeSlicing && sharing.time_slicing &&
      !sharing.time_slicing->interval.empty()) {
    body["timeSlicingConfig"] = {{"interval", sharing.time_slicing->interval}};
  }
  if (sharing.strategy == api::SharingStrategy::kMps && sharing.mps) {
    nlohmann::json mps = nlohmann::json::object();
    if (sharing.mps->default_active_thread_percentage) {
      mps["defaultActiveThreadPercentage"] = *sharing.mps->default_active_thread_percentage;
    }
    if (sharing.mps->default_pinned_device_memory_limit) {
      mps["defaultPinnedDeviceMemoryLimit"] =
          sharing.mps->default_pinned_device_memory_limit->ToString();
    }
    if (!mps.empty()) body["mpsConfig"] = std::move(mps);
  }
  nlohmann::json parameters = nlohmann::json::object();
  parameters["apiVersion"] = terms.sharing_api_version;
  parameters["kind"] = kind->kind;
  parameters["sharing"] = std::move(body);
  out.config = dra::OpaqueDeviceConfig{spec.driver, std::move(parameters), {}};
  return out;
}

}  // namespace gpuprofile::profile
