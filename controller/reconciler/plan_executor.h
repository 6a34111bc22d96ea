// File: controller/reconciler/plan_executor.h
// Carries out an object plan (object_plan.h) through a ClusterWriter, action by action, and says
// what happened. Every action is tried even when an earlier one failed (the first error is
// kept): one stuck namespace must not hold back the others.
//
// What the server answers that the plan could not know is handled here:
//  - a create that meets an existing object (409 AlreadyExists) is a conflict: for a template or
//    a quota, the object is read, and when it is not the operator's it is recorded in `foreign`
//    (the desired state then reports Conflict and wants nothing there); when it is (the cache was
//    behind) nothing more is needed, its watch event brings it;
//  - a re-create whose delete succeeded but whose create failed is left to the next pass.
// Thread-safety: thread-compatible; the writer and `foreign` are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "controller/dra/api_version.h"
#include "controller/reconciler/cluster_writer.h"
#include "controller/reconciler/foreign_objects.h"
#include "controller/reconciler/object_plan.h"

namespace gpuprofile::reconciler {

struct AppliedChanges {
  // The objects, by what was done to them.
  std::vector<ObjectRef> created, updated, recreated, adopted, released, deleted;
  std::vector<ObjectRef> conflicts;  // creates that met an object the cache did not have
  // Desired templates put in place by this plan (created, re-created or adopted).
  int64_t templates_placed = 0;
  // Desired quotas put in place by this plan (created, replaced or adopted).
  int64_t quotas_placed = 0;
  absl::Status first_error;

  void Fail(absl::Status status) {
    if (first_error.ok()) first_error = std::move(status);
  }
  // Nothing written, nothing failed, nothing in the way.
  bool Quiet() const;
};

// `foreign` may be null (objects met on create are then not recorded). `version` is used for the
// DRA kinds only (quotas are core/v1).
AppliedChanges ExecutePlan(const std::vector<Action>& actions, dra::DraApiVersion version,
                           ClusterWriter* writer, ForeignObjects* foreign);

}  // namespace gpuprofile::reconciler
