// File: controller/kube/reflector.h
// The one path from the API server's JSON to a cache: decode -> store -> fan-out. A Reflector<T>
// is the WatchSink a Watcher feeds (watcher.h); it owns a runtime::Store<T> and tells its
// handlers about every change. kube::Informer (informer.h) is a Reflector driven by a Watcher
// on a thread of its own; every cache of the operator is one.
//
// Decoding is pluggable, per kind:
//  - the DOM decoder (required) turns one object, as an nlohmann::json document, into a T;
//  - a raw decoder (optional, SetRawDecoder) turns an object straight from its JSON text into a
//    T, e.g. dra::DecodeSliceFast for ResourceSlices: watch events' objects, and the items of
//    (re)list pages. When it fails, for whatever reason, the object takes the DOM path (nlohmann
//    parse, then the DOM decoder), which words the error and, for a watch event, tells text that
//    is not JSON (DataLoss to the watcher, which distrusts the stream and resumes) from an
//    object that does not decode (skipped, counted, reported).
// (Re)list pages arrive as text (raw_list.h, RestClient::ListPagesRaw) whatever the decoders:
// each item is parsed on its own, never a document of the whole page.
//
// Store:
//  - a (re)list is decoded page by page as it arrives and the store swaps to the new content at
//    EndList only (a list that fails part-way changes nothing; a restarted list drops the pages
//    so far);
//  - with SetVersionOf, a relist keeps the cached object for every item whose resourceVersion
//    did not change (the new copy is dropped at once, so a relist of 20,000 unchanged objects
//    never holds two copies of them), and handlers hear only about objects that changed,
//    appeared or disappeared.
//
// Fan-out: handlers run in the order they were added, on the writer's thread, after the store
// changed, as handler(before, after):
//   added    before == nullptr, after != nullptr
//   updated  both set (after a relist without SetVersionOf: every listed object that was cached)
//   deleted  before != nullptr, after == nullptr (also for objects a relist found gone)
// A relist announces the objects it found gone first (in key order), then the others in list
// order.
//
// Objects that do not decode are skipped: one bad object must not stop the cache. They are
// counted (undecodable()), the first error is kept (first_decode_error()), and undecodable
// handlers hear about each one with its namespace and name when the JSON has them, so a cache
// can react. With DropUndecodable, an Added or Modified event whose object does not decode also
// removes what the store holds under that object's key (handlers hear a deletion): the cache
// then no longer serves an older version as if it were current. (A relist that meets an
// undecodable object already leaves it out: it is gone from the new content.)
//
// Thread-safety: AddHandler, AddUndecodableHandler, SetRawDecoder and SetVersionOf before the
// first write; the WatchSink methods from one thread at a time (the watcher's); store(),
// undecodable(), raw_fallbacks() and first_decode_error() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "controller/kube/watcher.h"
#include "controller/runtime/store.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

// Decodes one object from its document; an error skips the object.
template <typename T>
using Decoder = std::function<absl::StatusOr<std::shared_ptr<const T>>(const nlohmann::json&)>;

// Decodes one object from its JSON text (valid for the duration of the call); an error sends the
// object down the DOM path.
template <typename T>
using RawDecoder = std::function<absl::StatusOr<std::shared_ptr<const T>>(absl::string_view)>;

template <typename T>
using ChangeHandler = std::function<void(const T* before, const T* after)>;

// Where an undecodable object came from.
enum class ObjectSource { kList, kAdded, kModified, kDeleted };

// An object that did not decode.
struct UndecodableObject {
  ObjectSource source = ObjectSource::kList;
  // From the object's metadata when it has them as strings; empty otherwise.
  std::string namespace_name;
  std::string name;
  absl::Status error;  // the DOM decoder's
};

using UndecodableHandler = std::function<void(const UndecodableObject&)>;

template <typename T>
class Reflector : public WatchSink {
 public:
  using ObjectPtr = std::shared_ptr<const T>;

