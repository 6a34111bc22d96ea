// File: controller/reconciler/cluster_cache.cc
#include "controller/reconciler/cluster_cache.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/dra/slice_fast_decoder.h"
#include "controller/profile/engine.h"

namespace gpuprofile::reconciler {
namespace {

// Whether two versions of a claim count the same in allocation accounting (profile/
// claim_allocations.h): a pod reserving an allocated claim, or a new resourceVersion alone,
// changes nothing there.
bool SameAccounting(const dra::ResourceClaim& a, const dra::ResourceClaim& b) {
  if (a.allocated != b.allocated || a.deleting != b.deleting ||
      a.created_unix_seconds != b.created_unix_seconds || a.requests.size() != b.requests.size() ||
      a.results.size() != b.results.size()) {
    return false;
  }
  for (size_t i = 0; i < a.requests.size(); ++i) {
    const dra::ClaimRequest& x = a.requests[i];
    const dra::ClaimRequest& y = b.requests[i];
    if (x.name != y.name || x.device_classes != y.device_classes ||
        x.subrequests != y.subrequests) {
      return false;
    }
  }
  // What shared devices' claims consume changes the room left (status.allocation.freeClaims).
  const bool a_consumes = a.consumed_capacity != nullptr,
             b_consumes = b.consumed_capacity != nullptr;
  if (a_consumes != b_consumes) return false;
  if (a_consumes) {
    const std::vector<dra::ConsumedCapacity>& x = *a.consumed_capacity;
    const std::vector<dra::ConsumedCapacity>& y = *b.consumed_capacity;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].result != y[i].result || x[i].name != y[i].name || x[i].amount != y[i].amount) {
        return false;
      }
    }
  }
  for (size_t i = 0; i < a.results.size(); ++i) {
    const dra::ClaimDeviceResult& x = a.results[i];
    const dra::ClaimDeviceResult& y = b.results[i];
    if (x.request != y.request || x.driver != y.driver || x.pool != y.pool ||
        x.device != y.device) {
      return false;
    }
  }
  return true;
}

kube::WatcherOptions For(const kube::WatcherOptions& base, kube::ResourcePath collection,
                         std::string label_selector = "") {
  kube::WatcherOptions options = base;
  options.collection = std::move(collection);
  options.label_selector = std::move(label_selector);
  return options;
}

template <typename T>
std::map<std::string, typename runtime::Store<T>::IndexFunc> ProfileLabelIndex() {
  return {{kByProfileLabel,
           runtime::IndexByLabel<T>(
               profile::kProfileLabel,
               [](const T& object) -> const meta::ObjectMeta& { return object.metadata; })}};
}

// What the engine reads of a profile: its spec (generation moves with it), identity (uid,
// creationTimestamp orders conflicts) and whether it decodes. Status and finalizer updates,
// the operator's own writes, change none of it.
bool ProfileRelevant(const ProfileObject* before, const ProfileObject* after) {
  if (before == nullptr || after == nullptr) return true;
  const meta::ObjectMeta& a = before->metadata;
  const meta::ObjectMeta& b = after->metadata;
  return a.generation != b.generation || a.uid != b.uid ||
         a.creation_timestamp != b.creation_timestamp ||
         a.deletion_timestamp.has_value() != b.deletion_timestamp.has_value() ||
         before->decode_error != after->decode_error;
}

bool NamespaceRelevant(const meta::Namespace* before, const meta::Namespace* after) {
  if (before == nullptr || after == nullptr) return true;
  return before->metadata.labels != after->metadata.labels ||
         before->terminating != after->terminating;
}

bool IsManagedObject(const meta::ObjectMeta& meta) {
  auto it = meta.labels.find(profile::kManagedByLabel);
  return it != meta.labels.end() && it->second == profile::kManagedByValue;
}

