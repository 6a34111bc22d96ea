// File: e2e/tests/story_support.h
// What the operator's end-to-end stories share (operator_story_test, allocation_story_test,
// gitops_story_test): API paths, deadlines, JSON accessors, the test's kube-emulator admin
// client, the operator's test flags, the pinned kubectl and waiting with a deadline.
//
// The stories keep one convention: the test's ScratchDir holds the kubeconfig kube-emulator
// wrote (`--kubeconfig-out <scratch>/kubeconfig`) and kubectl's cache (`<scratch>/kubectl-cache`).
// Thread-compatible.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {

// How long the operator gets to converge after a change (a wait polls until then).
inline constexpr absl::Duration kConverge = absl::Seconds(30);
// How long one command (kubectl, an offline subcommand of the controller) may run.
inline constexpr absl::Duration kCommandDeadline = absl::Seconds(60);

inline constexpr char kProfiles[] = "/apis/gpuprofile.io/v1alpha1/gpuprofiles";
inline constexpr char kNodeGroups[] = "/apis/gpuprofile.io/v1alpha1/gpunodegroups";
inline constexpr char kNamespaces[] = "/api/v1/namespaces";
inline constexpr char kNodes[] = "/api/v1/nodes";
// The label selector of the objects the operator generates.
inline constexpr char kManaged[] = "app.kubernetes.io/managed-by=gpu-profile-operator";

// `path` in the source tree (crds, config/samples/...).
std::string Src(const std::string& path);

// A parameterised test's name for a Kubernetes release: "1.34" gives "Kube134".
std::string KubeReleaseName(const std::string& kube_version);
// The name generator of INSTANTIATE_TEST_SUITE_P for a parameter with a `kube_version`.
template <typename Release>
std::string ReleaseName(const ::testing::TestParamInfo<Release>& info) {
  return KubeReleaseName(info.param.kube_version);
}

// metadata.name; metadata.resourceVersion ("" when `o` is not an object); "namespace/name", or
// the name of a cluster-scoped object.
std::string Name(const nlohmann::json& o);
std::string Rv(const nlohmann::json& o);
std::string Key(const nlohmann::json& o);

// The condition `type` in a status's `conditions`; null when there is none.
nlohmann::json FindCondition(const nlohmann::json& status, const std::string& type);
// The condition `type` in an object's status; null when the object is null or has no status.
nlohmann::json ConditionOf(const nlohmann::json& object, const std::string& type);

// A request of a ResourceClaimTemplate, flattened (v1beta2/v1 put the class in "exactly").
nlohmann::json FlatRequest(const nlohmann::json& request);

// Percent-encodes all but RFC 3986's unreserved characters (a label selector in a query).
std::string UrlEncode(const std::string& s);

// The bearer token in a kubeconfig kube-emulator wrote; "" when there is none.
std::string KubeconfigToken(const std::string& path);
// A client of `emulator` with the admin token of the kubeconfig it wrote to `kubeconfig`.
std::unique_ptr<RawHttpClient> AdminClient(const EmulatorProcess& emulator,
                                           const std::string& kubeconfig);

// `run`'s flags for a test: the kubeconfig, metrics and probes on port 0, short status and
// discovery intervals.
std::vector<std::string> OperatorTestFlags(const std::string& kubeconfig);

// On a failed test: the tail of each operator's log and the emulator's stderr, to stderr (null
// entries are skipped).
void PrintFailureLogs(const std::vector<const OperatorProcess*>& operators,
                      const EmulatorProcess* emulator);

// The pinned kubectl binary `name` (e.g. "kubectl.1.33") next to the kubectl dispatcher on
// PATH; "" when it is not installed.
std::string PinnedKubectl(const std::string& name);
// `kubectl ARGS...` with the binary `kubectl` against the scratch directory's kubeconfig,
// killed at kCommandDeadline.
CommandResult RunKubectl(const std::string& kubectl, const ScratchDir& scratch,
                         const std::vector<std::string>& args);
// The same; an exit code other than 0 is a test failure showing the command and its output.
CommandResult RunKubectlOk(const std::string& kubectl, const ScratchDir& scratch,
                           const std::vector<std::string>& args);

// Polls `check` until it holds or `deadline` passes (PollUntil); whether it held.
bool Eventually(const std::function<bool()>& check, absl::Duration deadline = kConverge);

}  // namespace gpuprofile::e2e::testing
