// File: controller/reconciler/rest_cluster_writer.h
// ClusterWriter over the REST client: encoding in the served DRA version, the field manager, and
// the gate that stops a replica that is not (or no longer) the leader from writing anything —
// the last line of defence behind "workers only run while leading".
// Thread-safety: thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "controller/core/kube_version.h"
#include "controller/kube/rest_client.h"
#include "controller/reconciler/cluster_writer.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::reconciler {

struct ClusterWriterOptions {
  kube::RestClient* client = nullptr;  // must outlive the writer
  KubeVersion kube;
  std::string field_manager = "gpu-profile-operator";
  // Null: always open (tests, --leader-elect=false).
  std::function<bool()> may_write;
  // gpuprofile_operator_writes_total{verb,resource}; may be null.
  runtime::CounterFamily* writes_total = nullptr;
  // gpuprofile_operator_write_errors_total{verb,resource,code}: writes that failed (after the
  // gate), by HTTP status code, "<error>" when no response came; a delete that finds nothing is
  // no error. May be null.
  runtime::CounterFamily* write_errors_total = nullptr;
};

class RestClusterWriter final : public ClusterWriter {
 public:
  explicit RestClusterWriter(ClusterWriterOptions options);

  absl::Status CreateDeviceClass(dra::DraApiVersion version, const dra::DeviceClass& c) override;
  absl::Status ReplaceDeviceClass(dra::DraApiVersion version, const dra::DeviceClass& c) override;
  absl::Status CreateTemplate(dra::DraApiVersion version,
                              const dra::ResourceClaimTemplate& t) override;
  absl::StatusOr<nlohmann::json> GetTemplate(dra::DraApiVersion version, const std::string& ns,
                                             const std::string& name) override;
  absl::Status DeleteDeviceClass(dra::DraApiVersion version, const std::string& name,
                                 const std::string& uid) override;
  absl::Status DeleteTemplate(dra::DraApiVersion version, const std::string& ns,
                              const std::string& name, const std::string& uid) override;
  absl::Status PatchClassOwnership(dra::DraApiVersion version,
                                   const meta::ObjectMeta& meta) override;
  absl::Status PatchTemplateOwnership(dra::DraApiVersion version,
                                      const meta::ObjectMeta& meta) override;

  absl::Status CreateQuota(const meta::ResourceQuota& q) override;
  absl::Status ReplaceQuota(const meta::ResourceQuota& q) override;
  absl::StatusOr<nlohmann::json> GetQuota(const std::string& ns, const std::string& name) override;
  absl::Status DeleteQuota(const std::string& ns, const std::string& name,
                           const std::string& uid) override;
  absl::Status PatchQuotaOwnership(const meta::ObjectMeta& meta) override;

  absl::Status PatchProfileStatus(const std::string& name, const nlohmann::json& status) override;
  absl::Status SetProfileFinalizers(const meta::ObjectMeta& meta,
                                    const std::vector<std::string>& finalizers) override;

  absl::Status CreateNodeGroup(const nlohmann::json& object) override;
  absl::Status PatchNodeGroupStatus(const std::string& name, const nlohmann::json& status) override;
  absl::Status PatchNodeGroupLabels(const std::string& name, const nlohmann::json& labels) override;
  absl::Status DeleteNodeGroup(const std::string& name, const std::string& uid) override;

  const KubeVersion& kube() const { return options_.kube; }

 private:
  // Every write goes through here, so that `verb` and `resource` are named once per write:
  // refused unless this replica may write, counted in writes_total, then `call()` made and its
  // failure counted in write_errors_total.
  template <typename Call>
  absl::Status Write(const char* verb, const char* resource, Call call) {
    if (absl::Status gate = Gate(verb, resource); !gate.ok()) return gate;
    return Counted(verb, resource, call());
  }
  absl::Status Gate(const char* verb, const char* resource);
  // `status`, counted in write_errors_total when it is an error.
  absl::Status Counted(const char* verb, const char* resource, absl::Status status);
  // The options of every create, update and patch: this field manager, and the server's answer
  // not parsed (every write here needs only its outcome).
  kube::WriteOptions WriteOptions() const;

  const ClusterWriterOptions options_;
};

}  // namespace gpuprofile::reconciler
