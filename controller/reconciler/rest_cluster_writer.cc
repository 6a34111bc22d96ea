// File: controller/reconciler/rest_cluster_writer.cc
#include "controller/reconciler/rest_cluster_writer.h"

#include <optional>
#include <string>
#include <utility>

#include "controller/core/status_macros.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/kube/api_error.h"
#include "controller/meta/object_meta_codec.h"
#include "controller/meta/resource_quota_codec.h"
#include "controller/reconciler/cluster_objects.h"

namespace gpuprofile::reconciler {
namespace {

absl::Status DoneIfNotFound(absl::Status status) {
  return kube::apierrors::IsNotFound(status) ? absl::OkStatus() : status;
}

nlohmann::json OwnershipPatch(const meta::ObjectMeta& meta) {
  nlohmann::json patch;
  patch["metadata"]["resourceVersion"] = meta.resource_version;
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : meta.labels) labels[k] = v;
  patch["metadata"]["labels"] = labels;
  nlohmann::json refs = nlohmann::json::array();
  for (const meta::OwnerReference& ref : meta.owner_references) {
    refs.push_back(nlohmann::json(meta::EncodeOwnerReference(ref)));
  }
  // An empty list must be written as null for a merge patch to remove the field.
  patch["metadata"]["ownerReferences"] = refs.empty() ? nlohmann::json(nullptr) : refs;
  return patch;
}

}  // namespace

RestClusterWriter::RestClusterWriter(ClusterWriterOptions options) : options_(std::move(options)) {}

kube::WriteOptions RestClusterWriter::WriteOptions() const {
  kube::WriteOptions options;
  options.field_manager = options_.field_manager;
  options.parse_response = false;
  return options;
}

absl::Status RestClusterWriter::Gate(const char* verb, const char* resource) {
  if (options_.may_write && !options_.may_write()) {
    return absl::FailedPreconditionError(
        "not writing: this replica is not the leader (leader election lost or not yet won)");
  }
  if (options_.writes_total != nullptr) options_.writes_total->WithLabels({verb, resource})->Inc();
  return absl::OkStatus();
}

absl::Status RestClusterWriter::Counted(const char* verb, const char* resource,
                                        absl::Status status) {
  if (status.ok() || options_.write_errors_total == nullptr) return status;
  const std::optional<kube::ApiError> api_error = kube::GetApiError(status);
  // As rest_client_requests_total: "<error>" when no response came back.
  const std::string code = api_error.has_value() ? std::to_string(api_error->code) : "<error>";
  options_.write_errors_total->WithLabels({verb, resource, code})->Inc();
  return status;
}

