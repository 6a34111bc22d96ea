// File: controller/reconciler/kueue_config_watch.h
// `run --kueue-config configmap/<ns>/<name>[:<key>]` (docs/kueue.md): the one ConfigMap holding
// Kueue's Configuration, watched (list and watch in its namespace with the field selector
// metadata.name=<name>, so a Role on that namespace and name suffices), parsed as it arrives
// (kueue/kueue_config.h), for the profiles' KueueMapped condition. Every change calls the
// handler given (the operator enqueues every profile).
// Current() is the Configuration, or why there is none, naming the ConfigMap: not read yet
// (Unavailable, with the watcher's last error, e.g. 403 Forbidden, when it has one), not found,
// or malformed (the field). A handler hears of the first list's object before the watcher counts
// as synced, and an empty first list is heard of by nobody: the profile decision comes back
// while the ConfigMap is not read (kKueueRecheck, profile_decision.h). The operator does not wait
// for this watch to sync: a ConfigMap it may not read must not stop it from reconciling.
// Thread-safety: SetHandler before Start; the rest is thread-safe.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "controller/kube/informer.h"
#include "controller/kube/rest_client.h"
#include "controller/kueue/kueue_config.h"
#include "controller/meta/object_meta.h"

namespace gpuprofile::reconciler {

// The ConfigMap as cached: its metadata and the Configuration parsed from its key.
struct KueueConfigMapObject {
  meta::ObjectMeta metadata;
  absl::StatusOr<kueue::KueueConfig> config;
};

class KueueConfigWatch {
 public:
  // `client` must outlive the watch; `watch` gives timeouts, backoff and clock (its collection
  // and selectors are replaced).
  KueueConfigWatch(kube::RestClient* client, kube::WatcherOptions watch, kueue::ConfigMapRef ref);

  void SetHandler(std::function<void()> on_change);
  void Start() { informer_->Start(); }
  void Stop() { informer_->Stop(); }
  bool HasSynced() const { return informer_->HasSynced(); }

  absl::StatusOr<kueue::KueueConfig> Current() const;
  const kueue::ConfigMapRef& ref() const { return ref_; }

 private:
  const kueue::ConfigMapRef ref_;
  std::unique_ptr<kube::Informer<KueueConfigMapObject>> informer_;
};

}  // namespace gpuprofile::reconciler