// Existing classes and templates matter to the engine through their names and ownership labels
// (conflicts, adoption): unmanaged objects and label changes count; the operator's own creates,
// updates and deletes of managed objects that keep their labels do not.
bool OwnedObjectRelevant(const meta::ObjectMeta* before, const meta::ObjectMeta* after) {
  const meta::ObjectMeta* any = after != nullptr ? after : before;
  if (!IsManagedObject(*any)) return true;
  if (before != nullptr && after != nullptr) {
    return before->labels.find(profile::kProfileLabel) != before->labels.end() &&
                   after->labels.find(profile::kProfileLabel) != after->labels.end()
               ? before->labels.at(profile::kProfileLabel) !=
                     after->labels.at(profile::kProfileLabel)
               : before->labels != after->labels;
  }
  return false;
}

}  // namespace

std::unique_ptr<kube::Informer<dra::ResourceSlice>> NewResourceSliceInformer(
    kube::RestClient* client, kube::WatcherOptions watch, dra::DraApiVersion version) {
  // Slices are the largest objects listed (about 4.5 KB of JSON each, several times that as a
  // parsed page document): pages of kSlicePageSize keep a (re)list's transient page document
  // near 4 MB instead of about 18 MB for 500, at the cost of 40 more list requests on 5,000
  // slices.
  watch.collection = ResourceSlicesPath(version);
  watch.page_size = std::min(watch.page_size, kSlicePageSize);
  auto slices = std::make_unique<kube::Informer<dra::ResourceSlice>>(
      client, std::move(watch), DecodeSliceObject,
      [](const dra::ResourceSlice& s) { return s.name; });
  slices->SetRawDecoder([](absl::string_view json) { return Shared(dra::DecodeSliceFast(json)); });
  // A version that does not decode drops the cached one: its devices must not keep counting.
  slices->DropUndecodable(
      [](absl::string_view, absl::string_view name) { return std::string(name); });
  // Relists keep the cached slices that did not change (see kube/reflector.h).
  slices->SetVersionOf(
      [](const dra::ResourceSlice& s) -> absl::string_view { return s.resource_version; });
  return slices;
}

ClusterCache::ClusterCache(ClusterCacheOptions options) : options_(std::move(options)) {
  profiles_ = std::make_unique<kube::Informer<ProfileObject>>(
      options_.client, For(options_.watch, GpuProfilesPath()), DecodeProfileObject,
      runtime::KeyByMeta<ProfileObject>(
          [](const ProfileObject& p) -> const meta::ObjectMeta& { return p.metadata; }));
  namespaces_ = std::make_unique<kube::Informer<meta::Namespace>>(
      options_.client, For(options_.watch, NamespacesPath()), DecodeNamespaceObject,
      runtime::KeyByMeta<meta::Namespace>(
          [](const meta::Namespace& n) -> const meta::ObjectMeta& { return n.metadata; }));
  node_groups_ = std::make_unique<kube::Informer<NodeGroupObject>>(
      options_.client, For(options_.watch, GpuNodeGroupsPath()), DecodeNodeGroupObject,
      runtime::KeyByMeta<NodeGroupObject>(
          [](const NodeGroupObject& g) -> const meta::ObjectMeta& { return g.group.metadata; }));
  profiles_->SetVersionOf(
      [](const ProfileObject& p) -> absl::string_view { return p.metadata.resource_version; });
  namespaces_->SetVersionOf(
      [](const meta::Namespace& n) -> absl::string_view { return n.metadata.resource_version; });
  node_groups_->SetVersionOf([](const NodeGroupObject& g) -> absl::string_view {
    return g.group.metadata.resource_version;
  });
  // Only the operator's quotas: a namespace may hold any number of others.
  quotas_ = std::make_unique<kube::Informer<meta::ResourceQuota>>(
      options_.client,
      For(options_.watch, ResourceQuotasPath(),
          absl::StrCat(profile::kManagedByLabel, "=", profile::kManagedByValue)),
      DecodeResourceQuotaObject,
      runtime::KeyByMeta<meta::ResourceQuota>(
          [](const meta::ResourceQuota& q) -> const meta::ObjectMeta& { return q.metadata; }),
      ProfileLabelIndex<meta::ResourceQuota>());
  quotas_->SetVersionOf([](const meta::ResourceQuota& q) -> absl::string_view {
    return q.metadata.resource_version;
  });
  Count<ProfileObject>(profiles_.get(), ProfileRelevant);
  Count<meta::Namespace>(namespaces_.get(), NamespaceRelevant);
  // Like templates: every change is one the quotas' plan may have to repair (owned_version), and
  // the engine reads names and ownership labels (conflicts, adoption).
  quotas_->AddHandler([this](const meta::ResourceQuota*, const meta::ResourceQuota*) {
    owned_version_.fetch_add(1);
  });
  Count<meta::ResourceQuota>(quotas_.get(),
                             [](const meta::ResourceQuota* b, const meta::ResourceQuota* a) {
                               return OwnedObjectRelevant(b != nullptr ? &b->metadata : nullptr,
                                                          a != nullptr ? &a->metadata : nullptr);
                             });
  // GpuNodeGroups are outputs only: the desired state never reads them.
  // Nodes: real ones are large (kubelet status, images): listed in pages like slices.
  kube::WatcherOptions node_watch = For(options_.watch, NodesPath());
  node_watch.page_size = std::min(node_watch.page_size, kSlicePageSize);
  nodes_ = std::make_unique<kube::Informer<meta::NodeGpus>>(
      options_.client, std::move(node_watch), DecodeNodeObject,
      [](const meta::NodeGpus& n) { return n.name; });
  nodes_->SetVersionOf(
      [](const meta::NodeGpus& n) -> absl::string_view { return n.resource_version; });
  nodes_->AddHandler([this](const meta::NodeGpus* before, const meta::NodeGpus* after) {
    if (before != nullptr && after != nullptr &&
        before->device_plugin_devices == after->device_plugin_devices &&
        before->product == after->product && before->memory_mib == after->memory_mib) {
      return;
    }
    nodes_version_.fetch_add(1);
    version_.fetch_add(1);
  });
}

