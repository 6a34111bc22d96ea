// File: controller/reconciler/gpu_profile_operator.h
// The operator assembled: the cluster cache, the desired-state memo, two controllers — profiles
// (keys: profile names) and node groups (one key, kFleetKey) — with their reconcilers, and a
// discovery poller that notices when resource.k8s.io becomes served (DRA switched on after the
// operator started) and then starts the DRA informers, with no restart. The poller asks discovery
// at once, then every dra_poll_interval as measured on the injected clock (tests drive it with a
// FakeClock), until a version it reads is served.
//
// Event mapping (what each change enqueues):
//   GpuProfile                  the profile; the fleet (node groups list their profiles)
//   Namespace                   every profile, ahead of queued work (a label change can add or
//                               remove templates, and a new namespace should not wait)
//   ResourceSlice               the profiles of that slice's driver; the fleet
//   ResourceClaim               the profiles whose class its requests may use and those of its
//                               allocated devices' drivers; the fleet
//   DeviceClass / template /    its controller owner (Owns), and the profile named by its label
//   ResourceQuota               (orphans to adopt); every profile when unlabelled (an unmanaged
//                               object may now conflict with, or free, a name)
//   GpuNodeGroup, Node          the fleet
//   Kueue's ConfigMap           every profile (--kueue-config: the KueueMapped condition)
// The informers and the poller may run on every replica (warm caches for a fast hand-over), the
// workers only on the leader, once WaitForCacheSync says the caches have synced. runtime::Manager
// runs the three parts through caches_runnable(), discovery_runnable() and workers_runnable();
// StartCaches() starts the first two at once, for callers without a manager. Errors name what
// failed.
// Thread-safety: thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "controller/api/gpu_profile.h"
#include "controller/core/feature_gates.h"
#include "controller/core/kube_version.h"
#include "controller/kube/discovery.h"
#include "controller/kube/rest_client.h"
#include "controller/reconciler/cluster_cache.h"
#include "controller/reconciler/cluster_writer.h"
#include "controller/reconciler/desired_state.h"
#include "controller/reconciler/foreign_objects.h"
#include "controller/reconciler/kueue_config_watch.h"
#include "controller/reconciler/node_group_reconciler.h"
#include "controller/reconciler/profile_reconciler.h"
#include "controller/reconciler/rest_cluster_writer.h"
#include "controller/runtime/controller.h"
#include "controller/runtime/controller_runtime_metrics.h"
#include "controller/runtime/event_recorder.h"
#include "controller/runtime/manager.h"
#include "controller/runtime/metrics.h"

namespace gpuprofile::reconciler {

struct OperatorOptions {
  kube::RestClient* client = nullptr;           // required; must outlive the operator
  runtime::Clock* clock = nullptr;              // required
  runtime::MetricsRegistry* metrics = nullptr;  // may be null
  runtime::EventRecorder* events = nullptr;     // may be null
  // Closed when this replica must not write (see ClusterWriter); null: always open.
  std::function<bool()> may_write;
  int workers = 4;
  absl::Duration dra_poll_interval = absl::Seconds(10);
  absl::Duration status_interval = absl::Seconds(1);
  kube::WatcherOptions watch;  // timeouts and backoff of every informer
  // Overrides the server's /version (tests, servers newer than the modelled range).
  std::optional<KubeVersion> kube_version;
  // The cluster's feature gates that differ from its release's defaults ("A=true,B=false", as
  // --feature-gates takes them); checked against the release once it is known.
  std::string feature_gates;
  // run --kueue-config: the ConfigMap holding Kueue's Configuration, watched for the profiles'
  // KueueMapped condition (kueue_config_watch.h); unset: off.
  std::optional<kueue::ConfigMapRef> kueue_config;
  // Log sink for notable events (DRA appeared, discovery failures); may be null.
  std::function<void(const std::string&)> log;
};

class GpuProfileOperator {
 public:
  static absl::StatusOr<std::unique_ptr<GpuProfileOperator>> Create(OperatorOptions options);
  ~GpuProfileOperator();

  // Starts the informers and the discovery poller.
  void StartCaches();
  void StartWorkers();
  // Stops the workers (running reconciles finish); idempotent.
  void StopWorkers();
  // Stops the discovery poller (an ongoing poll finishes); idempotent, final.
  void StopDiscovery();
  // Stops workers, the poller and the informers; idempotent.
  void Stop();
  bool WaitForCacheSync(absl::Time deadline) { return cache_->WaitForSync(deadline); }

