// File: controller/reconciler/cluster_objects.cc
#include "controller/reconciler/cluster_objects.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/meta/namespace_codec.h"
#include "controller/meta/object_meta_codec.h"
#include "controller/dra/dra_object_codec.h"

namespace gpuprofile::reconciler {

bool ProfileObject::HasFinalizer(const std::string& finalizer) const {
  return std::find(metadata.finalizers.begin(), metadata.finalizers.end(), finalizer) !=
         metadata.finalizers.end();
}

std::map<std::string, StoredCondition> StoredConditions(const nlohmann::json& status) {
  std::map<std::string, StoredCondition> out;
  if (!status.is_object()) return out;
  auto conditions = status.find("conditions");
  if (conditions == status.end() || !conditions->is_array()) return out;
  for (const nlohmann::json& c : *conditions) {
    if (!c.is_object()) continue;
    auto type = c.find("type");
    if (type == c.end() || !type->is_string()) continue;
    StoredCondition stored;
    if (auto s = c.find("status"); s != c.end() && s->is_string()) stored.status = *s;
    if (auto t = c.find("lastTransitionTime"); t != c.end() && t->is_string()) {
      stored.last_transition_time = *t;
    }
    out[type->get<std::string>()] = std::move(stored);
  }
  return out;
}

absl::StatusOr<std::shared_ptr<const ProfileObject>> DecodeProfileObject(
    const nlohmann::json& object) {
  if (!object.is_object()) return absl::InvalidArgumentError("GpuProfile: not a JSON object");
  auto metadata = object.find("metadata");
  if (metadata == object.end()) return absl::InvalidArgumentError("GpuProfile: no metadata");
  absl::StatusOr<api::ObjectMeta> meta = api::DecodeObjectMeta(*metadata, "metadata");
  if (!meta.ok()) return meta.status();
  auto out = std::make_shared<ProfileObject>();
  out->metadata = *std::move(meta);
  if (auto status = object.find("status"); status != object.end()) out->status = *status;
  absl::StatusOr<api::GpuProfile> profile = api::DecodeGpuProfile(object);
  if (profile.ok()) {
    out->profile = *std::move(profile);
  } else {
    out->decode_error = std::string(profile.status().message());
  }
  return std::shared_ptr<const ProfileObject>(std::move(out));
}

absl::StatusOr<std::shared_ptr<const dra::DeviceClass>> DecodeDeviceClassObject(
    const nlohmann::json& object) {
  return Shared(dra::DecodeDeviceClass(object));
}

absl::StatusOr<std::shared_ptr<const dra::ResourceClaimTemplate>> DecodeTemplateObject(
    const nlohmann::json& object) {
  return Shared(dra::DecodeResourceClaimTemplate(object));
}

absl::StatusOr<std::shared_ptr<const dra::ResourceSlice>> DecodeSliceObject(
    const nlohmann::json& object) {
  return Shared(dra::DecodeSlice(object));
}

absl::StatusOr<std::shared_ptr<const api::Namespace>> DecodeNamespaceObject(
    const nlohmann::json& object) {
  return Shared(api::DecodeNamespace(object));
}

absl::StatusOr<std::shared_ptr<const NodeGroupObject>> DecodeNodeGroupObject(
    const nlohmann::json& object) {
  absl::StatusOr<api::GpuNodeGroup> decoded = api::DecodeGpuNodeGroup(object);
  if (!decoded.ok()) return decoded.status();
  auto out = std::make_shared<NodeGroupObject>();
  out->group = *std::move(decoded);
  if (auto status = object.find("status"); status != object.end()) out->status = *status;
  return std::shared_ptr<const NodeGroupObject>(std::move(out));
}

absl::StatusOr<dra::DraApiVersion> DiscoverDraApiVersion(kube::Discovery* discovery) {
  absl::StatusOr<kube::ServerVersion> version = discovery->GetServerVersion();
  if (!version.ok()) return version.status();
  absl::StatusOr<std::vector<std::string>> served =
      discovery->ServedVersions(dra::kResourceApiGroup);
  if (!served.ok()) return served.status();
  return dra::ChooseDraApiVersion(*served, version->kube);
}

kube::ResourcePath GpuProfilesPath() {
  return {kGpuProfileGroup, kGpuProfileVersion, "gpuprofiles", "", "", ""};
}
kube::ResourcePath GpuNodeGroupsPath() {
  return {kGpuProfileGroup, kGpuProfileVersion, "gpunodegroups", "", "", ""};
}
kube::ResourcePath NamespacesPath() { return {"", "v1", "namespaces", "", "", ""}; }
kube::ResourcePath DeviceClassesPath(dra::DraApiVersion version) {
  return {
      dra::kResourceApiGroup, std::string(dra::VersionName(version)), "deviceclasses", "", "", ""};
}
kube::ResourcePath ResourceClaimTemplatesPath(dra::DraApiVersion version) {
  return {dra::kResourceApiGroup,
          std::string(dra::VersionName(version)),
          "resourceclaimtemplates",
          "",
          "",
          ""};
}
kube::ResourcePath ResourceSlicesPath(dra::DraApiVersion version) {
  return {
      dra::kResourceApiGroup, std::string(dra::VersionName(version)), "resourceslices", "", "", ""};
}

}  // namespace gpuprofile::reconciler
