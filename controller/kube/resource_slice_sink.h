// File: controller/kube/resource_slice_sink.h
// The WatchSink of the ResourceSlice cache: feeds a runtime::Store<dra::ResourceSlice> keyed by
// the slice's name (ResourceSlices are cluster-scoped), decoding watch events straight from
// their JSON text with dra::SliceJsonDecoder (simdjson; the strict decoder's exact result, to
// which it falls back on anything unusual), and tells an observer what changed, so an informer
// can enqueue work:
//  - after each applied event: on_event(type, now, before), `now` being the decoded object (for
//    kDeleted its last state) and `before` what the store held under that name (null if
//    nothing);
//  - after each (re)list: on_replace(objects, removed), the new content and what disappeared.
// Objects that do not decode (DecodeSlice's errors, with field paths) are skipped and counted,
// and reported to on_undecodable: one bad slice must not stop the cache. An event whose text is
// not JSON is reported to the watcher (DataLoss), which distrusts the stream and resumes.
//
// Relists arrive as nlohmann::json items (the REST client parses list pages): they are decoded
// with dra::DecodeSlice from that document, which is what the fast decoder reproduces.
//
// Thread-safety: the WatchSink methods are called from the watcher's thread only, and the
// observers run on it; undecodable() may be called from any thread. The store is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "controller/dra/resource_slice.h"
#include "controller/dra/slice_fast_decoder.h"
#include "controller/kube/watcher.h"
#include "controller/runtime/store.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::kube {

using ResourceSlicePtr = std::shared_ptr<const dra::ResourceSlice>;

// The store's key of a slice: its name.
std::string ResourceSliceKey(const dra::ResourceSlice& slice);

struct ResourceSliceSinkOptions {
  std::function<void(runtime::WatchEventType type, ResourceSlicePtr now, ResourceSlicePtr before)>
      on_event;
  std::function<void(const std::vector<ResourceSlicePtr>& objects,
                     const std::vector<ResourceSlicePtr>& removed)>
      on_replace;
  std::function<void(const absl::Status&)> on_undecodable;
};

class ResourceSliceSink final : public WatchSink {
 public:
  // `store` must outlive the sink and be keyed by ResourceSliceKey (see NewResourceSliceStore).
  explicit ResourceSliceSink(runtime::Store<dra::ResourceSlice>* store,
                             ResourceSliceSinkOptions options = {});
  ResourceSliceSink(const ResourceSliceSink&) = delete;
  ResourceSliceSink& operator=(const ResourceSliceSink&) = delete;

  void Replace(std::vector<nlohmann::json> items) override;
  // A (re)list is decoded page by page; the store swaps at EndList.
  void BeginList() override { listed_.clear(); }
  void ListPage(std::vector<nlohmann::json> items) override;
  void EndList() override;
  void Apply(runtime::WatchEventType type, const nlohmann::json& object) override;
  absl::Status ApplyRaw(runtime::WatchEventType type, absl::string_view object_json) override;

  // Objects skipped because they did not decode, since construction.
  int64_t undecodable() const { return undecodable_.load(std::memory_order_relaxed); }
  // Events the fast decoder handed to the strict one, since construction (watcher thread only).
  int64_t fallbacks() const { return decoder_.fallbacks(); }

 private:
  void Record(runtime::WatchEventType type, ResourceSlicePtr slice);
  void Skip(const absl::Status& status);

  runtime::Store<dra::ResourceSlice>* const store_;
  const ResourceSliceSinkOptions options_;
  dra::SliceJsonDecoder decoder_;         // the watcher thread's
  std::vector<ResourceSlicePtr> listed_;  // the list in progress (watcher thread only)
  std::atomic<int64_t> undecodable_{0};
};

// A store keyed by ResourceSliceKey, for a ResourceSliceSink.
std::unique_ptr<runtime::Store<dra::ResourceSlice>> NewResourceSliceStore(
    std::map<std::string, runtime::Store<dra::ResourceSlice>::IndexFunc> indexers = {});

}  // namespace gpuprofile::kube
