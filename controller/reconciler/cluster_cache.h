// File: controller/reconciler/cluster_cache.h
// The operator's view of the cluster: one informer per kind it reads, all feeding one change
// counter so that computations over the whole view (the desired state) know when to redo
// themselves.
//  - Always: GpuProfiles, Namespaces, Nodes (compact: device-plugin GPUs and GPU labels, for
//    the node groups' migration view), GpuNodeGroups, and the ResourceQuotas carrying the
//    operator's managed-by label (core/v1: served whether or not DRA is; unmanaged quotas are
//    discovered when a create meets them, like templates).
//  - Once resource.k8s.io is served (EnableDra, in the version discovery chose): ResourceSlices,
//    DeviceClasses (all of them: few, and an unmanaged class with a profile's name must be seen
//    to report Conflict) and ResourceClaimTemplates carrying the operator's managed-by label
//    (templates can be many; unmanaged ones are discovered when a create meets them, see
//    desired_state.h); those are cached compact, sharing what they have in common
//    (TemplateObject). And every ResourceClaim, compact (dra/resource_claim.h), for allocation
//    accounting.
// Event handlers are added to the informers (kube/controller_builder.h) before Start, and for
// the DRA kinds by the wiring function SetDraWiring installs, which EnableDra calls before
// starting them; they run on the informers' threads and must be quick (enqueue keys).
// Thread-safety: informer accessors and SetDraWiring before Start; the rest is thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/dra/api_version.h"
#include "controller/dra/inventory.h"
#include "controller/kube/informer.h"
#include "controller/kube/rest_client.h"
#include "controller/reconciler/cluster_objects.h"

namespace gpuprofile::reconciler {

// Index names.
inline constexpr char kByProfileLabel[] = "by-profile-label";

// Adds handlers to the DRA informers (called once, before they start).
using DraWiring = std::function<void(
    kube::Informer<dra::ResourceSlice>& slices, kube::Informer<dra::DeviceClass>& classes,
    kube::Informer<TemplateObject>& templates, kube::Informer<dra::ResourceClaim>& claims)>;

struct ClusterCacheOptions {
  kube::RestClient* client = nullptr;  // must outlive the cache
  // Applied to every informer (timeouts, backoff, clock); the collection is set per kind.
  kube::WatcherOptions watch;
  // Told of every ResourceSlice that does not decode (may be empty).
  std::function<void(const std::string&)> log;
};

// Page size of the ResourceSlice (re)list (at most; WatcherOptions.page_size if smaller).
inline constexpr int64_t kSlicePageSize = 100;

// The ResourceSlice informer exactly as the operator runs it (also what bench/watch measures):
// the slices of `version` listed in pages of at most kSlicePageSize, keyed by name, watch events
// decoded from their text by dra::DecodeSliceFast (the DOM path, DecodeSliceObject, for lists
// and whatever the fast path refuses), relists keeping unchanged slices, a version that does not
// decode dropping the cached one (kube/reflector.h, DropUndecodable). `watch` gives the
// timeouts, backoff and clock; its collection is replaced. `client` must outlive the informer.
std::unique_ptr<kube::Informer<dra::ResourceSlice>> NewResourceSliceInformer(
    kube::RestClient* client, kube::WatcherOptions watch, dra::DraApiVersion version);

class ClusterCache {
 public:
  explicit ClusterCache(ClusterCacheOptions options);
  ~ClusterCache();
  ClusterCache(const ClusterCache&) = delete;
  ClusterCache& operator=(const ClusterCache&) = delete;

  kube::Informer<ProfileObject>& profile_informer() { return *profiles_; }
  kube::Informer<meta::Namespace>& namespace_informer() { return *namespaces_; }
  kube::Informer<NodeGroupObject>& node_group_informer() { return *node_groups_; }
  kube::Informer<meta::ResourceQuota>& quota_informer() { return *quotas_; }
  kube::Informer<meta::NodeGpus>& node_informer() { return *nodes_; }
  void SetDraWiring(DraWiring wiring) { dra_wiring_ = std::move(wiring); }
  void Start();
  // Creates and starts the DRA informers in `version` (once; later calls return false).
  bool EnableDra(dra::DraApiVersion version);
  void Stop();

  // Discovery has answered once whether resource.k8s.io is served (EnableDra or not).
  void MarkDraChecked();
  // The always-on informers have synced, discovery has been checked once, and the DRA informers
  // have synced when enabled.
  bool HasSynced() const;
  // Blocks until HasSynced(), Stop() or `deadline` (the watchers' clock); returns HasSynced().
  bool WaitForSync(absl::Time deadline);
  std::optional<dra::DraApiVersion> dra_version() const;

