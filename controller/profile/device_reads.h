// File: controller/profile/device_reads.h
// What the engine reads of devices, so that a caller that decodes a fleet once (render) builds
// only that (dra/attribute_demand.h). The engine reads device attributes in two places:
//  - the profiles' selectors (device_matcher.h), through the paths each reads (selector_paths.h);
//    a selector that reads `device` any other way needs every attribute;
//  - the node groups' signatures (node_groups.h): type, product, versions, architecture of the
//    device's own driver.
// Leaving the rest out changes no result: a selector that reads only its paths gives the same
// answer on any device that agrees on them (tested on the varied specs over whole fleets).
// Pure; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "controller/dra/attribute_demand.h"
#include "controller/profile/selector_compiler.h"
#include "controller/profile/selector_paths.h"

namespace gpuprofile::profile {

struct SpecPlan;  // engine.h

// The paths every selector of a profile reads, or nullopt when one of them is not reducible.
std::optional<std::vector<DevicePath>> ProfilePaths(const CompiledSelectors& selectors);

// The attributes AssembleDesiredState(plan, ...) reads of any device.
dra::AttributeDemand AttributesRead(const SpecPlan& plan);

}  // namespace gpuprofile::profile
