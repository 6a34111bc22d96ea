// File: controller/profile/fallback.h
// spec.fallback resolved into the order a template's `firstAvailable` request tries classes
// (docs/design.md §3 "Fallback"). The profile's own class comes first, then each named profile,
// and each named profile's own fallbacks after it, depth first, every profile once: "H100, else
// A100" and an A100 profile that falls back to L40S give H100, A100, L40S. A firstAvailable
// request holds at most 8 subrequests.
// A name that is no profile, a profile that cannot be used (invalid, or its fields not served),
// a cycle (a -> b -> a) or a chain longer than 8 is a problem for every profile whose chain
// reaches it: the profile is Stalled (reason InvalidFallback) and writes nothing.
// Pure; thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpuprofile::profile {

inline constexpr char kReasonInvalidFallback[] = "InvalidFallback";
inline constexpr int kMaxFirstAvailable = 8;  // Kubernetes' FirstAvailableDeviceRequestMaxSize

struct FallbackChain {
  std::vector<std::string> profiles;  // the profile itself first; empty when problems
  std::vector<std::string> problems;  // "<field path>: <reason>" each
};

// `fallbacks`: every profile's spec.fallback, by profile name. `usable(name)` returns "" when
// the profile can serve as a fallback, else why not ("its spec is invalid").
FallbackChain ResolveFallback(
    const std::string& profile, const std::map<std::string, std::vector<std::string>>& fallbacks,
    const std::function<std::string(const std::string&)>& usable);

}  // namespace gpuprofile::profile
