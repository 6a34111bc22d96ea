// File: controller/profile/device_matcher.h
// Evaluates profiles' compiled selectors on every device of an inventory, as the scheduler
// would: a device matches a profile when every selector returns true, evaluated in order and
// stopping at the first that does not; a selector that raises an error does not match (the
// scheduler would fail the allocation), and such errors are counted and reported.
//
// Fleets repeat themselves: devices of one node group agree on everything typical selectors
// read. Selectors whose reads reduce to named attributes and capacities (selector_paths.h) are
// therefore evaluated once per distinct combination of those values, not once per device; the
// rest are evaluated per device. Both give the same answers (tested).
// Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/dra/inventory.h"
#include "controller/profile/device_set.h"
#include "controller/profile/fleet_memo.h"
#include "controller/profile/selector_compiler.h"

namespace gpuprofile::profile {

struct ProfileMatches {
  DeviceSet matched;  // over inventory.devices()
  int64_t matched_count = 0;
  int64_t error_count = 0;  // devices on which a selector raised an error
  std::string first_error;  // "<device>: <selector field>: <error>", empty when none
};

struct MatchOptions {
  // Evaluate every device (no sharing); for tests and as the reference behaviour.
  bool per_device = false;
};

// One result per entry of `profiles` (nullptr entries, e.g. invalid profiles, match nothing).
// `memo` (optional) keeps projection classes and outcomes between calls (fleet_memo.h); the
// result is the same with or without it.
std::vector<ProfileMatches> MatchDevices(const dra::Inventory& inventory,
                                         const std::vector<const CompiledSelectors*>& profiles,
                                         const MatchOptions& options = {},
                                         FleetMemo* memo = nullptr);

}  // namespace gpuprofile::profile
