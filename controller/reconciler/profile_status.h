// File: controller/reconciler/profile_status.h
// The status `run` writes, beyond what the engine computes:
//  - DraNotServedStatus: the cluster serves no resource.k8s.io version the operator reads; every
//    profile is Stalled with reason DRANotServed, saying what discovery found, until an admin
//    enables DRA (picked up without a restart);
//  - UndecodableStatus: the stored spec does not decode (a type the CRD schema let through);
//    Stalled with reason InvalidSpec naming each field;
//  - ProgressingOverlay: objects are not all in place yet (a write failed and will be retried):
//    Ready False / Reconciling True with the reason, as kstatus expects;
//  - NotStoredOverlay: the API server does not store what the operator writes (a field of a
//    feature gate the cluster has off, though --feature-gates says on): Ready False, Stalled True
//    with reason FeatureNotServed and the message;
//  - StampTransitionTimes: lastTransitionTime carried over from the stored status when a
//    condition's status did not change, else `now`.
// Pure; thread-safe.
#pragma once

#include <map>
#include <string>

#include "absl/time/time.h"
#include "controller/api/gpu_profile.h"
#include "controller/reconciler/cluster_objects.h"

namespace gpuprofile::reconciler {

inline constexpr char kReasonDraNotServed[] = "DRANotServed";
inline constexpr char kReasonProgressing[] = "Progressing";

// `discovered`: what discovery found ("the API server serves resource.k8s.io only in version
// v1alpha3, ..."); empty when not known yet.
api::GpuProfileStatus DraNotServedStatus(const ProfileObject& object,
                                         const std::string& discovered = "");
api::GpuProfileStatus UndecodableStatus(const ProfileObject& object);
void ProgressingOverlay(const std::string& message, api::GpuProfileStatus* status);
void NotStoredOverlay(const std::string& message, api::GpuProfileStatus* status);
void StampTransitionTimes(const std::map<std::string, StoredCondition>& stored, absl::Time now,
                          api::GpuProfileStatus* status);

}  // namespace gpuprofile::reconciler