ClusterCache::~ClusterCache() { Stop(); }

// The first handler of every informer: the change counter moves (for changes the desired state
// depends on) before anyone is told, so a reconcile triggered by the change never reuses a
// computation from before it.
template <typename T>
void ClusterCache::Count(kube::Informer<T>* informer,
                         std::function<bool(const T*, const T*)> relevant) {
  informer->AddHandler([this, relevant = std::move(relevant)](const T* before, const T* after) {
    if (relevant(before, after)) BumpSpecVersion();
  });
}

void ClusterCache::Start() {
  profiles_->Start();
  namespaces_->Start();
  node_groups_->Start();
  quotas_->Start();
  nodes_->Start();
}

bool ClusterCache::EnableDra(dra::DraApiVersion version) {
  absl::MutexLock lock(&mu_);
  if (dra_version_.has_value() || stopped_) return false;
  dra_version_ = version;
  dra_checked_ = true;
  CreateDraInformers(version);
  CountDraChanges();
  if (dra_wiring_) dra_wiring_(*slices_, *classes_, *templates_, *claims_);
  slices_->Start();
  classes_->Start();
  templates_->Start();
  claims_->Start();
  BumpSpecVersion();
  return true;
}

void ClusterCache::CreateDraInformers(dra::DraApiVersion version) {
  slices_ = NewResourceSliceInformer(options_.client, options_.watch, version);
  classes_ = std::make_unique<kube::Informer<dra::DeviceClass>>(
      options_.client, For(options_.watch, DeviceClassesPath(version)), DecodeDeviceClassObject,
      runtime::KeyByMeta<dra::DeviceClass>(
          [](const dra::DeviceClass& c) -> const meta::ObjectMeta& { return c.metadata; }),
      ProfileLabelIndex<dra::DeviceClass>());
  templates_ = std::make_unique<kube::Informer<TemplateObject>>(
      options_.client,
      For(options_.watch, ResourceClaimTemplatesPath(version),
          absl::StrCat(profile::kManagedByLabel, "=", profile::kManagedByValue)),
      [this](const nlohmann::json& object) { return template_shapes_.Decode(object); },
      [](const TemplateObject& t) { return t.Key(); },
      std::map<std::string, runtime::Store<TemplateObject>::IndexFunc>{
          {kByProfileLabel,
           runtime::IndexByLabel<TemplateObject>(
               profile::kProfileLabel, [](const TemplateObject& t) -> const meta::ObjectMeta& {
                 return t.shared_meta();
               })}});
  claims_ = std::make_unique<kube::Informer<dra::ResourceClaim>>(
      options_.client, For(options_.watch, ResourceClaimsPath(version)), DecodeResourceClaimObject,
      // A view into the claim: the cache keeps no copy of 32,500 keys (dra/resource_claim.h).
      [](const dra::ResourceClaim& c) { return c.strings.key(); });
  claims_->SetVersionOf(
      [](const dra::ResourceClaim& c) -> absl::string_view { return c.resource_version(); });
  // Relists keep the cached objects that did not change (see kube/reflector.h).
  classes_->SetVersionOf(
      [](const dra::DeviceClass& c) -> absl::string_view { return c.metadata.resource_version; });
  templates_->SetVersionOf(
      [](const TemplateObject& t) -> absl::string_view { return t.resource_version; });
}

