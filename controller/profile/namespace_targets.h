// File: controller/profile/namespace_targets.h
// Which namespaces get a profile's ResourceClaimTemplate: `claimTemplate.namespaces` ∪ the
// namespaces `claimTemplate.namespaceSelector` selects (absent selects none, `{}` selects all),
// never a terminating namespace.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "controller/api/gpu_profile.h"
#include "controller/meta/namespace.h"

namespace gpuprofile::profile {

// Sorted and unique. When `namespaces_complete`, explicitly named namespaces that are not in
// `namespaces` are left out (they do not exist); otherwise they are kept unless listed as
// terminating.
std::vector<std::string> TargetNamespaces(const api::ClaimTemplateSpec& spec,
                                          const std::vector<meta::Namespace>& namespaces,
                                          bool namespaces_complete);

}  // namespace gpuprofile::profile
