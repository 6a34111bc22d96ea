// File: controller/reconciler/cluster_objects.h
// What the operator caches of each kind it watches, the decoders that turn the API server's JSON
// into them, and the REST paths of those kinds.
//
// GpuProfiles are cached even when their spec does not decode: the operator must still report
// them `Stalled` with the field named, so ProfileObject keeps the metadata, the decode error and
// the status as stored. Every other kind is cached as its typed model (an object that does not
// decode is skipped by the informer and counted).
// ResourceClaimTemplates are cached compact (TemplateObject): the operator keeps up to one per
// profile and namespace (20,000 at the benchmark's size), and those of one profile differ only in
// namespace, uid and resourceVersion.
// Pure; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "controller/api/gpu_node_group.h"
#include "controller/api/gpu_profile.h"
#include "controller/dra/api_version.h"
#include "controller/dra/device_class.h"
#include "controller/dra/resource_claim.h"
#include "controller/dra/resource_claim_template.h"
#include "controller/dra/resource_slice.h"
#include "controller/kube/discovery.h"
#include "controller/kube/rest_client.h"
#include "controller/meta/namespace.h"
#include "controller/meta/node.h"
#include "controller/meta/object_meta.h"
#include "controller/meta/resource_quota.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::reconciler {

inline constexpr char kGpuProfileGroup[] = "gpuprofile.io";
inline constexpr char kGpuProfileVersion[] = "v1alpha1";
inline constexpr char kCleanupFinalizer[] = "gpuprofile.io/cleanup";

struct ProfileObject {
  meta::ObjectMeta metadata;
  // Decoded and defaulted; nullopt when the object does not decode (then decode_error says why,
  // one "<field path>: <reason>" line per problem).
  std::optional<api::GpuProfile> profile;
  std::string decode_error;
  nlohmann::json status;  // status as stored (null when absent)

  bool HasFinalizer(const std::string& finalizer) const;
};

// Last-known condition times, by type, from a stored status (lenient: anything odd is skipped).
struct StoredCondition {
  std::string status;  // "True" / "False" / "Unknown"
  std::string last_transition_time;
};
std::map<std::string, StoredCondition> StoredConditions(const nlohmann::json& status);

// A decoded value as the informers' shared, immutable object (errors pass through).
template <typename T>
absl::StatusOr<std::shared_ptr<const T>> Shared(absl::StatusOr<T> decoded) {
  if (!decoded.ok()) return decoded.status();
  return std::make_shared<const T>(*std::move(decoded));
}

absl::StatusOr<std::shared_ptr<const ProfileObject>> DecodeProfileObject(
    const nlohmann::json& object);
absl::StatusOr<std::shared_ptr<const dra::DeviceClass>> DecodeDeviceClassObject(
    const nlohmann::json& object);
// A ResourceClaim in its compact form (dra/resource_claim.h): the operator may see tens of
// thousands and keeps only what allocation accounting reads.
absl::StatusOr<std::shared_ptr<const dra::ResourceClaim>> DecodeResourceClaimObject(
    const nlohmann::json& object);
// A Node as the migration view reads it (meta/node.h): device-plugin GPUs and GFD labels.
absl::StatusOr<std::shared_ptr<const meta::NodeGpus>> DecodeNodeObject(
    const nlohmann::json& object);

// A ResourceClaimTemplate as cached: per object only where it is and which version of it this is;
// everything else (name, labels, annotations, finalizers, owner references, deletion timestamp,
// spec) is its `shape`, one immutable object shared by every cached template with the same
// content (TemplateShapes). creationTimestamp and generation are not kept: the operator reads
// neither of a template. Readers that compare or write a template take Full().
struct TemplateObject {
  std::string namespace_name;
  std::string uid;
  std::string resource_version;
  // Never null. Its metadata's namespace_name, uid, resource_version, creation_timestamp and
  // generation are empty.
  std::shared_ptr<const dra::ResourceClaimTemplate> shape;

