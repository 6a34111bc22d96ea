// File: controller/reconciler/desired_state.cc
#include "controller/reconciler/desired_state.h"

#include <algorithm>
#include <vector>

#include "controller/core/check.h"
#include "controller/dra/inventory.h"

namespace gpuprofile::reconciler {
namespace {

const std::string& RequiredLabel(const meta::ObjectMeta& meta, const char* label) {
  auto it = meta.labels.find(label);
  GPO_CHECK(it != meta.labels.end(), "generated object ", meta.name, " lacks label ", label);
  return it->second;
}

// What the engine plans from (profile/engine.h): the cached profiles, namespaces and existing
// objects (the foreign ones the caller adds).
profile::EngineInput EngineInputOf(const ClusterCache& cache, const FeatureGates& gates) {
  profile::EngineInput input;
  input.kube_version = gates.version();
  input.feature_gates = gates;
  input.namespaces_complete = true;
  for (const auto& object : cache.profiles().List()) {
    if (object->profile.has_value()) input.profiles.push_back(*object->profile);
  }
  for (const auto& ns : cache.namespaces().List()) input.namespaces.push_back(*ns);
  if (const auto* store = cache.device_classes()) input.existing_classes = store->List();
  if (const auto* store = cache.claim_templates()) {
    // The cached templates share their metadata (TemplateObject): no copy per template.
    for (auto& t : store->List()) {
      input.existing_templates.push_back(profile::ExistingTemplate{
          t->namespace_name, std::shared_ptr<const meta::ObjectMeta>(t, &t->shared_meta())});
    }
  }
  // Quotas do not depend on DRA being served: their informer always runs.
  input.existing_quotas = cache.quotas().List();
  return input;
}

// The Nodes whose device-plugin GPUs the node groups' migration view reads (only these change
// it).
std::vector<meta::NodeGpus> DevicePluginNodes(const ClusterCache& cache) {
  std::vector<meta::NodeGpus> nodes;
  for (const auto& n : cache.nodes().List()) {
    if (n->device_plugin_devices > 0) nodes.push_back(*n);
  }
  return nodes;
}

// The inventory's counts a Computed reports (metrics, logs).
void CountInventory(const dra::Inventory& inventory, Computed* out) {
  out->devices = static_cast<int64_t>(inventory.devices().size());
  out->pools = static_cast<int64_t>(inventory.pools().size());
  out->incomplete_pools = static_cast<int64_t>(inventory.IncompletePools().size());
  out->undecodable_slices = static_cast<int64_t>(inventory.undecodable_slices().size());
}

// The indexes of out->desired by profile. The engine labels every object it generates with its
// profile (profile/engine.h): a missing label is a broken invariant, not an input error.
void IndexByProfile(Computed* out) {
  for (const profile::ProfileOutcome& outcome : out->desired.profiles) {
    out->outcome_by_profile[outcome.profile.metadata.name] = &outcome;
  }
  for (const dra::DeviceClass& c : out->desired.device_classes) {
    out->class_by_profile[RequiredLabel(c.metadata, profile::kProfileLabel)] = &c;
  }
  for (const profile::TemplateSet& set : out->desired.template_sets) {
    out->templates_by_profile[RequiredLabel(set.prototype.metadata, profile::kProfileLabel)] = &set;
  }
  for (const profile::QuotaSet& set : out->desired.quota_sets) {
    out->quotas_by_profile[RequiredLabel(set.prototype.metadata, profile::kProfileLabel)] = &set;
  }
}

}  // namespace

DesiredStateCache::DesiredStateCache(const ClusterCache* cache, ForeignObjects* foreign,
                                     FeatureGates gates, runtime::Clock* clock,
                                     absl::Duration tick)
    : cache_(cache),
      foreign_(foreign),
      kube_(gates.version()),
      gates_(gates),
      clock_(clock),
      tick_(tick),
      memo_(cel::DeviceValueOptions::For(gates)) {}

int64_t DesiredStateCache::computations() const {
  absl::MutexLock lock(&mu_);
  return computations_;
}

int64_t DesiredStateCache::plans() const {
  absl::MutexLock lock(&compute_mu_);
  return plans_;
}

DesiredSnapshot DesiredStateCache::Get() {
  absl::MutexLock compute_lock(&compute_mu_);
  const uint64_t version = cache_->version();
  const uint64_t foreign_version = foreign_->Snapshot(nullptr);
  const absl::Time now = clock_->Now();
  {
    absl::MutexLock lock(&mu_);
    if (last_ != nullptr) {
      if (last_->cache_version == version && plan_foreign_version_ == foreign_version) {
        return {last_, absl::ZeroDuration()};
      }
      const absl::Duration wait = UntilNextComputeLocked(now);
      if (wait > absl::ZeroDuration()) return {last_, wait};
    }
    last_started_ = now;
    ++computations_;
  }
  std::shared_ptr<const Computed> computed = Compute(version);
  absl::MutexLock lock(&mu_);
  last_ = computed;
  last_finished_ = clock_->Now();
  return {computed, absl::ZeroDuration()};
}

absl::Duration DesiredStateCache::UntilNextCompute() const {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  return UntilNextComputeLocked(now);
}

// One computation per tick, and a pause after each as long as it took: under churn, computing
// takes at most about half of the time, and the reconciles in between run with the last result.
absl::Duration DesiredStateCache::UntilNextComputeLocked(absl::Time now) const {
  if (last_ == nullptr) return absl::ZeroDuration();
  const absl::Time tick = runtime::TickAtOrBefore(now, tick_);
  absl::Duration wait = absl::ZeroDuration();
  if (last_started_ >= tick) wait = tick + tick_ - now;
  return std::max(wait, last_->compute_time - (now - last_finished_));
}

std::shared_ptr<const Computed> DesiredStateCache::Compute(uint64_t version) {
  const absl::Time start = clock_->Now();
  UpdatePlan();
  UpdateInventory();
  UpdateLedger();
  auto out = std::make_shared<Computed>();
  out->cache_version = version;
  out->plan_id = plans_;
  out->desired = profile::AssembleDesiredState(*plan_, inventory_, &memo_, ledger_.get(),
                                               DevicePluginNodes(*cache_));
  out->claims = ledger_claims_;
  CountInventory(inventory_, out.get());
  IndexByProfile(out.get());
  out->compute_time = clock_->Now() - start;
  return out;
}

// The spec side: replanned only when a profile, namespace, managed object or noted foreign
// object changed, never for a ResourceSlice change. The counter is read before the objects: a
// change during the copy makes the next computation replan rather than miss it.
void DesiredStateCache::UpdatePlan() {
  const uint64_t spec_version = cache_->spec_version();
  std::vector<std::shared_ptr<const dra::ResourceClaimTemplate>> foreign;
  std::vector<std::shared_ptr<const meta::ResourceQuota>> foreign_quotas;
  const uint64_t foreign_version = foreign_->Snapshot(&foreign, &foreign_quotas);
  if (plan_ != nullptr && plan_version_ == spec_version &&
      plan_foreign_version_ == foreign_version) {
    return;
  }
  profile::EngineInput input = EngineInputOf(*cache_, gates_);
  for (auto& t : foreign) {
    input.existing_templates.push_back(profile::ExistingTemplate::Of(std::move(t)));
  }
  for (auto& q : foreign_quotas) input.existing_quotas.push_back(std::move(q));
  plan_ = std::make_shared<const profile::SpecPlan>(profile::PlanProfiles(input));
  plan_version_ = spec_version;
  plan_foreign_version_ = foreign_version;
  ++plans_;
}

// The inventory, rebuilt when a ResourceSlice changed. The slices' counter is read before the
// slices, likewise.
void DesiredStateCache::UpdateInventory() {
  const uint64_t slices_version = cache_->slices_version();
  if (inventory_built_ && inventory_version_ == slices_version) return;
  std::vector<std::shared_ptr<const dra::ResourceSlice>> slices;
  if (const auto* store = cache_->slices()) slices = store->List();
  // The inventory shares the cached slices' device storage: building it copies no device's
  // attributes. Rebuilt in place, so that two are never in memory together.
  inventory_.Rebuild(std::move(slices), cache_->UndecodableSlices());
  inventory_built_ = true;
  inventory_version_ = slices_version;
}

// The claim ledger, refolded when a claim changed. A claim naming a device whose slice is not
// cached (yet) counts nowhere until it is. The claims' counter is read before the claims, as
// the others'.
void DesiredStateCache::UpdateLedger() {
  const uint64_t claims_version = cache_->claims_version();
  if (ledger_ != nullptr && ledger_version_ == claims_version) return;
  // Folded from the cache under its reader lock: no list of 32,500 pointers. The ledger is
  // refolded in place: its tables keep their room (about 1 MiB of held devices at 30,000
  // claims), instead of a new table mapped, faulted in and unmapped on every claim change
  // (run's fixed mmap threshold serves blocks that large from mmap).
  if (ledger_ == nullptr) {
    ledger_ = std::make_unique<profile::ClaimLedger>();
  } else {
    ledger_->Clear();
  }
  int64_t claims = 0;
  if (const auto* store = cache_->claims()) {
    ledger_->Reserve(store->Size());  // most claims hold one device
    store->ForEach([&](const dra::ResourceClaim& claim) {
      ledger_->Add(claim);
      ++claims;
    });
  }
  ledger_->Finish();
  ledger_version_ = claims_version;
  ledger_claims_ = claims;
}

}  // namespace gpuprofile::reconciler