  Reflector(Decoder<T> decode, typename runtime::Store<T>::KeyFunc key,
            std::map<std::string, typename runtime::Store<T>::IndexFunc> indexers = {})
      : store_(std::move(key), std::move(indexers)), decode_(std::move(decode)) {}
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  void AddHandler(ChangeHandler<T> handler) { handlers_.push_back(std::move(handler)); }
  void AddUndecodableHandler(UndecodableHandler handler) {
    undecodable_handlers_.push_back(std::move(handler));
  }
  void SetRawDecoder(RawDecoder<T> decode) { raw_decode_ = std::move(decode); }
  // See above; `key_of(namespace, name)` is the store key of an object with that metadata.
  void DropUndecodable(std::function<std::string(absl::string_view, absl::string_view)> key_of) {
    undecodable_key_of_ = std::move(key_of);
  }
  // An object's resourceVersion, for relists (see above).
  void SetVersionOf(std::function<absl::string_view(const T&)> version_of) {
    version_of_ = std::move(version_of);
  }

  const runtime::Store<T>& store() const { return store_; }
  // Objects skipped because they did not decode, since construction.
  int64_t undecodable() const { return undecodable_.load(std::memory_order_relaxed); }
  // Objects (watch events and list items) the raw decoder did not decode (they took the DOM
  // path), since construction.
  int64_t raw_fallbacks() const { return raw_fallbacks_.load(std::memory_order_relaxed); }
  // The first decode error (OK when none yet), for logs and readiness messages.
  absl::Status first_decode_error() const {
    absl::MutexLock lock(&mu_);
    return first_decode_error_;
  }

