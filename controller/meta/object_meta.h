// File: controller/meta/object_meta.h
// The parts of Kubernetes' ObjectMeta (and OwnerReference) the operator reads and writes, as plain
// values shared by every kind it handles (GpuProfile, GpuNodeGroup, Namespace, DeviceClass,
// ResourceClaimTemplate). Decoding and encoding live in object_meta_codec.h.
// Pure value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuprofile::meta {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;

  bool operator==(const OwnerReference& other) const;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_name;  // empty for cluster-scoped objects
  // Server-assigned; empty / 0 when the object was never stored (e.g. read from a GitOps file).
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;  // RFC 3339 as the server writes it; empty when unknown
  std::optional<std::string> deletion_timestamp;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<std::string> finalizers;
  std::vector<OwnerReference> owner_references;

  // The controller owner reference, if any.
  const OwnerReference* ControllerOwner() const;
};

}  // namespace gpuprofile::meta