  // The operator's parts as runtime::Manager runs them: the informers (stopping them stops the
  // whole operator), the discovery poller, and the workers.
  runtime::Runnable* caches_runnable() { return &caches_runnable_; }
  runtime::Runnable* discovery_runnable() { return &discovery_runnable_; }
  runtime::Runnable* workers_runnable() { return &workers_runnable_; }

  // For /readyz: OK when the caches have synced and resource.k8s.io is served; otherwise the
  // reason.
  absl::Status CachesReady() const;
  absl::Status DraServed() const;

  const KubeVersion& kube_version() const { return kube_; }
  const FeatureGates& feature_gates() const { return gates_; }
  ClusterCache& cache() { return *cache_; }
  DesiredStateCache& desired() { return *desired_; }
  runtime::Controller& controller() { return *controller_; }
  runtime::Controller& node_group_controller() { return *node_group_controller_; }

 private:
  GpuProfileOperator(OperatorOptions options, KubeVersion kube, FeatureGates gates);
  // Wire() builds the parts in this order; each step uses what the ones before built.
  void Wire();
  void WireCacheAndWriter();
  void WireReconcilers();
  void WireControllers();
  void MapProfileEvents();
  void MapFleetEvents();
  // SetDraWiring's function: the DRA informers' events, once discovery has found the version.
  void MapDraEvents(kube::Informer<dra::ResourceSlice>& slices,
                    kube::Informer<dra::DeviceClass>& classes,
                    kube::Informer<TemplateObject>& templates,
                    kube::Informer<dra::ResourceClaim>& claims);

  void StartDiscovery();
  // Polls until StopDiscovery(), on options_.clock.
  void PollDiscovery();
  // One discovery round (skipped once DRA is enabled); returns when the next one is due.
  absl::Time PollDiscoveryOnce(bool refresh);
  void EnqueueAllProfiles();
  // The profile named by a managed object's label; every profile for an unmanaged object.
  std::vector<std::string> ProfilesOfLabelled(const meta::ObjectMeta& meta) const;
  // The names of the cached (decodable) profiles whose spec `keep` accepts, in cache order.
  std::vector<std::string> ProfilesWhere(
      absl::FunctionRef<bool(const api::GpuProfileSpec&)> keep) const;
  std::vector<std::string> ProfilesOfDriver(const std::string& driver) const;
  std::vector<std::string> ProfilesOfClaim(const dra::ResourceClaim& claim) const;
  // Adds `profiles` and the fleet to their queues once a slice or claim change can show.
  void EnqueueForStatus(const std::vector<std::string>& profiles);

  const OperatorOptions options_;
  const KubeVersion kube_;
  const FeatureGates gates_;
  kube::Discovery discovery_;
  std::unique_ptr<ClusterCache> cache_;
  std::unique_ptr<KueueConfigWatch> kueue_;  // null unless options_.kueue_config
  std::unique_ptr<ForeignObjects> foreign_;
  std::unique_ptr<DesiredStateCache> desired_;
  std::unique_ptr<ClusterWriter> writer_;
  std::optional<runtime::ControllerRuntimeMetrics> runtime_metrics_;
  std::optional<ProfileMetrics> profile_metrics_;
  std::optional<NodeGroupMetrics> node_group_metrics_;
  std::unique_ptr<ProfileReconciler> profiles_;
  std::unique_ptr<NodeGroupReconciler> node_groups_;
  std::unique_ptr<runtime::Controller> controller_;             // profiles
  std::unique_ptr<runtime::Controller> node_group_controller_;  // kFleetKey

  runtime::FunctionRunnable caches_runnable_{[this] {
                                               cache_->Start();
                                               if (kueue_ != nullptr) kueue_->Start();
                                               return absl::OkStatus();
                                             },
                                             [this] { Stop(); }};
  runtime::FunctionRunnable discovery_runnable_{[this] {
                                                  StartDiscovery();
                                                  return absl::OkStatus();
                                                },
                                                [this] { StopDiscovery(); }};
  runtime::FunctionRunnable workers_runnable_{[this] {
                                                StartWorkers();
                                                return absl::OkStatus();
                                              },
                                              [this] { StopWorkers(); }};

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool discovery_stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status dra_status_ ABSL_GUARDED_BY(mu_) = absl::UnavailableError("discovery not run yet");
  std::thread poller_ ABSL_GUARDED_BY(mu_);  // joined outside mu_, which the poller waits under
};

}  // namespace gpuprofile::reconciler
