// File: controller/cmd/explain_command.h
// `gpu-profile-controller explain` (docs/design.md, "explain"), also the kubectl plugin
// `kubectl gpuprofile explain` (the binary started as `kubectl-gpuprofile`, main.cc): why a
// pod's ResourceClaims are not allocated, most likely cause first, with the evidence.
//   explain (pod|resourceclaim|gpuprofile)/NAME [-n NS] [--kubeconfig PATH] [--context NAME]
//           [--kube-version V] [--feature-gates NAME=true,...] [-o text|json]
//   explain (pod|resourceclaim|gpuprofile)/NAME [-n NS] -f PATH [-f PATH]... [--kube-version V]
//           [--feature-gates ...] [-o text|json]
// Live (no -f): reads the subject, the claims, templates, GpuProfiles, ResourceSlices,
// DeviceClasses, Namespaces and Nodes over the API (kubeconfig as kubectl finds it: --kubeconfig,
// KUBECONFIG, ~/.kube/config, in-cluster), the release from /version and whether
// resource.k8s.io is served from discovery; Nodes it may not list (Forbidden) leave the
// migration view out, with a warning. Offline (-f): the files as `render` reads them, plus
// Pods, ResourceClaims and Nodes; the operator's desired state counts as existing.
// Exit codes (kExplain*): 0 explained, no cause found (claims allocated, profile serving, or
// nothing in DRA's data keeps the subject waiting); 3 explained, at least one cause found;
// 1 inputs unreadable, the cluster unreachable or the subject not found; 2 usage.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpuprofile::cmd {

inline constexpr int kExitExplainedNoCause = 0;
inline constexpr int kExitExplainedCause = 3;

// `program` names the command in usage and error messages ("gpu-profile-controller explain" or
// "kubectl gpuprofile explain").
int RunExplain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const std::string& program = "gpu-profile-controller explain");

}  // namespace gpuprofile::cmd
