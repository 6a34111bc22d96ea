// File: controller/reconciler/gpu_profile_operator.cc
#include "controller/reconciler/gpu_profile_operator.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/core/status_macros.h"
#include "controller/kube/controller_builder.h"
#include "controller/profile/engine.h"

namespace gpuprofile::reconciler {

absl::StatusOr<std::unique_ptr<GpuProfileOperator>> GpuProfileOperator::Create(
    OperatorOptions options) {
  if (options.client == nullptr || options.clock == nullptr) {
    return absl::InvalidArgumentError("operator: a REST client and a clock are required");
  }
  KubeVersion kube = KubeVersion::Newest();
  if (options.kube_version.has_value()) {
    kube = *options.kube_version;
  } else {
    kube::Discovery discovery(options.client);
    absl::StatusOr<kube::ServerVersion> server = discovery.GetServerVersion();
    if (!server.ok()) {
      return absl::Status(
          server.status().code(),
          absl::StrCat("reading the API server's /version: ", server.status().message()));
    }
    if (server->kube.has_value()) {
      kube = *server->kube;
    } else if (options.log) {
      options.log(absl::StrCat("server version ", server->git_version,
                               " is outside the modelled range; generating for ", kube.ToString()));
    }
  }
  absl::StatusOr<FeatureGates> gates = FeatureGates::Parse(kube, options.feature_gates);
  if (!gates.ok()) return gates.status();
  auto op = std::unique_ptr<GpuProfileOperator>(
      new GpuProfileOperator(std::move(options), kube, *std::move(gates)));
  if (op->options_.metrics != nullptr) {
    ASSIGN_OR_RETURN(op->runtime_metrics_,
                     runtime::ControllerRuntimeMetrics::Register(op->options_.metrics));
    ASSIGN_OR_RETURN(op->profile_metrics_, ProfileMetrics::Register(op->options_.metrics));
    ASSIGN_OR_RETURN(op->node_group_metrics_, NodeGroupMetrics::Register(op->options_.metrics));
  }
  op->Wire();
  return op;
}

GpuProfileOperator::GpuProfileOperator(OperatorOptions options, KubeVersion kube,
                                       FeatureGates gates)
    : options_(std::move(options)),
      kube_(kube),
      gates_(std::move(gates)),
      discovery_(options_.client) {}

GpuProfileOperator::~GpuProfileOperator() { Stop(); }

namespace {

// Every change to the fleet's inputs enqueues its one key.
constexpr auto kToFleet = [](const auto&) { return std::vector<std::string>{kFleetKey}; };

void AddWhenDue(runtime::WorkQueue* queue, const std::string& key, absl::Duration wait) {
  if (wait > absl::ZeroDuration()) {
    queue->AddAfter(key, wait);
  } else {
    queue->Add(key);
  }
}

}  // namespace

void GpuProfileOperator::Wire() {
  WireCacheAndWriter();
  WireReconcilers();
  WireControllers();
  // What each change enqueues (see the header).
  MapProfileEvents();
  MapFleetEvents();
  // Kueue's ConfigMap changes every profile's KueueMapped condition.
  if (kueue_ != nullptr) kueue_->SetHandler([this] { EnqueueAllProfiles(); });
  cache_->SetDraWiring([this](kube::Informer<dra::ResourceSlice>& slices,
                              kube::Informer<dra::DeviceClass>& classes,
                              kube::Informer<TemplateObject>& templates,
                              kube::Informer<dra::ResourceClaim>& claims) {
    MapDraEvents(slices, classes, templates, claims);
  });
}

void GpuProfileOperator::WireCacheAndWriter() {
  ClusterCacheOptions cache_options;
  cache_options.client = options_.client;
  cache_options.watch = options_.watch;
  cache_options.watch.clock = options_.clock;
  cache_options.log = options_.log;
  if (options_.kueue_config.has_value()) {
    kube::WatcherOptions kueue_watch = cache_options.watch;
    kueue_ = std::make_unique<KueueConfigWatch>(options_.client, std::move(kueue_watch),
                                                *options_.kueue_config);
  }
  cache_ = std::make_unique<ClusterCache>(std::move(cache_options));
  foreign_ = std::make_unique<ForeignObjects>(options_.clock);
  desired_ =
      std::make_unique<DesiredStateCache>(cache_.get(), foreign_.get(), gates_, options_.clock);

  ClusterWriterOptions writer_options;
  writer_options.client = options_.client;
  writer_options.kube = kube_;
  writer_options.may_write = options_.may_write;
  if (options_.metrics != nullptr) {
    absl::StatusOr<runtime::CounterFamily*> writes = options_.metrics->RegisterCounter(
        "gpuprofile_operator_writes_total", "Writes the operator issued, by verb and resource.",
        {"verb", "resource"});
    if (writes.ok()) writer_options.writes_total = *writes;
    absl::StatusOr<runtime::CounterFamily*> errors = options_.metrics->RegisterCounter(
        "gpuprofile_operator_write_errors_total",
        "Writes that failed, by verb, resource and HTTP status code (<error>: no response).",
        {"verb", "resource", "code"});
    if (errors.ok()) writer_options.write_errors_total = *errors;
  }
  writer_ = std::make_unique<RestClusterWriter>(std::move(writer_options));
}

void GpuProfileOperator::WireReconcilers() {
  ProfileReconcilerOptions profile_options;
  profile_options.cache = cache_.get();
  profile_options.desired = desired_.get();
  profile_options.writer = writer_.get();
  profile_options.foreign = foreign_.get();
  profile_options.clock = options_.clock;
  profile_options.events = options_.events;
  profile_options.metrics = profile_metrics_ ? &*profile_metrics_ : nullptr;
  profile_options.status_interval = options_.status_interval;
  profile_options.dra_discovery = [this] {
    absl::MutexLock lock(&mu_);
    return absl::IsNotFound(dra_status_) ? std::string(dra_status_.message()) : std::string();
  };
  if (kueue_ != nullptr) {
    profile_options.kueue_config = [kueue = kueue_.get()] { return kueue->Current(); };
  }
  profiles_ = std::make_unique<ProfileReconciler>(std::move(profile_options));

  NodeGroupReconcilerOptions group_options;
  group_options.cache = cache_.get();
  group_options.desired = desired_.get();
  group_options.writer = writer_.get();
  group_options.metrics = node_group_metrics_ ? &*node_group_metrics_ : nullptr;
  group_options.clock = options_.clock;
  group_options.events = options_.events;
  group_options.status_interval = options_.status_interval;
  node_groups_ = std::make_unique<NodeGroupReconciler>(std::move(group_options));
}

void GpuProfileOperator::WireControllers() {
  runtime::ControllerOptions controller_options;
  controller_options.name = "gpuprofile";
  controller_options.workers = options_.workers;
  controller_options.clock = options_.clock;
  controller_options.metrics = runtime_metrics_ ? &*runtime_metrics_ : nullptr;
  if (options_.log) {
    controller_options.on_error = [log = options_.log](const std::string& key,
                                                       const absl::Status& status) {
      log(absl::StrCat("reconcile ", key, " failed (will retry): ", status.ToString()));
    };
  }
  runtime::ControllerOptions fleet_options;
  fleet_options.name = "gpunodegroup";
  fleet_options.workers = 1;  // one key
  fleet_options.clock = options_.clock;
  fleet_options.metrics = controller_options.metrics;
  fleet_options.on_error = controller_options.on_error;
  controller_ = std::make_unique<runtime::Controller>(
      std::move(controller_options),
      [this](const std::string& key) { return profiles_->Reconcile(key); });
  node_group_controller_ = std::make_unique<runtime::Controller>(
      std::move(fleet_options), [this](const std::string&) { return node_groups_->Reconcile(); });
}

std::vector<std::string> GpuProfileOperator::ProfilesOfLabelled(
    const meta::ObjectMeta& meta) const {
  auto label = meta.labels.find(profile::kProfileLabel);
  if (label != meta.labels.end()) return std::vector<std::string>{label->second};
  // Unmanaged: it may now conflict with, or free, a name some profile wants.
  return cache_->profiles().ListKeys();
}

void GpuProfileOperator::MapProfileEvents() {
  kube::ControllerBuilder(controller_.get())
      .For<ProfileObject>(
          &cache_->profile_informer(),
          [](const ProfileObject& p) -> const meta::ObjectMeta& { return p.metadata; })
      .Watches<meta::Namespace>(
          &cache_->namespace_informer(),
          [this](const meta::Namespace&) { return cache_->profiles().ListKeys(); },
          /*urgent=*/true)
      // ResourceQuotas are core/v1: wired with the always-on informers, not with DRA's.
      .Owns<meta::ResourceQuota>(
          &cache_->quota_informer(),
          [](const meta::ResourceQuota& q) -> const meta::ObjectMeta& { return q.metadata; },
          api::kGpuProfileKind, kube::OwnerScope::kCluster)
      .Watches<meta::ResourceQuota>(
          &cache_->quota_informer(),
          [this](const meta::ResourceQuota& q) { return ProfilesOfLabelled(q.metadata); });
}

void GpuProfileOperator::MapFleetEvents() {
  kube::ControllerBuilder(node_group_controller_.get())
      .Watches<ProfileObject>(&cache_->profile_informer(), kToFleet)
      .Watches<NodeGroupObject>(&cache_->node_group_informer(), kToFleet)
      .Watches<meta::NodeGpus>(&cache_->node_informer(), kToFleet);
}

void GpuProfileOperator::MapDraEvents(kube::Informer<dra::ResourceSlice>& slices,
                                      kube::Informer<dra::DeviceClass>& classes,
                                      kube::Informer<TemplateObject>& templates,
                                      kube::Informer<dra::ResourceClaim>& claims) {
  // Before the handlers that enqueue: a pass that an event starts must not still await it.
  templates.AddHandler([this](const TemplateObject* before, const TemplateObject* after) {
    for (const TemplateObject* t : {before, after}) {
      if (t != nullptr) profiles_->TemplateObserved(t->Key());
    }
  });
  slices.AddHandler([this](const dra::ResourceSlice* before, const dra::ResourceSlice* after) {
    if (before != nullptr && (after == nullptr || after->driver != before->driver)) {
      EnqueueForStatus(ProfilesOfDriver(before->driver));
    }
    if (after != nullptr) EnqueueForStatus(ProfilesOfDriver(after->driver));
  });
  claims.AddHandler([this](const dra::ResourceClaim* before, const dra::ResourceClaim* after) {
    std::set<std::string> keys;
    for (const dra::ResourceClaim* claim : {before, after}) {
      if (claim == nullptr) continue;
      for (std::string& key : ProfilesOfClaim(*claim)) keys.insert(std::move(key));
    }
    EnqueueForStatus({keys.begin(), keys.end()});
  });
  kube::ControllerBuilder(controller_.get())
      .Owns<dra::DeviceClass>(
          &classes, [](const dra::DeviceClass& c) -> const meta::ObjectMeta& { return c.metadata; },
          api::kGpuProfileKind, kube::OwnerScope::kCluster)
      .Watches<dra::DeviceClass>(
          &classes, [this](const dra::DeviceClass& c) { return ProfilesOfLabelled(c.metadata); })
      // A template's shared metadata has no namespace: the owner is cluster-scoped.
      .Owns<TemplateObject>(
          &templates,
          [](const TemplateObject& t) -> const meta::ObjectMeta& { return t.shared_meta(); },
          api::kGpuProfileKind, kube::OwnerScope::kCluster)
      .Watches<TemplateObject>(
          &templates,
          [this](const TemplateObject& t) { return ProfilesOfLabelled(t.shared_meta()); });
}

// A ResourceSlice or ResourceClaim change reaches a profile's status, and the node groups, only
// through the next computation of the desired state (which coalesces churn: desired_state.h),
// and a profile's status no sooner than its status interval allows: a pass before then finds
// nothing to write. Under 100 slice updates a second, a pass of every affected profile on every
// update kept the workers busy with such passes, and the passes that write waited for CPU. So
// these events add their keys once the work can be done; the queue keeps the earliest time of
// a key already waiting, and other events (a profile's, an owned object's) still add at once.
void GpuProfileOperator::EnqueueForStatus(const std::vector<std::string>& profiles) {
  const absl::Duration compute = desired_->UntilNextCompute();
  for (const std::string& key : profiles) {
    AddWhenDue(controller_->queue(), key, std::max(compute, profiles_->StatusWait(key)));
  }
  AddWhenDue(node_group_controller_->queue(), kFleetKey, compute);
}

void GpuProfileOperator::EnqueueAllProfiles() {
  for (const std::string& key : cache_->profiles().ListKeys()) controller_->queue()->Add(key);
}

std::vector<std::string> GpuProfileOperator::ProfilesWhere(
    absl::FunctionRef<bool(const api::GpuProfileSpec&)> keep) const {
  std::vector<std::string> keys;
  for (const auto& object : cache_->profiles().List()) {
    // Undecodable profiles have no spec; they depend on no slice or claim either.
    if (object->profile.has_value() && keep(object->profile->spec)) {
      keys.push_back(object->metadata.name);
    }
  }
  return keys;
}

std::vector<std::string> GpuProfileOperator::ProfilesOfDriver(const std::string& driver) const {
  return ProfilesWhere([&](const api::GpuProfileSpec& spec) { return spec.driver == driver; });
}

std::vector<std::string> GpuProfileOperator::ProfilesOfClaim(
    const dra::ResourceClaim& claim) const {
  // The profiles whose class a request may use (pending and allocated counts), and those of
  // each allocated device's driver (a device held through any class is no longer free).
  std::set<std::string> classes, drivers;
  for (const dra::ClaimRequest& request : claim.requests) {
    classes.insert(request.device_classes.begin(), request.device_classes.end());
  }
  for (const dra::ClaimDeviceResult& result : claim.results) drivers.insert(result.driver);
  return ProfilesWhere([&](const api::GpuProfileSpec& spec) {
    return classes.count(spec.device_class_name) != 0 || drivers.count(spec.driver) != 0;
  });
}

void GpuProfileOperator::StartCaches() {
  cache_->Start();
  if (kueue_ != nullptr) kueue_->Start();
  StartDiscovery();
}

void GpuProfileOperator::StartWorkers() {
  controller_->Start();
  node_group_controller_->Start();
  EnqueueAllProfiles();
  node_group_controller_->queue()->Add(kFleetKey);
}

void GpuProfileOperator::StartDiscovery() {
  absl::MutexLock lock(&mu_);
  if (discovery_stopped_ || poller_.joinable()) return;
  poller_ = std::thread([this] { PollDiscovery(); });
}

void GpuProfileOperator::PollDiscovery() {
  for (bool first = true;; first = false) {
    {
      absl::MutexLock lock(&mu_);
      if (discovery_stopped_) return;
    }
    const absl::Time next_poll = PollDiscoveryOnce(/*refresh=*/!first);
    absl::MutexLock lock(&mu_);
    while (!discovery_stopped_ && options_.clock->Now() < next_poll) {
      options_.clock->AwaitWithDeadline(&mu_, absl::Condition(&discovery_stopped_), next_poll);
    }
  }
}

absl::Time GpuProfileOperator::PollDiscoveryOnce(bool refresh) {
  if (cache_->dra_version().has_value()) return options_.clock->Now() + options_.dra_poll_interval;
  if (refresh) discovery_.Refresh();
  absl::StatusOr<dra::DraApiVersion> version = DiscoverDraApiVersion(&discovery_);
  // Set before anything is logged, so that a test seeing the log may move a fake clock on.
  const absl::Time next_poll = options_.clock->Now() + options_.dra_poll_interval;
  absl::Status status = version.status();
  bool changed;
  {
    absl::MutexLock lock(&mu_);
    changed = dra_status_.ToString() != status.ToString();
    dra_status_ = status;
  }
  // NotFound: discovery answered that no version the operator reads is served (DRANotServed
  // is then true, with dra_status_'s message); other errors say nothing either way.
  if (!version.ok() && absl::IsNotFound(version.status())) cache_->MarkDraChecked();
  if (version.ok() && cache_->EnableDra(*version)) {
    if (options_.log) {
      options_.log(absl::StrCat("resource.k8s.io/", dra::VersionName(*version),
                                " is served: watching ResourceSlices, DeviceClasses and "
                                "ResourceClaimTemplates in that version"));
    }
    EnqueueAllProfiles();
    node_group_controller_->queue()->Add(kFleetKey);
  }
  if (changed && !status.ok() && options_.log) {
    options_.log(absl::StrCat("Dynamic Resource Allocation is not available: ", status.message(),
                              "; checking again every ",
                              absl::FormatDuration(options_.dra_poll_interval)));
  }
  // The DRANotServed message names what discovery found: rewrite it when that changes.
  if (changed && absl::IsNotFound(status)) EnqueueAllProfiles();
  return next_poll;
}

void GpuProfileOperator::StopDiscovery() {
  std::thread poller;
  {
    absl::MutexLock lock(&mu_);
    discovery_stopped_ = true;
    poller = std::move(poller_);
  }
  if (poller.joinable()) poller.join();
}

void GpuProfileOperator::StopWorkers() {
  controller_->Stop();
  node_group_controller_->Stop();
}

void GpuProfileOperator::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  StopDiscovery();
  StopWorkers();
  cache_->Stop();
  if (kueue_ != nullptr) kueue_->Stop();
}

absl::Status GpuProfileOperator::CachesReady() const {
  if (cache_->HasSynced()) return absl::OkStatus();
  return absl::UnavailableError("informer caches have not synced yet");
}

absl::Status GpuProfileOperator::DraServed() const {
  absl::MutexLock lock(&mu_);
  return dra_status_;
}

}  // namespace gpuprofile::reconciler
