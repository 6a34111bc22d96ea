// File: controller/cmd/run_command.h
// `gpu-profile-controller run` (docs/design.md §2, §4): the operator against a live cluster.
// Flags (kubebuilder's names and defaults where they exist):
//   --kubeconfig PATH, --context NAME          how to reach the cluster (else in-cluster)
//   --leader-elect[=true|false]                default false (the shipped Deployment sets true)
//   --leader-election-namespace NS             default: the pod's namespace, else the context's
//   --leader-election-id NAME                  default gpu-profile-operator.gpuprofile.io
//   --leader-elect-lease-duration 15s, --leader-elect-renew-deadline 10s,
//   --leader-elect-retry-period 2s
//   --metrics-bind-address :8080, --health-probe-bind-address :8081   ("0" disables either)
//   --kube-api-qps 50, --kube-api-burst 100
//   --log-format text|json, --log-level debug|info|warn|error
//   --workers 4, --graceful-shutdown-timeout 30s, --status-update-interval 1s,
//   --dra-discovery-interval 10s
// Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT), 1 on a startup failure or when
// leadership is lost (the process restarts and campaigns again, as controller-runtime does),
// 2 on usage errors.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpuprofile::cmd {

int RunOperator(const std::vector<std::string>& args, std::ostream& err);

}  // namespace gpuprofile::cmd
