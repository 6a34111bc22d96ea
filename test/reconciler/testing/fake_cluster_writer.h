// File: test/reconciler/testing/fake_cluster_writer.h
// A ClusterWriter that records every call as one line ("create DeviceClass a", "delete
// ml-train/a uid=u1", "replace ResourceQuota ml-train/q rv=7", ...) and answers from a script:
// Fail(line, status) makes that call fail with `status`; SetStoredTemplate / SetStoredQuota give
// GetTemplate / GetQuota an object to return. Everything else
// succeeds. For unit tests of the plan executor and the reconcilers.
// Thread-safety: thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "controller/reconciler/cluster_writer.h"

namespace gpuprofile::reconciler::testing {

class FakeClusterWriter final : public ClusterWriter {
 public:
  // The call recorded as `line` answers `status` (every time).
  void Fail(const std::string& line, absl::Status status) {
    absl::MutexLock lock(&mu_);
    failures_[line] = std::move(status);
  }
  // What GetTemplate(ns, name) returns (otherwise NotFound).
  void SetStoredTemplate(const std::string& ns, const std::string& name, nlohmann::json object) {
    absl::MutexLock lock(&mu_);
    stored_[absl::StrCat(ns, "/", name)] = std::move(object);
  }
  // What GetQuota(ns, name) returns (otherwise NotFound).
  void SetStoredQuota(const std::string& ns, const std::string& name, nlohmann::json object) {
    absl::MutexLock lock(&mu_);
    stored_quotas_[absl::StrCat(ns, "/", name)] = std::move(object);
  }
  std::vector<std::string> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  void ClearCalls() {
    absl::MutexLock lock(&mu_);
    calls_.clear();
  }

  absl::Status CreateDeviceClass(dra::DraApiVersion, const dra::DeviceClass& c) override {
    return Record(absl::StrCat("create DeviceClass ", c.metadata.name));
  }
  absl::Status ReplaceDeviceClass(dra::DraApiVersion, const dra::DeviceClass& c) override {
    return Record(
        absl::StrCat("replace DeviceClass ", c.metadata.name, " rv=", c.metadata.resource_version));
  }
  absl::Status CreateTemplate(dra::DraApiVersion, const dra::ResourceClaimTemplate& t) override {
    return Record(absl::StrCat("create ", t.metadata.namespace_name, "/", t.metadata.name));
  }
  absl::StatusOr<nlohmann::json> GetTemplate(dra::DraApiVersion, const std::string& ns,
                                             const std::string& name) override {
    const std::string key = absl::StrCat(ns, "/", name);
    if (absl::Status s = Record(absl::StrCat("get ", key)); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    auto it = stored_.find(key);
    if (it == stored_.end()) return absl::NotFoundError(key);
    return it->second;
  }
  absl::Status DeleteDeviceClass(dra::DraApiVersion, const std::string& name,
                                 const std::string& uid) override {
    return Record(absl::StrCat("delete DeviceClass ", name, " uid=", uid));
  }
  absl::Status DeleteTemplate(dra::DraApiVersion, const std::string& ns, const std::string& name,
                              const std::string& uid) override {
    return Record(absl::StrCat("delete ", ns, "/", name, " uid=", uid));
  }
  absl::Status PatchClassOwnership(dra::DraApiVersion, const meta::ObjectMeta& meta) override {
    return Record(absl::StrCat("patch DeviceClass ", meta.name, Owners(meta)));
  }
  absl::Status PatchTemplateOwnership(dra::DraApiVersion, const meta::ObjectMeta& meta) override {
    return Record(absl::StrCat("patch ", meta.namespace_name, "/", meta.name, Owners(meta)));
  }
  absl::Status CreateQuota(const meta::ResourceQuota& q) override {
    return Record(
        absl::StrCat("create ResourceQuota ", q.metadata.namespace_name, "/", q.metadata.name));
  }
  absl::Status ReplaceQuota(const meta::ResourceQuota& q) override {
    return Record(absl::StrCat("replace ResourceQuota ", q.metadata.namespace_name, "/",
                               q.metadata.name, " rv=", q.metadata.resource_version));
  }
  absl::StatusOr<nlohmann::json> GetQuota(const std::string& ns, const std::string& name) override {
    const std::string key = absl::StrCat(ns, "/", name);
    if (absl::Status s = Record(absl::StrCat("get ResourceQuota ", key)); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    auto it = stored_quotas_.find(key);
    if (it == stored_quotas_.end()) return absl::NotFoundError(key);
    return it->second;
  }
  absl::Status DeleteQuota(const std::string& ns, const std::string& name,
                           const std::string& uid) override {
    return Record(absl::StrCat("delete ResourceQuota ", ns, "/", name, " uid=", uid));
  }
  absl::Status PatchQuotaOwnership(const meta::ObjectMeta& meta) override {
    return Record(
        absl::StrCat("patch ResourceQuota ", meta.namespace_name, "/", meta.name, Owners(meta)));
  }
  absl::Status PatchProfileStatus(const std::string& name, const nlohmann::json&) override {
    return Record(absl::StrCat("status GpuProfile ", name));
  }
  absl::Status SetProfileFinalizers(const meta::ObjectMeta& meta,
                                    const std::vector<std::string>& finalizers) override {
    return Record(absl::StrCat("finalizers GpuProfile ", meta.name, " [",
                               absl::StrJoin(finalizers, ","), "]"));
  }
  absl::Status CreateNodeGroup(const nlohmann::json& object) override {
    return Record(
        absl::StrCat("create GpuNodeGroup ", object["metadata"].value("name", std::string())));
  }
  absl::Status PatchNodeGroupStatus(const std::string& name, const nlohmann::json&) override {
    return Record(absl::StrCat("status GpuNodeGroup ", name));
  }
  absl::Status PatchNodeGroupLabels(const std::string& name, const nlohmann::json&) override {
    return Record(absl::StrCat("labels GpuNodeGroup ", name));
  }
  absl::Status DeleteNodeGroup(const std::string& name, const std::string& uid) override {
    return Record(absl::StrCat("delete GpuNodeGroup ", name, " uid=", uid));
  }

 private:
  // " owners=[uid1,uid2]"
  static std::string Owners(const meta::ObjectMeta& meta) {
    std::vector<std::string> uids;
    for (const meta::OwnerReference& ref : meta.owner_references) uids.push_back(ref.uid);
    return absl::StrCat(" owners=[", absl::StrJoin(uids, ","), "]");
  }

  absl::Status Record(std::string line) {
    absl::MutexLock lock(&mu_);
    auto failure = failures_.find(line);
    calls_.push_back(std::move(line));
    return failure == failures_.end() ? absl::OkStatus() : failure->second;
  }

  mutable absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Status> failures_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, nlohmann::json> stored_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, nlohmann::json> stored_quotas_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::reconciler::testing