// The change counters the DRA kinds move (version(), slices_version(), owned_version(),
// claims_version()) and the undecodable slices they report.
void ClusterCache::CountDraChanges() {
  // A slice version that does not decode has replaced the cached one (NewResourceSliceInformer)
  // and is remembered until a version that decodes, or its deletion, arrives.
  slices_->AddHandler([this](const dra::ResourceSlice* before, const dra::ResourceSlice* after) {
    {
      absl::MutexLock undecodable_lock(&undecodable_mu_);
      undecodable_slices_.erase(after != nullptr ? after->name : before->name);
    }
    slices_version_.fetch_add(1);
    version_.fetch_add(1);
  });
  slices_->AddUndecodableHandler([this](const kube::UndecodableObject& bad) {
    {
      absl::MutexLock undecodable_lock(&undecodable_mu_);
      if (bad.source == kube::ObjectSource::kDeleted) {
        undecodable_slices_.erase(bad.name);
      } else if (undecodable_slices_.size() < kMaxUndecodableSlices ||
                 undecodable_slices_.count(bad.name) != 0) {
        undecodable_slices_[bad.name] = std::string(bad.error.message());
      }
    }
    if (bad.source != kube::ObjectSource::kDeleted && options_.log) {
      options_.log(
          absl::StrCat("ResourceSlice \"", bad.name,
                       "\" does not decode; its devices are not counted: ", bad.error.message()));
    }
    slices_version_.fetch_add(1);
    version_.fetch_add(1);
  });
  // Every change of a cached DeviceClass or ResourceClaimTemplate, relevant to the desired state
  // or not (a hand edit of a managed class keeps its labels but must be repaired).
  classes_->AddHandler(
      [this](const dra::DeviceClass*, const dra::DeviceClass*) { owned_version_.fetch_add(1); });
  templates_->AddHandler(
      [this](const TemplateObject*, const TemplateObject*) { owned_version_.fetch_add(1); });
  Count<dra::DeviceClass>(classes_.get(), [](const dra::DeviceClass* b, const dra::DeviceClass* a) {
    return OwnedObjectRelevant(b != nullptr ? &b->metadata : nullptr,
                               a != nullptr ? &a->metadata : nullptr);
  });
  Count<TemplateObject>(templates_.get(), [](const TemplateObject* b, const TemplateObject* a) {
    return OwnedObjectRelevant(b != nullptr ? &b->shared_meta() : nullptr,
                               a != nullptr ? &a->shared_meta() : nullptr);
  });
  claims_->AddHandler([this](const dra::ResourceClaim* before, const dra::ResourceClaim* after) {
    if (before != nullptr && after != nullptr && SameAccounting(*before, *after)) return;
    claims_version_.fetch_add(1);
    version_.fetch_add(1);
  });
}

