// File: controller/cmd/render_command.h
// `gpu-profile-controller render` (docs/design.md §5): the operator's computation offline, for GitOps
// previews and CI.
//   render -f PATH [-f PATH]... [--kube-version V] [--feature-gates NAME=true,...]
//          [--api-version resource.k8s.io/vX] [-o yaml|json]
// --feature-gates states the cluster's DRA gates for the selectors' CEL environment; gates not
// named take the release's defaults.
// --kueue [--kueue-queue NAME]: prints what Kueue needs instead (controller/kueue/kueue_render.h).
// Reads GpuProfiles, ResourceSlices (any version), Namespaces and optionally existing
// DeviceClasses and ResourceClaimTemplates; prints GpuNodeGroups, DeviceClasses,
// ResourceClaimTemplates and every GpuProfile with its status, in that order, each sorted by
// namespace and name. Exit 0 when every input parses and every profile is valid; 1 with every
// problem on stderr and nothing on stdout otherwise; 2 on usage errors.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpuprofile::cmd {

int RunRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpuprofile::cmd
