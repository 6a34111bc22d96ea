// File: e2e/emulator/quota_admission.h
// What kube-apiserver and the resource-quota controller do to a core/v1 ResourceQuota, as far
// as the emulator models it (pkg/apis/core/validation ValidateResourceQuota*, pkg/apis/core/
// helper's resource-name sets, pkg/registry/core/resourcequota's strategy):
//  - decoding: every spec.hard, status.hard and status.used value must be a quantity (else the
//    API server cannot decode the object: 400), and is stored in canonical form ("1000m" -> "1");
//  - validation of the resource names (a qualified name; a name without a "/" must be one of the
//    standard quota resources) and values (not negative; integer for object counts and extended
//    resources such as `<class>.deviceclass.resource.k8s.io/devices`), with the API server's
//    field paths and messages;
//  - status: cleared on create and kept on update of the main resource (the strategy), and
//    status.hard mirrored from spec.hard with status.used kept for the hard keys only (what the
//    quota controller writes). `used` is not computed (e2e/README.md).
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "e2e/emulator/api_error.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

// Whether every quantity of spec.hard, status.hard and status.used parses. InvalidArgument with
// the decoder's message when one does not; the caller answers 400 ("ResourceQuota in version
// \"v1\" cannot be handled as a ResourceQuota: <message>").
absl::Status CheckQuotaQuantities(const nlohmann::json& object);

// Rewrites those quantities in canonical form ("1000m" -> "1"), as the API server stores them.
// Call after validation: its messages quote the value as written.
void CanonicalizeQuotaQuantities(nlohmann::json& object);

// Validation of a create or update of the main resource (spec.hard; status as stored).
std::vector<StatusCause> ValidateResourceQuota(const nlohmann::json& object);

// Validation of a write to the status subresource (status.hard and status.used).
std::vector<StatusCause> ValidateResourceQuotaStatus(const nlohmann::json& object);

// The quota controller's part: status.hard := spec.hard, status.used restricted to those keys.
void SyncResourceQuotaStatus(nlohmann::json& object);

// The "Request" (`limits` = false) and "Limit" cells of kube-apiserver's table printer:
// "<name>: <used>/<hard>, ..." over status.hard in name order, `limits.*` names in the Limit
// column, a missing used value printed as 0.
std::string QuotaTableCell(const nlohmann::json& object, bool limits);

}  // namespace gpuprofile::e2e