  // WatchSink.
  void Replace(std::vector<nlohmann::json> items) override {
    BeginList();
    ListPage(std::move(items));
    EndList();
  }
  void BeginList() override {
    listed_.clear();
    listed_before_.clear();
  }
  void ListPage(std::vector<nlohmann::json> items) override {
    for (nlohmann::json& item : items) {
      ObjectPtr object = Decode(ObjectSource::kList, item);
      nlohmann::json().swap(item);  // the item's document is not needed any more
      AddListed(std::move(object));
    }
  }
  // Every kind takes its pages as text: a page's items are then parsed one at a time, and a
  // page of 500 objects never exists as one document (several times its text: about 7 MB for
  // 500 ResourceClaimTemplates, the largest transient of a relist).
  bool TakesRawPages() const override { return true; }
  // Each item, with apiVersion and kind as the DOM path gives them, through the raw decoder when
  // there is one; an item it does not decode, and every item without one, takes the DOM path
  // (parsed alone; the DOM decoder words the error).
  void ListPageRaw(const RawListPage& page) override {
    for (const RawListPage::Item& item : page.items) {
      const std::string text = page.WithTypeMeta(item);
      if (raw_decode_) {
        absl::StatusOr<ObjectPtr> object = raw_decode_(text);
        if (object.ok() && *object != nullptr) {
          AddListed(*std::move(object));
          continue;
        }
        raw_fallbacks_.fetch_add(1, std::memory_order_relaxed);
      }
      nlohmann::json parsed = nlohmann::json::parse(text, /*cb=*/nullptr,
                                                    /*allow_exceptions=*/false);
      if (parsed.is_discarded()) {  // the page's structure was read, not every value in it
        Undecodable({ObjectSource::kList, "", "",
                     absl::DataLossError(absl::StrCat("a list item is not valid JSON: ",
                                                      std::string(item.text.substr(0, 200))))});
        continue;
      }
      AddListed(Decode(ObjectSource::kList, parsed));
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
    Record(type, Decode(SourceOf(type), item));
  }
  absl::Status ApplyRaw(runtime::WatchEventType type, absl::string_view object_json) override {
    if (raw_decode_) {
      absl::StatusOr<ObjectPtr> object = raw_decode_(object_json);
      if (object.ok() && *object != nullptr) {
        Record(type, *std::move(object));
        return absl::OkStatus();
      }
      raw_fallbacks_.fetch_add(1, std::memory_order_relaxed);
    }
    return WatchSink::ApplyRaw(type, object_json);  // parses, then Apply
  }

 private:
  // A listed object (null: it did not decode), kept as the cached one when its resourceVersion
  // did not change.
  void AddListed(ObjectPtr object) {
    if (object == nullptr) return;
    ObjectPtr before = store_.Get(store_.KeyOf(*object));
    if (before != nullptr && version_of_ != nullptr) {
      const absl::string_view version = version_of_(*object);
      if (!version.empty() && version == version_of_(*before)) object = before;
    }
    listed_.push_back(std::move(object));
    listed_before_.push_back(std::move(before));
  }

  static ObjectSource SourceOf(runtime::WatchEventType type) {
    switch (type) {
      case runtime::WatchEventType::kAdded:
        return ObjectSource::kAdded;
      case runtime::WatchEventType::kModified:
        return ObjectSource::kModified;
      case runtime::WatchEventType::kDeleted:
        return ObjectSource::kDeleted;
    }
    return ObjectSource::kModified;
  }

  static std::string MetadataString(const nlohmann::json& item, const char* field) {
    if (!item.is_object()) return "";
    auto meta = item.find("metadata");
    if (meta == item.end() || !meta->is_object()) return "";
    auto value = meta->find(field);
    return value != meta->end() && value->is_string() ? value->get<std::string>() : "";
  }

  void Record(runtime::WatchEventType type, ObjectPtr object) {
    if (object == nullptr) return;
    ObjectPtr before = store_.Apply(runtime::WatchEvent<T>{type, object});
    if (type == runtime::WatchEventType::kDeleted) {
      Notify(before != nullptr ? before.get() : object.get(), nullptr);
    } else {
      Notify(before.get(), object.get());
    }
  }

  ObjectPtr Decode(ObjectSource source, const nlohmann::json& item) {
    absl::StatusOr<ObjectPtr> decoded = decode_(item);
    if (decoded.ok() && *decoded != nullptr) return *std::move(decoded);
    absl::Status error = decoded.ok() ? absl::InternalError("the decoder returned no object")
                                      : decoded.status();
    Undecodable({source, MetadataString(item, "namespace"), MetadataString(item, "name"),
                 std::move(error)});
    return nullptr;
  }

  // Counts, keeps the first error, drops the cached version when asked to, and tells the
  // undecodable handlers.
  void Undecodable(const UndecodableObject& bad) {
    const ObjectSource source = bad.source;
    if (undecodable_.fetch_add(1, std::memory_order_relaxed) == 0) {
      absl::MutexLock lock(&mu_);
      first_decode_error_ = bad.error;
    }
    // The drop is announced before the undecodable handlers run, so that they have the last word
    // on that object.
    if (undecodable_key_of_ &&
        (source == ObjectSource::kAdded || source == ObjectSource::kModified) && !bad.name.empty()) {
      if (ObjectPtr before = store_.Get(undecodable_key_of_(bad.namespace_name, bad.name))) {
        store_.Apply(runtime::WatchEvent<T>{runtime::WatchEventType::kDeleted, before});
        Notify(before.get(), nullptr);
      }
    }
    for (const UndecodableHandler& handler : undecodable_handlers_) handler(bad);
  }

  void Notify(const T* before, const T* after) {
    for (const ChangeHandler<T>& handler : handlers_) handler(before, after);
  }

  runtime::Store<T> store_;
  const Decoder<T> decode_;
  // Fixed before the first write.
  RawDecoder<T> raw_decode_;
  std::function<std::string(absl::string_view, absl::string_view)> undecodable_key_of_;
  std::function<absl::string_view(const T&)> version_of_;
  std::vector<ChangeHandler<T>> handlers_;
  std::vector<UndecodableHandler> undecodable_handlers_;
  // The list in progress and the cached object under each item's key (writer thread only).
  std::vector<ObjectPtr> listed_;
  std::vector<ObjectPtr> listed_before_;
  std::atomic<int64_t> undecodable_{0};
  std::atomic<int64_t> raw_fallbacks_{0};

  mutable absl::Mutex mu_;
  absl::Status first_decode_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuprofile::kube
