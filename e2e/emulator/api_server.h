// File: e2e/emulator/api_server.h
// The emulated kube-apiserver: routes every request (version, discovery, OpenAPI, resource
// CRUD, watch, admin), keeps the objects in an ObjectStore, runs admission (DRA, CRD schemas),
// the namespace lifecycle, CRD registration and the garbage collector synchronously after each
// write, and feeds open watches.
// Thread-safety: Handle, Tick and the admin calls may be called from any thread; one lock
// serializes them (the emulator favours exact ordering over throughput). Watch events are only
// queued under that lock; they are written to the clients by WatchHub's sender threads.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "controller/core/kube_version.h"
#include "e2e/emulator/dra_admission.h"
#include "e2e/emulator/http_types.h"
#include "e2e/emulator/object_store.h"
#include "e2e/emulator/resource_registry.h"
#include "e2e/emulator/watch_hub.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::e2e {

struct ServerOptions {
  KubeVersion kube_version;
  std::map<std::string, bool> runtime_config;
  // --feature-gates "A=true,B=false" (DRA gates; FeatureGates::Parse checks it for the release).
  std::string feature_gates;
  size_t history_size = 10000;  // write events kept for watches (the compaction window)
  absl::Duration bookmark_interval = absl::Seconds(60);
  absl::Duration default_watch_timeout = absl::Minutes(30);
  DeliveryOptions delivery;  // per-watch queues and sender threads
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

class ApiServer {
 public:
  static absl::StatusOr<std::unique_ptr<ApiServer>> Create(ServerOptions options);
  ~ApiServer();

  HttpResponse Handle(const HttpRequest& request);

  // Creates or replaces objects (the -f seeds), in order; every object in any served version.
  absl::Status Seed(const std::vector<nlohmann::json>& objects);

  // Bookmarks, watch timeouts, dead watchers. Call every ~50 ms.
  void Tick();
  void CloseAllWatches();
  // Ends every watch and every watch opened from now on (before the HTTP listener closes).
  void ShutdownWatches();
  void CompactHistory();
  // What restarting the API server with other `--runtime-config` values does, in place: the
  // entries (`"resource.k8s.io/v1" -> true`) are merged into the current ones and the served
  // resources rebuilt (CRD kinds kept, stored objects kept, every open watch ended).
  // InvalidArgument as at startup when a version does not exist in the release.
  absl::Status SetRuntimeConfig(const std::map<std::string, bool>& changes);

  const KubeVersion& kube_version() const { return options_.kube_version; }

  // Every stored object of a storage key ("roles.rbac.authorization.k8s.io"), all namespaces.
  std::vector<ObjectPtr> Objects(const std::string& storage_key) const;

  // State: every object by storage key, and the resourceVersion.
  nlohmann::json Snapshot() const;
  absl::Status Restore(const nlohmann::json& snapshot);

  // A parsed resource path: /api/v1/... or /apis/<group>/<version>/..., then
  // [namespaces/<ns>/]<resource>[/<name>[/<subresource>]].
  struct Route {
    std::string group;
    std::string version;
    std::string resource;
    std::string ns;
    std::string name;
    std::string subresource;
    bool namespaced_path = false;
  };

 private:
  ApiServer(ServerOptions options, FeatureGates gates, std::unique_ptr<ResourceRegistry> registry);
  HttpResponse HandleLocked(const HttpRequest& request) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse HandleResource(const HttpRequest& request, const Route& route)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse Get(const HttpRequest& request, const Route& route, const ResourceType& type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse List(const HttpRequest& request, const Route& route, const ResourceType& type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse Watch(const HttpRequest& request, const Route& route, const ResourceType& type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `applied_managed_fields`: the managedFields a server-side apply computed (stored as they
  // are); null for Update operations, whose managedFields are tracked here.
  HttpResponse CreateObject(const HttpRequest& request, const Route& route,
                            const ResourceType& type, const std::string& body,
                            const nlohmann::json* applied_managed_fields = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse UpdateObject(const HttpRequest& request, const Route& route,
                            const ResourceType& type, const std::string& body, bool is_patch,
                            const nlohmann::json* applied_managed_fields = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse PatchObject(const HttpRequest& request, const Route& route, const ResourceType& type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // PATCH with application/apply-patch+yaml (server-side apply), creating the object if needed.
  HttpResponse ApplyObject(const HttpRequest& request, const Route& route, const ResourceType& type)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // managedFields of an Update (create, PUT, non-apply patch) of `old` (null on create) into
  // `updated` (storage form): sets updated's metadata.managedFields. `requested` is the
  // managedFields the request carried (null when it had none).
  void TrackManagedFields(const HttpRequest& request, const Route& route, const ResourceType& type,
                          const nlohmann::json* old, const nlohmann::json* requested,
                          nlohmann::json& updated) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse DeleteObject(const HttpRequest& request, const Route& route,
                            const ResourceType& type) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  HttpResponse DeleteCollection(const HttpRequest& request, const Route& route,
                                const ResourceType& type) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Admission shared by create and update: object in storage form; old is the stored one.
  // Returns an error response or nullopt; may fill `warnings`.
  std::optional<HttpResponse> Admit(const HttpRequest& request, const ResourceType& type,
                                    const std::string& version, nlohmann::json& object,
                                    const nlohmann::json* old, std::vector<std::string>& warnings)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts deleting: removes at once or sets deletionTimestamp and finalizers. Returns the
  // object after the call and whether it is gone.
  std::pair<ObjectPtr, bool> StartDelete(const std::string& key, const ObjectPtr& object,
                                         const std::string& policy)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ObjectPtr Remove(const std::string& key, const nlohmann::json& object)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Namespace lifecycle, CRD cleanup and ownerReference GC, until nothing changes.
  // Garbage collection and namespace lifecycle after a write; `written` (a created or updated
  // object that is not being deleted) allows the fast path, null forces a full pass.
  void Collect(const nlohmann::json* written = nullptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnCrdWritten(const nlohmann::json& crd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The quota controller's part for ResourceClaims: after a claim of `ns` is created or
  // removed, rewrites status.used of the namespace's ResourceQuotas (quota_admission.h).
  void SyncClaimQuotas(const std::string& ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const ResourceType* TypeForStorageKey(const std::string& key) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::string NewUid() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string Timestamp() const;

  ServerOptions options_;
  FeatureGates gates_;
  mutable absl::Mutex mu_;
  std::unique_ptr<ResourceRegistry> registry_ ABSL_GUARDED_BY(mu_);
  ObjectStore store_ ABSL_GUARDED_BY(mu_);
  WatchHub watches_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 random_ ABSL_GUARDED_BY(mu_);
  bool seeding_ ABSL_GUARDED_BY(mu_) = false;  // -f seeds keep their status
};

}  // namespace gpuprofile::e2e
