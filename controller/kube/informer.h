// File: controller/kube/informer.h
// An informer: a Watcher keeping a runtime::Store<T> equal to one collection on the server, plus
// event handlers that hear about every change (client-go's shared informer, kube-rs'
// reflector + watcher). Handlers map changes to work-queue keys; they run on the informer's
// thread and must be quick (typically WorkQueue::Add).
//
// A handler is called as handler(before, after):
//   added    before == nullptr, after != nullptr
//   updated  both set (also for every object present after a relist, so nothing changed while
//            disconnected is missed; handlers that only enqueue keys are idempotent anyway)
//   deleted  before != nullptr, after == nullptr (also for objects a relist found gone)
// Objects that do not decode are skipped and counted (undecodable()), with the first error kept
// for logs: one bad object must not stop the cache.
//
// Thread-safety: AddHandler before Start; everything else is thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "controller/kube/watcher.h"
#include "controller/runtime/store.h"

namespace gpuprofile::kube {

template <typename T>
using ChangeHandler = std::function<void(const T* before, const T* after)>;

// Decodes one object from its JSON text (watch events arrive as text, see watcher.h): a fast
// path for hot kinds (ResourceSlices: dra::DecodeSliceFast). An error sends the event down the
// default path (nlohmann parse, then the Decoder), which words the error and tells text that is
// not JSON from an object that does not decode.
template <typename T>
using RawDecoder = std::function<absl::StatusOr<std::shared_ptr<const T>>(absl::string_view)>;

template <typename T>
class Informer final : public WatchSink {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  // `client` must outlive the informer.
  Informer(RestClient* client, WatcherOptions options, Decoder<T> decode,
           typename runtime::Store<T>::KeyFunc key,
           std::map<std::string, typename runtime::Store<T>::IndexFunc> indexers = {})
      : store_(std::move(key), std::move(indexers)),
        decode_(std::move(decode)),
        watcher_(client, this, std::move(options)) {}
  ~Informer() override { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void AddHandler(ChangeHandler<T> handler) { handlers_.push_back(std::move(handler)); }
  // Before Start: decode watch events from their text with `decode`.
  void SetRawDecoder(RawDecoder<T> decode) { raw_decode_ = std::move(decode); }
  // Before Start: an object's resourceVersion. With it, a relist keeps the cached object for
  // every item whose version did not change (the new copy is dropped at once, so a relist of
  // 20,000 unchanged objects does not hold two copies of them), and handlers hear only about
  // the objects that changed, appeared or disappeared.
  void SetVersionOf(std::function<absl::string_view(const T&)> version_of) {
    version_of_ = std::move(version_of);
  }

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
  const runtime::Store<T>& store() const { return store_; }
  const Watcher& watcher() const { return watcher_; }
  int64_t undecodable() const { return undecodable_.load(); }
  absl::Status first_decode_error() const {
    absl::MutexLock lock(&mu_);
    return first_decode_error_;
  }

  // WatchSink (called by the watcher's thread only).
  void Replace(std::vector<nlohmann::json> items) override {
    BeginList();
    ListPage(std::move(items));
    EndList();
  }

  // A (re)list is decoded page by page; the store swaps to the new content at EndList.
  void BeginList() override {
    listed_.clear();
    listed_before_.clear();
  }
  void ListPage(std::vector<nlohmann::json> items) override {
    for (const nlohmann::json& item : items) {
      ObjectPtr object = Decode(item);
      if (object == nullptr) continue;
      ObjectPtr before = store_.Get(store_.KeyOf(*object));
      if (before != nullptr && version_of_ != nullptr) {
        const absl::string_view version = version_of_(*object);
        if (!version.empty() && version == version_of_(*before)) object = before;
      }
      listed_.push_back(std::move(object));
      listed_before_.push_back(std::move(before));
    }
  }
  void EndList() override {
    std::vector<ObjectPtr> objects = std::exchange(listed_, {});
    std::vector<ObjectPtr> befores = std::exchange(listed_before_, {});
    std::vector<ObjectPtr> removed = store_.Replace(objects);
    for (const ObjectPtr& gone : removed) Notify(gone.get(), nullptr);
    for (size_t i = 0; i < objects.size(); ++i) {
      if (objects[i] != befores[i]) Notify(befores[i].get(), objects[i].get());
    }
  }

  void Apply(runtime::WatchEventType type, const nlohmann::json& item) override {
    Record(type, Decode(item));
  }

  absl::Status ApplyRaw(runtime::WatchEventType type, absl::string_view object_json) override {
    if (raw_decode_) {
      absl::StatusOr<ObjectPtr> object = raw_decode_(object_json);
      if (object.ok()) {
        Record(type, *std::move(object));
        return absl::OkStatus();
      }
    }
    return WatchSink::ApplyRaw(type, object_json);
  }

 private:
  void Record(runtime::WatchEventType type, ObjectPtr object) {
    if (object == nullptr) return;
    ObjectPtr before = store_.Apply(runtime::WatchEvent<T>{type, object});
    if (type == runtime::WatchEventType::kDeleted) {
      Notify(before != nullptr ? before.get() : object.get(), nullptr);
    } else {
      Notify(before.get(), object.get());
    }
  }

  ObjectPtr Decode(const nlohmann::json& item) {
    absl::StatusOr<ObjectPtr> decoded = decode_(item);
    if (decoded.ok()) return *std::move(decoded);
    if (undecodable_.fetch_add(1) == 0) {
      absl::MutexLock lock(&mu_);
      first_decode_error_ = decoded.status();
    }
    return nullptr;
  }

  void Notify(const T* before, const T* after) {
    for (const ChangeHandler<T>& handler : handlers_) handler(before, after);
  }

  runtime::Store<T> store_;
  // The list in progress and the cached object of each item's key (watcher thread only).
  std::vector<ObjectPtr> listed_;
  std::vector<ObjectPtr> listed_before_;
  const Decoder<T> decode_;
  std::function<absl::string_view(const T&)> version_of_;  // fixed before Start
  RawDecoder<T> raw_decode_;                // fixed before Start
  std::vector<ChangeHandler<T>> handlers_;  // fixed before Start
  Watcher watcher_;
  std::atomic<int64_t> undecodable_{0};

  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mu_);
  absl::Status first_decode_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::kube