void ClusterCache::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }
  profiles_->Stop();
  namespaces_->Stop();
  node_groups_->Stop();
  quotas_->Stop();
  nodes_->Stop();
  absl::MutexLock lock(&mu_);
  if (slices_) slices_->Stop();
  if (classes_) classes_->Stop();
  if (templates_) templates_->Stop();
  if (claims_) claims_->Stop();
}

void ClusterCache::MarkDraChecked() {
  absl::MutexLock lock(&mu_);
  dra_checked_ = true;
}

bool ClusterCache::WaitForSync(absl::Time deadline) {
  if (!profiles_->WaitForSync(deadline) || !namespaces_->WaitForSync(deadline) ||
      !node_groups_->WaitForSync(deadline) || !quotas_->WaitForSync(deadline) ||
      !nodes_->WaitForSync(deadline)) {
    return false;
  }
  kube::Informer<dra::ResourceSlice>* slices = nullptr;
  kube::Informer<dra::DeviceClass>* classes = nullptr;
  kube::Informer<TemplateObject>* templates = nullptr;
  kube::Informer<dra::ResourceClaim>* claims = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto checked = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return dra_checked_ || stopped_; };
    if (!mu_.AwaitWithDeadline(absl::Condition(&checked), deadline) || stopped_) return false;
    // The DRA informers, once made, live as long as the cache: waiting on them needs no lock.
    slices = slices_.get();
    classes = classes_.get();
    templates = templates_.get();
    claims = claims_.get();
  }
  if (slices != nullptr && (!slices->WaitForSync(deadline) || !classes->WaitForSync(deadline) ||
                            !templates->WaitForSync(deadline) || !claims->WaitForSync(deadline))) {
    return false;
  }
  return HasSynced();
}

bool ClusterCache::HasSynced() const {
  if (!profiles_->HasSynced() || !namespaces_->HasSynced() || !node_groups_->HasSynced() ||
      !quotas_->HasSynced() || !nodes_->HasSynced()) {
    return false;
  }
  absl::MutexLock lock(&mu_);
  if (!dra_checked_) return false;
  if (!dra_version_.has_value()) return true;
  return slices_->HasSynced() && classes_->HasSynced() && templates_->HasSynced() &&
         claims_->HasSynced();
}

std::optional<dra::DraApiVersion> ClusterCache::dra_version() const {
  absl::MutexLock lock(&mu_);
  return dra_version_;
}

const runtime::Store<dra::ResourceSlice>* ClusterCache::slices() const {
  absl::MutexLock lock(&mu_);
  return slices_ ? &slices_->store() : nullptr;
}
const runtime::Store<dra::DeviceClass>* ClusterCache::device_classes() const {
  absl::MutexLock lock(&mu_);
  return classes_ ? &classes_->store() : nullptr;
}
const runtime::Store<TemplateObject>* ClusterCache::claim_templates() const {
  absl::MutexLock lock(&mu_);
  return templates_ ? &templates_->store() : nullptr;
}
const runtime::Store<dra::ResourceClaim>* ClusterCache::claims() const {
  absl::MutexLock lock(&mu_);
  return claims_ ? &claims_->store() : nullptr;
}

std::vector<dra::UndecodableSlice> ClusterCache::UndecodableSlices() const {
  absl::MutexLock lock(&undecodable_mu_);
  std::vector<dra::UndecodableSlice> out;
  out.reserve(undecodable_slices_.size());
  for (const auto& [name, error] : undecodable_slices_) out.push_back({name, error});
  return out;
}

int64_t ClusterCache::undecodable() const {
  int64_t n = profiles_->undecodable() + namespaces_->undecodable() + node_groups_->undecodable() +
              quotas_->undecodable() + nodes_->undecodable();
  absl::MutexLock lock(&mu_);
  if (slices_) {
    n += slices_->undecodable() + classes_->undecodable() + templates_->undecodable() +
         claims_->undecodable();
  }
  return n;
}

}  // namespace gpuprofile::reconciler
