// File: e2e/emulator/pod_validation.h
// The part of kube-apiserver's Pod validation (pkg/apis/core/validation/validation.go,
// ValidatePodSpec) that concerns DRA, as in the sources of 1.32 and later: `spec.resourceClaims`
// (validatePodResourceClaim: a unique DNS-label name, exactly one of `resourceClaimName` and
// `resourceClaimTemplateName`, each a DNS subdomain) and the containers' `resources.claims`
// (validateResourceClaimNames: a name of spec.resourceClaims, an optional request that is a DNS
// label, no entry twice and no claim named both whole and by request), for containers, init
// containers and ephemeral containers in that order. Nothing else of a Pod is validated.
// Pure; thread-safe.
#pragma once

#include <vector>

#include "e2e/emulator/api_error.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

// Empty when the pod's claim references are valid.
std::vector<StatusCause> ValidatePodResourceClaims(const nlohmann::json& pod);

}  // namespace gpuprofile::e2e
