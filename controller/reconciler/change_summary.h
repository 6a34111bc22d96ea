// File: controller/reconciler/change_summary.h
// The words of the events a profile gets for what a plan did to its objects:
// "created DeviceClass a and 3 ResourceClaimTemplates (in batch, ml-train, team-a)". Classes are
// named, templates and quotas counted with their first namespaces.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "controller/reconciler/object_plan.h"

namespace gpuprofile::reconciler {

// "<verb> <what>"; "" when `what` is empty.
std::string SummariseChanges(const std::string& verb, const std::vector<ObjectRef>& what);

}  // namespace gpuprofile::reconciler
