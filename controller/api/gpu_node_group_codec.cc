// File: controller/api/gpu_node_group_codec.cc
#include "controller/api/gpu_node_group_codec.h"

#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "controller/api/gpu_profile.h"
#include "controller/meta/condition_codec.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/json_object.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::api {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// The signature members in output order, with where each lives in DeviceSignature.
struct SignatureField {
  const char* key;
  std::string DeviceSignature::*member;
};
constexpr SignatureField kSignatureFields[] = {
    {"driver", &DeviceSignature::driver},
    {"deviceType", &DeviceSignature::device_type},
    {"productName", &DeviceSignature::product},
    {"memory", &DeviceSignature::memory},
    {"driverVersion", &DeviceSignature::driver_version},
    {"architecture", &DeviceSignature::architecture},
    {"computeCapability", &DeviceSignature::compute_capability},
    {"cudaDriverVersion", &DeviceSignature::cuda_driver_version},
};

bool StringMemberIs(const json& object, const char* key, const char* expected) {
  const json* value = meta::JsonMember(object, key);
  return value != nullptr && value->is_string() && value->get_ref<const std::string&>() == expected;
}

GpuNodeGroupStatus DecodeStatus(const json& status, meta::FieldErrors* errors) {
  const std::string path = "status";
  GpuNodeGroupStatus out;
  for (const SignatureField& field : kSignatureFields) {
    out.signature.*field.member =
        meta::StringField(status, field.key, path, false, errors).value_or("");
  }
  out.node_count = meta::IntField(status, "nodeCount", path, false, errors).value_or(0);
  if (const json* nodes = meta::JsonMember(status, "nodes")) {
    out.nodes = meta::ReadStringList(*nodes, meta::FieldChild(path, "nodes"), errors);
  }
  out.devices = meta::IntField(status, "devices", path, false, errors).value_or(0);
  out.schedulable_devices =
      meta::IntField(status, "schedulableDevices", path, false, errors).value_or(0);
  out.tainted_devices = meta::IntField(status, "taintedDevices", path, false, errors).value_or(0);
  out.allocated_devices =
      meta::IntField(status, "allocatedDevices", path, false, errors).value_or(0);
  out.free_devices = meta::IntField(status, "freeDevices", path, false, errors).value_or(0);
  out.blocked_devices = meta::IntField(status, "blockedDevices", path, false, errors).value_or(0);
  out.unhealthy_devices =
      meta::IntField(status, "unhealthyDevices", path, false, errors).value_or(0);
  if (const json* pools = meta::ArrayField(status, "incompletePools", path, false, errors)) {
    for (size_t i = 0; i < pools->size(); ++i) {
      const std::string pool_path = meta::FieldIndex(meta::FieldChild(path, "incompletePools"), i);
      const json& entry = (*pools)[i];
      if (!meta::CheckObject(entry, pool_path, errors)) continue;
      IncompletePool pool;
      pool.driver = meta::StringField(entry, "driver", pool_path, false, errors).value_or("");
      pool.pool = meta::StringField(entry, "pool", pool_path, false, errors).value_or("");
      pool.generation = meta::IntField(entry, "generation", pool_path, false, errors).value_or(0);
      pool.slices_seen = meta::IntField(entry, "slicesSeen", pool_path, false, errors).value_or(0);
      pool.resource_slice_count =
          meta::IntField(entry, "resourceSliceCount", pool_path, false, errors).value_or(0);
      out.incomplete_pools.push_back(std::move(pool));
    }
  }
  if (const json* profiles = meta::JsonMember(status, "profiles")) {
    out.profiles = meta::ReadStringList(*profiles, meta::FieldChild(path, "profiles"), errors);
  }
  out.offered_by = meta::StringField(status, "offeredBy", path, false, errors).value_or("");
  out.device_plugin_nodes =
      meta::IntField(status, "devicePluginNodes", path, false, errors).value_or(0);
  if (const json* twice = meta::JsonMember(status, "offeredTwiceNodes")) {
    out.offered_twice =
        meta::ReadStringList(*twice, meta::FieldChild(path, "offeredTwiceNodes"), errors);
  }
  if (const json* conditions = meta::ArrayField(status, "conditions", path, false, errors)) {
    out.conditions = meta::DecodeConditions(*conditions, meta::FieldChild(path, "conditions"),
                                            meta::ConditionGeneration::kOmitted, errors);
  }
  return out;
}

}  // namespace

