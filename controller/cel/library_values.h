// File: controller/cel/library_values.h
// CEL values of the Kubernetes library types `kubernetes.Quantity` and `kubernetes.Semver`: how
// other code (DRA device capacity and version attributes, tests) builds them and reads them back.
// Implemented by quantity_library.cc and semver_library.cc.
//
// Equality follows Kubernetes: two quantities (or two semvers) are equal when their values are,
// whatever their spelling ("40Gi" == "40960Mi", "1.0.0+a" == "1.0.0"); comparing with any other
// type is "no such overload".
// Thread-safety: the values are immutable and may be shared between threads.
#pragma once

#include "controller/cel/value.h"
#include "controller/core/quantity.h"
#include "controller/core/semver.h"

namespace gpuprofile::cel {

Value MakeQuantityValue(Quantity quantity);
// The quantity inside `value`, or null when `value` is not a `kubernetes.Quantity`. The pointer
// lives as long as `value` (or a copy of it).
const Quantity* AsQuantity(const Value& value);

Value MakeSemverValue(Semver semver);
// The version inside `value`, or null when `value` is not a `kubernetes.Semver`.
const Semver* AsSemver(const Value& value);

}  // namespace gpuprofile::cel
