// File: controller/cmd/cel_command.h
// `gpu-profile-controller cel check|match` (docs/design.md §6): the CEL engine as a tool.
//   cel check [--kube-version V] [--feature-gates NAME=true,...] EXPR...
//       0: Kubernetes V accepts every expression in a new DeviceClass; 1: one is rejected (reason
//       and position on stderr); 3: one uses a feature this engine does not implement. An
//       accepted expression that needs a feature gate that is on says so.
//   cel match [--kube-version V] [--feature-gates NAME=true,...] -f PATH... [-o text|json] EXPR
//       Per device of every pool's newest generation: selected, not selected, or the runtime
//       error Kubernetes would raise. 0 when the expression compiled, 1 when it did not (or the
//       inputs could not be read), 2 on usage errors (a bad --feature-gates included).
// --feature-gates states the cluster's DRA gates; gates not named take the release's defaults.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpuprofile::cmd {

int RunCel(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunCelCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunCelMatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpuprofile::cmd
