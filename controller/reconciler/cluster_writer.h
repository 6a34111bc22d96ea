// File: controller/reconciler/cluster_writer.h
// Every write the operator issues, in one place: encoding in the served DRA version, the
// field manager, and the gate that stops a replica that is not (or no longer) the leader from
// writing anything — the last line of defence behind "workers only run while leading".
// Methods return the REST client's errors unchanged (see kube/api_error.h), or
// FailedPrecondition when the gate is closed.
// Thread-safety: thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "controller/core/kube_version.h"
#include "controller/dra/api_version.h"
#include "controller/dra/device_class.h"
#include "controller/dra/resource_claim_template.h"
#include "controller/kube/rest_client.h"
#include "controller/runtime/metrics.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::reconciler {

struct ClusterWriterOptions {
  kube::RestClient* client = nullptr;  // must outlive the writer
  KubeVersion kube;
  std::string field_manager = "gpu-profile-operator";
  // Null: always open (tests, --leader-elect=false).
  std::function<bool()> may_write;
  // gpuprofile_operator_writes_total{verb,resource}; may be null.
  runtime::CounterFamily* writes_total = nullptr;
};

class ClusterWriter {
 public:
  explicit ClusterWriter(ClusterWriterOptions options);

  absl::Status CreateDeviceClass(dra::DraApiVersion version, const dra::DeviceClass& c);
  // PUT; `c.metadata` carries the stored resourceVersion (optimistic concurrency).
  absl::Status ReplaceDeviceClass(dra::DraApiVersion version, const dra::DeviceClass& c);
  absl::Status CreateTemplate(dra::DraApiVersion version, const dra::ResourceClaimTemplate& t);
  absl::StatusOr<nlohmann::json> GetTemplate(dra::DraApiVersion version, const std::string& ns,
                                             const std::string& name);
  // Deletes with a uid precondition, so a newer object under the same name is never deleted.
  // NotFound counts as done.
  absl::Status DeleteDeviceClass(dra::DraApiVersion version, const std::string& name,
                                 const std::string& uid);
  absl::Status DeleteTemplate(dra::DraApiVersion version, const std::string& ns,
                              const std::string& name, const std::string& uid);
  // Merge-patches labels and ownerReferences (with the resourceVersion as precondition).
  absl::Status PatchClassOwnership(dra::DraApiVersion version, const api::ObjectMeta& meta);
  absl::Status PatchTemplateOwnership(dra::DraApiVersion version, const api::ObjectMeta& meta);

  // GpuProfile: status (merge patch of the status subresource) and finalizers (JSON patch that
  // tests the resourceVersion first, so a concurrent edit is never overwritten).
  absl::Status PatchProfileStatus(const std::string& name, const nlohmann::json& status);
  absl::Status SetProfileFinalizers(const api::ObjectMeta& meta,
                                    const std::vector<std::string>& finalizers);

  // GpuNodeGroups (cluster-scoped, status subresource).
  absl::Status CreateNodeGroup(const nlohmann::json& object);
  absl::Status PatchNodeGroupStatus(const std::string& name, const nlohmann::json& status);
  absl::Status PatchNodeGroupLabels(const std::string& name, const nlohmann::json& labels);
  absl::Status DeleteNodeGroup(const std::string& name, const std::string& uid);

  const KubeVersion& kube() const { return options_.kube; }

 private:
  absl::Status Gate(const char* verb, const char* resource);

  const ClusterWriterOptions options_;
};

}  // namespace gpuprofile::reconciler
