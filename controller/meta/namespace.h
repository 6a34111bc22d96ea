// File: controller/meta/namespace.h
// What the operator needs of a core/v1 Namespace: its name, labels and whether it is terminating
// (status.phase == Terminating or metadata.deletionTimestamp set).
// Pure value type; thread-compatible.
#pragma once

#include "controller/meta/object_meta.h"

namespace gpuprofile::meta {

struct Namespace {
  ObjectMeta metadata;
  bool terminating = false;
};

}  // namespace gpuprofile::meta