bool IsGpuNodeGroup(const json& object) {
  return StringMemberIs(object, "apiVersion", kApiVersion) &&
         StringMemberIs(object, "kind", kGpuNodeGroupKind);
}

absl::StatusOr<GpuNodeGroup> DecodeGpuNodeGroup(const json& object) {
  meta::FieldErrors errors;
  if (!meta::CheckObject(object, "", &errors)) return errors.ToStatus();
  if (std::optional<std::string> api_version =
          meta::StringField(object, "apiVersion", "", true, &errors);
      api_version && *api_version != kApiVersion) {
    errors.AddUnsupported("apiVersion", *api_version, {kApiVersion});
  }
  if (std::optional<std::string> kind = meta::StringField(object, "kind", "", true, &errors);
      kind && *kind != kGpuNodeGroupKind) {
    errors.AddUnsupported("kind", *kind, {kGpuNodeGroupKind});
  }
  GpuNodeGroup group;
  if (const json* metadata = meta::ObjectField(object, "metadata", "", true, &errors)) {
    group.metadata = meta::DecodeObjectMeta(*metadata, "metadata", &errors);
    if (group.metadata.name.empty() && meta::JsonMember(*metadata, "name") == nullptr) {
      errors.Add("metadata.name", "required");
    }
  }
  if (const json* status = meta::ObjectField(object, "status", "", false, &errors)) {
    group.status = DecodeStatus(*status, &errors);
  }
  if (!errors.empty()) return errors.ToStatus();
  return group;
}

ordered_json EncodeGpuNodeGroupStatus(const GpuNodeGroupStatus& status) {
  ordered_json out = meta::ObjectWithRoom(std::size(kSignatureFields) + 14);
  for (const SignatureField& field : kSignatureFields) {
    const std::string& value = status.signature.*field.member;
    if (!value.empty()) out[field.key] = value;
  }
  out["nodeCount"] = status.node_count;
  out["nodes"] = status.nodes;
  out["devices"] = status.devices;
  out["schedulableDevices"] = status.schedulable_devices;
  out["taintedDevices"] = status.tainted_devices;
  out["allocatedDevices"] = status.allocated_devices;
  out["freeDevices"] = status.free_devices;
  out["blockedDevices"] = status.blocked_devices;
  out["unhealthyDevices"] = status.unhealthy_devices;
  if (!status.incomplete_pools.empty()) {
    ordered_json pools = ordered_json::array();
    for (const IncompletePool& pool : status.incomplete_pools) {
      ordered_json p = ordered_json::object();
      p["driver"] = pool.driver;
      p["pool"] = pool.pool;
      p["generation"] = pool.generation;
      p["slicesSeen"] = pool.slices_seen;
      p["resourceSliceCount"] = pool.resource_slice_count;
      pools.push_back(std::move(p));
    }
    out["incompletePools"] = std::move(pools);
  }
  out["profiles"] = status.profiles;
  if (!status.offered_by.empty()) out["offeredBy"] = status.offered_by;
  out["devicePluginNodes"] = status.device_plugin_nodes;
  if (!status.offered_twice.empty()) out["offeredTwiceNodes"] = status.offered_twice;
  if (!status.conditions.empty()) {
    out["conditions"] =
        meta::EncodeConditions(status.conditions, meta::ConditionGeneration::kOmitted);
  }
  return out;
}

ordered_json EncodeGpuNodeGroup(const GpuNodeGroup& group, bool include_server_fields) {
  ordered_json out = meta::ObjectWithRoom(4);
  out["apiVersion"] = kApiVersion;
  out["kind"] = kGpuNodeGroupKind;
  out["metadata"] = meta::EncodeObjectMeta(group.metadata, include_server_fields);
  out["status"] = EncodeGpuNodeGroupStatus(group.status);
  return out;
}

}  // namespace gpuprofile::api