  const std::string& name() const { return shape->metadata.name; }
  // "<namespace>/<name>": the key the cache stores it under.
  std::string Key() const;
  // Labels, annotations, owner references... (not namespace, uid or resourceVersion).
  const meta::ObjectMeta& shared_meta() const { return shape->metadata; }
  // The template as decoded (without creationTimestamp and generation): a new object each call.
  std::shared_ptr<const dra::ResourceClaimTemplate> Full() const;
  // `t` split as the decoder splits it, with a shape of its own (tests, and templates that do not
  // come from the cache).
  static std::shared_ptr<const TemplateObject> Of(dra::ResourceClaimTemplate t);
};

// The templates' decoder with its interning table: equal shapes are stored once. A shape lives as
// long as a cached template uses it; the table holds it weakly.
// Thread-safe.
class TemplateShapes {
 public:
  TemplateShapes() = default;
  TemplateShapes(const TemplateShapes&) = delete;
  TemplateShapes& operator=(const TemplateShapes&) = delete;

  // Decodes `object` (dra::DecodeResourceClaimTemplate; its errors pass through) and shares its
  // shape with the templates already decoded that have the same.
  absl::StatusOr<std::shared_ptr<const TemplateObject>> Decode(const nlohmann::json& object);
  // Distinct shapes alive (for tests and diagnostics).
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  // Keyed by the object's JSON without its per-object metadata: a finer key than the decoded
  // shape (fields the model ignores still count), so two templates that differ in anything the
  // model keeps never share a shape.
  absl::flat_hash_map<std::string, std::weak_ptr<const dra::ResourceClaimTemplate>> shapes_
      ABSL_GUARDED_BY(mu_);
  // Expired entries are dropped when the table reaches this size.
  size_t sweep_at_ ABSL_GUARDED_BY(mu_) = 64;
};
absl::StatusOr<std::shared_ptr<const dra::ResourceSlice>> DecodeSliceObject(
    const nlohmann::json& object);
absl::StatusOr<std::shared_ptr<const meta::Namespace>> DecodeNamespaceObject(
    const nlohmann::json& object);
// ResourceQuotas are cached whole: they are small (a map of limits), and only the operator's own
// are watched.
absl::StatusOr<std::shared_ptr<const meta::ResourceQuota>> DecodeResourceQuotaObject(
    const nlohmann::json& object);

// A GpuNodeGroup as cached: the typed group plus its status as stored, to compare with.
struct NodeGroupObject {
  api::GpuNodeGroup group;
  nlohmann::json status;
  // Whether `status` is exactly what encoding group.status gives (no field this version does not
  // know, nothing written differently): then comparing the typed statuses is comparing what is
  // stored, and the node-group pass need not encode a status that did not change.
  bool status_round_trips = false;
};
absl::StatusOr<std::shared_ptr<const NodeGroupObject>> DecodeNodeGroupObject(
    const nlohmann::json& object);

// The resource.k8s.io version the operator uses on the server `discovery` talks to: the newest
// it supports among those served (dra::ChooseDraApiVersion). NotFound when none is served;
// discovery's errors otherwise.
absl::StatusOr<dra::DraApiVersion> DiscoverDraApiVersion(kube::Discovery* discovery);

// REST paths (collections; WithName / WithNamespace for objects).
kube::ResourcePath GpuProfilesPath();
kube::ResourcePath GpuNodeGroupsPath();
kube::ResourcePath NamespacesPath();
kube::ResourcePath NodesPath();
kube::ResourcePath DeviceClassesPath(dra::DraApiVersion version);
kube::ResourcePath ResourceClaimTemplatesPath(dra::DraApiVersion version);  // all namespaces
kube::ResourcePath ResourceSlicesPath(dra::DraApiVersion version);
kube::ResourcePath ResourceClaimsPath(dra::DraApiVersion version);  // all namespaces
kube::ResourcePath ResourceQuotasPath();                            // core/v1, all namespaces

}  // namespace gpuprofile::reconciler