absl::Status RestClusterWriter::CreateDeviceClass(dra::DraApiVersion version,
                                                  const dra::DeviceClass& c) {
  return Write("create", "deviceclasses", [&] {
    nlohmann::json body = dra::EncodeDeviceClass(c, version, options_.kube, true);
    return options_.client
        ->Create(DeviceClassesPath(version), body, WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::ReplaceDeviceClass(dra::DraApiVersion version,
                                                   const dra::DeviceClass& c) {
  return Write("update", "deviceclasses", [&] {
    nlohmann::json body = dra::EncodeDeviceClass(c, version, options_.kube, true);
    return options_.client
        ->Update(DeviceClassesPath(version).WithName(c.metadata.name), body,
                 WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::CreateTemplate(dra::DraApiVersion version,
                                               const dra::ResourceClaimTemplate& t) {
  return Write("create", "resourceclaimtemplates", [&] {
    nlohmann::json body = dra::EncodeResourceClaimTemplate(t, version, options_.kube, true);
    return options_.client
        ->Create(ResourceClaimTemplatesPath(version).WithNamespace(t.metadata.namespace_name), body,
                 WriteOptions())
        .status();
  });
}

absl::StatusOr<nlohmann::json> RestClusterWriter::GetTemplate(dra::DraApiVersion version,
                                                              const std::string& ns,
                                                              const std::string& name) {
  return options_.client->Get(ResourceClaimTemplatesPath(version).WithNamespace(ns).WithName(name));
}

absl::Status RestClusterWriter::DeleteDeviceClass(dra::DraApiVersion version,
                                                  const std::string& name, const std::string& uid) {
  return Write("delete", "deviceclasses", [&] {
    kube::DeleteOptions options;
    if (!uid.empty()) options.precondition_uid = uid;
    return DoneIfNotFound(
        options_.client->Delete(DeviceClassesPath(version).WithName(name), options).status());
  });
}

absl::Status RestClusterWriter::DeleteTemplate(dra::DraApiVersion version, const std::string& ns,
                                               const std::string& name, const std::string& uid) {
  return Write("delete", "resourceclaimtemplates", [&] {
    kube::DeleteOptions options;
    if (!uid.empty()) options.precondition_uid = uid;
    return DoneIfNotFound(
        options_.client
            ->Delete(ResourceClaimTemplatesPath(version).WithNamespace(ns).WithName(name), options)
            .status());
  });
}

absl::Status RestClusterWriter::PatchClassOwnership(dra::DraApiVersion version,
                                                    const meta::ObjectMeta& meta) {
  return Write("patch", "deviceclasses", [&] {
    return options_.client
        ->Patch(DeviceClassesPath(version).WithName(meta.name), kube::PatchType::kMerge,
                OwnershipPatch(meta), WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::PatchTemplateOwnership(dra::DraApiVersion version,
                                                       const meta::ObjectMeta& meta) {
  return Write("patch", "resourceclaimtemplates", [&] {
    return options_.client
        ->Patch(ResourceClaimTemplatesPath(version)
                    .WithNamespace(meta.namespace_name)
                    .WithName(meta.name),
                kube::PatchType::kMerge, OwnershipPatch(meta), WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::CreateQuota(const meta::ResourceQuota& q) {
  return Write("create", "resourcequotas", [&] {
    return options_.client
        ->Create(ResourceQuotasPath().WithNamespace(q.metadata.namespace_name),
                 meta::EncodeResourceQuota(q, true), WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::ReplaceQuota(const meta::ResourceQuota& q) {
  return Write("update", "resourcequotas", [&] {
    return options_.client
        ->Update(
            ResourceQuotasPath().WithNamespace(q.metadata.namespace_name).WithName(q.metadata.name),
            meta::EncodeResourceQuota(q, true), WriteOptions())
        .status();
  });
}

absl::StatusOr<nlohmann::json> RestClusterWriter::GetQuota(const std::string& ns,
                                                           const std::string& name) {
  return options_.client->Get(ResourceQuotasPath().WithNamespace(ns).WithName(name));
}

absl::Status RestClusterWriter::DeleteQuota(const std::string& ns, const std::string& name,
                                            const std::string& uid) {
  return Write("delete", "resourcequotas", [&] {
    kube::DeleteOptions options;
    if (!uid.empty()) options.precondition_uid = uid;
    return DoneIfNotFound(
        options_.client->Delete(ResourceQuotasPath().WithNamespace(ns).WithName(name), options)
            .status());
  });
}

absl::Status RestClusterWriter::PatchQuotaOwnership(const meta::ObjectMeta& meta) {
  return Write("patch", "resourcequotas", [&] {
    return options_.client
        ->Patch(ResourceQuotasPath().WithNamespace(meta.namespace_name).WithName(meta.name),
                kube::PatchType::kMerge, OwnershipPatch(meta), WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::PatchProfileStatus(const std::string& name,
                                                   const nlohmann::json& status) {
  return Write("patch", "gpuprofiles/status", [&] {
    return options_.client
        ->Patch(GpuProfilesPath().WithName(name).WithSubresource("status"),
                kube::PatchType::kMerge, nlohmann::json{{"status", status}},
                WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::SetProfileFinalizers(const meta::ObjectMeta& meta,
                                                     const std::vector<std::string>& finalizers) {
  return Write("patch", "gpuprofiles", [&] {
    nlohmann::json patch = nlohmann::json::array();
    patch.push_back(
        {{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", meta.resource_version}});
    patch.push_back({{"op", "add"}, {"path", "/metadata/finalizers"}, {"value", finalizers}});
    return options_.client
        ->Patch(GpuProfilesPath().WithName(meta.name), kube::PatchType::kJson, patch,
                WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::CreateNodeGroup(const nlohmann::json& object) {
  return Write("create", "gpunodegroups", [&] {
    return options_.client->Create(GpuNodeGroupsPath(), object, WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::PatchNodeGroupStatus(const std::string& name,
                                                     const nlohmann::json& status) {
  return Write("patch", "gpunodegroups/status", [&] {
    return options_.client
        ->Patch(GpuNodeGroupsPath().WithName(name).WithSubresource("status"),
                kube::PatchType::kMerge, nlohmann::json{{"status", status}},
                WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::PatchNodeGroupLabels(const std::string& name,
                                                     const nlohmann::json& labels) {
  return Write("patch", "gpunodegroups", [&] {
    return options_.client
        ->Patch(GpuNodeGroupsPath().WithName(name), kube::PatchType::kMerge,
                nlohmann::json{{"metadata", {{"labels", labels}}}},
                WriteOptions())
        .status();
  });
}

absl::Status RestClusterWriter::DeleteNodeGroup(const std::string& name, const std::string& uid) {
  return Write("delete", "gpunodegroups", [&] {
    kube::DeleteOptions options;
    if (!uid.empty()) options.precondition_uid = uid;
    return DoneIfNotFound(
        options_.client->Delete(GpuNodeGroupsPath().WithName(name), options).status());
  });
}

}  // namespace gpuprofile::reconciler
