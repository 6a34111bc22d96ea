// File: controller/meta/resource_quota.h
// A core/v1 ResourceQuota as the operator generates it (a profile's per-namespace device quota)
// and reads it back. Only `spec.hard` is modelled; scopes and scope selectors, which the
// operator never writes, make a read-back quota differ from any desired one.
// Pure value type; thread-compatible.
#pragma once

#include <map>
#include <string>

#include "controller/core/quantity.h"
#include "controller/meta/object_meta.h"

namespace gpuprofile::meta {

struct ResourceQuota {
  ObjectMeta metadata;  // namespace_name is set
  std::map<std::string, Quantity> hard;  // resource name -> limit
  // True when spec.scopes or spec.scopeSelector is set.
  bool has_scopes = false;
};

}  // namespace gpuprofile::meta
