// File: e2e/tests/story_cluster.h
// The cluster side of the allocation stories (allocation_story_test,
// allocation_accounting_story_test): the raw client's verbs, and what users, the resourceclaim
// controller and the scheduler do. kube-emulator runs no controller and no scheduler, so a story
// writes what they would: a pod from a profile's template, its claim (generated name, owned by
// the pod, the pod-claim-name annotation, the pod's status.resourceClaimStatuses) and the claim's
// allocation (results naming devices of the fleet, reservedFor the pod).
// A story's fixture derives from StoryCluster, starts kube-emulator and the operator into its
// members and sets `api_` once kube-emulator runs.
// Thread-compatible.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "e2e/tests/operator_process.h"
#include "e2e/tests/raw_http_client.h"
#include "nlohmann/json.hpp"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {

inline constexpr char kDraV1[] = "/apis/resource.k8s.io/v1";
inline constexpr char kNvidiaDriver[] = "gpu.nvidia.com";

// One device of an allocation result: {pool, device} of the fleet (driver gpu.nvidia.com), and
// what else the scheduler writes into the result (shareID, consumedCapacity), merged in.
struct AllocatedDevice {
  std::string pool;
  std::string device;
  nlohmann::json extra = nlohmann::json::object();
};

class StoryCluster {
 protected:
  // ---- the raw client: a write that fails is a test failure naming the path and the body ----
  nlohmann::json Get(const std::string& path);                // null unless 200
  std::vector<nlohmann::json> List(const std::string& path);  // empty unless 200
  nlohmann::json Create(const std::string& collection, const nlohmann::json& object);
  nlohmann::json Put(const std::string& path, const nlohmann::json& object);
  static std::string Pods(const std::string& ns);
  static std::string Claims(const std::string& ns);
  // Creates every Namespace and GpuProfile of the manifest file `file` (a path in the source
  // tree).
  void CreateAll(const std::string& file);
  // The status of a GpuProfile / GpuNodeGroup ({} when there is none).
  nlohmann::json ProfileStatus(const std::string& name);
  nlohmann::json GroupStatus(const std::string& name);
  // Whether the profile's condition `type` has `status`.
  bool ConditionIs(const std::string& profile, const std::string& type, const std::string& status);

  // ---- users, the resourceclaim controller, the scheduler --------------------------------------
  // A user's pod asking for one claim ("gpu") from template `tmpl`, as `kubectl apply` creates it.
  nlohmann::json UserPod(const std::string& ns, const std::string& name, const std::string& tmpl);
  // The resourceclaim controller: the pod's claim from its template, and the pod's status naming
  // it. Returns the claim (null when the template does not exist).
  nlohmann::json ClaimFor(nlohmann::json* pod, const std::string& tmpl);
  // The scheduler: `devices` allocated to the claim's first request, the claim reserved for the
  // pod, the pod scheduled. Returns the claim as stored.
  nlohmann::json Allocate(nlohmann::json claim, nlohmann::json* pod,
                          const std::vector<AllocatedDevice>& devices);

  // `kubectl ARGS...` with the pinned `kubectl_` against `scratch_`'s kubeconfig; an exit code
  // other than 0 is a test failure.
  CommandResult Kubectl(const std::vector<std::string>& args);
  // On a failed test, the operator's log and the emulator's stderr; then the operator killed.
  void StopStory(bool failed);

  ScratchDir scratch_;
  std::string kubeconfig_;  // scratch_'s "kubeconfig", written by kube-emulator
  std::string kubectl_;     // the pinned kubectl (PinnedKubectl)
  std::unique_ptr<EmulatorProcess> emulator_;
  std::unique_ptr<RawHttpClient> api_;
  std::unique_ptr<OperatorProcess> op_;
};

// `gpu-profile-controller explain ARGS...` for Kubernetes `kube_version` with `gates` (the
// `--feature-gates` flag and its value, or empty). Offline (`-f` among the arguments) the
// release is told; live, explain reads it from the server's /version.
ControllerResult RunExplain(std::vector<std::string> args, const std::string& kube_version,
                            const std::vector<std::string>& gates);

}  // namespace gpuprofile::e2e::testing
