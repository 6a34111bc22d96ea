// File: controller/kube/merge_patch.h
// The JSON merge patch (RFC 7386) that turns `from` into `to`: members of `to` that differ,
// recursing into objects both sides hold, and null for each member of `from` that `to` lacks
// (a merge patch that merely carries `to` would leave those in place: a status field that
// disappears, e.g. oldestPendingClaimTime once no claim waits, would stay on the server, and
// the next comparison would want to write again). Arrays and scalars are replaced whole.
// Pure; thread-safe.
#pragma once

#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

// `from` may be null or a non-object (then the patch is `to`). Applying the result to `from` as
// a merge patch gives `to`, as long as `to` holds no null members (Kubernetes objects do not).
nlohmann::json CreateMergePatch(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace gpuprofile::kube
