// File: controller/reconciler/cluster_objects.cc
#include "controller/reconciler/cluster_objects.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/api/gpu_node_group_codec.h"
#include "controller/api/gpu_profile_codec.h"
#include "controller/dra/dra_object_codec.h"
#include "controller/meta/namespace_codec.h"
#include "controller/meta/node_codec.h"
#include "controller/meta/object_meta_codec.h"
#include "controller/meta/resource_quota_codec.h"

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
  absl::StatusOr<meta::ObjectMeta> meta = meta::DecodeObjectMeta(*metadata, "metadata");
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

absl::StatusOr<std::shared_ptr<const meta::NodeGpus>> DecodeNodeObject(
    const nlohmann::json& object) {
  return Shared(meta::DecodeNodeGpus(object));
}

absl::StatusOr<std::shared_ptr<const dra::ResourceClaim>> DecodeResourceClaimObject(
    const nlohmann::json& object) {
  return Shared(dra::DecodeResourceClaim(object));
}

namespace {

// Metadata fields that differ between the copies of one template in several namespaces.
bool PerObjectMetadata(const std::string& field) {
  for (const char* per_object : {"namespace", "uid", "resourceVersion", "creationTimestamp",
                                 "generation", "managedFields", "selfLink"}) {
    if (field == per_object) return true;
  }
  return false;
}

// Moves the per-object fields of `t` into `out` and returns the rest (the shape).
dra::ResourceClaimTemplate Split(dra::ResourceClaimTemplate t, TemplateObject* out) {
  meta::ObjectMeta& meta = t.metadata;
  out->namespace_name = std::move(meta.namespace_name);
  out->uid = std::move(meta.uid);
  out->resource_version = std::move(meta.resource_version);
  meta.namespace_name.clear();
  meta.uid.clear();
  meta.resource_version.clear();
  meta.creation_timestamp.clear();
  meta.generation = 0;
  return t;
}

}  // namespace

std::shared_ptr<const TemplateObject> TemplateObject::Of(dra::ResourceClaimTemplate t) {
  auto out = std::make_shared<TemplateObject>();
  out->shape = std::make_shared<const dra::ResourceClaimTemplate>(Split(std::move(t), out.get()));
  return out;
}

std::string TemplateObject::Key() const { return absl::StrCat(namespace_name, "/", name()); }

std::shared_ptr<const dra::ResourceClaimTemplate> TemplateObject::Full() const {
  auto full = std::make_shared<dra::ResourceClaimTemplate>(*shape);
  full->metadata.namespace_name = namespace_name;
  full->metadata.uid = uid;
  full->metadata.resource_version = resource_version;
  return full;
}

absl::StatusOr<std::shared_ptr<const TemplateObject>> TemplateShapes::Decode(
    const nlohmann::json& object) {
  absl::StatusOr<dra::ResourceClaimTemplate> decoded = dra::DecodeResourceClaimTemplate(object);
  if (!decoded.ok()) return decoded.status();
  // The key: the whole object but what differs between copies of one shape (managedFields,
  // with a time per object, and selfLink are not decoded either), as `"field":value` pairs in
  // the object's order (no copy of the object).
  std::string key;
  const auto append = [&key](const std::string& field, const nlohmann::json& value) {
    key += nlohmann::json(field).dump();
    key += ':';
    key += value.dump();
    key += ',';
  };
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it.key() != "metadata" || !it->is_object()) {
      append(it.key(), *it);
      continue;
    }
    key += "\"metadata\":{";
    for (auto m = it->begin(); m != it->end(); ++m) {
      if (!PerObjectMetadata(m.key())) append(m.key(), *m);
    }
    key += "},";
  }
  auto out = std::make_shared<TemplateObject>();
  dra::ResourceClaimTemplate shape = Split(*std::move(decoded), out.get());
  absl::MutexLock lock(&mu_);
  std::weak_ptr<const dra::ResourceClaimTemplate>& slot = shapes_[key];
  out->shape = slot.lock();
  if (out->shape == nullptr) {
    out->shape = std::make_shared<const dra::ResourceClaimTemplate>(std::move(shape));
    slot = out->shape;
    if (shapes_.size() >= sweep_at_) {
      absl::erase_if(shapes_, [](const auto& entry) { return entry.second.expired(); });
      sweep_at_ = std::max<size_t>(64, 2 * shapes_.size());
    }
  }
  return std::shared_ptr<const TemplateObject>(std::move(out));
}

size_t TemplateShapes::size() const {
  absl::MutexLock lock(&mu_);
  size_t alive = 0;
  for (const auto& [key, shape] : shapes_) alive += shape.expired() ? 0 : 1;
  return alive;
}

absl::StatusOr<std::shared_ptr<const dra::ResourceSlice>> DecodeSliceObject(
    const nlohmann::json& object) {
  return Shared(dra::DecodeSlice(object));
}

absl::StatusOr<std::shared_ptr<const meta::Namespace>> DecodeNamespaceObject(
    const nlohmann::json& object) {
  return Shared(meta::DecodeNamespace(object));
}

absl::StatusOr<std::shared_ptr<const meta::ResourceQuota>> DecodeResourceQuotaObject(
    const nlohmann::json& object) {
  return Shared(meta::DecodeResourceQuota(object));
}

absl::StatusOr<std::shared_ptr<const NodeGroupObject>> DecodeNodeGroupObject(
    const nlohmann::json& object) {
  absl::StatusOr<api::GpuNodeGroup> decoded = api::DecodeGpuNodeGroup(object);
  if (!decoded.ok()) return decoded.status();
  auto out = std::make_shared<NodeGroupObject>();
  out->group = *std::move(decoded);
  if (auto status = object.find("status"); status != object.end()) out->status = *status;
  out->status_round_trips =
      out->status == nlohmann::json(api::EncodeGpuNodeGroupStatus(out->group.status));
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
kube::ResourcePath NodesPath() { return {"", "v1", "nodes", "", "", ""}; }
kube::ResourcePath ResourceQuotasPath() { return {"", "v1", "resourcequotas", "", "", ""}; }
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

kube::ResourcePath ResourceClaimsPath(dra::DraApiVersion version) {
  return {
      dra::kResourceApiGroup, std::string(dra::VersionName(version)), "resourceclaims", "", "", ""};
}

}  // namespace gpuprofile::reconciler
