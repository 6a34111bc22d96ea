// File: controller/reconciler/status_metrics.h
// Gauges that mirror what an object's status says, for alerts and dashboards:
//  - conditions in kube-state-metrics' style: per object and condition type, one series per
//    status (True, False, Unknown), 1 on the condition's current status and 0 on the other two,
//    so `x{type="Satisfiable",status="False"} == 1` selects the objects in that state and the
//    series keeps its identity when the reason changes (a `for:` clause is not reset);
//  - the creation time of a profile's oldest pending claim, in Unix seconds, as the API server
//    stamped it (not the operator's clock): PromQL's `time() - x` is its age by Prometheus'
//    clock.
// A deleted object's series are removed (MetricFamily::Remove), not left at their last value.
// Stateless helpers over thread-safe families; thread-safe as long as no two threads export the
// same object at once (the controllers never run one key twice at once).
#pragma once

#include <string>
#include <vector>

#include "controller/api/gpu_profile.h"
#include "controller/meta/condition.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::reconciler {

// The condition types exported per profile (all five a profile's status always has) and per
// node group (OfferedTwice, absent when False).
const std::vector<std::string>& ProfileConditionTypes();
const std::vector<std::string>& NodeGroupConditionTypes();

// `family` has the labels {<object>, "type", "status"}. For each of `types`: the three series of
// `object`, 1 on the status `conditions` give the type and 0 on the others; a type that
// `conditions` lacks takes `absent`.
void SetConditionGauges(runtime::GaugeFamily* family, const std::string& object,
                        const std::vector<std::string>& types,
                        const std::vector<meta::Condition>& conditions,
                        meta::ConditionStatus absent);
// Removes every series SetConditionGauges makes for `object` and `types`.
void RemoveConditionGauges(runtime::GaugeFamily* family, const std::string& object,
                           const std::vector<std::string>& types);

// `family` has the label {profile}. Sets the profile's series to the creation time of its oldest
// pending claim (status.allocation.oldestPendingClaimTime) in Unix seconds; removes the series
// when no claim is pending or the time is not RFC 3339.
void SetOldestPendingClaim(runtime::GaugeFamily* family, const std::string& profile,
                           const api::AllocationCounts& allocation);

}  // namespace gpuprofile::reconciler