  // Bumped by every change that can change the desired state (and by Touch()): not by status
  // or finalizer updates of profiles, not by GpuNodeGroups, and not by the operator's own
  // writes of managed objects that keep their labels (see Relevant in the .cc).
  uint64_t version() const { return version_.load(); }
  // Bumped by ResourceSlice changes only: the inventory is rebuilt when this moves.
  uint64_t slices_version() const { return slices_version_.load(); }
  // Bumped by ResourceClaim changes that can change allocation accounting (requests' classes,
  // allocation results, deletion; not reservedFor or other status).
  uint64_t claims_version() const { return claims_version_.load(); }
  // Bumped by Node changes that change what the migration view reads (device-plugin GPUs, GPU
  // labels, nodes coming and going).
  uint64_t nodes_version() const { return nodes_version_.load(); }
  // Moves on every change counted by version() except ResourceSlice changes: the desired state's
  // spec side (profile/engine.h, PlanProfiles) depends on exactly these.
  uint64_t spec_version() const { return spec_version_.load(); }
  // Moves on every change of a cached DeviceClass, ResourceClaimTemplate or ResourceQuota (before
  // the handlers that enqueue work run), including changes version() ignores.
  uint64_t owned_version() const { return owned_version_.load(); }
  void Touch() { BumpSpecVersion(); }

  const runtime::Store<ProfileObject>& profiles() const { return profiles_->store(); }
  const runtime::Store<meta::Namespace>& namespaces() const { return namespaces_->store(); }
  const runtime::Store<NodeGroupObject>& node_groups() const { return node_groups_->store(); }
  // The operator's ResourceQuotas, keyed "<namespace>/<name>", indexed by kByProfileLabel.
  const runtime::Store<meta::ResourceQuota>& quotas() const { return quotas_->store(); }
  const runtime::Store<meta::NodeGpus>& nodes() const { return nodes_->store(); }
  // Null until EnableDra.
  const runtime::Store<dra::ResourceSlice>* slices() const;
  const runtime::Store<dra::DeviceClass>* device_classes() const;
  // Compact (TemplateObject), keyed "<namespace>/<name>", indexed by kByProfileLabel.
  const runtime::Store<TemplateObject>* claim_templates() const;
  // Compact, keyed "<namespace>/<name>".
  const runtime::Store<dra::ResourceClaim>* claims() const;
  // Distinct template shapes cached (TemplateObject): a diagnostic.
  size_t template_shapes() const { return template_shapes_.size(); }

  // Undecodable objects seen so far, across informers (for logs and metrics).
  int64_t undecodable() const;
  // The ResourceSlices whose current version does not decode, by name (at most
  // kMaxUndecodableSlices). The cache holds no older version of them (kube/reflector.h,
  // DropUndecodable); a change of this set moves slices_version().
  std::vector<dra::UndecodableSlice> UndecodableSlices() const;
  static constexpr size_t kMaxUndecodableSlices = 1000;

 private:
  // The DRA informers in `version`, not started.
  void CreateDraInformers(dra::DraApiVersion version) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CountDraChanges() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  template <typename T>
  void Count(kube::Informer<T>* informer, std::function<bool(const T*, const T*)> relevant);

  const ClusterCacheOptions options_;
  DraWiring dra_wiring_;
  std::atomic<uint64_t> version_{0};
  std::atomic<uint64_t> slices_version_{0};
  std::atomic<uint64_t> claims_version_{0};
  std::atomic<uint64_t> nodes_version_{0};
  std::atomic<uint64_t> spec_version_{0};
  std::atomic<uint64_t> owned_version_{0};
  // spec_version_ first: a reader that sees the new version() then sees the new spec_version().
  void BumpSpecVersion() {
    spec_version_.fetch_add(1);
    version_.fetch_add(1);
  }
  std::unique_ptr<kube::Informer<ProfileObject>> profiles_;
  std::unique_ptr<kube::Informer<meta::Namespace>> namespaces_;
  std::unique_ptr<kube::Informer<NodeGroupObject>> node_groups_;
  std::unique_ptr<kube::Informer<meta::ResourceQuota>> quotas_;
  std::unique_ptr<kube::Informer<meta::NodeGpus>> nodes_;

  mutable absl::Mutex mu_;
  std::optional<dra::DraApiVersion> dra_version_ ABSL_GUARDED_BY(mu_);
  bool dra_checked_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<kube::Informer<dra::ResourceSlice>> slices_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<kube::Informer<dra::DeviceClass>> classes_ ABSL_GUARDED_BY(mu_);
  TemplateShapes template_shapes_;
  std::unique_ptr<kube::Informer<TemplateObject>> templates_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<kube::Informer<dra::ResourceClaim>> claims_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex undecodable_mu_;
  std::map<std::string, std::string> undecodable_slices_ ABSL_GUARDED_BY(undecodable_mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gpuprofile::reconciler
