// File: controller/reconciler/cluster_writer.h
// Every write the operator issues, as a small interface: the reconcilers' executors call it,
// RestClusterWriter (rest_cluster_writer.h) talks to the API server, and unit tests use a fake
// (test/reconciler/testing/fake_cluster_writer.h) to check what a reconcile writes without a
// server. Methods return the REST client's errors unchanged (see kube/api_error.h), or
// FailedPrecondition when this replica may not write.
// Thread-safety: implementations are thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "controller/dra/api_version.h"
#include "controller/dra/device_class.h"
#include "controller/dra/resource_claim_template.h"
#include "controller/meta/object_meta.h"
#include "controller/meta/resource_quota.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::reconciler {

class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;

  virtual absl::Status CreateDeviceClass(dra::DraApiVersion version, const dra::DeviceClass& c) = 0;
  // PUT; `c.metadata` carries the stored resourceVersion (optimistic concurrency).
  virtual absl::Status ReplaceDeviceClass(dra::DraApiVersion version,
                                          const dra::DeviceClass& c) = 0;
  virtual absl::Status CreateTemplate(dra::DraApiVersion version,
                                      const dra::ResourceClaimTemplate& t) = 0;
  virtual absl::StatusOr<nlohmann::json> GetTemplate(dra::DraApiVersion version,
                                                     const std::string& ns,
                                                     const std::string& name) = 0;
  // Deletes with a uid precondition, so a newer object under the same name is never deleted.
  // NotFound counts as done.
  virtual absl::Status DeleteDeviceClass(dra::DraApiVersion version, const std::string& name,
                                         const std::string& uid) = 0;
  virtual absl::Status DeleteTemplate(dra::DraApiVersion version, const std::string& ns,
                                      const std::string& name, const std::string& uid) = 0;
  // Merge-patches labels and ownerReferences (with the resourceVersion as precondition).
  virtual absl::Status PatchClassOwnership(dra::DraApiVersion version,
                                           const meta::ObjectMeta& meta) = 0;
  virtual absl::Status PatchTemplateOwnership(dra::DraApiVersion version,
                                              const meta::ObjectMeta& meta) = 0;

  // ResourceQuotas (core/v1, whatever DRA version is served). Replace is a PUT whose
  // `q.metadata` carries the stored resourceVersion; Delete has the uid precondition and counts
  // NotFound as done; PatchQuotaOwnership merge-patches labels and ownerReferences.
  virtual absl::Status CreateQuota(const meta::ResourceQuota& q) = 0;
  virtual absl::Status ReplaceQuota(const meta::ResourceQuota& q) = 0;
  virtual absl::StatusOr<nlohmann::json> GetQuota(const std::string& ns,
                                                  const std::string& name) = 0;
  virtual absl::Status DeleteQuota(const std::string& ns, const std::string& name,
                                   const std::string& uid) = 0;
  virtual absl::Status PatchQuotaOwnership(const meta::ObjectMeta& meta) = 0;

  // GpuProfile: status (merge patch of the status subresource) and finalizers (JSON patch that
  // tests the resourceVersion first, so a concurrent edit is never overwritten).
  virtual absl::Status PatchProfileStatus(const std::string& name,
                                          const nlohmann::json& status) = 0;
  virtual absl::Status SetProfileFinalizers(const meta::ObjectMeta& meta,
                                            const std::vector<std::string>& finalizers) = 0;

  // GpuNodeGroups (cluster-scoped, status subresource).
  virtual absl::Status CreateNodeGroup(const nlohmann::json& object) = 0;
  virtual absl::Status PatchNodeGroupStatus(const std::string& name,
                                            const nlohmann::json& status) = 0;
  virtual absl::Status PatchNodeGroupLabels(const std::string& name,
                                            const nlohmann::json& labels) = 0;
  virtual absl::Status DeleteNodeGroup(const std::string& name, const std::string& uid) = 0;
};

}  // namespace gpuprofile::reconciler
