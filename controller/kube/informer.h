// File: controller/kube/informer.h
// An informer: a Reflector<T> (reflector.h: decode -> store -> fan-out) kept equal to one
// collection on the server by a Watcher running on a thread of its own (client-go's shared
// informer, kube-rs' reflector + watcher). Handlers map changes to work-queue keys; they run on
// the informer's thread and must be quick (typically WorkQueue::Add). What handlers hear, how
// relists and undecodable objects are handled and how decoding is plugged in: see reflector.h.
//
// Thread-safety: AddHandler, AddUndecodableHandler, SetRawDecoder and SetVersionOf before
// Start; everything else is thread-safe.
#pragma once

#include <map>
#include <string>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/kube/reflector.h"
#include "controller/kube/rest_client.h"
#include "controller/kube/watcher.h"
#include "controller/runtime/store.h"

namespace gpuprofile::kube {

template <typename T>
class Informer final : public Reflector<T> {
 public:
  // `client` must outlive the informer (it may be null if the informer is never started).
  Informer(RestClient* client, WatcherOptions options, Decoder<T> decode,
           typename runtime::Store<T>::KeyFunc key,
           std::map<std::string, typename runtime::Store<T>::IndexFunc> indexers = {})
      : Reflector<T>(std::move(decode), std::move(key), std::move(indexers)),
        watcher_(client, this, std::move(options)) {}
  ~Informer() override { Stop(); }

  // Starts the list/watch loop on a thread of its own (once).
  void Start() {
    absl::MutexLock lock(&mu_);
    if (started_) return;
    started_ = true;
    thread_ = std::thread([this] { watcher_.Run(); });
  }

  // Stops the loop and joins the thread; idempotent.
  void Stop() {
    watcher_.Stop();
    std::thread thread;
    {
      absl::MutexLock lock(&mu_);
      thread.swap(thread_);
    }
    if (thread.joinable()) thread.join();
  }

  bool HasSynced() const { return watcher_.HasSynced(); }
  bool WaitForSync(absl::Time deadline) { return watcher_.WaitForSync(deadline); }
  const Watcher& watcher() const { return watcher_; }

 private:
  Watcher watcher_;

  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::kube
